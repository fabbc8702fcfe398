# baseline_rename.cmake - links the baseline recorder's objects into one
# relocatable object and renames every global symbol it defines to
# etkbase_<name>, so that it sits beside the current recorder in one
# binary.  Run with -DOUT= -DOBJECTS=(|-separated) -DLD= -DNM= -DOBJCOPY=.
set(_joined ${OUT}.joined.o)
string(REPLACE "|" ";" OBJECTS "${OBJECTS}")
execute_process(COMMAND ${LD} -r -o ${_joined} ${OBJECTS}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ld -r failed")
endif()
execute_process(COMMAND ${NM} -g --defined-only ${_joined}
                OUTPUT_VARIABLE syms RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm failed")
endif()
string(REGEX MATCHALL "[^\n]+" lines "${syms}")
set(map "")
foreach(line IN LISTS lines)
  string(REGEX MATCH "[^ ]+$" name "${line}")
  string(APPEND map "${name} etkbase_${name}\n")
endforeach()
file(WRITE ${OUT}.map "${map}")
execute_process(COMMAND ${OBJCOPY} --redefine-syms=${OUT}.map ${_joined} ${OUT}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "objcopy failed")
endif()
