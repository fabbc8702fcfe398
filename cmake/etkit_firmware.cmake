# The firmware images for QEMU's Cortex-M boards (src/boards), built
# whenever arm-none-eabi-gcc is found: an ExternalProject configures
# src/boards with cmake/arm-none-eabi.cmake and writes
# build/firmware/<board>.elf (printing each image's size), installed to
# share/etkit/firmware.  `etkit run --target BOARD` finds them there, or
# beside the build tree's CLI.  -DETKIT_BUILD_FIRMWARE=OFF skips them.
find_program(ETKIT_ARM_GCC arm-none-eabi-gcc)
# Off in sanitizer builds: the images are the same as the default build's,
# which builds and tests them.
set(_etkit_fw_default OFF)
if(ETKIT_ARM_GCC AND NOT CMAKE_C_FLAGS MATCHES "sanitize")
  set(_etkit_fw_default ON)
endif()
option(ETKIT_BUILD_FIRMWARE "Build the Cortex-M firmware images (src/boards)"
       ${_etkit_fw_default})
set(ETKIT_FIRMWARE_BOARDS mps2-an385 mps2-an386 mps3-an547)
set(ETKIT_FIRMWARE_DIR ${PROJECT_BINARY_DIR}/firmware)

if(ETKIT_BUILD_FIRMWARE AND ETKIT_ARM_GCC)
  include(ExternalProject)
  set(_fw_byproducts)
  foreach(board ${ETKIT_FIRMWARE_BOARDS})
    list(APPEND _fw_byproducts ${ETKIT_FIRMWARE_DIR}/${board}.elf)
  endforeach()
  ExternalProject_Add(etkit_firmware
    SOURCE_DIR ${PROJECT_SOURCE_DIR}/src/boards
    BINARY_DIR ${PROJECT_BINARY_DIR}/firmware-build
    CMAKE_ARGS
      -DCMAKE_TOOLCHAIN_FILE=${PROJECT_SOURCE_DIR}/cmake/arm-none-eabi.cmake
      -DCMAKE_BUILD_TYPE=MinSizeRel
      -DETKIT_FIRMWARE_OUTPUT_DIR=${ETKIT_FIRMWARE_DIR}
    BUILD_COMMAND ${CMAKE_COMMAND} --build <BINARY_DIR>
    BUILD_ALWAYS ON
    INSTALL_COMMAND ""
    BUILD_BYPRODUCTS ${_fw_byproducts}
    USES_TERMINAL_BUILD ON)
  install(FILES ${_fw_byproducts}
          DESTINATION ${CMAKE_INSTALL_DATADIR}/etkit/firmware)
  set(ETKIT_HAVE_FIRMWARE ON)
else()
  set(ETKIT_HAVE_FIRMWARE OFF)
  message(STATUS "etkit: arm-none-eabi-gcc not found: no Cortex-M firmware")
endif()
