# check_gap_inputs.cmake - `etkit numerics --gap` says what went wrong with
# the run it is given, on `etkit demo`'s program and ETRecord:
#   1. a run traced without intermediate outputs (--debug-level outputs):
#      exit 2, one line saying so and how to record them, no table;
#   2. a run on etkit run's default inputs (ones) instead of the ETRecord's
#      representative inputs: the table, and a warning naming all-ones
#      inputs and `etkit run --inputs-from`;
#   3. a run with `etkit run --inputs-from ETRECORD`: every gap is 0, no
#      warning; --inputs-from with --input is a usage error (exit 2);
#   4. a debug buffer too short for the dump is refused (exit 2) as
#      `etkit inspect` refuses it, not tabulated as NaN rows;
#   5. an ETRecord whose convolutions the interpreter cannot run (the op
#      renamed): the error names the node, its op and the interpreter's
#      message, not "was the run traced with intermediate outputs?".
#   -DETKIT=<etkit> -DDIR=<scratch dir>
include(${CMAKE_CURRENT_LIST_DIR}/../cmake/run_demo.cmake)
etk_run_demo(1)

function(etkit expect_rc)
  execute_process(COMMAND ${ETKIT} ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL expect_rc)
    message(FATAL_ERROR "etkit ${ARGN}: exit ${rc}, wanted ${expect_rc}\n"
                        "${out}${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()

function(run_and_gap name)
  etkit(0 run ${DIR}/model.pte --etdump ${DIR}/${name}.etdp
        --debug-buffer ${DIR}/${name}.bin ${ARGN})
  execute_process(COMMAND ${ETKIT} numerics --gap mse
                    --etdump_path ${DIR}/${name}.etdp
                    --debug_buffer_path ${DIR}/${name}.bin
                    --etrecord_path ${DIR}/model.etrecord
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(rc "${rc}" PARENT_SCOPE)
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()

run_and_gap(outputs --debug-level outputs)
if(NOT rc EQUAL 2 OR NOT out STREQUAL "" OR
   NOT err MATCHES "^etkit numerics: the ETDump logged no intermediate outputs [^\n]*--debug-level intermediates[^\n]*\n$")
  message(FATAL_ERROR "a dump without intermediate outputs: exit ${rc}\n"
                      "${out}${err}")
endif()

run_and_gap(ones --debug-level intermediates)
if(NOT rc EQUAL 0 OR NOT out MATCHES "first divergence" OR
   NOT err MATCHES "^etkit numerics: warning: [^\n]*all-ones inputs[^\n]*--inputs-from [^\n]*model.etrecord[^\n]*\n$")
  message(FATAL_ERROR "a run on ones: exit ${rc}\n${out}${err}")
endif()

run_and_gap(rep --debug-level intermediates --inputs-from
            ${DIR}/model.etrecord)
if(NOT rc EQUAL 0 OR NOT err STREQUAL "" OR out MATCHES "first divergence" OR
   NOT out MATCHES "\n9 pairs, MSE above 1e-06 is a divergence\n")
  message(FATAL_ERROR "a run on the representative inputs: exit ${rc}\n"
                      "${out}${err}")
endif()

etkit(2 run ${DIR}/model.pte --inputs-from ${DIR}/model.etrecord
      --input ${DIR}/x.npy)
etkit(2 run ${DIR}/model.pte --inputs-from ${DIR}/model.pte)

# the "outputs" run's buffer holds the program output only
execute_process(COMMAND ${ETKIT} numerics --gap mse
                  --etdump_path ${DIR}/rep.etdp
                  --debug_buffer_path ${DIR}/outputs.bin
                  --etrecord_path ${DIR}/model.etrecord
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT out STREQUAL "" OR
   NOT err MATCHES "^etkit numerics: [^\n]*lie outside the debug buffer of [0-9]+ bytes[^\n]*\n$")
  message(FATAL_ERROR "a debug buffer too short: exit ${rc}\n${out}${err}")
endif()

set(x ${DIR}/unpacked)
file(REMOVE_RECURSE ${x})
file(MAKE_DIRECTORY ${x})
execute_process(COMMAND ${CMAKE_COMMAND} -E tar xf ${DIR}/model.etrecord
                WORKING_DIRECTORY ${x} RESULT_VARIABLE rc)
set(program ${x}/edge_dialect_exported_program/forward)
file(READ ${program} text)
string(REPLACE "aten.convolution.default" "aten.frobnicate.default" text "${text}")
file(WRITE ${program} "${text}")
file(GLOB_RECURSE members RELATIVE ${x} ${x}/*)
execute_process(COMMAND ${CMAKE_COMMAND} -E tar cf ${DIR}/frobnicate.etrecord
                  --format=zip ${members}
                WORKING_DIRECTORY ${x} RESULT_VARIABLE zip_rc)
execute_process(COMMAND ${ETKIT} numerics --gap mse
                  --etdump_path ${DIR}/rep.etdp
                  --debug_buffer_path ${DIR}/rep.bin
                  --etrecord_path ${DIR}/frobnicate.etrecord
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT zip_rc EQUAL 0 OR NOT rc EQUAL 2 OR
   NOT err MATCHES "^etkit numerics: no AOT output to pair: the interpreter could not run 9 node\\(s\\), the first aten_convolution_default \\(aten.frobnicate.default\\): unsupported op aten.frobnicate.default\n$")
  message(FATAL_ERROR "an ETRecord with an op the interpreter lacks: exit "
                      "${rc}\n${out}${err}")
endif()
