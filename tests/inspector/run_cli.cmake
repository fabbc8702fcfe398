# run_cli.cmake - one golden CLI check, run with cmake -P:
#   -DEXE=<etkit> -DARGS=<;-list> -DEXIT=<expected status>
#   [-DSTDOUT=<file with the exact expected stdout>]
#   [-DSTDERR=<file with the exact expected stderr; @FILE@ = INPUT>]
#   [-DINPUT=<path substituted for @FILE@>]
#   [-DOUTFILE=<file the command writes> -DOUTEXPECT=<its expected bytes>]
# Outputs are compared byte for byte.
string(REPLACE "|" ";" ARGS "${ARGS}")
execute_process(COMMAND ${EXE} ${ARGS}
  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT "${status}" STREQUAL "${EXIT}")
  message(FATAL_ERROR "exit status ${status}, expected ${EXIT}\nstderr: ${err}")
endif()
if(DEFINED STDOUT)
  file(READ ${STDOUT} want)
  if(NOT out STREQUAL want)
    file(WRITE ${STDOUT}.actual "${out}")
    message(FATAL_ERROR "stdout differs from ${STDOUT} (see ${STDOUT}.actual)")
  endif()
endif()
if(DEFINED STDERR)
  file(READ ${STDERR} want)
  string(REPLACE "@FILE@" "${INPUT}" want "${want}")
  if(NOT err STREQUAL want)
    message(FATAL_ERROR "stderr differs:\n got: ${err}\nwant: ${want}")
  endif()
endif()
if(DEFINED OUTFILE)
  file(READ ${OUTFILE} got)
  file(READ ${OUTEXPECT} want)
  file(REMOVE ${OUTFILE})
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "${OUTFILE} differs from ${OUTEXPECT}")
  endif()
endif()
