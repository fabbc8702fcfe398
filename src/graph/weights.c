/*
 * weights.c - the tensors around a graph: parameters, buffers and lifted
 * constants ("<program>_state_dict", "<program>_constants"), the
 * program's example inputs, and the record's representative inputs and
 * reference outputs, all torch.save archives decoded by etkit/torch.h.
 *
 * Archives are decoded on first use and kept until etk_graph_free(); a
 * member that failed to decode is tried again on the next call.  A
 * recording case is flattened once (depth-first through lists, tuples and
 * dict values) into etk_graph_tensor_t items cached per (recording,
 * index).  Tensors stored C-contiguous are handed out in place; others
 * are copied once into the graph's arena, bounded by GRAPH_COPY_LIMIT so
 * that a stride-0 tensor cannot expand into more memory than the file is
 * worth.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define GRAPH_COPY_LIMIT ((uint64_t)1 << 30)

void graph_weights_free(etk_graph_t *g) {
  etk_torch_archive_close(g->state_dict);
  etk_torch_archive_close(g->constants);
  etk_torch_archive_close(g->example_inputs);
  etk_torch_archive_close(g->representative_inputs);
  etk_torch_archive_close(g->reference_outputs);
  g->state_dict = g->constants = g->example_inputs = NULL;
  g->representative_inputs = g->reference_outputs = NULL;
  for (graph_recording_t *r = g->recordings; r;) {
    graph_recording_t *next = r->next;
    free(r);
    r = next;
  }
  g->recordings = NULL;
}

/* A program's graph (etk_graph_from_program) has no ETRecord to read
 * weights or recordings from. */
static int no_record(etk_error_t *err) {
  return etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                       "a program's graph has no ETRecord: no weights or "
                       "recorded tensors");
}

/* Opens "<program member><suffix>" as a torch.save archive into *slot.
 * ETK_E_NOT_FOUND (quietly, err untouched when `quiet`) when the member
 * is absent or empty. */
static int open_member(etk_graph_t *g, const char *suffix,
                       etk_torch_archive_t **slot, bool quiet,
                       etk_error_t *err) {
  if (*slot) return ETK_OK;
  char name[512];
  int n = snprintf(name, sizeof name, "%s%s", g->prog->ref.member, suffix);
  if (n < 0 || (size_t)n >= sizeof name)
    return etk_error_set(err, ETK_E_LIMIT, ETK_NO_OFFSET,
                         "member name too long");
  const uint8_t *data;
  size_t len;
  etk_error_t local;
  etk_error_clear(&local);
  int rc = etk_etrecord_member_read(g->rec, name, &data, &len, &local);
  if (rc == ETK_OK && len == 0) rc = ETK_E_NOT_FOUND;
  if (rc != ETK_OK) {
    if (rc == ETK_E_NOT_FOUND && quiet) return rc;
    if (rc == ETK_E_NOT_FOUND)
      return etk_error_set_where(err, name, rc,
                                 "the ETRecord has no (or an empty) member "
                                 "'%s'",
                                 name);
    if (err && err->code == ETK_OK) *err = local;
    return rc;
  }
  return etk_torch_archive_open(data, len, NULL, name, slot, err);
}

static int tensor_view(etk_graph_t *g, const etk_pickle_value_t *v,
                       etk_graph_tensor_t *out, etk_error_t *err) {
  memset(out, 0, sizeof *out);
  out->value = v;
  out->dtype = -1;
  if (!v || v->kind != ETK_PICKLE_TENSOR || !v->tensor) return ETK_OK;
  const etk_torch_tensor_t *t = v->tensor;
  out->dtype = t->dtype;
  out->dim = t->dim;
  out->sizes = t->sizes;
  out->numel = t->numel;
  out->element_size = t->element_size;
  if (t->element_size && t->numel > UINT64_MAX / t->element_size)
    return etk_error_set(err, ETK_E_LIMIT, ETK_NO_OFFSET,
                         "tensor of %llu elements is too large",
                         (unsigned long long)t->numel);
  out->nbytes = t->numel * t->element_size;
  if (t->numel == 0) {
    out->data = t->storage;
    return ETK_OK;
  }
  if (t->contiguous) {
    out->data = t->storage + (size_t)t->storage_offset * t->element_size;
    return ETK_OK;
  }
  if (out->nbytes > GRAPH_COPY_LIMIT || out->nbytes > SIZE_MAX)
    return etk_error_set(err, ETK_E_LIMIT, ETK_NO_OFFSET,
                         "a strided tensor of %llu bytes is over the copy "
                         "limit of %llu",
                         (unsigned long long)out->nbytes,
                         (unsigned long long)GRAPH_COPY_LIMIT);
  void *copy = etk_arena_alloc(&g->arena, (size_t)out->nbytes);
  if (!copy)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  int rc = etk_torch_tensor_copy(t, copy, out->nbytes);
  if (rc != ETK_OK)
    return etk_error_set(err, rc, ETK_NO_OFFSET, "cannot copy a tensor");
  out->data = copy;
  return ETK_OK;
}

int etk_graph_state_tensor(etk_graph_t *g, const char *key,
                           etk_graph_tensor_t *out, etk_error_t *err) {
  if (!g || !key || !out)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_graph_state_tensor: NULL argument");
  if (!g->rec) return no_record(err);
  int rc_sd = open_member(g, "_state_dict", &g->state_dict, true, err);
  if (rc_sd != ETK_OK && rc_sd != ETK_E_NOT_FOUND) return rc_sd;
  int rc_c = open_member(g, "_constants", &g->constants, true, err);
  if (rc_c != ETK_OK && rc_c != ETK_E_NOT_FOUND) return rc_c;
  const etk_pickle_value_t *v = NULL;
  const char *where = "_state_dict";
  if (g->state_dict)
    v = etk_pickle_dict_get(etk_torch_archive_root(g->state_dict), key);
  if (!v && g->constants) {
    v = etk_pickle_dict_get(etk_torch_archive_root(g->constants), key);
    where = "_constants";
  }
  if (!v)
    return etk_error_set_where(err, g->prog->ref.member, ETK_E_NOT_FOUND,
                               "'%.200s' is in neither %s_state_dict nor "
                               "%s_constants",
                               key, g->prog->ref.member, g->prog->ref.member);
  if (v->kind != ETK_PICKLE_TENSOR)
    return etk_error_set_where(err, g->prog->ref.member, ETK_E_FORMAT,
                               "%s['%.200s'] is a %s, not a tensor", where, key,
                               etk_pickle_kind_name(v->kind));
  return tensor_view(g, v, out, err);
}

int etk_graph_weight(etk_graph_t *g, size_t node, etk_graph_tensor_t *out,
                     etk_error_t *err) {
  if (!g || !out || node >= g->node_count ||
      g->nodes[node].kind != ETK_GRAPH_NODE_PLACEHOLDER)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_graph_weight: not a placeholder node");
  const etk_graph_graph_t *G = &g->graphs[g->nodes[node].graph];
  for (size_t k = 0; k < G->input_spec_count; k++) {
    const etk_graph_input_spec_t *s = &G->input_specs[k];
    if (s->node != node) continue;
    if (s->kind != ETK_GRAPH_INPUT_PARAMETER &&
        s->kind != ETK_GRAPH_INPUT_BUFFER &&
        s->kind != ETK_GRAPH_INPUT_TENSOR_CONSTANT)
      break;
    if (G->kind != ETK_GRAPH_GRAPH_TOP)
      return etk_error_set_where(err, g->prog->ref.member, ETK_E_NOT_FOUND,
                                 "the weights of lowered module '%.200s' are "
                                 "not in the ETRecord",
                                 G->name);
    if (!s->target)
      return etk_error_set_where(err, g->prog->ref.member, ETK_E_FORMAT,
                                 "input spec of '%.200s' names no target",
                                 g->nodes[node].name);
    return etk_graph_state_tensor(g, s->target, out, err);
  }
  return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                       "placeholder '%.200s' is not a parameter, buffer or "
                       "tensor constant",
                       g->nodes[node].name);
}

/* ------------------------------------------------------------ recordings */

typedef struct leaves {
  const etk_pickle_value_t **v;
  size_t n, cap;
  bool failed;
} leaves_t;

static void flatten(const etk_pickle_value_t *v, leaves_t *out,
                    unsigned depth) {
  if (out->failed) return;
  if (depth > 256) {
    out->failed = true;
    return;
  }
  if (v->kind == ETK_PICKLE_LIST || v->kind == ETK_PICKLE_TUPLE) {
    for (size_t k = 0; k < v->count; k++) flatten(v->items[k], out, depth + 1);
    return;
  }
  if (v->kind == ETK_PICKLE_DICT) {
    for (size_t k = 0; k < v->count; k++) flatten(v->values[k], out, depth + 1);
    return;
  }
  if (!ETK_VEC_RESERVE(out->v, out->cap, out->n + 1)) {
    out->failed = true;
    return;
  }
  out->v[out->n++] = v;
}

static bool is_seq(const etk_pickle_value_t *v) {
  return v->kind == ETK_PICKLE_LIST || v->kind == ETK_PICKLE_TUPLE;
}

/* Representative inputs: a list of cases when every item is a sequence. */
static size_t representative_cases(const etk_pickle_value_t *root) {
  if (!is_seq(root)) return 1;
  if (root->count == 0) return 0;
  for (size_t k = 0; k < root->count; k++)
    if (!is_seq(root->items[k])) return 1;
  return root->count;
}

static int open_recording(etk_graph_t *g, etk_graph_recording_t which,
                          const etk_pickle_value_t **root, etk_error_t *err) {
  if (!g->rec) return no_record(err);
  int rc = ETK_OK;
  etk_torch_archive_t **slot;
  switch (which) {
    case ETK_GRAPH_REPRESENTATIVE_INPUTS:
      slot = &g->representative_inputs;
      if (!*slot)
        rc = etk_etrecord_representative_inputs_open(g->rec, NULL, slot, err);
      if (rc == ETK_E_NOT_FOUND && err)
        snprintf(err->message, sizeof err->message,
                 "the ETRecord has no representative inputs: add them with "
                 "ETRecord.update_representative_inputs(inputs) and save it "
                 "again");
      break;
    case ETK_GRAPH_EXAMPLE_INPUTS:
      slot = &g->example_inputs;
      rc = open_member(g, "_example_inputs", slot, false, err);
      break;
    case ETK_GRAPH_REFERENCE_OUTPUTS:
      slot = &g->reference_outputs;
      if (!*slot)
        rc = etk_etrecord_reference_outputs_open(g->rec, NULL, slot, err);
      break;
    default:
      return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                           "unknown recording %d", (int)which);
  }
  if (rc != ETK_OK) return rc;
  *root = etk_torch_archive_root(*slot);
  return ETK_OK;
}

/* The value holding case `index` of a recording, or NULL with an error. */
static int select_case(etk_graph_t *g, etk_graph_recording_t which,
                       const etk_pickle_value_t *root, int64_t index,
                       const etk_pickle_value_t **out, etk_error_t *err) {
  if (which == ETK_GRAPH_REFERENCE_OUTPUTS)
    return etk_etrecord_reference_select(root, g->method, index, out, err);
  size_t cases =
      which == ETK_GRAPH_EXAMPLE_INPUTS ? 1 : representative_cases(root);
  if (index == -1 && cases) index = (int64_t)cases - 1;
  if (index < 0 || (uint64_t)index >= cases)
    return etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                         "no case %lld: the recording has %zu",
                         (long long)index, cases);
  *out = which == ETK_GRAPH_REPRESENTATIVE_INPUTS && cases > 1
             ? root->items[index]
             : root;
  if (which == ETK_GRAPH_REPRESENTATIVE_INPUTS && cases == 1 && is_seq(root) &&
      root->count == 1 && is_seq(root->items[0]))
    *out = root->items[0];
  return ETK_OK;
}

size_t etk_graph_recorded_case_count(etk_graph_t *g,
                                     etk_graph_recording_t which) {
  if (!g) return 0;
  if (!g->rec) return graph_program_case_count(g, which);
  const etk_pickle_value_t *root = NULL;
  if (open_recording(g, which, &root, NULL) != ETK_OK) return 0;
  if (which == ETK_GRAPH_EXAMPLE_INPUTS) return 1;
  if (which == ETK_GRAPH_REPRESENTATIVE_INPUTS)
    return representative_cases(root);
  const etk_pickle_value_t *m = etk_pickle_dict_get(root, g->method);
  return m && is_seq(m) ? m->count : 0;
}

int etk_graph_recorded(etk_graph_t *g, etk_graph_recording_t which,
                       int64_t index, const etk_graph_tensor_t **items,
                       size_t *count, etk_error_t *err) {
  if (!g || !items || !count)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_graph_recorded: NULL argument");
  *items = NULL;
  *count = 0;
  if (!g->rec)
    return graph_program_recorded(g, which, index, items, count, err);
  for (graph_recording_t *r = g->recordings; r; r = r->next)
    if (r->which == which && r->index == index) {
      *items = r->items;
      *count = r->count;
      return ETK_OK;
    }
  const etk_pickle_value_t *root = NULL, *sel = NULL;
  int rc = open_recording(g, which, &root, err);
  if (rc == ETK_OK) rc = select_case(g, which, root, index, &sel, err);
  if (rc != ETK_OK) return rc;
  leaves_t lv = {0};
  flatten(sel, &lv, 0);
  if (lv.failed) {
    free(lv.v);
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                         "out of memory (or nesting over 256) flattening a "
                         "recording");
  }
  graph_recording_t *r = calloc(1, sizeof *r);
  etk_graph_tensor_t *t =
      lv.n ? etk_arena_array(&g->arena, lv.n, sizeof *t) : NULL;
  if (!r || (lv.n && !t)) {
    free(r);
    free(lv.v);
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  }
  for (size_t k = 0; k < lv.n && rc == ETK_OK; k++)
    rc = tensor_view(g, lv.v[k], &t[k], err);
  free(lv.v);
  if (rc != ETK_OK) {
    free(r);
    return rc;
  }
  r->which = which;
  r->index = index;
  r->items = t;
  r->count = lv.n;
  r->next = g->recordings;
  g->recordings = r;
  *items = t;
  *count = lv.n;
  return ETK_OK;
}

int etk_graph_placeholder_tensor(etk_graph_t *g, size_t node,
                                 etk_graph_recording_t which, int64_t index,
                                 etk_graph_tensor_t *out, etk_error_t *err) {
  if (!g || !out || node >= g->node_count ||
      g->nodes[node].kind != ETK_GRAPH_NODE_PLACEHOLDER ||
      g->nodes[node].graph != 0)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_graph_placeholder_tensor: not a placeholder of "
                         "the top graph");
  const etk_graph_graph_t *G = &g->graphs[0];
  size_t user = ETK_GRAPH_NONE;
  for (size_t k = 0; k < G->input_spec_count; k++) {
    const etk_graph_input_spec_t *s = &G->input_specs[k];
    if (s->node != node) continue;
    if (s->kind != ETK_GRAPH_INPUT_USER)
      return etk_graph_weight(g, node, out, err);
    user = s->user_index;
  }
  if (user == ETK_GRAPH_NONE) { /* no signature: position among inputs */
    if (G->input_spec_count)
      return etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                           "placeholder '%.200s' has no input spec",
                           g->nodes[node].name);
    for (size_t k = 0; k < G->placeholder_count; k++)
      if (G->placeholders[k] == node) user = k;
  }
  const etk_graph_tensor_t *items;
  size_t count;
  int rc = etk_graph_recorded(g, which, index, &items, &count, err);
  if (rc != ETK_OK) return rc;
  if (user >= count)
    return etk_error_set(err, ETK_E_NOT_FOUND, ETK_NO_OFFSET,
                         "user input %zu ('%.200s') is missing: the recorded "
                         "case has %zu items",
                         user, g->nodes[node].name, count);
  *out = items[user];
  return ETK_OK;
}
