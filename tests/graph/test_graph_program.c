/*
 * test_graph_program.c - a program alone as a graph (etk_graph_from_program,
 * src/graph/from_program.c), checked against the program's own structure
 * read here with the program reader: one call node per KernelCall and
 * DelegateCall, each instruction once, constants folded (no value, and the
 * argument names the constant), the edges of sequential models (the demo
 * and the KeywordSpotting-shaped program are chains, the latter through a
 * view the emitter planned onto its input), moves folded or drawn, a
 * delegate call boxed, upstream's programs of ../shared/conformance, and
 * the errors.
 */
#include <stdlib.h>
#include <string.h>

#include "demo_model/demo_model.h"
#include "etk_test.h"
#include "etkit/graph.h"
#include "etkit/program.h"
#include "etkit/program_schema.h"
#include "kws_model/kws_model.h"

typedef struct loaded {
  uint8_t *bytes;
  etk_program_t *program;
  etk_graph_t *graph;
} loaded_t;

static int load(uint8_t *bytes, size_t len, unsigned flags, loaded_t *out) {
  memset(out, 0, sizeof *out);
  out->bytes = bytes;
  etk_error_t err;
  etk_error_clear(&err);
  etk_graph_program_options_t o;
  etk_graph_program_options_default(&o);
  o.flags = flags;
  int rc = etk_program_load(bytes, len, NULL, &out->program, &err);
  if (rc == ETK_OK)
    rc = etk_graph_from_program(out->program, &o, &out->graph, &err);
  if (rc != ETK_OK) printf("# %s\n", err.message);
  return rc;
}

static void unload(loaded_t *l) {
  etk_graph_free(l->graph);
  etk_program_free(l->program);
  free(l->bytes);
}

static bool constant(const etk_program_value_t *v) {
  return v->tag == ETK_PTE_KT_TENSOR && v->u.tensor &&
         (v->u.tensor->external ||
          (v->u.tensor->data_buffer_idx > 0 && !v->u.tensor->planned));
}

/* The checks every program's graph passes, from the program itself. */
static void check_structure(const loaded_t *l) {
  const etk_graph_t *g = l->graph;
  const etk_graph_program_t *p = etk_graph_program(g);
  REQUIRE(p != NULL);
  const etk_program_plan_t *plan = p->plan;
  const etk_graph_node_t *nodes = etk_graph_nodes(g);
  const etk_graph_value_t *values = etk_graph_values(g);
  size_t calls = 0, delegates = 0;
  for (uint32_t c = 0; c < plan->chain_count; c++)
    for (uint32_t i = 0; i < plan->chains[c].instruction_count; i++) {
      const etk_program_instruction_t *ins = &plan->chains[c].instructions[i];
      size_t node = etk_graph_instruction_node(g, c, i);
      bool call = ins->kind == ETK_INSTR_KERNEL_CALL ||
                  ins->kind == ETK_INSTR_DELEGATE_CALL;
      CHECK(call == (node != ETK_GRAPH_NONE));
      if (!call || node == ETK_GRAPH_NONE) continue;
      calls++;
      const etk_graph_node_t *n = &nodes[node];
      CHECK_EQ_INT(n->kind, ETK_GRAPH_NODE_CALL);
      CHECK_EQ_INT(p->node_instruction[node], i);
      CHECK_EQ_INT(p->node_chain[node], c);
      char name[32];
      if (c == 0)
        snprintf(name, sizeof name, "#%u", i);
      else
        snprintf(name, sizeof name, "#%u.%u", c, i);
      CHECK_EQ_STR(n->name, name);
      CHECK_EQ_INT(n->arg_count, ins->arg_count);
      if (ins->kind == ETK_INSTR_KERNEL_CALL) {
        CHECK_EQ_STR(n->target, plan->operators[ins->index].full_name);
        CHECK(n->partition == ETK_GRAPH_NONE);
      } else {
        delegates++;
        CHECK_EQ_STR(n->target, plan->delegates[ins->index].id);
        REQUIRE(n->partition < etk_graph_partition_count(g));
        const etk_graph_partition_t *part =
            &etk_graph_partitions(g)[n->partition];
        CHECK_EQ_STR(part->backend, plan->delegates[ins->index].id);
        CHECK_EQ_U64(part->call_node, node);
        CHECK_EQ_INT(part->instruction_id, i);
      }
      /* constants: folded, yet named by their argument */
      for (uint32_t k = 0; k < ins->arg_count && k < n->arg_count; k++) {
        const etk_program_value_t *v = &plan->values[ins->args[k]];
        if (!constant(v)) continue;
        const etk_graph_arg_t *a = &n->args[k];
        CHECK_EQ_INT(a->kind, ETK_GRAPH_ARG_TENSOR);
        CHECK(a->values && a->values[0] == ETK_GRAPH_NONE);
        char want[24];
        snprintf(want, sizeof want, "v%d", ins->args[k]);
        CHECK(a->value_names && a->value_names[0] &&
              strcmp(a->value_names[0], want) == 0);
      }
    }
  /* nodes: the inputs, the calls, the output; nothing else */
  CHECK_EQ_U64(etk_graph_node_count(g), plan->input_count + calls + 1);
  CHECK_EQ_U64(etk_graph_partition_count(g), delegates);
  size_t placeholders = 0, outputs = 0;
  for (size_t i = 0; i < etk_graph_node_count(g); i++) {
    placeholders += nodes[i].kind == ETK_GRAPH_NODE_PLACEHOLDER;
    outputs += nodes[i].kind == ETK_GRAPH_NODE_OUTPUT;
    /* every edge points back; users and inputs are two views of it */
    for (size_t k = 0; k < nodes[i].input_count; k++) {
      size_t from = nodes[i].inputs[k];
      CHECK(from < i);
      bool listed = false;
      for (size_t q = 0; q < nodes[from].user_count; q++)
        listed |= nodes[from].users[q] == i;
      CHECK(listed);
    }
  }
  CHECK_EQ_U64(placeholders, plan->input_count);
  CHECK_EQ_U64(outputs, 1);
  /* no value is a constant: each value is produced by its node */
  for (size_t v = 0; v < etk_graph_value_count(g); v++) {
    REQUIRE(values[v].producer < etk_graph_node_count(g));
    const etk_graph_node_t *prod = &nodes[values[v].producer];
    CHECK(values[v].output_index < prod->output_value_count &&
          prod->output_values[values[v].output_index] == v);
    CHECK_EQ_U64(etk_graph_find_value(g, 0, values[v].name), v);
  }
  etk_graph_info_t info;
  etk_graph_info_get(g, &info);
  CHECK_EQ_U64(info.call_count, calls);
  CHECK_EQ_STR(info.method, plan->name);
}

/* A sequential model: input -> every call in order -> output. */
static void check_chain(const etk_graph_t *g) {
  const etk_graph_node_t *nodes = etk_graph_nodes(g);
  size_t n = etk_graph_node_count(g);
  for (size_t i = 1; i < n; i++) {
    CHECK_EQ_U64(nodes[i].input_count, 1);
    if (nodes[i].input_count == 1) CHECK_EQ_U64(nodes[i].inputs[0], i - 1);
  }
  CHECK_EQ_INT(nodes[n - 1].kind, ETK_GRAPH_NODE_OUTPUT);
}

ETK_TEST(demo_program) {
  uint8_t *pte;
  size_t len;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_demo_model_build(&pte, &len, &err) == ETK_OK);
  loaded_t l;
  REQUIRE(load(pte, len, 0, &l) == ETK_OK);
  check_structure(&l);
  check_chain(l.graph);
  /* the delegate call is boxed, its output the next pool's input */
  size_t d = etk_graph_instruction_node(l.graph, 0, 3);
  REQUIRE(d != ETK_GRAPH_NONE);
  const etk_graph_node_t *dn = &etk_graph_nodes(l.graph)[d];
  CHECK_EQ_STR(dn->op, "executorch_call_delegate");
  CHECK_EQ_U64(dn->output_value_count, 1);
  CHECK_EQ_U64(etk_graph_partition_count(l.graph), 1);
  /* an ETRecord's things are absent, not a crash */
  etk_graph_tensor_t t;
  CHECK_EQ_INT(etk_graph_state_tensor(l.graph, "w", &t, &err), ETK_E_NOT_FOUND);
  CHECK(etk_graph_record(l.graph) == NULL);
  CHECK_EQ_U64(etk_graph_nodes_for_handle(l.graph, 0, NULL), 0);
  CHECK(etk_graph_instruction_node(l.graph, 0, 8) == ETK_GRAPH_NONE);
  CHECK(etk_graph_instruction_node(l.graph, 1, 0) == ETK_GRAPH_NONE);
  CHECK(etk_graph_instruction_node(l.graph, -1, 0) == ETK_GRAPH_NONE);
  unload(&l);
}

ETK_TEST(kws_program_through_a_view) {
  uint8_t *pte;
  size_t len;
  etk_error_t err;
  etk_error_clear(&err);
  REQUIRE(etk_kws_model_build(&pte, &len, &err) == ETK_OK);
  loaded_t l;
  REQUIRE(load(pte, len, 0, &l) == ETK_OK);
  check_structure(&l);
  check_chain(l.graph);
  unload(&l);
}

/* x -> add(x, c) -> y; move y -> z; relu(z) -> w; free y */
static uint8_t *move_program(size_t *len) {
  etk_program_builder_t *b = etk_program_builder_new("forward");
  int32_t sizes[1] = {4};
  float c[4] = {1, 2, 3, 4};
  int x = etk_program_builder_add_tensor(b, ETK_BUILDER_FLOAT, 1, sizes, NULL,
                                         ETK_BUILDER_PLANNED, NULL);
  int k = etk_program_builder_add_tensor(b, ETK_BUILDER_FLOAT, 1, sizes, NULL,
                                         ETK_BUILDER_CONSTANT, c);
  int one = etk_program_builder_add_int(b, 1);
  int y = etk_program_builder_add_tensor(b, ETK_BUILDER_FLOAT, 1, sizes, NULL,
                                         ETK_BUILDER_PLANNED, NULL);
  int z = etk_program_builder_add_tensor(b, ETK_BUILDER_FLOAT, 1, sizes, NULL,
                                         ETK_BUILDER_PLANNED, NULL);
  int w = etk_program_builder_add_tensor(b, ETK_BUILDER_FLOAT, 1, sizes, NULL,
                                         ETK_BUILDER_PLANNED, NULL);
  int add = etk_program_builder_add_operator(b, "aten::add", "out");
  int relu = etk_program_builder_add_operator(b, "aten::relu", "out");
  int32_t add_args[5] = {x, k, one, y, y};
  int32_t relu_args[3] = {z, w, w};
  etk_program_builder_kernel_call(b, add, add_args, 5);
  etk_program_builder_move_call(b, y, z);
  etk_program_builder_kernel_call(b, relu, relu_args, 3);
  etk_program_builder_free_call(b, y);
  int32_t in[1] = {x}, out[1] = {w};
  etk_program_builder_set_inputs(b, in, 1);
  etk_program_builder_set_outputs(b, out, 1);
  uint8_t *pte = NULL;
  etk_error_t err;
  etk_error_clear(&err);
  if (etk_program_builder_finish(b, &pte, len, &err) != ETK_OK) pte = NULL;
  etk_program_builder_free(b);
  return pte;
}

ETK_TEST(moves_folded_or_drawn) {
  size_t len;
  uint8_t *pte = move_program(&len);
  REQUIRE(pte != NULL);
  uint8_t *copy = malloc(len);
  REQUIRE(copy != NULL);
  memcpy(copy, pte, len);
  loaded_t folded, drawn;
  REQUIRE(load(pte, len, 0, &folded) == ETK_OK);
  check_structure(&folded);
  /* input0, #0 add, #2 relu, output: the relu reads the add's value */
  CHECK_EQ_U64(etk_graph_node_count(folded.graph), 4);
  check_chain(folded.graph);
  CHECK(etk_graph_instruction_node(folded.graph, 0, 1) == ETK_GRAPH_NONE);
  size_t relu = etk_graph_instruction_node(folded.graph, 0, 2);
  REQUIRE(relu != ETK_GRAPH_NONE);
  const etk_graph_node_t *r = &etk_graph_nodes(folded.graph)[relu];
  CHECK_EQ_STR(r->name, "#2");
  CHECK_EQ_STR(etk_graph_values(folded.graph)[r->args[0].values[0]].name,
               "v3"); /* y, through the move */
  /* the add's literal alpha and folded constant */
  size_t add = etk_graph_instruction_node(folded.graph, 0, 0);
  const etk_graph_node_t *a = &etk_graph_nodes(folded.graph)[add];
  CHECK_EQ_INT(a->args[2].kind, ETK_GRAPH_ARG_INT);
  CHECK_EQ_INT(a->args[2].i, 1);
  CHECK(a->args[1].values[0] == ETK_GRAPH_NONE);
  unload(&folded);

  REQUIRE(load(copy, len, ETK_GRAPH_PROGRAM_ALL_INSTRUCTIONS, &drawn) ==
          ETK_OK);
  /* input0, add, move, relu, free, output */
  CHECK_EQ_U64(etk_graph_node_count(drawn.graph), 6);
  size_t mv = etk_graph_instruction_node(drawn.graph, 0, 1);
  REQUIRE(mv != ETK_GRAPH_NONE);
  const etk_graph_node_t *m = &etk_graph_nodes(drawn.graph)[mv];
  CHECK_EQ_STR(m->op, "move");
  CHECK_EQ_U64(m->input_count, 1);
  CHECK_EQ_U64(m->output_value_count, 1);
  relu = etk_graph_instruction_node(drawn.graph, 0, 2);
  REQUIRE(relu != ETK_GRAPH_NONE);
  r = &etk_graph_nodes(drawn.graph)[relu];
  CHECK_EQ_U64(r->input_count, 1);
  CHECK_EQ_U64(r->inputs[0], mv);
  size_t fr = etk_graph_instruction_node(drawn.graph, 0, 3);
  REQUIRE(fr != ETK_GRAPH_NONE);
  CHECK_EQ_STR(etk_graph_nodes(drawn.graph)[fr].op, "free");
  unload(&drawn);
}

ETK_TEST(errors) {
  etk_graph_t *g = (etk_graph_t *)1;
  etk_error_t err;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_graph_from_program(NULL, NULL, &g, &err),
               ETK_E_INVALID_ARGUMENT);
  CHECK(g == NULL);
  size_t len;
  uint8_t *pte = move_program(&len);
  REQUIRE(pte != NULL);
  etk_program_t *p;
  REQUIRE(etk_program_load(pte, len, NULL, &p, &err) == ETK_OK);
  etk_graph_program_options_t o;
  etk_graph_program_options_default(&o);
  o.method = "backward";
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_graph_from_program(p, &o, &g, &err), ETK_E_NOT_FOUND);
  CHECK(strstr(err.message, "forward") != NULL);
  CHECK(etk_graph_program(NULL) == NULL);
  etk_program_free(p);
  free(pte);
}

/* Upstream's programs (../shared/conformance), read in place. */
static void conformance(const char *path) {
  size_t len;
  uint8_t *bytes = etk_test_read_file(path, &len);
  REQUIRE(bytes != NULL);
  loaded_t l;
  REQUIRE(load(bytes, len, 0, &l) == ETK_OK);
  check_structure(&l);
  unload(&l);
}

ETK_TEST(upstream_add) {
  ETK_CONFORMANCE_PATH(path, "add.pte");
  conformance(path);
}

ETK_TEST(upstream_inline_constants) {
  ETK_CONFORMANCE_PATH(path, "module_linear_inline_constants.pte");
  conformance(path);
}

ETK_TEST_MAIN()
