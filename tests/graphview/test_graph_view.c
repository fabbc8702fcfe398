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

ETK_TEST_MAIN()
