# fw_size.cmake - prints a firmware image's flash and RAM:
#   cmake -DELF=board.elf -DSIZE=arm-none-eabi-size -P fw_size.cmake
# flash = vectors + code + constants + .data's load image; RAM = .data +
# .bss + stack; the arena (programs, methods, traces) is given apart.
cmake_policy(SET CMP0054 NEW)
execute_process(COMMAND ${SIZE} -A ${ELF} OUTPUT_VARIABLE out
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "${SIZE} -A ${ELF} failed")
endif()
set(flash 0)
set(ram 0)
set(arena 0)
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
    elseif(sec STREQUAL "arena")
      set(arena ${n})
    endif()
  endif()
endforeach()
get_filename_component(name ${ELF} NAME_WE)
message("firmware ${name}: flash ${flash} bytes, RAM ${ram} bytes "
        "(+ arena ${arena} bytes for program, method and trace)")
