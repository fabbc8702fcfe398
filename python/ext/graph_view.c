/*
 * graph_view.c - _etkit.graph_html(): the graph view page of
 * Inspector.save_graph() and Inspector.graph() (docs/graph-view.md).
 *
 * graph_html(etrecord, inspector, overlay, against, fragment, title,
 *            method) -> str
 * loads the ETRecord's graph (etkit/graph.h; `etrecord` may instead be a
 * program's path, .pte or .bpte: its instruction graph), joins it with the
 * Inspector's events (etk_graph_figures_compute, etkit/link.h; with
 * `against`, a second Inspector, for the A->B change or, with the error
 * overlay, the numerical error between the two runs' debug values) and
 * writes the page (etkit/graph_view.h) into a str.  `inspector` and
 * `against` may be None; the notes of the join (an ETDump of another
 * program) come back as Python warnings from the caller's package code,
 * through the list returned with the page.
 */
#include "handle.h"

#include <string.h>

#include "etkit/graph_view.h"

typedef struct notes {
  PyObject *list;
} notes_t;

static void keep_note(void *ctx, int is_warning, const char *line) {
  notes_t *n = ctx;
  if (!n->list || !is_warning) return;
  PyObject *s = ext_text(line, strlen(line));
  if (s) {
    PyList_Append(n->list, s);
    Py_DECREF(s);
  } else {
    PyErr_Clear();
  }
}

/* Figures of `insp` (against `other` for numerical error), or NULL with
 * *rc set. */
static etk_graph_figures_t *figures_of(etk_graph_t *g, PyObject *insp,
                                       PyObject *other, notes_t *notes, int *rc,
                                       etk_error_t *err) {
  etk_graph_figures_options_t fo;
  etk_graph_figures_options_init(&fo);
  etk_inspector_t *a = ext_inspector_of(insp);
  ext_inspector_debug(insp, &fo.debug_buffer, &fo.debug_buffer_len);
  if (other) {
    fo.against = ext_inspector_of(other);
    ext_inspector_debug(other, &fo.against_buffer, &fo.against_buffer_len);
  }
  fo.note = keep_note;
  fo.note_ctx = notes;
  etk_graph_figures_t *f = NULL;
  *rc = etk_graph_figures_compute(g, a, &fo, &f, err);
  return *rc == ETK_OK ? f : NULL;
}

static PyObject *graph_html(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *rec_obj, *insp = Py_None, *against = Py_None;
  const char *overlay = NULL, *title = NULL, *method = NULL;
  int fragment = 0;
  if (!PyArg_ParseTuple(args, "OOzOp|zz", &rec_obj, &insp, &overlay, &against,
                        &fragment, &title, &method))
    return NULL;
  const char *program_path =
      PyUnicode_Check(rec_obj) ? PyUnicode_AsUTF8(rec_obj) : NULL;
  if (!program_path && !PyObject_TypeCheck(rec_obj, &ext_etrecord_type))
    return PyErr_Format(PyExc_TypeError,
                        "expected an ETRecord handle or a program's path");
  if ((insp != Py_None && !ext_inspector_of(insp)) ||
      (against != Py_None && !ext_inspector_of(against)))
    return PyErr_Format(PyExc_TypeError, "expected an Inspector handle");
  etk_error_t err;
  etk_error_clear(&err);
  if (etk_graph_view_overlay_check(overlay, &err) != ETK_OK)
    return PyErr_Format(PyExc_ValueError, "%s", err.message);
  bool error =
      overlay && (strcmp(overlay, "error") == 0 ||
                  strcmp(overlay, "mse") == 0 || strcmp(overlay, "snr") == 0);
  etk_etrecord_t *rec = program_path ? NULL : ((ext_etrecord_t *)rec_obj)->rec;
  ext_program_graph_t pg = {0};
  etk_graph_options_t go;
  etk_graph_options_default(&go);
  go.method = method;
  etk_graph_t *g = NULL;
  etk_graph_figures_t *fa = NULL, *fb = NULL;
  notes_t notes = {PyList_New(0)};
  if (!notes.list) return NULL;
  int rc = program_path
               ? ext_program_graph_load(program_path, method, &pg, &err)
               : etk_graph_load(rec, &go, &g, &err);
  if (program_path) g = pg.graph;
  PyObject *text = NULL;
  if (rc == ETK_OK && insp != Py_None)
    fa = figures_of(g, insp, error && against != Py_None ? against : NULL,
                    &notes, &rc, &err);
  if (rc == ETK_OK && against != Py_None && !error)
    fb = figures_of(g, against, NULL, &notes, &rc, &err);
  if (rc == ETK_OK) {
    etk_graph_view_page_t page;
    etk_graph_view_page_init(&page);
    page.overlay = overlay;
    page.a = fa && fa->linked ? fa : NULL;
    page.b = fb && fb->linked ? fb : NULL;
    if (fa && !page.a)
      page.view.note = program_path
                           ? "the ETDump matches nothing in this program (an "
                             "ETDump of another program?): the graph is not "
                             "coloured"
                           : "the ETDump matches nothing in this ETRecord (an "
                             "ETDump of another program?): the graph is not "
                             "coloured";
    page.view.title = title ? title : "etkit graph";
    page.view.fragment = fragment;
    page.view.label_a = "A";
    page.view.label_b = "B";
    etk_render_sink_t sink;
    etk_render_sink_init_memory(&sink);
    rc = etk_graph_view_write_graph(g, &page, &sink, &err);
    if (rc == ETK_OK) rc = etk_render_sink_flush(&sink);
    text = ext_sink_text(&sink, rc, &err);
  } else {
    ext_raise(&err);
  }
  etk_graph_figures_free(fa);
  etk_graph_figures_free(fb);
  if (program_path)
    ext_program_graph_free(&pg);
  else
    etk_graph_free(g);
  if (!text) {
    Py_DECREF(notes.list);
    return NULL;
  }
  PyObject *out = Py_BuildValue("(NN)", text, notes.list);
  return out;
}

static PyMethodDef functions[] = {
    {"graph_html", graph_html, METH_VARARGS,
     "graph_html(etrecord, inspector, overlay, against, fragment[, title, "
     "method]) -> (html, warnings)"},
    {NULL, NULL, 0, NULL}};

int ext_graph_view_register(PyObject *module) {
  return PyModule_AddFunctions(module, functions);
}
