/*
 * run_support.c - what the CLI's runs share: the recorder they trace into,
 * method inputs from .npy files (or filled with ones, like upstream's
 * executor_runner) and outputs to .npy files; run_print.c prints outputs
 * on the terminal.
 *
 * The recorder is a trace session of the runtime library
 * (etk_trace_session_*, src/runtime/trace_session.c), sized from the
 * program so that nothing is dropped; this file writes its files.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <math.h>
#include <time.h>

#include "etkit/inspector.h"
#include "etkit/recorder.h"
#include "etkit/recorder_calibration.h"
#include "etkit/render.h"
#include "etkit/runtime.h"
#include "run_support.h"

/* ---------------------------------------------------------------- recorder */

int cli_recorder_calibrate(cli_recorder_t *r, etk_error_t *err) {
  /* the arena is sized for the runs: the measurement's scratch is its own */
  size_t size = etk_recorder_calibration_scratch_size(0);
  void *scratch = malloc(size);
  int rc = scratch ? etk_method_calibrate(r->rec, scratch, size, 0, NULL)
                   : ETK_E_NO_MEMORY;
  free(scratch);
  if (rc != ETK_OK)
    return etk_error_set(err, rc, ETK_NO_OFFSET,
                         "cannot calibrate the recorder: %s", etk_strerror(rc));
  return ETK_OK;
}

int cli_recorder_write(cli_recorder_t *r, const char *etdump_path,
                       const char *debug_path, uint32_t *dropped,
                       etk_error_t *err) {
  const uint8_t *data, *debug;
  size_t len, used;
  int rc =
      etk_trace_session_finish(r, &data, &len, &debug, &used, dropped, err);
  if (rc != ETK_OK) return rc;
  if (etdump_path && (rc = etk_write_file(etdump_path, data, len, err)) != 0)
    return rc;
  if (debug_path) {
    rc = etk_write_file(debug_path, debug, used, err);
    if (rc != ETK_OK) return rc;
  }
  return ETK_OK;
}

/* ------------------------------------------------------------------ timing */

double cli_now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int cli_timing_init(cli_timing_t *t, size_t capacity, etk_error_t *err) {
  memset(t, 0, sizeof *t);
  t->seconds = malloc((capacity ? capacity : 1) * 2 * sizeof *t->seconds);
  if (!t->seconds)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                         "out of memory for %zu run times", capacity);
  t->capacity = capacity;
  return ETK_OK;
}

void cli_timing_add(cli_timing_t *t, double seconds) {
  if (t->count < t->capacity) t->seconds[t->count++] = seconds;
}

void cli_timing_print(FILE *out, const cli_timing_t *t, unsigned long warmup) {
  char a[ETK_FORMAT_DOUBLE_MAX], b[ETK_FORMAT_DOUBLE_MAX];
  char c[ETK_FORMAT_DOUBLE_MAX], d[ETK_FORMAT_DOUBLE_MAX];
  etk_stats_t st;
  /* the second half of the array is etk_stats_compute's scratch space */
  if (t->count == 0 ||
      etk_stats_compute(t->seconds, t->count, t->seconds + t->capacity, &st) !=
          ETK_OK)
    return;
  if (t->count > 1 || warmup) {
    fprintf(out, "%zu run%s", t->count, t->count == 1 ? "" : "s");
    if (warmup) fprintf(out, " (+%lu warm-up)", warmup);
    fprintf(out, ": ");
  }
  double per_second;
  const char *unit = etk_duration_unit(st.p50, &per_second);
  etk_format_duration_in(st.p50, per_second, a);
  if (t->count == 1) {
    fprintf(out, "%s %s", a, unit);
    return;
  }
  double var = 0;
  for (size_t i = 0; i < t->count; i++)
    var += (t->seconds[i] - st.avg) * (t->seconds[i] - st.avg);
  etk_format_duration_in(st.min, per_second, b);
  etk_format_duration_in(st.max, per_second, c);
  etk_format_duration_in(sqrt(var / (double)t->count), per_second, d);
  fprintf(out, "median %s %s, min %s %s, max %s %s, stddev %s %s", a, unit, b,
          unit, c, unit, d, unit);
}

void cli_timing_free(cli_timing_t *t) {
  free(t->seconds);
  memset(t, 0, sizeof *t);
}

/* ------------------------------------------------------------------- runs */

int cli_program_open(const char *path, etk_program_t **prog,
                     etk_bundled_program_t **bp, etk_error_t *err) {
  uint8_t *bytes;
  size_t len;
  *prog = NULL;
  *bp = NULL;
  if (etk_read_file(path, 0, &bytes, &len, err)) return 1;
  int rc = etk_file_kind_detect(bytes, len) == ETK_FILE_BPTE
               ? etk_bundled_program_load(bytes, len, NULL, bp, err)
               : etk_program_load(bytes, len, NULL, prog, err);
  free(bytes);
  if (rc) {
    etk_error_where(err, path);
    return 1;
  }
  if (*bp) *prog = (*bp)->program;
  return 0;
}

int cli_debug_path_for(const char *etdump, char *out, size_t size) {
  size_t n = strlen(etdump);
  if (n > 5 && strcmp(etdump + n - 5, ".etdp") == 0) n -= 5;
  if (n + sizeof ".debug.bin" > size) return 1;
  snprintf(out, size, "%.*s.debug.bin", (int)n, etdump);
  return 0;
}

void cli_program_close(etk_program_t *prog, etk_bundled_program_t *bp) {
  if (bp)
    etk_bundled_program_free(bp);
  else
    etk_program_free(prog);
}

void cli_run_source_init(cli_run_source_t *src, const etk_bundled_program_t *bp,
                         uint32_t case_index, const char *const *inputs,
                         size_t input_count) {
  memset(src, 0, sizeof *src);
  src->bp = bp;
  src->case_index = case_index;
  src->inputs = inputs;
  src->input_count = input_count;
}

void cli_run_source_free(cli_run_source_t *src) {
  for (size_t i = 0; i < CLI_MAX_INPUTS; i++) {
    etk_npy_free(src->npys[i]);
    free(src->ones[i]);
    src->npys[i] = NULL;
    src->ones[i] = NULL;
  }
}

int cli_execute_once(etk_method_t *m, cli_run_source_t *src,
                     cli_timing_t *timing, etk_error_t *err) {
  if (src->bp) {
    if (etk_bundled_load_input(m, src->bp, src->case_index, err)) return 1;
  } else {
    cli_run_source_free(src);
    size_t n = etk_method_input_count(m);
    for (size_t i = 0; i < n && i < CLI_MAX_INPUTS; i++)
      if (cli_set_input(m, i, src->input_count ? src->inputs[i] : NULL,
                        &src->npys[i], &src->ones[i], err))
        return 1;
  }
  double t0 = cli_now_seconds();
  if (etk_method_execute(m, err)) return 1;
  if (timing) cli_timing_add(timing, cli_now_seconds() - t0);
  return 0;
}

int cli_write_outputs(const etk_method_t *m, const char *dir,
                      const char *prefix, etk_error_t *err) {
  if (cli_make_dir(dir, err)) return 1;
  for (size_t k = 0; k < etk_method_output_count(m); k++)
    if (cli_write_output(m, k, dir, prefix, err)) return 1;
  return 0;
}

/* ------------------------------------------------------- inputs and outputs */

int cli_parse_memory_limit(const char *s, uint64_t *out) {
  char *end;
  if (!s || *s < '0' || *s > '9') return 0;
  unsigned long long n = strtoull(s, &end, 10);
  unsigned shift = 0;
  if (*end == 'K' || *end == 'k')
    shift = 10;
  else if (*end == 'M' || *end == 'm')
    shift = 20;
  else if (*end == 'G' || *end == 'g')
    shift = 30;
  else if (*end == 'T' || *end == 't')
    shift = 40;
  if (shift) end++;
  if (*end || n == 0 || n > (UINT64_MAX >> shift)) return 0;
  *out = (uint64_t)n << shift;
  return 1;
}

int cli_make_dir(const char *dir, etk_error_t *err) {
  char path[4096];
  size_t n = strlen(dir);
  if (n == 0 || n >= sizeof path)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "bad directory name");
  memcpy(path, dir, n + 1);
  for (size_t i = 1; i <= n; i++) {
    if (path[i] != '/' && path[i] != 0) continue;
    char saved = path[i];
    path[i] = 0;
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
      etk_error_where(err, path);
      return etk_error_set(err, ETK_E_IO, ETK_NO_OFFSET,
                           "cannot create directory: %s", strerror(errno));
    }
    path[i] = saved;
  }
  struct stat st; /* an existing file of that name is not a directory */
  if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
    etk_error_where(err, path);
    return etk_error_set(err, ETK_E_IO, ETK_NO_OFFSET, "not a directory");
  }
  return ETK_OK;
}

/* Writes element k of a tensor of type st as the value one: the
 * little-endian IEEE encodings of 1.0 for the floating types, else the
 * integer one (or true) in the low byte. */
static void fill_one(void *p, int st, size_t k) {
  static const struct {
    int type;
    uint8_t bytes[8];
  } floats[] = {
      {ETK_FLOAT, {0x00, 0x00, 0x80, 0x3F}},
      {ETK_DOUBLE, {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF0, 0x3F}},
      {ETK_HALF, {0x00, 0x3C}},
      {ETK_BFLOAT16, {0x80, 0x3F}},
  };
  size_t e = etk_scalar_type_size(st);
  uint8_t *b = (uint8_t *)p + e * k;
  memset(b, 0, e);
  b[0] = 1;
  for (size_t i = 0; i < sizeof floats / sizeof floats[0]; i++)
    if (floats[i].type == st) memcpy(b, floats[i].bytes, e);
}

void *cli_ones(int scalar_type, size_t n) {
  size_t e = etk_scalar_type_size(scalar_type);
  size_t bytes = e && n <= SIZE_MAX / e ? n * e : SIZE_MAX;
  void *p = bytes == SIZE_MAX ? NULL : malloc(bytes > 0 ? bytes : 1);
  for (size_t k = 0; p && k < n; k++) fill_one(p, scalar_type, k);
  return p;
}

int cli_set_input(etk_method_t *m, size_t i, const char *path, etk_npy_t **keep,
                  void **ones, etk_error_t *err) {
  const etk_value_t *in = etk_method_input(m, i);
  if (!in)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "method has no input %zu", i);
  if (in->tag != ETK_VALUE_TENSOR) {
    /* Scalars are traced into the program: give it its own value. */
    return etk_method_set_input(m, i, in, err);
  }
  etk_tensor_t t = *in->u.tensor;
  memset(t.dim_order, 0, sizeof t.dim_order);
  if (path) {
    int rc = etk_npy_read_file(path, keep, err);
    if (rc != ETK_OK) return rc;
    etk_npy_t *npy = *keep;
    t.scalar_type = npy->scalar_type;
    t.dim = (int32_t)npy->dim;
    for (uint32_t d = 0; d < npy->dim; d++) t.sizes[d] = npy->sizes[d];
    t.data = (void *)(uintptr_t)npy->data;
    t.nbytes = (size_t)npy->nbytes;
  } else {
    size_t n = (size_t)etk_tensor_numel(&t);
    size_t bytes = n * etk_scalar_type_size(t.scalar_type);
    *ones = malloc(bytes ? bytes : 1);
    if (!*ones)
      return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                           "out of memory");
    for (size_t k = 0; k < n; k++) fill_one(*ones, t.scalar_type, k);
    t.data = *ones;
    t.nbytes = bytes;
  }
  etk_value_t v;
  memset(&v, 0, sizeof v);
  v.tag = ETK_VALUE_TENSOR;
  v.u.tensor = &t;
  int rc = etk_method_set_input(m, i, &v, err);
  if (rc != ETK_OK && path) etk_error_where(err, path);
  return rc;
}

int cli_write_output(const etk_method_t *m, size_t i, const char *dir,
                     const char *prefix, etk_error_t *err) {
  const etk_value_t *v = etk_method_output(m, i);
  if (!v || v->tag != ETK_VALUE_TENSOR)
    return etk_error_set(err, ETK_E_UNSUPPORTED, ETK_NO_OFFSET,
                         "output %zu is not a tensor", i);
  const etk_tensor_t *t = v->u.tensor;
  char path[4096];
  snprintf(path, sizeof path, "%s/%soutput_%zu.npy", dir, prefix ? prefix : "",
           i);
  size_t bytes =
      (size_t)etk_tensor_numel(t) * etk_scalar_type_size(t->scalar_type);
  return etk_npy_write_file(path, t->scalar_type, (uint32_t)t->dim, t->sizes,
                            t->data, bytes, err);
}

void cli_bundled_tensor(const etk_tensor_t *t, const void *data, int32_t *sizes,
                        etk_tensor_data_t *out) {
  memset(out, 0, sizeof *out);
  memcpy(sizes, t->sizes, ETK_MAX_DIMS * sizeof *sizes);
  out->tag = ETK_BUNDLED_TENSOR;
  out->scalar_type = t->scalar_type;
  out->dim = (uint32_t)t->dim;
  out->sizes = sizes;
  out->data = data;
  out->nbytes =
      (uint64_t)etk_tensor_numel(t) * etk_scalar_type_size(t->scalar_type);
}

int cli_bundled_output(const etk_method_t *m, size_t i, int32_t *sizes,
                       void **copy, etk_tensor_data_t *out, etk_error_t *err) {
  *copy = NULL;
  const etk_value_t *v = etk_method_output(m, i);
  if (!v || v->tag != ETK_VALUE_TENSOR)
    return etk_error_set(err, ETK_E_UNSUPPORTED, ETK_NO_OFFSET,
                         "output %zu of '%s' is not a tensor", i,
                         etk_method_name(m));
  const etk_tensor_t *t = v->u.tensor;
  size_t bytes =
      (size_t)etk_tensor_numel(t) * etk_scalar_type_size(t->scalar_type);
  *copy = malloc(bytes ? bytes : 1);
  if (!*copy)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  if (bytes) memcpy(*copy, t->data, bytes);
  cli_bundled_tensor(t, *copy, sizes, out);
  return ETK_OK;
}
