/*
 * handle.h - the InspectorHandle (module.c) as the other files of the
 * extension see it: they take an Inspector from Python and need only its
 * C object and debug buffer.  Private to python/ext; module.c implements
 * it, graph.c and graph_view.c use it (init.c, not module.c, registers
 * their functions, so no two files depend on each other).
 */
#ifndef ETKIT_PYTHON_HANDLE_H
#define ETKIT_PYTHON_HANDLE_H

#include "ext.h"

/* The C Inspector inside an InspectorHandle (borrowed: it lives as long as
 * `o`), or NULL (no exception set) when `o` is NULL or not one. */
etk_inspector_t *ext_inspector_of(PyObject *o);

/* The handle's debug buffer (borrowed, as above); NULL, 0 when `o` has
 * none or is not a handle. */
void ext_inspector_debug(PyObject *o, const uint8_t **data, size_t *len);

#endif
