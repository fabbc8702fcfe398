# check_stats.cmake: `etkit run --profile-mode stats` end to end on the demo
# model.  The dump of 10000 runs stays within 3x one of 10 (only the
# sketches widen) and under 2% of a full dump of 1000 runs; flatc decodes
# it with the ETDump
# schema (the sketches RunData has no events, its allocators are the
# sketches); `etkit inspect` shows count, quantiles and the error bound
# (table and JSON); bad option combinations exit 2 with one line.
include(${CMAKE_CURRENT_LIST_DIR}/demo_fixture.cmake)

foreach(n 10 10000)
  run(0 run ${P} --iterations ${n} --profile-mode stats --etdump ${DIR}/s${n}.etdp)
  file(SIZE ${DIR}/s${n}.etdp size_${n})
endforeach()
run(0 run ${P} --iterations 1000 --etdump ${DIR}/full1000.etdp)
file(SIZE ${DIR}/full1000.etdp size_full)
math(EXPR limit "3 * ${size_10}")
math(EXPR full_limit "${size_full} / 50")
message(STATUS "stats: 10 runs ${size_10} B, 10000 runs ${size_10000} B; full 1000 runs ${size_full} B")
if(size_10000 GREATER limit OR size_10000 GREATER full_limit)
  message(FATAL_ERROR "stats dump grows with the runs: 10 runs ${size_10} B, "
    "10000 runs ${size_10000} B (full, 1000 runs: ${size_full} B)")
endif()

run(0 inspect ${DIR}/s10000.etdp)
foreach(col "count" "p99.9 \\(ms\\)" "p99 \\(ms\\)" "error_bound" "native_call_relu.out")
  if(NOT out MATCHES "${col}")
    message(FATAL_ERROR "inspect of a stats dump: no ${col}:\n${out}")
  endif()
endforeach()
if(NOT out MATCHES "│ +10000 │")
  message(FATAL_ERROR "inspect of a stats dump: no count of 10000:\n${out}")
endif()
# etkit info says it is a stats dump and how many executions it holds
# (its events are one median each), and names the calibration.
run(0 info ${DIR}/s10000.etdp)
if(NOT out MATCHES "profile mode: stats: [0-9]+ latency sketches [(]run [0-9]+[)], 10000 executions of Method::execute, quantiles within [0-9.]+%, 0 duration[(]s[)] refused"
   OR NOT out MATCHES "\ncalibration: begin[+]end pair [0-9.]+ ticks")
  message(FATAL_ERROR "etkit info of a stats dump:\n${out}")
endif()
# A full trace of etkit's executor: each of its 1000 Execute runs measured
# its own pair (docs/inspector.md); the Program load run has no kernel call.
run(0 info ${DIR}/full1000.etdp)
if(NOT out MATCHES "adjacent=1"
   OR NOT out MATCHES "\nruns' own pairs: 1000 of 1001 runs, median [0-9.]+ ticks [(][0-9.]+ [.][.] [0-9.]+[)]\n")
  message(FATAL_ERROR "etkit info of a full trace:\n${out}")
endif()
# Views that need a duration per run or a timeline refuse a stats dump in
# one line (its events are medians at time 0), writing nothing.
run(1 inspect ${DIR}/s10.etdp --runs)
if(NOT err MATCHES "stats-mode dump.*no duration per run")
  message(FATAL_ERROR "inspect --runs of a stats dump:\n${err}")
endif()
run(1 trace ${DIR}/s10.etdp -o ${DIR}/s10.trace.json)
if(NOT err MATCHES "stats-mode dump.*not a timeline" OR EXISTS ${DIR}/s10.trace.json)
  message(FATAL_ERROR "trace of a stats dump:\n${err}")
endif()
# Compensation needs events nested in time; a stats dump's are medians at
# time 0: --compensate refuses it, the summary shows no compensated column.
run(1 inspect ${DIR}/s10.etdp --compensate)
if(NOT err MATCHES "stats-mode dump.*cannot be compensated")
  message(FATAL_ERROR "inspect --compensate of a stats dump:\n${err}")
endif()
run(0 inspect ${DIR}/s10.etdp --summary)
if(out MATCHES "compensated")
  message(FATAL_ERROR "summary of a stats dump compensates medians:\n${out}")
endif()
run(0 inspect ${DIR}/full1000.etdp --summary)
if(NOT out MATCHES "compensated")
  message(FATAL_ERROR "summary of a calibrated full dump: no compensated column:\n${out}")
endif()
run(0 info ${DIR}/full1000.etdp)
if(NOT out MATCHES "\nprofile mode: events\n")
  message(FATAL_ERROR "etkit info of a full dump:\n${out}")
endif()
run(0 inspect ${DIR}/s10000.etdp --format json)
string(REGEX REPLACE "[ \n]" "" flat "${out}")
if(NOT flat MATCHES "\"event_name\":\"native_call_relu.out\",\"instruction_id\":1,\"delegate_debug_identifier\":null,\"count\":10000,")
  message(FATAL_ERROR "inspect --format json: no count per event:\n${out}")
endif()
# a delegate's event is named by its debug identifier, as in a full dump
if(NOT flat MATCHES "\"event_name\":\"convolution#0\",\"instruction_id\":3,\"delegate_debug_identifier\":\"convolution#0\",\"count\":10000,")
  message(FATAL_ERROR "inspect --format json: a delegate event's name:\n${out}")
endif()
run(0 inspect ${DIR}/s10.etdp --format csv)
if(NOT out MATCHES ",count,min \\(ms\\),p10 \\(ms\\),p50 \\(ms\\),p90 \\(ms\\),p99 \\(ms\\),p99.9 \\(ms\\),avg \\(ms\\),max \\(ms\\),error_bound")
  message(FATAL_ERROR "inspect --format csv: header:\n${out}")
endif()

if(FLATC)
  execute_process(COMMAND ${FLATC} --json --strict-json --size-prefixed
                    --raw-binary -o ${DIR}/json ${SCHEMA} -- ${DIR}/s10000.etdp
                  RESULT_VARIABLE rc ERROR_VARIABLE e)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "flatc cannot decode the stats dump: ${e}")
  endif()
  file(READ ${DIR}/json/s10000.json j)
  string(REGEX REPLACE "[ \n]" "" flat "${j}")
  if(NOT flat MATCHES "{\"name\":\"etkit:latency_sketches=version=1,keys=[0-9]+,refused=0\",\"allocators\":\\[{\"name\":\"r=0,e=0,s=RVRLU")
    message(FATAL_ERROR "flatc: no sketches RunData without events:\n${j}")
  endif()
  string(REGEX MATCHALL "\"name\":\"Execute\"" blocks "${flat}")
  list(LENGTH blocks n)
  if(NOT n EQUAL 1)
    message(FATAL_ERROR "stats dump: ${n} Execute blocks, expected 1")
  endif()
endif()

run(2 run ${P} --stats-error 0.02 --etdump ${DIR}/x.etdp)
run(2 run ${P} --profile-mode stats --stats-error 0.5 --etdump ${DIR}/x.etdp)
run(2 run ${P} --profile-mode stats)
run(2 run ${P} --profile-mode stats --etdump ${DIR}/x.etdp
    --trigger "Method::execute>1ns" --snapshot-dir ${DIR}/snaps)
run(2 run ${P} --profile-mode sketch --etdump ${DIR}/x.etdp)
string(REGEX MATCHALL "\n" lines "${err}")
list(LENGTH lines nl)
if(NOT nl EQUAL 1)
  message(FATAL_ERROR "a bad mode: not one line:\n${err}")
endif()

# the numerics usage lines name the stats gap (--gap stats works)
run(0 numerics --help)
if(NOT out MATCHES "With --gap mse\\|l1\\|snr\\|stats and")
  message(FATAL_ERROR "numerics --help does not name --gap stats:\n${out}")
endif()
run(0 numerics --gap stats --help)
if(NOT out MATCHES "usage: [^\n]*\n[^\n]*--gap mse\\|l1\\|snr\\|stats \\[options\\]")
  message(FATAL_ERROR "numerics --gap --help usage omits stats:\n${out}")
endif()

# options the latency table does not apply are refused in one line (exit
# 1, nothing on stdout) instead of being ignored: a --block that names no
# block, a --sort/--top that would not sort or cut
foreach(opt "--block;7" "--block;Execute" "--sort;p50" "--top;2" "--reverse"
            "--all-columns" "--etrecord_path;${R}")
  run(1 inspect ${DIR}/s10.etdp ${opt})
  list(GET opt 0 name)
  if(NOT err MATCHES "^etkit inspect: [^\n]*does not take ${name} [^\n]*\n$"
     OR NOT out STREQUAL "")
    message(FATAL_ERROR "inspect of a stats dump with ${opt}: ${out}${err}")
  endif()
endforeach()

# --profile-level method cannot hold in stats mode (every event gets a
# sketch): refused in one line, not silently widened to every operator
run(2 run ${P} --iterations 3 --profile-mode stats --profile-level method
    --etdump ${DIR}/pm.etdp)
if(NOT err MATCHES "^etkit run: [^\n]*--profile-level method[^\n]*\n$"
   OR EXISTS ${DIR}/pm.etdp)
  message(FATAL_ERROR "stats with --profile-level method: ${err}")
endif()

# --stats-error's range: the help names the one the parser enforces
run(0 run --help)
if(NOT out MATCHES "--stats-error E +stats mode's relative error, 0.0001 to 0.2")
  message(FATAL_ERROR "run --help: no --stats-error range:\n${out}")
endif()
foreach(e 0.0001 0.2)
  run(0 run ${P} --profile-mode stats --stats-error ${e} --etdump ${DIR}/e.etdp)
endforeach()
foreach(e 0.00009 0.21)
  run(2 run ${P} --profile-mode stats --stats-error ${e} --etdump ${DIR}/e.etdp)
  if(NOT err MATCHES "from 0.0001 to 0.2, not")
    message(FATAL_ERROR "--stats-error ${e}: ${err}")
  endif()
endforeach()

# --event-cost alone compensates (docs/inspector.md: it implies
# --compensate), as the help says
run(0 run ${P} --iterations 3 --no-calibrate --etdump ${DIR}/nc.etdp)
run(0 inspect ${DIR}/nc.etdp --format csv)
set(raw "${out}")
run(0 inspect ${DIR}/nc.etdp --format csv --event-cost 50)
if(out STREQUAL raw)
  message(FATAL_ERROR "--event-cost without --compensate changed nothing")
endif()
run(0 inspect --help)
if(NOT out MATCHES "--event-cost NS[^\n]*\n[^\n]*implies --compensate")
  message(FATAL_ERROR "inspect --help: --event-cost does not say it implies --compensate:\n${out}")
endif()
