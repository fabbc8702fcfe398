/*
 * tensor_stats.c - _etkit.tensor_stats(array) -> dict: upstream's STATS
 * vector of a numpy array computed by the recorder's C code
 * (etkit/tensor_stats.h), keyed by upstream's names.  The Python layer
 * uses it for debug values recorded as STATS and tests check it against
 * numpy.
 */
#include "ext.h"

#define NO_IMPORT_ARRAY
#define PY_ARRAY_UNIQUE_SYMBOL etkit_ARRAY_API
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include "etkit/scalar_type.h"
#include "etkit/tensor_stats.h"

static int scalar_type_of(int npy) {
  switch (npy) {
    case NPY_FLOAT32:
      return ETK_SCALAR_TYPE_FLOAT;
    case NPY_FLOAT64:
      return ETK_SCALAR_TYPE_DOUBLE;
    case NPY_FLOAT16:
      return ETK_SCALAR_TYPE_HALF;
    case NPY_UINT8:
      return ETK_SCALAR_TYPE_BYTE;
    case NPY_INT8:
      return ETK_SCALAR_TYPE_CHAR;
    case NPY_INT16:
      return ETK_SCALAR_TYPE_SHORT;
    case NPY_INT32:
      return ETK_SCALAR_TYPE_INT;
    case NPY_INT64:
      return ETK_SCALAR_TYPE_LONG;
    case NPY_BOOL:
      return ETK_SCALAR_TYPE_BOOL;
    default:
      return -1;
  }
}

static PyObject *tensor_stats(PyObject *self, PyObject *arg) {
  (void)self;
  PyArrayObject *arr = (PyArrayObject *)PyArray_FROMANY(arg, NPY_NOTYPE, 0, 0,
                                                        NPY_ARRAY_CARRAY_RO);
  if (!arr) return NULL;
  int st = scalar_type_of(PyArray_TYPE(arr));
  double v[ETK_TENSOR_STATS_COUNT];
  int rc = st < 0 ? ETK_E_UNSUPPORTED
                  : etk_tensor_stats_compute(st, PyArray_DATA(arr),
                                             (size_t)PyArray_SIZE(arr), v);
  Py_DECREF(arr);
  if (rc != ETK_OK) {
    PyErr_SetString(PyExc_TypeError, "tensor_stats: unsupported dtype");
    return NULL;
  }
  PyObject *d = PyDict_New();
  for (unsigned i = 0; d && i < ETK_TENSOR_STATS_COUNT; i++) {
    PyObject *x = PyFloat_FromDouble(v[i]);
    if (!x || PyDict_SetItemString(d, etk_tensor_stat_name(i), x) < 0) {
      Py_XDECREF(x);
      Py_CLEAR(d);
      break;
    }
    Py_DECREF(x);
  }
  return d;
}

static PyMethodDef methods[] = {
    {"tensor_stats", tensor_stats, METH_O,
     "upstream's STATS vector of an array, as the recorder computes it"},
    {NULL, NULL, 0, NULL}};

int ext_tensor_stats_register(PyObject *module) {
  return PyModule_AddFunctions(module, methods);
}
