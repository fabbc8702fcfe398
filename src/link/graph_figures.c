/*
 * graph_figures.c - the ETRecord graph (etkit/graph.h) joined with what an
 * ETDump measured: per node, time (mean and median per run, share of
 * Method::execute, run count) and numerical error (etkit/link.h,
 * etk_graph_figures_*).
 *
 * Every Inspector event of the chosen blocks is resolved with the
 * ETRecord linker (instruction id / delegate debug id -> debug handles,
 * instruction-only rules so framework events get none) and the handles
 * to the graph's call nodes (etk_graph_nodes_for_handle()).  An event
 * "covers" those nodes.  A node covered by several events keeps only the
 * most specific ones (the smallest cover): a delegated op's own event
 * wins over the DELEGATE_CALL event that covers the whole partition, so
 * time is not counted twice.  Figures start as NaN and reached false: a
 * node no event covers stays so, never 0.
 *
 * Numerical error comes from a second run (`against`: the rows of
 * etk_numerics_ab_build(), A = this run as the reference, the figures of
 * `etkit numerics`), from reference values the caller supplies per node
 * output (compared with etk_numerics_compare(), reference first), or,
 * with only a debug buffer, from the program outputs against the
 * ETRecord's reference_outputs (compare_results' pairs) for the nodes
 * producing the user outputs.  Each node keeps its worst output (the
 * largest MSE) of its most specific event.  Against a second run, integer
 * and bool values (indices, flags) are counted as mismatching elements,
 * never averaged into an MSE, and a delegate call's logged inputs and
 * constant weights are left out: the runtime logs every argument of the
 * call, and only its last num_outs values are its outputs.
 *
 * For the A/B test (graph_change.c), each node also keeps its samples:
 * its counted events' durations added run by run, found by a second pass
 * over the events once the smallest covers are known.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/link.h"
#include "link_match.h"
#include "program_join.h"

typedef struct join {
  etk_graph_t *g;
  etk_etrecord_t *rec;
  etk_inspector_t *insp;
  const etk_graph_figures_options_t *o;
  const char *method;
  etk_etrecord_linker_t *linker;
  etk_graph_node_figures_t *nodes;
  size_t *cover;  /* per node: size of the smallest cover seen */
  size_t *ecover; /* per node: the same for the compared values */
  size_t *stamp;  /* per node: the event that listed it last, plus 1 */
  size_t event;   /* events resolved so far (for `stamp`) */
  bool *block_ok;
  etk_etrecord_link_summary_t fit; /* how well the record fits (link_match) */
  program_fit_t program_fit;       /* the same for a program's graph */
  etk_error_t *err;
} join_t;

void etk_graph_figures_options_init(etk_graph_figures_options_t *opts) {
  memset(opts, 0, sizeof *opts);
  opts->block = ETK_GRAPH_NONE;
}

void etk_graph_figures_free(etk_graph_figures_t *f) {
  if (!f) return;
  free((void *)f->nodes);
  free((void *)f->samples);
  free((void *)f->sample_start);
  free(f);
}

/* A program's graph (no ETRecord): the node of the event's instruction
 * (program_join.c), as a list of at most one. */
static int program_nodes(join_t *j, const etk_inspector_event_t *ev,
                         const char *name, size_t **out, size_t *count) {
  size_t node = program_event_node(j->g, ev, name, NULL);
  if (node == ETK_GRAPH_NONE) return ETK_OK;
  if (!(*out = malloc(sizeof **out)))
    return etk_error_set(j->err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                         "out of memory");
  (*out)[0] = node;
  *count = 1;
  return ETK_OK;
}

/* The graph call nodes an event covers (malloc'd list, *count). */
static int event_nodes(join_t *j, const etk_inspector_event_t *ev,
                       const char *name, size_t **out, size_t *count) {
  *out = NULL;
  *count = 0;
  if (!j->rec) return program_nodes(j, ev, name, out, count);
  etk_etrecord_event_ref_t ref = {
      j->method,
      name,
      ev->chain_index,
      ev->instruction_id,
      ev->instruction_id >= 0,
      ev->delegate_id_is_int ? ev->delegate_debug_id_int : -1,
      ev->delegate_debug_id_str};
  etk_etrecord_event_link_t link;
  int rc = etk_etrecord_linker_resolve(j->linker, &ref, &link, j->err);
  if (rc != ETK_OK || !link.has_debug_handles) return rc;
  size_t total = 0;
  for (size_t h = 0; h < link.debug_handle_count; h++)
    total += etk_graph_nodes_for_handle(j->g, link.debug_handles[h], NULL);
  if (total == 0) return ETK_OK;
  size_t *list = malloc(total * sizeof *list);
  if (!list)
    return etk_error_set(j->err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                         "out of memory");
  size_t n = 0, mark = ++j->event;
  for (size_t h = 0; h < link.debug_handle_count; h++) {
    const size_t *nodes;
    size_t c = etk_graph_nodes_for_handle(j->g, link.debug_handles[h], &nodes);
    for (size_t k = 0; k < c; k++)
      if (j->stamp[nodes[k]] != mark) {
        j->stamp[nodes[k]] = mark;
        list[n++] = nodes[k];
      }
  }
  *out = list;
  *count = n;
  return ETK_OK;
}

/* Events that are not an operator's own: framework events, and
 * OPERATOR_CALL, which wraps the kernel's own native_call_* event (the
 * Inspector leaves it out when printing, as upstream does). */
static bool is_framework(const char *name) {
  return strcmp(name, "Method::execute") == 0 ||
         strcmp(name, "OPERATOR_CALL") == 0 ||
         strcmp(name, "Method::init") == 0 ||
         strcmp(name, "Program::load_method") == 0;
}

/* Adds one event to the nodes it covers: an event without timing (a
 * debug-only event) only marks them reached. */
static void add_timing(join_t *j, const size_t *nodes, size_t n,
                       const etk_stats_t *st, size_t samples) {
  for (size_t k = 0; k < n; k++) {
    etk_graph_node_figures_t *f = &j->nodes[nodes[k]];
    f->reached = true;
    if (!st) continue;
    if (n > j->cover[nodes[k]]) continue; /* a wider event: not counted */
    if (n < j->cover[nodes[k]]) {         /* a more specific one: start over */
      j->cover[nodes[k]] = n;
      f->avg = f->p50 = NAN;
      f->count = 0;
      f->event_count = 0;
      f->shared = false;
    }
    f->event_count++;
    if (n > 1) f->shared = true;
    if (samples > f->count) f->count = samples;
    f->avg = isnan(f->avg) ? st->avg : f->avg + st->avg;
    f->p50 = isnan(f->p50) ? st->p50 : f->p50 + st->p50;
  }
}

static void add_error(etk_graph_node_figures_t *f, double mse, double snr,
                      double max_abs, double cosine) {
  if (isnan(mse)) return;
  if (f->has_error && !(mse > f->mse)) return;
  f->has_error = true;
  f->mse = mse;
  f->snr = snr;
  f->max_abs = max_abs;
  f->cosine = cosine;
}

/* Compares a run's tensor with its reference (MSE, SNR, max abs diff,
 * cosine) into the node's error; a pair that cannot be compared is
 * skipped. */
static void add_compared(etk_graph_node_figures_t *f,
                         const etk_numerics_tensor_t *ref,
                         const etk_numerics_tensor_t *run) {
  static const etk_numerics_metric_t which[4] = {
      ETK_NUMERICS_MSE, ETK_NUMERICS_SNR, ETK_NUMERICS_MAX_ABS,
      ETK_NUMERICS_COSINE};
  double m[4];
  etk_error_t local;
  etk_error_clear(&local);
  for (int q = 0; q < 4; q++)
    if (etk_numerics_compare(ref, run, which[q], 0, &m[q], &local) != ETK_OK)
      return;
  add_error(f, m[0], m[1], m[2], m[3]);
}

static int walk_events(join_t *j, etk_graph_figures_t *out) {
  double exec_sum = 0;
  size_t exec_n = 0;
  size_t count = etk_inspector_event_count(j->insp);
  int64_t last = j->rec ? link_last_instruction(j->rec, j->method) : -1;
  for (size_t i = 0; i < count; i++) {
    etk_inspector_event_t ev;
    if (etk_inspector_event_get(j->insp, i, &ev) != ETK_OK) continue;
    if (!j->block_ok[ev.block]) continue;
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)ev.name_len, ev.name);
    etk_stats_t st;
    bool timed =
        ev.sample_count && etk_inspector_event_stats(j->insp, i, &st) == ETK_OK;
    if (strcmp(name, "Method::execute") == 0 && timed) {
      exec_sum += st.avg;
      exec_n++;
    }
    if (is_framework(name)) continue;
    out->events++;
    size_t *nodes, n;
    int rc = event_nodes(j, &ev, name, &nodes, &n);
    if (rc != ETK_OK) return rc;
    if (j->rec)
      link_count_event(&j->fit, &ev, last, n > 0);
    else
      program_event_node(j->g, &ev, name, &j->program_fit);
    if (n) {
      out->linked_events++;
      add_timing(j, nodes, n, timed ? &st : NULL, ev.sample_count);
    }
    for (size_t k = 0; timed && k < n && strcmp(name, "DELEGATE_CALL") == 0;
         k++) {
      etk_graph_node_figures_t *f = &j->nodes[nodes[k]];
      f->call_avg = isnan(f->call_avg) ? st.avg : f->call_avg + st.avg;
      f->call_p50 = isnan(f->call_p50) ? st.p50 : f->call_p50 + st.p50;
    }
    free(nodes);
  }
  out->execute_avg = exec_n ? exec_sum / (double)exec_n : NAN;
  return ETK_OK;
}

/* Per node, its counted events' durations summed run by run (run k of
 * every event it keeps): the samples etk_graph_figures_compare() tests.
 * A second pass over the events, once the smallest covers are known. */
static int collect_samples(join_t *j, etk_graph_figures_t *out, size_t n) {
  size_t *start = malloc((n + 1) * sizeof *start);
  if (!start)
    return etk_error_set(j->err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                         "out of memory");
  start[0] = 0;
  for (size_t i = 0; i < n; i++)
    start[i + 1] = start[i] + (isnan(j->nodes[i].avg) ? 0 : j->nodes[i].count);
  double *sum = calloc(start[n] + 1, sizeof *sum);
  double *raw = NULL;
  size_t raw_cap = 0;
  int rc = sum ? ETK_OK
               : etk_error_set(j->err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                               "out of memory");
  size_t count = etk_inspector_event_count(j->insp);
  for (size_t e = 0; e < count && rc == ETK_OK; e++) {
    etk_inspector_event_t ev;
    if (etk_inspector_event_get(j->insp, e, &ev) != ETK_OK ||
        !j->block_ok[ev.block] || !ev.sample_count)
      continue;
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)ev.name_len, ev.name);
    if (is_framework(name)) continue;
    size_t *nodes, c, got = 0;
    if ((rc = event_nodes(j, &ev, name, &nodes, &c)) != ETK_OK) break;
    if (c && ev.sample_count > raw_cap) {
      double *bigger = realloc(raw, ev.sample_count * sizeof *raw);
      if (!bigger) {
        free(nodes);
        rc = etk_error_set(j->err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                           "out of memory");
        break;
      }
      raw = bigger;
      raw_cap = ev.sample_count;
    }
    if (c && etk_inspector_event_durations(j->insp, e, raw, &got) != ETK_OK)
      got = 0;
    for (size_t k = 0; k < c; k++) {
      size_t i = nodes[k], have = start[i + 1] - start[i];
      if (j->cover[i] != c) continue;
      for (size_t r = 0; r < got && r < have; r++) sum[start[i] + r] += raw[r];
    }
    free(nodes);
  }
  free(raw);
  if (rc != ETK_OK) {
    free(start);
    free(sum);
    return rc;
  }
  out->sample_start = start;
  out->samples = sum;
  return ETK_OK;
}

/* Rows of one delegate call's logged arguments (no delegate debug id,
 * an instruction of the delegate map): the runtime logs every argument of
 * the call, inputs and constant weights first and its outputs last, so
 * only the last num_outs rows (the ETRecord's instruction_id_to_num_outs
 * map, 1 when absent, as upstream's Inspector) are the call's outputs. */
static bool delegate_input(const join_t *j,
                           const etk_etrecord_method_maps_t *maps,
                           const etk_numerics_row_t *row, size_t group_size,
                           size_t position) {
  if (row->delegate_debug_id_int >= 0 || row->delegate_debug_id_str)
    return false;
  int64_t outs;
  if (!j->rec) { /* a program's graph: the call's out arguments */
    outs = program_delegate_outputs(
        j->g, row->chain_index < 0 ? 0 : row->chain_index, row->instruction_id);
    if (outs < 0) return false;
  } else if (!etk_etrecord_maps_delegate(maps, row->instruction_id)) {
    return false;
  } else {
    outs = etk_etrecord_maps_num_outputs(maps, row->instruction_id, 1);
  }
  return outs >= 0 && (uint64_t)position + (uint64_t)outs < group_size;
}

/* Adds one compared row to the nodes of its event; the most specific
 * event wins (as for time): a delegated op's own value over the
 * DELEGATE_CALL's. */
static int add_row(join_t *j, const etk_numerics_row_t *row) {
  etk_inspector_event_t ev;
  memset(&ev, 0, sizeof ev);
  ev.chain_index = row->chain_index < 0 ? 0 : row->chain_index;
  ev.instruction_id = row->instruction_id;
  ev.delegate_id_is_int = row->delegate_debug_id_int >= 0;
  ev.delegate_debug_id_int = row->delegate_debug_id_int;
  ev.delegate_debug_id_str = row->delegate_debug_id_str;
  size_t *nodes, n;
  int rc = event_nodes(j, &ev, row->name, &nodes, &n);
  bool integer = etk_numerics_is_exact_dtype(row->dtype_a) ||
                 etk_numerics_is_exact_dtype(row->dtype_b);
  /* integer values: the mismatch count the A/B comparison made */
  uint64_t bad = row->mismatches, numel = row->numel;
  if (rc == ETK_OK && n && integer &&
      !(row->status == ETK_NUMERICS_MATCHED && row->exact))
    n = 0;
  for (size_t k = 0; k < n; k++) {
    etk_graph_node_figures_t *f = &j->nodes[nodes[k]];
    if (n > j->ecover[nodes[k]]) continue;
    if (n < j->ecover[nodes[k]]) {
      j->ecover[nodes[k]] = n;
      f->has_error = false;
      f->mse = f->snr = f->max_abs = f->cosine = NAN;
      f->int_compared = f->int_mismatches = 0;
    }
    if (integer) {
      f->int_compared += numel;
      f->int_mismatches += bad;
    } else {
      add_error(f, row->mse, row->snr, row->max_abs, row->cosine);
    }
  }
  free(nodes);
  return rc;
}

/* Numerical error against a second run (`etkit numerics` rows): float
 * values by MSE/SNR, integer ones as mismatch counts, a delegate call's
 * inputs and constant arguments left out. */
static int errors_against(join_t *j) {
  etk_numerics_ab_options_t abo = {1};
  etk_numerics_ab_t *ab;
  int rc = etk_numerics_ab_build(
      j->insp, j->o->debug_buffer, j->o->debug_buffer_len, j->o->against,
      j->o->against_buffer, j->o->against_buffer_len, &abo, &ab, j->err);
  if (rc != ETK_OK) return rc;
  const etk_etrecord_method_maps_t *maps =
      j->rec ? etk_etrecord_maps_find(j->rec, j->method) : NULL;
  size_t rows = etk_numerics_ab_row_count(ab);
  for (size_t r = 0; r < rows && rc == ETK_OK;) {
    /* one group: the rows of one (block, instruction, delegate id) */
    etk_numerics_row_t first, row;
    if (etk_numerics_ab_row_get(ab, r, &first) != ETK_OK) break;
    size_t end = r + 1;
    while (
        end < rows && etk_numerics_ab_row_get(ab, end, &row) == ETK_OK &&
        row.block_a == first.block_a && !row.is_output == !first.is_output &&
        row.instruction_id == first.instruction_id &&
        row.delegate_debug_id_int == first.delegate_debug_id_int &&
        !row.delegate_debug_id_str == !first.delegate_debug_id_str &&
        (!row.delegate_debug_id_str ||
         strcmp(row.delegate_debug_id_str, first.delegate_debug_id_str) == 0))
      end++;
    for (size_t k = r; k < end && rc == ETK_OK; k++) {
      if (etk_numerics_ab_row_get(ab, k, &row) != ETK_OK) continue;
      if (row.status != ETK_NUMERICS_MATCHED || row.is_output ||
          row.block_a == SIZE_MAX || !j->block_ok[row.block_a] ||
          delegate_input(j, maps, &row, end - r, k - r))
        continue;
      rc = add_row(j, &row);
    }
    r = end;
  }
  etk_numerics_ab_free(ab);
  return rc;
}

/* Numerical error against the caller's reference values: debug entry k of
 * an event that covers exactly one node is that node's output k. */
static int errors_reference(join_t *j) {
  const etk_etdump_t *dump = etk_inspector_etdump(j->insp);
  size_t count = etk_inspector_event_count(j->insp);
  for (size_t i = 0; i < count; i++) {
    etk_inspector_event_t ev;
    if (etk_inspector_event_get(j->insp, i, &ev) != ETK_OK) continue;
    if (!j->block_ok[ev.block] || ev.debug_count == 0) continue;
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)ev.name_len, ev.name);
    size_t *nodes, n;
    int rc = event_nodes(j, &ev, name, &nodes, &n);
    if (rc != ETK_OK) return rc;
    size_t node = n == 1 ? nodes[0] : ETK_GRAPH_NONE;
    free(nodes);
    if (node == ETK_GRAPH_NONE) continue;
    for (size_t k = 0; k < ev.debug_count; k++) {
      uint32_t de;
      etk_numerics_tensor_t ref, run;
      etk_numerics_value_t value;
      etk_error_t local;
      etk_error_clear(&local);
      if (etk_inspector_event_debug_entry(j->insp, i, k, &de) != ETK_OK ||
          etk_numerics_debug_value(dump, j->o->debug_buffer,
                                   j->o->debug_buffer_len, de, 0, &value,
                                   &local) != ETK_OK ||
          !etk_numerics_value_view(&value, &run))
        continue;
      rc = j->o->reference(j->o->reference_ctx, node, (uint32_t)k, &ref);
      if (rc == ETK_E_NOT_FOUND) continue;
      if (rc != ETK_OK)
        return etk_error_set(j->err, rc, ETK_NO_OFFSET,
                             "the reference of node %zu output %zu failed",
                             node, k);
      add_compared(&j->nodes[node], &ref, &run);
    }
  }
  return ETK_OK;
}

/* A view of a recorded tensor, for etk_numerics_compare(). */
static bool tensor_view(const etk_graph_tensor_t *t, etk_numerics_tensor_t *v) {
  if (t->dtype < 0 || t->dim > ETK_NUMERICS_MAX_DIMS) return false;
  memset(v, 0, sizeof *v);
  v->scalar_type = t->dtype;
  v->dim = t->dim;
  v->sizes = t->sizes;
  v->data = t->data;
  v->data_len = t->nbytes;
  return true;
}

/* Numerical error of the program outputs against the ETRecord's
 * reference_outputs, given to the nodes that produce the user outputs
 * (upstream's compare_results pairs: run output k with reference k). */
static int errors_outputs(join_t *j) {
  size_t blocks = etk_inspector_block_count(j->insp), b = 0;
  while (b < blocks && !j->block_ok[b]) b++;
  etk_inspector_block_t blk;
  if (b == blocks || etk_inspector_block_get(j->insp, b, &blk) != ETK_OK ||
      blk.output_count == 0)
    return ETK_OK;
  const etk_graph_tensor_t *refs;
  size_t ref_count;
  etk_error_t local;
  etk_error_clear(&local);
  int64_t index = blk.bundled_input_index >= 0 ? blk.bundled_input_index : -1;
  if (etk_graph_recorded(j->g, ETK_GRAPH_REFERENCE_OUTPUTS, index, &refs,
                         &ref_count, &local) != ETK_OK)
    return ETK_OK; /* no reference outputs: nothing to compare */
  const etk_graph_graph_t *top = &etk_graph_graphs(j->g)[0];
  const etk_graph_node_t *out = &etk_graph_nodes(j->g)[top->output_node];
  const etk_graph_value_t *values = etk_graph_values(j->g);
  const etk_etdump_t *dump = etk_inspector_etdump(j->insp);
  size_t k = 0; /* user output index */
  for (size_t a = 0; a < out->arg_count; a++) {
    bool user = top->output_spec_count == 0 ||
                (a < top->output_spec_count &&
                 top->output_specs[a].kind == ETK_GRAPH_OUTPUT_USER);
    if (!user) continue;
    size_t idx = k++;
    const etk_graph_arg_t *arg = &out->args[a];
    if (idx >= ref_count || idx >= blk.output_count || !arg->values ||
        arg->count != 1 || arg->values[0] == ETK_GRAPH_NONE)
      continue;
    etk_numerics_value_t value;
    etk_numerics_tensor_t run, ref;
    if (etk_numerics_debug_value(dump, j->o->debug_buffer,
                                 j->o->debug_buffer_len, blk.outputs[idx], 0,
                                 &value, &local) != ETK_OK ||
        !etk_numerics_value_view(&value, &run) ||
        !tensor_view(&refs[idx], &ref))
      continue;
    add_compared(&j->nodes[values[arg->values[0]].producer], &ref, &run);
  }
  return ETK_OK;
}

static int choose_blocks(join_t *j) {
  size_t blocks = etk_inspector_block_count(j->insp);
  j->block_ok = calloc(blocks ? blocks : 1, sizeof *j->block_ok);
  if (!j->block_ok)
    return etk_error_set(j->err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                         "out of memory");
  for (size_t b = 0; b < blocks; b++) {
    if (j->o->block != ETK_GRAPH_NONE) {
      j->block_ok[b] = b == j->o->block;
      continue;
    }
    etk_inspector_block_t blk;
    if (etk_inspector_block_get(j->insp, b, &blk) != ETK_OK) continue;
    const char *bname = blk.name_present ? blk.name : NULL;
    const char *m = j->rec ? etk_etrecord_block_method(j->rec, bname) : NULL;
    if (j->rec ? !m || strcmp(m, j->method) != 0
               : !program_block_ran_method(j->g, bname))
      continue;
    /* the first block that ran something (not the load-time block) */
    for (size_t e = blk.first_event; e < blk.first_event + blk.event_count;
         e++) {
      etk_inspector_event_t ev;
      if (etk_inspector_event_get_basic(j->insp, e, &ev) == ETK_OK &&
          strncmp(ev.name, "Method::init", ev.name_len + 1) != 0 &&
          strncmp(ev.name, "Program::load_method", ev.name_len + 1) != 0) {
        j->block_ok[b] = true;
        return ETK_OK;
      }
    }
  }
  return ETK_OK;
}

int etk_graph_figures_compute(etk_graph_t *g, etk_inspector_t *insp,
                              const etk_graph_figures_options_t *opts,
                              etk_graph_figures_t **out, etk_error_t *err) {
  if (out) *out = NULL;
  if (!g || !insp || !out)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_graph_figures_compute: NULL argument");
  etk_graph_figures_options_t defaults;
  etk_graph_figures_options_init(&defaults);
  if (!opts) opts = &defaults;
  etk_graph_info_t info;
  etk_graph_info_get(g, &info);
  size_t n = etk_graph_node_count(g);
  join_t j;
  memset(&j, 0, sizeof j);
  j.g = g;
  j.rec = etk_graph_record(g);
  j.insp = insp;
  j.o = opts;
  j.method = info.method;
  j.err = err;
  etk_graph_figures_t *f = calloc(1, sizeof *f);
  j.nodes = calloc(n ? n : 1, sizeof *j.nodes);
  j.cover = malloc((n ? n : 1) * sizeof *j.cover);
  j.ecover = malloc((n ? n : 1) * sizeof *j.ecover);
  j.stamp = calloc(n ? n : 1, sizeof *j.stamp);
  int rc =
      f && j.nodes && j.cover && j.ecover && j.stamp
          ? ETK_OK
          : etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  for (size_t i = 0; rc == ETK_OK && i < n; i++) {
    j.cover[i] = j.ecover[i] = SIZE_MAX;
    j.nodes[i].avg = j.nodes[i].p50 = j.nodes[i].share = NAN;
    j.nodes[i].mse = j.nodes[i].snr = NAN;
    j.nodes[i].max_abs = j.nodes[i].cosine = NAN;
    j.nodes[i].call_avg = j.nodes[i].call_p50 = NAN;
  }
  if (rc == ETK_OK) rc = choose_blocks(&j);
  if (rc == ETK_OK && j.rec) /* a program's graph joins by instruction */
    rc = etk_etrecord_linker_create(j.rec, ETK_ETRECORD_LINK_INSTRUCTIONS_ONLY,
                                    &j.linker, err);
  if (rc == ETK_OK) rc = walk_events(&j, f);
  if (rc == ETK_OK) rc = collect_samples(&j, f, n);
  if (rc == ETK_OK && opts->against) rc = errors_against(&j);
  if (rc == ETK_OK && !opts->against && opts->reference)
    rc = errors_reference(&j);
  else if (rc == ETK_OK && !opts->against && opts->debug_buffer)
    rc = errors_outputs(&j);
  etk_etrecord_linker_destroy(j.linker);
  free(j.cover);
  free(j.ecover);
  free(j.stamp);
  free(j.block_ok);
  if (rc != ETK_OK) {
    free(j.nodes);
    etk_graph_figures_free(f);
    return rc;
  }
  for (size_t i = 0; i < n; i++) {
    etk_graph_node_figures_t *nf = &j.nodes[i];
    if (nf->reached) f->linked = true;
    if (!isnan(nf->avg)) {
      f->has_timing = true;
      if (f->execute_avg > 0) nf->share = nf->avg / f->execute_avg * 100.0;
    }
    if (nf->has_error || nf->int_compared) f->has_error = true;
  }
  char line[1024];
  bool mismatch =
      j.rec
          ? link_mismatch_line(&j.fit, !f->linked, f->events, opts->record_name,
                               "the graph has no figures",
                               "those events colour no node", line, sizeof line)
          : program_mismatch_line(&j.program_fit, !f->linked, f->events,
                                  opts->record_name, line, sizeof line);
  if (opts->note && mismatch) opts->note(opts->note_ctx, 1, line);
  f->node_count = n;
  f->nodes = j.nodes;
  f->time_unit = etk_time_scale_name(etk_inspector_target_time_scale(insp));
  *out = f;
  return ETK_OK;
}

int etk_graph_overlay_parse(const char *name, etk_graph_overlay_t *out) {
  static const struct {
    const char *name;
    etk_graph_overlay_t overlay;
  } names[] = {
      {"time", ETK_GRAPH_OVERLAY_TIME},   {"share", ETK_GRAPH_OVERLAY_SHARE},
      {"count", ETK_GRAPH_OVERLAY_COUNT}, {"mse", ETK_GRAPH_OVERLAY_MSE},
      {"error", ETK_GRAPH_OVERLAY_MSE},   {"snr", ETK_GRAPH_OVERLAY_SNR}};
  for (size_t k = 0; name && k < sizeof names / sizeof names[0]; k++)
    if (strcmp(names[k].name, name) == 0) {
      *out = names[k].overlay;
      return ETK_OK;
    }
  return ETK_E_NOT_FOUND;
}

void etk_graph_figures_overlay(const etk_graph_figures_t *f,
                               etk_graph_overlay_t overlay, double *values,
                               bool *has_value) {
  for (size_t i = 0; i < f->node_count; i++) {
    const etk_graph_node_figures_t *n = &f->nodes[i];
    double v = NAN;
    switch (overlay) {
      case ETK_GRAPH_OVERLAY_TIME:
        v = n->avg;
        break;
      case ETK_GRAPH_OVERLAY_SHARE:
        v = n->share;
        break;
      case ETK_GRAPH_OVERLAY_COUNT:
        v = n->reached ? (double)n->count : NAN;
        break;
      case ETK_GRAPH_OVERLAY_MSE:
        v = n->has_error ? n->mse : NAN;
        break;
      case ETK_GRAPH_OVERLAY_SNR:
        v = n->has_error ? n->snr : NAN;
        break;
    }
    values[i] = v;
    has_value[i] = !isnan(v);
  }
}
