# check_demo.cmake: runs `etkit demo` into DIR, checks every file appeared,
# that it prints its operators linked with its ETRecord and no warning,
# that `etkit inspect` links the files too, runs the bundled program it
# wrote with --verify, runs the .pte with tracing, and (when flatc is
# available) decodes model.pte and etdump.etdp.
include(${CMAKE_CURRENT_LIST_DIR}/../cmake/run_demo.cmake)
etk_run_demo(3)
foreach(f model.pte model.bpte model.etrecord etdump.etdp debug_buffer.bin)
  if(NOT EXISTS ${DIR}/${f})
    message(FATAL_ERROR "etkit demo did not write ${f}")
  endif()
endforeach()
foreach(word convolution.out max_pool2d_with_indices.out relu addmm.out
        Method::execute)
  string(FIND "${out}" "${word}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "demo table lacks '${word}':\n${out}")
  endif()
endforeach()
# Every run gets the same input, so the merged runs' debug values agree.
if(err MATCHES "differ between merged runs")
  message(FATAL_ERROR "etkit demo warns about its own dump:\n${err}")
endif()
# The events are linked with the ETRecord the demo wrote: op types and
# modules, delegated ops included (their string ids are in the delegate map).
foreach(re "native_call_addmm\\.out[^\n]* fc +aten\\.addmm\\.default"
        "convolution #0 \\[EtkitMicroBackend\\][^\n]* conv2 +aten\\.convolution\\.default"
        "relu #1 \\[EtkitMicroBackend\\][^\n]* relu2 +aten\\.relu\\.default"
        "Execute[^\n]*aten\\.max_pool2d\\.default[^\n]* 2 ")
  if(NOT out MATCHES "${re}")
    message(FATAL_ERROR "demo output does not match '${re}':\n${out}")
  endif()
endforeach()
execute_process(COMMAND ${ETKIT} inspect --etdump_path ${DIR}/etdump.etdp
                  --etrecord_path ${DIR}/model.etrecord
                  --debug_buffer_path ${DIR}/debug_buffer.bin --format tsv
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT err STREQUAL "")
  message(FATAL_ERROR "etkit inspect of the demo files failed or warned "
                      "(${rc}): ${err}")
endif()
if(NOT out MATCHES "\tconvolution #0\t[^\n]*\t\\['aten\\.convolution\\.default'\\]\tTrue\tEtkitMicroBackend")
  message(FATAL_ERROR "etkit inspect does not link the delegated "
                      "convolution:\n${out}")
endif()
execute_process(COMMAND ${ETKIT} run ${DIR}/model.bpte --verify
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "1 of 1 checked case passed")
  message(FATAL_ERROR "etkit run model.bpte --verify failed: ${out}${err}")
endif()
execute_process(COMMAND ${ETKIT} run ${DIR}/model.pte --iterations 2
                  --etdump ${DIR}/run.etdp --debug-buffer ${DIR}/run.bin
                  --debug-level intermediates --output-dir ${DIR}/out
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT EXISTS ${DIR}/out/output_0.npy)
  message(FATAL_ERROR "etkit run model.pte failed: ${out}${err}")
endif()
if(FLATC)
  execute_process(COMMAND ${FLATC} --json --strict-json --defaults-json
                    --raw-binary -o ${DIR} ${SCHEMA_DIR}/program.fbs --
                    ${DIR}/model.pte RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "flatc cannot decode model.pte: ${err}")
  endif()
  execute_process(COMMAND ${FLATC} --json --strict-json --defaults-json
                    --size-prefixed --raw-binary -o ${DIR}
                    ${SCHEMA_DIR}/etdump_schema_flatcc.fbs -- ${DIR}/etdump.etdp
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "flatc cannot decode etdump.etdp: ${err}")
  endif()
  file(READ ${DIR}/model.json pj)
  file(READ ${DIR}/etdump.json ej)
  foreach(word "\"id\": \"EtkitMicroBackend\"" "\"name\": \"aten::addmm\"")
    string(FIND "${pj}" "${word}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "model.json lacks ${word}")
    endif()
  endforeach()
  foreach(word "\"delegate_debug_id_str\": \"relu #1\""
          "\"delegate_debug_id_str\": \"convolution #0\""
          "\"name\": \"DELEGATE_CALL\"")
    string(FIND "${ej}" "${word}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "etdump.json lacks ${word}")
    endif()
  endforeach()
endif()
message(STATUS "etkit demo: all files written and checked")
