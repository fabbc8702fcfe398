/*
 * values.c - conversions shared by the _etkit extension: etkit errors to
 * Python exceptions, logged debug values to numpy arrays, and the ETRecord
 * object (parse_etrecord) with its programs as plain Python data.
 *
 * Errors: every etk_error_t becomes one exception whose text is
 * etk_error_format()'s single line.  Classes follow what upstream raises
 * for the same situation: files that cannot be opened -> OSError
 * (FileNotFoundError when missing), memory -> MemoryError, unsupported
 * requests (cycles mixed with time) -> RuntimeError, everything that is
 * wrong with the input's bytes -> ValueError.
 *
 * Debug values are inflated like upstream's Inspector (inspector notes
 * 8.1): Int/Bool/Float/Double become Python scalars, Null/String None, a
 * Tensor a numpy array read from the debug buffer (zeros of its shape
 * without a buffer), a TensorList a list of arrays.  Arrays are copies:
 * they stay valid after the Inspector is gone.
 */
#include "ext.h"

#define NO_IMPORT_ARRAY
#define PY_ARRAY_UNIQUE_SYMBOL etkit_ARRAY_API
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <stdio.h>
#include <string.h>

#include "etkit/schema.h"
#include "etkit/tensor_stats.h"

PyObject *ext_text(const char *s, size_t len) {
  if (!s) Py_RETURN_NONE;
  return PyUnicode_DecodeUTF8(s, (Py_ssize_t)len, "replace");
}

PyObject *ext_raise(const etk_error_t *err) {
  /* whole paths (ETK_ERROR_LINE_SIZE holds any line), and bytes that are
   * not UTF-8 (a name from a damaged file) replaced, never a lost text */
  char line[ETK_ERROR_LINE_SIZE];
  etk_error_format(err, line, sizeof line);
  PyObject *cls = PyExc_ValueError;
  switch (err->code) {
    case ETK_E_NO_MEMORY:
      cls = PyExc_MemoryError;
      break;
    case ETK_E_IO:
      cls = strstr(line, "No such file") ? PyExc_FileNotFoundError
                                         : PyExc_OSError;
      break;
    case ETK_E_UNSUPPORTED:
      cls = PyExc_RuntimeError;
      break;
    case ETK_E_INVALID_ARGUMENT:
      cls = PyExc_ValueError;
      break;
    case ETK_E_NOT_FOUND:
      cls = strstr(err->message, "No such file") ? PyExc_FileNotFoundError
                                                 : PyExc_ValueError;
      break;
    default:
      break;
  }
  PyObject *text = ext_text(line, strlen(line));
  if (!text) return NULL;
  PyErr_SetObject(cls, text);
  Py_DECREF(text);
  return NULL;
}

PyObject *ext_sink_text(etk_render_sink_t *sink, int rc, etk_error_t *err) {
  size_t len = 0;
  char *text = rc == ETK_OK ? etk_render_sink_take(sink, &len) : NULL;
  etk_render_sink_free(sink);
  if (rc != ETK_OK) return ext_raise(err);
  if (!text) return PyErr_NoMemory();
  PyObject *s = PyUnicode_DecodeUTF8(text, (Py_ssize_t)len, "replace");
  free(text);
  return s;
}

int ext_numpy_type(int scalar_type) {
  switch (scalar_type) {
    case ETK_SCALAR_TYPE_BYTE:
      return NPY_UINT8;
    case ETK_SCALAR_TYPE_CHAR:
      return NPY_INT8;
    case ETK_SCALAR_TYPE_SHORT:
      return NPY_INT16;
    case ETK_SCALAR_TYPE_INT:
      return NPY_INT32;
    case ETK_SCALAR_TYPE_LONG:
      return NPY_INT64;
    case ETK_SCALAR_TYPE_HALF:
      return NPY_FLOAT16;
    case ETK_SCALAR_TYPE_FLOAT:
      return NPY_FLOAT32;
    case ETK_SCALAR_TYPE_DOUBLE:
      return NPY_FLOAT64;
    case ETK_SCALAR_TYPE_BOOL:
      return NPY_BOOL;
    case ETK_SCALAR_TYPE_BITS16:
    case ETK_SCALAR_TYPE_UINT16:
      return NPY_UINT16;
    default:
      return -1;
  }
}

/* A tensor without data (no debug buffer) is upstream's zeros of its
 * shape.  Its size is only what the dump declares (a 16 KB file may
 * declare 2^30 elements), so above EXT_DATALESS_MAX bytes the zeros are a
 * read-only view of one zero element (strides 0): the shape, dtype and
 * values upstream gives, and no memory; below it, a real array. */
#define EXT_DATALESS_MAX ((uint64_t)1 << 20)

static PyObject *zeros_view(const etk_etdump_tensor_t *t, npy_intp *dims,
                            int type) {
  PyObject *zero = PyArray_ZEROS(0, NULL, type, 0);
  if (!zero) return NULL;
  npy_intp strides[NPY_MAXDIMS] = {0};
  PyArray_Descr *d = PyArray_DESCR((PyArrayObject *)zero);
  Py_INCREF(d);
  PyObject *v = PyArray_NewFromDescr(
      &PyArray_Type, d, (int)t->dim, dims, strides,
      PyArray_DATA((PyArrayObject *)zero), 0, NULL); /* flags 0: read-only */
  if (!v) {
    Py_DECREF(zero);
    return NULL;
  }
  if (PyArray_SetBaseObject((PyArrayObject *)v, zero) < 0) { /* steals */
    Py_DECREF(v);
    return NULL;
  }
  return v;
}

/* One tensor as a numpy array (a copy; zeros without a buffer). */
static PyObject *tensor_array(const etk_etdump_tensor_t *t, const uint8_t *buf,
                              size_t len) {
  etk_error_t err;
  etk_error_clear(&err);
  int type = ext_numpy_type(t->scalar_type);
  if (type < 0) {
    PyErr_Format(PyExc_RuntimeError,
                 "Unsupported scalar type in get_scalar_type_size : %d",
                 t->scalar_type);
    return NULL;
  }
  if (t->dim > NPY_MAXDIMS) {
    PyErr_Format(PyExc_ValueError,
                 "tensor with %u dimensions (numpy allows %d)", t->dim,
                 NPY_MAXDIMS);
    return NULL;
  }
  uint64_t nbytes;
  if (etk_etdump_tensor_nbytes(t, &nbytes, &err) != ETK_OK)
    return ext_raise(&err);
  const uint8_t *data = NULL;
  if (buf && nbytes &&
      etk_etdump_tensor_data(t, buf, len, &data, &nbytes, &err) != ETK_OK)
    return ext_raise(&err);
  npy_intp dims[NPY_MAXDIMS];
  for (uint32_t i = 0; i < t->dim; i++)
    dims[i] = (npy_intp)etk_etdump_tensor_dim(t, i);
  if (!data && nbytes > EXT_DATALESS_MAX) return zeros_view(t, dims, type);
  PyObject *a = PyArray_ZEROS((int)t->dim, dims, type, 0);
  if (!a) return NULL;
  if (data && nbytes) {
    if ((uint64_t)PyArray_NBYTES((PyArrayObject *)a) != nbytes) {
      Py_DECREF(a);
      PyErr_SetString(PyExc_ValueError, "tensor size does not match its bytes");
      return NULL;
    }
    memcpy(PyArray_DATA((PyArrayObject *)a), data, (size_t)nbytes);
  }
  return a;
}

/* A STATS vector (a dump recorded at debug level "stats") as a dict
 * {"min": float, ..., "nan_count": int, ..., "p99_abs": float}; every
 * value None without a debug buffer. */
static PyObject *stats_dict(const etk_etdump_t *dump,
                            const etk_etdump_tensor_t *t, const uint8_t *buf,
                            size_t len) {
  double st[ETK_TENSOR_STATS_COUNT];
  etk_error_t err;
  etk_error_clear(&err);
  if (buf && etk_etdump_tensor_stats(dump, t, buf, len, st, &err) != ETK_OK)
    return ext_raise(&err);
  PyObject *d = PyDict_New();
  for (unsigned i = 0; d && i < ETK_TENSOR_STATS_COUNT; i++) {
    PyObject *x;
    if (!buf) {
      x = Py_None;
      Py_INCREF(x);
    } else if (i >= ETK_STAT_NAN_COUNT && i <= ETK_STAT_ZERO_COUNT) {
      x = PyLong_FromLongLong((long long)st[i]);
    } else {
      x = PyFloat_FromDouble(st[i]);
    }
    if (!x || PyDict_SetItemString(d, etk_tensor_stat_name(i), x) < 0) {
      Py_XDECREF(x);
      Py_DECREF(d);
      return NULL;
    }
    Py_DECREF(x);
  }
  return d;
}

/* A logged tensor: its STATS dict or its array. */
static PyObject *logged_tensor(const etk_etdump_t *dump,
                               const etk_etdump_tensor_t *t, const uint8_t *buf,
                               size_t len) {
  return etk_etdump_tensor_is_stats(dump, t) ? stats_dict(dump, t, buf, len)
                                             : tensor_array(t, buf, len);
}

PyObject *ext_debug_value(const etk_etdump_t *dump, const uint8_t *buf,
                          size_t len, uint32_t event) {
  etk_etdump_value_t v;
  if (etk_etdump_event_value(dump, event, &v) != ETK_OK || !v.present)
    Py_RETURN_NONE;
  static const char *const kinds[] = {"",       "Null",       "Int",
                                      "Bool",   "Float",      "Double",
                                      "Tensor", "TensorList", "String"};
  int simple = v.type == ETK_ETDUMP_VALUE_TYPE_INT ||
               v.type == ETK_ETDUMP_VALUE_TYPE_BOOL ||
               v.type == ETK_ETDUMP_VALUE_TYPE_FLOAT ||
               v.type == ETK_ETDUMP_VALUE_TYPE_DOUBLE ||
               v.type == ETK_ETDUMP_VALUE_TYPE_TENSOR_LIST;
  if (simple && !v.member_present)
    return PyErr_Format(PyExc_ValueError, "Expected %s value, `None` provided",
                        kinds[v.type]);
  switch (v.type) {
    case ETK_ETDUMP_VALUE_TYPE_INT:
      return PyLong_FromLongLong(v.int_value);
    case ETK_ETDUMP_VALUE_TYPE_BOOL:
      return PyBool_FromLong(v.bool_value);
    case ETK_ETDUMP_VALUE_TYPE_FLOAT:
    case ETK_ETDUMP_VALUE_TYPE_DOUBLE:
      return PyFloat_FromDouble(v.real_value);
    case ETK_ETDUMP_VALUE_TYPE_TENSOR:
      if (!v.member_present) {
        PyErr_SetString(PyExc_ValueError, "Tensor cannot be None");
        return NULL;
      }
      return logged_tensor(dump, &v.tensor, buf, len);
    case ETK_ETDUMP_VALUE_TYPE_TENSOR_LIST: {
      PyObject *list = PyList_New(v.tensor_count);
      for (uint32_t i = 0; list && i < v.tensor_count; i++) {
        etk_etdump_tensor_t t;
        PyObject *a = NULL;
        if (etk_etdump_value_tensor(dump, &v, i, &t) == ETK_OK)
          a = logged_tensor(dump, &t, buf, len);
        else
          PyErr_SetString(PyExc_ValueError, "Tensor cannot be None");
        if (!a) {
          Py_DECREF(list);
          return NULL;
        }
        PyList_SET_ITEM(list, i, a);
      }
      return list;
    }
    default:
      Py_RETURN_NONE;
  }
}

/* ------------------------------------------------------------ ETRecord */

static void etrecord_dealloc(ext_etrecord_t *self) {
  etk_etrecord_close(self->rec);
  Py_XDECREF(self->path);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

/* parse_etrecord(path) */
static PyObject *etrecord_open(PyObject *mod, PyObject *args) {
  (void)mod;
  PyObject *path_obj;
  if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &path_obj))
    return NULL;
  const char *path = PyBytes_AS_STRING(path_obj);
  etk_error_t err;
  etk_error_clear(&err);
  etk_etrecord_t *rec = NULL;
  int rc;
  Py_BEGIN_ALLOW_THREADS rc = etk_etrecord_open_file(path, NULL, &rec, &err);
  Py_END_ALLOW_THREADS if (rc != ETK_OK) {
    etk_etrecord_error_where(&err, path);
    Py_DECREF(path_obj);
    return ext_raise(&err);
  }
  ext_etrecord_t *self = PyObject_New(ext_etrecord_t, &ext_etrecord_type);
  if (!self) {
    etk_etrecord_close(rec);
    Py_DECREF(path_obj);
    return NULL;
  }
  self->rec = rec;
  self->path = PyUnicode_DecodeFSDefault(path);
  Py_DECREF(path_obj);
  if (!self->path) {
    Py_DECREF(self);
    return NULL;
  }
  return (PyObject *)self;
}

static PyObject *opt_text(const char *s) {
  if (!s) Py_RETURN_NONE;
  return ext_text(s, strlen(s));
}

/* methods() -> list of method names */
static PyObject *etrecord_methods(ext_etrecord_t *self, PyObject *unused) {
  (void)unused;
  PyObject *list = PyList_New(0);
  const char *m;
  for (size_t i = 0; list && (m = etk_etrecord_method_at(self->rec, i)); i++) {
    PyObject *s = ext_text(m, strlen(m));
    if (!s || PyList_Append(list, s) < 0) Py_CLEAR(list);
    Py_XDECREF(s);
  }
  return list;
}

/* programs() -> list of (member, module, method, kind) */
static PyObject *etrecord_programs(ext_etrecord_t *self, PyObject *unused) {
  (void)unused;
  PyObject *list = PyList_New(0);
  const etk_etrecord_program_ref_t *r;
  for (size_t i = 0; list && (r = etk_etrecord_program_at(self->rec, i)); i++) {
    PyObject *t =
        Py_BuildValue("(NNNi)", opt_text(r->member), opt_text(r->module),
                      opt_text(r->method), (int)r->kind);
    if (!t || PyList_Append(list, t) < 0) Py_CLEAR(list);
    Py_XDECREF(t);
  }
  return list;
}

/* nn_module_stack entries as upstream's dict {key: (path, type)}. */
static PyObject *module_dict(const etk_etrecord_module_entry_t *m, size_t n) {
  PyObject *d = PyDict_New();
  for (size_t i = 0; d && i < n; i++) {
    PyObject *v = Py_BuildValue("(NN)", ext_text(m[i].path, strlen(m[i].path)),
                                ext_text(m[i].type, strlen(m[i].type)));
    if (!v || PyDict_SetItemString(d, m[i].key, v) < 0) Py_CLEAR(d);
    Py_XDECREF(v);
  }
  return d;
}

static PyObject *node_dict(const etk_etrecord_node_t *n) {
  PyObject *outs = PyList_New((Py_ssize_t)n->output_count);
  for (size_t k = 0; outs && k < n->output_count; k++) {
    PyObject *s = opt_text(n->outputs[k]);
    if (!s)
      Py_CLEAR(outs);
    else
      PyList_SET_ITEM(outs, (Py_ssize_t)k, s);
  }
  if (!outs) return NULL;
  PyObject *handle = n->has_debug_handle ? PyLong_FromLongLong(n->debug_handle)
                                         : (Py_INCREF(Py_None), Py_None);
  PyObject *mods = n->module_count ? module_dict(n->modules, n->module_count)
                                   : (Py_INCREF(Py_None), Py_None);
  char module[300], source[300];
  etk_etrecord_node_module_path(n, true, module, sizeof module);
  etk_etrecord_node_source(n, false, source, sizeof source);
  return Py_BuildValue(
      "{s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:I,s:n}",
      "module_path", ext_text(module, strlen(module)), "source",
      ext_text(source, strlen(source)), "name", opt_text(n->name), "target",
      opt_text(n->target), "op", opt_text(n->op), "args", opt_text(n->args),
      "outputs", outs, "debug_handle", handle, "stack_trace",
      opt_text(n->stack_trace), "nn_module_stack", mods, "nn_module_stack_text",
      opt_text(n->nn_module_stack), "delegate_backend",
      opt_text(n->delegate_backend), "depth", (unsigned)n->depth, "parent",
      n->parent == ETK_ETRECORD_NO_PARENT ? (Py_ssize_t)-1
                                          : (Py_ssize_t)n->parent);
}

/* program(graph=None) -> dict(member, inputs, outputs, nodes) or None */
static PyObject *etrecord_program(ext_etrecord_t *self, PyObject *args) {
  const char *graph = NULL;
  if (!PyArg_ParseTuple(args, "|z", &graph)) return NULL;
  const etk_etrecord_program_t *p = NULL;
  etk_error_t err;
  etk_error_clear(&err);
  int rc = graph ? etk_etrecord_graph_load(self->rec, graph, &p, &err)
                 : etk_etrecord_edge_program_load(self->rec, NULL, &p, &err);
  if (rc == ETK_E_NOT_FOUND) Py_RETURN_NONE;
  if (rc != ETK_OK) return ext_raise(&err);
  PyObject *nodes = PyList_New((Py_ssize_t)p->node_count);
  for (size_t i = 0; nodes && i < p->node_count; i++) {
    PyObject *d = node_dict(&p->nodes[i]);
    if (!d)
      Py_CLEAR(nodes);
    else
      PyList_SET_ITEM(nodes, (Py_ssize_t)i, d);
  }
  PyObject *ins = PyList_New(0), *outs = PyList_New(0);
  for (size_t i = 0; ins && i < p->input_count; i++) {
    PyObject *s = opt_text(p->inputs[i]);
    if (!s || PyList_Append(ins, s) < 0) Py_CLEAR(ins);
    Py_XDECREF(s);
  }
  for (size_t i = 0; outs && i < p->output_count; i++) {
    PyObject *s = opt_text(p->outputs[i]);
    if (!s || PyList_Append(outs, s) < 0) Py_CLEAR(outs);
    Py_XDECREF(s);
  }
  if (!nodes || !ins || !outs) {
    Py_XDECREF(nodes);
    Py_XDECREF(ins);
    Py_XDECREF(outs);
    return NULL;
  }
  etk_etrecord_info_t info;
  etk_etrecord_info_get(self->rec, &info);
  char schema[64];
  etk_etrecord_program_schema_version(p, schema, sizeof schema);
  return Py_BuildValue(
      "{s:N,s:N,s:N,s:N,s:N,s:s,s:i,s:N,s:s,s:O}", "member",
      opt_text(p->ref.member), "inputs", ins, "outputs", outs, "nodes", nodes,
      "method", opt_text(p->ref.method), "schema", schema, "dialect",
      (int)p->dialect, "verifiers", opt_text(p->verifiers), "layout",
      etk_etrecord_layout_name(info.layout), "path", self->path);
}

/* A decoded torch.save value as Python data: tensors become numpy arrays
 * (copies in C order), containers lists/tuples/dicts, scalars Python
 * scalars; dtypes numpy cannot hold become None. */
static PyObject *pickle_to_python(const etk_pickle_value_t *v, int depth) {
  if (depth > 64) {
    PyErr_SetString(PyExc_ValueError, "reference outputs nested too deeply");
    return NULL;
  }
  switch (v->kind) {
    case ETK_PICKLE_BOOL:
      return PyBool_FromLong(v->b);
    case ETK_PICKLE_INT:
      return PyLong_FromLongLong(v->i);
    case ETK_PICKLE_FLOAT:
      return PyFloat_FromDouble(v->f);
    case ETK_PICKLE_STR:
      return ext_text(v->str, v->len);
    case ETK_PICKLE_BYTES:
      return PyBytes_FromStringAndSize(v->str, (Py_ssize_t)v->len);
    case ETK_PICKLE_TUPLE:
    case ETK_PICKLE_LIST: {
      PyObject *list = PyList_New((Py_ssize_t)v->count);
      for (size_t i = 0; list && i < v->count; i++) {
        PyObject *x = pickle_to_python(v->items[i], depth + 1);
        if (!x)
          Py_CLEAR(list);
        else
          PyList_SET_ITEM(list, (Py_ssize_t)i, x);
      }
      if (list && v->kind == ETK_PICKLE_TUPLE) {
        PyObject *t = PyList_AsTuple(list);
        Py_DECREF(list);
        return t;
      }
      return list;
    }
    case ETK_PICKLE_DICT: {
      PyObject *d = PyDict_New();
      for (size_t i = 0; d && i < v->count; i++) {
        PyObject *k = pickle_to_python(v->items[i], depth + 1);
        PyObject *x = k ? pickle_to_python(v->values[i], depth + 1) : NULL;
        if (!k || !x || PyDict_SetItem(d, k, x) < 0) Py_CLEAR(d);
        Py_XDECREF(k);
        Py_XDECREF(x);
      }
      return d;
    }
    case ETK_PICKLE_TENSOR: {
      const etk_torch_tensor_t *t = v->tensor;
      int type = ext_numpy_type(t->dtype);
      if (type < 0 || t->dim > NPY_MAXDIMS) Py_RETURN_NONE;
      npy_intp dims[NPY_MAXDIMS];
      for (uint32_t k = 0; k < t->dim; k++) dims[k] = (npy_intp)t->sizes[k];
      PyObject *a = PyArray_ZEROS((int)t->dim, dims, type, 0);
      if (!a) return NULL;
      PyArrayObject *arr = (PyArrayObject *)a;
      if (PyArray_NBYTES(arr) &&
          etk_torch_tensor_copy(t, PyArray_DATA(arr),
                                (uint64_t)PyArray_NBYTES(arr)) != ETK_OK) {
        Py_DECREF(a);
        PyErr_SetString(PyExc_ValueError,
                        "reference output tensor outside its storage");
        return NULL;
      }
      return a;
    }
    default:
      Py_RETURN_NONE;
  }
}

typedef int (*archive_open_fn)(etk_etrecord_t *, const etk_pickle_limits_t *,
                               etk_torch_archive_t **, etk_error_t *);

/* A torch.save member decoded into Python values, or None when absent. */
static PyObject *archive_member(ext_etrecord_t *self, archive_open_fn open) {
  etk_error_t err;
  etk_error_clear(&err);
  etk_torch_archive_t *a = NULL;
  int rc = open(self->rec, NULL, &a, &err);
  if (rc == ETK_E_NOT_FOUND) Py_RETURN_NONE;
  if (rc != ETK_OK) return ext_raise(&err);
  PyObject *out = pickle_to_python(etk_torch_archive_root(a), 0);
  etk_torch_archive_close(a);
  return out;
}

/* reference_outputs() -> {method: [case outputs, ...]} or None */
static PyObject *etrecord_reference_outputs(ext_etrecord_t *self,
                                            PyObject *unused) {
  (void)unused;
  return archive_member(self, etk_etrecord_reference_outputs_open);
}

/* representative_inputs() -> the decoded list, or None when absent */
static PyObject *etrecord_representative_inputs(ext_etrecord_t *self,
                                                PyObject *unused) {
  (void)unused;
  return archive_member(self, etk_etrecord_representative_inputs_open);
}

static PyMethodDef etrecord_methods_def[] = {
    {"representative_inputs", (PyCFunction)etrecord_representative_inputs,
     METH_NOARGS, "representative_inputs() -> [inputs] or None"},
    {"methods", (PyCFunction)etrecord_methods, METH_NOARGS, "method names"},
    {"programs", (PyCFunction)etrecord_programs, METH_NOARGS,
     "(member, module, method, kind) of every program"},
    {"reference_outputs", (PyCFunction)etrecord_reference_outputs, METH_NOARGS,
     "reference_outputs() -> {method: [outputs of each case]} or None"},
    {"program", (PyCFunction)etrecord_program, METH_VARARGS,
     "program(graph=None): nodes of a program as dicts, None when absent"},
    {NULL, NULL, 0, NULL}};

static PyMemberDef etrecord_members[] = {
    {"path", T_OBJECT, offsetof(ext_etrecord_t, path), READONLY, "file"},
    {NULL, 0, 0, 0, NULL}};

PyTypeObject ext_etrecord_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "etkit._etkit.ETRecordHandle",
    .tp_basicsize = sizeof(ext_etrecord_t),
    .tp_dealloc = (destructor)etrecord_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "an ETRecord opened by the C reader",
    .tp_methods = etrecord_methods_def,
    .tp_members = etrecord_members,
};

static PyMethodDef etrecord_functions[] = {
    {"open_etrecord", etrecord_open, METH_VARARGS, "open_etrecord(path)"},
    {NULL, NULL, 0, NULL}};

int ext_etrecord_register(PyObject *module) {
  if (PyType_Ready(&ext_etrecord_type) < 0) return -1;
  Py_INCREF(&ext_etrecord_type);
  if (PyModule_AddObject(module, "ETRecordHandle",
                         (PyObject *)&ext_etrecord_type) < 0) {
    Py_DECREF(&ext_etrecord_type);
    return -1;
  }
  return PyModule_AddFunctions(module, etrecord_functions);
}

static PyObject *tensor_strides(const etk_etdump_tensor_t *t) {
  PyObject *tuple = PyTuple_New((Py_ssize_t)t->stride_count);
  for (uint32_t i = 0; tuple && i < t->stride_count; i++) {
    PyObject *v = PyLong_FromLongLong(etk_etdump_tensor_stride(t, i));
    if (!v) {
      Py_CLEAR(tuple);
      break;
    }
    PyTuple_SET_ITEM(tuple, i, v);
  }
  return tuple;
}

PyObject *ext_debug_strides(const etk_etdump_t *dump, uint32_t event) {
  etk_etdump_value_t v;
  if (etk_etdump_event_value(dump, event, &v) != ETK_OK || !v.present ||
      !v.member_present)
    Py_RETURN_NONE;
  if (v.type == ETK_ETDUMP_VALUE_TYPE_TENSOR) return tensor_strides(&v.tensor);
  if (v.type != ETK_ETDUMP_VALUE_TYPE_TENSOR_LIST) Py_RETURN_NONE;
  PyObject *list = PyList_New(v.tensor_count);
  for (uint32_t i = 0; list && i < v.tensor_count; i++) {
    etk_etdump_tensor_t t;
    PyObject *a = etk_etdump_value_tensor(dump, &v, i, &t) == ETK_OK
                      ? tensor_strides(&t)
                      : (Py_INCREF(Py_None), Py_None);
    if (!a) {
      Py_CLEAR(list);
      break;
    }
    PyList_SET_ITEM(list, i, a);
  }
  return list;
}
