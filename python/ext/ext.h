/*
 * ext.h - what the files of the _etkit extension module share.
 *
 * The extension is a thin CPython layer over the etkit C libraries: it
 * owns C objects (an etk_inspector_t, an etk_etrecord_t) inside Python
 * objects and turns their results into Python values and numpy arrays.
 * Everything user-facing (class names, argument defaults, DataFrames)
 * lives in the Python package python/etkit; this layer only converts.
 */
#ifndef ETKIT_PYTHON_EXT_H
#define ETKIT_PYTHON_EXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include "etkit/common.h"
#include "etkit/etdump.h"
#include "etkit/etrecord.h"
#include "etkit/inspector.h"
#include "etkit/link.h"

/* An ETRecord (etkit.parse_etrecord's result wraps one). */
typedef struct {
  PyObject_HEAD etk_etrecord_t *rec;
  PyObject *path; /* str, for messages */
} ext_etrecord_t;

extern PyTypeObject ext_etrecord_type;

/* Raises the Python exception that matches `err` (ValueError for bad
 * input, OSError for files, MemoryError, ...) with its one-line text;
 * returns NULL. */
PyObject *ext_raise(const etk_error_t *err);

/* Debug value of ETDump event `event` as upstream inflates it: an int,
 * float, bool, None, a numpy array (zeros without a buffer) or a list of
 * arrays.  NULL with an exception on failure. */
PyObject *ext_debug_value(const etk_etdump_t *dump, const uint8_t *buf,
                          size_t len, uint32_t event);

/* The strides (in elements) the ETDump records for event `event`'s
 * value: a tuple for a Tensor, a list of tuples for a TensorList, None for
 * anything else.  Upstream's Inspector ignores them (debug_data is the
 * buffer's bytes in the shape's order); calculate_numeric_gap reads the
 * values through them, as `etkit numerics` does. */
PyObject *ext_debug_strides(const etk_etdump_t *dump, uint32_t event);

/* numpy type number of an etkit scalar type that upstream inflates and
 * numpy holds (BYTE, CHAR, SHORT, INT, LONG, HALF, FLOAT, DOUBLE, BOOL,
 * BITS16, UINT16); -1 for any other. */
int ext_numpy_type(int scalar_type);

/* Each file's part of the module: init.c (PyInit__etkit) calls these in
 * turn; none of them calls another file's.  Each returns 0, or -1 with an
 * exception set. */

/* Registers the InspectorHandle type, open_inspector, diff and
 * empty_cells (module.c); first, as it loads numpy's API for all files. */
int ext_inspector_register(PyObject *module);

/* Registers the ETRecord type and its functions in `module`. */
int ext_etrecord_register(PyObject *module);

/* Registers etkit.run (run.c) in `module`. */
int ext_run_register(PyObject *module);

/* Registers interp and torch_save (interp.c) in `module`. */
int ext_interp_register(PyObject *module);

/* Registers _etkit.program_info (program.c, etkit.Program) in `module`;
 * ext_run_register calls it. */
int ext_program_register(PyObject *module);

/* Registers etkit.memory_plan (memory.c) in `module`. */
int ext_memory_register(PyObject *module);

/* Registers graph_model_explorer (graph.c: etkit.model_explorer). */
int ext_graph_register(PyObject *module);

/* Registers graph_html (graph_view.c) in `module`. */
int ext_graph_view_register(PyObject *module);

/* A program's graph and what it was read from (graph_program.c): the
 * graph functions' first argument is an ETRecord or a program's path. */
struct etk_graph;
struct etk_program;
struct etk_bundled_program;
typedef struct ext_program_graph {
  struct etk_program *program;
  struct etk_bundled_program *bundled;
  struct etk_graph *graph;
} ext_program_graph_t;
int ext_program_graph_load(const char *path, const char *method,
                           ext_program_graph_t *out, etk_error_t *err);
void ext_program_graph_free(ext_program_graph_t *p);

/* Registers bundled_write and bundled_read (bundled.c:
 * etkit.bundled_program) in `module`. */
int ext_bundled_register(PyObject *module);

/* Registers delegation_info (delegation.c: etkit.get_delegation_info). */
int ext_delegation_register(PyObject *module);

/* Registers torch_save_tree (torch_tree.c: ETRecord editing). */
int ext_torch_tree_register(PyObject *module);

/* Registers the LatencySketch type (sketch.c). */
int ext_sketch_register(PyObject *module);

/* Registers tensor_stats (tensor_stats.c). */
int ext_tensor_stats_register(PyObject *module);

/* Registers the etkit.Store functions (store.c) in `module`. */
int ext_store_register(PyObject *module);

/* Registers capture_bytes (capture.c: etkit.capture) in `module`. */
int ext_capture_register(PyObject *module);

/* The text of a memory sink as a str (the sink is freed); raises `err`
 * when rc is not ETK_OK. */
PyObject *ext_sink_text(etk_render_sink_t *sink, int rc, etk_error_t *err);

/* A str from UTF-8 bytes, replacing undecodable bytes (names in damaged
 * files). */
PyObject *ext_text(const char *s, size_t len);

#endif
