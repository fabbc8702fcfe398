/*
 * test_graph_view.c - the graph view library (etkit/graph_view.h) on
 * hand-made and generated descriptions: every node drawn exactly once with
 * its data-node, overlay values in data-value (none for "no event" nodes,
 * which are hatched), escaping of every text, groups and partitions,
 * closed groups on large graphs, the A/B view, the report fragment,
 * every bad description refused with nothing written, and the overlay a
 * page picks from the figures it is given.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etk_test.h"
#include "etkit/graph_view.h"
#include "transformer_graph.h"

static char *render(const etk_graph_view_t *g,
                    const etk_graph_view_options_t *o, int *rc,
                    etk_error_t *err) {
  etk_render_sink_t sink;
  etk_render_sink_init_memory(&sink);
  etk_error_clear(err);
  *rc = etk_graph_view_write_html(g, o, &sink, err);
  if (*rc == ETK_OK) *rc = etk_render_sink_flush(&sink);
  size_t len = 0;
  char *out = etk_render_sink_take(&sink, &len);
  etk_render_sink_free(&sink);
  return out;
}

static size_t count(const char *hay, const char *needle) {
  size_t n = 0;
  for (const char *p = hay; (p = strstr(p, needle)) != NULL;
       p += strlen(needle))
    n++;
  return n;
}

/* x -> mul (in module "blk") -> add (in partition "Xnn" inside "blk") */
static etk_graph_view_group_t groups3[] = {
    {"blk", "blk (Block)", ETK_GRAPH_VIEW_NONE, ETK_GRAPH_VIEW_MODULE, false,
     0},
    {"Xnn", NULL, 0, ETK_GRAPH_VIEW_PARTITION, false, 0}};
static etk_graph_view_edge_t edges3[] = {{0, 1}, {1, 2}, {0, 2}};

static void nodes3(etk_graph_view_node_t n[3]) {
  memset(n, 0, 3 * sizeof *n);
  n[0] = (etk_graph_view_node_t){
      .name = "x", .op = "placeholder", .group = ETK_GRAPH_VIEW_NONE};
  n[1] = (etk_graph_view_node_t){.name = "mul<b>\"&'",
                                 .op = "aten.mul.Tensor",
                                 .module = "blk <script>",
                                 .source = "m.py:3",
                                 .shape = "[2, 3]",
                                 .group = 0,
                                 .has_value = true,
                                 .value = 0.25};
  n[2] = (etk_graph_view_node_t){.name = "add",
                                 .op = "aten.add.Tensor",
                                 .group = 1,
                                 .has_value = true,
                                 .value = 1.5};
}

ETK_TEST(small_graph_nodes_values_escaping) {
  etk_graph_view_node_t n[3];
  nodes3(n);
  etk_graph_view_t g = {n, 3, edges3, 3, groups3, 2};
  etk_graph_view_options_t o;
  etk_graph_view_options_init(&o);
  o.value_name = "avg time";
  o.unit = "ms";
  o.title = "t<i>";
  int rc;
  etk_error_t err;
  char *html = render(&g, &o, &rc, &err);
  REQUIRE(rc == ETK_OK && html);
  CHECK(strncmp(html, "<!DOCTYPE html>", 15) == 0);
  /* the whole script, then the end of the page */
  CHECK(strstr(html, "sec.setAttribute('data-ready','1');") != NULL);
  const char *end = "})();\n</script>\n</body></html>\n";
  size_t len = strlen(html), end_len = strlen(end);
  CHECK(len > end_len && strcmp(html + len - end_len, end) == 0);
  CHECK(count(html, "data-node=\"") == 3);
  CHECK(count(html, "data-node=\"x\"") == 1);
  CHECK(count(html, "data-node=\"add\"") == 1);
  CHECK(count(html, "data-node=\"mul&lt;b&gt;&quot;&amp;&#39;\"") == 1);
  CHECK(strstr(html, "<script>\"") == NULL &&
        strstr(html, "blk <script>") == NULL);
  CHECK(strstr(html, "blk &lt;script&gt;") != NULL);
  CHECK(strstr(html, "t&lt;i&gt;") != NULL);
  /* values: exact, and none for the node without one */
  CHECK(count(html, "data-value=\"") == 2);
  CHECK(strstr(html, "data-value=\"0.25\"") != NULL);
  CHECK(strstr(html, "data-value=\"1.5\"") != NULL);
  CHECK(count(html, "class=\"gn nv\"") == 1);
  CHECK(strstr(html, "url(#gv-hatch)") != NULL);
  CHECK(strstr(html, "no event (1)") != NULL);
  /* legend ends */
  CHECK(strstr(html, "<span class=\"gv-lo\">0.25 ms</span>") != NULL);
  CHECK(strstr(html, "<span class=\"gv-hi\">1.5 ms</span>") != NULL);
  /* groups: the module and the partition inside it */
  CHECK(count(html, "<g class=\"gg") == 2);
  CHECK(strstr(html, "<g class=\"gg part\" data-group=\"Xnn\"") != NULL);
  CHECK(strstr(html, "delegated to Xnn") != NULL);
  CHECK(strstr(html, "closed") == NULL || strstr(html, "gg closed") == NULL);
  /* edges: x->mul inside nothing, mul->add and x->add: x->blk is one box
   * pair, mul->partition another */
  CHECK(count(html, "<path class=\"ge\"") == 2);
  CHECK(strstr(html, "http://") == NULL ||
        count(html, "http://") == count(html, "http://www.w3.org/2000/svg"));
  free(html);
}

ETK_TEST(no_overlay_is_uncoloured) {
  etk_graph_view_node_t n[3];
  nodes3(n);
  etk_graph_view_t g = {n, 3, edges3, 3, groups3, 2};
  int rc;
  etk_error_t err;
  char *html = render(&g, NULL, &rc, &err);
  REQUIRE(rc == ETK_OK && html);
  CHECK(count(html, "data-value=") == 0);
  CHECK(count(html, "class=\"gn nv\"") == 0);
  CHECK(strstr(html, "class=\"gv-grad\"") == NULL);
  free(html);
}

static void expect_refused(etk_graph_view_t *g, const char *message_part) {
  int rc;
  etk_error_t err;
  etk_render_sink_t sink;
  etk_render_sink_init(&sink, NULL, NULL);
  etk_error_clear(&err);
  rc = etk_graph_view_write_html(g, NULL, &sink, &err);
  CHECK(rc != ETK_OK);
  CHECK(sink.bytes == 0);
  if (!strstr(err.message, message_part))
    printf("# message: %s (wanted '%s')\n", err.message, message_part);
  CHECK(strstr(err.message, message_part) != NULL);
}

ETK_TEST(bad_descriptions_are_refused_before_writing) {
  etk_graph_view_node_t n[3];
  etk_graph_view_t g;
  nodes3(n);
  n[2].name = "x";
  g = (etk_graph_view_t){n, 3, edges3, 3, groups3, 2};
  expect_refused(&g, "duplicate node name 'x'");
  nodes3(n);
  n[1].name = "";
  expect_refused(&g, "node 1 has no name");
  nodes3(n);
  etk_graph_view_edge_t missing[] = {{0, 7}};
  g = (etk_graph_view_t){n, 3, missing, 1, groups3, 2};
  expect_refused(&g, "edge 0 names node 7 of 3");
  etk_graph_view_edge_t cycle[] = {{0, 1}, {1, 2}, {2, 1}};
  g = (etk_graph_view_t){n, 3, cycle, 3, groups3, 2};
  expect_refused(&g, "cycle");
  etk_graph_view_edge_t self[] = {{1, 1}};
  g = (etk_graph_view_t){n, 3, self, 1, groups3, 2};
  expect_refused(&g, "to itself");
  etk_graph_view_group_t late[] = {{"a", NULL, 1, 0, false, 0},
                                   {"b", NULL, 0, 0, false, 0}};
  g = (etk_graph_view_t){n, 3, edges3, 3, late, 2};
  expect_refused(&g, "does not come before it");
  n[0].group = 9;
  g = (etk_graph_view_t){n, 3, edges3, 3, groups3, 2};
  expect_refused(&g, "names group 9");
  g = (etk_graph_view_t){NULL, 3, NULL, 0, NULL, 0};
  expect_refused(&g, "missing");
}

ETK_TEST(generated_graph_every_node_once_and_closed_groups) {
  transformer_graph_t t;
  REQUIRE(transformer_graph_make(1000, 0, &t) == 0);
  etk_graph_view_options_t o;
  etk_graph_view_options_init(&o);
  o.value_name = "time";
  int rc;
  etk_error_t err;
  char *html = render(&t.view, &o, &rc, &err);
  REQUIRE(rc == ETK_OK && html);
  CHECK(count(html, "data-node=\"") == 1000);
  size_t valued = 0;
  for (size_t i = 0; i < t.view.node_count; i++) valued += t.nodes[i].has_value;
  CHECK(count(html, "data-value=\"") == valued);
  /* more than 300 nodes: the top-level groups start closed */
  size_t top = 0;
  for (size_t i = 0; i < t.view.group_count; i++)
    top += t.groups[i].parent == ETK_GRAPH_VIEW_NONE;
  CHECK(count(html, " closed\"") == top);
  CHECK(count(html, "class=\"gg part") > 0);
  free(html);
  o.collapse_above = 5000;
  html = render(&t.view, &o, &rc, &err);
  REQUIRE(rc == ETK_OK && html);
  CHECK(count(html, " closed\"") == 0);
  free(html);
  transformer_graph_free(&t);
}

ETK_TEST(against_view_and_fragment) {
  transformer_graph_t t;
  REQUIRE(transformer_graph_make(200, 1, &t) == 0);
  etk_graph_view_options_t o;
  etk_graph_view_options_init(&o);
  o.value_name = "p50 time";
  o.unit = "ms";
  o.against = true;
  o.fragment = true;
  int rc;
  etk_error_t err;
  char *html = render(&t.view, &o, &rc, &err);
  REQUIRE(rc == ETK_OK && html);
  CHECK(strncmp(html, "<style>", 7) == 0);
  CHECK(strstr(html, "<!DOCTYPE") == NULL && strstr(html, "<body") == NULL);
  CHECK(strstr(html, "change of p50 time") != NULL);
  /* diverging scale: symmetric ends */
  const char *lo = strstr(html, "<span class=\"gv-lo\">-");
  const char *hi = strstr(html, "<span class=\"gv-hi\">+");
  CHECK(lo != NULL && hi != NULL);
  if (lo && hi) CHECK(strncmp(lo + 21, hi + 21, strcspn(hi + 21, "<")) == 0);
  /* both runs' values in each valued node */
  const etk_graph_view_node_t *n = &t.nodes[5];
  REQUIRE(n->has_value);
  char want[256];
  snprintf(want, sizeof want, "data-node=\"%s\" data-value=\"%.12g\"", n->name,
           n->value);
  CHECK(strstr(html, want) != NULL);
  CHECK(count(html, "data-fa=\"") == count(html, "data-value=\""));
  CHECK(count(html, "data-fb=\"") == count(html, "data-value=\""));
  free(html);
  transformer_graph_free(&t);
}

#ifdef ETKIT_HAVE_GRAPH_FIGURES
ETK_TEST(overlay_follows_the_figures) {
  CHECK(etk_graph_view_overlay_numerical("error"));
  CHECK(etk_graph_view_overlay_numerical("mse"));
  CHECK(etk_graph_view_overlay_numerical("snr"));
  CHECK(!etk_graph_view_overlay_numerical("time"));
  CHECK(!etk_graph_view_overlay_numerical("memory"));
  CHECK(!etk_graph_view_overlay_numerical("nosuch"));
  CHECK(!etk_graph_view_overlay_numerical(NULL));
  etk_graph_figures_t f;
  memset(&f, 0, sizeof f);
  CHECK(etk_graph_view_overlay_for(NULL) == NULL);
  CHECK(etk_graph_view_overlay_for(&f) == NULL); /* nothing linked */
  f.linked = true;
  f.has_timing = true;
  CHECK_EQ_STR(etk_graph_view_overlay_for(&f), "time");
  f.has_error = true; /* figures computed with a debug buffer */
  CHECK_EQ_STR(etk_graph_view_overlay_for(&f), "error");
}
#endif

/* Fill of the node `name` in `html` ("" when absent). */
static void fill_of(const char *html, const char *name, char out[16]) {
  char key[96];
  snprintf(key, sizeof key, "data-node=\"%s\"", name);
  const char *at = strstr(html, key);
  const char *f = at ? strstr(at, "fill=\"") : NULL;
  out[0] = 0;
  if (f) snprintf(out, 16, "%.*s", (int)strcspn(f + 6, "\""), f + 6);
}

/* Issue 28: equal values (an MSE of 0 everywhere) have no scale: one
 * neutral colour, never the darkest, and "all equal" in the legend. */
ETK_TEST(all_equal_values_are_neutral) {
  etk_graph_view_node_t n[3];
  nodes3(n);
  for (int i = 0; i < 3; i++) n[i].has_value = true, n[i].value = 0;
  etk_graph_view_t g = {n, 3, edges3, 3, groups3, 2};
  etk_graph_view_options_t o;
  etk_graph_view_options_init(&o);
  o.value_name = "numerical error (MSE)";
  o.better = -1;
  int rc;
  etk_error_t err;
  char *html = render(&g, &o, &rc, &err);
  REQUIRE(rc == ETK_OK && html);
  char a[16], b[16];
  fill_of(html, n[0].name, a);
  fill_of(html, n[2].name, b);
  CHECK(strcmp(a, b) == 0 && strcmp(a, "#7f0000") != 0 && a[0] == '#');
  CHECK(strstr(html, "all equal: 0") != NULL);
  CHECK(strstr(html, "lower is better") != NULL);
  free(html);
}

/* An SNR, where higher is better: the highest value is the lightest, the
 * lowest the darkest, +inf (identical values) a value at the good end. */
ETK_TEST(higher_is_better_runs_the_other_way) {
  etk_graph_view_node_t n[3];
  nodes3(n);
  double v[3] = {3.0, 30.0, INFINITY};
  for (int i = 0; i < 3; i++) n[i].has_value = true, n[i].value = v[i];
  n[1].name = "mul";
  etk_graph_view_t g = {n, 3, edges3, 3, groups3, 2};
  etk_graph_view_options_t o;
  etk_graph_view_options_init(&o);
  o.value_name = "SNR";
  o.unit = "dB";
  o.better = 1;
  int rc;
  etk_error_t err;
  char *html = render(&g, &o, &rc, &err);
  REQUIRE(rc == ETK_OK && html);
  char lo[16], hi[16], inf[16];
  fill_of(html, n[0].name, lo);
  fill_of(html, n[1].name, hi);
  fill_of(html, n[2].name, inf);
  CHECK_EQ_STR(lo, "#7f0000");
  CHECK_EQ_STR(hi, "#fff5d6");
  CHECK_EQ_STR(inf, "#fff5d6");
  CHECK(strstr(html, "data-value=\"Infinity\"") != NULL);
  CHECK(strstr(html, "higher is better") != NULL);
  free(html);
  /* identical values everywhere: all equal, at +inf, not at 0 */
  n[0].value = n[1].value = INFINITY;
  html = render(&g, &o, &rc, &err);
  REQUIRE(rc == ETK_OK && html);
  CHECK(strstr(html, "all equal: \xE2\x88\x9E dB") != NULL);
  free(html);
}

/* Against: a change that is not significant is drawn neutral and does not
 * set the scale; a closed group shows its value (own or aggregate). */
ETK_TEST(faint_changes_and_group_values) {
  etk_graph_view_node_t n[3];
  nodes3(n);
  double v[3] = {0.9, 0.1, -0.2};
  for (int i = 0; i < 3; i++) n[i].has_value = true, n[i].value = v[i];
  n[0].faint = true; /* the largest change, but noise */
  etk_graph_view_group_t gr[2];
  memcpy(gr, groups3, sizeof gr);
  gr[1].has_value = true;
  gr[1].value = 0.15;
  etk_graph_view_t g = {n, 3, edges3, 3, gr, 2};
  etk_graph_view_options_t o;
  etk_graph_view_options_init(&o);
  o.value_name = "p50 time";
  o.against = true;
  int rc;
  etk_error_t err;
  char *html = render(&g, &o, &rc, &err);
  REQUIRE(rc == ETK_OK && html);
  char f[16];
  fill_of(html, n[0].name, f);
  CHECK_EQ_STR(f, "#f7f7f7");
  CHECK(strstr(html, "<span class=\"gv-hi\">+20 %</span>") != NULL);
  CHECK(strstr(html, "data-gvalue=\"0.15\"") != NULL);
  free(html);
  /* time: a module's closed cover sums what it holds */
  o.against = false;
  o.aggregate = ETK_GRAPH_VIEW_AGG_SUM;
  o.unit = "\xC2\xB5s";
  for (int i = 0; i < 3; i++) n[i].faint = false, n[i].value = i + 1.0;
  gr[1].has_value = false;
  html = render(&g, &o, &rc, &err);
  REQUIRE(rc == ETK_OK && html);
  /* blk holds mul (2) and the partition with add (3) */
  CHECK(strstr(html, "data-group=\"blk\" data-gvalue=\"5\"") != NULL);
  CHECK(strstr(html, "2 nodes \xC2\xB7 5 \xC2\xB5s") != NULL);
  free(html);
}

#ifdef ETKIT_HAVE_GRAPH_FIGURES
/* Run sets A and B, as etkit diff compares them: a node 50 % slower in
 * every run of B is a significant change, a node with the same samples is
 * not, a node without samples on one side is not compared. */
ETK_TEST(figures_compare_tests_significance) {
  etk_graph_node_figures_t nodes[3];
  memset(nodes, 0, sizeof nodes);
  double sa[10], sb[10];
  for (int k = 0; k < 5; k++) {
    sa[k] = 1.0 + 0.01 * k; /* node 0 in A */
    sb[k] = 1.5 + 0.01 * k; /* node 0 in B: +50 % */
    sa[5 + k] = 2.0 + 0.02 * (k % 3);
    sb[5 + k] = 2.0 + 0.02 * ((k + 1) % 3); /* node 1: the same samples */
  }
  size_t start[4] = {0, 5, 10, 10};
  etk_graph_figures_t a = {
      .node_count = 3, .nodes = nodes, .samples = sa, .sample_start = start};
  etk_graph_figures_t b = a;
  b.samples = sb;
  const etk_graph_figures_t *as[2] = {&a, &a}, *bs[2] = {&b, &b};
  etk_graph_node_change_t out[3];
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_graph_figures_compare(as, 2, bs, 2, NULL, out, &err) == ETK_OK);
  CHECK(out[0].compared && out[0].significant);
  /* the shift (0.5) over the baseline median (1.02) */
  CHECK(fabs(out[0].delta - 0.5 / 1.02) < 1e-9);
  CHECK(out[0].ci_low > 0.4 && out[0].ci_high < 0.6);
  CHECK(out[1].compared && !out[1].significant);
  CHECK(fabs(out[1].delta) < 1e-9);
  CHECK(!out[2].compared && isnan(out[2].delta));
  /* one dump of one run per side: no interval, never significant */
  size_t one[4] = {0, 1, 1, 1};
  a.sample_start = b.sample_start = one;
  REQUIRE(etk_graph_figures_compare(as, 1, bs, 1, NULL, out, &err) == ETK_OK);
  CHECK(out[0].compared && !out[0].significant);
  /* figures of different graphs are refused */
  etk_graph_figures_t other = a;
  other.node_count = 2;
  const etk_graph_figures_t *os[1] = {&other};
  CHECK(etk_graph_figures_compare(as, 1, os, 1, NULL, out, &err) ==
        ETK_E_INVALID_ARGUMENT);
}
#endif

ETK_TEST_MAIN()
