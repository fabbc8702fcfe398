# check_store_demo.cmake - `etkit store` on the demo's files, where its
# figures can be checked against the inspector's: `store trend --module M`
# per execution equals `inspect --by-module`'s total for every module (a
# kernel and its OPERATOR_CALL wrapper hold the same time and count once);
# `store report`'s plots measured in headless Chromium (measure_plots.js).
# -DETKIT=<etkit> -DDIR=<scratch dir>
include(${CMAKE_CURRENT_LIST_DIR}/demo_fixture.cmake)
set(DB ${DIR}/runs.db)
run(0 store add ${DB} ${E} --etrecord ${R} --tag commit=a)
run(0 inspect --etdump_path ${E} --etrecord_path ${R} --by-module --format csv)
string(REPLACE "\n" ";" rows "${out}")
set(checked 0)
foreach(row IN LISTS rows)
  string(REPLACE "," ";" cells "${row}")
  list(LENGTH cells n)
  if(n LESS 7)
    continue()
  endif()
  list(GET cells 2 depth)
  list(GET cells 3 module)
  list(GET cells 6 total)
  if(NOT depth STREQUAL "1")
    continue()
  endif()
  run(0 store trend ${DB} --module ${module} --format csv)
  string(STRIP "${out}" trend)
  string(REPLACE "\n" ";" trend "${trend}")
  list(GET trend 1 line)
  string(REPLACE "," ";" line "${line}")
  list(GET line 8 per_execution) # the ninth column: per_execution
  if(NOT per_execution STREQUAL total)
    message(FATAL_ERROR "module ${module}: store trend says ${per_execution} ms "
                        "per execution, inspect --by-module ${total} ms")
  endif()
  math(EXPR checked "${checked} + 1")
endforeach()
if(checked LESS 5)
  message(FATAL_ERROR "only ${checked} modules compared:\n${out}")
endif()
# a misspelled module is trouble (2) naming the closest
run(2 store trend ${DB} --module conv)
if(NOT err MATCHES "closest: conv1, conv2")
  message(FATAL_ERROR "trend --module conv: ${err}")
endif()

# `store report`'s plots in a real browser: baseline and candidate drawn as
# series (a dot per run), an x axis of run ids, a y axis with its unit, a
# legend whose items do not overlap.
foreach(i 1 2 3 4)
  run(0 run ${P} --etdump ${DIR}/run${i}.etdp --iterations 3)
endforeach()
run(0 store add ${DB} ${DIR}/run1.etdp ${DIR}/run2.etdp --etrecord ${R}
    --tag side=base)
run(0 store add ${DB} ${DIR}/run3.etdp ${DIR}/run4.etdp --tag side=cand)
# v3 records name the program's method (forward), not the event block
run(0 store export ${DB} --format v3 --where side=base)
if(NOT out MATCHES "\"method\": \"forward\"" OR out MATCHES "\"method\": \"Execute\"")
  message(FATAL_ERROR "v3 export's method is not the program's method")
endif()
run(0 store report ${DB} --baseline side=base --candidate side=cand
    -o ${DIR}/report.html)
find_program(BROWSER NAMES chromium chromium-browser google-chrome
             google-chrome-stable)
if(NOT BROWSER)
  message("SKIPPED: no Chromium or Chrome found for the report's plots")
  return()
endif()
set(flags --headless --no-sandbox --disable-gpu --window-size=1000,1400
    --user-data-dir=${DIR}/profile)
execute_process(COMMAND ${BROWSER} ${flags} --screenshot=${DIR}/report.png
                  file://${DIR}/report.html
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET TIMEOUT 120)
file(SIZE ${DIR}/report.png png_size)
if(NOT rc EQUAL 0 OR png_size LESS 10000)
  message(FATAL_ERROR "no screenshot of the store report (${rc}, ${png_size} bytes)")
endif()
file(READ ${DIR}/report.html page)
file(READ ${CMAKE_CURRENT_LIST_DIR}/measure_plots.js js)
string(REPLACE "</body>" "<script>${js}</script></body>" page "${page}")
file(WRITE ${DIR}/measure.html "${page}")
execute_process(COMMAND ${BROWSER} ${flags} --dump-dom file://${DIR}/measure.html
                RESULT_VARIABLE rc OUTPUT_VARIABLE dom ERROR_QUIET TIMEOUT 120)
if(NOT dom MATCHES "<title>S([0-9:,]+)</title>")
  message(FATAL_ERROR "the browser did not measure the report (${rc})")
endif()
string(REPLACE "," ";" plots "${CMAKE_MATCH_1}")
list(LENGTH plots nplots)
if(nplots LESS 3)
  message(FATAL_ERROR "the store report has ${nplots} plots: ${CMAKE_MATCH_1}")
endif()
list(POP_BACK plots series) # the run series: one series
foreach(p IN LISTS plots)
  # two series with a dot per run (2 + 2) and two in the legend, no overlap
  if(NOT p MATCHES "^2:([0-9]+):0:1:1$" OR CMAKE_MATCH_1 LESS 6)
    message(FATAL_ERROR "a trend plot of the store report: ${p} "
                        "(series:dots:overlaps:unit:x title)")
  endif()
endforeach()
if(NOT series MATCHES "^1:[1-9][0-9]*:0:1:1$")
  message(FATAL_ERROR "the run series plot of the store report: ${series}")
endif()
