/*
 * program.c - etkit.Program(path): what a program (.pte, or the program of
 * a .bpte) declares about its methods, for `etkit info` parity: each
 * method's name and its inputs and outputs, a tensor as (dtype, shape,
 * dynamic) and a scalar as its traced value.  Reads the file with the C
 * loader (every table checked) and copies the answers into Python tuples;
 * nothing of the program is kept.
 */
#include "ext.h"

#define NO_IMPORT_ARRAY
#define PY_ARRAY_UNIQUE_SYMBOL etkit_ARRAY_API
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <stdlib.h>
#include <string.h>

#include "etkit/program.h"
#include "etkit/runtime.h"
#include "etkit/scalar_type.h"

/* ("tensor", dtype, shape, dynamic) or (kind, None, None, value). */
static PyObject *value_spec(const etk_program_plan_t *plan, int32_t index) {
  const etk_program_value_t *v = &plan->values[index];
  if (v->tag == ETK_VALUE_TENSOR) {
    const etk_program_tensor_t *t = v->u.tensor;
    PyObject *shape = PyTuple_New((Py_ssize_t)t->dim);
    for (uint32_t d = 0; shape && d < t->dim; d++)
      PyTuple_SET_ITEM(shape, d, PyLong_FromLong(t->sizes[d]));
    int type = ext_numpy_type(t->scalar_type);
    PyObject *dtype =
        type >= 0 ? (PyObject *)PyArray_DescrFromType(type)
                  : PyUnicode_FromString(etk_scalar_type_name(t->scalar_type));
    if (!shape || !dtype) {
      Py_XDECREF(shape);
      Py_XDECREF(dtype);
      return NULL;
    }
    return Py_BuildValue("(sNNO)", "tensor", dtype, shape,
                         t->shape_dynamism ? Py_True : Py_False);
  }
  switch (v->tag) {
    case ETK_VALUE_INT:
      return Py_BuildValue("(sOOL)", "int", Py_None, Py_None,
                           (long long)v->u.i);
    case ETK_VALUE_DOUBLE:
      return Py_BuildValue("(sOOd)", "float", Py_None, Py_None, v->u.d);
    case ETK_VALUE_BOOL:
      return Py_BuildValue("(sOON)", "bool", Py_None, Py_None,
                           PyBool_FromLong(v->u.b));
    default:
      return Py_BuildValue("(sOOO)", etk_program_tag_name(v->tag), Py_None,
                           Py_None, Py_None);
  }
}

static PyObject *spec_list(const etk_program_plan_t *plan,
                           const int32_t *indices, uint32_t n) {
  PyObject *list = PyList_New((Py_ssize_t)n);
  for (uint32_t i = 0; list && i < n; i++) {
    PyObject *s = value_spec(plan, indices[i]);
    if (!s)
      Py_CLEAR(list);
    else
      PyList_SET_ITEM(list, i, s);
  }
  return list;
}

/* program_info(path) -> [(method, [input specs], [output specs]), ...] */
static PyObject *m_program_info(PyObject *mod, PyObject *args) {
  (void)mod;
  PyObject *path_obj;
  if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &path_obj))
    return NULL;
  const char *path = PyBytes_AS_STRING(path_obj);
  etk_error_t err;
  etk_error_clear(&err);
  uint8_t *bytes = NULL;
  size_t len = 0;
  etk_program_t *prog = NULL;
  etk_bundled_program_t *bp = NULL;
  int rc;
  Py_BEGIN_ALLOW_THREADS rc = etk_read_file(path, 0, &bytes, &len, &err);
  if (rc == ETK_OK)
    rc = etk_file_kind_detect(bytes, len) == ETK_FILE_BPTE
             ? etk_bundled_program_load(bytes, len, NULL, &bp, &err)
             : etk_program_load(bytes, len, NULL, &prog, &err);
  Py_END_ALLOW_THREADS free(bytes);
  if (rc != ETK_OK) {
    etk_error_where(&err, path);
    Py_DECREF(path_obj);
    return ext_raise(&err);
  }
  Py_DECREF(path_obj);
  const etk_program_t *p = bp ? bp->program : prog;
  PyObject *out = PyList_New((Py_ssize_t)p->plan_count);
  for (uint32_t k = 0; out && k < p->plan_count; k++) {
    const etk_program_plan_t *plan = &p->plans[k];
    const char *name = plan->name ? plan->name : "";
    PyObject *item =
        Py_BuildValue("(NNN)", ext_text(name, strlen(name)),
                      spec_list(plan, plan->inputs, plan->input_count),
                      spec_list(plan, plan->outputs, plan->output_count));
    if (!item)
      Py_CLEAR(out);
    else
      PyList_SET_ITEM(out, k, item);
  }
  etk_program_free(prog);
  etk_bundled_program_free(bp);
  return out;
}

static PyMethodDef program_functions[] = {
    {"program_info", m_program_info, METH_VARARGS,
     "program_info(path) -> [(method, inputs, outputs)]"},
    {NULL, NULL, 0, NULL}};

int ext_program_register(PyObject *module) {
  return PyModule_AddFunctions(module, program_functions);
}
