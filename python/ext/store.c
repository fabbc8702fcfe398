/*
 * store.c - the run history (etkit/store.h) for etkit.Store: each function
 * opens the store named by its URI, does one thing and closes it again, so
 * no C object outlives a call.
 *
 *   store_add(url, path, tags, etrecord, program, run_time)
 *       -> (run_id, existed, operators, samples, digest)
 *   store_query(url, kind, name, where): kind "runs" (name unused), or
 *       "op", "module", "method" for a trend
 *   store_compare(url, baseline, candidate, op, threshold, alpha)
 *       -> {column: list}, the query's table column by column (the Python
 *          layer makes the DataFrame)
 * Tags and conditions are dicts of str to str.  Errors raise through
 * ext_raise (ValueError for bad input, OSError for the database).
 */
#include <stdlib.h>
#include <string.h>

#include "etkit/render.h"
#include "etkit/store.h"
#include "ext.h"

#define MAX_TAGS 64

/* A dict of str -> str as tags (borrowed UTF-8 pointers, valid while the
 * dict lives); -1 with an exception. */
static int tags_from(PyObject *dict, etk_store_tag_t *tags, size_t *n) {
  *n = 0;
  if (!dict || dict == Py_None) return 0;
  if (!PyDict_Check(dict)) {
    PyErr_SetString(PyExc_TypeError, "tags and conditions are a dict");
    return -1;
  }
  PyObject *k, *v;
  Py_ssize_t pos = 0;
  while (PyDict_Next(dict, &pos, &k, &v)) {
    if (*n == MAX_TAGS) {
      PyErr_SetString(PyExc_ValueError, "more than 64 tags or conditions");
      return -1;
    }
    if (!PyUnicode_Check(k) || !PyUnicode_Check(v)) {
      PyErr_SetString(PyExc_TypeError, "tag keys and values are str");
      return -1;
    }
    tags[*n].key = PyUnicode_AsUTF8(k);
    tags[*n].value = PyUnicode_AsUTF8(v);
    if (!tags[*n].key || !tags[*n].value) return -1;
    (*n)++;
  }
  return 0;
}

static etk_store_t *open_store(const char *url, unsigned flags,
                               etk_error_t *err) {
  etk_store_t *st = NULL;
  etk_error_clear(err);
  if (etk_store_open(url, flags, &st, err) != ETK_OK) {
    ext_raise(err);
    return NULL;
  }
  return st;
}

static PyObject *cell_value(const etk_cell_t *c) {
  switch (c->kind) {
    case ETK_CELL_INT:
      return PyLong_FromLongLong(c->i);
    case ETK_CELL_BOOL:
      return PyBool_FromLong((long)c->i);
    case ETK_CELL_FLOAT:
    case ETK_CELL_NAN:
      return PyFloat_FromDouble(c->f);
    case ETK_CELL_TEXT:
    case ETK_CELL_OBJECT:
      return ext_text(c->text, c->len);
    default:
      Py_RETURN_NONE;
  }
}

/* The table as {header: [values]} (the table is freed). */
static PyObject *table_dict(etk_store_table_t *t) {
  PyObject *d = PyDict_New();
  for (size_t c = 0; d && c < t->cols; c++) {
    PyObject *list = PyList_New((Py_ssize_t)t->rows);
    for (size_t r = 0; list && r < t->rows; r++) {
      PyObject *v = cell_value(&t->cells[r * t->cols + c]);
      if (!v) Py_CLEAR(list);
      if (list) PyList_SET_ITEM(list, (Py_ssize_t)r, v);
    }
    if (!list || PyDict_SetItemString(d, t->headers[c], list) < 0) Py_CLEAR(d);
    Py_XDECREF(list);
  }
  etk_store_table_free(t);
  return d;
}

static PyObject *s_add(PyObject *self, PyObject *args) {
  (void)self;
  const char *url, *path, *etrecord = NULL, *program = NULL, *when = NULL;
  PyObject *tags_obj = NULL;
  if (!PyArg_ParseTuple(args, "ssO|zzz", &url, &path, &tags_obj, &etrecord,
                        &program, &when))
    return NULL;
  int64_t run_time = 0;
  if (when && !etk_store_time_parse(when, &run_time)) {
    PyErr_Format(PyExc_ValueError,
                 "run_time needs an ISO 8601 time "
                 "(YYYY-MM-DD[THH:MM[:SS]][Z|+HH:MM]), not %.80s",
                 when);
    return NULL;
  }
  etk_store_tag_t tags[MAX_TAGS];
  etk_store_add_options_t o;
  etk_store_add_options_init(&o);
  if (tags_from(tags_obj, tags, &o.tag_count) < 0) return NULL;
  o.tags = tags;
  o.etrecord_path = etrecord;
  o.program_path = program;
  o.run_time = run_time;
  o.has_run_time = when != NULL;
  etk_error_t err;
  etk_store_t *st =
      open_store(url, ETK_STORE_CREATE | ETK_STORE_DROP_NEW_EMPTY, &err);
  if (!st) return NULL;
  etk_store_add_result_t r;
  int rc;
  Py_BEGIN_ALLOW_THREADS rc = etk_store_add(st, path, &o, &r, &err);
  Py_END_ALLOW_THREADS etk_store_close(st);
  if (rc != ETK_OK) return ext_raise(&err);
  return Py_BuildValue("(LiKKs)", (long long)r.run_id, r.existed,
                       (unsigned long long)r.operators,
                       (unsigned long long)r.samples, r.digest);
}

/* store_query(url, kind, name, where): kind "runs" lists the runs (name
 * unused); "op", "module" or "method" is the trend of that name. */
static PyObject *s_query(PyObject *self, PyObject *args) {
  (void)self;
  const char *url, *kind, *name;
  PyObject *where_obj = NULL;
  if (!PyArg_ParseTuple(args, "sssO", &url, &kind, &name, &where_obj))
    return NULL;
  int runs = strcmp(kind, "runs") == 0, show = strcmp(kind, "show") == 0;
  etk_store_trend_kind_t k =
      strcmp(kind, "module") == 0   ? ETK_STORE_TREND_MODULE
      : strcmp(kind, "method") == 0 ? ETK_STORE_TREND_METHOD
                                    : ETK_STORE_TREND_OP;
  etk_store_tag_t conds[MAX_TAGS];
  etk_store_where_t w = {conds, 0};
  if (tags_from(where_obj, conds, &w.count) < 0) return NULL;
  etk_error_t err;
  etk_store_t *st = open_store(url, ETK_STORE_READ_ONLY, &err);
  if (!st) return NULL;
  etk_store_table_t t;
  int rc = runs   ? etk_store_runs(st, &w, &t, &err)
           : show ? etk_store_show(st, strtoll(name, NULL, 10), &t, &err)
                  : etk_store_trend(st, k, name, &w, &t, &err);
  etk_store_close(st);
  return rc == ETK_OK ? table_dict(&t) : ext_raise(&err);
}

static PyObject *s_compare(PyObject *self, PyObject *args) {
  (void)self;
  const char *url, *op = NULL;
  PyObject *base_obj, *cand_obj;
  etk_change_rule_t rule;
  etk_change_rule_init(&rule);
  if (!PyArg_ParseTuple(args, "sOO|zdd", &url, &base_obj, &cand_obj, &op,
                        &rule.min_pct, &rule.alpha))
    return NULL;
  etk_store_tag_t b[MAX_TAGS], c[MAX_TAGS];
  etk_store_where_t wb = {b, 0}, wc = {c, 0};
  if (tags_from(base_obj, b, &wb.count) < 0 ||
      tags_from(cand_obj, c, &wc.count) < 0)
    return NULL;
  etk_error_t err;
  etk_store_t *st = open_store(url, ETK_STORE_READ_ONLY, &err);
  if (!st) return NULL;
  etk_store_comparison_t cmp;
  int rc;
  etk_store_ops_t ops = {op, 0, 0, 0};
  Py_BEGIN_ALLOW_THREADS rc =
      etk_store_compare(st, &wb, &wc, &ops, &rule, &cmp, &err);
  Py_END_ALLOW_THREADS etk_store_close(st);
  if (rc != ETK_OK) return ext_raise(&err);
  etk_store_table_t t;
  rc = etk_store_comparison_table(&cmp, &t, &err);
  etk_store_comparison_free(&cmp);
  return rc == ETK_OK ? table_dict(&t) : ext_raise(&err);
}

/* The text a render wrote into a memory sink, as str (NULL + error set). */
static PyObject *sink_text(etk_render_sink_t *sink, int rc,
                           const etk_error_t *err) {
  size_t n = 0;
  char *text = etk_render_sink_take(sink, &n);
  if (rc != ETK_OK) {
    free(text);
    return ext_raise(err);
  }
  PyObject *out =
      PyUnicode_DecodeUTF8(text ? text : "", (Py_ssize_t)n, "replace");
  free(text);
  return out;
}

/* store_export(url, format, where): "csv", "json" or "v3" text. */
static PyObject *s_export(PyObject *self, PyObject *args) {
  (void)self;
  const char *url, *format;
  PyObject *where_obj;
  if (!PyArg_ParseTuple(args, "ssO", &url, &format, &where_obj)) return NULL;
  etk_store_export_format_t f =
      strcmp(format, "json") == 0 ? ETK_STORE_EXPORT_JSON
      : strcmp(format, "v3") == 0 ? ETK_STORE_EXPORT_V3
                                  : ETK_STORE_EXPORT_CSV;
  etk_store_tag_t conds[MAX_TAGS];
  etk_store_where_t w = {conds, 0};
  if (tags_from(where_obj, conds, &w.count) < 0) return NULL;
  etk_error_t err;
  etk_store_t *st = open_store(url, ETK_STORE_READ_ONLY, &err);
  if (!st) return NULL;
  etk_render_sink_t sink;
  etk_render_sink_init_memory(&sink);
  int rc;
  Py_BEGIN_ALLOW_THREADS rc = etk_store_export(st, &w, f, &sink, &err);
  Py_END_ALLOW_THREADS etk_store_close(st);
  return sink_text(&sink, rc, &err);
}

/* store_report(url, baseline, candidate, markdown, threshold, alpha). */
static PyObject *s_report(PyObject *self, PyObject *args) {
  (void)self;
  const char *url;
  PyObject *base_obj, *cand_obj;
  int markdown;
  etk_change_rule_t rule;
  etk_change_rule_init(&rule);
  if (!PyArg_ParseTuple(args, "sOOpdd", &url, &base_obj, &cand_obj, &markdown,
                        &rule.min_pct, &rule.alpha))
    return NULL;
  etk_store_tag_t b[MAX_TAGS], c[MAX_TAGS];
  etk_store_where_t wb = {b, 0}, wc = {c, 0};
  if (tags_from(base_obj, b, &wb.count) < 0 ||
      tags_from(cand_obj, c, &wc.count) < 0)
    return NULL;
  etk_error_t err;
  etk_store_t *st = open_store(url, ETK_STORE_READ_ONLY, &err);
  if (!st) return NULL;
  etk_render_sink_t sink;
  etk_render_sink_init_memory(&sink);
  int rc;
  Py_BEGIN_ALLOW_THREADS rc = etk_store_report(
      st, &wb, &wc, &rule,
      markdown ? ETK_STORE_REPORT_MARKDOWN : ETK_STORE_REPORT_HTML, &sink,
      &err);
  Py_END_ALLOW_THREADS etk_store_close(st);
  return sink_text(&sink, rc, &err);
}

/* store_prune(url, where, keep_last): the number of runs deleted. */
static PyObject *s_prune(PyObject *self, PyObject *args) {
  (void)self;
  const char *url;
  PyObject *where_obj;
  unsigned long long keep_last;
  if (!PyArg_ParseTuple(args, "sOK", &url, &where_obj, &keep_last)) return NULL;
  etk_store_tag_t conds[MAX_TAGS];
  etk_store_where_t w = {conds, 0};
  if (tags_from(where_obj, conds, &w.count) < 0) return NULL;
  etk_error_t err;
  etk_store_t *st = open_store(url, 0, &err);
  if (!st) return NULL;
  size_t deleted = 0;
  int rc;
  Py_BEGIN_ALLOW_THREADS rc =
      etk_store_prune(st, &w, (size_t)keep_last, &deleted, &err);
  Py_END_ALLOW_THREADS etk_store_close(st);
  if (rc != ETK_OK) return ext_raise(&err);
  return PyLong_FromSize_t(deleted);
}

/* store_redact(url): the url with its password replaced by "***". */
static PyObject *s_redact(PyObject *self, PyObject *args) {
  (void)self;
  const char *url;
  if (!PyArg_ParseTuple(args, "s", &url)) return NULL;
  char out[4096];
  etk_store_redact(url, out, sizeof out);
  return PyUnicode_FromString(out);
}

static PyMethodDef store_functions[] = {
    {"store_add", s_add, METH_VARARGS, NULL},
    {"store_redact", s_redact, METH_VARARGS, NULL},
    {"store_export", s_export, METH_VARARGS, NULL},
    {"store_report", s_report, METH_VARARGS, NULL},
    {"store_prune", s_prune, METH_VARARGS, NULL},
    {"store_query", s_query, METH_VARARGS, NULL},
    {"store_compare", s_compare, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};

int ext_store_register(PyObject *module) {
  return PyModule_AddFunctions(module, store_functions);
}
