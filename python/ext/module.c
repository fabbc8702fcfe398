/*
 * module.c - the Inspector part of the _etkit extension module (init.c
 * creates the module): an Inspector handle over etk_inspector_t, and the
 * analyses (render, diff, trace, compare_results) as functions returning
 * Python values.  Other files reach a handle's C object through handle.h.
 *
 * LAYOUT
 *   open_inspector()   opens an ETDump (path or bytes) with the time scales
 *                      and debug buffer, returns an InspectorHandle;
 *   InspectorHandle    per-block and per-event accessors (tuples of plain
 *                      values, read on demand: nothing is materialised per
 *                      event until Python asks), columns() (a range of
 *                      events as numpy arrays, every DataFrame column
 *                      filled in C), render() (table, TSV, CSV, JSON as
 *                      `etkit inspect` writes it), ETRecord linking,
 *                      module totals, compare_results, trace;
 *   diff()             etkit diff of two handles as TSV text.
 *
 * OWNERSHIP
 *   The handle owns its etk_inspector_t and keeps the Python bytes objects
 *   it borrows from (the ETDump bytes, the debug buffer) alive until it is
 *   freed, so a handle can never point at released memory.  C errors
 *   become Python exceptions (values.c); no C call writes to stdout or
 *   stderr: notes and warnings are returned as lists of lines.
 *
 * THREADS
 *   Long C work runs without the GIL (rendering, the trace, diff), and
 *   columns() lets the interpreter switch threads and run signal handlers
 *   (Ctrl-C) every COLUMNS_YIELD events, as between two Python calls, so
 *   other Python threads keep running.  The C inspector allows concurrent
 *   read-only calls but not two renderings or linkings at once
 *   (etkit/inspector_core.h, THREADS): those hold the handle's lock, taken
 *   without the GIL so that a waiting thread never blocks the one that
 *   owns it.  Sort options live in the callers' frames (etk_sort_r), so
 *   two handles render in parallel.  While columns() runs, new arenas of
 *   CPython's small-object allocator are faulted in at once (below).
 */
#include "ext.h"
#include "handle.h"

#define PY_ARRAY_UNIQUE_SYMBOL etkit_ARRAY_API
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <math.h>
#include <string.h>
#include <sys/mman.h>

#include "etkit/latency_dump.h"
#include "etkit/render.h"

typedef struct {
  PyObject_HEAD etk_inspector_t *insp;
  PyObject *data;   /* bytes the dump borrows (NULL when opened by path) */
  PyObject *debug;  /* bytes of the debug buffer, or NULL */
  PyObject *record; /* the linked ETRecordHandle, or NULL */
  PyThread_type_lock lock; /* held while rendering or linking */
} ext_inspector_t;

static PyTypeObject ext_inspector_type;

/* Takes the handle's lock, waiting without the GIL when another thread
 * holds it. */
static void handle_lock(ext_inspector_t *self) {
  if (PyThread_acquire_lock(self->lock, NOWAIT_LOCK)) return;
  Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock(self->lock, WAIT_LOCK);
  Py_END_ALLOW_THREADS
}

static void handle_unlock(ext_inspector_t *self) {
  PyThread_release_lock(self->lock);
}

etk_inspector_t *ext_inspector_of(PyObject *o) {
  if (!o || !PyObject_TypeCheck(o, &ext_inspector_type)) return NULL;
  return ((ext_inspector_t *)o)->insp;
}

void ext_inspector_debug(PyObject *o, const uint8_t **data, size_t *len) {
  *data = NULL;
  *len = 0;
  if (!ext_inspector_of(o)) return;
  PyObject *d = ((ext_inspector_t *)o)->debug;
  if (d && PyBytes_Check(d)) {
    *data = (const uint8_t *)PyBytes_AS_STRING(d);
    *len = (size_t)PyBytes_GET_SIZE(d);
  }
}

static void inspector_dealloc(ext_inspector_t *self) {
  if (self->lock) PyThread_free_lock(self->lock);
  etk_inspector_close(self->insp);
  Py_XDECREF(self->data);
  Py_XDECREF(self->debug);
  Py_XDECREF(self->record);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

/* open_inspector(path, data, source, target, debug, quirks, clock_hz
 *                [, compensate, event_cost_ns]) */
static PyObject *inspector_open(PyObject *mod, PyObject *args) {
  (void)mod;
  PyObject *path = NULL, *path_obj = NULL, *data = NULL, *debug = NULL;
  const char *source, *target;
  int quirks = 0, compensate = 0;
  double clock_hz = 0, event_cost_ns = 0;
  if (!PyArg_ParseTuple(args, "OOssOpd|pd", &path, &data, &source, &target,
                        &debug, &quirks, &clock_hz, &compensate,
                        &event_cost_ns))
    return NULL;
  if (path != Py_None) {
    if (!PyUnicode_FSConverter(path, &path_obj)) return NULL;
  } else if (!PyBytes_Check(data)) {
    return PyErr_Format(PyExc_TypeError, "etdump_data must be bytes");
  }
  etk_inspector_options_t opt;
  etk_inspector_options_init(&opt);
  etk_error_t err;
  etk_error_clear(&err);
  if (etk_time_scale_parse(source, &opt.source_time_scale) != ETK_OK ||
      etk_time_scale_parse(target, &opt.target_time_scale) != ETK_OK) {
    Py_XDECREF(path_obj);
    return PyErr_Format(PyExc_ValueError, "unknown time scale");
  }
  opt.clock_hz = clock_hz;
  opt.flags = quirks ? ETK_INSPECTOR_QUIRKS_ALL : 0;
  opt.compensate = compensate;
  opt.event_cost_ns = event_cost_ns;
  if (debug != Py_None) {
    if (!PyBytes_Check(debug)) {
      Py_XDECREF(path_obj);
      return PyErr_Format(PyExc_TypeError, "debug buffer must be bytes");
    }
    opt.debug_buffer = (const uint8_t *)PyBytes_AS_STRING(debug);
    opt.debug_buffer_len = (size_t)PyBytes_GET_SIZE(debug);
  }
  etk_inspector_t *insp = NULL;
  int rc;
  if (path_obj) {
    const char *file = PyBytes_AS_STRING(path_obj);
    Py_BEGIN_ALLOW_THREADS rc =
        etk_inspector_open_path(file, &opt, &insp, &err);
    Py_END_ALLOW_THREADS Py_DECREF(path_obj);
  } else {
    const char *bytes = PyBytes_AS_STRING(data);
    size_t len = (size_t)PyBytes_GET_SIZE(data);
    Py_BEGIN_ALLOW_THREADS rc =
        etk_inspector_open_memory(bytes, len, &opt, &insp, &err);
    Py_END_ALLOW_THREADS
  }
  if (rc != ETK_OK) return ext_raise(&err);
  ext_inspector_t *self = PyObject_New(ext_inspector_t, &ext_inspector_type);
  if (!self) {
    etk_inspector_close(insp);
    return NULL;
  }
  self->insp = insp;
  self->lock = PyThread_allocate_lock();
  self->data = path_obj ? NULL : (Py_INCREF(data), data);
  self->debug = debug != Py_None ? (Py_INCREF(debug), debug) : NULL;
  self->record = NULL;
  if (!self->lock) {
    Py_DECREF(self);
    return PyErr_NoMemory();
  }
  return (PyObject *)self;
}

static const uint8_t *debug_bytes(const ext_inspector_t *self, size_t *len) {
  *len = self->debug ? (size_t)PyBytes_GET_SIZE(self->debug) : 0;
  return self->debug ? (const uint8_t *)PyBytes_AS_STRING(self->debug) : NULL;
}

/* ------------------------------------------------------------ accessors */

static PyObject *h_block_count(ext_inspector_t *self, PyObject *unused) {
  (void)unused;
  return PyLong_FromSize_t(etk_inspector_block_count(self->insp));
}

/* block(i) -> (name (None when the run has none, as upstream),
 * bundled_input_index, first_event, event_count, outputs (ETDump event
 * indices), run_count) */
static PyObject *h_block(ext_inspector_t *self, PyObject *arg) {
  Py_ssize_t i = PyLong_AsSsize_t(arg);
  if (i == -1 && PyErr_Occurred()) return NULL;
  etk_inspector_block_t b;
  if (i < 0 || etk_inspector_block_get(self->insp, (size_t)i, &b) != ETK_OK)
    return PyErr_Format(PyExc_IndexError, "block %zd out of range", i);
  PyObject *outs = PyTuple_New((Py_ssize_t)b.output_count);
  for (size_t k = 0; outs && k < b.output_count; k++)
    PyTuple_SET_ITEM(outs, (Py_ssize_t)k,
                     PyLong_FromUnsignedLong(b.outputs[k]));
  if (!outs) return NULL;
  PyObject *name = b.name_present ? ext_text(b.name, b.name_len)
                                  : (Py_INCREF(Py_None), Py_None);
  return Py_BuildValue("(NinnNn)", name, (int)b.bundled_input_index,
                       (Py_ssize_t)b.first_event, (Py_ssize_t)b.event_count,
                       outs, (Py_ssize_t)b.run_count);
}

static PyObject *h_event_count(ext_inspector_t *self, PyObject *unused) {
  (void)unused;
  return PyLong_FromSize_t(etk_inspector_event_count(self->insp));
}

static int event_arg(ext_inspector_t *self, PyObject *arg, size_t *out) {
  Py_ssize_t i = PyLong_AsSsize_t(arg);
  if (i == -1 && PyErr_Occurred()) return -1;
  if (i < 0 || (size_t)i >= etk_inspector_event_count(self->insp)) {
    PyErr_Format(PyExc_IndexError, "event %zd out of range", i);
    return -1;
  }
  *out = (size_t)i;
  return 0;
}

static PyObject *delegate_id(const etk_inspector_event_t *e) {
  if (!e->is_delegated_op) Py_RETURN_NONE;
  if (e->delegate_id_is_int)
    return PyLong_FromLongLong(e->delegate_debug_id_int);
  return ext_text(e->delegate_debug_id_str, strlen(e->delegate_debug_id_str));
}

/* event(i) -> (block, name, instruction_id, is_delegated_op, delegate id,
 *              sample_count, debug_count, has_debug_signature) */
static PyObject *h_event(ext_inspector_t *self, PyObject *arg) {
  size_t i;
  etk_inspector_event_t e;
  if (event_arg(self, arg, &i) < 0) return NULL;
  etk_inspector_event_get(self->insp, i, &e);
  return Py_BuildValue("(nNiONnni)", (Py_ssize_t)e.block,
                       ext_text(e.name, e.name_len), (int)e.instruction_id,
                       e.is_delegated_op ? Py_True : Py_False, delegate_id(&e),
                       (Py_ssize_t)e.sample_count, (Py_ssize_t)e.debug_count,
                       e.has_debug_signature);
}

/* samples(i) -> (raw durations, start times, end times, metadata) where
 * metadata holds bytes per sample (b"" when absent) */
static PyObject *h_samples(ext_inspector_t *self, PyObject *arg) {
  size_t i;
  etk_inspector_event_t e;
  if (event_arg(self, arg, &i) < 0) return NULL;
  etk_inspector_event_get(self->insp, i, &e);
  Py_ssize_t n = (Py_ssize_t)e.sample_count;
  PyObject *raw = PyList_New(0), *start = PyList_New(n), *end = PyList_New(n),
           *meta = PyList_New(n);
  if (!raw || !start || !end || !meta) goto fail;
  for (Py_ssize_t k = 0; k < n; k++) {
    etk_inspector_sample_t s;
    etk_inspector_event_sample(self->insp, i, (size_t)k, &s);
    if (!isnan(s.duration)) {
      PyObject *d = PyFloat_FromDouble(s.duration);
      if (!d || PyList_Append(raw, d) < 0) {
        Py_XDECREF(d);
        goto fail;
      }
      Py_DECREF(d);
    }
    PyObject *a = PyLong_FromUnsignedLongLong(s.start_time);
    PyObject *b = PyLong_FromUnsignedLongLong(s.end_time);
    PyObject *m = PyBytes_FromStringAndSize((const char *)s.metadata,
                                            s.metadata ? s.metadata_len : 0);
    if (!a || !b || !m) {
      Py_XDECREF(a);
      Py_XDECREF(b);
      Py_XDECREF(m);
      goto fail;
    }
    PyList_SET_ITEM(start, k, a);
    PyList_SET_ITEM(end, k, b);
    PyList_SET_ITEM(meta, k, m);
  }
  return Py_BuildValue("(NNNN)", raw, start, end, meta);
fail:
  Py_XDECREF(raw);
  Py_XDECREF(start);
  Py_XDECREF(end);
  Py_XDECREF(meta);
  return NULL;
}

/* debug_data(i) -> list of inflated values */
static PyObject *h_debug_data(ext_inspector_t *self, PyObject *arg) {
  size_t i, len;
  etk_inspector_event_t e;
  if (event_arg(self, arg, &i) < 0) return NULL;
  etk_inspector_event_get(self->insp, i, &e);
  const uint8_t *buf = debug_bytes(self, &len);
  const etk_etdump_t *dump = etk_inspector_etdump(self->insp);
  PyObject *list = PyList_New((Py_ssize_t)e.debug_count);
  for (size_t k = 0; list && k < e.debug_count; k++) {
    uint32_t ev;
    etk_inspector_event_debug_entry(self->insp, i, k, &ev);
    PyObject *v = ext_debug_value(dump, buf, len, ev);
    if (!v)
      Py_CLEAR(list);
    else
      PyList_SET_ITEM(list, (Py_ssize_t)k, v);
  }
  return list;
}

/* debug_strides(i) -> per debug value, the strides the ETDump records
 * (ext_debug_strides) */
static PyObject *h_debug_strides(ext_inspector_t *self, PyObject *arg) {
  size_t i;
  etk_inspector_event_t e;
  if (event_arg(self, arg, &i) < 0) return NULL;
  etk_inspector_event_get(self->insp, i, &e);
  const etk_etdump_t *dump = etk_inspector_etdump(self->insp);
  PyObject *list = PyList_New((Py_ssize_t)e.debug_count);
  for (size_t k = 0; list && k < e.debug_count; k++) {
    uint32_t ev;
    etk_inspector_event_debug_entry(self->insp, i, k, &ev);
    PyObject *v = ext_debug_strides(dump, ev);
    if (!v)
      Py_CLEAR(list);
    else
      PyList_SET_ITEM(list, (Py_ssize_t)k, v);
  }
  return list;
}

/* value(etdump_event) -> the inflated value of one debug event */
static PyObject *h_value(ext_inspector_t *self, PyObject *arg) {
  unsigned long ev = PyLong_AsUnsignedLong(arg);
  if (PyErr_Occurred()) return NULL;
  size_t len;
  const uint8_t *buf = debug_bytes(self, &len);
  return ext_debug_value(etk_inspector_etdump(self->insp), buf, len,
                         (uint32_t)ev);
}

static PyObject *text_or_none(const char *s) {
  if (!s) Py_RETURN_NONE;
  return ext_text(s, strlen(s));
}

/* nn_module_stack of linked node k as {key: (path, type)}, or None. */
static PyObject *origin_modules(const etk_inspector_node_origin_t *o) {
  if (!o || !o->module_count) Py_RETURN_NONE;
  PyObject *d = PyDict_New();
  for (size_t m = 0; d && m < o->module_count; m++) {
    const etk_inspector_module_t *x = &o->modules[m];
    PyObject *v =
        Py_BuildValue("(NN)", text_or_none(x->path), text_or_none(x->type));
    if (!v || PyDict_SetItemString(d, x->key, v) < 0) Py_CLEAR(d);
    Py_XDECREF(v);
  }
  return d;
}

/* link(i) -> None, or (debug_handles, num_outputs, backend, op_types,
 *                      stack_traces dict, module_hierarchy dict) */
static PyObject *h_link(ext_inspector_t *self, PyObject *arg) {
  size_t i;
  if (event_arg(self, arg, &i) < 0) return NULL;
  etk_inspector_event_link_t l;
  etk_inspector_event_link(self->insp, i, &l);
  PyObject *handles;
  if (!l.has_debug_handles) {
    handles = Py_None;
    Py_INCREF(handles);
  } else if (!l.debug_handles_is_list) {
    handles =
        PyLong_FromLongLong(l.debug_handle_count ? l.debug_handles[0] : 0);
  } else {
    handles = PyList_New((Py_ssize_t)l.debug_handle_count);
    for (size_t k = 0; handles && k < l.debug_handle_count; k++)
      PyList_SET_ITEM(handles, (Py_ssize_t)k,
                      PyLong_FromLongLong(l.debug_handles[k]));
  }
  PyObject *ops = PyList_New((Py_ssize_t)l.op_type_count);
  for (size_t k = 0; ops && k < l.op_type_count; k++)
    PyList_SET_ITEM(ops, (Py_ssize_t)k, text_or_none(l.op_types[k]));
  const etk_inspector_node_origin_t *origins = NULL;
  size_t norigins = 0;
  etk_inspector_event_origins(self->insp, i, &origins, &norigins);
  PyObject *traces = PyDict_New(), *mods = PyDict_New();
  for (size_t k = 0; traces && mods && k < l.node_count; k++) {
    const etk_inspector_link_node_t *nd = &l.nodes[k];
    PyObject *st = text_or_none(nd->stack_trace);
    PyObject *mh;
    if (!nd->module_hierarchy) {
      mh = Py_None;
      Py_INCREF(mh);
    } else {
      mh = origin_modules(k < norigins ? &origins[k] : NULL);
      if (mh == Py_None) { /* undecodable: keep the text */
        Py_DECREF(mh);
        mh = text_or_none(nd->module_hierarchy);
      }
    }
    if (!st || !mh || PyDict_SetItemString(traces, nd->name, st) < 0 ||
        PyDict_SetItemString(mods, nd->name, mh) < 0) {
      Py_CLEAR(traces);
    }
    Py_XDECREF(st);
    Py_XDECREF(mh);
  }
  if (!handles || !ops || !traces || !mods) {
    Py_XDECREF(handles);
    Py_XDECREF(ops);
    Py_XDECREF(traces);
    Py_XDECREF(mods);
    return NULL;
  }
  return Py_BuildValue("(NLNNNN)", handles, (long long)l.num_outputs,
                       text_or_none(l.delegate_backend_name), ops, traces,
                       mods);
}

/* ------------------------------------------------------------ columns */

/* A small direct-mapped cache of event names keyed by their address in the
 * dump (names are interned there, so one address is one name): repeated
 * names share one str object, at no per-event allocation. */
#define NAME_CACHE_SIZE 4096
typedef struct name_cache {
  const char *key[NAME_CACHE_SIZE];
  size_t len[NAME_CACHE_SIZE];
  PyObject *value[NAME_CACHE_SIZE];
} name_cache_t;

static void name_cache_clear(name_cache_t *c) {
  for (size_t i = 0; i < NAME_CACHE_SIZE; i++) Py_XDECREF(c->value[i]);
}

/* The name of `e` as a new reference; delegate ids' decimal text lives in
 * scratch memory (one address, many names) and is never cached. */
static PyObject *event_name(name_cache_t *c, const etk_inspector_event_t *e) {
  if (e->is_delegated_op && e->delegate_id_is_int)
    return ext_text(e->name, e->name_len);
  size_t h = ((uintptr_t)e->name >> 2) % NAME_CACHE_SIZE;
  if (c->key[h] == e->name && c->len[h] == e->name_len) {
    Py_INCREF(c->value[h]);
    return c->value[h];
  }
  PyObject *v = ext_text(e->name, e->name_len);
  if (!v) return NULL;
  Py_XDECREF(c->value[h]);
  c->key[h] = e->name;
  c->len[h] = e->name_len;
  c->value[h] = v;
  Py_INCREF(v);
  return v;
}

/* A 1-D object array of n entries (all NULL until set). */
static PyObject *new_objects(size_t n) {
  npy_intp dims[1] = {(npy_intp)n};
  return PyArray_ZEROS(1, dims, NPY_OBJECT, 0);
}

/* Stores `v` (a new reference, stolen) as element i of object array `a`. */
static void objects_set(PyObject *a, size_t i, PyObject *v) {
  PyObject **slot =
      (PyObject **)PyArray_GETPTR1((PyArrayObject *)a, (npy_intp)i);
  Py_XDECREF(*slot);
  *slot = v;
}

static PyObject *new_doubles(size_t n, double **data) {
  npy_intp dims[1] = {(npy_intp)n};
  PyObject *a = PyArray_SimpleNew(1, dims, NPY_FLOAT64);
  if (a) *data = (double *)PyArray_DATA((PyArrayObject *)a);
  return a;
}

/* Durations repeat (they are whole source-time units scaled), so the
 * float objects of the `raw` lists are shared through a direct-mapped
 * cache keyed by the double's bits: a million one-element lists then hold
 * a few hundred float objects instead of a million (floats are immutable,
 * so sharing is invisible). */
#define FLOAT_CACHE_SIZE 4096
typedef struct float_cache {
  uint64_t bits[FLOAT_CACHE_SIZE];
  PyObject *value[FLOAT_CACHE_SIZE];
} float_cache_t;

static void float_cache_clear(float_cache_t *c) {
  for (size_t i = 0; i < FLOAT_CACHE_SIZE; i++) Py_XDECREF(c->value[i]);
}

/* `v` as a new reference, shared with earlier equal doubles. */
static PyObject *cached_float(float_cache_t *c, double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  size_t h = (size_t)((bits * 0x9E3779B97F4A7C15ull) >> 52) % FLOAT_CACHE_SIZE;
  if (c->value[h] && c->bits[h] == bits) {
    Py_INCREF(c->value[h]);
    return c->value[h];
  }
  PyObject *f = PyFloat_FromDouble(v);
  if (!f) return NULL;
  Py_XDECREF(c->value[h]);
  c->bits[h] = bits;
  c->value[h] = f;
  Py_INCREF(f);
  return f;
}

/* Per-event lists of columns(): raw and start_time (None when no perf
 * data). */
static int sample_lists(etk_inspector_t *insp, size_t i, size_t n,
                        double *scratch, float_cache_t *floats, PyObject **raw,
                        PyObject **start) {
  size_t got = 0;
  etk_inspector_event_durations(insp, i, scratch, &got);
  *raw = PyList_New((Py_ssize_t)got);
  *start = PyList_New((Py_ssize_t)n);
  if (!*raw || !*start) return -1;
  for (size_t k = 0; k < got; k++) {
    PyObject *d = cached_float(floats, scratch[k]);
    if (!d) return -1;
    PyList_SET_ITEM(*raw, (Py_ssize_t)k, d);
  }
  for (size_t k = 0; k < n; k++) {
    etk_inspector_sample_t s;
    etk_inspector_event_sample(insp, i, k, &s);
    PyObject *t = PyLong_FromUnsignedLongLong(s.start_time);
    if (!t) return -1;
    PyList_SET_ITEM(*start, (Py_ssize_t)k, t);
  }
  return 0;
}

/* columns() gives other threads their turn (and checks for Ctrl-C) every
 * COLUMNS_YIELD cells of a column: well under a millisecond of work. */
#define COLUMNS_YIELD 4096

/* "lambda: None", made once by ext_inspector_register. */
static PyObject *interpreter_turn;

/* Does between two events what the interpreter does between two Python
 * calls: calling an empty Python function enters its evaluation loop,
 * which at a function's start hands the GIL to a thread that has waited
 * for it a switch interval (sys.getswitchinterval(), 5 ms) and runs
 * pending signal handlers.  So a waiting thread gets its turn as it would
 * beside Python code, and when none waits this costs one call (tens of
 * nanoseconds), never a pause.  -1 with the exception of a signal handler
 * (KeyboardInterrupt) set. */
static int yield_gil(void) {
  PyObject *r = PyObject_CallObject(interpreter_turn, NULL);
  if (!r) return -1;
  Py_DECREF(r);
  return PyErr_CheckSignals();
}

/* What columns() fills: one entry per event of the range in each array.
 * Object arrays hold the frame's cells; the flags and `sig` only steer the
 * Python side (which rows need a per-event call, which dtypes pandas
 * picks) and are small (a byte per event). */
enum {
  OBJ_NAME,
  OBJ_ID,
  OBJ_RAW,
  OBJ_START,
  OBJ_OPS,
  OBJ_TRACES,
  OBJ_MODULES,
  OBJ_DEBUG,
  OBJ_BACKEND,
  OBJ_COUNT
};
static const char *const object_keys[OBJ_COUNT] = {"name",
                                                   "delegate_id",
                                                   "raw",
                                                   "start_time",
                                                   "op_types",
                                                   "stack_traces",
                                                   "module_hierarchy",
                                                   "debug_data",
                                                   "delegate_backend_name"};
enum { FLAG_PERF, FLAG_DELEGATED, FLAG_LINKED, FLAG_DEBUG, FLAG_COUNT };
static const char *const flag_keys[FLAG_COUNT] = {"has_perf", "is_delegated",
                                                  "linked", "has_debug"};
static const char *const stat_keys[6] = {"p10", "p50", "p90",
                                         "avg", "min", "max"};

typedef struct columns {
  PyObject *objects[OBJ_COUNT];
  PyObject *flags[FLAG_COUNT];
  PyObject *stats[6];
  PyObject *sig; /* int8: delegate id kind (0 none, 1 int, 2 str) * 2 +
                    has perf data; Python adds 6 where a backend is linked */
  npy_bool *flag[FLAG_COUNT];
  double *st[6];
  int8_t *sigs;
  double *scratch; /* one event's durations */
  name_cache_t *names;
  float_cache_t *floats;
} columns_t;

static void columns_free(columns_t *c) {
  for (int k = 0; k < OBJ_COUNT; k++) Py_XDECREF(c->objects[k]);
  for (int k = 0; k < FLAG_COUNT; k++) Py_XDECREF(c->flags[k]);
  for (int k = 0; k < 6; k++) Py_XDECREF(c->stats[k]);
  Py_XDECREF(c->sig);
  PyMem_Free(c->scratch);
  if (c->names) name_cache_clear(c->names);
  PyMem_Free(c->names);
  if (c->floats) float_cache_clear(c->floats);
  PyMem_Free(c->floats);
}

/* Allocates every array for n events (exact sizes) and the caches; 0, or
 * -1 (what was made is freed by columns_free). */
static int columns_alloc(columns_t *c, size_t n, size_t max_samples) {
  npy_intp dims[1] = {(npy_intp)n};
  c->scratch = PyMem_Malloc(max_samples * sizeof *c->scratch);
  c->names = PyMem_Calloc(1, sizeof *c->names);
  c->floats = PyMem_Calloc(1, sizeof *c->floats);
  if (!c->scratch || !c->names || !c->floats) return -1;
  for (int k = 0; k < OBJ_COUNT; k++)
    if (!(c->objects[k] = new_objects(n))) return -1;
  for (int k = 0; k < FLAG_COUNT; k++) {
    if (!(c->flags[k] = PyArray_SimpleNew(1, dims, NPY_BOOL))) return -1;
    c->flag[k] = (npy_bool *)PyArray_DATA((PyArrayObject *)c->flags[k]);
  }
  for (int k = 0; k < 6; k++)
    if (!(c->stats[k] = new_doubles(n, &c->st[k]))) return -1;
  if (!(c->sig = PyArray_SimpleNew(1, dims, NPY_INT8))) return -1;
  c->sigs = (int8_t *)PyArray_DATA((PyArrayObject *)c->sig);
  return 0;
}

static PyObject *none_ref(void) {
  Py_INCREF(Py_None);
  return Py_None;
}

/* The columns whose cells start as new empty lists or dicts. */
#define OBJ_IS_EMPTY(j) ((j) >= OBJ_OPS && (j) <= OBJ_DEBUG)

/* Fills entry k with event i, all but the empty cells: names and
 * durations shared through the caches (immutable), the rest new
 * references.  0, or -1 with an exception set. */
static int columns_event(columns_t *c, etk_inspector_t *insp, size_t i,
                         size_t k) {
  etk_inspector_event_t e;
  etk_inspector_event_get(insp, i, &e);
  etk_inspector_event_link_t l;
  etk_inspector_event_link(insp, i, &l);
  etk_stats_t s;
  int perf = etk_inspector_event_stats(insp, i, &s) == ETK_OK;
  c->flag[FLAG_PERF][k] = perf != 0;
  c->flag[FLAG_DELEGATED][k] = e.is_delegated_op != 0;
  c->flag[FLAG_LINKED][k] = l.has_debug_handles || l.node_count ||
                            l.op_type_count || l.delegate_backend_name ||
                            l.num_outputs != 1;
  c->flag[FLAG_DEBUG][k] = e.debug_count != 0;
  double v[6] = {s.p10, s.p50, s.p90, s.avg, s.min, s.max};
  for (int j = 0; j < 6; j++) c->st[j][k] = perf ? v[j] : NAN;
  int id_kind = !e.is_delegated_op ? 0 : e.delegate_id_is_int ? 1 : 2;
  c->sigs[k] = (int8_t)(id_kind * 2 + (perf != 0));
  PyObject *cell[OBJ_COUNT] = {0};
  cell[OBJ_NAME] = event_name(c->names, &e);
  cell[OBJ_ID] = delegate_id(&e);
  if (!perf) {
    cell[OBJ_RAW] = none_ref();
    cell[OBJ_START] = none_ref();
  } else if (sample_lists(insp, i, e.sample_count, c->scratch, c->floats,
                          &cell[OBJ_RAW], &cell[OBJ_START]) < 0) {
    Py_CLEAR(cell[OBJ_RAW]);
    Py_CLEAR(cell[OBJ_START]);
  }
  cell[OBJ_BACKEND] = none_ref();
  int ok = 1;
  for (int j = 0; j < OBJ_COUNT; j++) ok = ok && (cell[j] || OBJ_IS_EMPTY(j));
  for (int j = 0; j < OBJ_COUNT; j++) {
    if (OBJ_IS_EMPTY(j)) continue;
    if (ok)
      objects_set(c->objects[j], k, cell[j]);
    else
      Py_XDECREF(cell[j]);
  }
  return ok ? 0 : -1;
}

/* Fills the columns of empty cells, a column at a time: each cell a new
 * list or dict of its own (upstream's per-event default_factory, so an
 * append to one cell changes no other cell and no later frame).  One
 * column's cells then lie side by side, and freeing the frame walks the
 * memory in order.  0, or -1 with an exception set. */
static int columns_empty_cells(columns_t *c, size_t n) {
  for (int j = OBJ_OPS; j <= OBJ_DEBUG; j++) {
    int dict = j == OBJ_TRACES || j == OBJ_MODULES;
    for (size_t k = 0; k < n; k++) {
      if (k % COLUMNS_YIELD == COLUMNS_YIELD - 1 && yield_gil() < 0) return -1;
      PyObject *v = dict ? PyDict_New() : PyList_New(0);
      if (!v) return -1;
      objects_set(c->objects[j], k, v);
    }
  }
  return 0;
}

/* While columns() runs, each arena (1 MiB) that CPython's small-object
 * allocator takes is faulted in at once (MADV_POPULATE_WRITE: one system
 * call instead of a page fault per 4 KiB page, which on a virtual machine
 * costs several microseconds each).  The wrapper only adds that to the
 * allocator in place, so arenas stay the previous allocator's to free; it
 * is installed by the outermost columns() call only (the GIL makes the
 * count safe).  The cost: pool pages the allocator has not handed out
 * yet are resident too (under a megabyte; a quarter less CPU time at a
 * million events, docs/python.md). */
static PyObjectArenaAllocator previous_arenas;
static int populating;

/* The allocator carves an arena into pools aligned to their size (16 KiB
 * in CPython 3.10+) and never touches the pieces before the first and
 * after the last: only the whole pools are faulted in. */
#define ARENA_POOL 16384u

static void *populated_arena(void *ctx, size_t size) {
  (void)ctx;
  void *p = previous_arenas.alloc(previous_arenas.ctx, size);
#ifdef MADV_POPULATE_WRITE
  uintptr_t lo = ((uintptr_t)p + ARENA_POOL - 1) & ~(uintptr_t)(ARENA_POOL - 1);
  uintptr_t hi = ((uintptr_t)p + size) & ~(uintptr_t)(ARENA_POOL - 1);
  if (p && lo < hi) (void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#endif
  return p;
}

static void populated_free(void *ctx, void *p, size_t size) {
  (void)ctx;
  previous_arenas.free(previous_arenas.ctx, p, size);
}

static void populate_begin(void) {
  if (populating++) return;
  PyObjectArenaAllocator mine = {NULL, populated_arena, populated_free};
  PyObjectArenaAllocator now;
  PyObject_GetArenaAllocator(&now);
  /* still ours (another library restored it after we did): keep the
   * allocator it wraps, never wrap ourselves */
  if (now.alloc != populated_arena) previous_arenas = now;
  PyObject_SetArenaAllocator(&mine);
}

static void populate_end(void) {
  if (--populating == 0) PyObject_SetArenaAllocator(&previous_arenas);
}

/* columns(lo, hi) -> dict of the DataFrame fields of events lo..hi-1:
 * p10..max (float64, NaN without perf data); name, delegate_id, raw,
 * start_time (None without perf data), op_types, stack_traces,
 * module_hierarchy, debug_data (each cell a new empty list or dict),
 * delegate_backend_name (None) as object arrays; has_perf, is_delegated,
 * linked (an ETRecord link: the Python side fills those rows' cells),
 * has_debug (debug values to fetch) as bool; sig (int8, above). */
static PyObject *h_columns(ext_inspector_t *self, PyObject *args) {
  Py_ssize_t lo, hi;
  if (!PyArg_ParseTuple(args, "nn", &lo, &hi)) return NULL;
  etk_inspector_t *insp = self->insp;
  size_t count = etk_inspector_event_count(insp), max_samples = 1;
  if (lo < 0 || hi < lo || (size_t)hi > count)
    return PyErr_Format(PyExc_IndexError, "event range %zd..%zd of %zu", lo, hi,
                        count);
  /* the GIL is handed over on the way: no linking meanwhile */
  handle_lock(self);
  for (Py_ssize_t i = lo; i < hi; i++) {
    etk_inspector_event_t e;
    etk_inspector_event_get(insp, (size_t)i, &e);
    if (e.sample_count > max_samples) max_samples = e.sample_count;
  }
  columns_t c = {0};
  size_t n = (size_t)(hi - lo);
  populate_begin();
  int ok = columns_alloc(&c, n, max_samples) == 0;
  for (size_t k = 0; ok && k < n; k++) {
    if (k % COLUMNS_YIELD == COLUMNS_YIELD - 1 && yield_gil() < 0) ok = 0;
    if (ok) ok = columns_event(&c, insp, (size_t)lo + k, k) == 0;
  }
  if (ok) ok = columns_empty_cells(&c, n) == 0;
  populate_end();
  handle_unlock(self);
  PyObject *out = ok ? PyDict_New() : NULL;
  for (int k = 0; out && k < OBJ_COUNT; k++)
    if (PyDict_SetItemString(out, object_keys[k], c.objects[k]) < 0)
      Py_CLEAR(out);
  for (int k = 0; out && k < FLAG_COUNT; k++)
    if (PyDict_SetItemString(out, flag_keys[k], c.flags[k]) < 0) Py_CLEAR(out);
  for (int k = 0; out && k < 6; k++)
    if (PyDict_SetItemString(out, stat_keys[k], c.stats[k]) < 0) Py_CLEAR(out);
  if (out && PyDict_SetItemString(out, "sig", c.sig) < 0) Py_CLEAR(out);
  columns_free(&c);
  if (!out && !PyErr_Occurred()) PyErr_NoMemory();
  return out;
}

/* ------------------------------------------------------------ rendering */

/* The sink's text as str, or as UTF-8 bytes when `as_bytes` (a table of
 * a million rows is hundreds of MB: the caller writes bytes, or decodes
 * them piecewise, instead of holding the GIL for one huge decode). */
static PyObject *sink_result(etk_render_sink_t *sink, int rc, etk_error_t *err,
                             int as_bytes) {
  if (!as_bytes) return ext_sink_text(sink, rc, err);
  size_t len = 0;
  char *text = rc == ETK_OK ? etk_render_sink_take(sink, &len) : NULL;
  etk_render_sink_free(sink);
  if (rc != ETK_OK) return ext_raise(err);
  if (!text) return PyErr_NoMemory();
  PyObject *b = PyBytes_FromStringAndSize(text, (Py_ssize_t)len);
  free(text);
  return b;
}

/* render(format, view, include_units, include_delegate_debug_data,
 *        all_rows, allow_empty, columns, as_bytes) -> str (bytes) */
static PyObject *h_render(ext_inspector_t *self, PyObject *args) {
  int format, view, units, ddd, all_rows = 0, allow_empty = 0, as_bytes = 0;
  unsigned columns = 0;
  if (!PyArg_ParseTuple(args, "iipp|ppIp", &format, &view, &units, &ddd,
                        &all_rows, &allow_empty, &columns, &as_bytes))
    return NULL;
  etk_inspector_render_options_t ro;
  etk_inspector_render_options_init(&ro);
  ro.format = (etk_inspect_format_t)format;
  ro.view = (etk_inspect_view_t)view;
  ro.include_units = units;
  ro.include_delegate_debug_data = ddd;
  ro.all_rows = all_rows;
  ro.allow_empty = allow_empty;
  ro.columns = columns;
  etk_render_sink_t sink;
  etk_render_sink_init_memory(&sink);
  etk_error_t err;
  etk_error_clear(&err);
  int rc;
  handle_lock(self);
  Py_BEGIN_ALLOW_THREADS rc =
      etk_inspector_render(self->insp, &ro, &sink, &err);
  if (rc == ETK_OK) rc = etk_render_sink_flush(&sink);
  Py_END_ALLOW_THREADS handle_unlock(self);
  if (rc != ETK_OK && err.code == ETK_OK)
    etk_error_set(&err, rc, ETK_NO_OFFSET, "rendering failed");
  return sink_result(&sink, rc, &err, as_bytes);
}

/* trace_json(etrecord path or None, as_bytes) -> the Perfetto/Chrome
 * trace text of `etkit trace` (str, or bytes) */
static PyObject *h_trace(ext_inspector_t *self, PyObject *args) {
  const char *path = NULL;
  int as_bytes = 0;
  if (!PyArg_ParseTuple(args, "|zp", &path, &as_bytes)) return NULL;
  etk_trace_options_t o;
  etk_trace_options_init(&o);
  o.source_time_scale = etk_inspector_source_time_scale(self->insp);
  /* the process is named after the file, as `etkit trace` names it */
  const char *slash = path ? strrchr(path, '/') : NULL;
  if (path) o.process_name = slash ? slash + 1 : path;
  etk_render_sink_t sink;
  etk_render_sink_init_memory(&sink);
  etk_error_t err;
  etk_error_clear(&err);
  int rc;
  handle_lock(self);
  Py_BEGIN_ALLOW_THREADS rc =
      etk_trace_write_json(etk_inspector_etdump(self->insp), self->insp, &o,
                           path, &sink, NULL, &err);
  if (rc == ETK_OK) rc = etk_render_sink_flush(&sink);
  Py_END_ALLOW_THREADS handle_unlock(self);
  return sink_result(&sink, rc, &err, as_bytes);
}

/* module_total(name) -> float (upstream's find_total_for_module) */
static PyObject *h_module_total(ext_inspector_t *self, PyObject *args) {
  const char *name;
  if (!PyArg_ParseTuple(args, "s", &name)) return NULL;
  double total = 0;
  etk_inspector_module_total(self->insp, name, ETK_INSPECTOR_MODULE_SUBSTRING,
                             &total, NULL);
  return PyFloat_FromDouble(total);
}

static PyObject *h_counts(ext_inspector_t *self, PyObject *unused) {
  (void)unused;
  return Py_BuildValue(
      "(nndn)", (Py_ssize_t)etk_inspector_debug_mismatch_count(self->insp),
      (Py_ssize_t)etk_inspector_allocator_count(self->insp),
      etk_inspector_scale_factor(self->insp),
      (Py_ssize_t)etk_etdump_logged_tensor_count(
          etk_inspector_etdump(self->insp)));
}

/* latency() -> None (not a stats-mode dump) or (keys, refused, [(block,
 * event name, instruction_id, delegate id (int, str or None), count, min,
 * p10, p50, p90, p99, p99.9, avg, max (target time scale), error_bound,
 * sketch bytes)]) */
static PyObject *h_latency(ext_inspector_t *self, PyObject *unused) {
  (void)unused;
  etk_latency_dump_info_t info;
  if (!etk_latency_dump_find(etk_inspector_etdump(self->insp), &info))
    Py_RETURN_NONE;
  PyObject *rows = PyList_New(0);
  if (!rows) return NULL;
  for (size_t k = 0; k < info.keys; k++) {
    etk_inspector_latency_row_t r;
    etk_error_t err;
    uint8_t bytes[ETK_SKETCH_MAX_BYTES];
    size_t n = 0;
    etk_error_clear(&err);
    if (etk_inspector_latency_rows(self->insp, &info, k, &r, &err) != ETK_OK) {
      Py_DECREF(rows);
      ext_raise(&err);
      return NULL;
    }
    (void)etk_sketch_serialize(&r.sketch, bytes, sizeof bytes, &n);
    PyObject *delegate =
        r.delegate_debug_id_str
            ? ext_text(r.delegate_debug_id_str, strlen(r.delegate_debug_id_str))
        : r.delegate_debug_id_int != -1
            ? PyLong_FromLong(r.delegate_debug_id_int)
            : Py_NewRef(Py_None);
    PyObject *t = Py_BuildValue(
        "(NNiNKdddddddddy#)",
        r.block_name ? ext_text(r.block_name, strlen(r.block_name))
                     : Py_NewRef(Py_None),
        r.event_name ? ext_text(r.event_name, strlen(r.event_name))
                     : Py_NewRef(Py_None),
        (int)r.instruction_id, delegate, (unsigned long long)r.count, r.min,
        r.quantile[0], r.quantile[1], r.quantile[2], r.quantile[3],
        r.quantile[4], r.avg, r.max, r.error_bound, (const char *)bytes,
        (Py_ssize_t)n);
    if (!t || PyList_Append(rows, t) < 0) {
      Py_XDECREF(t);
      Py_DECREF(rows);
      return NULL;
    }
    Py_DECREF(t);
  }
  return Py_BuildValue("(nKN)", (Py_ssize_t)info.keys,
                       (unsigned long long)info.refused, rows);
}

/* ------------------------------------------------------------ ETRecord */

static void note_to_list(void *ctx, int is_warning, const char *line) {
  PyObject *t = Py_BuildValue("(iN)", is_warning, ext_text(line, strlen(line)));
  if (t) {
    PyList_Append((PyObject *)ctx, t);
    Py_DECREF(t);
  } else {
    PyErr_Clear();
  }
}

/* link(record, quirks, reference_graph=None) -> list of (is_warning, line) */
static PyObject *h_link_etrecord(ext_inspector_t *self, PyObject *args) {
  ext_etrecord_t *rec;
  int quirks = 0;
  const char *graph = NULL;
  if (!PyArg_ParseTuple(args, "O!p|z", &ext_etrecord_type, &rec, &quirks,
                        &graph))
    return NULL;
  PyObject *notes = PyList_New(0);
  if (!notes) return NULL;
  PyObject *path = PyUnicode_AsUTF8String(rec->path);
  if (!path) {
    Py_DECREF(notes);
    return NULL;
  }
  etk_link_policy_t p;
  etk_link_policy_init(&p);
  p.upstream_quirks = quirks;
  p.record_name = PyBytes_AS_STRING(path);
  p.reference_graph = graph;
  p.note = note_to_list;
  p.note_ctx = notes;
  etk_error_t err;
  etk_error_clear(&err);
  /* the note callback makes Python objects: the GIL stays held */
  handle_lock(self);
  int rc = etk_etrecord_link_with_policy(rec->rec, self->insp, &p, NULL, &err);
  handle_unlock(self);
  Py_DECREF(path);
  if (rc != ETK_OK) {
    Py_DECREF(notes);
    return ext_raise(&err);
  }
  Py_XDECREF(self->record);
  Py_INCREF(rec);
  self->record = (PyObject *)rec;
  return notes;
}

typedef struct compare_ctx {
  PyObject *notes, *blocks;
} compare_ctx_t;

static void compare_note(void *ctx, int is_warning, const char *line) {
  note_to_list(((compare_ctx_t *)ctx)->notes, is_warning, line);
}

static void compare_block(void *ctx, size_t block, size_t count,
                          const double *values) {
  compare_ctx_t *c = ctx;
  PyObject *vals = PyTuple_New((Py_ssize_t)(3 * count));
  for (size_t k = 0; vals && k < 3 * count; k++)
    PyTuple_SET_ITEM(vals, (Py_ssize_t)k, PyFloat_FromDouble(values[k]));
  PyObject *t =
      vals ? Py_BuildValue("(nnN)", (Py_ssize_t)block, (Py_ssize_t)count, vals)
           : NULL;
  if (!t || PyList_Append(c->blocks, t) < 0) PyErr_Clear();
  Py_XDECREF(t);
}

/* compare_results(record or None, bpte path or None)
 *   -> (text, [(block, count, values)], notes) */
static PyObject *h_compare(ext_inspector_t *self, PyObject *args) {
  PyObject *rec_obj;
  const char *bpte = NULL;
  if (!PyArg_ParseTuple(args, "Oz", &rec_obj, &bpte)) return NULL;
  ext_etrecord_t *rec = NULL;
  if (rec_obj != Py_None) {
    if (!PyObject_TypeCheck(rec_obj, &ext_etrecord_type))
      return PyErr_Format(PyExc_TypeError, "expected an ETRecord handle");
    rec = (ext_etrecord_t *)rec_obj;
  }
  etk_error_t err;
  etk_error_clear(&err);
  etk_reference_outputs_t *ref = NULL;
  PyObject *path = rec ? PyUnicode_AsUTF8String(rec->path) : NULL;
  if (rec && !path) return NULL;
  int rc = etk_reference_outputs_open(bpte, rec ? rec->rec : NULL,
                                      path ? PyBytes_AS_STRING(path) : NULL,
                                      &ref, &err);
  Py_XDECREF(path);
  if (rc != ETK_OK) return ext_raise(&err);
  compare_ctx_t c = {PyList_New(0), PyList_New(0)};
  etk_compare_report_t report = {compare_note, compare_block, &c};
  etk_render_sink_t sink;
  etk_render_sink_init_memory(&sink);
  size_t len;
  const uint8_t *buf = debug_bytes(self, &len);
  if (c.notes && c.blocks) {
    handle_lock(self); /* the callbacks make Python objects: GIL held */
    rc = etk_compare_results_inspector(ref, self->insp, buf, len, &sink,
                                       &report, &err);
    handle_unlock(self);
  } else
    rc = etk_error_set(&err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  etk_reference_outputs_free(ref);
  PyObject *text = ext_sink_text(&sink, rc, &err);
  if (!text) {
    Py_XDECREF(c.notes);
    Py_XDECREF(c.blocks);
    return NULL;
  }
  return Py_BuildValue("(NNN)", text, c.blocks, c.notes);
}

static PyMethodDef inspector_methods[] = {
    {"block_count", (PyCFunction)h_block_count, METH_NOARGS, NULL},
    {"block", (PyCFunction)h_block, METH_O, NULL},
    {"event_count", (PyCFunction)h_event_count, METH_NOARGS, NULL},
    {"event", (PyCFunction)h_event, METH_O, NULL},
    {"samples", (PyCFunction)h_samples, METH_O, NULL},
    {"debug_data", (PyCFunction)h_debug_data, METH_O, NULL},
    {"debug_strides", (PyCFunction)h_debug_strides, METH_O, NULL},
    {"value", (PyCFunction)h_value, METH_O, NULL},
    {"link", (PyCFunction)h_link, METH_O, NULL},
    {"columns", (PyCFunction)h_columns, METH_VARARGS, NULL},
    {"render", (PyCFunction)h_render, METH_VARARGS, NULL},
    {"trace_json", (PyCFunction)h_trace, METH_VARARGS, NULL},
    {"module_total", (PyCFunction)h_module_total, METH_VARARGS, NULL},
    {"counts", (PyCFunction)h_counts, METH_NOARGS, NULL},
    {"latency", (PyCFunction)h_latency, METH_NOARGS, NULL},
    {"link_etrecord", (PyCFunction)h_link_etrecord, METH_VARARGS, NULL},
    {"compare_results", (PyCFunction)h_compare, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};

static PyTypeObject ext_inspector_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "etkit._etkit.InspectorHandle",
    .tp_basicsize = sizeof(ext_inspector_t),
    .tp_dealloc = (destructor)inspector_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "an ETDump opened by the C inspector",
    .tp_methods = inspector_methods,
};

/* diff(a, b, metric) -> TSV text of `etkit diff` */
static PyObject *m_diff(PyObject *mod, PyObject *args) {
  (void)mod;
  ext_inspector_t *a, *b;
  const char *metric = "avg";
  if (!PyArg_ParseTuple(args, "O!O!|s", &ext_inspector_type, &a,
                        &ext_inspector_type, &b, &metric))
    return NULL;
  etk_diff_options_t o;
  etk_diff_options_init(&o);
  if (etk_diff_metric_parse(metric, &o.metric) != ETK_OK)
    return PyErr_Format(PyExc_ValueError, "unknown metric '%s'", metric);
  etk_error_t err;
  etk_error_clear(&err);
  etk_diff_t *d = NULL;
  etk_diff_render_options_t ro;
  etk_diff_render_options_init(&ro);
  ro.format = ETK_INSPECT_FORMAT_TSV;
  etk_render_sink_t sink;
  etk_render_sink_init_memory(&sink);
  /* both locks, in address order (two diffs of the same pair never wait
   * for each other crosswise) */
  ext_inspector_t *first = a < b ? a : b, *second = a < b ? b : a;
  handle_lock(first);
  if (second != first) handle_lock(second);
  int rc;
  Py_BEGIN_ALLOW_THREADS rc = etk_diff_build(a->insp, b->insp, &o, &d, &err);
  if (rc == ETK_OK) rc = etk_diff_render(d, &ro, &sink, &err);
  if (rc == ETK_OK) rc = etk_render_sink_flush(&sink);
  etk_diff_free(d);
  Py_END_ALLOW_THREADS if (second != first) handle_unlock(second);
  handle_unlock(first);
  return ext_sink_text(&sink, rc, &err);
}

static PyMethodDef module_functions[] = {
    {"open_inspector", inspector_open, METH_VARARGS,
     "open_inspector(path, data, source, target, debug, quirks, clock_hz)"},
    {"diff", m_diff, METH_VARARGS, "diff(a, b, metric='avg') -> TSV text"},
    {NULL, NULL, 0, NULL}};

int ext_inspector_register(PyObject *module) {
  /* this file holds the numpy API table the others share
   * (PY_ARRAY_UNIQUE_SYMBOL): fill it before anything else uses numpy */
  import_array1(-1);
  PyObject *globals = PyDict_New();
  if (!globals ||
      PyDict_SetItemString(globals, "__builtins__", PyEval_GetBuiltins()) < 0) {
    Py_XDECREF(globals);
    return -1;
  }
  interpreter_turn =
      PyRun_String("lambda: None", Py_eval_input, globals, globals);
  Py_DECREF(globals);
  if (!interpreter_turn) return -1;
  if (PyType_Ready(&ext_inspector_type) < 0 ||
      PyModule_AddFunctions(module, module_functions) < 0)
    return -1;
  Py_INCREF(&ext_inspector_type);
  if (PyModule_AddObject(module, "InspectorHandle",
                         (PyObject *)&ext_inspector_type) < 0) {
    Py_DECREF(&ext_inspector_type);
    return -1;
  }
  return 0;
}
