# check_report_screenshot.cmake: `etkit report` in a real browser.  Renders
# the demo's report in headless Chromium at a laptop size (1366 x 900):
# a screenshot must come out, and the page must not scroll sideways (a
# copy of the page with one added script reports its scroll width in the
# title, read back with --dump-dom).  Prints "SKIPPED: ..." (the test's
# SKIP_REGULAR_EXPRESSION) when no browser is installed.
#   -DETKIT=<etkit> -DDIR=<scratch dir> [-DBROWSER=<chromium>]
if(NOT BROWSER)
  find_program(BROWSER NAMES chromium chromium-browser google-chrome
               google-chrome-stable)
endif()
if(NOT BROWSER)
  message("SKIPPED: no Chromium or Chrome found for the screenshot test")
  return()
endif()
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR})
execute_process(COMMAND ${ETKIT} demo --output-dir ${DIR}/d --runs 3
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "etkit demo failed: ${err}")
endif()
execute_process(COMMAND ${ETKIT} report --etdump_path ${DIR}/d/etdump.etdp
                  --etrecord_path ${DIR}/d/model.etrecord -o ${DIR}/report.html
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "etkit report failed: ${err}")
endif()
set(flags --headless --no-sandbox --disable-gpu --window-size=1366,900
    --user-data-dir=${DIR}/profile)
execute_process(COMMAND ${BROWSER} ${flags} --screenshot=${DIR}/report.png
                  file://${DIR}/report.html
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET TIMEOUT 120)
file(SIZE ${DIR}/report.png png_size)
if(NOT rc EQUAL 0 OR png_size LESS 10000)
  message(FATAL_ERROR "no screenshot of the report (${rc}, ${png_size} bytes)")
endif()
file(READ ${DIR}/report.html page)
string(REPLACE "</body>"
  "<script>document.title='W'+document.documentElement.scrollWidth+'x'+window.innerWidth</script></body>"
  page "${page}")
file(WRITE ${DIR}/measure.html "${page}")
execute_process(COMMAND ${BROWSER} ${flags} --dump-dom file://${DIR}/measure.html
                RESULT_VARIABLE rc OUTPUT_VARIABLE dom ERROR_QUIET TIMEOUT 120)
if(NOT dom MATCHES "<title>W([0-9]+)x([0-9]+)</title>")
  message(FATAL_ERROR "the browser did not measure the page (${rc})")
endif()
if(CMAKE_MATCH_1 GREATER CMAKE_MATCH_2)
  message(FATAL_ERROR "the report scrolls sideways at 1366 px: page "
                      "${CMAKE_MATCH_1} px wide, window ${CMAKE_MATCH_2} px")
endif()
message(STATUS "report fits: ${CMAKE_MATCH_1} px in ${CMAKE_MATCH_2} px; "
               "screenshot ${DIR}/report.png")
