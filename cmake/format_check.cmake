# format_check.cmake - fails when a C file of the tree is not formatted as
# .clang-format says (clang-format --dry-run --Werror), run with cmake -P:
#   -DSOURCE_DIR=<repo> -DCLANG_FORMAT=<clang-format>
# Used by `make format-check` and the CMake target format-check.
file(GLOB_RECURSE files RELATIVE ${SOURCE_DIR}
     ${SOURCE_DIR}/src/*.c ${SOURCE_DIR}/src/*.h ${SOURCE_DIR}/include/*.h
     ${SOURCE_DIR}/src/*.cpp ${SOURCE_DIR}/include/*.hpp
     ${SOURCE_DIR}/tests/*.cpp ${SOURCE_DIR}/bench/*.cpp
     ${SOURCE_DIR}/tests/*.c ${SOURCE_DIR}/tests/*.h
     ${SOURCE_DIR}/bench/*.c ${SOURCE_DIR}/bench/*.h
     ${SOURCE_DIR}/fuzz/*.c ${SOURCE_DIR}/fuzz/*.h
     ${SOURCE_DIR}/python/*.c ${SOURCE_DIR}/python/*.h
     ${SOURCE_DIR}/examples/*.c ${SOURCE_DIR}/examples/*.h)
list(SORT files)
set(bad "")
foreach(f IN LISTS files)
  execute_process(COMMAND ${CLANG_FORMAT} --dry-run --Werror ${f}
    WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(NOT rc EQUAL 0)
    list(APPEND bad ${f})
  endif()
endforeach()
list(LENGTH files n)
if(bad)
  list(LENGTH bad nbad)
  list(JOIN bad "\n  " text)
  message(FATAL_ERROR "${nbad} of ${n} files are not clang-format clean "
                      "(clang-format -i <file> fixes one):\n  ${text}")
endif()
message(STATUS "format-check: ${n} files clang-format clean")
