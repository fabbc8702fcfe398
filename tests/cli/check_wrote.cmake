# check_wrote.cmake: every command that writes a file says so in one line
# on stderr, "etkit <command>: wrote <path>[: what it holds]", as `etkit
# trace` does (issue 28, section 6); writing to stdout adds no such line,
# so machine-readable stdout is never mixed with it.
# -DETKIT=<etkit> -DDIR=<scratch directory>.
include(${CMAKE_CURRENT_LIST_DIR}/demo_fixture.cmake)
set(O ${DIR}/o)
file(MAKE_DIRECTORY ${O})
run(0 run ${P} --etdump ${O}/b.etdp --debug-buffer ${O}/b.bin
    --debug-level intermediates --inputs-from ${R})
run(0 store add ${O}/s.db ${E} --tag side=a)
run(0 store add ${O}/s.db ${O}/b.etdp --tag side=b)

# wrote(<command> <path> <args...>): exit 0, the file is there, stderr has
# exactly one line naming it
macro(wrote cmd path)
  file(REMOVE_RECURSE ${path})
  run(0 ${ARGN})
  if(NOT EXISTS ${path})
    message(FATAL_ERROR "etkit ${cmd} ${ARGN}: ${path} not written")
  endif()
  set(line "etkit ${cmd}: wrote ${path}")
  string(FIND "${err}" "${line}" first)
  string(FIND "${err}" "${line}" last REVERSE)
  if(first EQUAL -1 OR NOT first EQUAL last
     OR NOT err MATCHES "(^|\n)etkit ${cmd}: wrote ${path}(: [^\n]+)?\n")
    message(FATAL_ERROR "etkit ${cmd} ${ARGN}: not one line saying it wrote ${path}:\n${err}")
  endif()
endmacro()

wrote(diff ${O}/diff.txt diff ${E} ${O}/b.etdp -o ${O}/diff.txt)
wrote(diff ${O}/sets.csv diff ${E} --vs ${O}/b.etdp --format csv -o ${O}/sets.csv)
wrote(graph ${O}/g.html graph ${R} --html ${O}/g.html)
wrote(graph ${O}/me.json graph ${R} --model-explorer ${O}/me.json)
wrote(graph ${O}/nd.json graph ${R} --model-explorer ${O}/me2.json
      --node-data ${O}/nd.json --etdump_path ${E})
wrote(inspect ${O}/i.txt inspect --etdump_path ${E} -o ${O}/i.txt)
wrote(inspect ${O}/i.tsv inspect --etdump_path ${E} --tsv_path ${O}/i.tsv)
wrote(inspect ${O}/runs.txt inspect --etdump_path ${E} --runs -o ${O}/runs.txt)
wrote(memory ${O}/m.txt memory ${P} -o ${O}/m.txt)
wrote(memory ${O}/m.html memory ${P} --html ${O}/m.html)
wrote(memory ${O}/m.json memory ${P} --trace ${O}/m.json)
wrote(memory ${O}/alloc.txt memory ${E} -o ${O}/alloc.txt)
wrote(numerics ${O}/n.txt numerics --etdump_path ${E} --debug_buffer_path ${B}
      --against ${O}/b.etdp --against_debug_buffer ${O}/b.bin -o ${O}/n.txt)
wrote(numerics ${O}/gap.txt numerics --gap mse --etdump_path ${E}
      --debug_buffer_path ${B} --etrecord_path ${R} -o ${O}/gap.txt)
wrote(report ${O}/r.html report --etdump_path ${E} --etrecord_path ${R} -o ${O}/r.html)
wrote(trace ${O}/t.json trace --etdump_path ${E} -o ${O}/t.json)
wrote(bundle ${O}/x.bpte bundle ${P} -o ${O}/x.bpte)
if(NOT out STREQUAL "")
  message(FATAL_ERROR "etkit bundle: the line went to stdout:\n${out}")
endif()
wrote(run ${O}/r.etdp run ${P} --etdump ${O}/r.etdp)
wrote(run ${O}/outs run ${P} --output-dir ${O}/outs)
wrote(store ${O}/runs.csv store runs ${O}/s.db --format csv -o ${O}/runs.csv)
wrote(store ${O}/show.json store show ${O}/s.db 1 --format json -o ${O}/show.json)
wrote(store ${O}/cmp.txt store compare ${O}/s.db --baseline side=a
      --candidate side=b -o ${O}/cmp.txt)
wrote(store ${O}/exp.csv store export ${O}/s.db --format csv -o ${O}/exp.csv)
wrote(store ${O}/rep.md store report ${O}/s.db --baseline side=a
      --candidate side=b -o ${O}/rep.md)
wrote(info ${O}/sel.yaml info ${P} --selective-build ${O}/sel.yaml)

# stdout stays the data alone: no "wrote" line when the output is stdout
foreach(args "diff;${E};${O}/b.etdp;--format;json" "numerics;--gap;mse;--etdump_path;${E};--debug_buffer_path;${B};--etrecord_path;${R};--format;json"
             "store;runs;${O}/s.db;--format;json" "inspect;--etdump_path;${E};--format;json")
  run(0 ${args})
  if(err MATCHES "etkit [a-z]+: wrote" OR out MATCHES "etkit [a-z]+: wrote")
    message(FATAL_ERROR "etkit ${args}: a 'wrote' line for stdout:\n${out}${err}")
  endif()
endforeach()
message(STATUS "every command that writes a file says so in one line")
