# device_run.cmake - `etkit run --target BOARD` end to end on QEMU.
#   cmake -DETKIT=etkit -DKWS=etkit_kws_model -DFIRMWARE=dir -DDIR=work
#         -DPYTHON=python3 -P device_run.cmake
# - the demo program on every board: two runs give byte-identical ETDumps;
#   outputs and the intermediate values logged (--debug-level
#   intermediates) equal the host run's;
# - the demo's bundled program --verify on every board (exit 0);
# - the KWS-shaped int8 program on M4F and M55: outputs == the host's, bit
#   for bit;
# - errors: an unknown board, no QEMU on PATH, a hang past --timeout, a
#   trace that does not fit the firmware's arena; none leaves an output;
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
  run(0 ${ETKIT} run ${D}/model.bpte --target ${board}
      --firmware ${FIRMWARE}/${board}.elf --verify)
  expect_text("case 0: pass")
endforeach()
# intermediates equal the host's: the same logged bytes where the float
# arithmetic is the same IEEE single precision (M4F, M55 and x86-64 SSE)
same(${DIR}/mps2-an386_1.bin ${DIR}/host.bin)
same(${DIR}/mps3-an547_1.bin ${DIR}/host.bin)

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

# upstream's KeywordSpotting program, when its folder is given
if(UPSTREAM AND EXISTS ${UPSTREAM}/kws.pte)
  run(0 ${ETKIT} run ${UPSTREAM}/kws.pte --output-dir ${K}/up_host)
  run(0 ${ETKIT} run ${UPSTREAM}/kws.pte --target mps2-an386
      --firmware ${FIRMWARE}/mps2-an386.elf --output-dir ${K}/up_dev)
  same(${K}/up_dev/output_0.npy ${K}/up_host/output_0.npy)
endif()

# errors: exit 2, one line, no output left behind
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
