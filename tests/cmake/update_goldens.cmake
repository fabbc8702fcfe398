# update_goldens.cmake - the one way golden files are rewritten
# (`make update-goldens`, or the build target update-goldens):
#
#   cmake -DBUILD=<build dir> [-DCTEST=<ctest>] -P tests/cmake/update_goldens.cmake
#
# 1. Refused under CI=true: CI compares goldens, it never writes them.
# 2. The CLI goldens (label "golden") that no oracle pins are rewritten
#    from the current outputs (ETKIT_UPDATE_GOLDENS=1 for run_cli.cmake).
# 3. The oracle-pinned goldens (label "oracle_golden": the cases
#    tests/oracle/oracle.py checks against the real pandas and tabulate)
#    are rewritten only when the oracle test runs and passes now
#    (ETKIT_UPDATE_GOLDENS=oracle-passed); when it fails or is skipped
#    (no pandas/tabulate/flatc) they stay as they are and this says so.
# Review the diff before committing it.
if(NOT DEFINED BUILD)
  message(FATAL_ERROR "usage: cmake -DBUILD=<build dir> -P update_goldens.cmake")
endif()
if(NOT DEFINED CTEST)
  set(CTEST ctest)
endif()
if("$ENV{CI}" STREQUAL "true")
  message(FATAL_ERROR "update-goldens: refused under CI=true (CI compares goldens, never rewrites them)")
endif()

execute_process(COMMAND ${CMAKE_COMMAND} -E env ETKIT_UPDATE_GOLDENS=1
  ${CTEST} --test-dir ${BUILD} -L golden -LE oracle_golden
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "update-goldens: some golden tests failed while rewriting")
endif()

execute_process(COMMAND ${CTEST} --test-dir ${BUILD} -R "^oracle_pandas_tabulate$"
  --output-on-failure OUTPUT_VARIABLE log ERROR_VARIABLE log RESULT_VARIABLE rc)
if(rc EQUAL 0 AND log MATCHES "oracle_pandas_tabulate [.]* +Passed")
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ETKIT_UPDATE_GOLDENS=oracle-passed
    ${CTEST} --test-dir ${BUILD} -L oracle_golden RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "update-goldens: oracle-pinned goldens failed while rewriting")
  endif()
  message(STATUS "update-goldens: the oracle passed; oracle-pinned goldens rewritten")
else()
  message(WARNING "update-goldens: the oracle (oracle_pandas_tabulate) did not pass:\n${log}\n"
    "the oracle-pinned goldens (tests/oracle/golden) were left unchanged")
endif()
