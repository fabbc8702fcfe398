/*
 * init.c - the _etkit module object: PyInit__etkit creates it and lets
 * each file of the extension add its part (types and functions, through
 * the ext_*_register functions of ext.h).  It sits above every other file:
 * they never call back here, and the inspector handle (module.c) is
 * registered first because it loads numpy's C API that the others use.
 */
#include "ext.h"

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "_etkit",
    "etkit C extension (use the etkit package, not this module)",
    -1,
    NULL,
    NULL,
    NULL,
    NULL,
    NULL};

PyMODINIT_FUNC PyInit__etkit(void);
PyMODINIT_FUNC PyInit__etkit(void) {
  PyObject *m = PyModule_Create(&module_def);
  if (!m) return NULL;
  if (ext_inspector_register(m) < 0 || ext_etrecord_register(m) < 0 ||
      ext_run_register(m) < 0 || ext_memory_register(m) < 0 ||
      ext_graph_register(m) < 0 || ext_interp_register(m) < 0 ||
      ext_graph_view_register(m) < 0 || ext_store_register(m) < 0 ||
      ext_capture_register(m) < 0 || ext_bundled_register(m) < 0 ||
      ext_delegation_register(m) < 0 || ext_torch_tree_register(m) < 0 ||
      ext_sketch_register(m) < 0 || ext_tensor_stats_register(m) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
