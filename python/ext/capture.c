/*
 * capture.c - _etkit.capture_bytes(data): the files a device sent, found
 * in a byte stream by the capture decoder (etkit/capture.h), for
 * etkit.capture() (python/etkit/capture.py), which reads the source and
 * writes the files.
 *
 * Returns (files, problems): files is a list of dicts (name, out_name,
 * kind, source, data, complete, problems), problems the stream's own
 * problem lines.  Conversion only: the decoding and every check are the C
 * library's, the same as `etkit capture`.
 */
#include "ext.h"
#include "etkit/capture.h"

typedef struct gather {
  PyObject *files, *problems;
  int failed;
} gather_t;

static int put(PyObject *d, const char *key, PyObject *v) {
  if (v == NULL) return -1;
  int rc = PyDict_SetItemString(d, key, v);
  Py_DECREF(v);
  return rc;
}

static int on_file(void *ctx, const etk_capture_file_t *f) {
  gather_t *g = ctx;
  PyObject *d = PyDict_New(), *probs = PyList_New(0);
  int bad = d == NULL || probs == NULL;
  for (size_t i = 0; !bad && i < f->problem_count; i++) {
    PyObject *s = ext_text(f->problems[i], strlen(f->problems[i]));
    bad = s == NULL || PyList_Append(probs, s) < 0;
    Py_XDECREF(s);
  }
  const char *source = f->source == ETK_CAPTURE_ARM_LOG ? "arm_log" : "framed";
  bad = bad || put(d, "name", ext_text(f->name, strlen(f->name))) < 0 ||
        put(d, "out_name", ext_text(f->out_name, strlen(f->out_name))) < 0 ||
        put(d, "kind", PyUnicode_FromString(etk_capture_kind_name(f->kind))) <
            0 ||
        put(d, "source", PyUnicode_FromString(source)) < 0 ||
        put(d, "data",
            PyBytes_FromStringAndSize((const char *)f->data,
                                      (Py_ssize_t)f->size)) < 0 ||
        put(d, "complete", PyBool_FromLong(f->complete)) < 0 ||
        PyDict_SetItemString(d, "problems", probs) < 0 ||
        PyList_Append(g->files, d) < 0;
  Py_XDECREF(probs);
  Py_XDECREF(d);
  if (bad) g->failed = 1;
  return bad ? ETK_E_NO_MEMORY : 0;
}

static void on_problem(void *ctx, const char *message) {
  gather_t *g = ctx;
  PyObject *s = ext_text(message, strlen(message));
  if (s == NULL || PyList_Append(g->problems, s) < 0) g->failed = 1;
  Py_XDECREF(s);
}

static PyObject *capture_bytes(PyObject *self, PyObject *args) {
  (void)self;
  Py_buffer view;
  if (!PyArg_ParseTuple(args, "y*", &view)) return NULL;
  gather_t g = {PyList_New(0), PyList_New(0), 0};
  PyObject *result = NULL;
  if (g.files && g.problems) {
    etk_capture_callbacks_t cb = {on_file, on_problem, &g};
    int rc = etk_capture_buffer(view.buf, (size_t)view.len, &cb, NULL);
    if (g.failed || PyErr_Occurred()) {
      if (!PyErr_Occurred()) PyErr_NoMemory();
    } else if (rc != ETK_OK) {
      PyErr_Format(PyExc_MemoryError, "capture: %s", etk_status_name(rc));
    } else {
      result = PyTuple_Pack(2, g.files, g.problems);
    }
  }
  PyBuffer_Release(&view);
  Py_XDECREF(g.files);
  Py_XDECREF(g.problems);
  return result;
}

static PyMethodDef capture_functions[] = {
    {"capture_bytes", capture_bytes, METH_VARARGS,
     "capture_bytes(data) -> (files, problems)"},
    {NULL, NULL, 0, NULL}};

int ext_capture_register(PyObject *module) {
  return PyModule_AddFunctions(module, capture_functions);
}
