# check_regenerate.cmake - torch_archive_tool.py must still write exactly
# the committed fixtures or fuzz corpus (so they stay reproducible).
#   -DPYTHON=<python3> -DTOOL=<tool.py> -DMODE=generate|corpus -DOUT=<dir>
#   -DCOMMITTED=<dir>
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${PYTHON} ${TOOL} ${MODE} ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "torch_archive_tool.py ${MODE} failed")
endif()
file(GLOB made RELATIVE ${OUT} ${OUT}/*)
file(GLOB kept RELATIVE ${COMMITTED} ${COMMITTED}/*)
list(SORT made)
list(SORT kept)
if(NOT made STREQUAL kept)
  message(FATAL_ERROR "fixture lists differ:\n made: ${made}\n kept: ${kept}")
endif()
foreach(f ${made})
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}/${f}
                  ${COMMITTED}/${f} RESULT_VARIABLE diff)
  if(NOT diff EQUAL 0)
    message(FATAL_ERROR "${f}: the script now writes other bytes")
  endif()
endforeach()
