# check_upstream_stats.cmake - runs upstream_stats_app (a program run N
# times through the Method stand-in with etkit's tracer in its long-run
# modes) and reads what it wrote:
#  - `etkit inspect --format json` of every stats-profile dump (ETDumpGen
#    heap and static, the native tracer; N = 100 and 10000) has the
#    program's nine keys, each with count == N, and load's Method::init
#    once;
#  - the native dumps (a fixed duration per scope) of 100 and 10000 runs
#    have the same size; the others (real clock) stay under a bound that
#    does not depend on N (every sketch at its 240 buckets), and under a
#    full dump of 100 runs; the app checks that the arena each needs is
#    the same for 100 and 10000 runs;
#  - flatc decodes every dump with the ETDump schema: one Execute block, the
#    sketches RunData without events;
#  - the STATS debug dumps (ETDumpGen, native) decoded by flatc, their
#    values read from the debug buffer, equal numpy's reductions of the
#    tensors the app logged (check_stats_values.py).
# -DAPP=... -DETKIT=... -DWORK=... -DFLATC=... (empty: fails under
# CI=true, else those checks are skipped) -DSCHEMA=... -DPYTHON=...
# -DCHECK_VALUES=check_stats_values.py
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${APP} ${WORK} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "upstream stats app: ok")
  message(FATAL_ERROR "app failed (${rc}):\n${out}${err}")
endif()
set(have_flatc TRUE)
if(NOT FLATC OR NOT PYTHON)
  if("$ENV{CI}" STREQUAL "true")
    message(FATAL_ERROR "flatc and python3 are required under CI=true")
  endif()
  set(have_flatc FALSE)
  message(STATUS "SKIPPED (partly): no flatc or python3, etkit inspect only")
endif()

function(flatc_json file json_var)
  execute_process(COMMAND ${FLATC} --json --strict-json --size-prefixed
                    --raw-binary -o ${WORK}/json ${SCHEMA} -- ${WORK}/${file}
                  RESULT_VARIABLE rc ERROR_VARIABLE e)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "flatc cannot decode ${file}: ${e}")
  endif()
  string(REGEX REPLACE "\\.etdp$" ".json" j ${file})
  set(${json_var} ${WORK}/json/${j} PARENT_SCOPE)
endfunction()

file(SIZE ${WORK}/full_100.etdp full_100)
foreach(kind native gen static)
  foreach(n 100 10000)
    set(f ${kind}_${n}.etdp)
    execute_process(COMMAND ${ETKIT} inspect ${WORK}/${f} --format json
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "etkit inspect ${f} failed (${rc}): ${err}")
    endif()
    string(REGEX REPLACE "[ \n]" "" flat "${out}")
    string(REGEX MATCHALL "\"count\":[0-9]+," counts "${flat}")
    string(REGEX MATCHALL "\"count\":${n}," right "${flat}")
    list(LENGTH counts nc)
    list(LENGTH right nr)
    if(NOT nc EQUAL 10 OR NOT nr EQUAL 9 OR NOT flat MATCHES
       "\"event_block_name\":\"Default\",\"event_name\":\"Method::init\",[^}]*\"count\":1,")
      message(FATAL_ERROR "${f}: ${nr} of ${nc} keys with count ${n} "
        "(expected 9 of 10, and Method::init once):\n${out}")
    endif()
    foreach(key "\"event_name\":\"Method::execute\""
            "\"event_name\":\"native_call_gt.Scalar_out\",\"instruction_id\":3,"
            "\"event_name\":\"OPERATOR_CALL\",\"instruction_id\":0,")
      string(FIND "${flat}" "${key}" at)
      if(at EQUAL -1)
        message(FATAL_ERROR "${f}: no key ${key}:\n${out}")
      endif()
    endforeach()
    if(have_flatc)
      flatc_json(${f} json)
      file(READ ${json} j)
      string(REGEX REPLACE "[ \n]" "" jf "${j}")
      string(REGEX MATCHALL "\"name\":\"Execute\"" blocks "${jf}")
      list(LENGTH blocks nb)
      if(NOT nb EQUAL 1 OR NOT jf MATCHES
         "{\"name\":\"etkit:latency_sketches=version=1,keys=10,refused=0\",\"allocators\":\\[{\"name\":\"r=0,e=[0-9]+,s=RVRLU")
        message(FATAL_ERROR "flatc: ${f}: ${nb} Execute blocks or no "
                            "sketches RunData:\n${j}")
      endif()
    endif()
  endforeach()
  file(SIZE ${WORK}/${kind}_100.etdp s100)
  file(SIZE ${WORK}/${kind}_10000.etdp s10000)
  message(STATUS "${kind}: 100 runs ${s100} B, 10000 runs ${s10000} B "
                 "(full, 100 runs: ${full_100} B)")
  if(kind STREQUAL "native")
    # a fixed duration per scope: one bucket per sketch, whatever N
    set(limit ${s100})
    set(native ${s100})
  else()
    # real clock: the sketches' occupied buckets may widen, never past 240
    # buckets (5-byte varints, base64) a key
    math(EXPR limit "${native} + 10 * 240 * 5 * 4 / 3")
  endif()
  if(s10000 GREATER limit OR NOT s10000 LESS full_100)
    message(FATAL_ERROR "${kind}: the stats dump grows with the runs: 100 "
      "runs ${s100} B, 10000 runs ${s10000} B (limit ${limit} B; full, 100 "
      "runs ${full_100} B)")
  endif()
endforeach()

foreach(kind gen native)
  set(f ${kind}_debug.etdp)
  execute_process(COMMAND ${ETKIT} inspect ${WORK}/${f} --debug_buffer_path
                    ${WORK}/${kind}_debug.bin --format tsv
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "etkit inspect ${f} failed (${rc}): ${err}")
  endif()
  if(have_flatc)
    flatc_json(${f} json)
    execute_process(COMMAND ${PYTHON} ${CHECK_VALUES} ${json}
                      ${WORK}/${kind}_debug.bin ${WORK}/${kind}_debug.txt
                      ${WORK}/${kind}_debug.tensors
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0 OR NOT out MATCHES "15 STATS vectors equal numpy's")
      message(FATAL_ERROR "${f}: STATS values (${rc}):\n${out}${err}")
    endif()
  endif()
endforeach()
message(STATUS "the long-run dumps of the upstream-style app read back")
