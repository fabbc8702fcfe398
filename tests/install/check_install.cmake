# Installs the build into WORK_DIR/prefix, then builds consumer.c (which
# calls into every public library, the ETRecord API included) twice: with
# pkg-config (etkit.pc) and with find_package(etkit) (etkit::etkit), and
# runs both.
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

# pkg-config
set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig)
run(pkg-config --cflags --libs --static etkit)
string(STRIP "${last_output}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
# The same compiler flags as the build (sanitizer builds need them to link).
separate_arguments(c_flags UNIX_COMMAND "${C_FLAGS}")
run(${C_COMPILER} ${c_flags} ${SOURCE_DIR}/consumer.c ${flags} -o ${WORK_DIR}/consumer_pc)
run(${WORK_DIR}/consumer_pc)
if(NOT last_output MATCHES "blocks 1\napis ok")
  message(FATAL_ERROR "pkg-config consumer printed: ${last_output}")
endif()

# find_package
file(MAKE_DIRECTORY ${WORK_DIR}/cmake_consumer)
file(WRITE ${WORK_DIR}/cmake_consumer/CMakeLists.txt
"cmake_minimum_required(VERSION 3.20)
project(consumer C)
find_package(etkit REQUIRED)
add_executable(consumer ${SOURCE_DIR}/consumer.c)
target_link_libraries(consumer PRIVATE etkit::etkit)
")
run(${CMAKE_COMMAND} -S ${WORK_DIR}/cmake_consumer -B ${WORK_DIR}/cmake_build
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${C_COMPILER}
    "-DCMAKE_C_FLAGS=${C_FLAGS}")
run(${CMAKE_COMMAND} --build ${WORK_DIR}/cmake_build)
run(${WORK_DIR}/cmake_build/consumer)
if(NOT last_output MATCHES "blocks 1\napis ok")
  message(FATAL_ERROR "find_package consumer printed: ${last_output}")
endif()
