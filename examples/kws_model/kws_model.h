/*
 * kws_model.h - a keyword-spotting-shaped int8 program for upstream's
 * Cortex-M backend ops, built in C with the program builder (kws_model.c
 * explains it).  An example and a test fixture; not part of the installed
 * library.
 */
#ifndef ETKIT_EXAMPLES_KWS_MODEL_H
#define ETKIT_EXAMPLES_KWS_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "etkit/common.h"

/* The input, float [1, 1, 49, 10] (49 frames of 10 MFCCs), and the output,
 * float [1, 12] (one score per class). */
#define ETK_KWS_MODEL_INPUT_ELEMENTS 490
#define ETK_KWS_MODEL_OUTPUT_ELEMENTS 12
/* The one planned buffer, as upstream's KeywordSpotting program has. */
#define ETK_KWS_MODEL_ARENA_BYTES 16000

/* Builds the program (method "forward", sixteen cortex_m:: and
 * dim_order_ops instructions) into *pte (malloc'd, the caller frees) and
 * *len.  Every call returns the same bytes.  On failure returns a status,
 * fills *err and leaves *pte NULL. */
int etk_kws_model_build(uint8_t **pte, size_t *len, etk_error_t *err);

/* One layer's constants as the program holds them (weights int8 of sizes
 * wsizes[0..wdim), nout int32 biases, multipliers and shifts). */
#define ETK_KWS_MODEL_LAYERS 10
typedef struct etk_kws_layer {
  int8_t w[64 * 64];
  int32_t bias[64], mult[64], shift[64];
  int32_t wsizes[4];
  uint32_t wdim;
  size_t n, nout;
} etk_kws_layer_t;

/* The ten layers' constants in program order: the first depthwise
 * convolution, four (depthwise, pointwise) pairs, the linear layer. */
void etk_kws_model_layers(etk_kws_layer_t *layers);

/* Writes the program's ETRecord (its graph as cortex_m:: edge nodes with
 * debug handles, the instruction -> handle map, the weights and the
 * reference input) to `path`.  Returns ETK_OK, or a status with *err
 * filled and no file left behind. */
int etk_kws_model_write_etrecord(const char *path, etk_error_t *err);

/* Fills x[0..n) with the fixed reference input (a pseudo-random sequence
 * in [-100, 100), exact in float32 on every target). */
void etk_kws_model_fill_input(float *x, size_t n);

#endif
