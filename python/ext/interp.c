/*
 * interp.c - the extension's side of numerical debugging: the ETRecord's
 * graph run by etkit's interpreter (etkit/interp.h), the recorded
 * representative inputs, and torch.save archives of numpy arrays (for
 * ETRecord.save).
 *
 * etkit._etkit.interp(rec, member, max_memory, inputs) loads the graph of
 * `member` (None = the edge program of forward), runs it, and returns one
 * tuple per call node of the top graph, in graph order:
 *   (name, op, handles tuple, status, message, [numpy arrays], is_list,
 *    stack trace or None)
 * Arrays are copies (the graph and its run are freed before returning).
 * `inputs` None = the record's representative inputs; else a list of
 * numpy arrays, one per user input, made C-contiguous first.
 */
#include "ext.h"

#define NO_IMPORT_ARRAY
#define PY_ARRAY_UNIQUE_SYMBOL etkit_ARRAY_API
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#include <string.h>

#include "etkit/graph.h"
#include "etkit/interp.h"
#include "etkit/torch.h"

/* numpy array (a copy) of an interpreter tensor. */
static PyObject *tensor_array(const etk_interp_tensor_t *t) {
  npy_intp dims[NPY_MAXDIMS];
  int type = ext_numpy_type(t->dtype);
  PyObject *a;
  if (type < 0 || t->dim > NPY_MAXDIMS) Py_RETURN_NONE;
  for (uint32_t d = 0; d < t->dim; d++) dims[d] = (npy_intp)t->sizes[d];
  a = PyArray_ZEROS((int)t->dim, dims, type, 0);
  if (a && t->nbytes &&
      (uint64_t)PyArray_NBYTES((PyArrayObject *)a) == t->nbytes)
    memcpy(PyArray_DATA((PyArrayObject *)a), t->data, (size_t)t->nbytes);
  return a;
}

static PyObject *node_tuple(const etk_graph_t *g, const etk_interp_node_t *n) {
  const etk_graph_node_t *gn = &etk_graph_nodes(g)[n->node];
  PyObject *handles = PyTuple_New((Py_ssize_t)n->debug_handle_count);
  PyObject *outs = PyList_New((Py_ssize_t)n->output_count);
  PyObject *trace;
  if (!handles || !outs) goto fail;
  for (size_t k = 0; k < n->debug_handle_count; k++)
    PyTuple_SET_ITEM(handles, (Py_ssize_t)k,
                     PyLong_FromLongLong(n->debug_handles[k]));
  for (size_t k = 0; k < n->output_count; k++) {
    PyObject *a = tensor_array(&n->outputs[k]);
    if (!a) goto fail;
    PyList_SET_ITEM(outs, (Py_ssize_t)k, a);
  }
  if (gn->record && gn->record->stack_trace)
    trace = ext_text(gn->record->stack_trace, strlen(gn->record->stack_trace));
  else
    trace = (Py_INCREF(Py_None), Py_None);
  return Py_BuildValue("(ssNssNON)", n->name, n->op ? n->op : "", handles,
                       etk_interp_status_name(n->status), n->message, outs,
                       n->output_is_list ? Py_True : Py_False, trace);
fail:
  Py_XDECREF(handles);
  Py_XDECREF(outs);
  return NULL;
}

/* Caller inputs as interpreter tensors over contiguous numpy copies kept
 * in `keep` (a list the caller releases). */
static int caller_inputs(PyObject *list, PyObject *keep,
                         etk_interp_tensor_t **out, int64_t **sizes,
                         size_t *count) {
  Py_ssize_t n = PyList_Size(list);
  *out = calloc((size_t)n + 1, sizeof **out);
  *sizes = calloc((size_t)n * NPY_MAXDIMS + 1, sizeof **sizes);
  *count = (size_t)n;
  if (!*out || !*sizes) {
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(
        PyList_GET_ITEM(list, i), NPY_NOTYPE, 0, 0, NPY_ARRAY_C_CONTIGUOUS);
    int dtype = -1;
    if (!a) return -1;
    PyList_Append(keep, (PyObject *)a);
    Py_DECREF(a);
    for (int st = 0; st < 32 && dtype < 0; st++)
      if (ext_numpy_type(st) == PyArray_TYPE(a) && etk_scalar_type_size(st))
        dtype = st;
    if (dtype < 0) {
      PyErr_Format(PyExc_ValueError, "input %zd has a dtype etkit cannot run",
                   i);
      return -1;
    }
    (*out)[i].dtype = dtype;
    (*out)[i].dim = (uint32_t)PyArray_NDIM(a);
    (*out)[i].sizes = *sizes + i * NPY_MAXDIMS;
    for (int d = 0; d < PyArray_NDIM(a); d++)
      (*sizes)[i * NPY_MAXDIMS + d] = PyArray_DIM(a, d);
    (*out)[i].data = PyArray_DATA(a);
    (*out)[i].nbytes = (uint64_t)PyArray_NBYTES(a);
  }
  return 0;
}

/* interp(rec, member, max_memory, inputs) -> [node tuples] */
static PyObject *m_interp(PyObject *self, PyObject *args) {
  PyObject *rec_obj, *inputs, *keep = NULL, *result = NULL;
  const char *member;
  unsigned long long max_memory;
  etk_graph_options_t go;
  etk_interp_options_t io;
  etk_graph_t *g = NULL;
  etk_interp_t *r = NULL;
  etk_interp_tensor_t *tensors = NULL;
  int64_t *sizes = NULL;
  etk_error_t err;
  int rc;
  (void)self;
  if (!PyArg_ParseTuple(args, "O!zKO", &ext_etrecord_type, &rec_obj, &member,
                        &max_memory, &inputs))
    return NULL;
  etk_error_clear(&err);
  etk_graph_options_default(&go);
  go.graph_name = member;
  etk_interp_options_default(&io);
  io.max_memory = max_memory;
  if (inputs != Py_None) {
    if (!PyList_Check(inputs))
      return PyErr_Format(PyExc_TypeError, "inputs must be a list of arrays");
    keep = PyList_New(0);
    if (!keep ||
        caller_inputs(inputs, keep, &tensors, &sizes, &io.input_count) < 0)
      goto done;
    io.inputs = tensors;
  }
  Py_BEGIN_ALLOW_THREADS;
  rc = etk_graph_load(((ext_etrecord_t *)rec_obj)->rec, &go, &g, &err);
  if (rc == ETK_OK) rc = etk_interp_run(g, &io, &r, &err);
  Py_END_ALLOW_THREADS;
  if (rc != ETK_OK) {
    ext_raise(&err);
    goto done;
  }
  result = PyList_New((Py_ssize_t)etk_interp_node_count(r));
  for (size_t k = 0; result && k < etk_interp_node_count(r); k++) {
    PyObject *t = node_tuple(g, &etk_interp_nodes(r)[k]);
    if (!t)
      Py_CLEAR(result);
    else
      PyList_SET_ITEM(result, (Py_ssize_t)k, t);
  }
done:
  etk_interp_free(r);
  etk_graph_free(g);
  free(tensors);
  free(sizes);
  Py_XDECREF(keep);
  return result;
}

/* torch_save([arrays]) -> bytes: a torch.save archive of a list of
 * tensors (ETRecord.save's representative_inputs). */
static PyObject *m_torch_save(PyObject *self, PyObject *list) {
  Py_ssize_t n;
  etk_pickle_value_t root, *items = NULL;
  etk_torch_tensor_t *ts = NULL;
  const etk_pickle_value_t **ptrs = NULL;
  int64_t *sizes = NULL;
  PyObject *keep = NULL, *out = NULL;
  uint8_t *bytes = NULL;
  size_t len = 0;
  etk_error_t err;
  (void)self;
  if (!PyList_Check(list))
    return PyErr_Format(PyExc_TypeError, "expected a list of arrays");
  n = PyList_Size(list);
  items = calloc((size_t)n + 1, sizeof *items);
  ts = calloc((size_t)n + 1, sizeof *ts);
  ptrs = calloc((size_t)n + 1, sizeof *ptrs);
  keep = PyList_New(0);
  {
    etk_interp_tensor_t *it = NULL;
    size_t count = 0;
    if (!items || !ts || !ptrs || !keep ||
        caller_inputs(list, keep, &it, &sizes, &count) < 0) {
      free(it);
      goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
      ts[i].dtype = it[i].dtype;
      ts[i].element_size = etk_torch_dtype_size(it[i].dtype);
      ts[i].dim = it[i].dim;
      ts[i].sizes = it[i].sizes;
      ts[i].numel = ts[i].element_size ? it[i].nbytes / ts[i].element_size : 0;
      ts[i].contiguous = true;
      ts[i].storage = it[i].data;
      ts[i].storage_nbytes = it[i].nbytes;
      items[i].kind = ETK_PICKLE_TENSOR;
      items[i].tensor = &ts[i];
      ptrs[i] = &items[i];
    }
    free(it);
  }
  memset(&root, 0, sizeof root);
  root.kind = ETK_PICKLE_LIST;
  root.items = ptrs;
  root.count = (size_t)n;
  etk_error_clear(&err);
  if (etk_torch_save_memory(&root, &bytes, &len, &err) != ETK_OK) {
    ext_raise(&err);
    goto done;
  }
  out = PyBytes_FromStringAndSize((const char *)bytes, (Py_ssize_t)len);
done:
  free(bytes);
  free(items);
  free(ts);
  free(ptrs);
  free(sizes);
  Py_XDECREF(keep);
  return out;
}

static PyMethodDef interp_functions[] = {
    {"interp", m_interp, METH_VARARGS,
     "interp(rec, member, max_memory, inputs) -> [(name, op, handles, status, "
     "message, outputs, is_list, stack_trace)]"},
    {"torch_save", m_torch_save, METH_O,
     "torch_save([arrays]) -> torch.save archive bytes"},
    {NULL, NULL, 0, NULL}};

int ext_interp_register(PyObject *module) {
  return PyModule_AddFunctions(module, interp_functions);
}
