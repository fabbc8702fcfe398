# Installs the build into WORK_DIR/prefix, then builds consumer.c (which
# calls into every public library, the ETRecord API included) four ways and
# runs each: `pkg-config --libs etkit` (the shared libetkit), `pkg-config
# --static` (libetkit.a), find_package(etkit) with etkit::etkit (shared) and
# with etkit::etkit_static.  With -DPART=executorch it checks the C++
# adapter instead (check_install_executorch.cmake), after the same install.
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig)
if(PART STREQUAL "executorch")
  include(${CMAKE_CURRENT_LIST_DIR}/check_install_executorch.cmake)
  return()
endif()

# pkg-config, as a user types it: `cc app.c $(pkg-config --cflags --libs
# etkit)` links the shared libetkit and nothing else of etkit's.
# The same compiler flags as the build (sanitizer builds need them to link).
separate_arguments(c_flags UNIX_COMMAND "${C_FLAGS}")
run(pkg-config --cflags --libs etkit)
string(STRIP "${last_output}" flags)
if(NOT flags MATCHES "-letkit$" OR flags MATCHES "etkit_")
  message(FATAL_ERROR "pkg-config --libs etkit: unexpected flags ${flags}")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
run(${C_COMPILER} ${c_flags} ${SOURCE_DIR}/consumer.c ${flags} -o ${WORK_DIR}/consumer_pc)
set(ENV{LD_LIBRARY_PATH} ${prefix}/lib)
run(${WORK_DIR}/consumer_pc)
if(NOT last_output MATCHES "blocks 1\napis ok")
  message(FATAL_ERROR "pkg-config consumer printed: ${last_output}")
endif()
find_program(READELF readelf)
if(READELF)
  run(${READELF} -d ${WORK_DIR}/consumer_pc)
  if(NOT last_output MATCHES "libetkit\\.so\\.[0-9]+")
    message(FATAL_ERROR "consumer_pc does not need libetkit.so.N:\n${last_output}")
  endif()
  run(${READELF} -d ${prefix}/lib/libetkit.so)
  if(NOT last_output MATCHES "SONAME[^\n]*libetkit\\.so\\.[0-9]+")
    message(FATAL_ERROR "libetkit.so has no versioned SONAME:\n${last_output}")
  endif()
endif()
# Only the public API is exported: no internal helper of a folder.
find_program(NM nm)
if(NM)
  run(${NM} -D --defined-only ${prefix}/lib/libetkit.so)
  string(REGEX MATCHALL "[0-9a-f]+ [TDRB] [A-Za-z_][A-Za-z_0-9]*" syms "${last_output}")
  foreach(sym IN LISTS syms)
    if(NOT sym MATCHES " etk_")
      message(FATAL_ERROR "libetkit.so exports a non-API symbol: ${sym}")
    endif()
  endforeach()
endif()
unset(ENV{LD_LIBRARY_PATH})

# pkg-config --static: the archive, with libzip, jansson and libm.
run(pkg-config --cflags --libs --static etkit)
string(STRIP "${last_output}" flags)
if(NOT flags MATCHES "-lzip" OR NOT flags MATCHES "-ljansson" OR NOT flags MATCHES "-lm")
  message(FATAL_ERROR "pkg-config --static --libs etkit: ${flags}")
endif()
string(REPLACE "-letkit" "${prefix}/lib/libetkit.a" flags "${flags}")
separate_arguments(flags UNIX_COMMAND "${flags}")
run(${C_COMPILER} ${c_flags} ${SOURCE_DIR}/consumer.c ${flags} -o ${WORK_DIR}/consumer_static)
run(${WORK_DIR}/consumer_static)
if(NOT last_output MATCHES "blocks 1\napis ok")
  message(FATAL_ERROR "static consumer printed: ${last_output}")
endif()
if(READELF)
  run(${READELF} -d ${WORK_DIR}/consumer_static)
  if(last_output MATCHES "libetkit")
    message(FATAL_ERROR "consumer_static needs libetkit.so:\n${last_output}")
  endif()
endif()

# find_package: etkit::etkit (shared) and etkit::etkit_static.
foreach(target etkit etkit_static)
  set(dir ${WORK_DIR}/cmake_${target})
  file(MAKE_DIRECTORY ${dir})
  file(WRITE ${dir}/CMakeLists.txt
"cmake_minimum_required(VERSION 3.20)
project(consumer C)
find_package(etkit REQUIRED)
add_executable(consumer ${SOURCE_DIR}/consumer.c)
target_link_libraries(consumer PRIVATE etkit::${target})
")
  run(${CMAKE_COMMAND} -S ${dir} -B ${dir}/build
      -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${C_COMPILER}
      "-DCMAKE_C_FLAGS=${C_FLAGS}")
  run(${CMAKE_COMMAND} --build ${dir}/build)
  run(${dir}/build/consumer)
  if(NOT last_output MATCHES "blocks 1\napis ok")
    message(FATAL_ERROR "find_package consumer (etkit::${target}) printed: ${last_output}")
  endif()
endforeach()
