/*
 * graph_fixture.c - builds the graph tests' ETRecords (graph_fixture.h):
 * the serde program read from tests/graph/fixtures/full_edge.json, and
 * around it torch.save archives written by etkit's own writer
 * (etk_torch_save_memory) and the emitter maps as JSON, zipped by the
 * ETRecord tests' fixture helper.
 */
#include "graph_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etk_test.h"
#include "fixture.h"

const float graph_fixture_conv_weight[2] = {0.5f, -2.0f};
const float graph_fixture_bn_mean[2] = {0.25f, 0.75f};
const float graph_fixture_lifted[1] = {3.0f};
const float graph_fixture_x[1] = {1.5f};
const float graph_fixture_reference[2] = {9.0f, -4.5f};

char *graph_fixture_program(void) {
  size_t len;
  unsigned char *data = etk_test_read_file(
      ETKIT_SOURCE_DIR "/tests/graph/fixtures/full_edge.json", &len);
  if (!data) return NULL;
  char *text = realloc(data, len + 1);
  if (!text) {
    free(data);
    return NULL;
  }
  text[len] = 0;
  return text;
}

char *graph_fixture_edit(char *text, const char *from, const char *to) {
  if (!text) return NULL;
  char *at = strstr(text, from);
  if (!at) {
    printf("# fixture edit: '%s' not found\n", from);
    free(text);
    return NULL;
  }
  size_t head = (size_t)(at - text), fl = strlen(from), tl = strlen(to);
  size_t total = strlen(text) - fl + tl;
  char *out = malloc(total + 1);
  if (out) {
    memcpy(out, text, head);
    memcpy(out + head, to, tl);
    strcpy(out + head + tl, at + fl);
  }
  free(text);
  return out;
}

/* A float32 tensor value over `data` (borrowed). */
static etk_pickle_value_t *tensor(etk_pickle_value_t *v, etk_torch_tensor_t *t,
                                  int64_t *sizes, uint32_t dim,
                                  const float *data, size_t n) {
  memset(t, 0, sizeof *t);
  t->dtype = 6;
  t->element_size = 4;
  t->dim = dim;
  t->sizes = sizes;
  t->numel = n;
  t->contiguous = true;
  t->storage = (const uint8_t *)data;
  t->storage_nbytes = n * 4;
  memset(v, 0, sizeof *v);
  v->kind = ETK_PICKLE_TENSOR;
  v->tensor = t;
  return v;
}

static uint8_t *save(const etk_pickle_value_t *root, size_t *len) {
  uint8_t *out = NULL;
  etk_error_t err;
  etk_error_clear(&err);
  if (etk_torch_save_memory(root, &out, len, &err) != ETK_OK) {
    char line[512];
    printf("# torch.save: %s\n", etk_error_format(&err, line, sizeof line));
    return NULL;
  }
  return out;
}

static etk_pickle_value_t *str(etk_pickle_value_t *v, const char *s) {
  memset(v, 0, sizeof *v);
  v->kind = ETK_PICKLE_STR;
  v->str = s;
  v->len = strlen(s);
  return v;
}

static etk_pickle_value_t *seq(etk_pickle_value_t *v, etk_pickle_kind_t kind,
                               const etk_pickle_value_t **items, size_t n) {
  memset(v, 0, sizeof *v);
  v->kind = kind;
  v->items = items;
  v->count = n;
  return v;
}

uint8_t *graph_fixture_record(const char *program, size_t *len) {
  char *owned = NULL;
  if (!program) program = owned = graph_fixture_program();
  if (!program) return NULL;
  int64_t s_w[4] = {2, 1, 1, 1}, s_m[4] = {1, 2, 1, 1}, s_c[1] = {1};
  int64_t s_x[4] = {1, 1, 1, 1}, s_r[4] = {1, 2, 1, 1};
  etk_torch_tensor_t tw, tm, tc, tx, tr;
  etk_pickle_value_t vw, vm, vc, vx, vr, k1, k2, k3;
  tensor(&vw, &tw, s_w, 4, graph_fixture_conv_weight, 2);
  tensor(&vm, &tm, s_m, 4, graph_fixture_bn_mean, 2);
  tensor(&vc, &tc, s_c, 1, graph_fixture_lifted, 1);
  tensor(&vx, &tx, s_x, 4, graph_fixture_x, 1);
  tensor(&vr, &tr, s_r, 4, graph_fixture_reference, 2);
  /* state dict {conv.weight, bn.running_mean}, constants {lifted_tensor_0} */
  const etk_pickle_value_t *sd_keys[2] = {str(&k1, "conv.weight"),
                                          str(&k2, "bn.running_mean")};
  const etk_pickle_value_t *sd_vals[2] = {&vw, &vm};
  etk_pickle_value_t sd = {
      .kind = ETK_PICKLE_DICT, .items = sd_keys, .values = sd_vals, .count = 2};
  const etk_pickle_value_t *c_keys[1] = {str(&k3, "lifted_tensor_0")};
  const etk_pickle_value_t *c_vals[1] = {&vc};
  etk_pickle_value_t consts = {
      .kind = ETK_PICKLE_DICT, .items = c_keys, .values = c_vals, .count = 1};
  /* example inputs ((x,), {}); representative inputs [x];
   * reference outputs {"forward": [[r]]} */
  const etk_pickle_value_t *x_items[1] = {&vx};
  etk_pickle_value_t args, kwargs = {.kind = ETK_PICKLE_DICT}, ex, rep, kf;
  seq(&args, ETK_PICKLE_TUPLE, x_items, 1);
  const etk_pickle_value_t *ex_items[2] = {&args, &kwargs};
  seq(&ex, ETK_PICKLE_TUPLE, ex_items, 2);
  seq(&rep, ETK_PICKLE_LIST, x_items, 1);
  const etk_pickle_value_t *r_items[1] = {&vr};
  etk_pickle_value_t case0, cases;
  seq(&case0, ETK_PICKLE_LIST, r_items, 1);
  const etk_pickle_value_t *case_items[1] = {&case0};
  seq(&cases, ETK_PICKLE_LIST, case_items, 1);
  const etk_pickle_value_t *ref_keys[1] = {str(&kf, "forward")};
  const etk_pickle_value_t *ref_vals[1] = {&cases};
  etk_pickle_value_t ref = {.kind = ETK_PICKLE_DICT,
                            .items = ref_keys,
                            .values = ref_vals,
                            .count = 1};

  size_t l_sd = 0, l_c = 0, l_ex = 0, l_rep = 0, l_ref = 0;
  uint8_t *b_sd = save(&sd, &l_sd), *b_c = save(&consts, &l_c);
  uint8_t *b_ex = save(&ex, &l_ex), *b_rep = save(&rep, &l_rep);
  uint8_t *b_ref = save(&ref, &l_ref);
  uint8_t *zip = NULL;
  if (b_sd && b_c && b_ex && b_rep && b_ref) {
    const char *base = "edge_dialect_exported_program/forward";
    fixture_member_t m[] = {
        {"ETRECORD_V0", "", NULL, 0, false},
        {base, program, NULL, 0, false},
        {"edge_dialect_exported_program/forward_state_dict", NULL, b_sd, l_sd,
         false},
        {"edge_dialect_exported_program/forward_constants", NULL, b_c, l_c,
         false},
        {"edge_dialect_exported_program/forward_example_inputs", NULL, b_ex,
         l_ex, false},
        {"debug_handle_map",
         "{\"forward\": {\"0\": 1, \"1\": 2, \"2\": [3, 4], \"3\": 5, \"4\": "
         "6, \"9\": [7]}}",
         NULL, 0, false},
        {"delegate_map",
         "{\"forward\": {\"9\": {\"name\": \"XnnpackBackend\", "
         "\"delegate_map\": {\"0\": [7]}}, \"12\": {\"name\": "
         "\"OtherBackend\", "
         "\"delegate_map\": {\"0\": [5, 6]}}}}",
         NULL, 0, false},
        {"reference_outputs", NULL, b_ref, l_ref, false},
        {"representative_inputs", NULL, b_rep, l_rep, false}};
    zip = fixture_zip(m, sizeof m / sizeof m[0], len);
  }
  free(b_sd);
  free(b_c);
  free(b_ex);
  free(b_rep);
  free(b_ref);
  free(owned);
  return zip;
}

/* Opens an ETRecord zip and loads its graph with `flags`. */
static int open_and_load(const uint8_t *zip, size_t len, unsigned flags,
                         etk_etrecord_t **rec, etk_graph_t **g,
                         etk_error_t *err) {
  int rc = etk_etrecord_open_memory(zip, len, NULL, rec, err);
  if (rc != ETK_OK) return rc;
  etk_graph_options_t o;
  etk_graph_options_default(&o);
  o.flags = flags;
  return etk_graph_load(*rec, &o, g, err);
}

int graph_fixture_load(const char *program, unsigned flags,
                       etk_etrecord_t **rec, etk_graph_t **g, char *line,
                       size_t line_size) {
  *rec = NULL;
  *g = NULL;
  size_t len;
  uint8_t *zip = graph_fixture_record(program, &len);
  if (!zip) {
    snprintf(line, line_size, "fixture not built");
    return ETK_E_INTERNAL;
  }
  etk_error_t err;
  etk_error_clear(&err);
  int rc = open_and_load(zip, len, flags, rec, g, &err);
  free(zip);
  if (rc != ETK_OK) etk_error_format(&err, line, line_size);
  return rc;
}

int graph_fixture_load_desc(const etk_etrecord_desc_t *desc,
                            etk_etrecord_t **rec, etk_graph_t **g, char *line,
                            size_t line_size) {
  *rec = NULL;
  *g = NULL;
  uint8_t *zip;
  size_t len;
  etk_error_t err;
  etk_error_clear(&err);
  int rc = etk_etrecord_write_memory(desc, &zip, &len, &err);
  if (rc == ETK_OK) {
    rc = open_and_load(zip, len, 0, rec, g, &err);
    free(zip);
  }
  if (rc != ETK_OK) etk_error_format(&err, line, line_size);
  return rc;
}
