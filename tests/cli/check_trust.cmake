# check_trust.cmake: what a new user trips over (issue 24, section 7):
# an output that is an input is refused in every command, also through
# hard and symbolic links, with one line and exit status 2, the input
# untouched and nothing left behind.
# -DETKIT=<etkit> -DDIR=<scratch directory>.
include(${CMAKE_CURRENT_LIST_DIR}/demo_fixture.cmake)
file(COPY_FILE ${E} ${DIR}/e2.etdp)
set(E2 ${DIR}/e2.etdp)
file(CREATE_LINK ${E} ${DIR}/hard.etdp)
file(CREATE_LINK ${R} ${DIR}/soft.etrecord SYMBOLIC)
file(CREATE_LINK ${P} ${DIR}/hard.pte)
file(WRITE ${DIR}/rd.etdp "an existing file")

# refused(<what it overwrites> <args...>): exit 2, one line saying so, the
# file unchanged, no temporary file beside it.
macro(refused victim)
  file(SHA256 ${victim} before)
  run(2 ${ARGN})
  file(SHA256 ${victim} after)
  if(NOT before STREQUAL after)
    message(FATAL_ERROR "etkit ${ARGN} changed ${victim}")
  endif()
  if(NOT err MATCHES "^etkit [a-z-]+: [^\n]*the output is the same file as the input [^\n]*refusing to overwrite it[^\n]*\n$"
     OR NOT out STREQUAL "")
    message(FATAL_ERROR "etkit ${ARGN}: not one line refusing it:\n${out}${err}")
  endif()
  file(GLOB_RECURSE left ${DIR}/*.tmp.*)
  if(left)
    message(FATAL_ERROR "etkit ${ARGN} left ${left}")
  endif()
endmacro()

refused(${E} trace ${E} -o ${E})
refused(${E} trace --etdump_path ${E} --output=${E})
refused(${E} trace --etdump_path=${E} -o ${DIR}/hard.etdp)
if(NOT err MATCHES "--etdump_path=")
  message(FATAL_ERROR "the refusal does not name the input option: ${err}")
endif()
refused(${R} trace ${E} --etrecord ${R} -o ${DIR}/soft.etrecord)
refused(${E} inspect --etdump_path ${E} -o ${E})
refused(${E} inspect --etdump_path ${E} --output ${DIR}/hard.etdp)
if(NOT err MATCHES "the input --etdump_path ")
  message(FATAL_ERROR "the refusal does not name the input option: ${err}")
endif()
refused(${B} inspect --etdump_path ${E} --debug_buffer_path ${B} --tsv_path ${B})
refused(${R} inspect --etdump_path ${E} --etrecord_path ${R} -o ${DIR}/soft.etrecord)
refused(${E} report --etdump_path ${E} -o ${E})
refused(${P} report --etdump_path ${E} --program ${P} -o ${DIR}/hard.pte)
refused(${E} memory --etdump_path ${E} -o ${E})
refused(${P} memory ${P} --html ${P})
refused(${P} memory ${P} --trace ${DIR}/hard.pte)
refused(${E2} diff ${E} ${E2} -o ${E2})
refused(${B} numerics --etdump_path ${E} --debug_buffer_path ${B} --against ${E}
        --against-debug-buffer ${B} -o ${B})
refused(${P} bundle ${P} -o ${P})
refused(${P} bundle ${P} -o ${DIR}/hard.pte)
refused(${P} run ${P} --etdump ${P})
refused(${P} run ${P} --etdump ${DIR}/r.etdp --debug-buffer ${DIR}/hard.pte)
# two outputs into one existing file: the second would destroy the first
refused(${DIR}/rd.etdp record-demo --output ${DIR}/rd.etdp --debug-output ${DIR}/rd.etdp)

# A different file of the same name elsewhere, or a new file, is fine.
run(0 trace ${E} -o ${DIR}/t.json)
run(0 trace ${E} -o ${DIR}/t.json)
run(0 bundle ${P} -o ${DIR}/m.bpte)

# bundle --no-expected writes the bundle without running the program: a
# program with a delegate the reference runtime cannot run is bundled,
# and its .pte comes back out unchanged.
set(NR ${PLANS}/multi_mem_delegate.pte)
if(NOT EXISTS ${NR})
  message(FATAL_ERROR "${NR} is missing (the memory_plans fixture)")
endif()
run(1 bundle ${NR} -o ${DIR}/nr.bpte)
run(0 bundle ${NR} -o ${DIR}/nr.bpte --no-expected)
run(0 bundle --extract ${DIR}/nr.bpte -o ${DIR}/nr.pte)
file(SHA256 ${NR} h1)
file(SHA256 ${DIR}/nr.pte h2)
if(NOT h1 STREQUAL h2)
  message(FATAL_ERROR "bundle --no-expected: the program inside differs")
endif()

# The report's nav bar links exactly the sections the page has, in the
# page's order (no #numerics without a debug buffer).
foreach(args "--etdump_path;${E}" "--etdump_path;${E};--debug_buffer_path;${B}"
        "--etdump_path;${E};--program;${P}")
  run(0 report ${args} -o ${DIR}/nav.html)
  file(READ ${DIR}/nav.html page)
  string(REGEX MATCH "<nav>.*</nav>" nav "${page}")
  string(REGEX MATCHALL "href=\"#[a-z-]+\"" links "${nav}")
  string(REGEX REPLACE "href=\"#([a-z-]+)\"" "\\1" links "${links}")
  string(REGEX MATCHALL "<section id=\"[a-z-]+\"" ids "${page}")
  string(REGEX REPLACE "<section id=\"([a-z-]+)\"" "\\1" ids "${ids}")
  if(NOT links STREQUAL ids)
    message(FATAL_ERROR "report ${args}: nav [${links}] but sections [${ids}]")
  endif()
endforeach()

# A wrong kind of file: one line saying what it is and which option takes
# it, in every command.
run(0 bundle ${P} -o ${DIR}/m.bpte)
set(BP ${DIR}/m.bpte)
# kind(<text the error must hold> <args...>)
macro(kind want)
  run(1 ${ARGN})
  if(NOT err MATCHES "^etkit [a-z]+: [^\n]*${want}[^\n]*\n$")
    message(FATAL_ERROR "etkit ${ARGN}: not one line saying '${want}':\n${err}")
  endif()
endmacro()
kind("this is an ExecuTorch program [(].pte[)], not an ETDump: a program goes to .*--program"
     inspect --etdump_path ${P})
kind("this is an ExecuTorch program [(].pte[)], not an ETDump" trace ${P})
kind("this is a bundled program [(].bpte[)], not an ETDump" memory --etdump_path ${BP})
kind("this is a bundled program [(].bpte[)], not an ETDump" memory ${BP})
kind("this is a bundled program [(].bpte[)], not an ExecuTorch program"
     report --etdump_path ${E} --program ${BP})
kind("this is an ExecuTorch program [(].pte[)], not an ETRecord"
     inspect --etdump_path ${E} --etrecord_path ${P})
kind("this is a ZIP archive [(]an ETRecord[)], not an ETDump: an ETRecord goes to --etrecord_path"
     report --etdump_path ${R})
kind("this is an ETDump, not a debug buffer: an ETDump goes to --etdump_path"
     inspect --etdump_path ${E} --debug_buffer_path ${E})
kind("this is an ETDump, not a debug buffer" report --etdump_path ${E} --debug_buffer_path ${E})
kind("this is an ETDump, not an ExecuTorch program" run ${E})
kind("this is an ETDump, not an ExecuTorch program" bundle ${E} -o ${DIR}/x.bpte)
kind("this is an ETDump, not an ETRecord" graph ${E})
kind("directory" inspect --etdump_path ${DIR})
kind("directory" trace ${DIR})
kind("directory" run ${DIR})

# A huge --top means "all", never "out of memory".
run(0 memory ${P} --top 18446744073709551615)
run(0 memory --etdump_path ${E} --top 18446744073709551615)
run(0 report --etdump_path ${E} --program ${P} --top 18446744073709551615
    -o ${DIR}/top.html)

# etkit info: a program's methods with the dtype and shape of each input
# and output; an ETDump's summary (runs, blocks, events per kind, drops).
run(0 info ${P})
if(NOT out MATCHES "model.pte: an ExecuTorch program [(].pte[)], 1 method\nmethod forward: 1 input, 1 output\n  input 0   FLOAT \\[1, [0-9]+, [0-9]+, [0-9]+\\]\n  output 0  FLOAT \\[1, [0-9]+\\]\n")
  message(FATAL_ERROR "etkit info ${P}:\n${out}")
endif()
run(0 info ${BP})
if(NOT out MATCHES "a bundled program [(].bpte[)], 1 method, 1 test case\nmethod forward")
  message(FATAL_ERROR "etkit info ${BP}:\n${out}")
endif()
run(0 info ${E})
if(NOT out MATCHES "etdump.etdp: an ETDump, schema version [0-9]+\nruns: [0-9]+ in [0-9]+ event blocks?\n.*events: [0-9]+ [(][0-9]+ profile, [0-9]+ debug, [0-9]+ allocation[)]\n.*dropped: none\n")
  message(FATAL_ERROR "etkit info ${E}:\n${out}")
endif()

# Consistency: the ETDump as a plain argument, `etkit help CMD`, the
# top-level help on memory, usage mistakes exit 2.
run(0 inspect --etdump_path ${E} --format tsv)
set(want "${out}")
run(0 inspect ${E} --format tsv)
if(NOT out STREQUAL want)
  message(FATAL_ERROR "inspect FILE differs from inspect --etdump_path FILE")
endif()
run(0 report ${E} -o ${DIR}/pos.html)
run(0 numerics ${E} ${E} --debug_buffer_path ${B} --against-debug-buffer ${B})
run(2 inspect ${E} ${E})
run(0 help inspect)
if(NOT out MATCHES "^usage: etkit inspect")
  message(FATAL_ERROR "etkit help inspect:\n${out}")
endif()
run(2 help nosuchcommand)
run(0 --help)
if(NOT out MATCHES "memory +a program's memory plan")
  message(FATAL_ERROR "etkit --help does not describe memory:\n${out}")
endif()
run(2 inspect ${E} --compare_results)
run(2 inspect ${E} --source_time_scale cycles --target_time_scale ms)

# --method nope lists the methods (never a message cut mid-word).
run(1 memory ${P} --method nope)
if(NOT err MATCHES "no method named 'nope' in the program [(]methods: forward[)]\n$")
  message(FATAL_ERROR "memory --method nope: ${err}")
endif()
run(1 run ${P} --method nope)
if(NOT err MATCHES "no method named 'nope' [(]methods: forward[)]\n$")
  message(FATAL_ERROR "run --method nope: ${err}")
endif()
run(1 graph ${R} --method nope)
if(NOT err MATCHES "[(]methods: forward[)]\n$")
  message(FATAL_ERROR "graph --method nope: ${err}")
endif()

# An ETRecord of another program links nothing: every command says so.
set(FOREIGN ${CONFORMANCE}/etrecord_toy_mul.bin)
set(TUT ${CONFORMANCE}/etdump_tutorial.etdp)
run(0 record-demo --output ${DIR}/rd2.etdp --debug-output ${DIR}/rd2.bin)
if(EXISTS ${FOREIGN})
  foreach(args "inspect;--etdump_path;${TUT};--etrecord_path;${FOREIGN}"
          "report;--etdump_path;${TUT};--etrecord_path;${FOREIGN};-o;${DIR}/f.html"
          "trace;${TUT};--etrecord;${FOREIGN};-o;${DIR}/f.json"
          "numerics;${DIR}/rd2.etdp;${DIR}/rd2.etdp;--debug_buffer_path;${DIR}/rd2.bin;--against-debug-buffer;${DIR}/rd2.bin;--etrecord_path;${FOREIGN}")
    run(0 ${args})
    if(NOT err MATCHES "warning: [^\n]*etrecord_toy_mul.bin matches nothing in the ETDump")
      message(FATAL_ERROR "etkit ${args}: no warning about the foreign ETRecord:\n${err}")
    endif()
  endforeach()
elseif("$ENV{CI}" STREQUAL "true")
  message(FATAL_ERROR "${FOREIGN} is missing (conformance files)")
endif()

# The memory map: the report names planned tensors from the ETRecord as
# `etkit memory --etrecord` does; no "-1" where JSON says null; every
# tensor at least 2 px high and wide, however small.
run(0 report --etdump_path ${E} --etrecord_path ${R} --program ${P} -o ${DIR}/plan.html)
file(READ ${DIR}/plan.html page)
run(0 memory ${P} --etrecord ${R})
string(REGEX MATCH "\n +17 +[0-9]+ +[0-9]+ +[0-9.]+ +[^ ]+ +([a-z_]+)" row "${out}")
if(CMAKE_MATCH_1 STREQUAL "" OR NOT page MATCHES "<title>${CMAKE_MATCH_1} \\(value 17\\)")
  message(FATAL_ERROR "report --etrecord_path --program: value 17 is not named '${CMAKE_MATCH_1}' as memory --etrecord names it")
endif()
file(GLOB plans ${PLANS}/*.pte)
foreach(plan ${plans} ${P})
  execute_process(COMMAND ${ETKIT} memory ${plan} --html ${DIR}/map.html
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(NOT EXISTS ${DIR}/map.html)
    continue() # a plan memory refuses (checked by its own tests)
  endif()
  file(READ ${DIR}/map.html map)
  file(REMOVE ${DIR}/map.html)
  if(map MATCHES "<td>-1</td>")
    message(FATAL_ERROR "${plan}: the map says -1 where JSON says null")
  endif()
  if(map MATCHES "<rect x=\"[0-9.]+\" y=\"[0-9.]+\" width=\"[0-9.]+\" height=\"[01]\\.[0-9]+\" fill=")
    message(FATAL_ERROR "${plan}: a tensor under 2 px high: ${CMAKE_MATCH_0}")
  endif()
  if(map MATCHES "<rect x=\"[0-9.]+\" y=\"[0-9.]+\" width=\"[01]\\.[0-9]+\" height=\"[0-9.]+\" fill=")
    message(FATAL_ERROR "${plan}: a tensor under 2 px wide: ${CMAKE_MATCH_0}")
  endif()
endforeach()

# A --program that is not the dump's: warned.
if(EXISTS ${TUT})
  run(0 report ${TUT} --program ${P} -o ${DIR}/wrong.html)
  if(NOT err MATCHES "warning: [^\n]*model.pte is not the ETDump's program\\? [0-9]+ operator event")
    message(FATAL_ERROR "report --program of another model: no warning\n${err}")
  endif()
endif()
run(0 report ${E} --program ${P} -o ${DIR}/right.html)
if(err MATCHES "not the ETDump's program")
  message(FATAL_ERROR "report --program of its own model warns:\n${err}")
endif()

# A dump without event blocks: trace fails as inspect does (upstream's
# Inspector cannot tabulate it), never an empty timeline with exit 0.
set(EMPTY ${CONFORMANCE}/golden_empty_block.etdp)
if(EXISTS ${EMPTY})
  run(1 inspect ${EMPTY})
  run(1 trace ${EMPTY} -o ${DIR}/empty.json)
  if(NOT err MATCHES "has no event blocks" OR EXISTS ${DIR}/empty.json)
    message(FATAL_ERROR "trace of a dump without event blocks:\n${err}")
  endif()
endif()

# A debug buffer given with an ETDump that logs no values (another run's):
# warned, in inspect, report and numerics; the right pair is not.
run(0 run ${P} --etdump ${DIR}/plain.etdp)
foreach(args "inspect;${DIR}/plain.etdp;--debug_buffer_path;${B}"
        "report;${DIR}/plain.etdp;--debug_buffer_path;${B};-o;${DIR}/u.html"
        "numerics;${DIR}/plain.etdp;${E};--debug_buffer_path;${B};--against-debug-buffer;${B}")
  run(0 ${args})
  if(NOT err MATCHES "warning: [^\n]*debug_buffer.bin is not used: the ETDump logs no tensor values")
    message(FATAL_ERROR "etkit ${args}: no warning about the unused debug buffer:\n${err}")
  endif()
endforeach()
run(0 inspect ${E} --debug_buffer_path ${B})
if(err MATCHES "is not used")
  message(FATAL_ERROR "the demo's own debug buffer is called unused:\n${err}")
endif()

# Readable units: one unit per diff table (A, B and delta compared in the
# same unit), 3 significant digits, never a bare 0 for a non-zero value.
run(0 diff ${E} ${DIR}/rd2.etdp)
string(REGEX MATCHALL "\n│ block[^\n]*" heads "${out}")
foreach(h ${heads})
  string(REGEX MATCHALL "\\((ns|µs|ms|s)\\)" units "${h}")
  list(REMOVE_DUPLICATES units)
  list(LENGTH units n)
  if(NOT n EQUAL 1)
    message(FATAL_ERROR "diff mixes units in one table: ${h}")
  endif()
endforeach()
if(EXISTS ${TUT})
  run(0 inspect ${TUT} --summary)
  if(NOT out MATCHES "relu.out +│ +4 │ +0.00962 │ +0.0024 │")
    message(FATAL_ERROR "inspect --summary: relu's total and avg lose digits:\n${out}")
  endif()
  run(0 report ${TUT} -o ${DIR}/units.html)
  file(READ ${DIR}/units.html page)
  string(REGEX MATCH "<th>avg \\(([^)]+)\\)</th><th>p50 \\(([^)]+)\\)</th><th>min \\(([^)]+)\\)</th><th>max \\(([^)]+)\\)</th>" cols "${page}")
  if(cols STREQUAL "" OR NOT CMAKE_MATCH_1 STREQUAL CMAKE_MATCH_4 OR
     NOT CMAKE_MATCH_2 STREQUAL CMAKE_MATCH_3 OR NOT CMAKE_MATCH_1 STREQUAL CMAKE_MATCH_2)
    message(FATAL_ERROR "report events table mixes units: ${cols}")
  endif()
endif()
