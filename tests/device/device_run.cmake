# device_run.cmake - `etkit run --target BOARD` end to end on QEMU.
#   cmake -DETKIT=etkit -DKWS=etkit_kws_model -DMAKE_BIG_PLAN=make_big_plan
#         -DFIRMWARE=dir -DDIR=work -DPYTHON=python3 -P device_run.cmake
# - the demo program on every board: two runs give byte-identical ETDumps;
#   outputs and the intermediate values logged (--debug-level
#   intermediates) equal the host run's;
# - the demo's bundled program --verify on every board (exit 0);
# - --debug-level stats on M4F: STATS equal the host's, bytes and all;
# - the KWS-shaped int8 program on M4F and M55: outputs == the host's, bit
#   for bit;
# - errors: an unknown board, no QEMU on PATH, a firmware fault and a
#   firmware hang (tests/device/probe_main.c), a run past --timeout, a
#   program and a trace that do not fit the firmware's arena, inputs of the
#   wrong dtype or shape (host and target): one line each, none leaves an
#   output;
# - --transport uart --keep-log: the files equal the semihosting run's.
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR})

include(${CMAKE_CURRENT_LIST_DIR}/../cmake/check_macros.cmake)
# float outputs within 1e-5 relative (exactly equal integer ones)
macro(close a b)
  execute_process(COMMAND ${PYTHON} -c "
import numpy as np, sys
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, b.dtype, a.shape, b.shape)
if a.dtype.kind == 'f':
    ok = np.allclose(a, b, rtol=1e-5, atol=0)
else:
    ok = np.array_equal(a, b)
sys.exit(0 if ok else 1)" ${a} ${b} RESULT_VARIABLE differ ERROR_VARIABLE perr)
  if(differ)
    message(FATAL_ERROR "${a} and ${b} differ\n${perr}")
  endif()
endmacro()

set(D ${DIR}/demo)
run(0 ${ETKIT} demo --output-dir ${D})
run(0 ${ETKIT} run ${D}/model.pte --iterations 2 --etdump ${DIR}/host.etdp
    --debug-level intermediates --debug-buffer ${DIR}/host.bin
    --output-dir ${DIR}/host)

foreach(board mps2-an385 mps2-an386 mps3-an547)
  set(B ${DIR}/${board})
  foreach(k 1 2)
    run(0 ${ETKIT} run ${D}/model.pte --target ${board}
        --firmware ${FIRMWARE}/${board}.elf --iterations 2
        --etdump ${B}_${k}.etdp --debug-level intermediates
        --debug-buffer ${B}_${k}.bin --output-dir ${B}_out${k})
  endforeach()
  expect_text("cycles per execute")
  same(${B}_1.etdp ${B}_2.etdp)
  same(${B}_1.bin ${B}_2.bin)
  close(${B}_out1/output_0.npy ${DIR}/host/output_0.npy)
  # the dump and its debug buffer read back
  run(0 ${ETKIT} inspect --etdump_path ${B}_1.etdp
      --debug_buffer_path ${B}_1.bin)
  # the dump says its unit: cycles without --source_time_scale
  expect_text("(cycles)")
  run(0 ${ETKIT} info ${B}_1.etdp)
  expect_text("time scale: CPU cycles")
  run(0 ${ETKIT} run ${D}/model.bpte --target ${board}
      --firmware ${FIRMWARE}/${board}.elf --verify)
  expect_text("case 0: pass")
endforeach()
# intermediates equal the host's: the same logged bytes where the float
# arithmetic is the same IEEE single precision (M4F, M55 and x86-64 SSE)
same(${DIR}/mps2-an386_1.bin ${DIR}/host.bin)
same(${DIR}/mps3-an547_1.bin ${DIR}/host.bin)

# --debug-level stats on the board: each logged tensor reduced to its
# STATS vector in the firmware; they equal the STATS of the host's full
# tensors (no drift at a relative p99_abs shift of 0), in a debug buffer
# of 128 bytes per tensor, and the host's own stats run gives the same bytes
run(0 ${ETKIT} run ${D}/model.pte --target mps2-an386
    --firmware ${FIRMWARE}/mps2-an386.elf --iterations 2
    --etdump ${DIR}/board_stats.etdp --debug-level stats
    --debug-buffer ${DIR}/board_stats.bin)
run(0 ${ETKIT} numerics ${DIR}/host.etdp --debug_buffer_path ${DIR}/host.bin
    --against ${DIR}/board_stats.etdp
    --against-debug-buffer ${DIR}/board_stats.bin --max-p99-shift 0
    --format csv)
expect_text("aot_p99_abs,rt_p99_abs")
run(0 ${ETKIT} run ${D}/model.pte --iterations 2
    --etdump ${DIR}/host_stats.etdp --debug-level stats
    --debug-buffer ${DIR}/host_stats.bin)
same(${DIR}/board_stats.bin ${DIR}/host_stats.bin)
file(SIZE ${DIR}/board_stats.bin stats_size)
file(SIZE ${DIR}/host.bin full_size)
if(NOT stats_size LESS full_size)
  message(FATAL_ERROR "STATS buffer ${stats_size} B, full ${full_size} B")
endif()

# --transport uart: the same files, framed over the board's UART and
# decoded by the capture library; the kept log decodes the same again
foreach(t uart semihosting)
  run(0 ${ETKIT} run ${D}/model.pte --target mps2-an386 --transport ${t}
      --firmware ${FIRMWARE}/mps2-an386.elf --keep-log ${DIR}/${t}.log
      --etdump ${DIR}/${t}.etdp --debug-level intermediates
      --debug-buffer ${DIR}/${t}.bin --output-dir ${DIR}/${t}_out)
  if(t STREQUAL "uart")
    expect_text("3 files over the UART")
  endif()
endforeach()
same(${DIR}/uart.etdp ${DIR}/semihosting.etdp)
same(${DIR}/uart.bin ${DIR}/semihosting.bin)
same(${DIR}/uart_out/output_0.npy ${DIR}/semihosting_out/output_0.npy)
run(0 ${ETKIT} capture ${DIR}/uart.log --output-dir ${DIR}/captured)
same(${DIR}/captured/etdump.etdp ${DIR}/uart.etdp)
run(2 ${ETKIT} run ${D}/model.pte --target mps2-an386 --transport radio)

# the KWS-shaped int8 program: bit for bit
set(K ${DIR}/kws)
file(MAKE_DIRECTORY ${K})
run(0 ${KWS} ${K})
run(0 ${ETKIT} run ${K}/kws.pte --input ${K}/kws_input.npy
    --output-dir ${K}/host)
foreach(board mps2-an386 mps3-an547)
  run(0 ${ETKIT} run ${K}/kws.pte --target ${board}
      --firmware ${FIRMWARE}/${board}.elf --input ${K}/kws_input.npy
      --output-dir ${K}/${board} --etdump ${K}/${board}.etdp)
  same(${K}/${board}/output_0.npy ${K}/host/output_0.npy)
endforeach()

# upstream's KeywordSpotting program (upstream_kws.cmake) when
# ETKIT_UPSTREAM_EXAMPLES_DIR holds it: the output of M4F and M55 equals
# the host's, bit for bit
include(${CMAKE_CURRENT_LIST_DIR}/upstream_kws.cmake)
if(UPSTREAM_PTE)
  message(STATUS "upstream KeywordSpotting: ${UPSTREAM_PTE}")
  run(0 ${ETKIT} run ${UPSTREAM_PTE} --output-dir ${K}/up_host)
  foreach(board mps2-an386 mps3-an547)
    run(0 ${ETKIT} run ${UPSTREAM_PTE} --target ${board}
        --firmware ${FIRMWARE}/${board}.elf --output-dir ${K}/up_${board})
    same(${K}/up_${board}/output_0.npy ${K}/up_host/output_0.npy)
  endforeach()
endif()

# errors: exit 2, one line, no output left behind
# one_line(): the last run printed exactly one line, on stderr
macro(one_line)
  string(STRIP "${err}" e)
  string(FIND "${e}" "\n" nl)
  if(NOT out STREQUAL "" OR NOT nl EQUAL -1 OR e STREQUAL "")
    message(FATAL_ERROR "one error line expected, got:\n${out}${err}")
  endif()
endmacro()
set(PROBES ${FIRMWARE}/test)
# a firmware that faults (an undefined instruction): the fault named
run(2 ${ETKIT} run ${D}/model.pte --target mps2-an386
    --firmware ${PROBES}/probe-fault-mps2-an386.elf --etdump ${DIR}/f.etdp
    --output-dir ${DIR}/fault)
expect_text("the firmware faulted on mps2-an386: usage fault")
one_line()
absent(${DIR}/f.etdp)
absent(${DIR}/fault/output_0.npy)
# a firmware that never ends: --timeout bounds it
string(TIMESTAMP t0 "%s")
run(2 ${ETKIT} run ${D}/model.pte --target mps2-an386
    --firmware ${PROBES}/probe-hang-mps2-an386.elf --timeout 2
    --etdump ${DIR}/h.etdp --output-dir ${DIR}/hang2)
string(TIMESTAMP t1 "%s")
expect_text("did not finish within 2 s")
one_line()
math(EXPR took "${t1} - ${t0}")
if(took GREATER 20)
  message(FATAL_ERROR "--timeout 2 took ${took} s")
endif()
absent(${DIR}/h.etdp)
# a program whose memory plan (128 MiB) no arena holds: refused before it
# runs, in one line naming the bytes
run(0 ${MAKE_BIG_PLAN} ${DIR}/big.pte)
foreach(board mps2-an386 mps3-an547)
  run(2 ${ETKIT} run ${DIR}/big.pte --target ${board}
      --firmware ${FIRMWARE}/${board}.elf --etdump ${DIR}/bigplan.etdp)
  expect_text("planned memory needs 134218847 bytes")
  expect_text("arena has")
  one_line()
  absent(${DIR}/bigplan.etdp)
endforeach()
# inputs of the wrong dtype or shape: the host run's line, on the host and
# before QEMU starts for a target
execute_process(COMMAND ${PYTHON} -c "
import numpy as np, sys
np.save(sys.argv[1], np.zeros((1, 1, 8, 8), np.float64))
np.save(sys.argv[2], np.zeros((1, 1, 4, 8), np.float32))"
  ${DIR}/f64.npy ${DIR}/short.npy RESULT_VARIABLE perr)
if(perr)
  message(FATAL_ERROR "numpy could not write the inputs")
endif()
foreach(where host target)
  if(where STREQUAL "target")
    set(on --target mps2-an386 --firmware ${FIRMWARE}/mps2-an386.elf)
    set(want 2)
  else()
    set(on)
    set(want 1) # a host run's errors exit 1 (docs/exit-status.md)
  endif()
  run(${want} ${ETKIT} run ${D}/model.pte --input ${DIR}/f64.npy ${on})
  expect_text("input 0 is DOUBLE [1, 1, 8, 8]; the method takes FLOAT [1, 1, 8, 8]")
  one_line()
  run(${want} ${ETKIT} run ${D}/model.pte --input ${DIR}/short.npy ${on})
  expect_text("input 0 is FLOAT [1, 1, 4, 8]; the method takes FLOAT [1, 1, 8, 8]")
  one_line()
endforeach()
run(2 ${ETKIT} run ${D}/model.pte --target nosuchboard)
expect_text("unknown board 'nosuchboard'")
run(0 ${ETKIT} run --target help)
expect_text("mps3-an547")
run(2 ${CMAKE_COMMAND} -E env PATH=/nonexistent ${ETKIT} run ${D}/model.pte
    --target mps2-an386 --firmware ${FIRMWARE}/mps2-an386.elf)
expect_text("qemu-system-arm")
run(2 ${ETKIT} run ${D}/model.pte --target mps2-an385
    --firmware ${FIRMWARE}/mps2-an385.elf --iterations 100000 --timeout 1
    --output-dir ${DIR}/hang)
expect_text("did not finish within 1 s")
absent(${DIR}/hang/output_0.npy)
run(2 ${ETKIT} run ${D}/model.pte --target mps2-an386
    --firmware ${FIRMWARE}/mps2-an386.elf --iterations 20000
    --etdump ${DIR}/big.etdp --debug-level intermediates)
expect_text("arena has")
absent(${DIR}/big.etdp)
# the flight recorder is a host run's: refused with --target, nothing left
run(2 ${ETKIT} run ${D}/model.pte --target mps2-an386
    --firmware ${FIRMWARE}/mps2-an386.elf --trigger "Method::execute>1ms"
    --snapshot-dir ${DIR}/snaps)
expect_text("are for host runs")
absent(${DIR}/snaps)
# the board calibrates by default; --no-calibrate leaves the marker out
run(0 ${ETKIT} run ${D}/model.pte --target mps2-an386
    --firmware ${FIRMWARE}/mps2-an386.elf --etdump ${DIR}/nocal.etdp
    --no-calibrate)
file(READ ${DIR}/nocal.etdp nocal HEX)
file(READ ${DIR}/mps2-an386_1.etdp withcal HEX)
string(HEX "etkit:calibration=" marker)
string(FIND "${nocal}" "${marker}" at_nocal)
string(FIND "${withcal}" "${marker}" at_withcal)
if(NOT at_nocal EQUAL -1 OR at_withcal EQUAL -1)
  message(FATAL_ERROR "the board's calibration marker: ${at_withcal} by "
                      "default, ${at_nocal} with --no-calibrate")
endif()
