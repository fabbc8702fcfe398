# check_macros.cmake - the assertions of the end-to-end CLI scripts
# (tests/capture/capture_cli.cmake, tests/device/device_run.cmake), read with
# include():
#   run(<expected exit> <command...>)  runs it; sets out and err
#   same(<a> <b>)                     the two files are byte-identical
#   expect_text(<text>)               text is in the last run's out or err
#   absent(<file>)                    the file was not left behind
macro(run want)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc STREQUAL "${want}")
    message(FATAL_ERROR "${ARGN}: exit ${rc}, expected ${want}\n${out}${err}")
  endif()
endmacro()
macro(same a b)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${a} ${b}
                  RESULT_VARIABLE differ)
  if(differ)
    message(FATAL_ERROR "${a} differs from ${b}")
  endif()
endmacro()
macro(expect_text text)
  string(FIND "${out}${err}" "${text}" at)
  if(at LESS 0)
    message(FATAL_ERROR "'${text}' not in the output:\n${out}${err}")
  endif()
endmacro()
macro(absent f)
  if(EXISTS ${f})
    message(FATAL_ERROR "${f} should not exist (no output may be left, "
                        "complete-looking or not)")
  endif()
endmacro()
