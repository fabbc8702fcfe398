/*
 * check_graph_figures.c - the graph joined with an ETDump
 * (etk_graph_figures_compute(), etkit/link.h) on the files `etkit demo`
 * writes into the folder given as argv[1] (run by check_graph_demo.cmake).
 *
 * Checks: every call node of the demo is reached; a node covered by one
 * event of its own gets exactly that event's mean and median (read from
 * the Inspector after linking it the way `etkit inspect` does); shares
 * are percentages of Method::execute; the delegated nodes get their own
 * events' time, not the DELEGATE_CALL's; an A/B run of the dump against
 * itself gives zero error on every compared node; an ETRecord of another
 * program links nothing, gives the warning and leaves every node
 * unreached with NaN figures; the Model Explorer node data of the time
 * overlay has one result per reached node.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etk_test.h"
#include "etkit/inspector.h"
#include "etkit/link.h"
#include "graph_fixture.h"

static const char *g_dir;
static int g_warnings;

static char *path_of(const char *name) {
  static char buf[4][1024];
  static int k;
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s/%s", g_dir, name);
  return buf[k];
}

static void note(void *ctx, int is_warning, const char *line) {
  (void)ctx;
  printf("# note: %s\n", line);
  if (is_warning) g_warnings++;
}

typedef struct demo {
  etk_etrecord_t *rec;
  etk_graph_t *g;
  etk_inspector_t *insp;
  uint8_t *dbuf;
  size_t dlen;
} demo_t;

static bool demo_open(demo_t *d) {
  memset(d, 0, sizeof *d);
  etk_error_t err;
  etk_error_clear(&err);
  d->dbuf = etk_test_read_file(path_of("debug_buffer.bin"), &d->dlen);
  etk_inspector_options_t io;
  etk_inspector_options_init(&io);
  io.debug_buffer = d->dbuf;
  io.debug_buffer_len = d->dlen;
  if (etk_etrecord_open_file(path_of("model.etrecord"), NULL, &d->rec, &err) ||
      etk_graph_load(d->rec, NULL, &d->g, &err) ||
      etk_inspector_open_path(path_of("etdump.etdp"), &io, &d->insp, &err)) {
    char line[512];
    printf("# %s\n", etk_error_format(&err, line, sizeof line));
    return false;
  }
  return true;
}

static void demo_close(demo_t *d) {
  etk_inspector_close(d->insp);
  etk_graph_free(d->g);
  etk_etrecord_close(d->rec);
  free(d->dbuf);
}

ETK_TEST(timing_per_node) {
  demo_t d;
  REQUIRE(demo_open(&d));
  etk_graph_figures_t *f;
  etk_error_t err;
  etk_error_clear(&err);
  etk_graph_figures_options_t o;
  etk_graph_figures_options_init(&o);
  o.note = note;
  REQUIRE(etk_graph_figures_compute(d.g, d.insp, &o, &f, &err) == ETK_OK);
  CHECK(f->linked);
  CHECK(f->has_timing);
  CHECK(f->execute_avg > 0);
  CHECK_EQ_STR(f->time_unit, "ms");
  const etk_graph_node_t *n = etk_graph_nodes(d.g);
  size_t calls = 0, reached = 0;
  for (size_t i = 0; i < f->node_count; i++) {
    const etk_graph_node_figures_t *nf = &f->nodes[i];
    if (n[i].kind != ETK_GRAPH_NODE_CALL) {
      CHECK(!nf->reached);
      CHECK(isnan(nf->avg));
      continue;
    }
    calls++;
    if (!nf->reached) continue;
    reached++;
    CHECK(nf->count >= 1);
    CHECK(nf->avg > 0 && nf->avg < f->execute_avg);
    CHECK(fabs(nf->share - nf->avg / f->execute_avg * 100) < 1e-9);
  }
  CHECK_EQ_INT(reached, calls);
  /* the same events, linked the way `etkit inspect` links them */
  etk_etrecord_link_summary_t sum;
  REQUIRE(etk_etrecord_inspector_link(d.rec, d.insp, NULL, 0, &sum, &err) ==
          ETK_OK);
  size_t checked = 0;
  for (size_t e = 0; e < etk_inspector_event_count(d.insp); e++) {
    etk_inspector_event_link_t link;
    etk_stats_t st;
    etk_inspector_event_t ev;
    if (etk_inspector_event_get(d.insp, e, &ev) != ETK_OK ||
        strncmp(ev.name, "OPERATOR_CALL", ev.name_len) == 0 ||
        etk_inspector_event_link(d.insp, e, &link) != ETK_OK ||
        link.node_count != 1 ||
        etk_inspector_event_stats(d.insp, e, &st) != ETK_OK)
      continue;
    char name[256];
    snprintf(name, sizeof name, "%s", link.nodes[0].name);
    size_t len = strlen(name);
    if (len && name[len - 1] == '_') name[len - 1] = 0; /* upstream's "_" */
    size_t node = etk_graph_find_node(d.g, 0, name);
    REQUIRE(node != ETK_GRAPH_NONE);
    if (f->nodes[node].event_count != 1 || f->nodes[node].shared) continue;
    CHECK(fabs(f->nodes[node].avg - st.avg) < 1e-12);
    CHECK(fabs(f->nodes[node].p50 - st.p50) < 1e-12);
    /* its per-run samples (the A/B test's) are the event's durations */
    double raw[64];
    size_t got = 0;
    REQUIRE(ev.sample_count <= 64);
    REQUIRE(etk_inspector_event_durations(d.insp, e, raw, &got) == ETK_OK);
    size_t from = f->sample_start[node], to = f->sample_start[node + 1];
    CHECK_EQ_INT(to - from, f->nodes[node].count);
    for (size_t k = 0; k < got && from + k < to; k++)
      CHECK(f->samples[from + k] == raw[k]);
    checked++;
  }
  CHECK(checked >= 5);
  /* the delegated convolution has its own event: it is not shared */
  size_t conv2 = etk_graph_find_node(d.g, 0, "aten_convolution_default_1");
  REQUIRE(conv2 != ETK_GRAPH_NONE);
  CHECK(n[conv2].partition != ETK_GRAPH_NONE);
  CHECK(!f->nodes[conv2].shared);
  /* the overlay as Model Explorer node data */
  double *values = calloc(f->node_count, sizeof *values);
  bool *has = calloc(f->node_count, sizeof *has);
  REQUIRE(values && has);
  etk_graph_figures_overlay(f, ETK_GRAPH_OVERLAY_SHARE, values, has);
  size_t present = 0;
  for (size_t i = 0; i < f->node_count; i++) present += has[i];
  CHECK_EQ_INT(present, reached);
  etk_graph_node_data_t nd = {values, has, f->node_count, NULL, 0, NULL, NULL};
  char *js;
  size_t len;
  REQUIRE(etk_graph_node_data_json(d.g, &nd, 0, &js, &len, &err) == ETK_OK);
  size_t results = 0;
  for (const char *p = js; (p = strstr(p, "{\"value\":")); p++) results++;
  CHECK_EQ_INT(results, reached);
  free(js);
  free(values);
  free(has);
  etk_graph_figures_free(f);
  demo_close(&d);
}

ETK_TEST(numerical_error_against_itself) {
  demo_t a, b;
  REQUIRE(demo_open(&a));
  REQUIRE(demo_open(&b));
  etk_graph_figures_options_t o;
  etk_graph_figures_options_init(&o);
  o.debug_buffer = a.dbuf;
  o.debug_buffer_len = a.dlen;
  o.against = b.insp;
  o.against_buffer = b.dbuf;
  o.against_buffer_len = b.dlen;
  etk_graph_figures_t *f;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_graph_figures_compute(a.g, a.insp, &o, &f, &err) == ETK_OK);
  CHECK(f->has_error);
  size_t with_error = 0;
  for (size_t i = 0; i < f->node_count; i++)
    if (f->nodes[i].has_error) {
      with_error++;
      CHECK(f->nodes[i].mse == 0);
      CHECK(f->nodes[i].max_abs == 0);
    } else {
      CHECK(isnan(f->nodes[i].mse));
    }
  CHECK(with_error >= 3);
  etk_graph_figures_free(f);
  demo_close(&a);
  demo_close(&b);
}

ETK_TEST(program_outputs_against_reference_outputs) {
  demo_t d;
  REQUIRE(demo_open(&d));
  etk_graph_figures_options_t o;
  etk_graph_figures_options_init(&o);
  o.debug_buffer = d.dbuf;
  o.debug_buffer_len = d.dlen;
  etk_graph_figures_t *f;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_graph_figures_compute(d.g, d.insp, &o, &f, &err) == ETK_OK);
  CHECK(f->has_error);
  /* the demo's reference outputs are its own run: rounding level at most */
  size_t fc = etk_graph_find_node(d.g, 0, "aten_addmm_default");
  REQUIRE(fc != ETK_GRAPH_NONE);
  CHECK(f->nodes[fc].has_error);
  CHECK(f->nodes[fc].mse < 1e-9);
  CHECK(f->nodes[fc].cosine > 0.999999);
  size_t with_error = 0;
  for (size_t i = 0; i < f->node_count; i++)
    with_error += f->nodes[i].has_error;
  CHECK_EQ_INT(with_error, 1);
  etk_graph_figures_free(f);
  demo_close(&d);
}

/* A one-node ETRecord whose debug-handle map gives handle 1 to each of
 * the `n` instruction ids; its graph in *g.  NULL on failure. */
static etk_etrecord_t *record_for(const int64_t *ids, size_t n,
                                  etk_graph_t **g) {
  etk_etrecord_input_desc_t in[] = {{"self", "x"}};
  const char *outs[] = {"y"}, *ins[] = {"x"};
  etk_etrecord_node_desc_t nodes[] = {
      {.name = "y",
       .target = "executorch.exir.dialects.edge.ops.aten.relu.default",
       .debug_handle = 1,
       .inputs = in,
       .input_count = 1,
       .outputs = outs,
       .output_count = 1}};
  int64_t h[] = {1};
  etk_etrecord_handle_desc_t handles[4];
  for (size_t i = 0; i < n && i < 4; i++)
    handles[i] = (etk_etrecord_handle_desc_t){ids[i], h, 1, false};
  etk_etrecord_method_desc_t m = {.name = "forward",
                                  .nodes = nodes,
                                  .node_count = 1,
                                  .graph_inputs = ins,
                                  .graph_input_count = 1,
                                  .graph_outputs = outs,
                                  .graph_output_count = 1,
                                  .handles = handles,
                                  .handle_count = n < 4 ? n : 4};
  etk_etrecord_desc_t desc = {.methods = &m, .method_count = 1};
  etk_etrecord_t *rec;
  char line[256];
  if (graph_fixture_load_desc(&desc, &rec, g, line, sizeof line) != ETK_OK) {
    printf("# %s\n", line);
    if (rec) etk_etrecord_close(rec);
    return NULL;
  }
  return rec;
}

static char g_last[1024];

static void keep_note(void *ctx, int is_warning, const char *line) {
  note(ctx, is_warning, line);
  if (is_warning) snprintf(g_last, sizeof g_last, "%s", line);
}

/* Warnings of linking the demo's dump with `rec` the way `etkit inspect`
 * does (policy) and of the graph figures; the last one in g_last. */
static int fit_warnings(etk_etrecord_t *rec, etk_graph_t *g,
                        etk_etrecord_link_summary_t *sum) {
  demo_t d;
  if (!demo_open(&d)) return -1;
  g_warnings = 0;
  g_last[0] = 0;
  etk_error_t err;
  etk_error_clear(&err);
  etk_link_policy_t p;
  etk_link_policy_init(&p);
  p.record_name = "other.etrecord";
  p.note = keep_note;
  etk_graph_figures_options_t o;
  etk_graph_figures_options_init(&o);
  o.note = keep_note;
  o.record_name = "other.etrecord";
  etk_graph_figures_t *f = NULL;
  int rc = etk_etrecord_link_with_policy(rec, d.insp, &p, sum, &err);
  if (rc == ETK_OK) rc = etk_graph_figures_compute(g, d.insp, &o, &f, &err);
  etk_graph_figures_free(f);
  demo_close(&d);
  return rc == ETK_OK ? g_warnings : -1;
}

ETK_TEST(etdump_of_another_program) {
  demo_t d;
  REQUIRE(demo_open(&d));
  /* an ETRecord whose maps name no instruction of the demo's dump */
  int64_t ids[] = {4000};
  etk_graph_t *g;
  etk_etrecord_t *other = record_for(ids, 1, &g);
  REQUIRE(other);
  etk_graph_figures_options_t o;
  etk_graph_figures_options_init(&o);
  o.note = note;
  o.record_name = "other.etrecord";
  g_warnings = 0;
  etk_graph_figures_t *f;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_graph_figures_compute(g, d.insp, &o, &f, &err) == ETK_OK);
  CHECK(!f->linked);
  CHECK(!f->has_timing);
  CHECK_EQ_INT(g_warnings, 1);
  for (size_t i = 0; i < f->node_count; i++) {
    CHECK(!f->nodes[i].reached);
    CHECK(isnan(f->nodes[i].avg) && isnan(f->nodes[i].share));
  }
  etk_graph_figures_free(f);
  etk_graph_free(g);
  etk_etrecord_close(other);
  demo_close(&d);
}

/* The demo's first operator instruction with an event, or -1. */
static int64_t first_operator_instruction(void) {
  demo_t d;
  if (!demo_open(&d)) return -1;
  int64_t id = -1;
  for (size_t e = 0; e < etk_inspector_event_count(d.insp) && id < 0; e++) {
    etk_inspector_event_t ev;
    if (etk_inspector_event_get(d.insp, e, &ev) == ETK_OK &&
        ev.instruction_id >= 0 && !ev.is_delegated_op)
      id = ev.instruction_id;
  }
  demo_close(&d);
  return id;
}

ETK_TEST(the_demos_own_record_fits) {
  demo_t d;
  REQUIRE(demo_open(&d));
  etk_etrecord_t *rec = d.rec;
  etk_graph_t *g = d.g;
  d.rec = NULL;
  d.g = NULL;
  demo_close(&d);
  etk_etrecord_link_summary_t sum;
  CHECK_EQ_INT(fit_warnings(rec, g, &sum), 0);
  CHECK(sum.with_ids >= 8);
  CHECK_EQ_INT(sum.beyond, 0);
  CHECK(sum.unlinked_ids * 2 <= sum.with_ids);
  etk_graph_free(g);
  etk_etrecord_close(rec);
}

ETK_TEST(a_record_of_a_shorter_program_fits_in_part) {
  /* the maps know the first operator's instruction only: the dump's later
   * instructions lie past the end of the record's program */
  int64_t first = first_operator_instruction();
  REQUIRE(first >= 0);
  etk_graph_t *g;
  etk_etrecord_t *rec = record_for(&first, 1, &g);
  REQUIRE(rec);
  etk_etrecord_link_summary_t sum;
  CHECK_EQ_INT(fit_warnings(rec, g, &sum), 2); /* policy, then figures */
  CHECK(sum.linked > 0);
  CHECK(sum.beyond > 0);
  CHECK_EQ_INT(sum.last_instruction, first);
  CHECK(strstr(g_last, "other.etrecord matches the ETDump only in part") ==
        g_last);
  CHECK(strstr(g_last, "past the last one") != NULL);
  CHECK(strstr(g_last, "(an ETRecord of another program?)") != NULL);
  etk_graph_free(g);
  etk_etrecord_close(rec);
}

ETK_TEST(a_record_that_links_few_events_fits_in_part) {
  /* the first operator's instruction and one far past the dump's end:
   * nothing lies beyond the maps, but most events get no handle */
  int64_t ids[] = {first_operator_instruction(), 4000};
  REQUIRE(ids[0] >= 0);
  etk_graph_t *g;
  etk_etrecord_t *rec = record_for(ids, 2, &g);
  REQUIRE(rec);
  etk_etrecord_link_summary_t sum;
  CHECK_EQ_INT(fit_warnings(rec, g, &sum), 2);
  CHECK_EQ_INT(sum.beyond, 0);
  CHECK(sum.linked > 0 && sum.unlinked_ids * 2 > sum.with_ids);
  CHECK(strstr(g_last, "only in part") != NULL);
  CHECK(strstr(g_last,
               "are not in the ETRecord's debug-handle and delegate "
               "maps (an ETRecord of another program?)") != NULL);
  etk_graph_free(g);
  etk_etrecord_close(rec);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: check_graph_figures DEMO_DIR\n");
    return 2;
  }
  g_dir = argv[1];
  return etk_test_main(1, argv);
}
