# device_stats.cmake - `etkit run --target BOARD --profile-mode stats` on
# QEMU (the recorder's stats mode in the firmware, docs/long-runs.md):
#   cmake -DETKIT=etkit -DFIRMWARE=dir -DDIR=work -DPYTHON=python3
#         -DCHECK=stats_dump_check.py [-DPROGRAM=upstream -DUPSTREAM=dir]
#         -P device_stats.cmake
# The demo program (PROGRAM unset), or upstream's KeywordSpotting program
# (PROGRAM=upstream: upstream_kws.cmake; SKIPPED without
# ETKIT_UPSTREAM_EXAMPLES_DIR), on M4F (and the demo on M55):
# - a stats run of N iterations writes a dump `etkit inspect` reads: per key
#   count = N x its calls per run, min <= p10 <= ... <= max, the keys of a
#   full one-run dump and of the host's stats dump (stats_dump_check.py);
# - two runs under -icount give byte-identical dumps;
# - N = 10 and N = 200: the dump grows by at most half (only the sketches'
#   occupied buckets widen), the recorder's arena and the firmware's arena
#   use are the same, nothing is dropped;
# - --stats-error E reaches the board (the dump's bound is E);
# - bad combinations: the host run's one line and exit 2, no file left.
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR})
include(${CMAKE_CURRENT_LIST_DIR}/../cmake/check_macros.cmake)

if(PROGRAM STREQUAL "upstream")
  include(${CMAKE_CURRENT_LIST_DIR}/upstream_kws.cmake)
  if(NOT UPSTREAM_PTE)
    # an optional input, not a dependency: skipped also under CI=true
    message("SKIPPED: upstream's KeywordSpotting program "
            "(ETKIT_UPSTREAM_EXAMPLES_DIR is not set)")
    return()
  endif()
  set(P ${UPSTREAM_PTE})
  set(boards mps2-an386)
  set(N_SMALL 3)
  set(N_BIG 12)
else()
  run(0 ${ETKIT} demo --output-dir ${DIR}/demo)
  set(P ${DIR}/demo/model.pte)
  set(boards mps2-an386 mps3-an547)
  set(N_SMALL 10)
  set(N_BIG 200)
endif()

# no_drops(): the last run's firmware dropped nothing
macro(no_drops)
  string(FIND "${out}${err}" "dropped" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "the recorder dropped events:\n${out}${err}")
  endif()
endmacro()
# firmware_figures(prefix): <prefix>_recorder and <prefix>_arena, the
# recorder's bytes and the firmware's arena use the last run printed
macro(firmware_figures prefix)
  if(NOT "${err}" MATCHES "recorder: ([0-9]+) bytes, stats mode")
    message(FATAL_ERROR "no stats-mode recorder line:\n${err}")
  endif()
  set(${prefix}_recorder ${CMAKE_MATCH_1})
  if(NOT "${err}" MATCHES "arena ([0-9]+) of ([0-9]+) bytes used")
    message(FATAL_ERROR "no arena line:\n${err}")
  endif()
  set(${prefix}_arena ${CMAKE_MATCH_1})
endmacro()
macro(check stats full runs)
  execute_process(COMMAND ${PYTHON} ${CHECK} ${ETKIT} ${stats} ${full} ${runs}
                          ${ARGN}
                  RESULT_VARIABLE bad OUTPUT_VARIABLE cout ERROR_VARIABLE cerr)
  if(bad)
    message(FATAL_ERROR "${stats}: ${cout}${cerr}")
  endif()
  message(STATUS "${cout}")
endmacro()

run(0 ${ETKIT} run ${P} --iterations ${N_SMALL} --profile-mode stats
    --etdump ${DIR}/host.etdp)
foreach(board ${boards})
  set(B ${DIR}/${board})
  set(FW --target ${board} --firmware ${FIRMWARE}/${board}.elf)
  run(0 ${ETKIT} run ${P} ${FW} --etdump ${B}_full1.etdp)
  foreach(k 1 2)
    run(0 ${ETKIT} run ${P} ${FW} --profile-mode stats --iterations ${N_SMALL}
        --etdump ${B}_${N_SMALL}_${k}.etdp)
    no_drops()
  endforeach()
  firmware_figures(small)
  same(${B}_${N_SMALL}_1.etdp ${B}_${N_SMALL}_2.etdp)
  run(0 ${ETKIT} run ${P} ${FW} --profile-mode stats --iterations ${N_BIG}
      --etdump ${B}_${N_BIG}.etdp)
  no_drops()
  firmware_figures(big)
  check(${B}_${N_SMALL}_1.etdp ${B}_full1.etdp ${N_SMALL} ${DIR}/host.etdp)
  check(${B}_${N_BIG}.etdp ${B}_full1.etdp ${N_BIG} ${DIR}/host.etdp)
  # the inspector reads it in the board's unit, with the quantile columns
  run(0 ${ETKIT} inspect ${B}_${N_BIG}.etdp)
  expect_text("p99.9 (cycles)")
  expect_text("error_bound")
  # a fixed size for any number of runs
  file(SIZE ${B}_${N_SMALL}_1.etdp size_small)
  file(SIZE ${B}_${N_BIG}.etdp size_big)
  math(EXPR limit "${size_small} * 3 / 2")
  message(STATUS "${board}: stats dump ${size_small} B after ${N_SMALL} "
    "runs, ${size_big} B after ${N_BIG}; recorder ${small_recorder} B; "
    "arena used ${small_arena} B / ${big_arena} B")
  if(size_big GREATER limit)
    message(FATAL_ERROR "${board}: the stats dump grows with the runs: "
      "${size_small} B after ${N_SMALL}, ${size_big} B after ${N_BIG}")
  endif()
  if(NOT small_recorder EQUAL big_recorder OR NOT small_arena EQUAL big_arena)
    message(FATAL_ERROR "${board}: the firmware's memory grows with the "
      "runs: recorder ${small_recorder} / ${big_recorder} B, arena used "
      "${small_arena} / ${big_arena} B")
  endif()
endforeach()

# --stats-error reaches the board
set(FW --target mps2-an386 --firmware ${FIRMWARE}/mps2-an386.elf)
run(0 ${ETKIT} run ${P} ${FW} --profile-mode stats --stats-error 0.05
    --etdump ${DIR}/e5.etdp)
run(0 ${ETKIT} inspect ${DIR}/e5.etdp --format json)
if(NOT out MATCHES "\"error_bound\": 0.05" OR out MATCHES "\"error_bound\": 0.01")
  message(FATAL_ERROR "--stats-error 0.05 on the board:\n${out}")
endif()
if(PROGRAM STREQUAL "upstream")
  return()
endif()

# bad combinations: the host run's line, exit 2, nothing written
set(bad1 --stats-error 0.02 --etdump ${DIR}/x.etdp)
set(bad2 --profile-mode stats --stats-error 0.5 --etdump ${DIR}/x.etdp)
set(bad3 --profile-mode stats --stats-error nan --etdump ${DIR}/x.etdp)
set(bad4 --profile-mode stats)
set(bad5 --profile-mode stats --keep-runs 4 --etdump ${DIR}/x.etdp)
set(bad6 --profile-mode stats --etdump ${DIR}/x.etdp
    --trigger "Method::execute>1ns" --snapshot-dir ${DIR}/snaps)
set(bad7 --profile-mode sketch --etdump ${DIR}/x.etdp)
foreach(k 1 2 3 4 5 6 7)
  run(2 ${ETKIT} run ${P} ${bad${k}})
  set(host_err "${err}")
  run(2 ${ETKIT} run ${P} ${FW} ${bad${k}})
  string(STRIP "${err}" e)
  string(FIND "${e}" "\n" nl)
  if(NOT out STREQUAL "" OR NOT nl EQUAL -1 OR e STREQUAL "")
    message(FATAL_ERROR "${bad${k}}: one error line expected:\n${out}${err}")
  endif()
  if(NOT err STREQUAL host_err)
    message(FATAL_ERROR "${bad${k}}: the target's line\n${err}differs from "
                        "the host's\n${host_err}")
  endif()
  absent(${DIR}/x.etdp)
  absent(${DIR}/snaps)
endforeach()
