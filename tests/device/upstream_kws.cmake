# upstream_kws.cmake - read with include() by device_run.cmake and
# device_stats.cmake: UPSTREAM_PTE, upstream's KeywordSpotting program
# (examples/arduino/examples/KeywordSpotting/model.pte of pytorch/executorch)
# as kws.pte or model.pte in the folder the environment variable
# ETKIT_UPSTREAM_EXAMPLES_DIR names (read when the test runs), else in
# UPSTREAM (the same variable at configure time); "" when neither is set.
# A folder named that holds neither file is an error.
if("$ENV{ETKIT_UPSTREAM_EXAMPLES_DIR}" STREQUAL "")
  set(UPSTREAM_DIR "${UPSTREAM}")
else()
  set(UPSTREAM_DIR "$ENV{ETKIT_UPSTREAM_EXAMPLES_DIR}")
endif()
set(UPSTREAM_PTE "")
foreach(name kws.pte model.pte)
  if(UPSTREAM_DIR AND NOT UPSTREAM_PTE AND EXISTS ${UPSTREAM_DIR}/${name})
    set(UPSTREAM_PTE ${UPSTREAM_DIR}/${name})
  endif()
endforeach()
if(UPSTREAM_DIR AND NOT UPSTREAM_PTE)
  message(FATAL_ERROR "ETKIT_UPSTREAM_EXAMPLES_DIR=${UPSTREAM_DIR} holds "
    "neither kws.pte nor model.pte")
endif()
