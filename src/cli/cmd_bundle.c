/*
 * cmd_bundle.c - `etkit bundle`: builds a BundledProgram (.bpte) from a
 * .pte and test cases given as .npy files, or extracts the .pte of a .bpte.
 *
 * Cases are separated by --case.  A case's inputs come from --input files
 * (default: tensors of ones); its expected outputs come from --expected
 * files or, when none are given, from running the program on the
 * reference runtime (upstream computes them by running the eager model).
 * The writer checks every case against the method before writing, and the
 * output file appears only when complete.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "commands.h"
#include "etkit/program.h"
#include "etkit/runtime.h"
#include "run_support.h"

#define CMD "bundle"
#define MAX_CASES 256
#define MAX_VALUES 64

static const char *const usage_text =
    "usage: etkit bundle PROGRAM.pte -o OUT.bpte [case options] "
    "[--case [case options]]...\n"
    "       etkit bundle --extract BUNDLED.bpte -o OUT.pte\n"
    "\n"
    "Wraps a program and test cases into a bundled program (.bpte).\n"
    "\n"
    "case options:\n"
    "  --method NAME        method of this case (default: forward)\n"
    "  --input FILE.npy     an input, once per method input (default: ones)\n"
    "  --expected FILE.npy  an expected output, once per method output\n"
    "                       (default: computed with the reference runtime)\n"
    "  --no-expected        store no expected outputs (profiling only): the\n"
    "                       program is not run, so any program can be bundled\n"
    "  --max-memory BYTES   most memory a method may take to compute expected\n"
    "                       outputs (suffix K, M, G; default 1G)\n"
    "  -h, --help           this help\n";

typedef struct case_args {
  const char *method;
  const char *inputs[MAX_VALUES], *expected[MAX_VALUES];
  uint32_t input_count, expected_count;
  int no_expected;
} case_args_t;

static int extract(const char *in, const char *out) {
  etk_error_t err;
  etk_error_clear(&err);
  etk_bundled_program_t *bp;
  if (etk_bundled_program_load_file(in, NULL, &bp, &err))
    return etk_cli_fail_error(CMD, &err);
  size_t size = bp->program_size;
  int rc = etk_write_file(out, bp->program_data, size, &err);
  etk_bundled_program_free(bp);
  if (rc) return etk_cli_fail_error(CMD, &err);
  etk_cli_say_wrote(CMD, out, "the %zu-byte program", size);
  return 0;
}

static void tensor_from_npy(const etk_npy_t *n, etk_tensor_data_t *t) {
  memset(t, 0, sizeof *t);
  t->tag = ETK_BUNDLED_TENSOR;
  t->scalar_type = n->scalar_type;
  t->dim = n->dim;
  t->sizes = n->sizes;
  t->data = n->data;
  t->nbytes = n->nbytes;
}

/* Everything a case owns while the file is built. */
typedef struct case_data {
  etk_npy_t *npys[2 * MAX_VALUES];
  size_t npy_count;
  etk_tensor_data_t inputs[MAX_VALUES], expected[MAX_VALUES];
  int32_t sizes[2 * MAX_VALUES][ETK_MAX_DIMS];
  uint8_t orders[MAX_VALUES][ETK_MAX_DIMS]; /* the method's input dim orders */
  void *owned[2 * MAX_VALUES];
  size_t owned_count;
} case_data_t;

static void case_data_free(case_data_t *d) {
  for (size_t k = 0; k < d->npy_count; k++) etk_npy_free(d->npys[k]);
  for (size_t k = 0; k < d->owned_count; k++) free(d->owned[k]);
}

/* Fills a case's inputs and expected outputs. */
static int prepare_case(const etk_program_t *prog, const case_args_t *ca,
                        uint64_t max_memory, case_data_t *d,
                        etk_bundled_case_spec_t *spec) {
  etk_error_t err;
  etk_error_clear(&err);
  const char *method = ca->method ? ca->method : "forward";
  memset(spec, 0, sizeof *spec);
  spec->method_name = method;
  etk_method_t *m = NULL;
  int need_run = !ca->no_expected && ca->expected_count == 0;
  etk_method_config_t load;
  memset(&load, 0, sizeof load);
  load.max_memory = max_memory;
  if (etk_method_load_alloc_with(prog, method, &load, &m, &err))
    return etk_cli_fail_error(CMD, &err);
  size_t nin = etk_method_input_count(m), nout = etk_method_output_count(m);
  int status = 0;
  if ((ca->input_count && ca->input_count != nin) || nin > MAX_VALUES ||
      nout > MAX_VALUES) {
    status = etk_cli_fail(CMD, "method '%s' takes %zu inputs, %u --input given",
                          method, nin, ca->input_count);
    goto done;
  }
  for (size_t i = 0; i < nin; i++) {
    etk_npy_t *npy = NULL;
    void *ones = NULL;
    if (cli_set_input(m, i, ca->input_count ? ca->inputs[i] : NULL, &npy, &ones,
                      &err)) {
      etk_npy_free(npy);
      free(ones);
      status = etk_cli_fail_error(CMD, &err);
      goto done;
    }
    const etk_value_t *iv = etk_method_input(m, i);
    etk_tensor_data_t *t = &d->inputs[i];
    memset(t, 0, sizeof *t);
    if (npy) {
      d->npys[d->npy_count++] = npy;
      tensor_from_npy(npy, t);
    } else if (iv->tag == ETK_VALUE_TENSOR) {
      d->owned[d->owned_count++] = ones;
      cli_bundled_tensor(iv->u.tensor, ones, d->sizes[i], t);
    } else {
      free(ones);
      t->tag = iv->tag == ETK_VALUE_INT    ? ETK_BUNDLED_INT
               : iv->tag == ETK_VALUE_BOOL ? ETK_BUNDLED_BOOL
                                           : ETK_BUNDLED_DOUBLE;
      t->i = iv->u.i;
      t->b = iv->u.b;
      t->d = iv->u.d;
    }
  }
  /* The bytes were run in the method's layout (set_input copies them as
   * they are): the case records that dim order, which the reader's check
   * then finds equal to the method's (a channels-last input, for one). */
  for (size_t i = 0; i < nin; i++) {
    const etk_value_t *iv = etk_method_input(m, i);
    if (d->inputs[i].tag != ETK_BUNDLED_TENSOR || iv->tag != ETK_VALUE_TENSOR ||
        d->inputs[i].dim != (uint32_t)iv->u.tensor->dim)
      continue;
    memcpy(d->orders[i], iv->u.tensor->dim_order, sizeof d->orders[i]);
    d->inputs[i].dim_order = d->orders[i];
  }
  spec->inputs = d->inputs;
  spec->input_count = (uint32_t)nin;
  if (ca->expected_count) {
    for (uint32_t k = 0; k < ca->expected_count; k++) {
      etk_npy_t *npy;
      if (etk_npy_read_file(ca->expected[k], &npy, &err)) {
        status = etk_cli_fail_error(CMD, &err);
        goto done;
      }
      d->npys[d->npy_count++] = npy;
      tensor_from_npy(npy, &d->expected[k]);
    }
    spec->expected = d->expected;
    spec->expected_count = ca->expected_count;
  } else if (need_run) {
    if (etk_method_execute(m, &err)) {
      status = etk_cli_fail_error(CMD, &err);
      goto done;
    }
    for (size_t k = 0; k < nout; k++) {
      void *copy = NULL;
      int rc = cli_bundled_output(m, k, d->sizes[MAX_VALUES + k], &copy,
                                  &d->expected[k], &err);
      if (copy) d->owned[d->owned_count++] = copy;
      if (rc != ETK_OK) {
        status = etk_cli_fail_error(CMD, &err);
        goto done;
      }
    }
    spec->expected = d->expected;
    spec->expected_count = (uint32_t)nout;
  }
done:
  etk_method_free(m);
  return status;
}

/* --no-expected: a case's inputs from the program's own description of
 * the method (the .npy files, or ones of each input's dtype and shape):
 * no kernel is resolved and nothing runs, so programs the reference
 * runtime cannot run are bundled too. */
static int prepare_case_unrun(const etk_program_t *prog, const case_args_t *ca,
                              case_data_t *d, etk_bundled_case_spec_t *spec) {
  const char *method = ca->method ? ca->method : "forward";
  memset(spec, 0, sizeof *spec);
  spec->method_name = method;
  const etk_program_plan_t *plan = etk_program_find_plan(prog, method);
  if (!plan) return etk_cli_fail(CMD, "no method '%s' in the program", method);
  uint32_t nin = plan->input_count;
  if ((ca->input_count && ca->input_count != nin) || nin > MAX_VALUES)
    return etk_cli_fail(CMD, "method '%s' takes %u inputs, %u --input given",
                        method, nin, ca->input_count);
  etk_error_t err;
  etk_error_clear(&err);
  for (uint32_t i = 0; i < nin; i++) {
    const etk_program_value_t *v = &plan->values[plan->inputs[i]];
    etk_tensor_data_t *t = &d->inputs[i];
    memset(t, 0, sizeof *t);
    if (v->tag == ETK_VALUE_TENSOR && ca->input_count) {
      etk_npy_t *npy;
      if (etk_npy_read_file(ca->inputs[i], &npy, &err))
        return etk_cli_fail_error(CMD, &err);
      d->npys[d->npy_count++] = npy;
      tensor_from_npy(npy, t);
    } else if (v->tag == ETK_VALUE_TENSOR) {
      const etk_program_tensor_t *pt = v->u.tensor;
      uint64_t numel = 1;
      if (pt->dim > ETK_MAX_DIMS)
        return etk_cli_fail(CMD, "input %u of '%s' has %u dimensions", i,
                            method, pt->dim);
      for (uint32_t k = 0; k < pt->dim; k++) {
        d->sizes[i][k] = pt->sizes[k];
        numel *= (uint64_t)pt->sizes[k];
      }
      void *ones = pt->nbytes <= ((uint64_t)1 << 32)
                       ? cli_ones(pt->scalar_type, (size_t)numel)
                       : NULL;
      if (!ones)
        return etk_cli_fail(CMD, "input %u of '%s': no memory for %llu bytes",
                            i, method, (unsigned long long)pt->nbytes);
      d->owned[d->owned_count++] = ones;
      t->tag = ETK_BUNDLED_TENSOR;
      t->scalar_type = pt->scalar_type;
      t->dim = pt->dim;
      t->sizes = d->sizes[i];
      t->data = ones;
      t->nbytes = pt->nbytes;
    } else {
      t->tag = v->tag == ETK_VALUE_INT    ? ETK_BUNDLED_INT
               : v->tag == ETK_VALUE_BOOL ? ETK_BUNDLED_BOOL
                                          : ETK_BUNDLED_DOUBLE;
      t->i = v->tag == ETK_VALUE_INT ? v->u.i : 0;
      t->b = v->tag == ETK_VALUE_BOOL ? v->u.b : 0;
      t->d = v->tag == ETK_VALUE_DOUBLE ? v->u.d : 0;
    }
  }
  spec->inputs = d->inputs;
  spec->input_count = nin;
  return 0;
}

typedef struct bundle_cli {
  const char *program, *out, *extract_from;
  case_args_t *cases;
  size_t ncases;
  uint64_t max_memory; /* 0: the runtime's default */
} bundle_cli_t;

enum {
  OPT_METHOD = 1,
  OPT_INPUT,
  OPT_EXPECTED,
  OPT_NO_EXPECTED,
  OPT_MAX_MEMORY,
  OPT_CASE,
};

static const etk_cli_option_t options[] = {
    ETK_CLI_STRING("output", 'o', bundle_cli_t, out),
    ETK_CLI_STRING("extract", 0, bundle_cli_t, extract_from),
    {"method", 0, ETK_CLI_VALUE, OPT_METHOD, 0},
    {"input", 0, ETK_CLI_VALUE, OPT_INPUT, 0},
    {"expected", 0, ETK_CLI_VALUE, OPT_EXPECTED, 0},
    {"no_expected", 0, ETK_CLI_NO_VALUE, OPT_NO_EXPECTED, 0},
    {"max_memory", 0, ETK_CLI_VALUE, OPT_MAX_MEMORY, 0},
    {"case", 0, ETK_CLI_NO_VALUE, OPT_CASE, 0},
};

/* One option (case options apply to the last --case); 0 or a status. */
static int apply_option(void *ctx, const etk_cli_parser_t *p, int id) {
  bundle_cli_t *b = ctx;
  case_args_t *c = &b->cases[b->ncases - 1];
  switch (id) {
    case ETK_CLI_POSITIONAL:
      if (b->program) return etk_cli_usage(CMD, "more than one program given");
      b->program = p->value;
      return 0;
    case OPT_METHOD:
      c->method = p->value;
      return 0;
    case OPT_INPUT:
    case OPT_EXPECTED: {
      int input = id == OPT_INPUT;
      uint32_t *n = input ? &c->input_count : &c->expected_count;
      if (*n == MAX_VALUES)
        return etk_cli_usage(CMD, "at most %d values per case", MAX_VALUES);
      (input ? c->inputs : c->expected)[(*n)++] = p->value;
      return 0;
    }
    case OPT_MAX_MEMORY:
      if (!cli_parse_memory_limit(p->value, &b->max_memory))
        return etk_cli_usage(CMD, "%s",
                             "--max-memory needs a positive byte "
                             "count (suffix K, M, G or T allowed)");
      return 0;
    case OPT_NO_EXPECTED:
      c->no_expected = 1;
      return 0;
    case OPT_CASE:
      if (b->ncases == MAX_CASES)
        return etk_cli_usage(CMD, "at most %d cases", MAX_CASES);
      memset(&b->cases[b->ncases++], 0, sizeof b->cases[0]);
      return 0;
  }
  return 0;
}

int etk_cmd_bundle(int argc, char **argv) {
  static case_args_t cases[MAX_CASES];
  bundle_cli_t b = {NULL, NULL, NULL, cases, 1, 0};
  memset(&cases[0], 0, sizeof cases[0]);
  int prc = etk_cli_parse(CMD, usage_text, options, ETK_CLI_COUNT(options),
                          argc, argv, apply_option, &b);
  if (prc) return prc < 0 ? 0 : prc;
  const char *program = b.program, *out = b.out;
  size_t ncases = b.ncases;
  if (b.extract_from && program)
    return etk_cli_usage(CMD, "%s", "--extract takes no PROGRAM");
  if (!out)
    return etk_cli_usage(CMD, "%s",
                         "the following argument is required: -o OUT");
  if (!b.extract_from && !program)
    return etk_cli_usage(CMD, "%s",
                         "the following argument is required: PROGRAM.pte");
  int bad = etk_cli_check_output(CMD, out);
  if (bad) return bad;
  if (b.extract_from) return extract(b.extract_from, out);
  etk_error_t err;
  etk_error_clear(&err);
  uint8_t *pte;
  size_t pte_len;
  if (etk_read_file(program, 0, &pte, &pte_len, &err))
    return etk_cli_fail_error(CMD, &err);
  etk_program_t *prog = NULL;
  if (etk_program_load(pte, pte_len, NULL, &prog, &err)) {
    free(pte);
    etk_error_where(&err, program);
    return etk_cli_fail_error(CMD, &err);
  }
  static case_data_t data[MAX_CASES];
  etk_bundled_case_spec_t specs[MAX_CASES];
  int status = 0;
  size_t prepared = 0;
  for (size_t c = 0; c < ncases && status == 0; c++, prepared++) {
    memset(&data[c], 0, sizeof data[c]);
    status =
        cases[c].no_expected && !cases[c].expected_count
            ? prepare_case_unrun(prog, &cases[c], &data[c], &specs[c])
            : prepare_case(prog, &cases[c], b.max_memory, &data[c], &specs[c]);
  }
  if (status == 0) {
    uint8_t *bpte = NULL;
    size_t len = 0;
    if (etk_bundled_write(pte, pte_len, specs, ncases, &bpte, &len, &err) ||
        etk_write_file(out, bpte, len, &err)) {
      status = etk_cli_fail_error(CMD, &err);
    } else {
      etk_cli_say_wrote(CMD, out, "%zu test case%s, %zu bytes", ncases,
                        ncases == 1 ? "" : "s", len);
    }
    free(bpte);
  }
  for (size_t c = 0; c < prepared; c++) case_data_free(&data[c]);
  etk_program_free(prog);
  free(pte);
  return status;
}
