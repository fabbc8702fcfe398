# check_graph_view_browser.cmake: a graph view page in headless Chromium.
# Makes the page (MAKE: a command, '|' between its arguments; none: PAGE
# was made by another test, a fixture), appends
# page_checks.js to a copy, loads it with --dump-dom and reads the verdict
# from the title: every node drawn once, the legend, tooltips,
# collapse/expand, search, and (A/B pages) both values in the tooltip.
# Prints "SKIPPED: ..." without a browser, and fails instead under
# CI=true.  With SCREENSHOT, also saves a 1400x900 screenshot there.
#   -DMAKE=<cmd|args> -DPAGE=<page.html> -DDIR=<scratch> -DCHECKS=<js>
#   [-DMIN_NODES=n] [-DSCREENSHOT=<png>] [-DBROWSER=<chromium>]
if(NOT BROWSER)
  find_program(BROWSER NAMES chromium chromium-browser google-chrome
               google-chrome-stable)
endif()
if(NOT BROWSER)
  if("$ENV{CI}" STREQUAL "true")
    message(FATAL_ERROR "no Chromium or Chrome found, and CI=true: the "
                        "graph view's browser test cannot be skipped")
  endif()
  message("SKIPPED: no Chromium or Chrome found for the graph view test")
  return()
endif()
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR})
if(MAKE)
  get_filename_component(page_dir ${PAGE} DIRECTORY)
  file(MAKE_DIRECTORY ${page_dir})
  file(REMOVE ${PAGE})
  string(REPLACE "|" ";" make_cmd "${MAKE}")
  execute_process(COMMAND ${make_cmd} RESULT_VARIABLE rc OUTPUT_QUIET
                  ERROR_VARIABLE err)
else()
  set(rc 0)
  set(err "")
endif()
if(NOT rc EQUAL 0 OR NOT EXISTS ${PAGE})
  message(FATAL_ERROR "no page ${PAGE} (${rc}): ${err}")
endif()
file(READ ${PAGE} page)
file(READ ${CHECKS} checks)
string(FIND "${page}" "</body>" at REVERSE)
if(at LESS 0)
  message(FATAL_ERROR "${PAGE} has no </body>")
endif()
string(SUBSTRING "${page}" 0 ${at} head)
file(WRITE ${DIR}/checked.html "${head}<script>\n${checks}</script></body></html>\n")
set(flags --headless --no-sandbox --disable-gpu --disable-quic --no-first-run
    --disable-background-networking --disable-component-update --disable-sync
    --window-size=1400,900 --user-data-dir=${DIR}/profile)
execute_process(COMMAND ${BROWSER} ${flags} --dump-dom file://${DIR}/checked.html
                RESULT_VARIABLE rc OUTPUT_VARIABLE dom ERROR_QUIET TIMEOUT 180)
if(NOT dom MATCHES "<title>(GVTEST[^<]*)</title>")
  message(FATAL_ERROR "the browser did not run the checks (${rc})")
endif()
set(verdict "${CMAKE_MATCH_1}")
if(NOT verdict MATCHES "^GVTEST ok nodes=([0-9]+)")
  message(FATAL_ERROR "${verdict}")
endif()
if(MIN_NODES AND CMAKE_MATCH_1 LESS MIN_NODES)
  message(FATAL_ERROR "only ${CMAKE_MATCH_1} nodes drawn (${MIN_NODES} expected)")
endif()
if(dom MATCHES "<pre id=\"gvtest-values\">([^<]*)</pre>")
  file(WRITE ${DIR}/values.txt "${CMAKE_MATCH_1}")
endif()
if(SCREENSHOT)
  execute_process(COMMAND ${BROWSER} ${flags} --screenshot=${SCREENSHOT}
                    file://${PAGE}
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET TIMEOUT 180)
  if(NOT EXISTS ${SCREENSHOT})
    message(FATAL_ERROR "no screenshot (${rc})")
  endif()
endif()
message(STATUS "${verdict}")
