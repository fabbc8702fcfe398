/*
 * bench_interp_run.c - the C half of bench_interp.py: writes a graph
 * description (FOLDER/MODEL.graph and its .npy files) as an ETRecord with
 * etkit's writer, then times etk_interp_run on it.
 *
 *   bench_interp_run FOLDER MODEL OUT.etrecord REPEAT
 *
 * Prints "<best seconds> <nodes run>" on stdout; the graph's loading and
 * the weights' decoding happen once, before the timed runs (the
 * interpreter's inputs are borrowed from the graph's cache).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "etkit/graph.h"
#include "etkit/interp.h"
#include "interp_fixture.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  gf_model_t *m = NULL;
  etk_etrecord_t *rec = NULL;
  etk_graph_t *g = NULL;
  etk_error_t err;
  double best = 1e30;
  size_t ok = 0;
  int repeat;
  if (argc != 5) {
    fprintf(stderr, "usage: bench_interp_run FOLDER MODEL OUT REPEAT\n");
    return 2;
  }
  repeat = atoi(argv[4]);
  etk_error_clear(&err);
  if (gf_load_from(argv[1], argv[2], &m) != 0) {
    fprintf(stderr, "cannot read %s/%s.graph\n", argv[1], argv[2]);
    return 1;
  }
  if (gf_write(m, argv[3], true, &err) != ETK_OK ||
      etk_etrecord_open_file(argv[3], NULL, &rec, &err) != ETK_OK ||
      etk_graph_load(rec, NULL, &g, &err) != ETK_OK) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  for (int k = 0; k < (repeat > 0 ? repeat : 1) + 1; k++) {
    etk_interp_t *r = NULL;
    double t0 = now(), t;
    if (etk_interp_run(g, NULL, &r, &err) != ETK_OK) {
      fprintf(stderr, "%s\n", err.message);
      return 1;
    }
    t = now() - t0;
    ok = etk_interp_status_count(r, ETK_INTERP_OK);
    if (ok != etk_interp_node_count(r)) {
      fprintf(stderr, "only %zu of %zu nodes ran\n", ok,
              etk_interp_node_count(r));
      return 1;
    }
    if (k > 0 && t < best) best = t; /* run 0 decodes the weights */
    etk_interp_free(r);
  }
  printf("%.6f %zu\n", best, ok);
  etk_graph_free(g);
  etk_etrecord_close(rec);
  gf_free(m);
  return 0;
}
