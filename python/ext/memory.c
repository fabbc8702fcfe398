/*
 * memory.c - etkit.memory_plan: the memory plan of a program
 * (etkit/memory_plan.h) as columns the Python layer turns into DataFrames.
 *
 * _etkit.memory_plan(path, method, etrecord) returns a dict:
 *   method, num_instructions, num_chains, backward_jumps, overlap_total,
 *   overlaps_truncated: scalars as `etkit memory --format json` writes them;
 *   buffers, tensors, overlaps: {column: list}, one list entry per row, in
 *   the JSON's order, with None where the JSON has null;
 *   problems: the lines `etkit memory --check` prints; notes: what naming
 *   from the ETRecord could not do; table: the text `etkit memory` prints.
 * The plan is freed before returning: nothing of the C side stays alive.
 */
#include <stdlib.h>
#include <string.h>

#include "etkit/memory_plan.h"
#include "etkit/scalar_type.h"
#include "ext.h"

/* A column: a new list of n entries. */
typedef struct {
  const char *name;
  PyObject *list;
} column_t;

static PyObject *lifetime(int64_t v) {
  if (v < 0) Py_RETURN_NONE;
  return PyLong_FromLongLong(v);
}

static PyObject *text(const char *s) {
  return ext_text(s ? s : "", s ? strlen(s) : 0);
}

/* Moves columns[0..n) into a new dict (each list stolen); NULL on error. */
static PyObject *columns_dict(column_t *columns, size_t n) {
  PyObject *d = PyDict_New();
  for (size_t i = 0; d && i < n; i++)
    if (PyDict_SetItemString(d, columns[i].name, columns[i].list) < 0)
      Py_CLEAR(d);
  for (size_t i = 0; i < n; i++) Py_CLEAR(columns[i].list);
  return d;
}

/* Creates the lists of `columns` (rows entries each); 0 or -1. */
static int columns_new(column_t *columns, size_t n, size_t rows) {
  for (size_t i = 0; i < n; i++) {
    columns[i].list = PyList_New((Py_ssize_t)rows);
    if (!columns[i].list) {
      for (size_t k = 0; k < i; k++) Py_CLEAR(columns[k].list);
      return -1;
    }
  }
  return 0;
}

/* Sets row `row` of columns[0..n) from values[0..n) (stolen); -1 when one
 * of them is NULL (the others are released, and so are the columns). */
static int columns_set(column_t *columns, size_t n, size_t row,
                       PyObject **values) {
  int ok = 1;
  for (size_t i = 0; i < n; i++) ok = ok && values[i];
  for (size_t i = 0; i < n; i++) {
    if (ok)
      PyList_SET_ITEM(columns[i].list, (Py_ssize_t)row, values[i]);
    else
      Py_XDECREF(values[i]);
  }
  if (ok) return 0;
  for (size_t i = 0; i < n; i++) Py_CLEAR(columns[i].list);
  return -1;
}

#define BUFFER_COLUMNS 7
static PyObject *buffer_columns(const etk_memory_plan_t *p) {
  column_t c[BUFFER_COLUMNS] = {
      {"mem_id", NULL},           {"size", NULL},        {"peak_bytes", NULL},
      {"peak_instruction", NULL}, {"utilisation", NULL}, {"tensor_count", NULL},
      {"used_end", NULL}};
  if (columns_new(c, BUFFER_COLUMNS, p->buffer_count) < 0) return NULL;
  for (size_t k = 0; k < p->buffer_count; k++) {
    const etk_memory_plan_buffer_t *b = &p->buffers[k];
    PyObject *v[BUFFER_COLUMNS] = {
        PyLong_FromUnsignedLong(b->mem_id),
        PyLong_FromUnsignedLongLong(b->size),
        PyLong_FromUnsignedLongLong(b->peak_bytes),
        lifetime(b->peak_instruction),
        /* the JSON renderer's definition */
        PyFloat_FromDouble(b->size ? (double)b->peak_bytes / (double)b->size
                                   : 0.0),
        PyLong_FromUnsignedLongLong(b->tensor_count),
        PyLong_FromUnsignedLongLong(b->used_end)};
    if (columns_set(c, BUFFER_COLUMNS, k, v) < 0) return NULL;
  }
  return columns_dict(c, BUFFER_COLUMNS);
}

static PyObject *sizes_list(const etk_memory_plan_tensor_t *t) {
  PyObject *l = PyList_New((Py_ssize_t)t->dim);
  for (uint32_t i = 0; l && i < t->dim; i++) {
    PyObject *v = PyLong_FromLong((long)t->sizes[i]);
    if (!v) {
      Py_CLEAR(l);
      break;
    }
    PyList_SET_ITEM(l, (Py_ssize_t)i, v);
  }
  return l;
}

#define TENSOR_COLUMNS 15
static PyObject *tensor_columns(const etk_memory_plan_t *p) {
  column_t c[TENSOR_COLUMNS] = {
      {"value", NULL},    {"mem_id", NULL},    {"offset", NULL},
      {"nbytes", NULL},   {"first", NULL},     {"last", NULL},
      {"dtype", NULL},    {"sizes", NULL},     {"op", NULL},
      {"name", NULL},     {"module", NULL},    {"source", NULL},
      {"is_input", NULL}, {"is_output", NULL}, {"alias_of", NULL}};
  if (columns_new(c, TENSOR_COLUMNS, p->tensor_count) < 0) return NULL;
  for (size_t k = 0; k < p->tensor_count; k++) {
    const etk_memory_plan_tensor_t *t = &p->tensors[k];
    PyObject *v[TENSOR_COLUMNS] = {PyLong_FromUnsignedLong(t->value),
                                   PyLong_FromUnsignedLong(t->mem_id),
                                   PyLong_FromUnsignedLongLong(t->offset),
                                   PyLong_FromUnsignedLongLong(t->nbytes),
                                   lifetime(t->first),
                                   lifetime(t->last),
                                   text(etk_scalar_type_name(t->scalar_type)),
                                   sizes_list(t),
                                   text(t->op),
                                   text(t->name),
                                   text(t->module),
                                   text(t->source),
                                   PyBool_FromLong(t->is_input),
                                   PyBool_FromLong(t->is_output),
                                   lifetime(t->alias_of)};
    if (columns_set(c, TENSOR_COLUMNS, k, v) < 0) return NULL;
  }
  PyObject *d = columns_dict(c, TENSOR_COLUMNS);
  /* `invalid` last, as in the JSON */
  PyObject *invalid = d ? PyList_New((Py_ssize_t)p->tensor_count) : NULL;
  for (size_t k = 0; invalid && k < p->tensor_count; k++)
    PyList_SET_ITEM(invalid, (Py_ssize_t)k,
                    PyBool_FromLong(p->tensors[k].invalid));
  if (!invalid || PyDict_SetItemString(d, "invalid", invalid) < 0) Py_CLEAR(d);
  Py_XDECREF(invalid);
  return d;
}

#define OVERLAP_COLUMNS 8
static PyObject *overlap_columns(const etk_memory_plan_t *p) {
  column_t c[OVERLAP_COLUMNS] = {{"a", NULL},          {"b", NULL},
                                 {"kind", NULL},       {"mem_id", NULL},
                                 {"byte_start", NULL}, {"byte_end", NULL},
                                 {"first", NULL},      {"last", NULL}};
  if (columns_new(c, OVERLAP_COLUMNS, p->overlap_count) < 0) return NULL;
  for (size_t k = 0; k < p->overlap_count; k++) {
    const etk_memory_plan_overlap_t *o = &p->overlaps[k];
    PyObject *v[OVERLAP_COLUMNS] = {PyLong_FromUnsignedLong(o->a),
                                    PyLong_FromUnsignedLong(o->b),
                                    PyUnicode_FromString("unsafe"),
                                    PyLong_FromUnsignedLong(o->mem_id),
                                    PyLong_FromUnsignedLongLong(o->byte_start),
                                    PyLong_FromUnsignedLongLong(o->byte_end),
                                    PyLong_FromLongLong(o->first),
                                    PyLong_FromLongLong(o->last)};
    if (columns_set(c, OVERLAP_COLUMNS, k, v) < 0) return NULL;
  }
  return columns_dict(c, OVERLAP_COLUMNS);
}

/* The problem lines of `--check` and the table, as str objects. */
static int plan_texts(const etk_memory_plan_t *p, PyObject **problems,
                      PyObject **table) {
  etk_render_sink_t sink;
  etk_error_t err;
  etk_error_clear(&err);
  etk_render_sink_init_memory(&sink);
  (void)etk_memory_plan_render_problems(p, &sink);
  *problems = ext_sink_text(&sink, etk_render_sink_flush(&sink), &err);
  if (!*problems) return -1;
  etk_render_sink_init_memory(&sink);
  int rc = etk_memory_plan_render(p, ETK_MEMORY_PLAN_TABLE, 0, &sink, &err);
  *table = ext_sink_text(&sink, rc, &err);
  return *table ? 0 : -1;
}

static void note_append(void *ctx, int is_warning, const char *line) {
  (void)is_warning;
  PyObject *s = ext_text(line, strlen(line));
  if (s) PyList_Append((PyObject *)ctx, s);
  Py_XDECREF(s);
}

/* Every field of the result dict; NULL with an exception on failure. */
static PyObject *plan_dict(const etk_memory_plan_t *p, PyObject *notes) {
  PyObject *problems = NULL, *table = NULL;
  if (plan_texts(p, &problems, &table) < 0) {
    Py_XDECREF(problems);
    return NULL;
  }
  return Py_BuildValue(
      "{s:N,s:K,s:I,s:K,s:K,s:O,s:N,s:N,s:N,s:N,s:N,s:O}", "method",
      text(p->method), "num_instructions",
      (unsigned long long)p->num_instructions, "num_chains",
      (unsigned int)p->chain_count, "backward_jumps",
      (unsigned long long)p->backward_jumps, "overlap_total",
      (unsigned long long)p->overlap_total, "overlaps_truncated",
      p->overlaps_truncated ? Py_True : Py_False, "buffers", buffer_columns(p),
      "tensors", tensor_columns(p), "overlaps", overlap_columns(p), "problems",
      problems, "table", table, "notes", notes);
}

/* memory_plan(path, method or None, ETRecord handle or None) -> dict */
static PyObject *m_memory_plan(PyObject *mod, PyObject *args) {
  (void)mod;
  const char *method = NULL;
  PyObject *record = Py_None, *path_obj = NULL;
  /* a path is str, bytes or os.PathLike (never an int) */
  if (!PyArg_ParseTuple(args, "O&|zO", PyUnicode_FSConverter, &path_obj,
                        &method, &record))
    return NULL;
  if (record != Py_None && !PyObject_TypeCheck(record, &ext_etrecord_type)) {
    Py_DECREF(path_obj);
    PyErr_SetString(PyExc_TypeError, "etrecord must be an ETRecord");
    return NULL;
  }
  const char *path = PyBytes_AS_STRING(path_obj);
  etk_error_t err;
  etk_error_clear(&err);
  etk_memory_plan_t *plan = NULL;
  int rc;
  Py_BEGIN_ALLOW_THREADS rc =
      etk_memory_plan_open_file(path, method, &plan, &err);
  Py_END_ALLOW_THREADS Py_DECREF(path_obj);
  if (rc != ETK_OK) return ext_raise(&err);
  PyObject *notes = PyList_New(0), *out = NULL;
  if (notes && record != Py_None &&
      etk_memory_plan_name_from_etrecord(plan, ((ext_etrecord_t *)record)->rec,
                                         note_append, notes, &err) != ETK_OK)
    ext_raise(&err);
  else if (notes && !PyErr_Occurred())
    out = plan_dict(plan, notes);
  Py_XDECREF(notes);
  etk_memory_plan_free(plan);
  return out;
}

static PyMethodDef memory_functions[] = {
    {"memory_plan", m_memory_plan, METH_VARARGS,
     "memory_plan(path, method=None, etrecord=None) -> dict of columns"},
    {NULL, NULL, 0, NULL}};

int ext_memory_register(PyObject *module) {
  return PyModule_AddFunctions(module, memory_functions);
}
