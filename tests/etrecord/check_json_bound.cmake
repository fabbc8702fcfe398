# check_json_bound.cmake - an ETRecord whose program JSON would take more
# than max_json_memory_ratio (32) times its text in memory is refused with
# one error line naming the bound, before taking that memory: `etkit graph`
# exits 1 (a failure of a command that is no gate), the gate `etkit
# numerics --gap` on the demo's dump exits 2 (trouble, docs/exit-status.md).
# -DETKIT=<etkit> -DDIR=<scratch dir>
include(${CMAKE_CURRENT_LIST_DIR}/../cmake/run_demo.cmake)
etk_run_demo(1)
set(rec ${DIR}/empty_objects.etrecord)
execute_process(
  COMMAND /usr/bin/python3 -c "
import sys, zipfile
body = '{\"graph_module\": {\"graph\": {\"nodes\": [], \"x\": [' + ','.join(['{}'] * 400000) + ']}}}'
with zipfile.ZipFile(sys.argv[1], 'w') as z:
    z.writestr('ETRECORD_V0', '')
    z.writestr('edge_dialect_exported_program/forward', body)
" ${rec}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "could not write ${rec}")
endif()
set(want "edge_dialect_exported_program/forward: parsing 1200050 bytes of JSON takes more than 38401600 bytes of memory \\(limit: 32 times the text, max_json_memory_ratio\\)")
function(refused expect_rc)
  execute_process(COMMAND ${ETKIT} ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REGEX MATCHALL "\n" lines "${err}")
  list(LENGTH lines nlines)
  if(NOT rc EQUAL expect_rc OR NOT nlines EQUAL 1 OR NOT out STREQUAL "" OR
     NOT err MATCHES "${want}")
    message(FATAL_ERROR "etkit ${ARGN} on JSON over the memory bound: exit "
                        "${rc} (wanted ${expect_rc}), ${nlines} error "
                        "lines\n${out}${err}")
  endif()
endfunction()
refused(1 graph ${rec})
refused(2 numerics --gap mse --etdump_path ${DIR}/etdump.etdp
        --debug_buffer_path ${DIR}/debug_buffer.bin --etrecord_path ${rec})
