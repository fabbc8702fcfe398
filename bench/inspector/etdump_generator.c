/*
 * etdump_generator.c - writes large synthetic ETDumps with the FlatBuffers
 * builder (etk_fb_*) straight into one big malloc'd buffer, for the
 * inspector benchmark (and usable on its own: see main() of
 * bench_inspector.c, "--generate").
 *
 * SHAPES
 *   repeat: the same 24 operators in every run (native_call_<op>.out then
 *     OPERATOR_CALL per instruction, Method::execute last: 49 events per
 *     run), many runs, as a model executed in a loop produces.  Every event
 *     gets its own name string, as upstream's runtime writes them.
 *   wide: one run of N distinct events ("native_call_op_<i>.out", one
 *     instruction each): the worst case for grouping (N signatures, N
 *     Inspector events, N table rows).
 * Timestamps advance by a few hundred ticks per event with a deterministic
 * jitter so statistics are not trivial.
 */
#include "etdump_generator.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/flatbuf.h"
#include "etkit/schema.h"

static const char *const ops[24] = {
    "convolution",  "relu",    "max_pool2d_with_indices",
    "permute_copy", "addmm",   "add",
    "mul",          "sub",     "div",
    "sigmoid",      "tanh",    "gelu",
    "layer_norm",   "softmax", "bmm",
    "mm",           "cat",     "view_copy",
    "clone",        "mean",    "sum",
    "exp",          "sqrt",    "linear"};

typedef struct gen {
  etk_fb_builder_t b;
  uint32_t *refs;
  size_t nrefs, cap;
  uint64_t t;
  uint64_t rng;
} gen_t;

static uint64_t jitter(gen_t *g) {
  g->rng ^= g->rng << 13;
  g->rng ^= g->rng >> 7;
  g->rng ^= g->rng << 17;
  return g->rng % 97;
}

static void event(gen_t *g, const char *name, size_t len, int32_t chain,
                  int32_t iid, uint64_t dur) {
  etk_fb_ref_t s = etk_fb_create_string(&g->b, name, len);
  uint64_t start = g->t, end = g->t + dur;
  g->t += dur + 3;
  etk_fb_table_start(&g->b);
  etk_fb_add_u64(&g->b, ETK_ETDUMP_PROFILE_EVENT_START_TIME, start, 0, 0);
  etk_fb_add_u64(&g->b, ETK_ETDUMP_PROFILE_EVENT_END_TIME, end, 0, 0);
  etk_fb_add_i32(&g->b, ETK_ETDUMP_PROFILE_EVENT_CHAIN_INDEX, chain, 0, 0);
  etk_fb_add_i32(&g->b, ETK_ETDUMP_PROFILE_EVENT_INSTRUCTION_ID, iid, -1, 0);
  etk_fb_add_ref(&g->b, ETK_ETDUMP_PROFILE_EVENT_NAME, s);
  etk_fb_ref_t pe = etk_fb_table_end(&g->b);
  etk_fb_table_start(&g->b);
  etk_fb_add_ref(&g->b, ETK_ETDUMP_EVENT_PROFILE_EVENT, pe);
  g->refs[g->nrefs++] = etk_fb_table_end(&g->b);
}

static etk_fb_ref_t run(gen_t *g, const char *name) {
  etk_fb_ref_t evs = etk_fb_create_offset_vector(&g->b, g->refs, g->nrefs);
  etk_fb_ref_t n = etk_fb_create_string(&g->b, name, strlen(name));
  etk_fb_table_start(&g->b);
  etk_fb_add_ref(&g->b, ETK_ETDUMP_RUN_DATA_NAME, n);
  etk_fb_add_ref(&g->b, ETK_ETDUMP_RUN_DATA_EVENTS, evs);
  g->nrefs = 0;
  return etk_fb_table_end(&g->b);
}

int etdump_generate(etdump_shape_t shape, size_t events, uint8_t **out,
                    const uint8_t **bytes, size_t *len) {
  /* ~72 bytes per event plus headroom; the builder caps at 2^31 */
  size_t cap = events * 80 + (1u << 20);
  if (cap > 0x7FFFFFF0u) cap = 0x7FFFFFF0u;
  gen_t g;
  memset(&g, 0, sizeof g);
  g.rng = 0x9E3779B97F4A7C15ull;
  g.t = 1000;
  uint8_t *mem = malloc(cap);
  size_t per_run = shape == ETDUMP_SHAPE_WIDE ? events : 49;
  g.refs = malloc((per_run ? per_run : 1) * sizeof *g.refs);
  size_t runs_cap = shape == ETDUMP_SHAPE_WIDE ? 1 : events / 49 + 2;
  uint32_t *runs = malloc(runs_cap * sizeof *runs);
  if (!mem || !g.refs || !runs ||
      etk_fb_builder_init(&g.b, mem, cap) != ETK_OK) {
    free(mem);
    free(g.refs);
    free(runs);
    return ETK_E_NO_MEMORY;
  }
  size_t nruns = 0, done = 0;
  char name[64];
  if (shape == ETDUMP_SHAPE_WIDE) {
    for (size_t i = 0; i < events; i++) {
      int n = snprintf(name, sizeof name, "native_call_op_%07zu.out", i);
      event(&g, name, (size_t)n, 0, (int32_t)i, 200 + jitter(&g));
    }
    runs[nruns++] = run(&g, "Execute");
  } else {
    while (done + 49 <= events || (done == 0 && events > 0)) {
      uint64_t run_start = g.t;
      for (int i = 0; i < 24; i++) {
        int n = snprintf(name, sizeof name, "native_call_%s.out", ops[i]);
        uint64_t t0 = g.t;
        g.t += 2;
        event(&g, name, (size_t)n, 0, i, 100 + 10 * (uint64_t)i + jitter(&g));
        uint64_t dur = g.t - t0 + 4;
        g.t = t0;
        event(&g, "OPERATOR_CALL", 13, 0, i, dur);
      }
      uint64_t dur = g.t - run_start;
      g.t = run_start;
      event(&g, "Method::execute", 15, -1, 0, dur + 10);
      runs[nruns++] = run(&g, "Execute");
      done += 49;
      if (nruns == runs_cap) break;
    }
  }
  etk_fb_ref_t rv = etk_fb_create_offset_vector(&g.b, runs, nruns);
  etk_fb_table_start(&g.b);
  etk_fb_add_ref(&g.b, ETK_ETDUMP_RUN_DATA, rv);
  etk_fb_ref_t root = etk_fb_table_end(&g.b);
  int rc = etk_fb_finish(&g.b, root, ETK_ETDUMP_FILE_IDENTIFIER,
                         ETK_FB_SIZE_PREFIXED, bytes, len);
  free(g.refs);
  free(runs);
  if (rc != ETK_OK) {
    free(mem);
    return rc;
  }
  *out = mem;
  return ETK_OK;
}
