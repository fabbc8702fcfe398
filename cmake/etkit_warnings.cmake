# etkit_set_warnings(target): per-target warning flags (no global flags).
function(etkit_set_warnings target)
  if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE
      -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
      -Wpointer-arith -Wcast-align -Wvla -Wformat=2)
    if(ETKIT_WERROR)
      target_compile_options(${target} PRIVATE -Werror)
    endif()
  endif()
endfunction()

# etkit_add_library(name SOURCES...): one library of the tree (a folder of
# src/), static, with the public include dir.  The tree's own programs link
# these; what is installed is one libetkit folding them all together
# (cmake/etkit_package.cmake), except in ETKIT_RUNTIME_ONLY builds, which
# install the four portable libraries as they are.
function(etkit_add_library name)
  add_library(${name} STATIC ${ARGN})
  add_library(etkit::${name} ALIAS ${name})
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  etkit_set_warnings(${name})
  set_property(GLOBAL APPEND PROPERTY ETKIT_LIBRARIES ${name})
  if(ETKIT_RUNTIME_ONLY)
    install(TARGETS ${name} EXPORT etkitTargets
            ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  endif()
endfunction()

# etkit_link_math(target): links the C math library where there is one.
function(etkit_link_math target)
  if(MATH_LIBRARY)
    target_link_libraries(${target} PUBLIC ${MATH_LIBRARY})
  endif()
endfunction()
