# What `cmake --install` gives a C program: one library, libetkit, as a
# shared object (SONAME libetkit.so.<major>, exporting the public etk_*
# symbols only) and as a static archive, each holding the objects of every
# library of the tree (the global property ETKIT_LIBRARIES, filled by
# etkit_add_library).  The external libraries they use (libzip, jansson,
# libm, ...) are gathered from the tree's libraries, so a library added to
# the tree is folded in without editing this file.
#
#   etkit_package_libraries()   call once, after every add_subdirectory()
#
# Targets: etkit_shared (exported as etkit::etkit) and etkit_static
# (etkit::etkit_static); etkit.pc says `-letkit` (libzip and jansson in
# Requires.private for `pkg-config --static`).

function(etkit_package_libraries)
  get_property(libs GLOBAL PROPERTY ETKIT_LIBRARIES)
  set(objects "")
  set(external "")
  foreach(lib IN LISTS libs)
    list(APPEND objects $<TARGET_OBJECTS:${lib}>)
    get_target_property(deps ${lib} LINK_LIBRARIES)
    if(deps)
      foreach(dep IN LISTS deps)
        if(NOT dep IN_LIST libs AND NOT dep MATCHES "^etkit")
          list(APPEND external ${dep})
        endif()
      endforeach()
    endif()
  endforeach()
  list(REMOVE_DUPLICATES external)

  set(map ${PROJECT_SOURCE_DIR}/cmake/etkit.map)
  add_library(etkit_shared SHARED ${objects})
  target_link_libraries(etkit_shared PRIVATE ${external})
  set_target_properties(etkit_shared PROPERTIES
    OUTPUT_NAME etkit EXPORT_NAME etkit
    VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
    LINK_DEPENDS ${map})
  if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang" AND NOT APPLE)
    target_link_options(etkit_shared PRIVATE -Wl,--version-script=${map})
    # Every symbol resolved at link time, except in sanitizer builds, whose
    # runtime clang links into the executable only.
    if(NOT CMAKE_C_FLAGS MATCHES "sanitize")
      target_link_options(etkit_shared PRIVATE -Wl,--no-undefined)
    endif()
  endif()

  add_library(etkit_static STATIC ${objects})
  target_link_libraries(etkit_static PUBLIC ${external})
  set_target_properties(etkit_static PROPERTIES
    OUTPUT_NAME etkit EXPORT_NAME etkit_static)

  foreach(t etkit_shared etkit_static)
    target_include_directories(${t} INTERFACE
      $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
      $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  endforeach()
  install(TARGETS etkit_shared etkit_static EXPORT etkitTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})

  # etkit.pc: Requires.private from the pkg-config modules found, plus -lm.
  get_property(ETKIT_PC_REQUIRES_PRIVATE GLOBAL PROPERTY ETKIT_PKG_MODULES)
  list(REMOVE_DUPLICATES ETKIT_PC_REQUIRES_PRIVATE)
  get_property(ETKIT_PC_LIBS_PRIVATE GLOBAL PROPERTY ETKIT_PC_LIBS_PRIVATE)
  list(APPEND ETKIT_PC_LIBS_PRIVATE -lm)
  list(REMOVE_DUPLICATES ETKIT_PC_LIBS_PRIVATE)
  string(REPLACE ";" " " ETKIT_PC_LIBS_PRIVATE "${ETKIT_PC_LIBS_PRIVATE}")
  string(REPLACE ";" " " ETKIT_PC_REQUIRES_PRIVATE
         "${ETKIT_PC_REQUIRES_PRIVATE}")
  configure_file(${PROJECT_SOURCE_DIR}/cmake/etkit.pc.in
                 ${PROJECT_BINARY_DIR}/etkit.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/etkit.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endfunction()
