# run_demo.cmake - the first step of the end-to-end scripts that check what
# `etkit demo` writes (tests/runtime/check_demo.cmake,
# tests/numerics/check_demo_numerics.cmake): include it from a cmake -P
# script that has ETKIT (the etkit executable) and DIR (a scratch folder).

# Runs `etkit demo` with `runs` runs into a fresh DIR and stops the script
# when it fails.  A macro, so the caller reads the demo's stdout and stderr
# in `out` and `err`.
macro(etk_run_demo runs)
  file(REMOVE_RECURSE ${DIR})
  execute_process(COMMAND ${ETKIT} demo --output-dir ${DIR} --runs ${runs}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "etkit demo failed (${rc}): ${out}${err}")
  endif()
endmacro()
