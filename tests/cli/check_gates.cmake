# check_gates.cmake - the exit-status rule of every gating command
# (docs/exit-status.md) on the demo fixture: 0 the gate holds, 1 it failed,
# 2 trouble (usage, unreadable input, a gate that compared nothing).  `store
# compare`'s three outcomes are in tests/store/cli_store.sh (SQLite and
# PostgreSQL), `diff A B`'s in tests/analysis, `numerics`' in tests/numerics.
# -DETKIT=<etkit> -DDIR=<scratch dir>
include(${CMAKE_CURRENT_LIST_DIR}/demo_fixture.cmake)
set(BP ${DIR}/d/model.bpte)
set(absent ${DIR}/absent.etdp)

# expected outputs that are wrong: a float [1, 10] .npy of 100s (sh's
# printf writes the NUL bytes CMake strings cannot hold)
set(H "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 10), }")
execute_process(COMMAND sh -c "printf '\\223NUMPY\\001\\000\\166\\000%s%57s\\n' \"$1\" '' >\"$2\"; for i in 1 2 3 4 5 6 7 8 9 10; do printf '\\000\\000\\310\\102' >>\"$2\"; done"
                sh "${H}" ${DIR}/wrong.npy RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "could not write wrong.npy")
endif()
run(0 bundle ${P} --expected ${DIR}/wrong.npy -o ${DIR}/wrong.bpte)

# run --verify
run(0 run ${BP} --verify)
run(1 run ${DIR}/wrong.bpte --verify)
if(NOT err MATCHES "1 test case did not match")
  message(FATAL_ERROR "run --verify: ${err}")
endif()
run(2 run ${DIR}/absent.bpte --verify)
run(2 run ${P} --verify) # a .pte has no expected outputs: usage
run(2 run ${BP} --verify --etdump ${DIR}/no/such/dir/x.etdp) # unwritable: trouble
run(1 run ${DIR}/absent.bpte) # not a gate without --verify: a failure is 1

# inspect --compare_results [--min-snr DB]
set(CR inspect --etdump_path ${E} --debug_buffer_path ${B} --compare_results)
run(0 ${CR} --reference ${BP} --min-snr 10)
run(0 ${CR} --reference ${DIR}/wrong.bpte) # no gate: it only reports
run(1 ${CR} --reference ${DIR}/wrong.bpte --min-snr 10)
if(NOT err MATCHES "1 output\\(s\\) have an SNR below 10 dB")
  message(FATAL_ERROR "compare_results --min-snr: ${err}")
endif()
run(2 ${CR} --reference ${DIR}/absent.bpte --min-snr 10)
run(2 ${CR} --reference ${BP} --min-snr lots)
run(2 inspect --etdump_path ${E} --min-snr 10) # needs --compare_results

# numerics: identical runs hold any SNR floor; trouble is 2
set(AB numerics --etdump_path ${E} --debug_buffer_path ${B} --against ${E}
    --against-debug-buffer ${B})
run(0 ${AB} --min-snr 100)
# the demo's DELEGATE_CALL logs its input and two constant weights before
# its output: three rows "delegate argument", never gated; max_pool's int64
# indices are exact matches
run(0 ${AB} --etrecord_path ${R} --format tsv)
string(REGEX MATCHALL "\tdelegate argument" args "${out}")
list(LENGTH args nargs)
if(NOT nargs EQUAL 3 OR NOT out MATCHES "\tDELEGATE_CALL\t[^\n]*\t.1, 8, 4, 4.\t0.0\tinf\t0.0\t1.0\tmatched")
  message(FATAL_ERROR "numerics: delegate arguments not marked (${nargs}):\n${out}")
endif()
if(NOT out MATCHES "int64\t[^\n]*exact: 0 of 64 differ")
  message(FATAL_ERROR "numerics: int64 indices not an exact match:\n${out}")
endif()
run(2 numerics --etdump_path ${E} --debug_buffer_path ${B} --against ${absent}
    --against-debug-buffer ${B} --min-snr 100)
# a damaged B is named as B, not as A
file(WRITE ${DIR}/cut.etdp "not an ETDump: a file of text, 40 bytes")
run(2 numerics ${E} ${DIR}/cut.etdp --debug_buffer_path ${B}
    --against-debug-buffer ${B} --min-snr 100)
if(NOT err MATCHES "cut.etdp: " OR err MATCHES "etdump.etdp: ")
  message(FATAL_ERROR "numerics names the wrong file: ${err}")
endif()
# a side without --debug_buffer_path takes X.debug.bin beside X.etdp (as
# `etkit run` writes it) and says so; without one there it is a usage error
run(0 run ${P} --etdump ${DIR}/r1.etdp --debug-level intermediates)
run(0 run ${P} --etdump ${DIR}/r2.etdp --debug-level intermediates)
run(0 numerics ${DIR}/r1.etdp --against ${DIR}/r2.etdp --min-snr 100)
if(NOT err MATCHES "r1.debug.bin \\(beside it\\)" OR
   NOT err MATCHES "r2.debug.bin \\(beside it\\)" OR NOT out MATCHES "snr")
  message(FATAL_ERROR "numerics did not take the buffers beside the dumps:\n${out}${err}")
endif()
file(REMOVE ${DIR}/r2.debug.bin)
run(2 numerics ${DIR}/r1.etdp --against ${DIR}/r2.etdp)
if(NOT err MATCHES "both debug buffers are needed")
  message(FATAL_ERROR "numerics without B's buffer: ${err}")
endif()

# diff: one dump against itself holds; --vs once; trouble is 2
run(0 diff ${E} ${E} --fail-above 1)
run(2 diff ${E} ${absent} --fail-above 1)
run(2 diff ${E} --vs ${E} --vs ${E})
if(NOT err MATCHES "--vs is given once")
  message(FATAL_ERROR "diff --vs --vs: ${err}")
endif()
run(0 diff ${E} --vs ${E} --fail-above 1)
run(2 diff ${E} --vs ${absent} --fail-above 1)
# (a candidate of another program: tests/store/cli_store.sh)

# diff of two programs: the same program (also inside its .bpte) holds,
# another differs, a program against an ETDump is trouble
run(0 diff ${P} ${P})
run(0 diff ${P} ${BP})
if(KWS_WRITER)
  file(MAKE_DIRECTORY ${DIR}/kws)
  execute_process(COMMAND ${KWS_WRITER} ${DIR}/kws RESULT_VARIABLE krc)
  if(NOT krc STREQUAL "0")
    message(FATAL_ERROR "etkit_kws_model ${DIR}/kws: exit ${krc}")
  endif()
  run(1 diff ${P} ${DIR}/kws/kws.pte)
  run(1 diff ${P} ${DIR}/kws/kws.pte --format json)
  if(NOT out MATCHES "^[ \n]*{")
    message(FATAL_ERROR "etkit diff A.pte B.pte --format json: ${out}")
  endif()
else()
  message(FATAL_ERROR "KWS_WRITER (build/examples/etkit_kws_model) not given")
endif()
run(2 diff ${P} ${E})
if(NOT err MATCHES "a program and an ETDump cannot be compared")
  message(FATAL_ERROR "etkit diff A.pte B.etdp: ${err}")
endif()
run(2 diff ${E} ${P})
run(2 diff ${P} ${absent})
run(2 diff ${P})
run(0 diff ${E} ${E} -o ${DIR}/out.pte) # -o's value is not compared
run(0 diff ${P} --help)
if(NOT out MATCHES "usage: etkit diff A.pte B.pte")
  message(FATAL_ERROR "etkit diff A.pte --help: ${out}")
endif()
run(0 diff --help)
if(NOT out MATCHES "etkit diff A.pte B.pte")
  message(FATAL_ERROR "etkit diff --help does not mention the program diff")
endif()

# every gate's --help points to the rule
foreach(cmd diff numerics store)
  run(0 ${cmd} --help)
  if(NOT out MATCHES "exit-status.md")
    message(FATAL_ERROR "etkit ${cmd} --help does not point to docs/exit-status.md")
  endif()
endforeach()
run(0 inspect --help)
run(0 run --help)
foreach(text "${out}")
  if(NOT text MATCHES "exit-status.md")
    message(FATAL_ERROR "etkit run --help does not point to docs/exit-status.md")
  endif()
endforeach()
run(0 --help)
if(NOT out MATCHES "exit-status.md")
  message(FATAL_ERROR "etkit --help does not state the exit-status rule")
endif()
