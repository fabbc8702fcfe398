/*
 * graph.c - etkit.model_explorer's C side: loads an ETRecord's graph
 * (etkit/graph.h) and writes Model Explorer's graph JSON and, with an
 * Inspector, its node-data JSON of one overlay (etkit/link.h's
 * etk_graph_figures_*).  Notes the join gives (an ETDump of another
 * program) are returned as a list of strings for the Python layer to warn
 * with.
 */
#include "etkit/graph_view.h"
#include "handle.h"

typedef struct notes {
  PyObject *list;
  int failed;
} notes_t;

static void collect_note(void *ctx, int is_warning, const char *line) {
  notes_t *n = ctx;
  (void)is_warning;
  PyObject *s = ext_text(line, strlen(line));
  if (!s || PyList_Append(n->list, s) < 0) n->failed = 1;
  Py_XDECREF(s);
}

/* Node data of one overlay of `insp` (None for "memory") for `g`, written
 * to `path`: the values and unit of `etkit graph --node-data`
 * (etk_graph_view_values), so the overlay names are the CLI's. */
static int write_node_data(etk_graph_t *g, PyObject *insp_obj, const char *path,
                           const char *overlay_name, notes_t *notes,
                           const char *record_name, etk_error_t *err) {
  int rc = etk_graph_view_overlay_check(overlay_name, err);
  if (rc != ETK_OK) return ETK_E_INVALID_ARGUMENT;
  etk_graph_figures_t *f = NULL;
  if (insp_obj != Py_None) {
    const uint8_t *dbuf;
    size_t dlen;
    etk_inspector_t *insp = ext_inspector_of(insp_obj);
    ext_inspector_debug(insp_obj, &dbuf, &dlen);
    if (!insp)
      return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                           "inspector is not an etkit Inspector");
    etk_graph_figures_options_t o;
    etk_graph_figures_options_init(&o);
    o.debug_buffer = dbuf;
    o.debug_buffer_len = dlen;
    o.note = collect_note;
    o.note_ctx = notes;
    o.record_name = record_name;
    rc = etk_graph_figures_compute(g, insp, &o, &f, err);
    if (rc != ETK_OK) return rc;
  }
  size_t n = etk_graph_node_count(g);
  double *values = calloc(n ? n : 1, sizeof *values);
  bool *has = calloc(n ? n : 1, sizeof *has);
  etk_graph_view_page_t page;
  etk_graph_view_page_init(&page);
  page.overlay = overlay_name;
  page.a = f && f->linked ? f : NULL;
  const char *unit = NULL;
  if (!values || !has) {
    rc = etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  } else {
    rc = etk_graph_view_values(g, &page, values, has, NULL, &unit, err);
    etk_graph_node_data_t nd = {values, has, n, NULL, 0, NULL, unit};
    if (rc == ETK_OK) rc = etk_graph_write_node_data(g, &nd, path, err);
  }
  free(values);
  free(has);
  etk_graph_figures_free(f);
  return rc;
}

/* graph_model_explorer(etrecord_handle, graph_path, node_data_path|None,
 *                      inspector_handle|None, overlay, graph_name|None,
 *                      method|None) -> (node count, partition count, notes) */
static PyObject *graph_model_explorer(PyObject *mod, PyObject *args) {
  (void)mod;
  PyObject *rec_obj, *insp_obj;
  const char *graph_path, *data_path, *overlay, *graph_name, *method;
  if (!PyArg_ParseTuple(args, "OszOszz", &rec_obj, &graph_path, &data_path,
                        &insp_obj, &overlay, &graph_name, &method))
    return NULL;
  /* an ETRecord, or a program's path (.pte, .bpte: its instruction graph) */
  const char *program_path =
      PyUnicode_Check(rec_obj) ? PyUnicode_AsUTF8(rec_obj) : NULL;
  if (!program_path && !PyObject_TypeCheck(rec_obj, &ext_etrecord_type))
    return PyErr_Format(PyExc_TypeError,
                        "expected an ETRecord handle or a program's path");
  ext_etrecord_t *rec = program_path ? NULL : (ext_etrecord_t *)rec_obj;
  notes_t notes = {PyList_New(0), 0};
  if (!notes.list) return NULL;
  const char *record_name = program_path;
  if (rec && PyUnicode_Check(rec->path))
    record_name = PyUnicode_AsUTF8(rec->path);
  ext_program_graph_t pg = {0};
  etk_error_t err;
  etk_error_clear(&err);
  etk_graph_options_t o;
  etk_graph_options_default(&o);
  o.graph_name = graph_name;
  o.method = method;
  etk_graph_t *g = NULL;
  int rc;
  Py_BEGIN_ALLOW_THREADS;
  if (program_path) {
    rc = ext_program_graph_load(program_path, method, &pg, &err);
    g = pg.graph;
  } else {
    rc = etk_graph_load(rec->rec, &o, &g, &err);
  }
  if (rc == ETK_OK)
    rc = etk_graph_write_model_explorer(g, NULL, graph_path, &err);
  Py_END_ALLOW_THREADS;
  if (rc == ETK_OK && data_path)
    rc = write_node_data(g, insp_obj, data_path, overlay, &notes, record_name,
                         &err);
  PyObject *out = NULL;
  if (rc != ETK_OK) {
    ext_raise(&err);
  } else if (!notes.failed) {
    etk_graph_info_t info;
    etk_graph_info_get(g, &info);
    out = Py_BuildValue("(nnO)", (Py_ssize_t)info.node_count,
                        (Py_ssize_t)info.partition_count, notes.list);
  }
  if (program_path)
    ext_program_graph_free(&pg);
  else
    etk_graph_free(g);
  Py_DECREF(notes.list);
  return out;
}

static PyMethodDef graph_functions[] = {
    {"graph_model_explorer", graph_model_explorer, METH_VARARGS,
     "graph_model_explorer(etrecord, graph_path, node_data_path, inspector, "
     "overlay, graph_name, method) -> (nodes, partitions, notes)"},
    {NULL, NULL, 0, NULL}};

int ext_graph_register(PyObject *module) {
  return PyModule_AddFunctions(module, graph_functions);
}
