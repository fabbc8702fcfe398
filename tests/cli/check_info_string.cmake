# check_info_string.cmake: `etkit info` on a program shows a String
# scalar's value (issue 28, section 6), its control characters escaped so
# that a file cannot retitle or drive the terminal (section 7).
# -DETKIT=<etkit> -DMAKE=<make_string_pte> -DDIR=<scratch directory>.
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR})
execute_process(COMMAND ${MAKE} ${DIR}/s.pte RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "make_string_pte: exit ${rc}")
endif()
execute_process(COMMAND ${ETKIT} info ${DIR}/s.pte RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "etkit info: exit ${rc}\n${out}${err}")
endif()
string(ASCII 27 esc)
string(ASCII 7 bel)
string(FIND "${out}" "${esc}" raw_esc)
string(FIND "${out}" "${bel}" raw_bel)
if(NOT raw_esc EQUAL -1 OR NOT raw_bel EQUAL -1)
  message(FATAL_ERROR "etkit info printed the String's control characters raw:\n${out}")
endif()
string(FIND "${out}" "output 0  String \"mode \\x1b]0;owned\\x07 fast\"" at)
if(at EQUAL -1)
  message(FATAL_ERROR "etkit info does not show the String's value escaped:\n${out}")
endif()
message(STATUS "a String scalar's value, escaped")

# An empty file or a directory has nothing to describe: one line on stderr,
# exit 1, nothing on stdout (it once printed a description and exited 0).
file(WRITE ${DIR}/empty.etdp "")
foreach(path ${DIR}/empty.etdp ${DIR})
  execute_process(COMMAND ${ETKIT} info ${path} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 1 OR NOT out STREQUAL "")
    message(FATAL_ERROR "etkit info ${path}: exit ${rc} (want 1), stdout '${out}'")
  endif()
  string(REGEX MATCHALL "\n" lines "${err}")
  list(LENGTH lines nl)
  if(NOT nl EQUAL 1 OR NOT err MATCHES "^etkit info: ")
    message(FATAL_ERROR "etkit info ${path}: want one error line, got:\n${err}")
  endif()
endforeach()
message(STATUS "an empty file and a directory: one error line, exit 1")
