/*
 * demo_model.h - the model of `etkit demo`: a small CNN built in C with the
 * program builder, and its ETRecord.  An example to copy (demo_model.c
 * explains how); not part of the installed library.
 */
#ifndef ETKIT_EXAMPLES_DEMO_MODEL_H
#define ETKIT_EXAMPLES_DEMO_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "etkit/common.h"
#include "etkit/program.h"

/* Elements of the model's one input, a float tensor of shape [1, 1, 8, 8]. */
#define ETK_DEMO_MODEL_INPUT_ELEMENTS 64

/* Builds the program (method "forward", a part of it delegated to
 * EtkitMicroBackend) and returns its .pte bytes in *pte (malloc'd, the
 * caller frees) and their length in *len.  Every call returns the same
 * bytes.  On failure returns a status, fills *err and leaves *pte NULL. */
int etk_demo_model_build(uint8_t **pte, size_t *len, etk_error_t *err);

/* Writes the model's ETRecord to `path`: the graph (one node per operator,
 * with debug handle, module stack and stack trace), the instruction ->
 * debug handle map, the delegate map of the delegated instruction, and
 * `input` / `expected` as the representative input and reference output of
 * one test case.  Returns ETK_OK, or a status with *err filled and no file
 * left behind. */
int etk_demo_model_write_etrecord(const char *path,
                                  const etk_tensor_data_t *input,
                                  const etk_tensor_data_t *expected,
                                  etk_error_t *err);

/* Fills x[0..n) with the demo's fixed input values (a repeating ramp in
 * [-1, 1)). */
void etk_demo_model_fill_input(float *x, size_t n);

#endif
