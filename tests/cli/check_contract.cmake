# check_contract.cmake: runs every `etkit` subcommand against the CLI
# contract.  -DETKIT=<etkit> -DDIR=<scratch directory>.
include(${CMAKE_CURRENT_LIST_DIR}/demo_fixture.cmake)

set(commands version record-demo graph inspect run bundle demo trace diff
    report memory numerics)
foreach(cmd ${commands})
  run(0 ${cmd} --help)
  if(NOT out MATCHES "^usage: etkit ${cmd}" OR NOT err STREQUAL "")
    message(FATAL_ERROR "etkit ${cmd} --help: no usage on stdout:\n${out}${err}")
  endif()
  foreach(bad --no-such-option --no-such-option=3 -Z)
    run(2 ${cmd} ${bad})
    if(NOT err MATCHES "^etkit ${cmd}: [^\n]*'${bad}'[^\n]*\n$" OR NOT out STREQUAL "")
      message(FATAL_ERROR "etkit ${cmd} ${bad}: not one line naming it:\n${err}")
    endif()
  endforeach()
endforeach()

# Options that need a value, given none; flags given one.
foreach(args "inspect;--etdump_path" "trace;-o" "diff;--format" "report;--title"
        "memory;--top" "numerics;--against" "run;--iterations" "bundle;--input"
        "graph;--method" "demo;--runs" "record-demo;--output")
  run(2 ${args})
  list(GET args 1 opt)
  if(NOT err MATCHES "option ${opt} needs a value")
    message(FATAL_ERROR "etkit ${args}: ${err}")
  endif()
endforeach()
run(2 inspect --etdump_path ${E} --reverse=yes)
if(NOT err MATCHES "option --reverse takes no value")
  message(FATAL_ERROR "a flag accepted a value: ${err}")
endif()

# "--opt value", "--opt=value", dashes or underscores, upstream's names:
# the same output.
run(0 inspect --etdump_path ${E} --format tsv --target_time_scale us)
set(want "${out}")
foreach(args "--etdump_path=${E};--format=tsv;--target_time_scale=us"
        "--etdump-path;${E};--format;tsv;--target-time-scale=us"
        "--etdump;${E};--format=tsv;--target-time-scale;us")
  run(0 inspect ${args})
  if(NOT out STREQUAL want)
    message(FATAL_ERROR "etkit inspect ${args} differs from the spaced form")
  endif()
endforeach()
run(0 inspect --etdump_path ${E} --etrecord_path ${R} --debug_buffer_path ${B}
    --tsv_path ${DIR}/t.tsv --source_time_scale ns --target_time_scale ms
    --compare_results)
if(NOT EXISTS ${DIR}/t.tsv OR NOT out MATCHES "snr")
  message(FATAL_ERROR "upstream inspector_cli options: ${out}${err}")
endif()
run(0 diff ${E} ${E} --format=json --output=${DIR}/d1.json)
run(0 diff ${E} ${E} --format json -o ${DIR}/d2.json)
file(READ ${DIR}/d1.json d1)
file(READ ${DIR}/d2.json d2)
if(NOT d1 STREQUAL d2)
  message(FATAL_ERROR "diff --output=F and -o F differ")
endif()

# An unwritable output is named before any work: the input does not exist,
# yet the error is about the output, and nothing is left behind.
set(NO ${DIR}/no/such/dir/out)
set(absent ${DIR}/absent.etdp)
foreach(args "inspect;--etdump_path;${absent};-o;${NO}"
        "inspect;--etdump_path;${absent};--tsv_path;${NO}"
        "trace;${absent};-o;${NO}" "2;diff;${absent};${absent};-o;${NO}"
        "report;--etdump_path;${absent};-o;${NO}"
        "memory;--etdump_path;${absent};-o;${NO}"
        "2;numerics;--etdump_path;${absent};--debug_buffer_path;${absent};--against;${absent};--against-debug-buffer;${absent};-o;${NO}"
        "run;${absent};--etdump;${NO}" "bundle;${absent};-o;${NO}"
        "record-demo;--output;${NO}")
  # gates (diff, numerics) report trouble as 2 (docs/exit-status.md)
  set(want 1)
  if(args MATCHES "^2;")
    set(want 2)
    string(SUBSTRING "${args}" 2 -1 args)
  endif()
  run(${want} ${args})
  string(FIND "${err}" "${NO}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "etkit ${args}: the error does not name the output:\n${err}")
  endif()
endforeach()
if(EXISTS ${DIR}/no)
  message(FATAL_ERROR "a failed command created ${DIR}/no")
endif()

# A failing command leaves no partial output file.
file(WRITE ${DIR}/broken.etdp "not an ETDump")
foreach(args "trace;--etdump_path;${DIR}/broken.etdp;-o;${DIR}/p.json"
        "report;--etdump_path;${DIR}/broken.etdp;-o;${DIR}/p.html"
        "inspect;--etdump_path;${DIR}/broken.etdp;-o;${DIR}/p.txt"
        "memory;--etdump_path;${DIR}/broken.etdp;-o;${DIR}/p.mem")
  run(1 ${args})
endforeach()
file(GLOB left ${DIR}/p.*)
if(left)
  message(FATAL_ERROR "partial outputs left behind: ${left}")
endif()

# Gates that compared nothing are trouble (2), never a pass.
run(0 record-demo --output ${DIR}/rd.etdp --debug-output ${DIR}/rd.bin)
run(0 run ${P} --etdump ${DIR}/none.etdp --debug-buffer ${DIR}/none.bin
    --debug-level none)
run(2 numerics --etdump_path ${DIR}/rd.etdp --debug_buffer_path ${DIR}/rd.bin
    --against ${DIR}/none.etdp --against-debug-buffer ${DIR}/none.bin
    --min-snr 10)
if(NOT err MATCHES "--min-snr compared nothing")
  message(FATAL_ERROR "numerics --min-snr over nothing: ${err}")
endif()
run(1 inspect --etdump_path ${E} --etrecord_path ${R} --module-total nosuchmodule)
if(NOT err MATCHES "--module-total nosuchmodule matched nothing")
  message(FATAL_ERROR "inspect --module-total matching nothing: ${err}")
endif()
run(1 inspect --etdump_path ${E} --block NoSuchBlock)
run(1 trace --etdump_path ${E} --block NoSuchBlock -o ${DIR}/nb.json)
if(EXISTS ${DIR}/nb.json)
  message(FATAL_ERROR "trace left ${DIR}/nb.json behind")
endif()

# No sentinel (2^32 - 1, 2^64 - 1, -1 ids) where an offset or id is absent,
# in any renderer's output.
set(all "")
foreach(fmt table tsv csv json)
  foreach(view "--all-columns" "--summary" "--allocations" "--by-module")
    run(0 inspect --etdump_path ${E} --etrecord_path ${R} --debug_buffer_path ${B}
        --link-columns --all-rows --format ${fmt} ${view})
    string(APPEND all "${out}")
  endforeach()
  run(0 numerics --etdump_path ${E} --debug_buffer_path ${B} --against ${E}
      --against-debug-buffer ${B} --etrecord_path ${R} --format ${fmt})
  string(APPEND all "${out}")
  run(0 memory --etdump_path ${E} --format ${fmt})
  string(APPEND all "${out}")
  run(0 diff ${E} ${DIR}/rd.etdp --format ${fmt})
  string(APPEND all "${out}")
endforeach()
foreach(args "trace;${E};${DIR}/rd.etdp" "report;--etdump_path;${E};--etrecord_path;${R}"
        "graph;${R};--maps" "graph;${R};--args")
  run(0 ${args})
  string(APPEND all "${out}")
endforeach()
if(all MATCHES "4294967295|18446744073709551615|\"(chain_index|instruction|instruction_id|debug_handle)\": *-1")
  message(FATAL_ERROR "a sentinel leaks into the output: ${CMAKE_MATCH_0}")
endif()

# etkit run: statistics over several runs after warm-ups; a debug level
# without --debug-buffer still records the values (a buffer sized for the
# method, next to the ETDump); no allocation events unless asked for.
run(0 run ${P} --iterations 5 --warmup 2 --etdump ${DIR}/r.etdp
    --debug-level intermediates)
if(NOT out MATCHES "5 runs \\(\\+2 warm-up\\): median [0-9.]+ (ns|µs|ms|s), min [^,]+, max [^,]+, stddev ")
  message(FATAL_ERROR "etkit run statistics: ${out}")
endif()
if(NOT EXISTS ${DIR}/r.debug.bin OR NOT err MATCHES "r.debug.bin")
  message(FATAL_ERROR "etkit run --debug-level intermediates: no debug buffer: ${err}")
endif()
run(0 inspect --etdump_path ${DIR}/r.etdp --debug_buffer_path ${DIR}/r.debug.bin
    --format tsv --all-columns)
string(REGEX MATCHALL "tensor\\(" logged "${out}")
list(LENGTH logged nlogged)
if(nlogged LESS 5)
  message(FATAL_ERROR "etkit run --debug-level intermediates logged ${nlogged} values")
endif()
run(0 inspect --etdump_path ${DIR}/r.etdp --allocations --format tsv)
string(REGEX MATCHALL "\n" lines "${out}")
list(LENGTH lines nlines)
if(NOT nlines EQUAL 1)
  message(FATAL_ERROR "etkit run recorded allocation events by default:\n${out}")
endif()
run(0 run ${P} --etdump=${DIR}/a.etdp --allocation-events --no_allocation_events)
run(0 run ${P} --etdump=${DIR}/a.etdp --allocation-events)
run(0 inspect --etdump_path ${DIR}/a.etdp --allocations --format tsv)
if(NOT out MATCHES "method_allocator")
  message(FATAL_ERROR "--allocation-events recorded none:\n${out}")
endif()

# diff compares medians by default, means on request.
run(0 diff ${E} ${DIR}/r.etdp --format json)
if(NOT out MATCHES "\"metric\": \"p50\"")
  message(FATAL_ERROR "diff does not compare medians by default")
endif()
run(0 diff ${E} ${DIR}/r.etdp --format json --metric mean)
if(NOT out MATCHES "\"metric\": \"avg\"")
  message(FATAL_ERROR "diff --metric mean")
endif()

# The HTML report: every run, the module tree, colours with a legend.
run(0 report --etdump_path ${E} --etrecord_path ${R} -o ${DIR}/r.html)
file(READ ${DIR}/r.html page)
string(REGEX MATCHALL "<svg" svgs "${page}")
list(LENGTH svgs nsvg)
# the graph section (docs/graph-view.md) draws the model in its own <svg>
string(REGEX MATCHALL "<svg class=\"gv-svg\"" graph_svgs "${page}")
list(LENGTH graph_svgs ngraph)
math(EXPR nsvg "${nsvg} - ${ngraph}")
if(NOT ngraph EQUAL 1 OR NOT nsvg EQUAL 3 OR NOT page MATCHES "id=\"modules\"" OR
   NOT page MATCHES "<td style=\"padding-left:26px\">conv1</td><td>Conv2d</td>" OR
   NOT page MATCHES "class=\"legend note\"><span style=\"background:#")
  message(FATAL_ERROR "report: ${nsvg} timelines (want 3: 1 load + 2 runs), modules or legend missing")
endif()

# Statistics agree across views: a module's --module-total is its
# --by-module row.
run(0 inspect --etdump_path ${E} --etrecord_path ${R} --by-module --format csv)
string(REGEX MATCH "\n[^\n]*,conv1,[^,]*,[^,]*,([^,]+)," row "${out}")
set(by_module "${CMAKE_MATCH_1}")
run(0 inspect --etdump_path ${E} --etrecord_path ${R} --module-total conv1 --format csv)
string(REGEX MATCH "conv1,[^,]*,[^,]*,([^\n]+)" row "${out}")
if(by_module STREQUAL "" OR NOT CMAKE_MATCH_1 STREQUAL by_module)
  message(FATAL_ERROR "--module-total conv1 (${CMAKE_MATCH_1}) != its --by-module row (${by_module})")
endif()

# trace and diff accept --etrecord: op types, nodes, module, source and
# stack trace in the timeline's args, op types in the diff; an ETRecord
# that matches nothing gets a warning saying why.
run(0 trace --etdump_path ${E} --etrecord ${R})
if(NOT out MATCHES "\"op_types\":\\[\"aten.addmm.default\"\\]" OR
   NOT out MATCHES "\"module\":\"fc\"" OR NOT out MATCHES "\"stack_trace\":")
  message(FATAL_ERROR "trace --etrecord: no linked args")
endif()
run(0 diff ${E} ${DIR}/r.etdp --etrecord ${R} --format tsv)
if(NOT out MATCHES "\taten.addmm.default\t")
  message(FATAL_ERROR "diff --etrecord: no op types\n${out}")
endif()
# ... and so do sets of dumps (A... --vs B...): op types and modules.
run(0 diff ${E} ${DIR}/r.etdp --vs ${DIR}/r.etdp ${E} --etrecord ${R} --format csv)
if(NOT out MATCHES ",op_type,module\n" OR NOT out MATCHES ",aten.addmm.default,fc\n")
  message(FATAL_ERROR "diff A... --vs B... --etrecord: no op types or modules\n${out}")
endif()

# The demo's hints are commands that run as printed (paths with spaces are
# quoted): the "next:" block goes through the shell as it is.
run(0 demo --output-dir "${DIR}/my demo" --runs 2)
string(FIND "${out}" "\nnext:\n" at)
string(SUBSTRING "${out}" ${at} -1 hints)
string(REPLACE "\n  etkit " "\n'${ETKIT}' " hints "${hints}")
string(REPLACE "\nnext:\n" "set -e\n" hints "${hints}")
file(WRITE ${DIR}/hints.sh "${hints}")
execute_process(COMMAND sh ${DIR}/hints.sh RESULT_VARIABLE rc OUTPUT_VARIABLE o
                ERROR_VARIABLE e)
if(NOT rc EQUAL 0 OR NOT EXISTS "${DIR}/my demo/report.html")
  message(FATAL_ERROR "the demo's hints do not run as printed (${rc}):\n${hints}\n${e}")
endif()
run(0 report --etdump_path ${E} --etrecord_path ${R} --debug_buffer_path ${B}
    -o ${DIR}/rn.html)
file(READ ${DIR}/rn.html page)
if(NOT page MATCHES "<section id=\"numerics\">.*<th>snr \\(dB\\)</th>.*<td class=\"n\">1</td><td class=\"n\">0</td><td class=\"n\">inf</td>")
  message(FATAL_ERROR "report --debug_buffer_path: no numerics section")
endif()
