/*
 * interp_fuzz.c - libFuzzer target for etkit's graph interpreter
 * (etkit/interp.h, src/interp): an ETRecord's graph run with etkit's
 * kernels, as `etkit numerics --gap` and calculate_numeric_gap run it.
 *
 * Input forms, as in fuzz/graph: an input starting with "PK" is opened as
 * an ETRecord archive as is; anything else is split on NUL bytes into the
 * forward edge program, debug_handle_map and delegate_map texts, zipped
 * next to an ETRECORD_V0 marker.  Each graph that loads is run three
 * ways: on its representative inputs, on its example inputs, and on
 * tensors of ones shaped by the user inputs' TensorMeta (so that a mutated
 * program without recordings still reaches the kernels).  Every output a
 * node produced is read to its last byte.  The interpreter's memory bound
 * and the reader's limits are tight; errors are expected, a crash, a
 * sanitizer report or a leak is a bug.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/interp.h"
#include "fixture.h"

#define MAX_MEMORY (16u << 20)
#define MAX_INPUT_BYTES (1u << 16)
#define MAX_USER_INPUTS 8

static const char *const kNames[] = {
    "edge_dialect_exported_program/forward",
    "debug_handle_map",
    "delegate_map",
};

static volatile uint8_t g_sink;

static void read_outputs(const etk_interp_t *r) {
  const etk_interp_node_t *n = etk_interp_nodes(r);
  uint8_t x = 0;
  for (size_t k = 0; k < etk_interp_node_count(r); k++) {
    if (n[k].status != ETK_INTERP_OK) {
      x ^= (uint8_t)(n[k].message ? n[k].message[0] : 0);
      continue;
    }
    for (size_t o = 0; o < n[k].output_count; o++) {
      const etk_interp_tensor_t *t = &n[k].outputs[o];
      const uint8_t *p = t->data;
      for (uint32_t d = 0; d < t->dim; d++) x ^= (uint8_t)t->sizes[d];
      for (uint64_t b = 0; b < t->nbytes; b++) x ^= p[b];
    }
    (void)etk_interp_node_for(r, n[k].node);
  }
  g_sink = x;
}

static void run(etk_graph_t *g, const etk_interp_options_t *o) {
  etk_interp_t *r = NULL;
  if (etk_interp_run(g, o, &r, NULL) == ETK_OK) read_outputs(r);
  etk_interp_free(r);
}

/* Inputs of ones (bytes 0x01: the value differs by dtype, which does not
 * matter here) for the top graph's user inputs; 0 when one has no usable
 * TensorMeta or too many bytes. */
static size_t ones_inputs(etk_graph_t *g, etk_interp_tensor_t *in,
                          void **data) {
  const etk_graph_graph_t *top = &etk_graph_graphs(g)[0];
  const etk_graph_value_t *values = etk_graph_values(g);
  size_t n = 0;
  for (size_t k = 0; k < top->input_spec_count; k++) {
    const etk_graph_input_spec_t *s = &top->input_specs[k];
    if (s->kind != ETK_GRAPH_INPUT_USER) continue;
    if (n == MAX_USER_INPUTS || s->value == ETK_GRAPH_NONE) return 0;
    const etk_graph_value_t *v = &values[s->value];
    size_t esize = etk_torch_dtype_size(v->meta.dtype);
    if (!v->has_meta || v->meta.has_symbolic || !esize ||
        v->meta.numel > MAX_INPUT_BYTES / esize)
      return 0;
    size_t bytes = (size_t)v->meta.numel * esize;
    data[n] = malloc(bytes ? bytes : 1);
    if (!data[n]) return 0;
    memset(data[n], 1, bytes);
    in[n] = (etk_interp_tensor_t){v->meta.dtype, v->meta.dim, v->meta.sizes,
                                  data[n], bytes};
    n++;
  }
  return n;
}

static void exercise(etk_graph_t *g) {
  etk_interp_options_t o;
  etk_interp_options_default(&o);
  o.max_memory = MAX_MEMORY;
  run(g, &o);
  o.recording = ETK_GRAPH_EXAMPLE_INPUTS;
  run(g, &o);
  etk_interp_tensor_t in[MAX_USER_INPUTS];
  void *data[MAX_USER_INPUTS] = {0};
  size_t n = ones_inputs(g, in, data);
  if (n) {
    o.inputs = in;
    o.input_count = n;
    run(g, &o);
  }
  for (size_t k = 0; k < MAX_USER_INPUTS; k++) free(data[k]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  etk_etrecord_limits_t lim;
  fixture_fuzz_limits(&lim);
  uint8_t *zip = NULL;
  size_t len = size;
  const uint8_t *bytes = data;
  if (size < 2 || data[0] != 'P' || data[1] != 'K') {
    zip = fixture_zip_chunks(data, size, kNames,
                             sizeof kNames / sizeof kNames[0], &len);
    if (!zip) return 0;
    bytes = zip;
  }
  etk_etrecord_t *rec = NULL;
  if (etk_etrecord_open_memory(bytes, len, &lim, &rec, NULL) == ETK_OK) {
    etk_graph_options_t go;
    etk_graph_options_default(&go);
    etk_graph_t *g = NULL;
    if (etk_graph_load(rec, &go, &g, NULL) == ETK_OK) exercise(g);
    etk_graph_free(g);
    etk_etrecord_close(rec);
  }
  free(zip);
  return 0;
}
