# check_upstream_app.cmake - runs upstream_etdump_app (an application
# written for upstream's ETDumpGen) and reads its three dumps with
# `etkit inspect`: each holds the Execute block's four kernel events (one
# row per instruction) and the delegate event, and the dumps with a debug
# buffer or a file sink decode with it.  -DAPP=... -DETKIT=... -DWORK=...
file(MAKE_DIRECTORY ${WORK})
set(dump ${WORK}/app.etdp)
execute_process(COMMAND ${APP} ${dump} ${WORK}/debug.bin ${WORK}/sink.bin
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "upstream ETDumpGen app: ok")
  message(FATAL_ERROR "app failed (${rc}):\n${out}${err}")
endif()
foreach(pair "app.etdp" "app.etdp.static|debug.bin" "app.etdp.file|sink.bin")
  string(REPLACE "|" ";" pair "${pair}")
  list(GET pair 0 etdp)
  set(args --etdump_path ${WORK}/${etdp} --format tsv)
  list(LENGTH pair n)
  if(n EQUAL 2)
    list(GET pair 1 bin)
    list(APPEND args --debug_buffer_path ${WORK}/${bin})
  endif()
  execute_process(COMMAND ${ETKIT} inspect ${args}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "etkit inspect ${etdp} failed (${rc}): ${err}")
  endif()
  string(REGEX MATCHALL "native_call_add.out" ops "${out}")
  list(LENGTH ops nops)
  if(NOT nops EQUAL 4 OR NOT out MATCHES "conv_block" OR NOT out MATCHES "Execute")
    message(FATAL_ERROR "etkit inspect ${etdp}: unexpected table:\n${out}")
  endif()
  if(n EQUAL 2)
    # the program output's tensor (1.5, 2.5, ...) read from the bytes the
    # BufferDataSink / FileDataSink wrote
    execute_process(COMMAND ${ETKIT} inspect ${args} --format json
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out)
    if(NOT rc EQUAL 0 OR NOT out MATCHES "1\\.5")
      message(FATAL_ERROR "etkit inspect ${etdp}: no tensor values:\n${out}")
    endif()
  endif()
endforeach()
message(STATUS "three dumps of the upstream-style app read back")
