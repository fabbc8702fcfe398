# c99_check.cmake - recorder_c99_build: compiles the recorder's portable
# sources as strict C99 when the test runs (not only when the build did),
# so the test fails whenever they stop being C99:
#
#   cmake -DCC=<compiler> -DSOURCES=<|-separated list> -DINCLUDE=<dir>
#         [-DWERROR=ON] -P c99_check.cmake
#
# Each source: CC -std=c99 -pedantic-errors -Wall -Wextra -fsyntax-only
# (-Werror too with WERROR, as ETKIT_WERROR asks for CI).  First the
# check proves it can fail: a snippet that is not C99 (a GNU statement
# expression) must be refused, else the flags are not doing their job.
string(REPLACE "|" ";" SOURCES "${SOURCES}")
set(flags -std=c99 -pedantic-errors -Wall -Wextra -fsyntax-only
  -DETK_RECORDER_HOST=1 -I${INCLUDE})
if(WERROR)
  list(APPEND flags -Werror)
endif()
set(probe "${CMAKE_CURRENT_BINARY_DIR}/c99_probe.c")
if(DEFINED WORKDIR)
  set(probe "${WORKDIR}/c99_probe.c")
endif()
file(WRITE "${probe}" "int f(void) { return ({ int x = 1; x; }); }\n")
execute_process(COMMAND ${CC} ${flags} ${probe}
  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
file(REMOVE "${probe}")
if(rc EQUAL 0)
  message(FATAL_ERROR "c99 check: ${CC} accepted a GNU extension with ${flags}; the check would prove nothing")
endif()
set(failed "")
foreach(src IN LISTS SOURCES)
  execute_process(COMMAND ${CC} ${flags} ${src}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(APPEND failed "${src}:\n${out}${err}\n")
  endif()
endforeach()
list(LENGTH SOURCES n)
if(failed)
  message(FATAL_ERROR "not strict C99:\n${failed}")
endif()
message("c99 check: ${n} sources compile as strict C99")
