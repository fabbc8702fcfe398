# check_triggers.cmake: `etkit run`'s flight recorder end to end on the
# demo model.  The ring keeps exactly the newest K runs; a trigger that
# every run meets fires within --trigger-limit and --trigger-spacing, each
# snapshot decodes with flatc (upstream's schema) and with `etkit inspect`
# and names its trigger and run; a bundled program whose expected output
# is wrong fires `mismatch` (and the gate exits 1); bad expressions and
# options exit 2 with one line.
include(${CMAKE_CURRENT_LIST_DIR}/demo_fixture.cmake)

function(flatc_json file var)
  execute_process(COMMAND ${FLATC} --json --strict-json --size-prefixed
                    --raw-binary -o ${DIR}/json ${SCHEMA} -- ${file}
                  RESULT_VARIABLE rc ERROR_VARIABLE e)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "flatc cannot decode ${file}: ${e}")
  endif()
  get_filename_component(stem ${file} NAME_WE)
  file(READ ${DIR}/json/${stem}.json j)
  set(${var} "${j}" PARENT_SCOPE)
endfunction()

# the ring: 12 runs, 3 kept
run(0 run ${P} --iterations 12 --profile-mode ring --keep-runs 3
    --etdump ${DIR}/ring.etdp)
run(0 inspect ${DIR}/ring.etdp --format json)
string(REGEX REPLACE "[ \n]" "" flat "${out}")
if(NOT flat MATCHES "\"event_block_name\":\"Execute\",\"bundled_input_index\":-1,\"event_count\":[0-9]+,\"runs\":\\[0,1,2\\]")
  message(FATAL_ERROR "ring --keep-runs 3: not exactly 3 runs of Execute:\n${out}")
endif()
if(FLATC)
  flatc_json(${DIR}/ring.etdp j)
  string(REGEX MATCHALL "\"name\": \"Execute\"" blocks "${j}")
  list(LENGTH blocks n)
  if(NOT n EQUAL 3)
    message(FATAL_ERROR "ring --keep-runs 3: ${n} Execute blocks")
  endif()
endif()

# every run is above 1 ns: 20 runs, spacing 6, limit 3 -> runs 0, 6, 12
run(0 run ${P} --iterations 20 --profile-mode ring --keep-runs 2
    --trigger "Method::execute>1ns" --trigger-limit 3 --trigger-spacing 6
    --keep-after 1 --snapshot-dir ${DIR}/snaps)
file(GLOB snaps ${DIR}/snaps/*.etdp)
list(LENGTH snaps n)
if(NOT n EQUAL 3)
  message(FATAL_ERROR "expected 3 snapshots, got ${n}: ${snaps}")
endif()
set(i 0)
foreach(run_index 0 6 12)
  set(s ${DIR}/snaps/snapshot-00${i}.etdp)
  run(0 inspect ${s})
  if(FLATC)
    flatc_json(${s} j)
    if(NOT j MATCHES "etkit:trigger=run=${run_index},snapshot=${i},after=1,")
      message(FATAL_ERROR "snapshot ${i}: no marker for run ${run_index}:\n${j}")
    endif()
    if(NOT j MATCHES "expr=Method::execute>1ns")
      message(FATAL_ERROR "snapshot ${i}: marker without the expression")
    endif()
  endif()
  math(EXPR i "${i} + 1")
endforeach()

# a bundled program whose expected output is wrong: mismatch fires
execute_process(COMMAND /usr/bin/python3 -c
  "import numpy as np; np.save('${DIR}/wrong.npy', np.full((1, 10), 7, np.float32))"
  RESULT_VARIABLE rc)
if(rc EQUAL 0)
  run(0 bundle ${P} -o ${DIR}/wrong.bpte --expected ${DIR}/wrong.npy)
  run(1 run ${DIR}/wrong.bpte --verify --iterations 3 --trigger mismatch
      --snapshot-dir ${DIR}/mm)
  if(NOT EXISTS ${DIR}/mm/snapshot-000.etdp OR EXISTS ${DIR}/mm/snapshot-001.etdp)
    message(FATAL_ERROR "mismatch: expected exactly one snapshot")
  endif()
  if(FLATC)
    flatc_json(${DIR}/mm/snapshot-000.etdp j)
    if(NOT j MATCHES "etkit:trigger=run=2,snapshot=0,after=0,[^\"]*expr=mismatch")
      message(FATAL_ERROR "mismatch snapshot marker:\n${j}")
    endif()
  endif()
  # the same program with right outputs does not fire
  run(0 bundle ${P} -o ${DIR}/right.bpte)
  run(0 run ${DIR}/right.bpte --verify --trigger mismatch --snapshot-dir ${DIR}/ok)
  if(EXISTS ${DIR}/ok/snapshot-000.etdp)
    message(FATAL_ERROR "mismatch fired on a matching bundled program")
  endif()
endif()

# bad expressions and option combinations: exit 2, one line
foreach(bad "x>2parsecs" "Method::execute>" "nope" ">1ms" "x>0*p99")
  run(2 run ${P} --trigger "${bad}" --snapshot-dir ${DIR}/bad)
  if(NOT err MATCHES "^etkit run: bad --trigger '[^\n]*\n$")
    message(FATAL_ERROR "--trigger '${bad}': not one clear line: ${err}")
  endif()
endforeach()
run(2 run ${P} --trigger "x>1ms")
run(2 run ${P} --keep-runs 3 --etdump ${DIR}/x.etdp)
run(2 run ${P} --profile-mode circle --etdump ${DIR}/x.etdp)
if(EXISTS ${DIR}/bad OR EXISTS ${DIR}/x.etdp)
  message(FATAL_ERROR "a refused command left output behind")
endif()

# --snapshot-dir naming an existing file: refused before the runs, in one
# line naming the path (not an I/O error at the first snapshot)
file(WRITE ${DIR}/afile "")
run(1 run ${P} --iterations 3 --trigger "Method::execute>1ns"
    --snapshot-dir ${DIR}/afile)
if(NOT err MATCHES "^etkit run: [^\n]*afile[^\n]*not a directory\n$")
  message(FATAL_ERROR "--snapshot-dir FILE: not one clear line: ${err}")
endif()
# one run watched, said in the singular
run(0 run ${P} --trigger "Method::execute>1s" --snapshot-dir ${DIR}/one)
if(NOT err MATCHES "\\(1 run watched, 0 triggers not taken")
  message(FATAL_ERROR "summary of one run: ${err}")
endif()
# a duration trigger whose pattern names no recorded event says so (it can
# never fire); one that matches says nothing
run(0 run ${P} --iterations 2 --trigger "aten.convolution*>0.5ms"
    --trigger "native_call_convolution*>1s" --snapshot-dir ${DIR}/nomatch)
if(NOT err MATCHES "warning: --trigger 'aten.convolution\\*>0.5ms' matched no event"
   OR err MATCHES "native_call_convolution\\*>1s' matched")
  message(FATAL_ERROR "unmatched trigger pattern: ${err}")
endif()
# triggers that could never fire in this run are refused in one line,
# before the program runs: nan without a debug level (nothing is logged),
# mismatch without a bundled program, manual (etkit run never calls
# etk_recorder_trigger)
foreach(kind nan mismatch manual)
  run(2 run ${P} --trigger ${kind} --snapshot-dir ${DIR}/never_${kind})
  if(NOT err MATCHES "^etkit run: --trigger ${kind} [^\n]*\n$"
     OR EXISTS ${DIR}/never_${kind})
    message(FATAL_ERROR "--trigger ${kind} that cannot fire: ${err}")
  endif()
endforeach()
# with what it needs, nan is taken (and does not fire on finite values)
run(0 run ${P} --debug-level outputs --etdump ${DIR}/nan.etdp --trigger nan
    --snapshot-dir ${DIR}/nan_ok)
if(NOT err MATCHES "0 snapshots in")
  message(FATAL_ERROR "--trigger nan with a debug level: ${err}")
endif()
# a ring with a debug level reclaims the discarded runs' tensor bytes as it
# does their records: nothing is dropped after K + M + 2 runs, and `nan`
# still sees the late runs' tensors (an input holding a NaN: every run
# fires, spacing 20 takes runs 0, 20 and 40)
execute_process(COMMAND /usr/bin/python3 -c
  "import numpy as np; a = np.ones((1, 1, 8, 8), np.float32); a[0, 0, 0, 0] = np.nan; np.save('${DIR}/nan_in.npy', a)"
  RESULT_VARIABLE rc)
if(rc EQUAL 0)
  run(0 run ${P} --input ${DIR}/nan_in.npy --iterations 50 --profile-mode ring
      --keep-runs 2 --debug-level intermediates --etdump ${DIR}/ringdbg.etdp
      --trigger nan --trigger-spacing 20 --snapshot-dir ${DIR}/ringnan)
  if(err MATCHES "dropped")
    message(FATAL_ERROR "ring with a debug level dropped events: ${err}")
  endif()
  foreach(i 0 1 2)
    math(EXPR r "${i} * 20")
    run(0 info ${DIR}/ringnan/snapshot-00${i}.etdp)
    if(NOT out MATCHES "etkit:trigger=run=${r},")
      message(FATAL_ERROR "ring nan snapshot ${i}: not run ${r}:\n${out}")
    endif()
  endforeach()
  # the kept runs' tensors read back: the program output of the ring's last
  # run equals a one-run trace's
  run(0 run ${P} --iterations 30 --profile-mode ring --keep-runs 2
      --debug-level outputs --etdump ${DIR}/ringout.etdp)
  run(0 run ${P} --debug-level outputs --etdump ${DIR}/one1.etdp)
  run(0 numerics ${DIR}/one1.etdp --debug_buffer_path ${DIR}/one1.debug.bin
      --against ${DIR}/ringout.etdp --against-debug-buffer
      ${DIR}/ringout.debug.bin --min-snr 200)
endif()
