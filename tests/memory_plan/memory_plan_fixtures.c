/*
 * memory_plan_fixtures.c - programs with known memory plans, built with
 * the program builder (etkit/program.h), for the memory-plan tests, the
 * Python reference check and the fuzz corpus.  Each builder documents the
 * plan it makes; test_memory_plan.c asserts the exact numbers and
 * reference.py recomputes them independently from flatc's JSON.
 */
#include "memory_plan_fixtures.h"

#include <stdlib.h>
#include <string.h>

#include "program_testutil.h"

/* A float32 tensor of n elements at (mem_id, offset); mem_id 0 = bump. */
static int tensor_at(etk_program_builder_t *b, int32_t n, uint32_t mem_id,
                     uint64_t offset) {
  int v = etk_program_builder_add_tensor(b, ETK_BUILDER_FLOAT, 1, &n, NULL,
                                         ETK_BUILDER_PLANNED, NULL);
  if (mem_id) etk_program_builder_place_tensor(b, v, mem_id, offset);
  return v;
}

/* out = op(in) as an ".out" call: args {in, out, out}. */
static void unary(etk_program_builder_t *b, int op, int in, int out) {
  int32_t args[3] = {in, out, out};
  etk_program_builder_kernel_call(b, op, args, 3);
}

/* Declares the method's inputs and outputs, serialises the program and
 * frees the builder. */
static int finish(etk_program_builder_t *b, const int32_t *inputs,
                  uint32_t input_count, const int32_t *outputs,
                  uint32_t output_count, uint8_t **out, size_t *len) {
  etk_program_builder_set_inputs(b, inputs, input_count);
  etk_program_builder_set_outputs(b, outputs, output_count);
  int rc = etk_program_builder_finish(b, out, len, NULL);
  etk_program_builder_free(b);
  return rc;
}

/* x(0) -relu-> a(1) -relu-> b(2) -relu-> c(3) -relu-> o(4), 64 bytes each,
 * slots 0 and 64 reused in turn: lifetimes x 0..0, a 0..1, b 1..2, c 2..3,
 * o 3..3; buffer 1 = 128 bytes, peak 128 at instruction 0.  With `unsafe`,
 * b sits at 32 (over a while both are live at instruction 1). */
static int chain(int unsafe, uint8_t **out, size_t *len) {
  etk_program_builder_t *b = etk_program_builder_new("forward");
  int x = tensor_at(b, 16, 1, 0), a = tensor_at(b, 16, 1, 64);
  int bb = tensor_at(b, 16, 1, unsafe ? 32 : 0), c = tensor_at(b, 16, 1, 64);
  int o = tensor_at(b, 16, 1, 0);
  int relu = etk_program_builder_add_operator(b, "aten::relu", "out");
  unary(b, relu, x, a);
  unary(b, relu, a, bb);
  unary(b, relu, bb, c);
  unary(b, relu, c, o);
  return finish(b, (int32_t[]){x}, 1, (int32_t[]){o}, 1, out, len);
}

/* x(0) -> a = relu(x) (1) -> b = relu(a) (2) -> o = add(b, x) (3); the
 * residual x lives 0..2.  Bump plan: 0, 64, 128, 192 (256 bytes); an
 * unused planned tensor (5) at 256 has no lifetime. */
static int residual(uint8_t **out, size_t *len) {
  etk_program_builder_t *b = etk_program_builder_new("forward");
  int x = tensor_at(b, 16, 0, 0), a = tensor_at(b, 16, 0, 0);
  int bb = tensor_at(b, 16, 0, 0), o = tensor_at(b, 16, 0, 0);
  int alpha = etk_program_builder_add_int(b, 1);
  (void)tensor_at(b, 4, 0, 0); /* value 5: never referenced */
  int relu = etk_program_builder_add_operator(b, "aten::relu", "out");
  int add = etk_program_builder_add_operator(b, "aten::add", "out");
  unary(b, relu, x, a);
  unary(b, relu, a, bb);
  int32_t args[5] = {bb, x, alpha, o, o};
  etk_program_builder_kernel_call(b, add, args, 5);
  return finish(b, (int32_t[]){x}, 1, (int32_t[]){o}, 1, out, len);
}

/* a = relu(x), c = relu(x), then cat([a, c]) and an optional list
 * [a, None, c] read by instruction 3: a and c live to 3 through the lists. */
static int tensor_lists(uint8_t **out, size_t *len) {
  etk_program_builder_t *b = etk_program_builder_new("forward");
  int x = tensor_at(b, 8, 0, 0), a = tensor_at(b, 8, 0, 0);
  int c = tensor_at(b, 8, 0, 0), o = tensor_at(b, 16, 0, 0);
  int o2 = tensor_at(b, 16, 0, 0);
  int list =
      etk_program_builder_add_tensor_list(b, (int32_t[]){a, c}, 2, false);
  int opt =
      etk_program_builder_add_tensor_list(b, (int32_t[]){a, -1, c}, 3, true);
  int dim = etk_program_builder_add_int(b, 0);
  int relu = etk_program_builder_add_operator(b, "aten::relu", "out");
  int cat = etk_program_builder_add_operator(b, "aten::cat", "out");
  int idx = etk_program_builder_add_operator(b, "aten::index", "Tensor_out");
  unary(b, relu, x, a);
  unary(b, relu, x, c);
  etk_program_builder_kernel_call(b, cat, (int32_t[]){list, dim, o, o}, 4);
  etk_program_builder_kernel_call(b, idx, (int32_t[]){o, opt, o2, o2}, 4);
  return finish(b, (int32_t[]){x}, 1, (int32_t[]){o2}, 1, out, len);
}

/* Two arenas: x and o in mem_id 2 (SRAM-like, 0 and 32), a and c in
 * mem_id 1 at 0 and 64; a delegate call reads a and writes c. */
static int multi_mem_delegate(uint8_t **out, size_t *len) {
  etk_program_builder_t *b = etk_program_builder_new("forward");
  int x = tensor_at(b, 8, 2, 0), a = tensor_at(b, 16, 1, 0);
  int c = tensor_at(b, 16, 1, 64), o = tensor_at(b, 8, 2, 32);
  int relu = etk_program_builder_add_operator(b, "aten::relu", "out");
  int sum = etk_program_builder_add_operator(b, "aten::sum", "IntList_out");
  int d = etk_program_builder_add_delegate(b, "XnnpackBackend", "blob", 4, NULL,
                                           NULL, NULL, 0);
  etk_program_builder_kernel_call(b, relu, (int32_t[]){x, a, a}, 3);
  etk_program_builder_delegate_call(b, d, (int32_t[]){a, c}, 2);
  etk_program_builder_kernel_call(b, sum, (int32_t[]){c, o, o}, 3);
  return finish(b, (int32_t[]){x}, 1, (int32_t[]){o}, 1, out, len);
}

/* v = et_view(x) shares x's bytes (an alias: not an overlap); o = relu(v); then
 * a MoveCall, a forward JumpFalseCall and a FreeCall reference m, so m
 * lives 2..4. */
static int alias_and_control(uint8_t **out, size_t *len) {
  etk_program_builder_t *b = etk_program_builder_new("forward");
  int x = tensor_at(b, 16, 1, 0), v = tensor_at(b, 16, 1, 0);
  int o = tensor_at(b, 16, 1, 64), m = tensor_at(b, 16, 1, 128);
  int sizes = etk_program_builder_add_int_list(b, (int64_t[]){4, 4}, 2);
  int cond = etk_program_builder_add_bool(b, true);
  int view = etk_program_builder_add_operator(b, "executorch_prim::et_view",
                                              "default");
  int relu = etk_program_builder_add_operator(b, "aten::relu", "out");
  etk_program_builder_kernel_call(b, view, (int32_t[]){x, sizes, v}, 3);
  unary(b, relu, v, o);
  etk_program_builder_move_call(b, o, m);
  etk_program_builder_jump_false_call(b, cond, 4);
  etk_program_builder_free_call(b, m);
  return finish(b, (int32_t[]){x}, 1, (int32_t[]){o}, 1, out, len);
}

/* `n` relu calls ping-ponging between two 256-byte slots of mem_id 1,
 * plus a constant-sized side tensor s at 512 live from 0 to the end (an
 * input that is also an output): peak 768 at instruction 0. */
int mpf_build_long_chain(uint32_t n, uint8_t **out, size_t *len) {
  etk_program_builder_t *b = etk_program_builder_new("forward");
  int relu = etk_program_builder_add_operator(b, "aten::relu", "out");
  int s = tensor_at(b, 64, 1, 512);
  int prev = tensor_at(b, 64, 1, 0);
  int first = prev;
  for (uint32_t i = 0; i < n; i++) {
    int next = tensor_at(b, 64, 1, (i % 2) ? 0 : 256);
    unary(b, relu, prev, next);
    prev = next;
  }
  return finish(b, (int32_t[]){first, s}, 2, (int32_t[]){prev, s}, 2, out, len);
}

/* chain() with buffer 1 declared 96 bytes instead of 128: a and c (at 64,
 * 64 bytes) end past it. */
static int invalid(uint8_t **out, size_t *len) {
  int rc = chain(0, out, len);
  if (rc != ETK_OK) return rc;
  uint8_t pattern[20];
  ptu_put_u32(pattern, 2);
  ptu_put_u64(pattern + 4, 0);
  ptu_put_u64(pattern + 12, 128);
  long at = ptu_find(*out, *len, pattern, sizeof pattern);
  if (at < 0) return ETK_E_NOT_FOUND;
  ptu_put_u64(*out + at + 12, 96);
  return ETK_OK;
}

static int long_chain_3000(uint8_t **out, size_t *len) {
  return mpf_build_long_chain(3000, out, len);
}
static int chain_reuse(uint8_t **out, size_t *len) {
  return chain(0, out, len);
}
static int chain_unsafe(uint8_t **out, size_t *len) {
  return chain(1, out, len);
}

const mpf_fixture_t mpf_fixtures[] = {
    {"chain_reuse", chain_reuse},
    {"chain_unsafe", chain_unsafe},
    {"chain_invalid", invalid},
    {"residual", residual},
    {"tensor_lists", tensor_lists},
    {"multi_mem_delegate", multi_mem_delegate},
    {"alias_and_control", alias_and_control},
    {"long_chain", long_chain_3000},
};
const size_t mpf_fixture_count = sizeof mpf_fixtures / sizeof *mpf_fixtures;
