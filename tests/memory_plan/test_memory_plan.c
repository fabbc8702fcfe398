/*
 * test_memory_plan.c - etk_memory_plan_* on programs with known plans
 * (memory_plan_fixtures.c): lifetimes, peaks, overlaps, invalid tensors,
 * aliases, lists, several arenas, delegate and control instructions, the
 * trace rows and the HTML page; damaged programs (every truncation, every
 * byte flipped) give one error and never crash; the conformance programs.
 */
#include <stdlib.h>
#include <string.h>

#include "etk_test.h"
#include "etkit/link.h"
#include "etkit/memory_plan.h"
#include "etkit/program.h"
#include "memory_plan_fixtures.h"
#include "render_capture.h"

static etk_memory_plan_t *open_fixture(const char *name) {
  for (size_t i = 0; i < mpf_fixture_count; i++) {
    if (strcmp(mpf_fixtures[i].name, name) != 0) continue;
    uint8_t *bytes = NULL;
    size_t len = 0;
    if (mpf_fixtures[i].build(&bytes, &len) != ETK_OK) return NULL;
    etk_memory_plan_t *p = NULL;
    etk_error_t err;
    etk_error_clear(&err);
    int rc = etk_memory_plan_open(bytes, len, NULL, &p, &err);
    if (rc != ETK_OK) printf("# %s: %s\n", name, err.message);
    free(bytes);
    return p;
  }
  return NULL;
}

static const etk_memory_plan_tensor_t *tensor(const etk_memory_plan_t *p,
                                              uint32_t value) {
  int64_t k = etk_memory_plan_find(p, value);
  return k < 0 ? NULL : &p->tensors[k];
}

static int lifetime_is(const etk_memory_plan_t *p, uint32_t v, int64_t first,
                       int64_t last) {
  const etk_memory_plan_tensor_t *t = tensor(p, v);
  if (t && t->first == first && t->last == last) return 1;
  printf("# value %u: lifetime %lld..%lld, expected %lld..%lld\n", v,
         t ? (long long)t->first : -9, t ? (long long)t->last : -9,
         (long long)first, (long long)last);
  return 0;
}

/* Whether buffer b peaks at `bytes`, first reached at `instruction`. */
static int peak_is(const etk_memory_plan_t *p, size_t b, uint64_t bytes,
                   int64_t instruction) {
  if (p->buffers[b].peak_bytes == bytes &&
      p->buffers[b].peak_instruction == instruction)
    return 1;
  printf("# buffer %zu: peak %llu bytes at %lld, expected %llu at %lld\n", b,
         (unsigned long long)p->buffers[b].peak_bytes,
         (long long)p->buffers[b].peak_instruction, (unsigned long long)bytes,
         (long long)instruction);
  return 0;
}

ETK_TEST(chain_with_reuse) {
  etk_memory_plan_t *p = open_fixture("chain_reuse");
  REQUIRE(p);
  CHECK_EQ_U64(p->num_instructions, 4);
  CHECK_EQ_U64(p->tensor_count, 5);
  CHECK(lifetime_is(p, 0, 0, 0) && lifetime_is(p, 1, 0, 1));
  CHECK(lifetime_is(p, 2, 1, 2) && lifetime_is(p, 3, 2, 3));
  CHECK(lifetime_is(p, 4, 3, 3));
  REQUIRE(p->buffer_count == 1);
  CHECK_EQ_U64(p->buffers[0].size, 128);
  CHECK(peak_is(p, 0, 128, 0));
  CHECK_EQ_U64(p->overlap_total, 0);
  CHECK_EQ_U64(p->invalid_count, 0);
  CHECK(tensor(p, 0)->is_input && tensor(p, 4)->is_output);
  CHECK(strcmp(tensor(p, 1)->op, "aten::relu.out") == 0);
  CHECK(strcmp(tensor(p, 0)->op, "input") == 0);
  uint32_t live[4];
  CHECK_EQ_U64(etk_memory_plan_live_at(p, 1, 2, live, 4), 2);
  CHECK(live[0] == 2 && live[1] == 3); /* equal sizes: by value */
  etk_memory_plan_free(p);
}

ETK_TEST(unsafe_plan_is_reported_not_refused) {
  etk_memory_plan_t *p = open_fixture("chain_unsafe");
  REQUIRE(p);
  REQUIRE(p->overlap_count == 2);
  CHECK(p->overlaps[0].a == 1 && p->overlaps[0].b == 2);
  CHECK_EQ_U64(p->overlaps[0].byte_start, 64);
  CHECK_EQ_U64(p->overlaps[0].byte_end, 96);
  CHECK(p->overlaps[0].first == 1 && p->overlaps[0].last == 1);
  CHECK(p->overlaps[1].a == 2 && p->overlaps[1].b == 3);
  CHECK(p->overlaps[1].first == 2 && p->overlaps[1].last == 2);
  etk_render_sink_t *s = etk_test_capture_new();
  CHECK_EQ_U64(etk_memory_plan_render_problems(p, s), 2);
  char *text = etk_test_capture_finish(s, ETK_OK);
  REQUIRE(text);
  CHECK(strstr(text, "unsafe plan: values 1 and 2 share bytes [64, 96)"));
  free(text);
  etk_memory_plan_free(p);
}

ETK_TEST(invalid_plan_past_the_end) {
  etk_memory_plan_t *p = open_fixture("chain_invalid");
  REQUIRE(p);
  CHECK_EQ_U64(p->buffers[0].size, 96);
  CHECK_EQ_U64(p->invalid_count, 2);
  CHECK(tensor(p, 1)->invalid && tensor(p, 3)->invalid);
  CHECK(!tensor(p, 0)->invalid);
  CHECK_EQ_U64(p->buffers[0].peak_bytes, 128); /* still analysed */
  etk_memory_plan_free(p);
}

ETK_TEST(residual_and_unreferenced) {
  etk_memory_plan_t *p = open_fixture("residual");
  REQUIRE(p);
  CHECK(lifetime_is(p, 0, 0, 2) && lifetime_is(p, 1, 0, 1));
  CHECK(lifetime_is(p, 2, 1, 2) && lifetime_is(p, 3, 2, 2));
  CHECK(lifetime_is(p, 5, -1, -1));
  CHECK(strcmp(tensor(p, 5)->op, "") == 0);
  CHECK(peak_is(p, 0, 192, 1));
  etk_memory_plan_free(p);
}

ETK_TEST(tensor_lists_extend_lifetimes) {
  etk_memory_plan_t *p = open_fixture("tensor_lists");
  REQUIRE(p);
  CHECK(lifetime_is(p, 0, 0, 1) && lifetime_is(p, 1, 0, 3));
  CHECK(lifetime_is(p, 2, 1, 3) && lifetime_is(p, 3, 2, 3));
  CHECK(lifetime_is(p, 4, 3, 3));
  CHECK(peak_is(p, 0, 192, 3));
  etk_memory_plan_free(p);
}

ETK_TEST(several_memory_ids_and_delegate) {
  etk_memory_plan_t *p = open_fixture("multi_mem_delegate");
  REQUIRE(p);
  REQUIRE(p->buffer_count == 2);
  CHECK(peak_is(p, 0, 128, 1));
  CHECK(peak_is(p, 1, 32, 0));
  CHECK(lifetime_is(p, 2, 1, 2));
  CHECK(strcmp(tensor(p, 2)->op, "delegate:XnnpackBackend") == 0);
  CHECK_EQ_U64(p->overlap_total, 0);
  etk_memory_plan_free(p);
}

ETK_TEST(alias_move_jump_free) {
  etk_memory_plan_t *p = open_fixture("alias_and_control");
  REQUIRE(p);
  CHECK_EQ_INT(tensor(p, 1)->alias_of, 0);
  CHECK_EQ_U64(p->overlap_total, 0); /* x and its view share on purpose */
  CHECK(lifetime_is(p, 1, 0, 1) && lifetime_is(p, 2, 1, 4));
  CHECK(lifetime_is(p, 3, 2, 4));
  /* x + its view at 0, the view + o at 1, o + m at 2..4: 128 throughout */
  CHECK(peak_is(p, 0, 128, 0));
  CHECK_EQ_U64(p->backward_jumps, 0);
  etk_memory_plan_free(p);
}

ETK_TEST(long_chain_and_trace_rows) {
  etk_memory_plan_t *p = open_fixture("long_chain");
  REQUIRE(p);
  CHECK_EQ_U64(p->num_instructions, 3000);
  CHECK_EQ_U64(p->tensor_count, 3002);
  CHECK(lifetime_is(p, 0, 0, 2999) && lifetime_is(p, 1, 0, 0));
  CHECK(lifetime_is(p, 1500, 1498, 1499) && lifetime_is(p, 3001, 2999, 2999));
  CHECK(peak_is(p, 0, 768, 0));
  etk_render_sink_t *s = etk_test_capture_new();
  char *text =
      etk_test_capture_finish(s, etk_memory_plan_render_trace(p, 0, s, NULL));
  REQUIRE(text);
  /* 3 live tensors in each of the 3000 rows */
  size_t events = 0;
  for (const char *q = text; (q = strstr(q, "\"cat\": \"memory_allocation\""));
       q++)
    events++;
  CHECK_EQ_U64(events, 9000);
  CHECK(strstr(text, "\"tid\": 2999"));
  CHECK(!strstr(text, "\"tid\": 3000"));
  free(text);
  etk_memory_plan_free(p);
}

ETK_TEST(html_page_is_self_contained) {
  etk_memory_plan_t *p = open_fixture("chain_unsafe");
  REQUIRE(p);
  etk_render_sink_t *s = etk_test_capture_new();
  char *html =
      etk_test_capture_finish(s, etk_memory_plan_render_html(p, s, NULL));
  REQUIRE(html);
  CHECK(strstr(html, "<svg"));
  CHECK(strstr(html, "class=\"overlap\""));
  CHECK(strstr(html, "aten::relu"));
  CHECK(strstr(html, "peak 128 B @ 0"));
  CHECK(!strstr(html, "<script src") && !strstr(html, "https://") &&
        !strstr(html, "<link"));
  free(html);
  etk_memory_plan_free(p);
}

ETK_TEST(method_selection) {
  uint8_t *bytes = NULL;
  size_t len = 0;
  REQUIRE(mpf_fixtures[0].build(&bytes, &len) == ETK_OK);
  etk_memory_plan_t *p = NULL;
  etk_error_t err;
  etk_error_clear(&err);
  CHECK(etk_memory_plan_open(bytes, len, "forward", &p, &err) == ETK_OK);
  etk_memory_plan_free(p);
  p = NULL;
  etk_error_clear(&err);
  CHECK(etk_memory_plan_open(bytes, len, "nope", &p, &err) == ETK_E_NOT_FOUND);
  CHECK(p == NULL && strstr(err.message, "methods: forward"));
  free(bytes);
}

/* 500 tensors at one place, all live at instruction 0: 124,750 unsafe
 * pairs, more than the check looks for: it stops at the cap and says so. */
ETK_TEST(overlap_check_is_bounded) {
  etk_program_builder_t *b = etk_program_builder_new("forward");
  int32_t args[500], size = 4;
  for (int i = 0; i < 500; i++) {
    args[i] = etk_program_builder_add_tensor(b, ETK_BUILDER_FLOAT, 1, &size,
                                             NULL, ETK_BUILDER_PLANNED, NULL);
    etk_program_builder_place_tensor(b, args[i], 1, 0);
  }
  int op = etk_program_builder_add_operator(b, "aten::cat", "out");
  etk_program_builder_kernel_call(b, op, args, 500);
  uint8_t *bytes = NULL;
  size_t len = 0;
  REQUIRE(etk_program_builder_finish(b, &bytes, &len, NULL) == ETK_OK);
  etk_program_builder_free(b);
  etk_memory_plan_t *p = NULL;
  REQUIRE(etk_memory_plan_open(bytes, len, NULL, &p, NULL) == ETK_OK);
  CHECK(p->overlaps_truncated);
  CHECK_EQ_U64(p->overlap_count, ETK_MEMORY_PLAN_MAX_OVERLAPS);
  CHECK(p->overlaps[0].a == 0 && p->overlaps[0].b == 1);
  etk_render_sink_t s;
  etk_render_sink_init(&s, NULL, NULL);
  CHECK_EQ_U64(etk_memory_plan_render_problems(p, &s),
               ETK_MEMORY_PLAN_MAX_OVERLAPS + 1);
  etk_memory_plan_free(p);
  free(bytes);
}

/* Every prefix and every single flipped byte: an error or a plan, never a
 * crash (ASan runs this too). */
ETK_TEST(damaged_programs_fail_cleanly) {
  for (size_t f = 0; f < mpf_fixture_count; f++) {
    if (strcmp(mpf_fixtures[f].name, "long_chain") == 0) continue;
    uint8_t *bytes = NULL;
    size_t len = 0;
    REQUIRE(mpf_fixtures[f].build(&bytes, &len) == ETK_OK);
    size_t ok_prefixes = 0;
    for (size_t n = 0; n < len; n++) {
      uint8_t *copy = malloc(n ? n : 1);
      REQUIRE(copy);
      memcpy(copy, bytes, n);
      etk_memory_plan_t *p = NULL;
      etk_error_t err;
      etk_error_clear(&err);
      int rc = etk_memory_plan_open(copy, n, NULL, &p, &err);
      if (rc == ETK_OK)
        ok_prefixes++;
      else
        CHECK(err.message[0] != '\0' && p == NULL);
      etk_memory_plan_free(p);
      free(copy);
    }
    CHECK_EQ_U64(ok_prefixes, 0);
    for (size_t i = 0; i < len; i++) {
      bytes[i] ^= 0xA5;
      etk_memory_plan_t *p = NULL;
      etk_error_t err;
      etk_error_clear(&err);
      int rc = etk_memory_plan_open(bytes, len, NULL, &p, &err);
      if (rc != ETK_OK) CHECK(err.message[0] != '\0');
      etk_memory_plan_free(p);
      bytes[i] ^= 0xA5;
    }
    free(bytes);
  }
}

ETK_TEST(conformance_programs) {
  static const char *const names[] = {"add.pte",
                                      "module_linear_inline_constants.pte"};
  /* through the harness: a conformance case, SKIPPED in its own ctest
   * part when the files are absent (never a quiet pass) */
  for (size_t i = 0; i < 2; i++) {
    const char *path = etk_test_conformance_path(names[i]);
    if (!path) ETK_SKIP("conformance programs absent");
    etk_memory_plan_t *p = NULL;
    etk_error_t err;
    etk_error_clear(&err);
    REQUIRE(etk_memory_plan_open_file(path, NULL, &p, &err) == ETK_OK);
    CHECK_EQ_U64(p->tensor_count, 3);
    CHECK_EQ_U64(p->overlap_total + p->invalid_count, 0);
    if (i == 0) { /* add: x, y inputs, out at 32; all live at 0 */
      CHECK_EQ_U64(p->buffers[0].size, 48);
      CHECK_EQ_U64(p->buffers[0].peak_bytes, 12);
      CHECK(lifetime_is(p, 2, 0, 0));
    }
    etk_memory_plan_free(p);
  }
}

/* An ETRecord for chain_reuse: instruction i runs node relu_<i+1>
 * (debug handle i + 1) in module "block<i>". */
ETK_TEST(etrecord_names_tensors) {
  etk_memory_plan_t *p = open_fixture("chain_reuse");
  REQUIRE(p);
  etk_etrecord_node_desc_t nodes[4];
  etk_etrecord_handle_desc_t handles[4];
  etk_etrecord_module_desc_t mods[4][2];
  int64_t ids[4];
  char names[4][16], paths[4][16], keys[4][24], traces[4][96];
  const char *outs[4][1];
  memset(nodes, 0, sizeof nodes);
  for (int i = 0; i < 4; i++) {
    snprintf(names[i], sizeof names[i], "relu_%d", i + 1);
    snprintf(paths[i], sizeof paths[i], "block%d", i);
    snprintf(keys[i], sizeof keys[i], "L__self___block%d", i);
    snprintf(traces[i], sizeof traces[i],
             "  File \"toy.py\", line %d, in forward\n    x = relu(x)\n",
             10 + i);
    mods[i][0] = (etk_etrecord_module_desc_t){"L__self__", "", "toy.Model"};
    mods[i][1] = (etk_etrecord_module_desc_t){keys[i], paths[i], "toy.Block"};
    outs[i][0] = names[i];
    ids[i] = i + 1;
    nodes[i].name = names[i];
    nodes[i].target = "executorch.exir.dialects.edge.ops.aten.relu.default";
    nodes[i].debug_handle = i + 1;
    nodes[i].stack_trace = traces[i];
    nodes[i].module_stack = mods[i];
    nodes[i].module_stack_count = 2;
    nodes[i].outputs = outs[i];
    nodes[i].output_count = 1;
    handles[i] = (etk_etrecord_handle_desc_t){i, &ids[i], 1, false};
  }
  const char *graph_in[] = {"x"}, *graph_out[] = {"relu_4"};
  etk_etrecord_method_desc_t m = {.name = "forward",
                                  .nodes = nodes,
                                  .node_count = 4,
                                  .graph_inputs = graph_in,
                                  .graph_input_count = 1,
                                  .graph_outputs = graph_out,
                                  .graph_output_count = 1,
                                  .handles = handles,
                                  .handle_count = 4};
  etk_etrecord_desc_t desc = {.methods = &m, .method_count = 1};
  uint8_t *zip = NULL;
  size_t zip_len = 0;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_etrecord_write_memory(&desc, &zip, &zip_len, &err) == ETK_OK);
  etk_etrecord_t *rec = NULL;
  REQUIRE(etk_etrecord_open_memory(zip, zip_len, NULL, &rec, &err) == ETK_OK);
  for (size_t k = 0; k < p->tensor_count; k++) {
    const etk_memory_plan_tensor_t *t = &p->tensors[k];
    const etk_etrecord_node_t *node = NULL;
    if (t->is_input) continue;
    REQUIRE(etk_etrecord_instruction_node(rec, "forward", t->first, &node,
                                          &err) == ETK_OK);
    REQUIRE(node);
    char module[64];
    etk_etrecord_node_module_path(node, false, module, sizeof module);
    REQUIRE(etk_memory_plan_set_names(p, k, node->name, module,
                                      node->stack_trace, NULL, &err) == ETK_OK);
  }
  const etk_etrecord_node_t *none = NULL;
  CHECK(etk_etrecord_instruction_node(rec, "other", 0, &none, &err) ==
        ETK_E_NOT_FOUND);
  CHECK(strcmp(tensor(p, 0)->name, "value_0") == 0); /* input: no node */
  CHECK(strcmp(tensor(p, 1)->name, "relu_1") == 0);
  CHECK(strcmp(tensor(p, 3)->module, "block2") == 0);
  CHECK(strstr(tensor(p, 4)->source, "line 13"));
  etk_render_sink_t *s = etk_test_capture_new();
  char *text =
      etk_test_capture_finish(s, etk_memory_plan_render_trace(p, 0, s, NULL));
  REQUIRE(text);
  CHECK(strstr(text, "\"name\": \"relu_2\""));
  CHECK(strstr(text, "\"fqn\": \"block1\""));
  free(text);
  etk_etrecord_close(rec);
  free(zip);
  etk_memory_plan_free(p);
}

ETK_TEST_MAIN()
