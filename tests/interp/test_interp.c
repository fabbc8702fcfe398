/*
 * test_interp.c - the interpreter on whole graphs written by etkit's own
 * ETRecord writer (a small convnet and a transformer block, from
 * reference/NAME.graph) against PyTorch's intermediate outputs, a
 * KWS-shaped graph of upstream's cortex_m:: ops against CMSIS-NN's integer
 * formulas (numpy), and on the bad
 * inputs of issue 20: unsupported ops (reported per node, everything
 * downstream without reference), missing representative inputs, caller
 * inputs of the wrong shape, graphs naming missing values, absurd sizes
 * against the memory bound.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etk_test.h"
#include "etkit/graph.h"
#include "etkit/interp.h"
#include "interp_fixture.h"

static char g_path[256];

/* Writes the model's ETRecord to a temporary file; returns its path. */
static const char *write_record(gf_model_t *m, bool with_inputs) {
  etk_error_t err;
  etk_error_clear(&err);
  snprintf(g_path, sizeof g_path, "interp_test_%s_%d.etrecord", m->model,
           (int)getpid());
  if (gf_write(m, g_path, with_inputs, &err) != ETK_OK) {
    printf("# write failed: %s\n", err.message);
    return NULL;
  }
  return g_path;
}

typedef struct loaded {
  etk_etrecord_t *rec;
  etk_graph_t *g;
  etk_interp_t *r;
  int rc;
  etk_error_t err;
} loaded_t;

static void run_record(loaded_t *l, const char *path,
                       const etk_interp_options_t *opts) {
  memset(l, 0, sizeof *l);
  etk_error_clear(&l->err);
  l->rc = etk_etrecord_open_file(path, NULL, &l->rec, &l->err);
  if (l->rc == ETK_OK) l->rc = etk_graph_load(l->rec, NULL, &l->g, &l->err);
  if (l->rc == ETK_OK) l->rc = etk_interp_run(l->g, opts, &l->r, &l->err);
  if (l->rc != ETK_OK) printf("# run: %s\n", l->err.message);
}

static void unload(loaded_t *l) {
  etk_interp_free(l->r);
  etk_graph_free(l->g);
  etk_etrecord_close(l->rec);
  unlink(g_path);
}

/* Max |got - want| / (1 + |want|) over an output, or INFINITY when the
 * shapes or dtypes differ. */
static double output_error(const etk_interp_tensor_t *t, const etk_npy_t *n) {
  double worst = 0.0;
  uint64_t count;
  if (t->dim != n->dim || t->nbytes != n->nbytes || t->dtype != n->scalar_type)
    return INFINITY;
  for (uint32_t d = 0; d < n->dim; d++)
    if (t->sizes[d] != n->sizes[d]) return INFINITY;
  if (t->dtype != ETK_SCALAR_TYPE_FLOAT)
    return memcmp(t->data, n->data, (size_t)n->nbytes) ? INFINITY : 0.0;
  count = n->nbytes / 4;
  for (uint64_t k = 0; k < count; k++) {
    float fa, fb; /* .npy data need not be aligned: copied, not cast */
    memcpy(&fa, (const uint8_t *)t->data + 4 * k, 4);
    memcpy(&fb, (const uint8_t *)n->data + 4 * k, 4);
    double a = fa, b = fb;
    double e = fabs(a - b) / (1.0 + fabs(b));
    if (!(e <= worst)) worst = e;
  }
  return worst;
}

/* Runs a reference model and compares every node with PyTorch. */
static void check_model(const char *model, double tol) {
  gf_model_t *m = NULL;
  loaded_t l;
  const char *path;
  size_t compared = 0;
  REQUIRE(gf_load(model, &m) == 0);
  path = write_record(m, true);
  REQUIRE(path != NULL);
  run_record(&l, path, NULL);
  REQUIRE(l.rc == ETK_OK);
  CHECK_EQ_U64(etk_interp_node_count(l.r), m->nnodes);
  for (size_t k = 0; k < etk_interp_node_count(l.r); k++) {
    const etk_interp_node_t *n = &etk_interp_nodes(l.r)[k];
    const gf_node_t *want = &m->gnodes[k];
    if (n->status != ETK_INTERP_OK) {
      printf("# %s: %s %s\n", n->name, etk_interp_status_name(n->status),
             n->message);
      CHECK(n->status == ETK_INTERP_OK);
      continue;
    }
    CHECK_EQ_STR(n->name, m->nodes[k].name);
    CHECK_EQ_U64(n->output_count, want->nouts);
    CHECK(n->debug_handle_count == 1 &&
          n->debug_handles[0] == m->nodes[k].debug_handle);
    CHECK(n->output_is_list == (want->nouts > 1));
    for (size_t o = 0; o < n->output_count && o < want->nouts; o++) {
      double e = output_error(&n->outputs[o], want->expect[o]);
      compared++;
      if (!(e <= tol)) {
        printf("# %s output %zu: relative error %g\n", n->name, o, e);
        CHECK(e <= tol);
      }
    }
  }
  printf("# %s: %zu outputs of %zu nodes match PyTorch\n", model, compared,
         m->nnodes);
  CHECK(compared >= m->nnodes);
  unload(&l);
  gf_free(m);
}

ETK_TEST(convnet_matches_pytorch) {
  check_model("convnet", 1e-5);
}

ETK_TEST(transformer_block_matches_pytorch) {
  check_model("transformer", 1e-5);
}

/* upstream's Cortex-M ops (examples/kws_model as a graph of cortex_m::
 * nodes, reference from make_kws_graph.py): integer outputs exactly, the
 * dequantized output to the bit */
ETK_TEST(cortex_m_kws_graph_matches_cmsis_nn) {
  check_model("kws", 0.0);
}

ETK_TEST(op_table_is_sorted_and_every_row_has_its_kernel) {
  const char *prev = NULL, *op;
  size_t n = 0;
  for (size_t i = 0; (op = etk_interp_op_name(i)) != NULL; i++, n++) {
    if (prev && strcmp(prev, op) >= 0) printf("# out of order: %s\n", op);
    CHECK(!prev || strcmp(prev, op) < 0);
    CHECK(etk_interp_op_supported(op));
    prev = op;
  }
  CHECK(n > 80);
  CHECK(!etk_interp_op_supported("aten.not_an_op.default"));
}

ETK_TEST(unsupported_op_is_reported_and_downstream_has_no_reference) {
  gf_model_t *m = NULL;
  loaded_t l;
  size_t bad = 4; /* the grouped convolution of the convnet */
  REQUIRE(gf_load("convnet", &m) == 0);
  snprintf(m->gnodes[bad].target, sizeof m->gnodes[bad].target, "%s",
           "executorch.exir.dialects.edge.ops.aten.frobnicate.default");
  run_record(&l, write_record(m, true), NULL);
  REQUIRE(l.rc == ETK_OK);
  for (size_t k = 0; k < etk_interp_node_count(l.r); k++) {
    const etk_interp_node_t *n = &etk_interp_nodes(l.r)[k];
    if (k < bad) CHECK(n->status == ETK_INTERP_OK);
    if (k == bad) {
      CHECK(n->status == ETK_INTERP_UNSUPPORTED);
      CHECK(strstr(n->message, "unsupported op aten.frobnicate.default"));
    }
    if (k > bad && strcmp(n->op, "aten.t_copy.default") == 0) {
      CHECK(n->status == ETK_INTERP_OK); /* does not depend on it */
    } else if (k > bad) {
      CHECK(n->status == ETK_INTERP_NO_REFERENCE);
      CHECK(n->output_count == 0);
      if (k == bad + 1) printf("# downstream: %s\n", n->message);
      CHECK(strstr(n->message, "aten_convolution_default_1") != NULL);
    }
  }
  CHECK_EQ_U64(etk_interp_status_count(l.r, ETK_INTERP_OK), bad + 1);
  unload(&l);
  gf_free(m);
}

ETK_TEST(a_malformed_argument_fails_its_node_only) {
  gf_model_t *m = NULL;
  loaded_t l;
  REQUIRE(gf_load("convnet", &m) == 0);
  /* the first convolution's stride as a string: that node fails with the
   * reason, the nodes that need it have no reference, nothing crashes */
  m->gnodes[0].args[3].kind = ETK_ETRECORD_IN_STRING;
  m->gnodes[0].args[3].s = "wide";
  run_record(&l, write_record(m, true), NULL);
  REQUIRE(l.rc == ETK_OK);
  {
    const etk_interp_node_t *n = etk_interp_nodes(l.r);
    printf("# %s\n", n[0].message);
    CHECK(n[0].status == ETK_INTERP_FAILED);
    CHECK(strstr(n[0].message, "'stride' is as_string, expected an int list") !=
          NULL);
    CHECK(n[1].status == ETK_INTERP_NO_REFERENCE);
    CHECK(strstr(n[1].message, "aten_convolution_default") != NULL);
  }
  unload(&l);
  gf_free(m);
}

ETK_TEST(missing_representative_inputs_say_how_to_add_them) {
  gf_model_t *m = NULL;
  loaded_t l;
  REQUIRE(gf_load("convnet", &m) == 0);
  run_record(&l, write_record(m, false), NULL);
  CHECK_EQ_INT(l.rc, ETK_E_NOT_FOUND);
  CHECK(strstr(l.err.message, "representative") != NULL);
  CHECK(l.r == NULL);
  unload(&l);
  gf_free(m);
}

ETK_TEST(caller_inputs_are_checked_against_the_graph) {
  gf_model_t *m = NULL;
  loaded_t l;
  etk_interp_options_t o;
  int64_t sizes[4] = {1, 3, 12, 12}, wrong[4] = {1, 3, 10, 12};
  etk_interp_tensor_t in;
  REQUIRE(gf_load("convnet", &m) == 0);
  etk_interp_options_default(&o);
  in.dtype = ETK_SCALAR_TYPE_FLOAT;
  in.dim = 4;
  in.sizes = wrong;
  in.data = m->input->data;
  in.nbytes = 1 * 3 * 10 * 12 * 4;
  o.inputs = &in;
  o.input_count = 1;
  run_record(&l, write_record(m, false), &o);
  CHECK_EQ_INT(l.rc, ETK_E_INVALID_ARGUMENT);
  CHECK(strstr(l.err.message,
               "[1, 3, 10, 12] float32, the graph expects "
               "[1, 3, 12, 12] float32") != NULL);
  unload(&l);
  /* the right shape runs without representative inputs in the record */
  in.sizes = sizes;
  in.nbytes = m->input->nbytes;
  run_record(&l, write_record(m, false), &o);
  CHECK_EQ_INT(l.rc, ETK_OK);
  if (l.r) CHECK_EQ_U64(etk_interp_status_count(l.r, ETK_INTERP_OK), m->nnodes);
  unload(&l);
  gf_free(m);
}

ETK_TEST(a_graph_naming_a_missing_value_is_refused) {
  gf_model_t *m = NULL;
  loaded_t l;
  REQUIRE(gf_load("convnet", &m) == 0);
  m->gnodes[2].args[0].tensor = "no_such_value";
  run_record(&l, write_record(m, true), NULL);
  CHECK(l.rc != ETK_OK);
  CHECK(strstr(l.err.message, "no_such_value") != NULL);
  unload(&l);
  gf_free(m);
}

ETK_TEST(memory_limit_and_absurd_sizes) {
  gf_model_t *m = NULL;
  loaded_t l;
  etk_interp_options_t o;
  static const int64_t huge[3] = {1 << 20, 1 << 20, 1 << 20};
  REQUIRE(gf_load("transformer", &m) == 0);
  etk_interp_options_default(&o);
  o.max_memory = 4096;
  run_record(&l, write_record(m, true), &o);
  CHECK_EQ_INT(l.rc, ETK_E_LIMIT);
  CHECK(strstr(l.err.message, "memory limit") != NULL);
  unload(&l);
  /* a node whose TensorMeta claims 2^60 elements: refused before any
   * allocation, whatever the bound */
  for (size_t v = 0; v < m->nvalues; v++)
    if (strcmp(m->values[v].name, m->nodes[3].name) == 0) {
      m->metas[v].sizes = huge;
      m->metas[v].dim = 3;
    }
  o.max_memory = 0;
  run_record(&l, write_record(m, true), &o);
  CHECK(l.rc == ETK_E_LIMIT || l.rc == ETK_E_FORMAT);
  printf("# %s\n", l.err.message);
  unload(&l);
  gf_free(m);
}

ETK_TEST_MAIN()
