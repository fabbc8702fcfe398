# capture_cli.cmake - `etkit capture` end to end on the demo's files.
#   cmake -DETKIT=etkit -DMAKE_STREAMS=make_streams -DDIR=work -P capture_cli.cmake
# Framed streams (clean: every file byte for byte, exit 0; each damage kind:
# the file only as NAME.partial, the problem named, exit 1), upstream Arm
# runner logs made here with `base64 -w0` (LF, CRLF, two blocks, no debug
# buffer, a cut line, a shortened line), stdin, and usage errors (exit 2).
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR}/streams)

include(${CMAKE_CURRENT_LIST_DIR}/../cmake/check_macros.cmake)

run(0 ${ETKIT} demo --output-dir ${DIR}/d)
set(E ${DIR}/d/etdump.etdp)
set(B ${DIR}/d/debug_buffer.bin)
set(S ${DIR}/streams)
run(0 ${MAKE_STREAMS} ${S} ${E} ${B})

# --- framed: the clean stream, from a file and from stdin
run(0 ${ETKIT} capture ${S}/clean.log --output-dir ${DIR}/clean)
same(${E} ${DIR}/clean/etdump.etdp)
same(${B} ${DIR}/clean/debug_buffer.bin)
same(${S}/output_0.bin ${DIR}/clean/output_0.bin)
expect_text("etdump.etdp")
expect_text("complete (etdump)")
execute_process(COMMAND ${ETKIT} capture - --output-dir ${DIR}/stdin
  INPUT_FILE ${S}/clean.log RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "capture from stdin: exit ${rc}")
endif()
same(${E} ${DIR}/stdin/etdump.etdp)
run(0 ${ETKIT} capture ${S}/clean.log --output-dir ${DIR}/kept --keep-log ${DIR}/kept.log)
same(${S}/clean.log ${DIR}/kept.log)
file(GLOB leftovers ${DIR}/clean/.* ${DIR}/clean/*.tmp*)
if(leftovers)
  message(FATAL_ERROR "temporary files left: ${leftovers}")
endif()

# --- framed: each damage kind
foreach(case "flipped;chunk 1 damaged"
             "lost;chunk 2 missing"
             "dup;chunk 1 duplicated"
             "reordered;chunk 0 arrived after chunk 1 (reordered)"
             "truncated;no end-of-file frame"
             "injected;chunk 2 damaged")
  list(GET case 0 name)
  list(GET case 1 problem)
  run(1 ${ETKIT} capture ${S}/${name}.log --output-dir ${DIR}/${name})
  expect_text("etdump.etdp: ${problem}")
  expect_text("etdump.etdp.partial")
  if(name STREQUAL "flipped")
    expect_text("CRC mismatch (by its header, chunk 1 of etdump.etdp)")
  endif()
  absent(${DIR}/${name}/etdump.etdp)
  if(EXISTS ${DIR}/${name}/debug_buffer.bin)
    same(${B} ${DIR}/${name}/debug_buffer.bin)
  endif()
endforeach()

# --- upstream's Arm runner log, written as arm_executor_runner prints it
execute_process(COMMAND base64 -w0 ${E} OUTPUT_VARIABLE e64 RESULT_VARIABLE r1)
execute_process(COMMAND base64 -w0 ${B} OUTPUT_VARIABLE b64 RESULT_VARIABLE r2)
if(r1 OR r2)
  message(FATAL_ERROR "base64 -w0 failed")
endif()
set(inspect_line "python3 -m devtools.inspector.inspector_cli --etdump_path etdump.bin --debug_buffer_path debug_buffer.bin --source_time_scale cycles --target_time_scale cycles")
function(arm_block out with_debug e64_text)
  set(t "#[RUN THIS]\n")
  if(with_debug)
    string(APPEND t "# Writing debug_buffer.bin [base64]\n"
                    "echo \"${b64}\" | base64 -d >debug_buffer.bin\n")
  endif()
  string(APPEND t "# Writing etdump.bin [base64]\n"
                  "echo \"${e64_text}\" | base64 -d >etdump.bin\n"
                  "# Generate cpu cycle table with:\n${inspect_line}\n#[END]\n")
  set(${out} "${t}" PARENT_SCOPE)
endfunction()
set(boot "I [executorch:arm_executor_runner.cpp:412] Model executed\nOutput[0]: 0.1484\n")
arm_block(blk1 1 "${e64}")
arm_block(blk2 0 "${e64}")

file(WRITE ${DIR}/arm_lf.log "${boot}${blk1}I [executorch] exit\n")
run(0 ${ETKIT} capture ${DIR}/arm_lf.log --output-dir ${DIR}/arm_lf)
same(${E} ${DIR}/arm_lf/etdump.bin)
same(${B} ${DIR}/arm_lf/debug_buffer.bin)

string(REPLACE "\n" "\r\n" crlf "${boot}${blk1}")
file(WRITE ${DIR}/arm_crlf.log "${crlf}")
run(0 ${ETKIT} capture ${DIR}/arm_crlf.log --output-dir ${DIR}/arm_crlf)
same(${E} ${DIR}/arm_crlf/etdump.bin)
same(${B} ${DIR}/arm_crlf/debug_buffer.bin)

file(WRITE ${DIR}/arm_two.log "${boot}${blk1}${boot}${blk2}")
run(0 ${ETKIT} capture ${DIR}/arm_two.log --output-dir ${DIR}/arm_two)
same(${E} ${DIR}/arm_two/etdump.bin)
same(${E} ${DIR}/arm_two/etdump-2.bin)
same(${B} ${DIR}/arm_two/debug_buffer.bin)
absent(${DIR}/arm_two/debug_buffer-2.bin)

# cut in the middle of the base64 line (the log stops there)
string(LENGTH "${e64}" n64)
math(EXPR half "${n64} / 2")
string(SUBSTRING "${e64}" 0 ${half} e64_half)
file(WRITE ${DIR}/arm_cut.log "${boot}#[RUN THIS]\n# Writing etdump.bin [base64]\necho \"${e64_half}")
run(1 ${ETKIT} capture ${DIR}/arm_cut.log --output-dir ${DIR}/arm_cut)
expect_text("cut off before its closing quote")
expect_text("etdump.bin.partial")
absent(${DIR}/arm_cut/etdump.bin)

# shortened by whole quanta: the line looks fine, the ETDump does not verify
math(EXPR shorter "${n64} - 400")
string(SUBSTRING "${e64}" 0 ${shorter} e64_short)
arm_block(blk3 0 "${e64_short}")
file(WRITE ${DIR}/arm_short.log "${blk3}")
run(1 ${ETKIT} capture ${DIR}/arm_short.log --output-dir ${DIR}/arm_short)
expect_text("not a whole ETDump")
absent(${DIR}/arm_short/etdump.bin)

# a debug buffer shorter than the tensors its ETDump logged
string(LENGTH "${b64}" nb64)
math(EXPR bshort "${nb64} / 2 / 4 * 4")
string(SUBSTRING "${b64}" 0 ${bshort} b64_short)
set(b64_full "${b64}")
set(b64 "${b64_short}")
arm_block(blk4 1 "${e64}")
set(b64 "${b64_full}")
file(WRITE ${DIR}/arm_dbg_short.log "${blk4}")
run(1 ${ETKIT} capture ${DIR}/arm_dbg_short.log --output-dir ${DIR}/arm_dbg_short)
expect_text("does not hold the tensors its ETDump logged")
same(${E} ${DIR}/arm_dbg_short/etdump.bin)
absent(${DIR}/arm_dbg_short/debug_buffer.bin)

# --- nothing found, trouble
file(WRITE ${DIR}/plain.log "just a log\n")
run(1 ${ETKIT} capture ${DIR}/plain.log --output-dir ${DIR}/plain)
expect_text("no file found")
run(2 ${ETKIT} capture ${DIR}/missing.log --output-dir ${DIR}/x)
run(2 ${ETKIT} capture ${DIR}/plain.log)
run(2 ${ETKIT} capture --output-dir ${DIR}/x)
run(2 ${ETKIT} capture ${DIR}/plain.log --output-dir ${DIR}/x --timeout 0)
run(0 ${ETKIT} capture --help)
run(0 ${ETKIT} help capture)

# the seeds of fuzz/capture (when asked: -DCORPUS=dir)
if(CORPUS)
  file(COPY ${S}/clean.log ${S}/flipped.log ${S}/truncated.log ${S}/injected.log
       ${DIR}/arm_crlf.log ${DIR}/arm_cut.log ${DIR}/arm_two.log
       DESTINATION ${CORPUS})
endif()
