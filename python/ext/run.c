/*
 * run.c - etkit.run(): the reference runtime from Python.  Loads a .pte,
 * runs one method `iterations` times on numpy inputs while tracing into a
 * trace session (etk_trace_session_*, sized so that nothing is dropped),
 * and returns (outputs, etdump bytes, debug buffer bytes or None, dropped
 * event count).  The ETDump bytes go straight into
 * etkit.Inspector(etdump_data=...), so a notebook needs no files.
 *
 * Inputs are converted to C-contiguous arrays of the program's dtype
 * (numpy's cast, as np.asarray(x, dtype=...) does: a float64 array feeds a
 * float32 input) only when every value survives the cast: strings, bytes,
 * objects and complex numbers are refused with a TypeError, and a value
 * the input's dtype cannot hold (1e300 for float32, 2.5 or 300 for uint8)
 * with a ValueError naming it (input_values_fit); their shape must be one
 * the program accepts (etk_method_set_input checks).  Outputs are copied
 * into new numpy arrays (scalars become Python numbers).
 *
 * The method runs without the GIL (other Python threads go on), and
 * pending signals are handled between iterations: Ctrl-C stops a long
 * run() with KeyboardInterrupt.
 */
#include "ext.h"

#define NO_IMPORT_ARRAY
#define PY_ARRAY_UNIQUE_SYMBOL etkit_ARRAY_API
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <stdlib.h>
#include <string.h>

#include "etkit/program.h"
#include "etkit/recorder_calibration.h"
#include "etkit/sketch.h"
#include "etkit/trigger.h"
#include "etkit/runtime.h"
#include "etkit/schema.h"

/* An unsafe cast of `src` to `to` (stolen) keeps its values: the rule is
 * etkit._checks.first_misfit's (Python: numpy says it best); 0 when every
 * value fits, else -1 with a ValueError naming the first that does not. */
static int unsafe_cast_fits(PyObject *src, PyArray_Descr *to, size_t i) {
  PyObject *checks = PyImport_ImportModule("etkit._checks");
  PyObject *bad = checks ? PyObject_CallMethod(checks, "first_misfit", "OO",
                                               src, (PyObject *)to)
                         : NULL;
  int rc = bad == Py_None ? 0 : -1;
  if (bad && bad != Py_None)
    PyErr_Format(PyExc_ValueError,
                 "input %zu: value %R does not fit the input's dtype %R "
                 "(given dtype %R)",
                 i, bad, (PyObject *)to,
                 (PyObject *)PyArray_DESCR((PyArrayObject *)src));
  Py_XDECREF(bad);
  Py_XDECREF(checks);
  Py_DECREF(to);
  return rc;
}

/* Input i's values `obj` as numpy holds them: 0 when a cast to numpy type
 * `type` keeps every value, else -1 with TypeError (strings, bytes,
 * objects, complex) or ValueError (a value out of range or not whole). */
static int input_values_fit(PyObject *obj, int type, size_t i) {
  if (PyUnicode_Check(obj) || PyBytes_Check(obj) || PyByteArray_Check(obj)) {
    PyErr_Format(PyExc_TypeError, "input %zu: a %s is not a tensor", i,
                 Py_TYPE(obj)->tp_name);
    return -1;
  }
  PyObject *src = PyArray_FROM_O(obj);
  if (!src) return -1;
  PyArrayObject *a = (PyArrayObject *)src;
  PyArray_Descr *from = PyArray_DESCR(a);
  PyArray_Descr *to = PyArray_DescrFromType(type);
  int rc = 0;
  if (!PyArray_ISNUMBER(a) && !PyArray_ISBOOL(a)) {
    PyErr_Format(PyExc_TypeError,
                 "input %zu: values of dtype %R cannot feed a %R tensor", i,
                 (PyObject *)from, (PyObject *)to);
    rc = -1;
  } else if (PyArray_ISCOMPLEX(a)) {
    PyErr_Format(PyExc_TypeError,
                 "input %zu: complex values (dtype %R) cannot feed a %R tensor",
                 i, (PyObject *)from, (PyObject *)to);
    rc = -1;
  } else if (!PyArray_CanCastTypeTo(from, to, NPY_SAFE_CASTING) &&
             PyArray_SIZE(a) > 0) {
    Py_INCREF(to);
    rc = unsafe_cast_fits(src, to, i);
  }
  Py_DECREF(to);
  Py_DECREF(src);
  return rc;
}

/* Sets input i from a Python object; *keep receives the array the method
 * may borrow until the next set_input. */
static int set_input(etk_method_t *m, size_t i, PyObject *obj,
                     PyObject **keep) {
  const etk_value_t *proto = etk_method_input(m, i);
  etk_error_t err;
  etk_error_clear(&err);
  etk_value_t v;
  memset(&v, 0, sizeof v);
  etk_tensor_t t;
  if (proto->tag == ETK_VALUE_TENSOR) {
    int type = ext_numpy_type(proto->u.tensor->scalar_type);
    if (type < 0) {
      PyErr_Format(PyExc_TypeError, "input %zu has a dtype numpy cannot hold",
                   i);
      return -1;
    }
    if (input_values_fit(obj, type, i) < 0) return -1;
    PyArray_Descr *d = PyArray_DescrFromType(type);
    PyObject *a = PyArray_FromAny(
        obj, d, 0, 0,
        NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_FORCECAST, NULL);
    if (!a) return -1;
    PyArrayObject *arr = (PyArrayObject *)a;
    if (PyArray_NDIM(arr) > ETK_MAX_DIMS) {
      Py_DECREF(a);
      PyErr_Format(PyExc_ValueError, "input %zu has more than %d dimensions", i,
                   ETK_MAX_DIMS);
      return -1;
    }
    t = *proto->u.tensor;
    memset(t.dim_order, 0, sizeof t.dim_order);
    t.dim = PyArray_NDIM(arr);
    for (int k = 0; k < t.dim; k++) {
      npy_intp s = PyArray_DIM(arr, k);
      if (s > INT32_MAX) {
        Py_DECREF(a);
        PyErr_Format(PyExc_ValueError, "input %zu is too large", i);
        return -1;
      }
      t.sizes[k] = (int32_t)s;
    }
    t.data = PyArray_DATA(arr);
    t.nbytes = (size_t)PyArray_NBYTES(arr);
    v.tag = ETK_VALUE_TENSOR;
    v.u.tensor = &t;
    Py_XDECREF(*keep);
    *keep = a;
  } else if (proto->tag == ETK_VALUE_INT) {
    v.tag = ETK_VALUE_INT;
    v.u.i = PyLong_AsLongLong(obj);
    if (PyErr_Occurred()) return -1;
  } else if (proto->tag == ETK_VALUE_DOUBLE) {
    v.tag = ETK_VALUE_DOUBLE;
    v.u.d = PyFloat_AsDouble(obj);
    if (PyErr_Occurred()) return -1;
  } else if (proto->tag == ETK_VALUE_BOOL) {
    if (!PyBool_Check(obj) && !PyArray_IsScalar(obj, Bool)) {
      PyErr_Format(PyExc_TypeError, "input %zu takes a bool, not %s", i,
                   Py_TYPE(obj)->tp_name);
      return -1;
    }
    v.tag = ETK_VALUE_BOOL;
    v.u.b = PyObject_IsTrue(obj) == 1;
  } else {
    PyErr_Format(PyExc_TypeError, "input %zu has a kind etkit.run cannot set",
                 i);
    return -1;
  }
  if (etk_method_set_input(m, i, &v, &err) != ETK_OK) {
    ext_raise(&err);
    return -1;
  }
  return 0;
}

/* Output i as a numpy array (copy) or Python scalar. */
static PyObject *output_value(const etk_method_t *m, size_t i) {
  const etk_value_t *v = etk_method_output(m, i);
  switch (v->tag) {
    case ETK_VALUE_INT:
      return PyLong_FromLongLong(v->u.i);
    case ETK_VALUE_BOOL:
      return PyBool_FromLong(v->u.b);
    case ETK_VALUE_DOUBLE:
      return PyFloat_FromDouble(v->u.d);
    case ETK_VALUE_TENSOR: {
      const etk_tensor_t *t = v->u.tensor;
      int type = ext_numpy_type(t->scalar_type);
      if (type < 0) Py_RETURN_NONE;
      npy_intp dims[ETK_MAX_DIMS];
      for (int k = 0; k < t->dim; k++) dims[k] = t->sizes[k];
      PyObject *a = PyArray_SimpleNew(t->dim, dims, type);
      if (!a) return NULL;
      size_t n = (size_t)PyArray_NBYTES((PyArrayObject *)a);
      if (n > t->nbytes || (n && !t->data)) {
        Py_DECREF(a);
        PyErr_SetString(PyExc_RuntimeError,
                        "output tensor smaller than its shape");
        return NULL;
      }
      if (n) memcpy(PyArray_DATA((PyArrayObject *)a), t->data, n);
      return a;
    }
    default:
      Py_RETURN_NONE;
  }
}

/* Runs the iterations; returns the outputs of the last one. */
static PyObject *run_method(etk_method_t *m, PyObject *inputs,
                            unsigned long iterations, etk_flight_t *flight) {
  size_t nin = etk_method_input_count(m);
  Py_ssize_t given = PySequence_Fast_GET_SIZE(inputs);
  if ((size_t)given != nin)
    return PyErr_Format(PyExc_ValueError,
                        "method '%s' takes %zu inputs, %zd given",
                        etk_method_name(m), nin, given);
  PyObject **keep = PyMem_Calloc(nin ? nin : 1, sizeof *keep);
  if (!keep) return PyErr_NoMemory();
  PyObject *outs = NULL;
  int ok = 1;
  etk_error_t err;
  etk_error_clear(&err);
  for (unsigned long it = 0; ok && it < iterations; it++) {
    for (size_t i = 0; ok && i < nin; i++) /* kernels may alias inputs */
      ok = set_input(m, i, PySequence_Fast_GET_ITEM(inputs, (Py_ssize_t)i),
                     &keep[i]) == 0;
    int rc = ETK_OK;
    if (ok) {
      Py_BEGIN_ALLOW_THREADS rc = etk_method_execute(m, &err);
      Py_END_ALLOW_THREADS
    }
    if (ok && rc != ETK_OK) {
      ext_raise(&err);
      ok = 0;
    }
    /* the run's end: triggers, snapshots, the ring's trim */
    if (ok && flight && (rc = etk_flight_run_end(flight)) != ETK_OK) {
      if (!PyErr_Occurred())
        PyErr_Format(PyExc_RuntimeError, "a snapshot could not be taken: %s",
                     etk_strerror(rc));
      ok = 0;
    }
    if (ok && PyErr_CheckSignals() < 0) ok = 0; /* Ctrl-C between runs */
  }
  if (ok) {
    size_t nout = etk_method_output_count(m);
    outs = PyList_New((Py_ssize_t)nout);
    for (size_t k = 0; outs && k < nout; k++) {
      PyObject *o = output_value(m, k);
      if (!o)
        Py_CLEAR(outs);
      else
        PyList_SET_ITEM(outs, (Py_ssize_t)k, o);
    }
  }
  for (size_t i = 0; i < nin; i++) Py_XDECREF(keep[i]);
  PyMem_Free(keep);
  return outs;
}

/* The program of a .pte, or of a .bpte (*bp set, its program inside). */
static int load_program(const char *path, etk_program_t **prog,
                        etk_bundled_program_t **bp, etk_error_t *err) {
  uint8_t *bytes = NULL;
  size_t len = 0;
  int rc = etk_read_file(path, 0, &bytes, &len, err);
  if (rc == ETK_OK)
    rc = etk_file_kind_detect(bytes, len) == ETK_FILE_BPTE
             ? etk_bundled_program_load(bytes, len, NULL, bp, err)
             : etk_program_load(bytes, len, NULL, prog, err);
  free(bytes);
  if (rc != ETK_OK) etk_error_where(err, path);
  return rc;
}

/* `warmup` runs on an untraced instance, so that the ETDump holds the
 * measured runs only (as `etkit run --warmup`); 0, or -1 with an
 * exception set (or err filled). */
static int warm_up(const etk_program_t *prog, const char *method,
                   PyObject *inputs, unsigned long warmup, etk_error_t *err) {
  etk_method_config_t load;
  memset(&load, 0, sizeof load);
  load.no_allocation_events = 1;
  etk_method_t *w = NULL;
  if (etk_method_load_alloc_with(prog, method, &load, &w, err) != ETK_OK)
    return -1;
  PyObject *outs = run_method(w, inputs, warmup, NULL);
  etk_method_free(w);
  if (!outs) return -1;
  Py_DECREF(outs);
  return 0;
}

/* Measures the recorder's own cost into its dump; 0, or -1 with a Python
 * error. */
static int calibrate_recorder(etk_recorder_t *rec) {
  size_t size = etk_recorder_calibration_scratch_size(0);
  void *scratch = malloc(size);
  int rc = !scratch ? ETK_E_NO_MEMORY
                    : etk_method_calibrate(rec, scratch, size, 0, NULL);
  free(scratch);
  if (rc == ETK_OK) return 0;
  etk_error_t err;
  etk_error_clear(&err);
  etk_error_set(&err, rc, ETK_NO_OFFSET, "cannot calibrate the recorder: %s",
                etk_strerror(rc));
  ext_raise(&err);
  return -1;
}

/* The flight recorder's sink: each snapshot appended to a list. */
static int keep_snapshot(void *ctx, const void *data, size_t len) {
  PyObject *b = PyBytes_FromStringAndSize(data, (Py_ssize_t)len);
  int rc = b ? PyList_Append((PyObject *)ctx, b) : -1;
  Py_XDECREF(b);
  return rc;
}

/* Attaches a flight recorder (etkit/trigger.h) with `triggers` (a tuple of
 * expressions); 0, or -1 with a Python error. */
static int flight_start(etk_flight_t *f, etk_sketch_t *sketches,
                        etk_recorder_t *rec, PyObject *triggers, int ring,
                        const unsigned long limits[4], PyObject *snaps) {
  etk_flight_config_t cfg;
  etk_flight_config_init(&cfg);
  cfg.keep_runs = ring ? (uint32_t)limits[0] : 0;
  cfg.keep_after = (uint32_t)limits[1];
  cfg.trigger_limit = (uint32_t)limits[2];
  cfg.trigger_spacing = (uint32_t)limits[3];
  cfg.write = keep_snapshot;
  cfg.write_ctx = snaps;
  cfg.sketches = sketches;
  cfg.sketch_count = ETK_FLIGHT_MAX_TRIGGERS;
  int rc = etk_flight_init(f, rec, &cfg);
  if (rc != ETK_OK) {
    PyErr_Format(PyExc_RuntimeError, "cannot start the flight recorder: %s",
                 etk_strerror(rc));
    return -1;
  }
  for (Py_ssize_t i = 0; triggers && i < PyTuple_GET_SIZE(triggers); i++) {
    PyObject *o = PyTuple_GET_ITEM(triggers, i);
    const char *text = PyUnicode_Check(o) ? PyUnicode_AsUTF8(o) : NULL;
    const char *why = NULL;
    etk_trigger_t t;
    if (!text) {
      if (!PyErr_Occurred())
        PyErr_Format(PyExc_TypeError, "a trigger must be a str, not %s",
                     Py_TYPE(o)->tp_name);
    } else if (i == ETK_FLIGHT_MAX_TRIGGERS) {
      PyErr_Format(PyExc_ValueError, "at most %d triggers",
                   ETK_FLIGHT_MAX_TRIGGERS);
    } else if (etk_trigger_parse(text, &t, &why) != ETK_OK) {
      PyErr_Format(PyExc_ValueError, "bad trigger '%s': %s", text,
                   why ? why : "not understood");
    } else if ((rc = etk_flight_add_trigger(f, &t)) != ETK_OK) {
      PyErr_Format(PyExc_ValueError, "trigger '%s': %s", text,
                   etk_strerror(rc));
    }
    if (PyErr_Occurred()) {
      (void)etk_flight_finish(f);
      return -1;
    }
  }
  return 0;
}

/* run(path, inputs, iterations, debug_level, method, allocation_events,
 *     warmup, calibrate, ring, triggers, keep_runs, keep_after,
 *     trigger_limit, trigger_spacing, profile_level) -> (outputs, etdump
 *     bytes, debug
 *     bytes or None, dropped, snapshots [bytes], firings not taken) */
static PyObject *m_run(PyObject *mod, PyObject *args) {
  (void)mod;
  PyObject *path_obj, *inputs_obj, *iter_obj;
  unsigned long iterations = 1;
  int debug_level = 0, alloc_events = 0, calibrate = 0, ring = 0;
  unsigned long warmup = 0, limits[4] = {8, 0, 0, 0};
  const char *method = NULL;
  PyObject *triggers = NULL;
  /* ETK_TRACE_PROFILE_ALL, or the stats mode at its error
   * (ETK_TRACE_PROFILE_STATS_AT) */
  int profile_level = ETK_TRACE_PROFILE_ALL;
  if (!PyArg_ParseTuple(args, "O&OOiz|pkppO!kkkki", PyUnicode_FSConverter,
                        &path_obj, &inputs_obj, &iter_obj, &debug_level,
                        &method, &alloc_events, &warmup, &calibrate, &ring,
                        &PyTuple_Type, &triggers, &limits[0], &limits[1],
                        &limits[2], &limits[3], &profile_level))
    return NULL;
  int want_flight = ring || (triggers && PyTuple_GET_SIZE(triggers) > 0);
  for (int k = 0; k < 4; k++)
    if (limits[k] > 1000000 || (k == 0 && limits[k] == 0)) {
      Py_DECREF(path_obj);
      return PyErr_Format(PyExc_ValueError,
                          "keep_runs, keep_after, trigger_limit and "
                          "trigger_spacing must be counts up to 1000000 "
                          "(keep_runs at least 1), not %lu",
                          limits[k]);
    }
  if (warmup > 1000000) {
    Py_DECREF(path_obj);
    return PyErr_Format(PyExc_ValueError, "warmup must be 0..1000000, not %lu",
                        warmup);
  }
  if (!PyLong_Check(iter_obj) || PyBool_Check(iter_obj)) {
    Py_DECREF(path_obj);
    return PyErr_Format(PyExc_TypeError, "iterations must be an int, not %s",
                        Py_TYPE(iter_obj)->tp_name);
  }
  int overflow = 0;
  long long want = PyLong_AsLongLongAndOverflow(iter_obj, &overflow);
  if (overflow || want < 1 || want > 1000000) {
    Py_DECREF(path_obj);
    return PyErr_Format(PyExc_ValueError,
                        "iterations must be 1..1000000, not %S", iter_obj);
  }
  iterations = (unsigned long)want;
  if (debug_level < 0 || debug_level > 3) {
    Py_DECREF(path_obj);
    return PyErr_Format(PyExc_ValueError, "debug_level must be 0..3, not %d",
                        debug_level);
  }
  PyObject *inputs = PySequence_Fast(inputs_obj, "inputs must be a sequence");
  if (!inputs) {
    Py_DECREF(path_obj);
    return NULL;
  }
  etk_error_t err;
  etk_error_clear(&err);
  etk_program_t *prog = NULL, *loaded = NULL;
  etk_bundled_program_t *bp = NULL;
  etk_method_t *m = NULL;
  etk_trace_session_t s;
  memset(&s, 0, sizeof s);
  PyObject *result = NULL, *outs = NULL, *snaps = NULL;
  etk_flight_t flight;
  etk_sketch_t sketches[ETK_FLIGHT_MAX_TRIGGERS];
  int flying = 0;
  if (load_program(PyBytes_AS_STRING(path_obj), &loaded, &bp, &err) != ETK_OK) {
    ext_raise(&err);
    goto done;
  }
  prog = bp ? bp->program : loaded;
  const etk_program_plan_t *plan =
      etk_program_find_plan(prog, method ? method : "forward");
  if (!plan && !method) plan = etk_program_find_plan(prog, NULL);
  if (!plan) {
    PyErr_Format(PyExc_KeyError, "no method named '%s'",
                 method ? method : "forward");
    goto done;
  }
  etk_method_config_t load;
  memset(&load, 0, sizeof load);
  /* a ring holds its K runs, the M after a firing and two more (as `etkit
   * run` sizes it) */
  unsigned long sized = iterations;
  if (ring && limits[0] + limits[1] + 2u < sized)
    sized = limits[0] + limits[1] + 2u;
  if (etk_trace_session_create(plan, (unsigned)sized, debug_level,
                               profile_level, debug_level > 0, &s,
                               &err) != ETK_OK) {
    ext_raise(&err);
    goto done;
  }
  /* the recorder's own cost, for Inspector(..., compensate=True) */
  if (calibrate && calibrate_recorder(s.rec) < 0) goto done;
  load.recorder = s.rec;
  load.no_allocation_events = !alloc_events;
  if (etk_method_load_alloc_with(prog, plan->name, &load, &m, &err) != ETK_OK) {
    ext_raise(&err);
    goto done;
  }
  if (warmup && warm_up(prog, plan->name, inputs, warmup, &err) < 0) {
    if (!PyErr_Occurred()) ext_raise(&err);
    goto done;
  }
  if (want_flight) {
    if (!(snaps = PyList_New(0)) ||
        flight_start(&flight, sketches, s.rec, triggers, ring, limits, snaps) <
            0)
      goto done;
    flying = 1;
  }
  if (!(outs = run_method(m, inputs, iterations, flying ? &flight : NULL)))
    goto done;
  uint32_t suppressed = flying ? flight.suppressed : 0;
  if (flying) {
    int frc = etk_flight_finish(&flight);
    flying = 0;
    if (frc != ETK_OK) {
      if (!PyErr_Occurred())
        PyErr_Format(PyExc_RuntimeError, "a snapshot could not be written: %s",
                     etk_strerror(frc));
      goto done;
    }
  }
  const uint8_t *dump, *debug;
  size_t dump_len, debug_len;
  uint32_t dropped = 0;
  if (etk_trace_session_finish(&s, &dump, &dump_len, &debug, &debug_len,
                               &dropped, &err) != ETK_OK) {
    ext_raise(&err);
    goto done;
  }
  PyObject *dbg = debug ? PyBytes_FromStringAndSize((const char *)debug,
                                                    (Py_ssize_t)debug_len)
                        : (Py_INCREF(Py_None), Py_None);
  if (!snaps && !(snaps = PyList_New(0))) goto done;
  result = Py_BuildValue(
      "(ONNkOk)", outs,
      PyBytes_FromStringAndSize((const char *)dump, (Py_ssize_t)dump_len), dbg,
      (unsigned long)dropped, snaps, (unsigned long)suppressed);
done:
  if (flying) (void)etk_flight_finish(&flight);
  Py_XDECREF(snaps);
  Py_XDECREF(outs);
  etk_method_free(m);
  etk_trace_session_free(&s);
  etk_program_free(loaded);
  etk_bundled_program_free(bp);
  Py_DECREF(inputs);
  Py_DECREF(path_obj);
  return result;
}

static PyMethodDef run_functions[] = {
    {"run", m_run, METH_VARARGS,
     "run(path, inputs, iterations, debug_level, method, allocation_events, "
     "warmup)"},
    {NULL, NULL, 0, NULL}};

int ext_run_register(PyObject *module) {
  /* the example delegate, as `etkit run` has it (a static library's
   * constructor is not linked in unless referenced) */
  (void)etk_backend_register_builtin(etk_micro_backend());
  if (ext_program_register(module) < 0) return -1;
  return PyModule_AddFunctions(module, run_functions);
}
