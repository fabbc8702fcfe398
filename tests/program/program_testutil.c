/*
 * program_testutil.c - see program_testutil.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "program_testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "etk_test.h"
#include "etkit/backend_micro.h"

const char *ptu_flatc(void) {
  static const char path[] = ETK_FLATC_PATH;
  return path[0] ? path : NULL;
}

char *ptu_flatc_json(const uint8_t *bytes, size_t len, const char *schema,
                     int size_prefixed) {
  const char *flatc = ptu_flatc();
  if (!flatc) return NULL;
  char dir[4096], bin[4200], cmd[16384], json[4300];
  snprintf(dir, sizeof dir, "%s", etk_test_temp_path("flatc"));
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
  if (system(cmd) != 0) return NULL;
  snprintf(bin, sizeof bin, "%s/input.bin", dir);
  FILE *f = fopen(bin, "wb");
  if (!f) return NULL;
  fwrite(bytes, 1, len, f);
  fclose(f);
  snprintf(cmd, sizeof cmd,
           "'%s' --json --strict-json --defaults-json --raw-binary %s -o '%s' "
           "'%s/schema/%s' -- '%s' >'%s/flatc.log' 2>&1",
           flatc, size_prefixed ? "--size-prefixed" : "", dir, ETKIT_SOURCE_DIR,
           schema, bin, dir);
  int rc = system(cmd);
  if (rc != 0) {
    printf("# flatc failed (status %d): %s\n", rc, cmd);
    return NULL;
  }
  snprintf(json, sizeof json, "%s/input.json", dir);
  size_t n;
  char *text = (char *)etk_test_read_file(json, &n);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) printf("# could not remove %s\n", dir);
  return text;
}

int ptu_finish_unary(etk_program_builder_t *b, int32_t x, int32_t y,
                     uint8_t **out, size_t *len) {
  etk_program_builder_set_inputs(b, &x, 1);
  etk_program_builder_set_outputs(b, &y, 1);
  int rc = etk_program_builder_finish(b, out, len, NULL);
  etk_program_builder_free(b);
  return rc;
}

int ptu_load_status(const uint8_t *bytes, size_t len, etk_program_t **p,
                    etk_error_t *err) {
  etk_error_clear(err);
  *p = NULL;
  return etk_program_load(bytes, len, NULL, p, err);
}

etk_program_t *ptu_load(const uint8_t *bytes, size_t len) {
  etk_program_t *p;
  etk_error_t err;
  if (ptu_load_status(bytes, len, &p, &err) != ETK_OK)
    printf("# load: %s\n", err.message);
  return p;
}

etk_bundled_program_t *ptu_load_bundled(const char *path, etk_error_t *err) {
  etk_bundled_program_t *bp = NULL;
  etk_error_clear(err);
  if (etk_bundled_program_load_file(path, NULL, &bp, err) != ETK_OK) {
    printf("# %s: %s\n", path, err->message);
    return NULL;
  }
  return bp;
}

etk_program_builder_t *ptu_builder_with_options(int inline_constants,
                                                int delegates_in_segments) {
  etk_program_builder_t *b = etk_program_builder_new("forward");
  etk_program_builder_options_t opt;
  memset(&opt, 0, sizeof opt);
  opt.inline_constants = inline_constants;
  opt.delegates_in_segments = delegates_in_segments;
  etk_program_builder_set_options(b, &opt);
  return b;
}

int ptu_float_tensor(etk_program_builder_t *b, uint32_t dim,
                     const int32_t *sizes) {
  return etk_program_builder_add_tensor(b, ETK_BUILDER_FLOAT, dim, sizes, NULL,
                                        ETK_BUILDER_PLANNED, NULL);
}

int ptu_float_vector(etk_program_builder_t *b, int32_t n) {
  return ptu_float_tensor(b, 1, &n);
}

void ptu_add_call(etk_program_builder_t *b, int32_t x, int32_t y, int32_t out) {
  int alpha = etk_program_builder_add_int(b, 1);
  int op = etk_program_builder_add_operator(b, "aten::add", "out");
  int32_t args[5] = {x, y, alpha, out, out};
  etk_program_builder_kernel_call(b, op, args, 5);
}

int ptu_build_add(int32_t n, uint8_t **out, size_t *len) {
  etk_program_builder_t *b = etk_program_builder_new("forward");
  int x = ptu_float_vector(b, n);
  int y = ptu_float_vector(b, n);
  int o = ptu_float_vector(b, n);
  ptu_add_call(b, x, y, o);
  int32_t in[2] = {x, y};
  etk_program_builder_set_inputs(b, in, 2);
  etk_program_builder_set_outputs(b, &o, 1);
  int rc = etk_program_builder_finish(b, out, len, NULL);
  etk_program_builder_free(b);
  return rc;
}

int ptu_build_linear(int inline_constants, uint8_t **out, size_t *len) {
  etk_program_builder_t *b = ptu_builder_with_options(inline_constants, 0);
  int32_t sz[2] = {2, 2};
  float three[4] = {3, 3, 3, 3}, two[4] = {2, 2, 2, 2};
  int a = etk_program_builder_add_tensor(b, ETK_BUILDER_FLOAT, 2, sz, NULL,
                                         ETK_BUILDER_CONSTANT, three);
  int c = etk_program_builder_add_tensor(b, ETK_BUILDER_FLOAT, 2, sz, NULL,
                                         ETK_BUILDER_CONSTANT, two);
  int x = ptu_float_tensor(b, 2, sz);
  int t = ptu_float_tensor(b, 2, sz);
  int o = ptu_float_tensor(b, 2, sz);
  int alpha = etk_program_builder_add_int(b, 1);
  int mul = etk_program_builder_add_operator(b, "aten::mul", "out");
  int add = etk_program_builder_add_operator(b, "aten::add", "out");
  int32_t a0[4] = {x, a, t, t}, a1[5] = {t, c, alpha, o, o};
  etk_program_builder_kernel_call(b, mul, a0, 4);
  etk_program_builder_kernel_call(b, add, a1, 5);
  return ptu_finish_unary(b, x, o, out, len);
}

size_t ptu_micro_chain(uint8_t *payload, size_t cap, const int32_t sizes[2],
                       const ptu_micro_step_t steps[2]) {
  etk_micro_graph_t g;
  if (etk_micro_graph_init(&g, payload, cap) != ETK_OK) return 0;
  int a = etk_micro_graph_arg(&g, 0), o = etk_micro_graph_arg(&g, 1);
  int tmp = etk_micro_graph_tensor(&g, ETK_FLOAT, 2, sizes);
  const uint16_t args[2][3] = {{(uint16_t)a, (uint16_t)tmp, (uint16_t)tmp},
                               {(uint16_t)tmp, (uint16_t)o, (uint16_t)o}};
  for (int k = 0; k < 2; k++) {
    const ptu_micro_step_t *st = &steps[k];
    uint16_t meta_len = st->metadata ? (uint16_t)strlen(st->metadata) : 0;
    etk_micro_graph_op(&g, st->name, st->debug_name, st->debug_id, st->metadata,
                       meta_len, args[k], 3, 1);
  }
  size_t len = 0;
  return etk_micro_graph_finish(&g, &len) == ETK_OK ? len : 0;
}

void ptu_micro_delegate(etk_program_builder_t *b, const uint8_t *payload,
                        size_t len, int32_t input, int32_t x, int32_t y) {
  int d = etk_program_builder_add_delegate(b, ETK_MICRO_BACKEND_ID, payload,
                                           len, NULL, NULL, NULL, 0);
  int32_t args[2] = {x, y};
  etk_program_builder_delegate_call(b, d, args, 2);
  etk_program_builder_set_inputs(b, &input, 1);
  etk_program_builder_set_outputs(b, &y, 1);
}

size_t ptu_count(const char *hay, const char *needle) {
  size_t n = 0, k = strlen(needle);
  for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += k) n++;
  return n;
}

void ptu_put_u32(uint8_t *p, uint32_t v) {
  for (int k = 0; k < 4; k++) p[k] = (uint8_t)(v >> (8 * k));
}

void ptu_put_u64(uint8_t *p, uint64_t v) {
  for (int k = 0; k < 8; k++) p[k] = (uint8_t)(v >> (8 * k));
}

long ptu_find(const uint8_t *hay, size_t len, const void *needle, size_t n) {
  for (size_t i = 0; i + n <= len; i++)
    if (memcmp(hay + i, needle, n) == 0) return (long)i;
  return -1;
}

long ptu_patch_u64_vector(uint8_t *bytes, size_t len, const uint64_t *items,
                          uint32_t count, uint32_t index, uint64_t value) {
  uint8_t pattern[4 + 8 * 8];
  if (count > 8 || index >= count) return -1;
  ptu_put_u32(pattern, count);
  for (uint32_t k = 0; k < count; k++)
    ptu_put_u64(pattern + 4 + 8 * k, items[k]);
  long at = ptu_find(bytes, len, pattern, 4 + 8 * (size_t)count);
  if (at >= 0) ptu_put_u64(bytes + at + 4 + 8 * index, value);
  return at;
}

etk_program_t *ptu_finish_load(etk_program_builder_t *b, uint8_t **bytes,
                               size_t *len) {
  etk_error_t err;
  etk_error_clear(&err);
  *bytes = NULL;
  int rc = etk_program_builder_finish(b, bytes, len, &err);
  etk_program_builder_free(b);
  if (rc != ETK_OK) {
    printf("# finish: %s\n", err.message);
    return NULL;
  }
  return ptu_load(*bytes, *len);
}

etk_program_t *ptu_finish_unary_load(etk_program_builder_t *b, int32_t x,
                                     int32_t y, uint8_t **bytes, size_t *len) {
  *bytes = NULL;
  if (ptu_finish_unary(b, x, y, bytes, len) != ETK_OK) {
    printf("# finish failed\n");
    return NULL;
  }
  return ptu_load(*bytes, *len);
}
