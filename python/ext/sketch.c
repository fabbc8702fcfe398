/*
 * sketch.c - etkit.LatencySketch: the recorder's latency sketch
 * (etkit/sketch.h) as a Python type.  The object holds one etk_sketch_t by
 * value, so its bytes (to_bytes) are exactly the C recorder's and
 * from_bytes reads what a device wrote.
 *
 * LatencySketch(relative_error=0.01)
 *   .add(value or array-like)   values in any unit (ns, ticks); NaN/inf
 *                               raise ValueError, nothing of the call added
 *   .merge(other)               exact; ValueError for another error
 *   .quantile(q)                float, within .error_bound of the value of
 *                               rank floor(q * (count - 1)); None if empty;
 *                               an array of q gives an array (NaN if empty)
 *   ==, pickle, copy            through the bytes
 *   .count .min .max .sum .relative_error .error_bound
 *   .to_bytes() / LatencySketch.from_bytes(b)
 */
#include "ext.h"

#define NO_IMPORT_ARRAY
#define PY_ARRAY_UNIQUE_SYMBOL etkit_ARRAY_API
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#include <math.h>
#include <string.h>

#include "etkit/sketch.h"

typedef struct {
  PyObject_HEAD etk_sketch_t s;
} sketch_object_t;

static PyTypeObject sketch_type;

static int sketch_init(PyObject *self, PyObject *args, PyObject *kw) {
  static char *names[] = {"relative_error", NULL};
  double a = ETK_SKETCH_DEFAULT_RELATIVE_ERROR;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|d", names, &a)) return -1;
  if (etk_sketch_init(&((sketch_object_t *)self)->s, a) != ETK_OK) {
    char text[96];
    snprintf(text, sizeof text, "relative_error must lie in [%g, %g], got %g",
             ETK_SKETCH_MIN_RELATIVE_ERROR, ETK_SKETCH_MAX_RELATIVE_ERROR, a);
    PyErr_SetString(PyExc_ValueError, text);
    return -1;
  }
  return 0;
}

static PyObject *sketch_add(PyObject *self, PyObject *arg) {
  etk_sketch_t *s = &((sketch_object_t *)self)->s;
  PyArrayObject *arr = (PyArrayObject *)PyArray_FROMANY(
      arg, NPY_DOUBLE, 0, 0, NPY_ARRAY_CARRAY_RO | NPY_ARRAY_FORCECAST);
  if (!arr) return NULL;
  const double *v = (const double *)PyArray_DATA(arr);
  npy_intp n = PyArray_SIZE(arr);
  for (npy_intp i = 0; i < n; i++)
    if (!(v[i] == v[i] && v[i] - v[i] == 0.0)) {
      Py_DECREF(arr);
      PyErr_SetString(PyExc_ValueError,
                      "LatencySketch.add: NaN or infinite value");
      return NULL;
    }
  for (npy_intp i = 0; i < n; i++) etk_sketch_add(s, v[i]);
  Py_DECREF(arr);
  Py_RETURN_NONE;
}

static PyObject *sketch_merge(PyObject *self, PyObject *other) {
  if (!PyObject_TypeCheck(other, &sketch_type)) {
    PyErr_SetString(PyExc_TypeError, "merge() takes a LatencySketch");
    return NULL;
  }
  int rc = etk_sketch_merge(&((sketch_object_t *)self)->s,
                            &((sketch_object_t *)other)->s);
  if (rc == ETK_E_MISMATCH) {
    PyErr_SetString(PyExc_ValueError,
                    "merge(): the sketches have different relative errors");
    return NULL;
  }
  Py_RETURN_NONE;
}

/* One quantile into *out; 0, 1 when the sketch is empty, -1 with an error
 * set. */
static int quantile_one(const etk_sketch_t *s, double q, double *out) {
  int rc = etk_sketch_quantile(s, q, out);
  if (rc == ETK_E_NOT_FOUND) return 1;
  if (rc == ETK_OK) return 0;
  char text[80];
  snprintf(text, sizeof text, "quantile(): q must lie in [0, 1], got %g", q);
  PyErr_SetString(PyExc_ValueError, text);
  return -1;
}

/* quantile(q): a float (None if empty) for a scalar q; a float64 array of
 * the same shape for an array-like q (NaN where the sketch is empty). */
static PyObject *sketch_quantile(PyObject *self, PyObject *arg) {
  const etk_sketch_t *s = &((sketch_object_t *)self)->s;
  double out;
  if (PyFloat_Check(arg) || PyLong_Check(arg) ||
      PyArray_IsScalar(arg, Number)) {
    double q = PyFloat_AsDouble(arg);
    if (q == -1.0 && PyErr_Occurred()) return NULL;
    int rc = quantile_one(s, q, &out);
    if (rc < 0) return NULL;
    if (rc > 0) Py_RETURN_NONE;
    return PyFloat_FromDouble(out);
  }
  PyArrayObject *qs = (PyArrayObject *)PyArray_FROMANY(
      arg, NPY_DOUBLE, 0, 0, NPY_ARRAY_CARRAY_RO | NPY_ARRAY_FORCECAST);
  if (!qs) return NULL;
  PyArrayObject *res = (PyArrayObject *)PyArray_SimpleNew(
      PyArray_NDIM(qs), PyArray_DIMS(qs), NPY_DOUBLE);
  if (!res) {
    Py_DECREF(qs);
    return NULL;
  }
  const double *q = (const double *)PyArray_DATA(qs);
  double *r = (double *)PyArray_DATA(res);
  for (npy_intp i = 0; i < PyArray_SIZE(qs); i++) {
    int rc = quantile_one(s, q[i], &r[i]);
    if (rc < 0) {
      Py_DECREF(qs);
      Py_DECREF(res);
      return NULL;
    }
    if (rc > 0) r[i] = NAN;
  }
  Py_DECREF(qs);
  return (PyObject *)res;
}

static PyObject *sketch_to_bytes(PyObject *self, PyObject *unused) {
  (void)unused;
  uint8_t buf[ETK_SKETCH_MAX_BYTES];
  size_t n = 0;
  etk_sketch_serialize(&((sketch_object_t *)self)->s, buf, sizeof buf, &n);
  return PyBytes_FromStringAndSize((const char *)buf, (Py_ssize_t)n);
}

static PyObject *sketch_from_bytes(PyObject *cls, PyObject *arg) {
  Py_buffer view;
  if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
  PyObject *obj = PyObject_CallObject(cls, NULL);
  if (!obj) {
    PyBuffer_Release(&view);
    return NULL;
  }
  size_t used = 0;
  int rc = etk_sketch_deserialize(&((sketch_object_t *)obj)->s, view.buf,
                                  (size_t)view.len, &used);
  size_t len = (size_t)view.len;
  PyBuffer_Release(&view);
  if (rc != ETK_OK || used != len) {
    Py_DECREF(obj);
    PyErr_Format(PyExc_ValueError, "LatencySketch.from_bytes: %s",
                 rc != ETK_OK ? etk_strerror(rc) : "bytes follow the sketch");
    return NULL;
  }
  return obj;
}

#define GETTER(name, expr)                                     \
  static PyObject *get_##name(PyObject *self, void *closure) { \
    (void)closure;                                             \
    const etk_sketch_t *s = &((sketch_object_t *)self)->s;     \
    return expr;                                               \
  }
GETTER(count, PyLong_FromUnsignedLongLong(etk_sketch_count(s)))
GETTER(sum, PyFloat_FromDouble(etk_sketch_sum(s)))
GETTER(relative_error, PyFloat_FromDouble(etk_sketch_relative_error(s)))
GETTER(error_bound, PyFloat_FromDouble(etk_sketch_error_bound(s)))
static PyObject *get_min(PyObject *self, void *closure) {
  (void)closure;
  const etk_sketch_t *s = &((sketch_object_t *)self)->s;
  if (etk_sketch_count(s) == 0) Py_RETURN_NONE;
  return PyFloat_FromDouble(etk_sketch_min(s));
}
static PyObject *get_max(PyObject *self, void *closure) {
  (void)closure;
  const etk_sketch_t *s = &((sketch_object_t *)self)->s;
  if (etk_sketch_count(s) == 0) Py_RETURN_NONE;
  return PyFloat_FromDouble(etk_sketch_max(s));
}

/* pickle and copy: LatencySketch.from_bytes(to_bytes()) */
static PyObject *sketch_reduce(PyObject *self, PyObject *unused) {
  PyObject *bytes = sketch_to_bytes(self, unused);
  if (!bytes) return NULL;
  PyObject *ctor =
      PyObject_GetAttrString((PyObject *)Py_TYPE(self), "from_bytes");
  if (!ctor) {
    Py_DECREF(bytes);
    return NULL;
  }
  return Py_BuildValue("(N(N))", ctor, bytes);
}

/* Two sketches are equal when their bytes are: the same relative error,
 * the same counts in every bucket, the same count, sum, min and max. */
static PyObject *sketch_richcompare(PyObject *a, PyObject *b, int op) {
  if ((op != Py_EQ && op != Py_NE) || !PyObject_TypeCheck(b, &sketch_type))
    Py_RETURN_NOTIMPLEMENTED;
  PyObject *x = sketch_to_bytes(a, NULL),
           *y = x ? sketch_to_bytes(b, NULL) : NULL;
  PyObject *r = y ? PyObject_RichCompare(x, y, op) : NULL;
  Py_XDECREF(x);
  Py_XDECREF(y);
  return r;
}

static PyObject *sketch_repr(PyObject *self) {
  const etk_sketch_t *s = &((sketch_object_t *)self)->s;
  char text[128];
  snprintf(text, sizeof text, "LatencySketch(count=%llu, relative_error=%g)",
           (unsigned long long)etk_sketch_count(s),
           etk_sketch_relative_error(s));
  return PyUnicode_FromString(text);
}

static PyMethodDef sketch_methods[] = {
    {"add", sketch_add, METH_O, "add a value or an array of values"},
    {"merge", sketch_merge, METH_O, "add every value of another sketch"},
    {"quantile", sketch_quantile, METH_O, "the q-quantile (None if empty)"},
    {"to_bytes", sketch_to_bytes, METH_NOARGS, "the recorder's ETKS bytes"},
    {"from_bytes", sketch_from_bytes, METH_O | METH_CLASS,
     "a sketch from ETKS bytes"},
    {"__reduce__", sketch_reduce, METH_NOARGS, "pickle through the bytes"},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef sketch_getset[] = {
    {"count", get_count, NULL, "values added (exact)", NULL},
    {"min", get_min, NULL, "smallest value (exact; None if empty)", NULL},
    {"max", get_max, NULL, "largest value (exact; None if empty)", NULL},
    {"sum", get_sum, NULL, "sum of the values", NULL},
    {"relative_error", get_relative_error, NULL, "configured error", NULL},
    {"error_bound", get_error_bound, NULL,
     "bound the quantiles meet now (grows past two decades)", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject sketch_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "etkit.LatencySketch",
    .tp_basicsize = sizeof(sketch_object_t),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc =
        "LatencySketch(relative_error=0.01): a mergeable latency "
        "sketch with a relative-error bound (the recorder's)",
    .tp_new = PyType_GenericNew,
    .tp_init = sketch_init,
    .tp_repr = sketch_repr,
    .tp_richcompare = sketch_richcompare,
    .tp_hash = PyObject_HashNotImplemented,
    .tp_methods = sketch_methods,
    .tp_getset = sketch_getset,
};

int ext_sketch_register(PyObject *module) {
  if (PyType_Ready(&sketch_type) < 0) return -1;
  Py_INCREF(&sketch_type);
  if (PyModule_AddObject(module, "LatencySketch", (PyObject *)&sketch_type) <
      0) {
    Py_DECREF(&sketch_type);
    return -1;
  }
  return 0;
}
