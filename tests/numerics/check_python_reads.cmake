# check_python_reads.cmake - etkit writes a torch.save archive; Python's
# zipfile + pickle (with fake torch modules, torch_archive_tool.py) must
# read it back to the expected values.
#   -DWRITER=<write_sample_archive> -DPYTHON=<python3> -DTOOL=<tool.py>
#   -DOUT=<dir>
execute_process(COMMAND ${WRITER} ${OUT}/sample.pt ${OUT}/sample.expected
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "write_sample_archive failed")
endif()
execute_process(COMMAND ${PYTHON} ${TOOL} dump ${OUT}/sample.pt
  RESULT_VARIABLE rc OUTPUT_VARIABLE got ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "Python could not read etkit's archive:\n${err}")
endif()
file(READ ${OUT}/sample.expected want)
if(NOT got STREQUAL want)
  file(WRITE ${OUT}/sample.actual "${got}")
  message(FATAL_ERROR "Python read other values (see ${OUT}/sample.actual)")
endif()
