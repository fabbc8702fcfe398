/*
 * test_etrecord_views.c - the inspector's ETRecord features at library
 * level: per-block method choice and linking (etk_etrecord_block_method,
 * etk_etrecord_inspector_link_block), node origins, upstream's
 * find_total_for_module (Appendix D's example: avg(fc) + avg(DELEGATE_CALL
 * at instruction 1)), the event's module, and the module view's rules
 * (wrappers not counted twice, delegated events without nodes inheriting
 * their DELEGATE_CALL's module).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etk_test.h"
#include "etkit/etrecord.h"
#include "etkit/inspector.h"
#include "etkit/render.h"
#include "etrecord_fixtures.h"
#include "test_helpers.h"
#include "../etrecord/fixture.h"

typedef struct pair {
  uint8_t *dump_bytes;
  etk_inspector_t *insp;
  etk_etrecord_t *rec;
} pair_t;

/* Opens an ETDump/ETRecord pair and links every block the way `etkit
 * inspect` does by default (or with upstream's quirks). */
static int pair_open(pair_t *p, uint8_t *(*dump)(size_t *),
                     uint8_t *(*record)(size_t *), int quirks) {
  memset(p, 0, sizeof *p);
  size_t dlen, rlen;
  p->dump_bytes = dump(&dlen);
  uint8_t *rbytes = record(&rlen);
  etk_error_t err;
  etk_error_clear(&err);
  int ok =
      p->dump_bytes && rbytes &&
      etk_inspector_open_memory(p->dump_bytes, dlen, NULL, &p->insp, &err) ==
          ETK_OK &&
      etk_etrecord_open_memory(rbytes, rlen, NULL, &p->rec, &err) == ETK_OK;
  free(rbytes);
  unsigned flags = quirks ? ETK_ETRECORD_LINK_TOP_GRAPH_ONLY
                          : ETK_ETRECORD_LINK_INSTRUCTIONS_ONLY |
                                ETK_ETRECORD_LINK_EXACT_DELEGATE_IDS;
  for (size_t b = 0; ok && b < etk_inspector_block_count(p->insp); b++)
    ok = etk_etrecord_inspector_link_block(p->rec, p->insp, b,
                                           quirks ? "forward" : NULL, flags,
                                           NULL, &err) == ETK_OK;
  if (!ok) {
    char line[512];
    printf("# %s\n", etk_error_format(&err, line, sizeof line));
  }
  return ok;
}

static void pair_close(pair_t *p) {
  etk_inspector_close(p->insp);
  etk_etrecord_close(p->rec);
  free(p->dump_bytes);
}

/* The event of block `block` named `name`. */
static size_t find(etk_inspector_t *insp, size_t block, const char *name) {
  etk_inspector_block_t b;
  if (etk_inspector_block_get(insp, block, &b) != ETK_OK) return SIZE_MAX;
  for (size_t i = b.first_event; i < b.first_event + b.event_count; i++) {
    etk_inspector_event_t ev;
    if (etk_inspector_event_get(insp, i, &ev) == ETK_OK &&
        strcmp(ev.name, name) == 0)
      return i;
  }
  return SIZE_MAX;
}

/* The nth event (0-based) of a block named `name`. */
static size_t find_nth(etk_inspector_t *insp, size_t block, const char *name,
                       int nth) {
  etk_inspector_block_t b;
  if (etk_inspector_block_get(insp, block, &b) != ETK_OK) return SIZE_MAX;
  for (size_t i = b.first_event; i < b.first_event + b.event_count; i++) {
    etk_inspector_event_t ev;
    if (etk_inspector_event_get(insp, i, &ev) == ETK_OK &&
        strcmp(ev.name, name) == 0 && nth-- == 0)
      return i;
  }
  return SIZE_MAX;
}

static double avg_of(etk_inspector_t *insp, size_t event) {
  etk_stats_t st;
  return etk_inspector_event_stats(insp, event, &st) == ETK_OK ? st.avg : -1;
}

static const char *module_of(etk_inspector_t *insp, size_t event) {
  const etk_inspector_module_t *m;
  size_t n;
  if (!etk_inspector_event_has_modules(insp, event)) return "(none)";
  if (etk_inspector_event_module(insp, event, &m, &n) != ETK_OK) return "?";
  return n ? m[n - 1].normalized : "(root)";
}

ETK_TEST(appendix_d_links_and_origins) {
  pair_t p;
  REQUIRE(
      pair_open(&p, fixture_appendix_d_etdump, fixture_appendix_d_etrecord, 0));
  /* the appendix's results (section 7.2 rules; exact ids change nothing
   * here) */
  size_t add = find(p.insp, 1, "native_call_add.out");
  size_t dc1 = find_nth(p.insp, 1, "DELEGATE_CALL", 0);
  size_t dc2 = find_nth(p.insp, 1, "DELEGATE_CALL", 1);
  size_t fc = find(p.insp, 1, "fc"), ten = find(p.insp, 1, "10");
  size_t zero = find(p.insp, 1, "0"), three = find(p.insp, 1, "3");
  size_t exec = find(p.insp, 1, "Method::execute");
  REQUIRE(add != SIZE_MAX && dc1 != SIZE_MAX && dc2 != SIZE_MAX);
  REQUIRE(fc != SIZE_MAX && ten != SIZE_MAX && zero != SIZE_MAX);
  REQUIRE(three != SIZE_MAX && exec != SIZE_MAX);
  etk_inspector_event_link_t l;
  REQUIRE(etk_inspector_event_link(p.insp, dc1, &l) == ETK_OK);
  REQUIRE(l.op_type_count == 4);
  CHECK_EQ_STR(l.op_types[3], "aten.sub.Tensor");
  CHECK_EQ_STR(l.delegate_backend_name, "XnnpackBackend");
  CHECK_EQ_INT(l.num_outputs, 2);
  REQUIRE(etk_inspector_event_link(p.insp, ten, &l) == ETK_OK);
  CHECK(l.debug_handles_is_list && l.debug_handle_count == 1 &&
        l.debug_handles[0] == 11);
  REQUIRE(etk_inspector_event_link(p.insp, zero, &l) == ETK_OK);
  CHECK(l.delegate_backend_name == NULL);
  REQUIRE(l.op_type_count == 1);
  CHECK_EQ_STR(l.op_types[0], "aten.mul.Tensor");
  REQUIRE(etk_inspector_event_link(p.insp, three, &l) == ETK_OK);
  CHECK(!l.has_debug_handles);
  CHECK_EQ_STR(l.delegate_backend_name, "XnnpackBackend");
  /* framework events: no handles by default (upstream: instruction 0's) */
  REQUIRE(etk_inspector_event_link(p.insp, exec, &l) == ETK_OK);
  CHECK(!l.has_debug_handles);

  /* origins follow the link's nodes; the innermost user frame skips the
   * site-packages frame below it */
  const etk_inspector_node_origin_t *o;
  size_t n;
  REQUIRE(etk_inspector_event_origins(p.insp, fc, &o, &n) == ETK_OK);
  REQUIRE(n == 2);
  CHECK_EQ_STR(o[0].file, "/work/model/m.py");
  CHECK_EQ_INT(o[0].line, 8);
  CHECK_EQ_STR(o[0].function, "forward");
  REQUIRE(o[0].module_count == 2);
  CHECK_EQ_STR(o[0].modules[1].key, "L__self___aten_mm");
  CHECK_EQ_STR(o[0].modules[1].normalized, "aten_mm");
  CHECK_EQ_STR(o[0].modules[0].normalized, "");
  REQUIRE(etk_inspector_event_origins(p.insp, exec, &o, &n) == ETK_OK);
  CHECK(o == NULL && n == 0);

  /* the event's module: the deepest one holding all its nodes */
  CHECK_EQ_STR(module_of(p.insp, add), "aten_add");
  CHECK_EQ_STR(module_of(p.insp, fc), "(root)");
  CHECK_EQ_STR(module_of(p.insp, dc2), "aten_mul");
  CHECK_EQ_STR(module_of(p.insp, three), "(none)");

  /* find_total_for_module, upstream's example: fc and DELEGATE_CALL@1,
   * both counted, in event order */
  double total;
  size_t events;
  REQUIRE(etk_inspector_module_total(p.insp, "L__self___aten_mm",
                                     ETK_INSPECTOR_MODULE_SUBSTRING, &total,
                                     &events) == ETK_OK);
  CHECK_EQ_INT(events, 2);
  double want = 0.0;
  want += avg_of(p.insp, fc);
  want += avg_of(p.insp, dc1);
  CHECK(total == want);
  /* substring: "aten_m" is inside the mm and mul keys */
  REQUIRE(etk_inspector_module_total(p.insp, "aten_m",
                                     ETK_INSPECTOR_MODULE_SUBSTRING, &total,
                                     &events) == ETK_OK);
  CHECK_EQ_INT(events, 4);
  /* exact: a dotted path (or a whole key) only */
  REQUIRE(etk_inspector_module_total(p.insp, "aten_m",
                                     ETK_INSPECTOR_MODULE_EXACT, &total,
                                     &events) == ETK_OK);
  CHECK_EQ_INT(events, 0);
  CHECK(total == 0.0);
  REQUIRE(etk_inspector_module_total(p.insp, "aten_mm",
                                     ETK_INSPECTOR_MODULE_EXACT, &total,
                                     &events) == ETK_OK);
  CHECK_EQ_INT(events, 2);
  CHECK(total == want);
  /* OPERATOR_CALL is skipped (it has the add node too) */
  REQUIRE(etk_inspector_module_total(p.insp, "aten_add",
                                     ETK_INSPECTOR_MODULE_SUBSTRING, &total,
                                     &events) == ETK_OK);
  CHECK_EQ_INT(events, 1);
  CHECK(total == avg_of(p.insp, add));
  CHECK(etk_inspector_module_total(p.insp, NULL, 0, &total, NULL) ==
        ETK_E_INVALID_ARGUMENT);
  pair_close(&p);
}

ETK_TEST(methods_of_blocks) {
  pair_t p;
  REQUIRE(pair_open(&p, fixture_quirks_etdump, fixture_quirks_etrecord, 0));
  CHECK_EQ_STR(etk_etrecord_method_at(p.rec, 0), "forward");
  CHECK_EQ_STR(etk_etrecord_method_at(p.rec, 1), "decode");
  CHECK(etk_etrecord_method_at(p.rec, 2) == NULL);
  CHECK(etk_etrecord_has_method(p.rec, "decode"));
  CHECK(!etk_etrecord_has_method(p.rec, "Execute"));
  CHECK_EQ_STR(etk_etrecord_block_method(p.rec, "decode"), "decode");
  CHECK_EQ_STR(etk_etrecord_block_method(p.rec, "Execute"), "forward");
  CHECK_EQ_STR(etk_etrecord_block_method(p.rec, NULL), "forward");
  /* block "decode" was linked with decode's maps and program */
  size_t div = find(p.insp, 1, "native_call_div.out");
  REQUIRE(div != SIZE_MAX);
  etk_inspector_event_link_t l;
  REQUIRE(etk_inspector_event_link(p.insp, div, &l) == ETK_OK);
  REQUIRE(l.op_type_count == 1);
  CHECK_EQ_STR(l.op_types[0], "aten.div.Tensor");
  CHECK_EQ_STR(module_of(p.insp, div), "decoder");
  /* id 12 is no key of the delegate map: nothing without the quirk */
  size_t twelve = find(p.insp, 0, "12");
  REQUIRE(etk_inspector_event_link(p.insp, twelve, &l) == ETK_OK);
  CHECK(!l.has_debug_handles);
  pair_close(&p);

  /* upstream: forward for every block, "12" matches key "1" */
  REQUIRE(pair_open(&p, fixture_quirks_etdump, fixture_quirks_etrecord, 1));
  div = find(p.insp, 1, "native_call_div.out");
  REQUIRE(etk_inspector_event_link(p.insp, div, &l) == ETK_OK);
  REQUIRE(l.op_type_count == 1);
  CHECK_EQ_STR(l.op_types[0], "aten.add.Tensor");
  twelve = find(p.insp, 0, "12");
  REQUIRE(etk_inspector_event_link(p.insp, twelve, &l) == ETK_OK);
  REQUIRE(l.op_type_count == 1);
  CHECK_EQ_STR(l.op_types[0], "aten.relu.default");
  size_t exec = find(p.insp, 0, "Method::execute");
  REQUIRE(etk_inspector_event_link(p.insp, exec, &l) == ETK_OK);
  CHECK(l.has_debug_handles && l.debug_handle_count == 1 &&
        l.debug_handles[0] == 7);
  CHECK(etk_etrecord_inspector_link_block(p.rec, p.insp, 99, NULL, 0, NULL,
                                          NULL) == ETK_E_INVALID_ARGUMENT);
  pair_close(&p);

  /* one method that is not forward: every block gets it; two methods
   * without forward and no name match: none */
  fixture_member_t one[] = {
      {.name = "ETRECORD_V0", .text = ""},
      {.name = "debug_handle_map", .text = "{\"decode\": {\"0\": 1}}"}};
  etk_etrecord_t *rec;
  REQUIRE(fixture_open(one, 2, NULL, &rec, NULL, 0) == ETK_OK);
  CHECK_EQ_STR(etk_etrecord_block_method(rec, "Execute"), "decode");
  etk_etrecord_close(rec);
  fixture_member_t two[] = {
      {.name = "ETRECORD_V0", .text = ""},
      {.name = "debug_handle_map",
       .text = "{\"encode\": {\"0\": 1}, \"decode\": {\"0\": 2}}"}};
  REQUIRE(fixture_open(two, 2, NULL, &rec, NULL, 0) == ETK_OK);
  CHECK(etk_etrecord_block_method(rec, "Execute") == NULL);
  CHECK_EQ_STR(etk_etrecord_block_method(rec, "encode"), "encode");
  etk_etrecord_close(rec);
}

ETK_TEST(module_view_rules) {
  pair_t p;
  REQUIRE(pair_open(&p, fixture_modules_etdump, fixture_modules_etrecord, 0));
  size_t conv = find(p.insp, 0, "native_call_convolution.out");
  size_t dc2 = find_nth(p.insp, 0, "DELEGATE_CALL", 0);
  size_t dc3 = find_nth(p.insp, 0, "DELEGATE_CALL", 1);
  size_t view = find_nth(p.insp, 0, "OPERATOR_CALL", 2);
  size_t clone = find(p.insp, 0, "native_call_clone.out");
  size_t five = find(p.insp, 0, "5");
  REQUIRE(conv != SIZE_MAX && dc2 != SIZE_MAX && dc3 != SIZE_MAX);
  REQUIRE(view != SIZE_MAX && clone != SIZE_MAX && five != SIZE_MAX);
  /* getattr(L['self'].features, '0') is features.0 */
  CHECK_EQ_STR(module_of(p.insp, conv), "features.0");
  CHECK_EQ_STR(module_of(p.insp, dc2), "head");
  CHECK_EQ_STR(module_of(p.insp, dc3), "classifier");
  CHECK_EQ_STR(module_of(p.insp, view), "(root)");
  CHECK_EQ_STR(module_of(p.insp, clone), "(none)");
  CHECK_EQ_STR(module_of(p.insp, five), "(none)");

  /* the view: render TSV, then check the rows that carry the rules */
  etk_inspector_render_options_t ro = th_options(ETK_INSPECT_FORMAT_TSV);
  ro.view = ETK_INSPECT_VIEW_MODULES;
  int rc = ETK_OK;
  char *tsv = th_render(p.insp, &ro, &rc, NULL);
  CHECK_EQ_INT(rc, ETK_OK);
  REQUIRE(tsv != NULL);
  char num[ETK_FORMAT_DOUBLE_MAX], line[256];
  /* head: its two per-op events, plus "5" (no node) inherited from its
   * DELEGATE_CALL as head's self time; the DELEGATE_CALL is not counted */
  double head = 0.0;
  head += avg_of(p.insp, find(p.insp, 0, "0"));
  head += avg_of(p.insp, find(p.insp, 0, "1"));
  double self = avg_of(p.insp, five);
  head += self;
  char num2[ETK_FORMAT_DOUBLE_MAX];
  etk_format_double_repr(head, num);
  etk_format_double_repr(self, num2);
  snprintf(line, sizeof line, "\tExecute\t1\thead\tHead\t3\t%s\t%s\t", num,
           num2);
  CHECK(strstr(tsv, line) != NULL);
  /* classifier: the DELEGATE_CALL without per-op events, once */
  etk_format_double_repr(avg_of(p.insp, dc3), num);
  snprintf(line, sizeof line,
           "\tExecute\t1\tclassifier\tSequential\t1\t%s\t%s\t", num, num);
  CHECK(strstr(tsv, line) != NULL);
  /* features.0: the kernel event, not its OPERATOR_CALL */
  etk_format_double_repr(avg_of(p.insp, conv), num);
  snprintf(line, sizeof line, "\tExecute\t2\tfeatures.0\tConv2d\t1\t%s\t%s\t",
           num, num);
  CHECK(strstr(tsv, line) != NULL);
  /* the clone has no node: unattributed; the root counts 8 events, and
   * its self time is the lone OPERATOR_CALL's (no kernel event) */
  etk_format_double_repr(avg_of(p.insp, clone), num);
  snprintf(line, sizeof line, "\tExecute\t1\t(unattributed)\t\t1\t%s\t%s\t",
           num, num);
  CHECK(strstr(tsv, line) != NULL);
  etk_format_double_repr(avg_of(p.insp, view), num);
  snprintf(line, sizeof line, "\tExecute\t0\t(root)\tNet\t8\t");
  CHECK(strstr(tsv, line) != NULL);
  snprintf(line, sizeof line, "\t%s\t100.0\n", num);
  CHECK(strstr(tsv, line) != NULL);
  free(tsv);
  pair_close(&p);
}

ETK_TEST(origins_api) {
  size_t len;
  uint8_t *bytes = fixture_appendix_d_etdump(&len);
  REQUIRE(bytes != NULL);
  etk_inspector_t *insp;
  REQUIRE(etk_inspector_open_memory(bytes, len, NULL, &insp, NULL) == ETK_OK);
  const etk_inspector_module_t mods[] = {{"k0", "", "", "T0"},
                                         {"k1", "L['self'].a", "a", "pkg.A"}};
  etk_inspector_node_origin_t o[2] = {{"/x/y.py", 3, "f", mods, 2},
                                      {NULL, 9, NULL, NULL, 0}};
  CHECK(etk_inspector_event_set_origins(NULL, 0, o, 2, NULL) ==
        ETK_E_INVALID_ARGUMENT);
  CHECK(etk_inspector_event_set_origins(insp, 999, o, 2, NULL) ==
        ETK_E_INVALID_ARGUMENT);
  CHECK(etk_inspector_event_set_origins(insp, 0, NULL, 1, NULL) ==
        ETK_E_INVALID_ARGUMENT);
  etk_inspector_node_origin_t bad = {NULL, 0, NULL, NULL, 1};
  CHECK(etk_inspector_event_set_origins(insp, 0, &bad, 1, NULL) ==
        ETK_E_INVALID_ARGUMENT);
  REQUIRE(etk_inspector_event_set_origins(insp, 1, o, 2, NULL) == ETK_OK);
  const etk_inspector_node_origin_t *got;
  size_t n;
  REQUIRE(etk_inspector_event_origins(insp, 1, &got, &n) == ETK_OK);
  REQUIRE(n == 2);
  CHECK(got[0].file != o[0].file); /* deep copy */
  CHECK_EQ_STR(got[0].file, "/x/y.py");
  CHECK_EQ_STR(got[0].modules[1].type, "pkg.A");
  CHECK(got[1].file == NULL && got[1].line == 0 && got[1].module_count == 0);
  const etk_inspector_module_t *m;
  REQUIRE(etk_inspector_event_module(insp, 1, &m, &n) == ETK_OK);
  REQUIRE(n == 1); /* the leading root entry is the root itself */
  CHECK_EQ_STR(m[0].normalized, "a");
  /* replaced, then removed */
  REQUIRE(etk_inspector_event_set_origins(insp, 1, &o[1], 1, NULL) == ETK_OK);
  CHECK(!etk_inspector_event_has_modules(insp, 1));
  REQUIRE(etk_inspector_event_set_origins(insp, 1, NULL, 0, NULL) == ETK_OK);
  REQUIRE(etk_inspector_event_origins(insp, 1, &got, &n) == ETK_OK);
  CHECK(got == NULL && n == 0);

  /* the source column: distinct entries in node order, at most 32 */
  etk_inspector_node_origin_t many[40];
  char files[40][16];
  for (int i = 0; i < 40; i++) {
    snprintf(files[i], sizeof files[i], "/d/f%d.py", i % 36);
    many[i] = (etk_inspector_node_origin_t){files[i], 1, "g", NULL, 0};
  }
  REQUIRE(etk_inspector_event_set_origins(insp, 1, many, 40, NULL) == ETK_OK);
  REQUIRE(etk_inspector_event_set_origins(insp, 2, many, 2, NULL) == ETK_OK);
  many[0].line = 5; /* same file as many[36], another line */
  REQUIRE(etk_inspector_event_set_origins(insp, 3, many, 1, NULL) == ETK_OK);
  etk_inspector_render_options_t ro = th_options(ETK_INSPECT_FORMAT_JSON);
  ro.columns = ETK_INSPECT_COLUMN_SOURCE;
  ro.json_indent = 0;
  char *json = th_render(insp, &ro, NULL, NULL);
  REQUIRE(json != NULL);
  CHECK_CONTAINS(json, "\"source\":\"f0.py:1, f1.py:1\"",
                 "\"source\":\"f0.py:5\"", "f30.py:1, f31.py:1, ...\"");
  CHECK(strstr(json, "f32.py") == NULL);
  free(json);
  etk_inspector_close(insp);
  free(bytes);
}

ETK_TEST_MAIN()
