# demo_fixture.cmake: what the CLI scripts in this folder start from, read
# with include().  Empties ${DIR}, defines run(<expected exit> <args...>)
# (sets out/err; fails on another exit status) and writes the demo's files
# into ${DIR}/d: E (ETDump), B (debug buffer), R (ETRecord), P (program).
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR})

macro(run want)
  execute_process(COMMAND ${ETKIT} ${ARGN} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc STREQUAL "${want}")
    message(FATAL_ERROR "etkit ${ARGN}: exit ${rc}, expected ${want}\n${out}${err}")
  endif()
endmacro()

run(0 demo --output-dir ${DIR}/d --runs 2)
set(E ${DIR}/d/etdump.etdp)
set(B ${DIR}/d/debug_buffer.bin)
set(R ${DIR}/d/model.etrecord)
set(P ${DIR}/d/model.pte)
