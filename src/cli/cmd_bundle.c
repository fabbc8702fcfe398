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

static void usage(FILE *out) {
  fprintf(out,
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
          "  --no-expected        store no expected outputs (profiling only)\n"
          "\n"
          "  --max-memory BYTES   most memory a method may take to compute expected\n"
          "                       outputs (suffix K, M, G; default 1G)\n");
}

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
  printf("%s: %zu-byte program extracted\n", out, size);
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
    if (cli_set_input(m, i, ca->input_count ? ca->inputs[i] : NULL, &npy,
                      &ones, &err)) {
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

int etk_cmd_bundle(int argc, char **argv) {
  const char *program = NULL, *out = NULL, *extract_from = NULL;
  static case_args_t cases[MAX_CASES];
  size_t ncases = 1;
  uint64_t max_memory = 0;
  memset(&cases[0], 0, sizeof cases[0]);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    case_args_t *c = &cases[ncases - 1];
    int takes = strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0 ||
                strcmp(a, "--method") == 0 || strcmp(a, "--input") == 0 ||
                strcmp(a, "--expected") == 0 || strcmp(a, "--extract") == 0 ||
                strcmp(a, "--max-memory") == 0;
    if (takes && !v) {
      fprintf(stderr, "etkit bundle: %s needs a value\n", a);
      return 2;
    }
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      return 0;
    } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
      out = argv[++i];
    } else if (strcmp(a, "--extract") == 0) {
      extract_from = argv[++i];
    } else if (strcmp(a, "--method") == 0) {
      c->method = argv[++i];
    } else if (strcmp(a, "--input") == 0 || strcmp(a, "--expected") == 0) {
      int input = a[2] == 'i';
      uint32_t *n = input ? &c->input_count : &c->expected_count;
      if (*n == MAX_VALUES) {
        fprintf(stderr, "etkit bundle: at most %d values per case\n",
                MAX_VALUES);
        return 2;
      }
      (input ? c->inputs : c->expected)[(*n)++] = argv[++i];
    } else if (strcmp(a, "--max-memory") == 0) {
      if (!cli_parse_memory_limit(argv[++i], &max_memory)) {
        fprintf(stderr, "etkit bundle: --max-memory needs a positive byte "
                        "count (suffix K, M, G or T allowed)\n");
        return 2;
      }
    } else if (strcmp(a, "--no-expected") == 0) {
      c->no_expected = 1;
    } else if (strcmp(a, "--case") == 0) {
      if (ncases == MAX_CASES) {
        fprintf(stderr, "etkit bundle: at most %d cases\n", MAX_CASES);
        return 2;
      }
      memset(&cases[ncases++], 0, sizeof cases[0]);
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "etkit bundle: unknown option '%s'\n", a);
      usage(stderr);
      return 2;
    } else if (!program) {
      program = a;
    } else {
      fprintf(stderr, "etkit bundle: more than one program given\n");
      return 2;
    }
  }
  if (extract_from) {
    if (!out || program) {
      usage(stderr);
      return 2;
    }
    return extract(extract_from, out);
  }
  if (!program || !out) {
    usage(stderr);
    return 2;
  }
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
    status = prepare_case(prog, &cases[c], max_memory, &data[c], &specs[c]);
  }
  if (status == 0) {
    uint8_t *bpte = NULL;
    size_t len = 0;
    if (etk_bundled_write(pte, pte_len, specs, ncases, &bpte, &len, &err) ||
        etk_write_file(out, bpte, len, &err)) {
      status = etk_cli_fail_error(CMD, &err);
    } else {
      printf("%s: %zu test case%s, %zu bytes\n", out, ncases,
             ncases == 1 ? "" : "s", len);
    }
    free(bpte);
  }
  for (size_t c = 0; c < prepared; c++) case_data_free(&data[c]);
  etk_program_free(prog);
  free(pte);
  return status;
}
