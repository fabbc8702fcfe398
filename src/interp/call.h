/*
 * call.h - private to etkit_interp: one call node run on its kernel
 * (call.c), for the runner (interp.c).
 */
#ifndef ETKIT_INTERP_CALL_H
#define ETKIT_INTERP_CALL_H

#include "etkit/interp.h"

/* Runs one call node of the top graph into r->nodes[k].  Returns ETK_OK
 * (the node's status says how it went) or a run-level error (ETK_E_LIMIT,
 * ETK_E_NO_MEMORY) with *err set. */
int interp_call(etk_interp_t *r, size_t k, etk_error_t *err);

#endif /* ETKIT_INTERP_CALL_H */
