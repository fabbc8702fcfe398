# check_gap_cli.cmake - `etkit numerics --gap` end to end on `etkit demo`'s
# files: the demo's ETRecord carries the whole graph, its weights and the
# input the demo ran, so the interpreter's outputs equal the runtime's and
# every gap is 0 (MSE, L1) or inf (SNR); one row per operator of the demo;
# CSV and JSON; --fail-above exits 1 when a pair is worse; usage errors
# and unreadable files exit 2 (docs/exit-status.md).  -DETKIT=<etkit> -DDIR=<scratch dir>
include(${CMAKE_CURRENT_LIST_DIR}/../cmake/run_demo.cmake)
etk_run_demo(1)
set(files --etdump_path ${DIR}/etdump.etdp --debug_buffer_path
    ${DIR}/debug_buffer.bin --etrecord_path ${DIR}/model.etrecord)

function(gap expect_rc)
  execute_process(COMMAND ${ETKIT} numerics ${files} ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL expect_rc)
    message(FATAL_ERROR "etkit numerics ${ARGN}: exit ${rc}, wanted "
                        "${expect_rc}\n${out}${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()

gap(0 --gap mse)
foreach(node aten_convolution_default aten_relu_default_1 aten_addmm_default)
  if(NOT out MATCHES "${node} ")
    message(FATAL_ERROR "the MSE table lacks ${node}:\n${out}")
  endif()
endforeach()
if(NOT out MATCHES "\n9 pairs, MSE above 1e-06 is a divergence\n" OR
   out MATCHES "first divergence")
  message(FATAL_ERROR "the demo's MSE table:\n${out}")
endif()

gap(0 --gap snr --format csv)
string(REGEX MATCHALL "\n[0-9]+,\"[0-9,]+\",\"[^\"]*\",\"[^\"]*\",\"[^\"]*\",inf,0,0,\"\"" rows "${out}")
list(LENGTH rows n)
if(NOT n EQUAL 9 OR NOT out MATCHES "^order,debug_handle,aot_ops,runtime_ops,shape,SNR,")
  message(FATAL_ERROR "the demo's SNR CSV (${n} rows of inf):\n${out}")
endif()

gap(0 --gap l1 --format json)
if(NOT out MATCHES "\"metric\": \"L1\"" OR NOT out MATCHES "\"gap\": 0," OR
   NOT out MATCHES "\"debug_handle\": \\[4\\], \"aot_ops\": \"aten_convolution_default_1\", \"runtime_ops\": \"convolution #0\"")
  message(FATAL_ERROR "the demo's L1 JSON:\n${out}")
endif()

# every MSE of 0 is worse than -1: a CI gate that fails, first row marked
gap(1 --gap mse --fail-above -1)
if(NOT err MATCHES "9 pair\\(s\\) worse than -1" OR
   NOT out MATCHES "aten_convolution_default [^\n]*<- first divergence")
  message(FATAL_ERROR "--fail-above -1:\n${out}${err}")
endif()

gap(2 --gap cosine)
gap(2 --gap mse --fail-above 1 --debug_buffer_path ${DIR}/nonexistent.bin)
gap(2 --gap mse --format xml)
execute_process(COMMAND ${ETKIT} numerics --gap mse --etdump_path
                  ${DIR}/etdump.etdp
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "--gap without the other files: exit ${rc}: ${err}")
endif()
