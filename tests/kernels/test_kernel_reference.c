/*
 * test_kernel_reference.c - every case of tests/kernels/reference/cases.txt
 * (made by make_reference.py with PyTorch, checked in as .npy) run through
 * the kernel registry and compared with PyTorch's outputs.
 *
 * cases_cortex_m.txt (make_cortex_m.py, numpy only) does the same for the
 * cortex_m:: kernels against CMSIS-NN's integer formulas, with tolerance 0.
 *
 * A case line is `name|kernel|tolerance|tokens`; each token is one kernel
 * argument in schema order (see the script's header).  Inputs are read with
 * etkit's .npy reader; outputs are tensors of the expected shape and dtype
 * (static shapes, so a kernel that computes another shape fails to resize),
 * filled with a poison value first.  Floating outputs must match within the
 * case's absolute+relative tolerance (NaN only where PyTorch has NaN),
 * integer ones exactly.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etk_test.h"
#include "etkit/kernels.h"
#include "etkit/program.h"

#define REF_DIR ETKIT_SOURCE_DIR "/tests/kernels/reference/"
#define MAX_VALUES 64
#define MAX_ITEMS 64

typedef struct ref_case {
  etk_value_t values[MAX_VALUES];
  etk_value_t *args[MAX_VALUES];
  etk_tensor_t tensors[MAX_VALUES];
  etk_npy_t *npy[MAX_VALUES]; /* inputs and expected outputs */
  void *out_data[MAX_VALUES]; /* out buffers, per value */
  int expect_of[MAX_VALUES];  /* value -> npy index, -1 */
  int64_t items[MAX_VALUES][MAX_ITEMS];
  double doubles[MAX_VALUES];
  size_t nvalues, nargs, nnpy;
  char strings[MAX_VALUES][32];
} ref_case_t;

static etk_npy_t *load_npy(ref_case_t *c, const char *name) {
  char path[512];
  etk_npy_t *n = NULL;
  snprintf(path, sizeof path, REF_DIR "%s.npy", name);
  if (etk_npy_read_file(path, &n, NULL) != ETK_OK || c->nnpy >= MAX_VALUES) {
    printf("# cannot read %s\n", path);
    etk_npy_free(n);
    return NULL;
  }
  c->npy[c->nnpy++] = n;
  return n;
}

static int new_value(ref_case_t *c) {
  if (c->nvalues >= MAX_VALUES) return -1;
  memset(&c->values[c->nvalues], 0, sizeof c->values[0]);
  c->expect_of[c->nvalues] = -1;
  return (int)c->nvalues++;
}

/* A tensor value over the npy's data (input) or over a fresh poisoned
 * buffer of its shape (output).  `nhwc`: the npy holds the channels-last
 * memory [N, H, W, C] of a logical [N, C, H, W] tensor (dim order 0,2,3,1),
 * as upstream's Cortex-M programs lay out their activations. */
static int tensor_value_as(ref_case_t *c, const char *name, int is_out,
                           int nhwc) {
  etk_npy_t *n = load_npy(c, name);
  int v = new_value(c);
  etk_tensor_t *t;
  if (!n || v < 0) return -1;
  t = &c->tensors[v];
  memset(t, 0, sizeof *t);
  t->scalar_type = n->scalar_type;
  t->dim = (int32_t)n->dim;
  for (uint32_t d = 0; d < n->dim; d++) {
    t->sizes[d] = n->sizes[d];
    t->dim_order[d] = (uint8_t)d;
  }
  if (nhwc && n->dim == 4) {
    static const uint8_t order[4] = {0, 2, 3, 1};
    for (int d = 0; d < 4; d++) {
      t->dim_order[d] = order[d];
      t->sizes[order[d]] = n->sizes[d];
    }
  }
  etk_tensor_update_strides(t);
  if (is_out) {
    c->out_data[v] = malloc(n->nbytes ? n->nbytes : 1);
    if (!c->out_data[v]) return -1;
    memset(c->out_data[v], 0x7f, n->nbytes);
    t->data = c->out_data[v];
    c->expect_of[v] = (int)c->nnpy - 1;
  } else {
    t->data = (void *)n->data;
  }
  t->capacity_bytes = n->nbytes;
  c->values[v].tag = ETK_VALUE_TENSOR;
  c->values[v].u.tensor = t;
  return v;
}

static int tensor_value(ref_case_t *c, const char *name, int is_out) {
  return tensor_value_as(c, name, is_out, 0);
}

/* The comma-separated tensors of a list token (`-` = None). */
static int list_value(ref_case_t *c, char *names, int is_out, int optional) {
  int v = new_value(c);
  size_t n = 0;
  if (v < 0) return -1;
  for (char *tok = strtok(names, ","); tok && n < MAX_ITEMS;
       tok = strtok(NULL, ",")) {
    int item = -1;
    if (strcmp(tok, "-") != 0 && (item = tensor_value(c, tok, is_out)) < 0)
      return -1;
    c->items[v][n++] = item;
  }
  c->values[v].tag =
      optional ? ETK_VALUE_OPTIONAL_TENSOR_LIST : ETK_VALUE_TENSOR_LIST;
  c->values[v].u.tensor_list.items = c->items[v];
  c->values[v].u.tensor_list.count = n;
  return v;
}

/* Boxed int list: each item is an Int value of its own. */
static int int_list_value(ref_case_t *c, char *text) {
  int64_t nums[MAX_ITEMS];
  size_t n = 0;
  int v;
  for (char *tok = strtok(text, ","); tok && n < MAX_ITEMS;
       tok = strtok(NULL, ","))
    nums[n++] = strtoll(tok, NULL, 10);
  v = new_value(c);
  if (v < 0) return -1;
  for (size_t k = 0; k < n; k++) {
    int iv = new_value(c);
    if (iv < 0) return -1;
    c->values[iv].tag = ETK_VALUE_INT;
    c->values[iv].u.i = nums[k];
    c->items[v][k] = iv;
  }
  c->values[v].tag = ETK_VALUE_INT_LIST;
  c->values[v].u.int_list.items = c->items[v];
  c->values[v].u.int_list.count = n;
  c->values[v].u.int_list.scratch = c->items[v] + MAX_ITEMS / 2;
  return n <= MAX_ITEMS / 2 ? v : -1;
}

/* One token into one argument; returns the value index or -1. */
static int token_value(ref_case_t *c, char *tok) {
  int v;
  if (tok[0] == '=') {
    size_t k = strtoul(tok + 1, NULL, 10);
    return k < c->nargs ? (int)(c->args[k] - c->values) : -1;
  }
  if (strncmp(tok, "t:", 2) == 0) return tensor_value(c, tok + 2, 0);
  if (strncmp(tok, "o:", 2) == 0) return tensor_value(c, tok + 2, 1);
  if (strncmp(tok, "tcl:", 4) == 0) return tensor_value_as(c, tok + 4, 0, 1);
  if (strncmp(tok, "ocl:", 4) == 0) return tensor_value_as(c, tok + 4, 1, 1);
  if (strncmp(tok, "tl:", 3) == 0) return list_value(c, tok + 3, 0, 0);
  if (strncmp(tok, "ol:", 3) == 0) return list_value(c, tok + 3, 1, 0);
  if (strncmp(tok, "otl:", 4) == 0) return list_value(c, tok + 4, 0, 1);
  if (strncmp(tok, "l:", 2) == 0) return int_list_value(c, tok + 2);
  if ((v = new_value(c)) < 0) return -1;
  switch (tok[0]) {
    case 'i':
      c->values[v].tag = ETK_VALUE_INT;
      c->values[v].u.i = strtoll(tok + 2, NULL, 10);
      return v;
    case 'd':
      c->values[v].tag = ETK_VALUE_DOUBLE;
      c->values[v].u.d = strtod(tok + 2, NULL);
      return v;
    case 'b':
      c->values[v].tag = ETK_VALUE_BOOL;
      c->values[v].u.b = tok[2] == '1';
      return v;
    case 's':
      snprintf(c->strings[v], sizeof c->strings[v], "%.31s", tok + 2);
      c->values[v].tag = ETK_VALUE_STRING;
      c->values[v].u.string.data = c->strings[v];
      c->values[v].u.string.len = strlen(c->strings[v]);
      return v;
    case 'n':
      c->values[v].tag = ETK_VALUE_NONE;
      return v;
    default:
      return -1;
  }
}

/* Compares the out tensor of value v with its expected npy. */

/* Element k of a tensor's bytes as a double; the .npy data need not be
 * aligned, so it is copied out rather than read through a cast. */
static double element_at(const void *data, int scalar_type, uint64_t k) {
  const uint8_t *p = data;
  switch (scalar_type) {
    case ETK_FLOAT: {
      float v;
      memcpy(&v, p + k * sizeof v, sizeof v);
      return v;
    }
    case ETK_LONG: {
      int64_t v;
      memcpy(&v, p + k * sizeof v, sizeof v);
      return (double)v;
    }
    case ETK_INT: {
      int32_t v;
      memcpy(&v, p + k * sizeof v, sizeof v);
      return v;
    }
    default: {
      int8_t v;
      memcpy(&v, p + k * sizeof v, sizeof v);
      return v;
    }
  }
}

static int compare_out(const ref_case_t *c, int v, double tol,
                       const char *name) {
  const etk_npy_t *e = c->npy[c->expect_of[v]];
  const etk_tensor_t *t = &c->tensors[v];
  size_t esz = etk_scalar_type_size(e->scalar_type);
  uint64_t n = esz ? e->nbytes / esz : 0;
  int bad = 0;
  if (t->dim != (int32_t)e->dim) {
    printf("# %s: out has %d dims, PyTorch %u\n", name, t->dim, e->dim);
    return 0;
  }
  for (uint64_t k = 0; k < n && bad < 3; k++) {
    double got, want;
    if (e->scalar_type == ETK_FLOAT || e->scalar_type == ETK_LONG ||
        e->scalar_type == ETK_INT || e->scalar_type == ETK_CHAR) {
      got = element_at(t->data, e->scalar_type, k);
      want = element_at(e->data, e->scalar_type, k);
    } else {
      got = memcmp((const uint8_t *)t->data + k * esz, e->data + k * esz, esz);
      want = 0;
    }
    if (isnan(want) ? !isnan(got)
                    : !(fabs(got - want) <= tol + tol * fabs(want))) {
      printf("# %s: element %llu is %.9g, PyTorch %.9g\n", name,
             (unsigned long long)k, got, want);
      bad++;
    }
  }
  return bad == 0;
}

static void free_case(ref_case_t *c) {
  for (size_t k = 0; k < c->nnpy; k++) etk_npy_free(c->npy[k]);
  for (size_t k = 0; k < c->nvalues; k++) free(c->out_data[k]);
}

static char g_message[256]; /* the last kernel failure's message */

/* Runs one manifest line; returns 1 on success. */
static int run_case(char *line) {
  static ref_case_t c;
  char *name = strtok(line, "|"), *kernel = strtok(NULL, "|");
  char *tol_s = strtok(NULL, "|"), *rest = strtok(NULL, "\n");
  const etk_kernel_entry_t *k;
  etk_kernel_context_t ctx;
  int ok = 1, rc;
  if (!name || !kernel || !tol_s || !rest) return 0;
  memset(&c, 0, sizeof c);
  k = etk_kernel_find(kernel);
  if (!k) {
    printf("# %s: no kernel %s\n", name, kernel);
    return 0;
  }
  while (*rest) {
    char buf[512], *tok = buf;
    size_t len = strcspn(rest, " ");
    int v;
    snprintf(buf, sizeof buf, "%.*s", (int)len, rest);
    rest += len;
    while (*rest == ' ') rest++;
    if (len == 0) continue;
    v = token_value(&c, buf);
    if (v < 0 || c.nargs >= MAX_VALUES) {
      printf("# %s: bad token %s\n", name, tok);
      free_case(&c);
      return 0;
    }
    c.args[c.nargs++] = &c.values[v];
  }
  memset(&ctx, 0, sizeof ctx);
  ctx.values = c.values;
  ctx.value_count = c.nvalues;
  rc = k->check ? k->check(&ctx, c.args, c.nargs) : ETK_OK;
  if (rc == ETK_OK) rc = k->fn(&ctx, c.args, c.nargs);
  if (rc != ETK_OK) {
    printf("# %s: %s failed: %s\n", name, kernel, ctx.message);
    snprintf(g_message, sizeof g_message, "%s", ctx.message);
    ok = 0;
  }
  for (size_t v = 0; ok && v < c.nvalues; v++)
    if (c.expect_of[v] >= 0 && !compare_out(&c, (int)v, atof(tol_s), name))
      ok = 0;
  free_case(&c);
  return ok;
}

/* Runs every case of one manifest; returns the number of cases and adds
 * the failures to *failed. */
static int run_manifest(const char *path, int *failed) {
  FILE *f = fopen(path, "r");
  char line[4096];
  int cases = 0;
  if (!f) {
    printf("# cannot open %s\n", path);
    return 0;
  }
  while (fgets(line, sizeof line, f)) {
    char name[64];
    if (line[0] == '\n' || line[0] == '#') continue;
    snprintf(name, sizeof name, "%.*s", (int)strcspn(line, "|"), line);
    cases++;
    if (!run_case(line)) {
      printf("# case %s FAILED\n", name);
      (*failed)++;
    }
  }
  fclose(f);
  return cases;
}

ETK_TEST(every_case_matches_pytorch) {
  int failed = 0, cases = run_manifest(REF_DIR "cases.txt", &failed);
  printf("# %d reference cases, %d failed\n", cases, failed);
  CHECK(cases >= 50);
  CHECK_EQ_INT(failed, 0);
}

/* cases_cortex_m.txt (make_cortex_m.py): the cortex_m:: kernels against
 * CMSIS-NN's integer formulas, exactly. */
ETK_TEST(every_cortex_m_case_matches_cmsis_nn) {
  int failed = 0, cases = run_manifest(REF_DIR "cases_cortex_m.txt", &failed);
  printf("# %d cortex_m cases, %d failed\n", cases, failed);
  CHECK(cases >= 22);
  CHECK_EQ_INT(failed, 0);
}

ETK_TEST(a_wrong_answer_is_caught) {
  /* the comparison itself can fail: relu's expected output against the
   * input (which has negative values) must not match */
  char line[] = "relu_vs_input|aten::relu.out|1e-6|t:relu_in0 o:relu_in0 =1";
  CHECK(run_case(line) == 0);
}

ETK_TEST(a_wrong_cortex_m_answer_is_caught) {
  /* the depthwise case with input_offset 16 instead of 17: one unit of
   * offset must change some requantized output */
  char line[] =
      "cm_dw_off|cortex_m::quantized_depthwise_conv2d.out|0|tcl:cm_dw_in0 "
      "t:cm_dw_in1 t:cm_dw_in2 l:2,1 l:1,2 l:1,2 i:3 i:16 i:-20 t:cm_dw_in3 "
      "t:cm_dw_in4 i:-128 i:100 n ocl:cm_dw_out0 =14";
  CHECK(run_case(line) == 0);
}

/* Runs a case the kernel must refuse with a message containing `want`. */
static int refused(const char *text, const char *want) {
  char line[1024];
  snprintf(line, sizeof line, "%s", text);
  g_message[0] = 0;
  if (run_case(line)) return 0;
  if (!strstr(g_message, want)) {
    printf("# expected \"%s\" in \"%s\"\n", want, g_message);
    return 0;
  }
  return 1;
}

ETK_TEST(cortex_m_kernels_refuse_bad_arguments) {
  /* a requantization shift CMSIS-NN cannot apply */
  CHECK(
      refused("bad|cortex_m::quantized_mul.out|0|tcl:cm_add_in0 i:4 "
              "tcl:cm_add_in1 i:-6 i:7 i:1000 i:40 ocl:cm_mul_out0 =7",
              "output_shift 40 is outside [-31, 31]"));
  /* per-channel tables of the wrong length (the conv has 4 channels) */
  CHECK(
      refused("bad|cortex_m::quantized_conv2d.out|0|tcl:cm_conv2d_in0 "
              "t:cm_conv2d_in1 t:cm_conv2d_in2 l:2,1 l:1,1 l:1,2 i:5 i:-7 "
              "t:cm_dw_in3 t:cm_dw_in4 i:-100 i:110 n ocl:cm_conv2d_out0 "
              "=13",
              "need 4 items"));
  /* a depth multiplier the weight does not have */
  CHECK(
      refused("bad|cortex_m::quantized_depthwise_conv2d.out|0|"
              "tcl:cm_dw_in0 t:cm_dw_in1 t:cm_dw_in2 l:2,1 l:1,2 l:1,2 i:2 "
              "i:17 i:-20 t:cm_dw_in3 t:cm_dw_in4 i:-128 i:100 n "
              "ocl:cm_dw_out0 =14",
              "depth_multiplier 2"));
  /* pad needs 4-item lists; softmax CMSIS-NN's output zero point */
  CHECK(
      refused("bad|cortex_m::pad.out|0|t:cm_pad3_in0 l:0,1,0 l:0,0,2,1 i:5 "
              "o:cm_pad3_out0 =4",
              "4-item pre_pad"));
  CHECK(
      refused("bad|cortex_m::softmax.out|0|t:cm_softmax_in0 i:-1 i:0 i:0 "
              "i:1717986918 i:23 i:-128 o:cm_softmax_out0 =7",
              "output_zero_point must be -128"));
  /* an int8 kernel refuses float tensors before running */
  CHECK(
      refused("bad|cortex_m::quantized_linear.out|0|t:cm_quant_in0 "
              "t:cm_linear_in1 n n i:0 i:0 i:0 l:1 l:0 i:127 i:-128 "
              "o:cm_linear_out0 =11",
              "dtype"));
}

ETK_TEST_MAIN()
