/*
 * test_backend.c - the backend interface: registration by id, payload and
 * compile specs at init, method memory, execute on DelegateCall, destroy at
 * free; unknown backends and rejected payloads fail at load; the
 * EtkitMicroBackend parser refuses every malformed payload cleanly.
 */
#include <stdlib.h>
#include <string.h>

#include "etk_test.h"
#include "etkit/program.h"
#include "etkit/runtime.h"
#include "program_testutil.h"
#include "trace_testutil.h"

/* A test backend: doubles its single float input into its output and
 * records what it was given. */
static struct {
  int inits, executes, destroys;
  char payload[64];
  size_t spec_count;
  char spec_key[16];
  size_t memory_size;
  int fail_init;
} seen;

static size_t twice_memory(const uint8_t *payload, size_t len) {
  (void)payload;
  return len * 2;
}

static int twice_init(etk_backend_init_context_t *ctx, const uint8_t *payload,
                      size_t len, void **handle) {
  seen.inits++;
  if (seen.fail_init) {
    snprintf(ctx->message, sizeof ctx->message, "payload refused on purpose");
    return ETK_E_FORMAT;
  }
  snprintf(seen.payload, sizeof seen.payload, "%.*s", (int)len,
           (const char *)payload);
  seen.spec_count = ctx->compile_spec_count;
  if (ctx->compile_spec_count)
    snprintf(seen.spec_key, sizeof seen.spec_key, "%s",
             ctx->compile_specs[0].key);
  seen.memory_size = ctx->memory_size;
  memset(ctx->memory, 0xAB, ctx->memory_size); /* must be writable */
  *handle = ctx->memory;
  return ETK_OK;
}

static int twice_execute(etk_backend_execute_context_t *ctx, void *handle,
                         etk_value_t **args, size_t nargs) {
  (void)handle;
  seen.executes++;
  if (nargs != 2 || args[0]->tag != ETK_VALUE_TENSOR) {
    snprintf(ctx->message, sizeof ctx->message, "bad arguments");
    return ETK_E_INVALID_ARGUMENT;
  }
  const float *in = args[0]->u.tensor->data;
  float *out = args[1]->u.tensor->data;
  for (int64_t k = 0; k < etk_tensor_numel(args[0]->u.tensor); k++)
    out[k] = 2 * in[k];
  return ETK_OK;
}

static void twice_destroy(void *handle) {
  (void)handle;
  seen.destroys++;
}

static const etk_backend_t twice = {"TwiceBackend", twice_memory, twice_init,
                                    twice_execute, twice_destroy};

/* forward(x) -> y as one delegate call to `backend` over payload[0..plen)
 * (one compile spec, mode = 1), loaded from *out (malloc'd; the caller
 * frees it after the program).  NULL when building or loading fails. */
static etk_program_t *build_and_load(const char *backend, const void *payload,
                                     size_t plen, uint8_t **out) {
  etk_program_builder_t *b = etk_program_builder_new("forward");
  int x = ptu_float_vector(b, 3);
  int y = ptu_float_vector(b, 3);
  const char *keys[1] = {"mode"};
  const uint8_t v[1] = {1};
  const uint8_t *vals[1] = {v};
  const uint32_t lens[1] = {1};
  int dg = etk_program_builder_add_delegate(b, backend, payload, plen, keys,
                                            vals, lens, 1);
  int32_t args[2] = {x, y};
  etk_program_builder_delegate_call(b, dg, args, 2);
  size_t len;
  if (ptu_finish_unary(b, x, y, out, &len) != ETK_OK) return NULL;
  return ptu_load(*out, len);
}

ETK_TEST(registry) {
  CHECK(etk_backend_find(ETK_MICRO_BACKEND_ID) == etk_micro_backend());
  CHECK(etk_backend_find("TwiceBackend") == NULL);
  CHECK_EQ_INT(etk_backend_register(&twice), ETK_OK);
  CHECK_EQ_INT(etk_backend_register(&twice), ETK_E_INVALID_STATE);
  CHECK(etk_backend_find("TwiceBackend") == &twice);
  etk_backend_t bad = twice;
  bad.execute = NULL;
  CHECK_EQ_INT(etk_backend_register(&bad), ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_INT(etk_backend_unregister("TwiceBackend"), ETK_OK);
  CHECK_EQ_INT(etk_backend_unregister("TwiceBackend"), ETK_E_NOT_FOUND);
  CHECK(etk_backend_find("TwiceBackend") == NULL);
}

ETK_TEST(custom_backend_lifecycle) {
  REQUIRE(etk_backend_register(&twice) == ETK_OK);
  memset(&seen, 0, sizeof seen);
  uint8_t *d;
  etk_program_t *p = build_and_load("TwiceBackend", "hello payload", 13, &d);
  REQUIRE(p);
  etk_method_t *m;
  etk_error_t err;
  REQUIRE(ttu_load_forward(p, &m, &err) == ETK_OK);
  CHECK_EQ_INT(seen.inits, 1);
  CHECK_EQ_STR(seen.payload, "hello payload");
  CHECK_EQ_INT(seen.spec_count, 1);
  CHECK_EQ_STR(seen.spec_key, "mode");
  CHECK_EQ_U64(seen.memory_size, 26);
  float x[3] = {1, 2, 3};
  REQUIRE(ttu_set_float_input(m, 0, x, 3, &err) == ETK_OK);
  REQUIRE(etk_method_execute(m, &err) == ETK_OK);
  CHECK_EQ_INT(seen.executes, 1);
  const float *o = etk_method_output(m, 0)->u.tensor->data;
  CHECK(o[0] == 2 && o[1] == 4 && o[2] == 6);
  etk_method_free(m);
  CHECK_EQ_INT(seen.destroys, 1);
  /* a failing init is a load error naming the backend and its message */
  seen.fail_init = 1;
  CHECK_EQ_INT(ttu_load_forward(p, &m, &err), ETK_E_FORMAT);
  CHECK_CONTAINS(err.message, "TwiceBackend", "refused on purpose");
  etk_program_free(p);
  free(d);
  etk_backend_unregister("TwiceBackend");
}

ETK_TEST(unknown_backend_fails_at_load) {
  uint8_t *d;
  etk_program_t *p = build_and_load("NoSuchBackend", "x", 1, &d);
  REQUIRE(p);
  etk_method_t *m;
  etk_error_t err;
  CHECK_EQ_INT(ttu_load_forward(p, &m, &err), ETK_E_NOT_FOUND);
  CHECK(strstr(err.message, "NoSuchBackend") != NULL);
  size_t size;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_method_memory_size(p, "forward", &size, &err),
               ETK_E_NOT_FOUND);
  etk_program_free(p);
  free(d);
}

ETK_TEST(micro_backend_rejects_malformed_payloads) {
  uint8_t payload[256];
  etk_micro_graph_t g;
  REQUIRE(etk_micro_graph_init(&g, payload, sizeof payload) == ETK_OK);
  int a = etk_micro_graph_arg(&g, 0), o = etk_micro_graph_arg(&g, 1);
  uint16_t args[3] = {(uint16_t)a, (uint16_t)o, (uint16_t)o};
  etk_micro_graph_op(&g, "aten::relu.out", "r", -1, "md", 2, args, 3, 1);
  /* values after ops are refused by the builder */
  CHECK(etk_micro_graph_int(&g, 1) < 0);
  size_t plen;
  CHECK(etk_micro_graph_finish(&g, &plen) != ETK_OK);
  REQUIRE(etk_micro_graph_init(&g, payload, sizeof payload) == ETK_OK);
  a = etk_micro_graph_arg(&g, 0);
  o = etk_micro_graph_arg(&g, 1);
  etk_micro_graph_op(&g, "aten::relu.out", "r", -1, "md", 2, args, 3, 1);
  REQUIRE(etk_micro_graph_finish(&g, &plen) == ETK_OK);
  const etk_backend_t *mb = etk_micro_backend();
  CHECK(mb->memory_size(payload, plen) > 0);
  /* every truncation and every single-byte change: no crash; truncations
   * are all rejected by memory_size (0) and by init */
  static uint8_t mem[1 << 16];
  for (size_t n = 0; n < plen; n++) {
    CHECK_EQ_U64(mb->memory_size(payload, n), 0);
    etk_backend_init_context_t ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.memory = mem;
    ctx.memory_size = sizeof mem;
    void *h;
    CHECK(mb->init(&ctx, payload, n, &h) != ETK_OK);
    CHECK(ctx.message[0] != 0);
  }
  for (size_t i = 0; i < plen; i++) {
    for (int bit = 0; bit < 8; bit++) {
      uint8_t copy[256];
      memcpy(copy, payload, plen);
      copy[i] ^= (uint8_t)(1u << bit);
      size_t need = mb->memory_size(copy, plen);
      etk_backend_init_context_t ctx;
      memset(&ctx, 0, sizeof ctx);
      ctx.memory = mem;
      ctx.memory_size = need;
      void *h;
      int rc = mb->init(&ctx, copy, plen, &h);
      CHECK((rc == ETK_OK) == (need > 0));
    }
  }
  /* an unknown kernel is named */
  REQUIRE(etk_micro_graph_init(&g, payload, sizeof payload) == ETK_OK);
  a = etk_micro_graph_arg(&g, 0);
  etk_micro_graph_op(&g, "aten::nothing.out", NULL, 1, NULL, 0, args, 1, 0);
  REQUIRE(etk_micro_graph_finish(&g, &plen) == ETK_OK);
  etk_backend_init_context_t ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.memory = mem;
  ctx.memory_size = sizeof mem;
  void *h;
  CHECK_EQ_INT(mb->init(&ctx, payload, plen, &h), ETK_E_FORMAT);
  CHECK(strstr(ctx.message, "aten::nothing.out") != NULL);
}

ETK_TEST(micro_backend_runs_and_checks_arguments) {
  uint8_t payload[256];
  etk_micro_graph_t g;
  etk_micro_graph_init(&g, payload, sizeof payload);
  int a = etk_micro_graph_arg(&g, 0), o = etk_micro_graph_arg(&g, 5);
  uint16_t args[3] = {(uint16_t)a, (uint16_t)o, (uint16_t)o};
  etk_micro_graph_op(&g, "aten::neg.out", NULL, 0, NULL, 0, args, 3, 1);
  size_t plen;
  REQUIRE(etk_micro_graph_finish(&g, &plen) == ETK_OK);
  uint8_t *d;
  etk_program_t *p = build_and_load(ETK_MICRO_BACKEND_ID, payload, plen, &d);
  REQUIRE(p);
  etk_method_t *m;
  etk_error_t err;
  REQUIRE(ttu_load_forward(p, &m, &err) == ETK_OK);
  float x[3] = {1, 2, 3};
  REQUIRE(ttu_set_float_input(m, 0, x, 3, &err) == ETK_OK);
  /* arg 5 does not exist in a 2-argument DelegateCall */
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_method_execute(m, &err), ETK_E_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.message, "EtkitMicroBackend", "delegate argument 5");
  etk_method_free(m);
  etk_program_free(p);
  free(d);
}

ETK_TEST_MAIN()
