# check_limits_detect.cmake - the limits checker reports what it must.
#
#   cmake -DCHECKER=<check_limits> -DWORK_DIR=<dir> -P check_limits_detect.cmake
#
# Writes, under WORK_DIR, a source whose function body is 151 lines long
# beside one of exactly 150, a 1,501-line file and a 400-line CLI file, then
# expects the checker to fail naming each breach and nothing else.
cmake_minimum_required(VERSION 3.20)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR}/src/cli)

function(body_lines count out)
  string(REPEAT "  x++; /* { not a brace } */\n" ${count} lines)
  set(${out} "${lines}" PARENT_SCOPE)
endfunction()

body_lines(149 ok_body)
body_lines(150 long_body)
file(WRITE ${WORK_DIR}/src/functions.c
  "static const int table[] = {\n1,\n};\n"
  "int fits(int x) {\n${ok_body}  return x;\n}\n"
  "int too_long(int x,\n             int y) {\n${long_body}  return \"}\"[0] + y;\n}\n")
string(REPEAT "/* line */\n" 1501 many)
file(WRITE ${WORK_DIR}/src/big.c "${many}")
string(REPEAT "/* line */\n" 400 cli)
file(WRITE ${WORK_DIR}/src/cli/cmd_x.c "${cli}")
file(WRITE ${WORK_DIR}/list.txt "src/functions.c\nsrc/big.c\nsrc/cli/cmd_x.c\n")

execute_process(COMMAND ${CHECKER} ${WORK_DIR} ${WORK_DIR}/list.txt
  RESULT_VARIABLE rc OUTPUT_VARIABLE out)
set(expected
  "src/functions.c:157: function of 151 lines"
  "src/big.c:1: file of 1501 lines (limit 1500)"
  "src/cli/cmd_x.c:1: CLI file of 400 lines (limit 399)"
  "3 files checked, 3 over a limit")
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "checker exit ${rc}, expected 1:\n${out}")
endif()
foreach(line IN LISTS expected)
  string(FIND "${out}" "${line}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "missing \"${line}\" in:\n${out}")
  endif()
endforeach()
string(FIND "${out}" "functions.c:4:" fits_at)
if(NOT fits_at EQUAL -1)
  message(FATAL_ERROR "a 150-line body was reported:\n${out}")
endif()
