# check_store_without_method.cmake - `etkit store` over a dump without a
# Method::execute event (wrap.etdp): report, export and trend find no
# samples to sort, which once passed NULL to qsort/memcpy (sanitizer builds
# aborted and the report left its temporary file).  Run by every build,
# so the ASan/UBSan CI run checks it.
#   -DETKIT=<etkit> -DFIX=<analysis fixtures> -DDIR=<scratch dir>
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR})
set(DB ${DIR}/w.db)
foreach(args "store;add;${DB};${FIX}/wrap.etdp;--tag;commit=w"
        "store;report;${DB};--baseline;commit=w;--candidate;commit=w;-o;${DIR}/w.html"
        "store;report;${DB};--baseline;commit=w;--candidate;commit=w;-o;${DIR}/w.md"
        "store;export;${DB};--format;v3;-o;${DIR}/w.json"
        "store;show;${DB};1;--format;json;-o;${DIR}/show.json")
  execute_process(COMMAND ${ETKIT} ${args} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "etkit ${args}: exit ${rc}\n${out}${err}")
  endif()
endforeach()
file(GLOB left ${DIR}/*.tmp.*)
if(left OR NOT EXISTS ${DIR}/w.html)
  message(FATAL_ERROR "the report was not written whole: ${left}")
endif()
