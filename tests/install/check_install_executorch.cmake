# Included by check_install.cmake (PART=executorch) after installing into
# ${prefix}: builds consumer_executorch.cpp against the installed adapter
# two ways and runs each: `c++ app.cpp $(pkg-config --cflags --libs
# etkit-executorch) <runtime>` and find_package(etkit-executorch) with
# etkit::executorch.  RUNTIME_LIB is the upstream runtime archive (what a
# user links as "their runtime").
separate_arguments(cxx_flags UNIX_COMMAND "${CXX_FLAGS}")

run(pkg-config --cflags --libs etkit-executorch)
string(STRIP "${last_output}" flags)
foreach(want "-std=c\\+\\+17" "-DC10_USING_CUSTOM_GENERATED_MACROS"
        "-letkit_executorch" "-letkit_recorder" "-letkit_core"
        "include/etkit-executorch" "executorch-runtime")
  if(NOT flags MATCHES "${want}")
    message(FATAL_ERROR "pkg-config etkit-executorch lacks ${want}: ${flags}")
  endif()
endforeach()
# only the recorder: not the host library (libzip, jansson, sqlite, libpq)
if(flags MATCHES "-letkit( |$)|zip|jansson|sqlite|-lpq")
  message(FATAL_ERROR "pkg-config etkit-executorch needs the host library: ${flags}")
endif()
run(pkg-config --print-requires etkit-executorch)
string(STRIP "${last_output}" requires)
if(NOT requires STREQUAL "")
  message(FATAL_ERROR "etkit-executorch.pc requires: ${requires}")
endif()
# upstream's headers are a variable a user points at their own checkout
run(pkg-config --define-variable=executorch_includedir=/opt/et --cflags
    etkit-executorch)
if(NOT last_output MATCHES "-isystem /opt/et " OR
   last_output MATCHES "executorch-runtime")
  message(FATAL_ERROR "executorch_includedir not overridable: ${last_output}")
endif()
if(NOT EXISTS ${prefix}/include/etkit-executorch/executorch/devtools/etdump/etdump_flatcc.h)
  message(FATAL_ERROR "devtools/etdump headers not installed")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
run(${CXX_COMPILER} ${cxx_flags} ${SOURCE_DIR}/consumer_executorch.cpp
    ${flags} ${RUNTIME_LIB} -lpthread -o ${WORK_DIR}/consumer_et_pc)
set(ENV{LD_LIBRARY_PATH} ${prefix}/lib)
run(${WORK_DIR}/consumer_et_pc)
if(NOT last_output MATCHES "blocks 1\netdump ok\netdumpgen ok")
  message(FATAL_ERROR "pkg-config adapter consumer printed: ${last_output}")
endif()
unset(ENV{LD_LIBRARY_PATH})

set(dir ${WORK_DIR}/cmake_executorch)
file(MAKE_DIRECTORY ${dir})
file(WRITE ${dir}/CMakeLists.txt
"cmake_minimum_required(VERSION 3.20)
project(consumer C CXX)
find_package(etkit-executorch REQUIRED)
find_package(Threads REQUIRED)
if(NOT TARGET etkit::executorch)
  message(FATAL_ERROR \"no etkit::executorch\")
endif()
add_executable(consumer ${SOURCE_DIR}/consumer_executorch.cpp)
target_link_libraries(consumer PRIVATE etkit::executorch ${RUNTIME_LIB}
                      Threads::Threads)
")
run(${CMAKE_COMMAND} -S ${dir} -B ${dir}/build
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
    "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}" "-DCMAKE_C_FLAGS=${CXX_FLAGS}"
    "-DCMAKE_BUILD_RPATH=${prefix}/lib")
run(${CMAKE_COMMAND} --build ${dir}/build)
run(${dir}/build/consumer)
if(NOT last_output MATCHES "blocks 1\netdump ok\netdumpgen ok")
  message(FATAL_ERROR "find_package adapter consumer printed: ${last_output}")
endif()
