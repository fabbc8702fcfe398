# fw_size.cmake - prints a firmware image's flash and RAM, in total and per
# library:
#   cmake -DELF=board.elf -DSIZE=arm-none-eabi-size [-DMAP=board.map]
#         -P fw_size.cmake
# flash = vectors + code + constants + .data's load image; RAM = .data +
# .bss + stack; the arena (programs, methods, traces) is given apart.
#
# Per library (with MAP): every input section the linker kept, from the
# link map, credited to the archive it came from (etkit's libraries are
# libetkit_fw_<library>_<board>.a, see CMakeLists.txt), to "board" for the
# image's own objects (startup, clock, semihosting, UART, main), to newlib's
# libc_nano/libm and libgcc; alignment fill is "padding".  A string the
# linker merged counts once, for the first library that has it.  The per-library
# figures add up to the totals, which the last line checks.
cmake_policy(SET CMP0054 NEW)
cmake_policy(SET CMP0057 NEW)
execute_process(COMMAND ${SIZE} -A ${ELF} OUTPUT_VARIABLE out
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "${SIZE} -A ${ELF} failed")
endif()
set(flash 0)
set(ram 0)
set(arena 0)
set(stack 0)
string(REPLACE "\n" ";" lines "${out}")
foreach(line ${lines})
  if(line MATCHES "^\\.([A-Za-z.]+)[ \t]+([0-9]+)")
    set(sec ${CMAKE_MATCH_1})
    set(n ${CMAKE_MATCH_2})
    if(sec MATCHES "^(vectors|text|ARM.exidx)$")
      math(EXPR flash "${flash} + ${n}")
    elseif(sec STREQUAL "data")
      math(EXPR flash "${flash} + ${n}")
      math(EXPR ram "${ram} + ${n}")
    elseif(sec MATCHES "^(bss|stack)$")
      math(EXPR ram "${ram} + ${n}")
      if(sec STREQUAL "stack")
        set(stack ${n})
      endif()
    elseif(sec STREQUAL "arena")
      set(arena ${n})
    endif()
  endif()
endforeach()
get_filename_component(name ${ELF} NAME_WE)
message("firmware ${name}: flash ${flash} bytes, RAM ${ram} bytes "
        "(+ arena ${arena} bytes for program, method and trace)")
if(NOT MAP)
  return()
endif()

# The map's kept sections: output section headers start in column 0, input
# sections (and fill) are indented, their name sometimes on a line of its
# own before the address and size.
file(STRINGS ${MAP} map REGEX
     "^(Linker script and memory map|\\.[A-Za-z]|  *0x|  *\\.|  *\\*fill\\*)")
set(in_memory_map FALSE)
set(section "")
set(parts)
foreach(line IN LISTS map)
  if(line STREQUAL "Linker script and memory map")
    set(in_memory_map TRUE)
    continue()
  endif()
  if(NOT in_memory_map)
    continue()
  endif()
  if(line MATCHES "^\\.([A-Za-z0-9_.]+)")
    set(section ${CMAKE_MATCH_1})
    set(end 0)
    continue()
  endif()
  if(NOT section MATCHES "^(vectors|text|ARM.exidx|data|bss)$")
    continue()
  endif()
  # [name] address size [file]
  if(NOT line MATCHES
     "^ *(\\*fill\\*|\\.[^ ]*)? +(0x[0-9a-f]+) +(0x[0-9a-f]+) *(.*)$")
    continue()
  endif()
  # Merged string sections (.rodata.*.str1.1) are listed at their size
  # before merging and overlap: each byte counts once, for the first
  # section that holds it.
  math(EXPR start "${CMAKE_MATCH_2}")
  math(EXPR stop "${CMAKE_MATCH_2} + ${CMAKE_MATCH_3}")
  set(file "${CMAKE_MATCH_4}")
  if(start LESS end)
    set(start ${end})
  endif()
  if(NOT stop GREATER start)
    continue()
  endif()
  math(EXPR n "${stop} - ${start}")
  set(end ${stop})
  if(file STREQUAL "")
    set(part padding)
  elseif(file MATCHES "libetkit_fw_([a-z]+)_[^(]*\\.a\\(")
    set(part ${CMAKE_MATCH_1})
  elseif(file MATCHES "^CMakeFiles/")
    set(part board)
  elseif(file MATCHES "libc_nano\\.a\\(|libc\\.a\\(")
    set(part libc)
  elseif(file MATCHES "libm\\.a\\(")
    set(part libm)
  elseif(file MATCHES "libgcc\\.a\\(")
    set(part libgcc)
  else()
    set(part other)
  endif()
  if(NOT part IN_LIST parts)
    list(APPEND parts ${part})
    set(flash_${part} 0)
    set(ram_${part} 0)
  endif()
  if(section STREQUAL "data")
    math(EXPR flash_${part} "${flash_${part}} + ${n}")
    math(EXPR ram_${part} "${ram_${part}} + ${n}")
  elseif(section STREQUAL "bss")
    math(EXPR ram_${part} "${ram_${part}} + ${n}")
  else()
    math(EXPR flash_${part} "${flash_${part}} + ${n}")
  endif()
endforeach()
set(sum_flash 0)
set(sum_ram ${stack})
foreach(part core program runtime kernels recorder transport board libc libm
        libgcc other padding)
  if(part IN_LIST parts)
    message("  ${name} ${part}: flash ${flash_${part}} bytes, "
            "RAM ${ram_${part}} bytes")
    math(EXPR sum_flash "${sum_flash} + ${flash_${part}}")
    math(EXPR sum_ram "${sum_ram} + ${ram_${part}}")
  endif()
endforeach()
message("  ${name} stack: RAM ${stack} bytes")
if(NOT sum_flash EQUAL flash OR NOT sum_ram EQUAL ram)
  message(FATAL_ERROR "${MAP}: the libraries add up to flash ${sum_flash} "
          "and RAM ${sum_ram} bytes, the image has ${flash} and ${ram}")
endif()
