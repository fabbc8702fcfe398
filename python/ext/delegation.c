/*
 * delegation.c - etkit.get_delegation_info(): upstream's delegation
 * summary (etk_graph_delegation_build) of an ETRecord's program, returned
 * as plain Python data that etkit/delegation.py wraps in upstream's
 * DelegationInfo / DelegationBreakdown:
 *
 *   delegation_info(path, method or None, graph or None)
 *     -> (num_delegated_subgraphs, num_delegated_nodes,
 *         num_non_delegated_nodes, [(op_type, delegated, non_delegated)],
 *         [(backend, subgraphs, delegated_nodes)])
 */
#include "ext.h"

#include <string.h>

#include "etkit/graph.h"

static PyObject *result_of(const etk_graph_delegation_t *d) {
  PyObject *ops = PyList_New((Py_ssize_t)d->op_count);
  for (size_t i = 0; ops && i < d->op_count; i++) {
    const etk_graph_delegation_op_t *o = &d->ops[i];
    PyObject *t =
        Py_BuildValue("(Nnn)", ext_text(o->op_type, strlen(o->op_type)),
                      (Py_ssize_t)o->delegated, (Py_ssize_t)o->non_delegated);
    if (!t)
      Py_CLEAR(ops);
    else
      PyList_SET_ITEM(ops, (Py_ssize_t)i, t);
  }
  PyObject *backends = PyList_New((Py_ssize_t)d->backend_count);
  for (size_t i = 0; backends && i < d->backend_count; i++) {
    const etk_graph_delegation_backend_t *b = &d->backends[i];
    PyObject *t =
        Py_BuildValue("(Nnn)", ext_text(b->backend, strlen(b->backend)),
                      (Py_ssize_t)b->subgraphs, (Py_ssize_t)b->delegated_nodes);
    if (!t)
      Py_CLEAR(backends);
    else
      PyList_SET_ITEM(backends, (Py_ssize_t)i, t);
  }
  if (!ops || !backends) {
    Py_XDECREF(ops);
    Py_XDECREF(backends);
    return NULL;
  }
  return Py_BuildValue("(nnnNN)", (Py_ssize_t)d->num_delegated_subgraphs,
                       (Py_ssize_t)d->num_delegated_nodes,
                       (Py_ssize_t)d->num_non_delegated_nodes, ops, backends);
}

static PyObject *m_delegation_info(PyObject *mod, PyObject *args) {
  (void)mod;
  PyObject *path_obj;
  const char *method = NULL, *graph = NULL;
  if (!PyArg_ParseTuple(args, "O&zz", PyUnicode_FSConverter, &path_obj, &method,
                        &graph))
    return NULL;
  etk_error_t err;
  etk_error_clear(&err);
  etk_etrecord_t *rec = NULL;
  etk_graph_t *g = NULL;
  etk_graph_options_t go;
  etk_graph_options_default(&go);
  go.method = method;
  go.graph_name = graph;
  etk_graph_delegation_t d;
  memset(&d, 0, sizeof d);
  int rc;
  Py_BEGIN_ALLOW_THREADS rc =
      etk_etrecord_open_file(PyBytes_AS_STRING(path_obj), NULL, &rec, &err);
  if (rc == ETK_OK) rc = etk_graph_load(rec, &go, &g, &err);
  if (rc == ETK_OK) rc = etk_graph_delegation_build(g, &d, &err);
  Py_END_ALLOW_THREADS PyObject *out =
      rc == ETK_OK ? result_of(&d) : ext_raise(&err);
  etk_graph_delegation_free(&d);
  etk_graph_free(g);
  etk_etrecord_close(rec);
  Py_DECREF(path_obj);
  return out;
}

static PyMethodDef delegation_functions[] = {
    {"delegation_info", m_delegation_info, METH_VARARGS,
     "delegation_info(path, method, graph) -> summary tuple"},
    {NULL, NULL, 0, NULL}};

int ext_delegation_register(PyObject *module) {
  return PyModule_AddFunctions(module, delegation_functions);
}
