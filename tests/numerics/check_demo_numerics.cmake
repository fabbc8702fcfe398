# check_demo_numerics.cmake - numerical debugging end to end on the files
# `etkit demo` writes (program, bundled program, ETRecord with reference
# outputs, ETDump and debug buffer traced at the "intermediates" level):
#   1. `etkit inspect --compare_results` with the demo's ETRecord and, with
#      --reference, with its bundled program: the program output equals
#      the reference (the demo computed it with the same runtime), so snr
#      inf, mse 0 and cosine 1, after upstream's table;
#   2. `etkit numerics` of the demo's run against a run of model.pte on
#      other inputs (etkit run, inputs of ones): every logged value is
#      matched, op types come from the ETRecord;
#   3. the same against itself: every SNR is inf.
#   -DETKIT=<etkit> -DDIR=<scratch dir>
include(${CMAKE_CURRENT_LIST_DIR}/../cmake/run_demo.cmake)
etk_run_demo(2)
set(want "snr\n--------------------\n0         inf\n\n\nmse\n--------------------\n0     0.00000\n\n\ncosine_similarity\n--------------------\n0     1.00000\n\n\n")
foreach(ref "--etrecord_path;${DIR}/model.etrecord"
            "--reference;${DIR}/model.bpte")
  execute_process(COMMAND ${ETKIT} inspect --etdump_path ${DIR}/etdump.etdp
                    --debug_buffer_path ${DIR}/debug_buffer.bin ${ref}
                    --compare_results
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT err STREQUAL "")
    message(FATAL_ERROR "compare_results (${ref}) failed (${rc}): ${err}")
  endif()
  string(FIND "${out}" "╘" table_end REVERSE)
  string(FIND "${out}" "${want}" at)
  string(LENGTH "${out}" n)
  string(LENGTH "${want}" wn)
  math(EXPR tail "${n} - ${wn}")
  if(at EQUAL -1 OR NOT at EQUAL tail OR table_end EQUAL -1 OR table_end GREATER at)
    message(FATAL_ERROR "compare_results (${ref}) printed:\n${out}")
  endif()
endforeach()
execute_process(COMMAND ${ETKIT} run ${DIR}/model.pte --iterations 1
                  --etdump ${DIR}/ones.etdp --debug-buffer ${DIR}/ones.bin
                  --debug-level intermediates --output-dir ${DIR}/ones
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "etkit run model.pte failed: ${out}${err}")
endif()
execute_process(COMMAND ${ETKIT} numerics --etdump_path ${DIR}/etdump.etdp
                  --debug_buffer_path ${DIR}/debug_buffer.bin
                  --against ${DIR}/ones.etdp --against-debug-buffer ${DIR}/ones.bin
                  --etrecord_path ${DIR}/model.etrecord --format tsv
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT err STREQUAL "")
  message(FATAL_ERROR "etkit numerics failed (${rc}): ${err}")
endif()
if(out MATCHES "only in|mismatch|not numeric" OR
   NOT out MATCHES "\taten\\.convolution\\.default\tfloat32\t\\[1, 4, 8, 8\\]\t[0-9.e-]+\t[0-9.e-]+\t"
   OR NOT out MATCHES "\tconvolution #0\taten\\.convolution\\.default\t" 
   OR NOT out MATCHES "Execute\toutput\t\t0\toutput\t\tfloat32\t\\[1, 10\\]")
  message(FATAL_ERROR "etkit numerics (demo vs ones) printed:\n${out}")
endif()
execute_process(COMMAND ${ETKIT} numerics --etdump_path ${DIR}/etdump.etdp
                  --debug_buffer_path ${DIR}/debug_buffer.bin
                  --against ${DIR}/etdump.etdp
                  --against-debug-buffer ${DIR}/debug_buffer.bin --format csv
                  --min-snr 200
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES ",matched\n" OR out MATCHES ",only in")
  message(FATAL_ERROR "etkit numerics (demo vs itself) failed (${rc}):\n${out}${err}")
endif()
string(REGEX MATCHALL ",matched\n" rows "${out}")
string(REGEX MATCHALL ",inf,0\\.0,1\\.0,matched\n|,,0\\.0,,matched\n" perfect "${out}")
list(LENGTH rows nrows)
list(LENGTH perfect nperfect)
if(NOT nrows EQUAL nperfect)
  message(FATAL_ERROR "demo vs itself: ${nperfect} of ${nrows} rows exact:\n${out}")
endif()
message(STATUS "numerics on the demo: ${nrows} values compared")
