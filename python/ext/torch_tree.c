/*
 * torch_tree.c - torch_save_tree(obj): a torch.save archive of nested
 * Python data (etk_torch_save_memory), for ETRecord editing in Python:
 * reference outputs ({method: [[array, ...], ...]}) and representative
 * inputs as upstream's torch.save writes them.
 *
 * Values: None, bool, int, float, str, tuple, list, dict (str, int, float,
 * bool or None keys) and numpy arrays (anything np.asarray takes that is
 * not one of the above) of a dtype the torch writer holds (bool, uint8,
 * int8, int16, int32, int64, float16, float32, float64).  Every node is
 * allocated from one list of blocks freed after the call; arrays are kept
 * alive (as C-contiguous copies where needed) until the archive is
 * written.  Nesting deeper than 200 is refused.
 */
#include "ext.h"

#define NO_IMPORT_ARRAY
#define PY_ARRAY_UNIQUE_SYMBOL etkit_ARRAY_API
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <stdlib.h>
#include <string.h>

#include "etkit/torch.h"

typedef struct tree {
  void **blocks;
  size_t count, cap;
  PyObject *keep; /* arrays and encoded strings */
} tree_t;

static void *tree_alloc(tree_t *t, size_t n) {
  if (t->count == t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 64;
    void **grown = realloc(t->blocks, cap * sizeof *grown);
    if (!grown) return NULL;
    t->blocks = grown;
    t->cap = cap;
  }
  void *p = calloc(1, n ? n : 1);
  if (p) t->blocks[t->count++] = p;
  return p;
}

/* torch dtype codes (c10) of numpy type numbers, -1 when unsupported. */
static int torch_dtype(int npy) {
  switch (npy) {
    case NPY_UINT8:
      return 0;
    case NPY_INT8:
      return 1;
    case NPY_INT16:
      return 2;
    case NPY_INT32:
      return 3;
    case NPY_INT64:
      return 4;
    case NPY_FLOAT16:
      return 5;
    case NPY_FLOAT32:
      return 6;
    case NPY_FLOAT64:
      return 7;
    case NPY_BOOL:
      return 11;
    default:
      return -1;
  }
}

static etk_pickle_value_t *convert(tree_t *t, PyObject *o, int depth);

static int convert_items(tree_t *t, PyObject *seq, etk_pickle_value_t *v,
                         int depth) {
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  const etk_pickle_value_t **items =
      tree_alloc(t, (size_t)(n ? n : 1) * sizeof *items);
  if (!items) return -1;
  for (Py_ssize_t i = 0; i < n; i++)
    if (!(items[i] = convert(t, PySequence_Fast_GET_ITEM(seq, i), depth + 1)))
      return -1;
  v->items = items;
  v->count = (size_t)n;
  return 0;
}

static int convert_dict(tree_t *t, PyObject *o, etk_pickle_value_t *v,
                        int depth) {
  Py_ssize_t n = PyDict_Size(o), pos = 0, i = 0;
  const etk_pickle_value_t **keys =
      tree_alloc(t, (size_t)(n ? n : 1) * sizeof *keys);
  const etk_pickle_value_t **vals =
      tree_alloc(t, (size_t)(n ? n : 1) * sizeof *vals);
  if (!keys || !vals) return -1;
  PyObject *k, *val;
  while (PyDict_Next(o, &pos, &k, &val)) {
    if (!(keys[i] = convert(t, k, depth + 1)) ||
        !(vals[i] = convert(t, val, depth + 1)))
      return -1;
    i++;
  }
  v->kind = ETK_PICKLE_DICT;
  v->items = keys;
  v->values = vals;
  v->count = (size_t)n;
  return 0;
}

static int convert_array(tree_t *t, PyObject *o, etk_pickle_value_t *v) {
  PyObject *a = PyArray_FROM_OF(o, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED);
  if (!a) return -1;
  if (PyList_Append(t->keep, a) < 0) {
    Py_DECREF(a);
    return -1;
  }
  Py_DECREF(a);
  PyArrayObject *arr = (PyArrayObject *)a;
  int dtype = torch_dtype(PyArray_TYPE(arr));
  if (dtype < 0 || !PyArray_ISNOTSWAPPED(arr)) {
    PyErr_Format(PyExc_TypeError, "cannot torch.save an array of dtype %R",
                 (PyObject *)PyArray_DESCR(arr));
    return -1;
  }
  etk_torch_tensor_t *ts = tree_alloc(t, sizeof *ts);
  int nd = PyArray_NDIM(arr);
  int64_t *sizes = tree_alloc(t, (size_t)(nd ? nd : 1) * sizeof *sizes);
  if (!ts || !sizes) return -1;
  uint64_t numel = 1;
  for (int d = 0; d < nd; d++) {
    sizes[d] = (int64_t)PyArray_DIM(arr, d);
    numel *= (uint64_t)sizes[d];
  }
  ts->dtype = dtype;
  ts->element_size = (size_t)PyArray_ITEMSIZE(arr);
  ts->dim = (uint32_t)nd;
  ts->sizes = nd ? sizes : NULL;
  ts->numel = numel;
  ts->contiguous = true;
  ts->storage = PyArray_DATA(arr);
  ts->storage_nbytes = (uint64_t)PyArray_NBYTES(arr);
  v->kind = ETK_PICKLE_TENSOR;
  v->tensor = ts;
  return 0;
}

static etk_pickle_value_t *convert(tree_t *t, PyObject *o, int depth) {
  if (depth > 200) {
    PyErr_SetString(PyExc_ValueError, "nesting deeper than 200");
    return NULL;
  }
  etk_pickle_value_t *v = tree_alloc(t, sizeof *v);
  if (!v) return (etk_pickle_value_t *)PyErr_NoMemory();
  int rc = 0;
  if (o == Py_None) {
    v->kind = ETK_PICKLE_NONE;
  } else if (PyBool_Check(o)) {
    v->kind = ETK_PICKLE_BOOL;
    v->b = o == Py_True;
  } else if (PyLong_Check(o)) {
    v->kind = ETK_PICKLE_INT;
    v->i = PyLong_AsLongLong(o);
    rc = PyErr_Occurred() ? -1 : 0;
  } else if (PyFloat_Check(o)) {
    v->kind = ETK_PICKLE_FLOAT;
    v->f = PyFloat_AS_DOUBLE(o);
  } else if (PyUnicode_Check(o)) {
    PyObject *b = PyUnicode_AsUTF8String(o);
    rc = b && PyList_Append(t->keep, b) == 0 ? 0 : -1;
    if (b) {
      v->kind = ETK_PICKLE_STR;
      v->str = PyBytes_AS_STRING(b);
      v->len = (size_t)PyBytes_GET_SIZE(b);
      Py_DECREF(b);
    }
  } else if (PyDict_Check(o)) {
    rc = convert_dict(t, o, v, depth);
  } else if (PyList_Check(o) || PyTuple_Check(o)) {
    v->kind = PyList_Check(o) ? ETK_PICKLE_LIST : ETK_PICKLE_TUPLE;
    rc = convert_items(t, o, v, depth);
  } else {
    rc = convert_array(t, o, v);
  }
  return rc == 0 ? v : NULL;
}

static PyObject *m_torch_save_tree(PyObject *mod, PyObject *obj) {
  (void)mod;
  tree_t t = {NULL, 0, 0, PyList_New(0)};
  PyObject *out = NULL;
  etk_pickle_value_t *root = t.keep ? convert(&t, obj, 0) : NULL;
  if (root) {
    etk_error_t err;
    etk_error_clear(&err);
    uint8_t *bytes = NULL;
    size_t len = 0;
    if (etk_torch_save_memory(root, &bytes, &len, &err) != ETK_OK)
      ext_raise(&err);
    else
      out = PyBytes_FromStringAndSize((const char *)bytes, (Py_ssize_t)len);
    free(bytes);
  }
  for (size_t i = 0; i < t.count; i++) free(t.blocks[i]);
  free(t.blocks);
  Py_XDECREF(t.keep);
  return out;
}

static PyMethodDef torch_tree_functions[] = {
    {"torch_save_tree", m_torch_save_tree, METH_O,
     "torch_save_tree(obj) -> torch.save bytes"},
    {NULL, NULL, 0, NULL}};

int ext_torch_tree_register(PyObject *module) {
  return PyModule_AddFunctions(module, torch_tree_functions);
}
