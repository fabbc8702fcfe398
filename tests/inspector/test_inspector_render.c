/*
 * test_inspector_render.c - the Inspector's outputs: hostile names in every
 * format, JSON completeness (parsed back with jansson), ETRecord link slots
 * printed like upstream, sorting, --top, block selection, the summary view.
 */
#include <jansson.h>

#include "etk_test.h"
#include "fixtures.h"
#include "inspector_open.h"
#include "test_helpers.h"

static char *render_fmt(etk_inspector_t *insp, etk_inspect_format_t f) {
  etk_inspector_render_options_t ro = th_options(f);
  return th_render(insp, &ro, NULL, NULL);
}

ETK_TEST(hostile_names_tsv_csv_quote_like_pandas) {
  etk_inspector_t *insp =
      etk_test_inspector_build(fixture_hostile_names, ETK_TIME_NS);
  REQUIRE(insp != NULL);
  char *tsv = render_fmt(insp, ETK_INSPECT_FORMAT_TSV);
  REQUIRE(tsv != NULL);
  /* run name with a comma and quotes: quoted in TSV because of '"' */
  CHECK_CONTAINS(tsv, "\n0\t\"hostile,\"\"run\"\"\"\t\"tab\there\"\t",
                 "\t\"new\nline\"\t", "\t\"quote\"\"d\"\t", "\tcomma,name\t");
  CHECK(strstr(tsv, "\t\x1b[31mred\x1b[0m\t") != NULL); /* raw, as pandas */
  /* a bare '\r' stays unquoted, as pandas' to_csv writes it */
  CHECK(strstr(tsv, "\tcarriage\rreturn\t") != NULL);
  /* "my_OPERATOR_CALL_x" contains OPERATOR_CALL: hidden like upstream */
  CHECK(strstr(tsv, "my_OPERATOR_CALL_x") == NULL);
  free(tsv);
  char *csv = render_fmt(insp, ETK_INSPECT_FORMAT_CSV);
  REQUIRE(csv != NULL);
  CHECK_CONTAINS(csv, ",\"comma,name\",", ",tab\there,");
  free(csv);
  etk_inspector_close(insp);
}

ETK_TEST(hostile_names_table_is_escaped) {
  etk_inspector_t *insp =
      etk_test_inspector_build(fixture_hostile_names, ETK_TIME_NS);
  REQUIRE(insp != NULL);
  char *t = render_fmt(insp, ETK_INSPECT_FORMAT_TABLE);
  REQUIRE(t != NULL);
  CHECK(strchr(t, '\t') == NULL && strchr(t, '\x1b') == NULL &&
        strchr(t, '\r') == NULL);
  CHECK_CONTAINS(t, "tab\\there", "new\\nline", "\\x1b[31mred\\x1b[0m",
                 "bidi\\u202eevil");
  CHECK(strstr(t,
               "\xc3\xbc"
               "n\xc3\xaf"
               "c\xc3\xb6"
               "d\xc3\xa9") != NULL);
  /* every line has the same number of code points (alignment intact) */
  size_t first = 0, len = 0;
  int same = 1;
  for (const char *p = t; *p; p++) {
    if (*p == '\n') {
      if (!first)
        first = len;
      else if (len != first)
        same = 0;
      len = 0;
    } else if (((unsigned char)*p & 0xC0) != 0x80) {
      len++;
    }
  }
  CHECK(same);
  free(t);
  etk_inspector_close(insp);
}

ETK_TEST(json_carries_every_column_and_parses) {
  etk_inspector_t *insp =
      etk_test_inspector_build(fixture_hostile_names, ETK_TIME_NS);
  REQUIRE(insp != NULL);
  char *js = render_fmt(insp, ETK_INSPECT_FORMAT_JSON);
  REQUIRE(js != NULL);
  json_error_t jerr;
  json_t *root = json_loads(js, 0, &jerr);
  if (!root) printf("# %s (line %d)\n", jerr.text, jerr.line);
  REQUIRE(root != NULL);
  json_t *events = json_object_get(root, "events");
  CHECK(json_array_size(events) == 13); /* JSON keeps OPERATOR_CALL rows */
  json_t *e0 = json_array_get(events, 0);
  static const char *const keys[] = {"event_block_name",
                                     "event_name",
                                     "raw",
                                     "p10 (ns)",
                                     "p50 (ns)",
                                     "p90 (ns)",
                                     "avg (ns)",
                                     "min (ns)",
                                     "max (ns)",
                                     "op_types",
                                     "delegate_debug_identifier",
                                     "stack_traces",
                                     "module_hierarchy",
                                     "is_delegated_op",
                                     "delegate_backend_name",
                                     "debug_data",
                                     "start_time",
                                     "instruction_id",
                                     "debug_handles",
                                     "num_outputs"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    CHECK(json_object_get(e0, keys[i]) != NULL);
  CHECK_EQ_STR(json_string_value(json_object_get(e0, "event_name")),
               "tab\there");
  CHECK_EQ_STR(json_string_value(json_object_get(e0, "event_block_name")),
               "hostile,\"run\"");
  json_t *e1 = json_array_get(events, 1);
  CHECK_EQ_STR(json_string_value(json_object_get(e1, "event_name")),
               "new\nline");
  CHECK(json_real_value(json_array_get(json_object_get(e1, "raw"), 0)) == 11.0);
  json_decref(root);
  free(js);
  etk_inspector_close(insp);
}

/* Appendix B as JSON with `indent`: event 0 linked with a backend name
 * that needs escaping (the general writer), event 1 with a list of debug
 * handles (the one-piece fast path, like the others). */
static char *linked_json(int indent) {
  etk_inspector_t *insp =
      etk_test_inspector_build(fixture_appendix_b, ETK_TIME_NS);
  if (!insp) return NULL;
  static const int64_t handles[2] = {3, 4};
  etk_inspector_event_link_t l;
  memset(&l, 0, sizeof l);
  l.num_outputs = 2;
  l.delegate_backend_name = "back\"end";
  etk_inspector_event_set_link(insp, 0, &l, NULL);
  l.delegate_backend_name = "XNNPACK";
  l.has_debug_handles = l.debug_handles_is_list = 1;
  l.debug_handles = handles;
  l.debug_handle_count = 2;
  etk_inspector_event_set_link(insp, 1, &l, NULL);
  etk_inspector_render_options_t ro = th_options(ETK_INSPECT_FORMAT_JSON);
  ro.json_indent = indent;
  char *js = th_render(insp, &ro, NULL, NULL);
  etk_inspector_close(insp);
  return js;
}

ETK_TEST(json_events_same_at_every_indent_fast_or_not) {
  char *text[3] = {linked_json(0), linked_json(2), linked_json(5)};
  json_t *root[3];
  for (int i = 0; i < 3; i++) {
    REQUIRE(text[i] != NULL);
    root[i] = json_loads(text[i], 0, NULL);
    REQUIRE(root[i] != NULL);
  }
  CHECK(json_equal(root[0], root[1]) && json_equal(root[0], root[2]));
  CHECK(strstr(text[0], "\": ") == NULL && strstr(text[0], "\n ") == NULL);
  /* members at depth 3 and array items at depth 4, five spaces a level */
  CHECK_CONTAINS(text[2], "\n               \"event_name\": \"",
                 "\n                    3,\n                    4\n",
                 "\"delegate_backend_name\": \"back\\\"end\"",
                 "\"delegate_backend_name\": \"XNNPACK\"");
  json_t *events = json_object_get(root[0], "events");
  CHECK(json_array_size(events) > 2);
  json_t *e0 = json_array_get(events, 0), *e1 = json_array_get(events, 1);
  CHECK_EQ_STR(json_string_value(json_object_get(e0, "delegate_backend_name")),
               "back\"end");
  CHECK(json_integer_value(json_object_get(e0, "num_outputs")) == 2);
  CHECK(json_is_null(json_object_get(e0, "debug_handles")));
  json_t *h = json_object_get(e1, "debug_handles");
  CHECK(json_array_size(h) == 2 &&
        json_integer_value(json_array_get(h, 1)) == 4);
  CHECK(json_array_size(json_object_get(e1, "raw")) ==
        json_array_size(json_object_get(e1, "start_time")));
  for (int i = 0; i < 3; i++) {
    json_decref(root[i]);
    free(text[i]);
  }
}

ETK_TEST(json_debug_values_with_buffer) {
  size_t len, blen;
  uint8_t *b = fixture_appendix_c(&len),
          *buf = fixture_appendix_c_buffer(&blen);
  etk_inspector_options_t o;
  etk_inspector_options_init(&o);
  o.debug_buffer = buf;
  o.debug_buffer_len = blen;
  o.etdump.copy = 1;
  etk_inspector_t *insp;
  REQUIRE(etk_inspector_open_memory(b, len, &o, &insp, NULL) == ETK_OK);
  char *js = render_fmt(insp, ETK_INSPECT_FORMAT_JSON);
  REQUIRE(js != NULL);
  json_t *root = json_loads(js, 0, NULL);
  REQUIRE(root != NULL);
  json_t *blk = json_array_get(json_object_get(root, "blocks"), 0);
  json_t *out = json_array_get(json_object_get(blk, "run_output"), 0);
  CHECK_EQ_STR(json_string_value(json_object_get(out, "dtype")), "float32");
  CHECK(json_real_value(json_array_get(json_object_get(out, "values"), 0)) ==
        9.0);
  json_t *ev = json_array_get(json_object_get(root, "events"), 0);
  json_t *dd = json_array_get(json_object_get(ev, "debug_data"), 0);
  CHECK(json_array_size(json_object_get(dd, "values")) == 3);
  json_t *five = json_array_get(json_object_get(root, "events"), 2);
  CHECK(json_integer_value(
            json_object_get(five, "delegate_debug_identifier")) == 5);
  CHECK_EQ_STR(json_string_value(json_array_get(
                   json_object_get(five, "delegate_debug_metadata"), 0)),
               "6d31"); /* b'm1' */
  json_decref(root);
  free(js);
  etk_inspector_close(insp);
  free(b);
  free(buf);
}

ETK_TEST(linked_fields_print_like_upstream) {
  etk_inspector_t *insp =
      etk_test_inspector_build(fixture_appendix_b, ETK_TIME_US);
  REQUIRE(insp != NULL);
  size_t add = th_find_event(insp, 1, "native_call_add.out");
  const char *ops[] = {"aten.add.Tensor"};
  etk_inspector_link_node_t node = {"aten_add_tensor_", "File \"m.py\", line 3",
                                    NULL};
  int64_t handle = 7;
  etk_inspector_event_link_t l = {0};
  l.has_debug_handles = 1;
  l.debug_handles = &handle;
  l.debug_handle_count = 1;
  l.num_outputs = 1;
  l.delegate_backend_name = "XnnpackBackend";
  l.op_types = ops;
  l.op_type_count = 1;
  l.nodes = &node;
  l.node_count = 1;
  REQUIRE(etk_inspector_event_set_link(insp, add, &l, NULL) == ETK_OK);
  /* five op types: upstream prints the truncated string */
  const char *five[] = {"o1", "o2", "o3", "o4", "o5"};
  etk_inspector_event_link_t l5 = {0};
  l5.num_outputs = 2;
  l5.op_types = five;
  l5.op_type_count = 5;
  size_t op = th_find_event(insp, 1, "OPERATOR_CALL");
  size_t ex = th_find_event(insp, 1, "Method::execute");
  REQUIRE(etk_inspector_event_set_link(insp, ex, &l5, NULL) == ETK_OK);
  REQUIRE(etk_inspector_event_set_link(insp, op, &l5, NULL) == ETK_OK);
  etk_inspector_event_link_t got;
  etk_inspector_event_link(insp, add, &got);
  CHECK(got.op_types != ops && strcmp(got.op_types[0], "aten.add.Tensor") == 0);
  char *tsv = render_fmt(insp, ETK_INSPECT_FORMAT_TSV);
  REQUIRE(tsv != NULL);
  CHECK(
      strstr(
          tsv,
          "\t['aten.add.Tensor']\tFalse\tXnnpackBackend\t[100, 100, 100]\n") !=
      NULL);
  CHECK(strstr(tsv,
               "\t['o1', 'o2' ... 'o5'] (5 total)\tFalse\t\t[80, 80, 80]\n") !=
        NULL);
  free(tsv);
  etk_inspector_render_options_t ro = th_options(ETK_INSPECT_FORMAT_TSV);
  ro.all_columns = 1;
  tsv = th_render(insp, &ro, NULL, NULL);
  REQUIRE(tsv != NULL);
  /* the dict contains '"': the field is quoted with the quote doubled */
  CHECK(strstr(tsv,
               "\t\"{'aten_add_tensor_': 'File \"\"m.py\"\", line "
               "3'}\"\t{'aten_add_tensor_': None}\t") != NULL);
  free(tsv);
  char *js = render_fmt(insp, ETK_INSPECT_FORMAT_JSON);
  json_t *root = json_loads(js, 0, NULL);
  REQUIRE(root != NULL);
  json_t *events = json_object_get(root, "events");
  size_t i;
  json_t *ev;
  int seen = 0;
  json_array_foreach(events, i, ev) {
    if (strcmp(json_string_value(json_object_get(ev, "event_name")),
               "native_call_add.out") == 0 &&
        json_integer_value(json_object_get(ev, "event_block_index")) == 1) {
      CHECK(json_integer_value(json_object_get(ev, "debug_handles")) == 7);
      CHECK_EQ_STR(
          json_string_value(json_object_get(ev, "delegate_backend_name")),
          "XnnpackBackend");
      seen = 1;
    }
  }
  CHECK(seen);
  json_decref(root);
  free(js);
  etk_inspector_close(insp);
}

ETK_TEST(sort_top_and_block_selection) {
  etk_inspector_t *insp =
      etk_test_inspector_build(fixture_appendix_b, ETK_TIME_US);
  REQUIRE(insp != NULL);
  etk_inspector_render_options_t ro = th_options(ETK_INSPECT_FORMAT_TSV);
  ro.sort = ETK_INSPECT_SORT_AVG;
  ro.top = 2;
  char *tsv = th_render(insp, &ro, NULL, NULL);
  REQUIRE(tsv != NULL);
  /* largest averages: Method::execute of block 2 (0.123 us, run 3 alone)
   * then of block 1 (mean of 0.121, 0.122, 0.124) */
  const char *l1 = strchr(tsv, '\n') + 1;
  CHECK(strncmp(l1, "0\tExecute\tMethod::execute\t0.123\t", 32) == 0);
  CHECK(strstr(l1, "\n1\tExecute\tMethod::execute\t") != NULL);
  CHECK(strstr(l1, "\n2\t") == NULL);
  free(tsv);
  ro = th_options(ETK_INSPECT_FORMAT_TSV);
  ro.select_name[ro.select_name_count++] = "Default";
  tsv = th_render(insp, &ro, NULL, NULL);
  REQUIRE(tsv != NULL);
  CHECK(strstr(tsv, "Execute") == NULL && strstr(tsv, "Method::init") != NULL);
  free(tsv);
  etk_inspector_render_options_init(&ro);
  ro.select_index[ro.select_index_count++] = 7;
  int rc;
  etk_error_t err;
  etk_error_clear(&err);
  CHECK(th_render(insp, &ro, &rc, &err) == NULL);
  CHECK_EQ_INT(rc, ETK_E_NOT_FOUND);
  CHECK(strstr(err.message, "no event block 7") != NULL);
  ro = th_options(ETK_INSPECT_FORMAT_TSV);
  ro.sort = ETK_INSPECT_SORT_NAME;
  ro.select_index[ro.select_index_count++] = 2;
  tsv = th_render(insp, &ro, NULL, NULL);
  REQUIRE(tsv != NULL);
  CHECK_CONTAINS(tsv, "\n0\tExecute\tMethod::execute\t",
                 "\n2\tExecute\tnative_call_mul.out\t");
  free(tsv);
  etk_inspector_close(insp);
}

ETK_TEST(summary_by_operator_type) {
  etk_inspector_t *insp =
      etk_test_inspector_build(fixture_delegates, ETK_TIME_NS);
  REQUIRE(insp != NULL);
  etk_inspector_render_options_t ro = th_options(ETK_INSPECT_FORMAT_TSV);
  ro.view = ETK_INSPECT_VIEW_SUMMARY;
  char *tsv = th_render(insp, &ro, NULL, NULL);
  REQUIRE(tsv != NULL);
  /* Per run (averages of 2 runs): add 105, linear #1 105 + #2 80 merge as
   * "linear" (185, 2 calls), int id 3: 10, DELEGATE_CALL of iid 1 (210)
   * wraps them (not an operator; its 210 - 195 = 15 of its own are the
   * delegate overhead), DELEGATE_CALL of iid 2 has no inner events (100),
   * OPERATOR_CALL excluded; method 605 = ops 400 + delegate overhead 15 +
   * framework overhead 190.  Percentages computed with Python:
   * total / 605.0 * 100.0. */
  CHECK_EQ_STR(
      tsv,
      "\tevent_block_name\top_type\tcount\ttotal (ns)\tavg (ns)\t% of method\n"
      "0\tExecute\tlinear\t2\t185.0\t92.5\t30.57851239669421\n"
      "1\tExecute\tadd.out\t1\t105.0\t105.0\t17.355371900826448\n"
      "2\tExecute\tDELEGATE_CALL\t1\t100.0\t100.0\t16.528925619834713\n"
      "3\tExecute\t3\t1\t10.0\t10.0\t1.6528925619834711\n"
      "4\tExecute\tdelegate overhead\t1\t15.0\t\t2.479338842975207\n"
      "5\tExecute\tframework overhead\t\t190.0\t\t31.40495867768595\n"
      "6\tExecute\tMethod::execute\t1\t605.0\t605.0\t100.0\n");
  free(tsv);
  ro.top = 1;
  ro.sort = ETK_INSPECT_SORT_NAME;
  tsv = th_render(insp, &ro, NULL, NULL);
  REQUIRE(tsv != NULL);
  CHECK_CONTAINS(tsv, "\n0\tExecute\t3\t1\t",
                 "\n1\tExecute\tdelegate overhead\t1\t15.0\t",
                 "\n2\tExecute\tframework overhead\t\t190.0\t");
  free(tsv);
  etk_inspector_close(insp);
}

ETK_TEST(no_blocks_and_units) {
  etk_inspector_t *insp =
      etk_test_inspector_build(fixture_appendix_b, ETK_TIME_US);
  REQUIRE(insp != NULL);
  etk_inspector_render_options_t ro = th_options(ETK_INSPECT_FORMAT_TSV);
  ro.include_units = 0;
  char *tsv = th_render(insp, &ro, NULL, NULL);
  REQUIRE(tsv != NULL);
  CHECK(
      strncmp(tsv,
              "\tevent_block_name\tevent_name\tp10\tp50\tp90\tavg\tmin\tmax\t",
              52) == 0);
  free(tsv);
  ro.all_rows = 1;
  tsv = th_render(insp, &ro, NULL, NULL);
  CHECK(tsv && strstr(tsv, "OPERATOR_CALL") != NULL);
  free(tsv);
  etk_inspector_close(insp);
}

/* etk_inspector_render_with_tsv: the table and the TSV from one
 * computation of each row are the bytes the two separate renders give. */
static int tee_matches(etk_inspector_t *insp,
                       const etk_inspector_render_options_t *table_ro) {
  etk_inspector_render_options_t tsv_ro = *table_ro;
  tsv_ro.format = ETK_INSPECT_FORMAT_TSV;
  int trc = -1, src = -1;
  char *table = th_render(insp, table_ro, &trc, NULL);
  char *tsv = th_render(insp, &tsv_ro, &src, NULL);
  etk_render_sink_t *ts = etk_test_capture_new(), *ss = etk_test_capture_new();
  int rc = etk_inspector_render_with_tsv(insp, table_ro, ts, ss, NULL);
  char *tee_table = etk_test_capture_finish(ts, rc);
  char *tee_tsv = etk_test_capture_finish(ss, rc);
  int same = trc == src && (trc == ETK_OK ? rc == ETK_OK : rc == trc);
  if (same && trc == ETK_OK)
    same = table && tsv && tee_table && tee_tsv &&
           strcmp(table, tee_table) == 0 && strcmp(tsv, tee_tsv) == 0 &&
           strlen(tsv) > 0;
  if (!same) printf("# tee differs (rc %d, table %d, tsv %d)\n", rc, trc, src);
  free(table);
  free(tsv);
  free(tee_table);
  free(tee_tsv);
  return same;
}

ETK_TEST(table_with_tsv_is_both_renders) {
  uint8_t *(*const fixtures[])(size_t *) = {
      fixture_appendix_b,  fixture_appendix_c, fixture_hostile_names,
      fixture_allocations, fixture_wrap,       fixture_delegates};
  for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
    etk_inspector_t *insp = etk_test_inspector_build(fixtures[i], ETK_TIME_US);
    REQUIRE(insp != NULL);
    etk_inspector_render_options_t ro = th_options(ETK_INSPECT_FORMAT_TABLE);
    CHECK(tee_matches(insp, &ro));
    ro.include_units = 0;
    ro.all_rows = 1;
    CHECK(tee_matches(insp, &ro));
    ro.all_columns = 1;
    ro.include_delegate_debug_data = 1;
    CHECK(tee_matches(insp, &ro));
    ro = th_options(ETK_INSPECT_FORMAT_TABLE);
    ro.sort = ETK_INSPECT_SORT_AVG;
    ro.top = 2;
    CHECK(tee_matches(insp, &ro));
    ro = th_options(ETK_INSPECT_FORMAT_TABLE);
    ro.select_index[0] = 99; /* no such block: the same error, no output */
    ro.select_index_count = 1;
    CHECK(tee_matches(insp, &ro));
    etk_inspector_close(insp);
  }
  /* another format or view has other columns: refused */
  etk_inspector_t *insp =
      etk_test_inspector_build(fixture_appendix_b, ETK_TIME_US);
  REQUIRE(insp != NULL);
  etk_inspector_render_options_t ro = th_options(ETK_INSPECT_FORMAT_TSV);
  etk_render_sink_t *a = etk_test_capture_new(), *b = etk_test_capture_new();
  CHECK_EQ_INT(etk_inspector_render_with_tsv(insp, &ro, a, b, NULL),
               ETK_E_INVALID_ARGUMENT);
  ro = th_options(ETK_INSPECT_FORMAT_TABLE);
  ro.view = ETK_INSPECT_VIEW_SUMMARY;
  CHECK_EQ_INT(etk_inspector_render_with_tsv(insp, &ro, a, b, NULL),
               ETK_E_INVALID_ARGUMENT);
  free(etk_test_capture_finish(a, 1));
  free(etk_test_capture_finish(b, 1));
  etk_inspector_close(insp);
}

ETK_TEST_MAIN()
