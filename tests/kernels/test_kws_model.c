/*
 * test_kws_model.c - the KeywordSpotting-shaped example program
 * (examples/kws_model) run end to end on the reference runtime, against the
 * values examples/kws_model/make_expected.py computed with numpy from the
 * same weights: the program loads with one planned buffer of 16,000 bytes,
 * runs its sixteen instructions on the built-in input, and gives exactly
 * the expected float output (so every cortex_m:: kernel on the path, the
 * channels-last plan and the [1, 64, 1, 1] -> [1, 64] alias agree with
 * CMSIS-NN's integer arithmetic bit for bit).
 *
 * With ETKIT_UPSTREAM_KWS_DIR defined (CMake cache path
 * ETKIT_UPSTREAM_EXAMPLES_DIR: a folder holding upstream's
 * KeywordSpotting.pte, optionally with its mfcc_<word>.h inputs), the same
 * executable also runs upstream's program: each mfcc header present must
 * be classified as its word.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etk_test.h"
#include "etkit/program.h"
#include "etkit/runtime.h"
#include "kws_model.h"

#define KWS_DIR ETKIT_SOURCE_DIR "/examples/kws_model/"

/* Loads `pte`, runs it on x and copies output 0 (n floats) into y. */
static int run_program(const uint8_t *pte, size_t len, const float *x,
                       const int32_t *sizes, float *y, size_t n,
                       uint64_t *instructions, size_t *planned) {
  etk_program_t *p = NULL;
  etk_method_t *m = NULL;
  etk_error_t err;
  etk_tensor_t t;
  etk_value_t v;
  const etk_value_t *out;
  int rc = etk_program_load(pte, len, NULL, &p, &err);
  if (rc == ETK_OK && planned) {
    *planned = etk_method_planned_count(p, "forward") == 1
                   ? etk_method_planned_size(p, "forward", 0)
                   : 0;
  }
  if (rc == ETK_OK) rc = etk_method_load_alloc(p, "forward", NULL, &m, &err);
  memset(&t, 0, sizeof t);
  t.scalar_type = ETK_FLOAT;
  t.dim = 4;
  memcpy(t.sizes, sizes, 4 * sizeof *sizes);
  t.data = (void *)x;
  t.nbytes = t.capacity_bytes = 490 * sizeof(float);
  memset(&v, 0, sizeof v);
  v.tag = ETK_VALUE_TENSOR;
  v.u.tensor = &t;
  if (rc == ETK_OK) rc = etk_method_set_input(m, 0, &v, &err);
  if (rc == ETK_OK) rc = etk_method_execute(m, &err);
  if (rc != ETK_OK) printf("# %s\n", err.message);
  if (rc == ETK_OK) {
    out = etk_method_output(m, 0);
    if (!out || out->tag != ETK_VALUE_TENSOR ||
        etk_tensor_numel(out->u.tensor) != (int64_t)n)
      rc = ETK_E_INVALID_ARGUMENT;
    else
      memcpy(y, out->u.tensor->data, n * sizeof *y);
    if (instructions) *instructions = etk_method_executed_instructions(m);
  }
  etk_method_free(m);
  etk_program_free(p);
  return rc;
}

static etk_npy_t *read_npy(const char *name) {
  etk_npy_t *n = NULL;
  if (etk_npy_read_file(name, &n, NULL) != ETK_OK) {
    printf("# cannot read %s\n", name);
    return NULL;
  }
  return n;
}

ETK_TEST(kws_model_gives_the_numpy_reference_output) {
  static const int32_t sizes[4] = {1, 1, 49, 10};
  float x[ETK_KWS_MODEL_INPUT_ELEMENTS], y[ETK_KWS_MODEL_OUTPUT_ELEMENTS];
  uint8_t *pte = NULL, *again = NULL;
  size_t len = 0, len2 = 0, planned = 0;
  uint64_t instructions = 0;
  etk_error_t err;
  etk_npy_t *in = read_npy(KWS_DIR "input.npy");
  etk_npy_t *want = read_npy(KWS_DIR "expected_output.npy");
  REQUIRE(in && want);
  REQUIRE(etk_kws_model_build(&pte, &len, &err) == ETK_OK);
  REQUIRE(etk_kws_model_build(&again, &len2, &err) == ETK_OK);
  CHECK(len == len2 && memcmp(pte, again, len) == 0); /* deterministic */
  etk_kws_model_fill_input(x, ETK_KWS_MODEL_INPUT_ELEMENTS);
  CHECK(in->nbytes == sizeof x && memcmp(in->data, x, sizeof x) == 0);
  REQUIRE(run_program(pte, len, x, sizes, y, ETK_KWS_MODEL_OUTPUT_ELEMENTS,
                      &instructions, &planned) == ETK_OK);
  CHECK_EQ_U64(instructions, 16);
  CHECK_EQ_U64(planned, ETK_KWS_MODEL_ARENA_BYTES);
  CHECK(want->nbytes == sizeof y);
  for (size_t k = 0; k < ETK_KWS_MODEL_OUTPUT_ELEMENTS; k++) {
    float e;
    memcpy(&e, want->data + k * sizeof e, sizeof e);
    if (memcmp(&e, &y[k], sizeof e) != 0)
      printf("# output %zu is %.9g, numpy %.9g\n", k, y[k], e);
    CHECK(memcmp(&e, &y[k], sizeof e) == 0);
  }
  /* a different input gives a different answer (the check can fail) */
  x[7] += 90.0f;
  x[300] -= 90.0f;
  {
    float z[ETK_KWS_MODEL_OUTPUT_ELEMENTS];
    REQUIRE(run_program(pte, len, x, sizes, z, ETK_KWS_MODEL_OUTPUT_ELEMENTS,
                        NULL, NULL) == ETK_OK);
    CHECK(memcmp(z, y, sizeof z) != 0);
  }
  free(pte);
  free(again);
  etk_npy_free(in);
  etk_npy_free(want);
}

#ifdef ETKIT_UPSTREAM_KWS_DIR
static uint8_t *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  uint8_t *buf = NULL;
  long n;
  if (!f) return NULL;
  if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 &&
      fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) &&
      fread(buf, 1, (size_t)n, f) == (size_t)n) {
    buf[n] = 0;
    *len = (size_t)n;
  } else {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  return buf;
}

/* The 490 floats between the header's braces; 0 when absent. */
static int read_mfcc(const char *word, float *x) {
  char path[1024], *p, *end;
  size_t len, n = 0;
  uint8_t *text;
  snprintf(path, sizeof path, "%s/mfcc_%s.h", ETKIT_UPSTREAM_KWS_DIR, word);
  text = read_all(path, &len);
  if (!text) return 0;
  p = strchr((char *)text, '{');
  while (p && n < 490) {
    x[n] = strtof(p + 1, &end);
    if (end == p + 1) break;
    n++;
    p = strchr(end, ',');
  }
  free(text);
  return n == 490;
}

ETK_TEST(upstream_keyword_spotting_classifies_its_inputs) {
  static const char *const labels[12] = {"silence", "unknown", "yes",  "no",
                                         "up",      "down",    "left", "right",
                                         "on",      "off",     "stop", "go"};
  static const int32_t sizes[4] = {1, 1, 49, 10};
  float x[490], y[12];
  size_t len = 0;
  int tried = 0;
  uint8_t *pte = read_all(ETKIT_UPSTREAM_KWS_DIR "/KeywordSpotting.pte", &len);
  REQUIRE(pte != NULL);
  for (int k = 0; k < 490; k++) x[k] = 1.0f;
  REQUIRE(run_program(pte, len, x, sizes, y, 12, NULL, NULL) == ETK_OK);
  for (int w = 2; w < 12; w++) {
    int best = 0;
    if (!read_mfcc(labels[w], x)) continue;
    tried++;
    REQUIRE(run_program(pte, len, x, sizes, y, 12, NULL, NULL) == ETK_OK);
    for (int k = 1; k < 12; k++)
      if (y[k] > y[best]) best = k;
    printf("# mfcc_%s.h -> %s\n", labels[w], labels[best]);
    CHECK(best == w);
  }
  printf("# %d mfcc inputs classified\n", tried);
  free(pte);
}
#endif

ETK_TEST_MAIN()
