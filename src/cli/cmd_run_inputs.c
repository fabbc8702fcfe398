/*
 * cmd_run_inputs.c - `etkit run PROGRAM --inputs-from ETRECORD`: runs the
 * program on the ETRecord's representative inputs (case 0), the inputs
 * its graph is interpreted on by `etkit numerics --gap` and upstream's
 * calculate_numeric_gap.  A run on other inputs (the default tensors of
 * ones) makes every operator "diverge" there.
 *
 * The tensors come from the ETRecord's graph (etk_graph_recorded:
 * flattened, contiguous) and are written as .npy files into a private
 * temporary folder, which the ordinary --input path then reads; the
 * folder and its files go when the run ends, whatever happened.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_args.h"
#include "cmd_run_args.h"
#include "cmd_run_inputs.h"
#include "commands.h"
#include "etkit/etrecord.h"
#include "etkit/graph.h"
#include "etkit/program.h"

/* Writes item k as dir/input_k.npy; 0 or 1 (printed). */
static int write_item(const char *dir, size_t k, const etk_graph_tensor_t *t,
                      char **out) {
  size_t cap = strlen(dir) + 32;
  char *path = malloc(cap);
  int32_t sizes[16];
  etk_error_t err;
  etk_error_clear(&err);
  if (!(*out = path)) return etk_cli_fail(CMD, "out of memory");
  if (t->dim > 16)
    return etk_cli_fail(CMD, "representative input %zu has %u dims", k, t->dim);
  for (uint32_t d = 0; d < t->dim; d++) {
    if (t->sizes[d] < 0 || t->sizes[d] > INT32_MAX)
      return etk_cli_fail(CMD, "representative input %zu: size %lld", k,
                          (long long)t->sizes[d]);
    sizes[d] = (int32_t)t->sizes[d];
  }
  snprintf(path, cap, "%s/input_%zu.npy", dir, k);
  if (etk_npy_write_file(path, t->dtype, t->dim, sizes, t->data, t->nbytes,
                         &err) != ETK_OK)
    return etk_cli_fail(CMD, "representative input %zu: %s", k, err.message);
  return 0;
}

int cli_run_inputs_from(options_t *o, cli_run_inputs_t *keep) {
  etk_etrecord_t *rec = NULL;
  etk_graph_t *g = NULL;
  etk_graph_options_t go;
  const etk_graph_tensor_t *items = NULL;
  size_t count = 0;
  etk_error_t err;
  int status = 0;
  memset(keep, 0, sizeof *keep);
  etk_error_clear(&err);
  etk_graph_options_default(&go);
  if (etk_etrecord_open_file(o->inputs_from, NULL, &rec, &err) != ETK_OK ||
      etk_graph_load(rec, &go, &g, &err) != ETK_OK ||
      etk_graph_recorded(g, ETK_GRAPH_REPRESENTATIVE_INPUTS, 0, &items, &count,
                         &err) != ETK_OK) {
    etk_error_where(&err, o->inputs_from);
    status = etk_cli_fail_error(CMD, &err);
  } else if (count > MAX_INPUTS) {
    status = etk_cli_fail(CMD, "%s: %zu representative inputs (at most %d)",
                          o->inputs_from, count, MAX_INPUTS);
  } else {
    const char *tmp = getenv("TMPDIR");
    snprintf(keep->dir, sizeof keep->dir, "%s/etkit-inputs-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(keep->dir)) {
      keep->dir[0] = 0;
      status = etk_cli_fail(CMD,
                            "cannot create a temporary folder for the "
                            "representative inputs");
    }
    for (size_t k = 0; k < count && !status; k++) {
      status = write_item(keep->dir, k, &items[k], &keep->paths[k]);
      keep->count = k + 1;
      o->inputs[k] = keep->paths[k];
    }
    o->input_count = status ? 0 : count;
  }
  etk_graph_free(g);
  etk_etrecord_close(rec);
  if (status) cli_run_inputs_free(keep);
  return status;
}

void cli_run_inputs_free(cli_run_inputs_t *keep) {
  for (size_t k = 0; k < keep->count; k++) {
    if (keep->paths[k]) unlink(keep->paths[k]);
    free(keep->paths[k]);
  }
  if (keep->dir[0]) rmdir(keep->dir);
  memset(keep, 0, sizeof *keep);
}
