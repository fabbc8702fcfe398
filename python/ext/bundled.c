/*
 * bundled.c - the two halves of etkit.bundled_program: bundled_write turns
 * a program's bytes and test cases into a .bpte with the C writer
 * (etk_bundled_write: every case checked against its method first), and
 * bundled_read turns a .bpte back into plain Python data (the C reader:
 * every table and tensor bounds-checked, the embedded program loaded).
 *
 * The Python layer (etkit/bundled_program/) owns the user-facing names
 * (BundledProgram, MethodTestCase, the schema dataclasses) and turns
 * numpy arrays, torch tensors and Python scalars into the value tuples
 * this file speaks:
 *
 *   ("tensor", scalar_type, sizes, dim_order, data bytes)
 *   ("int", int)   ("bool", bool)   ("float", float)
 *
 * A case is (method_name, [input values], [expected output values]).
 * Nothing is kept between calls: the writer borrows the Python objects for
 * the call, the reader copies every answer out before freeing the file.
 */
#include "ext.h"

#include <stdlib.h>
#include <string.h>

#include "etkit/program.h"

/* ------------------------------------------------------------- writing */

/* One value tuple into `t`; sizes and dim_order go to the caller's arrays
 * (ETK_PROGRAM_MAX_DIMS each).  0, or -1 with a TypeError/ValueError. */
static int value_from_tuple(PyObject *obj, etk_tensor_data_t *t, int32_t *sizes,
                            uint8_t *dim_order) {
  memset(t, 0, sizeof *t);
  const char *kind = NULL;
  PyObject *a = NULL, *b = NULL, *c = NULL, *d = NULL;
  if (!PyTuple_Check(obj) ||
      !PyArg_ParseTuple(obj, "s|OOOO", &kind, &a, &b, &c, &d)) {
    if (!PyErr_Occurred())
      PyErr_SetString(PyExc_TypeError, "a bundled value must be a tuple");
    return -1;
  }
  if (strcmp(kind, "int") == 0 && a) {
    t->tag = ETK_BUNDLED_INT;
    t->i = PyLong_AsLongLong(a);
    return PyErr_Occurred() ? -1 : 0;
  }
  if (strcmp(kind, "bool") == 0 && a) {
    t->tag = ETK_BUNDLED_BOOL;
    t->b = PyObject_IsTrue(a) == 1;
    return 0;
  }
  if (strcmp(kind, "float") == 0 && a) {
    t->tag = ETK_BUNDLED_DOUBLE;
    t->d = PyFloat_AsDouble(a);
    return PyErr_Occurred() ? -1 : 0;
  }
  if (strcmp(kind, "tensor") != 0 || !d || !PyBytes_Check(d) ||
      !PyTuple_Check(b) || !PyTuple_Check(c)) {
    PyErr_Format(PyExc_TypeError, "bad bundled value %R", obj);
    return -1;
  }
  Py_ssize_t dim = PyTuple_GET_SIZE(b);
  if (dim > ETK_PROGRAM_MAX_DIMS || PyTuple_GET_SIZE(c) != dim) {
    PyErr_Format(PyExc_ValueError,
                 "a bundled tensor has %zd sizes and %zd dim_order entries "
                 "(at most %d, and as many of each)",
                 dim, PyTuple_GET_SIZE(c), ETK_PROGRAM_MAX_DIMS);
    return -1;
  }
  t->tag = ETK_BUNDLED_TENSOR;
  t->scalar_type = (int32_t)PyLong_AsLong(a);
  if (PyErr_Occurred()) return -1;
  for (Py_ssize_t k = 0; k < dim; k++) {
    long s = PyLong_AsLong(PyTuple_GET_ITEM(b, k));
    long o = PyLong_AsLong(PyTuple_GET_ITEM(c, k));
    if (PyErr_Occurred()) return -1;
    if (s < 0 || s > INT32_MAX || o < 0 || o >= dim) {
      PyErr_Format(PyExc_ValueError, "bad bundled tensor sizes %R/%R", b, c);
      return -1;
    }
    sizes[k] = (int32_t)s;
    dim_order[k] = (uint8_t)o;
  }
  t->dim = (uint32_t)dim;
  t->sizes = sizes;
  t->dim_order = dim_order;
  t->data = PyBytes_AS_STRING(d);
  t->nbytes = (uint64_t)PyBytes_GET_SIZE(d);
  return 0;
}

/* The values of one list into a fresh array (and its shape storage). */
static int values_from_list(PyObject *list, etk_tensor_data_t **out,
                            uint32_t *count, int32_t **sizes,
                            uint8_t **orders) {
  PyObject *seq = PySequence_Fast(list, "bundled values must be a list");
  if (!seq) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  size_t m = n ? (size_t)n : 1;
  *out = PyMem_Calloc(m, sizeof **out);
  *sizes = PyMem_Calloc(m * ETK_PROGRAM_MAX_DIMS, sizeof **sizes);
  *orders = PyMem_Calloc(m * ETK_PROGRAM_MAX_DIMS, 1);
  int rc = (*out && *sizes && *orders) ? 0 : (PyErr_NoMemory(), -1);
  for (Py_ssize_t i = 0; rc == 0 && i < n; i++)
    rc = value_from_tuple(PySequence_Fast_GET_ITEM(seq, i), &(*out)[i],
                          *sizes + i * ETK_PROGRAM_MAX_DIMS,
                          *orders + i * ETK_PROGRAM_MAX_DIMS);
  *count = (uint32_t)n;
  Py_DECREF(seq);
  return rc;
}

typedef struct case_storage {
  etk_tensor_data_t *values[2];
  int32_t *sizes[2];
  uint8_t *orders[2];
} case_storage_t;

static void storage_free(case_storage_t *s, Py_ssize_t n) {
  for (Py_ssize_t i = 0; s && i < n; i++)
    for (int k = 0; k < 2; k++) {
      PyMem_Free(s[i].values[k]);
      PyMem_Free(s[i].sizes[k]);
      PyMem_Free(s[i].orders[k]);
    }
  PyMem_Free(s);
}

/* bundled_write(program bytes, [(method, inputs, expected), ...]) -> bytes */
static PyObject *m_bundled_write(PyObject *mod, PyObject *args) {
  (void)mod;
  Py_buffer pte;
  PyObject *cases_obj;
  if (!PyArg_ParseTuple(args, "y*O", &pte, &cases_obj)) return NULL;
  PyObject *cases = PySequence_Fast(cases_obj, "cases must be a list");
  if (!cases) {
    PyBuffer_Release(&pte);
    return NULL;
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(cases);
  size_t m = n ? (size_t)n : 1;
  etk_bundled_case_spec_t *specs = PyMem_Calloc(m, sizeof *specs);
  case_storage_t *store = PyMem_Calloc(m, sizeof *store);
  PyObject *result = NULL;
  int ok = specs && store;
  if (!ok) PyErr_NoMemory();
  for (Py_ssize_t i = 0; ok && i < n; i++) {
    PyObject *c = PySequence_Fast_GET_ITEM(cases, i);
    const char *name;
    PyObject *ins, *exps;
    ok = PyTuple_Check(c) && PyArg_ParseTuple(c, "sOO", &name, &ins, &exps);
    if (!ok && !PyErr_Occurred())
      PyErr_SetString(PyExc_TypeError,
                      "a case must be (method, inputs, "
                      "expected)");
    ok = ok &&
         values_from_list(ins, &store[i].values[0], &specs[i].input_count,
                          &store[i].sizes[0], &store[i].orders[0]) == 0 &&
         values_from_list(exps, &store[i].values[1], &specs[i].expected_count,
                          &store[i].sizes[1], &store[i].orders[1]) == 0;
    if (!ok) break;
    specs[i].method_name = name;
    specs[i].inputs = store[i].values[0];
    specs[i].expected = store[i].values[1];
  }
  if (ok) {
    etk_error_t err;
    etk_error_clear(&err);
    uint8_t *out = NULL;
    size_t out_len = 0;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = etk_bundled_write(
        pte.buf, (size_t)pte.len, specs, (size_t)n, &out, &out_len, &err);
    Py_END_ALLOW_THREADS if (rc != ETK_OK) ext_raise(&err);
    else result =
        PyBytes_FromStringAndSize((const char *)out, (Py_ssize_t)out_len);
    free(out);
  }
  storage_free(store, n);
  PyMem_Free(specs);
  Py_DECREF(cases);
  PyBuffer_Release(&pte);
  return result;
}

/* ------------------------------------------------------------- reading */

static PyObject *value_to_tuple(const etk_bundled_value_t *v) {
  switch (v->tag) {
    case ETK_BUNDLED_INT:
      return Py_BuildValue("(sL)", "int", (long long)v->i);
    case ETK_BUNDLED_BOOL:
      return Py_BuildValue("(sN)", "bool", PyBool_FromLong(v->b));
    case ETK_BUNDLED_DOUBLE:
      return Py_BuildValue("(sd)", "float", v->d);
    default:
      break;
  }
  PyObject *sizes = PyTuple_New((Py_ssize_t)v->dim);
  PyObject *order = PyTuple_New((Py_ssize_t)v->dim);
  for (uint32_t k = 0; sizes && order && k < v->dim; k++) {
    PyTuple_SET_ITEM(sizes, k, PyLong_FromLong(v->sizes[k]));
    PyTuple_SET_ITEM(order, k,
                     PyLong_FromLong(v->dim_order ? v->dim_order[k] : k));
  }
  if (!sizes || !order) {
    Py_XDECREF(sizes);
    Py_XDECREF(order);
    return NULL;
  }
  /* the bytes stored (upstream keeps the whole vector, padding included) */
  return Py_BuildValue("(siNNy#)", "tensor", (int)v->scalar_type, sizes, order,
                       (const char *)v->data, (Py_ssize_t)v->data_len);
}

static PyObject *values_to_list(const etk_bundled_value_t *v, uint32_t n) {
  PyObject *list = PyList_New((Py_ssize_t)n);
  for (uint32_t i = 0; list && i < n; i++) {
    PyObject *t = value_to_tuple(&v[i]);
    if (!t)
      Py_CLEAR(list);
    else
      PyList_SET_ITEM(list, i, t);
  }
  return list;
}

static PyObject *suite_to_tuple(const etk_bundled_suite_t *s) {
  PyObject *cases = PyList_New((Py_ssize_t)s->case_count);
  for (uint32_t c = 0; cases && c < s->case_count; c++) {
    const etk_bundled_case_t *k = &s->cases[c];
    PyObject *t =
        Py_BuildValue("(NN)", values_to_list(k->inputs, k->input_count),
                      values_to_list(k->expected, k->expected_count));
    if (!t)
      Py_CLEAR(cases);
    else
      PyList_SET_ITEM(cases, c, t);
  }
  const char *name = s->method_name ? s->method_name : "";
  return cases ? Py_BuildValue("(NN)", ext_text(name, strlen(name)), cases)
               : NULL;
}

/* bundled_read(bytes) -> (version, program bytes, [(method, cases)]) */
static PyObject *m_bundled_read(PyObject *mod, PyObject *args) {
  (void)mod;
  Py_buffer buf;
  if (!PyArg_ParseTuple(args, "y*", &buf)) return NULL;
  etk_error_t err;
  etk_error_clear(&err);
  etk_bundled_program_t *bp = NULL;
  int rc;
  Py_BEGIN_ALLOW_THREADS rc =
      etk_bundled_program_load(buf.buf, (size_t)buf.len, NULL, &bp, &err);
  Py_END_ALLOW_THREADS if (rc != ETK_OK) {
    PyBuffer_Release(&buf);
    return ext_raise(&err);
  }
  PyObject *suites = PyList_New((Py_ssize_t)bp->suite_count);
  for (uint32_t s = 0; suites && s < bp->suite_count; s++) {
    PyObject *t = suite_to_tuple(&bp->suites[s]);
    if (!t)
      Py_CLEAR(suites);
    else
      PyList_SET_ITEM(suites, s, t);
  }
  PyObject *result = suites ? Py_BuildValue("(kNN)", (unsigned long)bp->version,
                                            PyBytes_FromStringAndSize(
                                                (const char *)bp->program_data,
                                                (Py_ssize_t)bp->program_size),
                                            suites)
                            : NULL;
  etk_bundled_program_free(bp);
  PyBuffer_Release(&buf);
  return result;
}

static PyMethodDef bundled_functions[] = {
    {"bundled_write", m_bundled_write, METH_VARARGS,
     "bundled_write(program, cases) -> .bpte bytes"},
    {"bundled_read", m_bundled_read, METH_VARARGS,
     "bundled_read(bpte) -> (version, program, suites)"},
    {NULL, NULL, 0, NULL}};

int ext_bundled_register(PyObject *module) {
  return PyModule_AddFunctions(module, bundled_functions);
}
