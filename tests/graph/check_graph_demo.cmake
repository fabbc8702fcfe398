# check_graph_demo.cmake: runs `etkit demo` into DIR, then CHECK (the
# check_graph_figures executable) on its files.
include(${CMAKE_CURRENT_LIST_DIR}/../cmake/run_demo.cmake)
etk_run_demo(3)
execute_process(COMMAND ${CHECK} ${DIR} RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "check_graph_figures failed (${rc})")
endif()
