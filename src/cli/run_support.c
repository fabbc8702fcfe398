/*
 * run_support.c - what the CLI's runs share: the recorder they trace into,
 * method inputs from .npy files (or filled with ones, like upstream's
 * executor_runner), outputs to .npy files and to the terminal.
 *
 * The recorder is sized from the program so that nothing is dropped.  The
 * workload (etk_recorder_workload_t) is counted from the plan: per execute,
 * two operator events per KernelCall, one per other instruction, the method
 * event, the delegate events of EtkitMicroBackend payloads (one per op,
 * read from the payload header) or a generous guess for other backends;
 * with debug logging, the tensors each instruction logs.  The debug buffer
 * is sized the same way from the tensors' planned byte sizes plus the
 * 64-byte alignment of each write.  Should an estimate still be short, the
 * recorder drops and counts (never corrupts), and the caller reports the
 * count.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "etkit/recorder.h"
#include "etkit/runtime.h"
#include "run_support.h"

/* ---------------------------------------------------------------- recorder */

/* Bytes and tensor count value v would log. */
static void value_cost(const etk_program_plan_t *plan, int32_t v,
                       uint64_t *bytes, uint64_t *tensors, uint64_t *scalars) {
  const etk_program_value_t *pv = &plan->values[v];
  if (pv->tag == ETK_VALUE_TENSOR) {
    *bytes += pv->u.tensor->nbytes + 64;
    *tensors += 1;
  } else if (pv->tag == ETK_VALUE_TENSOR_LIST) {
    for (uint32_t k = 0; k < pv->u.tensor_list.count; k++) {
      int32_t item = pv->u.tensor_list.items[k];
      *bytes += plan->values[item].u.tensor->nbytes + 64;
      *tensors += 1;
    }
  } else {
    *scalars += 1;
  }
}

int cli_recorder_create(const etk_program_plan_t *plan, unsigned runs,
                        int debug_level, int profile_level, int want_debug,
                        cli_recorder_t *out, etk_error_t *err) {
  memset(out, 0, sizeof *out);
  if (runs == 0) runs = 1;
  uint64_t prof = 1, deleg = 0, dbg_t = 0, dbg_s = 0, dbg_bytes = 0;
  uint64_t strings = 32, string_bytes = 512;
  for (uint32_t i = 0; i < plan->operator_count; i++) {
    strings++;
    string_bytes += strlen(plan->operators[i].event_name) + 8;
  }
  for (uint32_t c = 0; c < plan->chain_count; c++)
    for (uint32_t i = 0; i < plan->chains[c].instruction_count; i++) {
      const etk_program_instruction_t *x = &plan->chains[c].instructions[i];
      if (x->kind == ETK_INSTR_KERNEL_CALL) {
        prof += 2;
        if (debug_level >= CLI_DEBUG_INTERMEDIATES) {
          uint32_t first, count;
          etk_program_call_outputs(x->args, x->arg_count, &first, &count);
          for (uint32_t k = 0; k < count; k++)
            value_cost(plan, x->args[first + k], &dbg_bytes, &dbg_t, &dbg_s);
        }
      } else if (x->kind == ETK_INSTR_DELEGATE_CALL) {
        prof += 1;
        const etk_program_delegate_t *d = &plan->delegates[x->index];
        uint64_t ops = 64;
        if (d->size >= 8 && memcmp(d->data, "EMB1", 4) == 0)
          ops = (uint64_t)d->data[6] | (uint64_t)d->data[7] << 8;
        deleg += ops;
        strings += ops;
        string_bytes += ops * 48;
        if (debug_level >= CLI_DEBUG_INTERMEDIATES) {
          for (uint32_t k = 0; k < x->arg_count; k++)
            value_cost(plan, x->args[k], &dbg_bytes, &dbg_t, &dbg_s);
          /* delegate intermediate outputs: bounded by the payload's
           * scratch plus the outputs, counted generously */
          dbg_t += ops;
          dbg_bytes += ops * 64;
          if (d->size >= 12 && memcmp(d->data, "EMB1", 4) == 0)
            dbg_bytes += (uint64_t)d->data[8] | (uint64_t)d->data[9] << 8 |
                         (uint64_t)d->data[10] << 16 |
                         (uint64_t)d->data[11] << 24;
        }
      } else {
        prof += 1;
      }
    }
  if (debug_level >= CLI_DEBUG_OUTPUTS)
    for (uint32_t k = 0; k < plan->output_count; k++)
      value_cost(plan, plan->outputs[k], &dbg_bytes, &dbg_t, &dbg_s);
  if (profile_level == CLI_PROFILE_METHOD) prof = 1;

  etk_recorder_workload_t w;
  memset(&w, 0, sizeof w);
  uint64_t r = runs;
  uint64_t nplanned = plan->buffer_size_count ? plan->buffer_size_count - 1 : 0;
#define CLAMP(x) ((x) > 0x3FFFFFFFu ? 0x3FFFFFFFu : (uint32_t)(x))
  w.blocks = CLAMP(r + 1);
  w.profile_events = CLAMP(prof * r + 2);
  w.delegate_events = CLAMP(deleg * r);
  w.delegate_metadata_bytes = CLAMP(deleg * r * 32);
  w.allocators = CLAMP(1 + nplanned);
  w.allocation_events = CLAMP(64 + nplanned);
  w.debug_scalars = CLAMP(dbg_s * r);
  w.debug_tensors = CLAMP(dbg_t * r);
  w.tensor_dims = CLAMP(dbg_t * r * 8);
  w.strings = CLAMP(strings + nplanned);
  w.string_bytes = CLAMP(string_bytes + nplanned * 24);
  etk_recorder_config_t cfg;
  etk_recorder_config_init(&cfg);
  cfg.max_strings = w.strings + 16 > ETK_RECORDER_MAX_STRINGS
                        ? ETK_RECORDER_MAX_STRINGS
                        : w.strings + 16;
  size_t size = etk_recorder_estimate_size(&cfg, &w);
  if (size == 0 || size > ((size_t)1 << 30) - 4096)
    return etk_error_set(err, ETK_E_LIMIT, ETK_NO_OFFSET,
                         "the trace of %u runs would need more than 1 GiB; "
                         "use fewer iterations",
                         runs);
  size += size / 4 + 4096;
  out->arena = aligned_alloc(64, (size + 63) & ~(size_t)63);
  if (!out->arena)
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                         "out of memory for the recorder");
  int rc = etk_recorder_init(&out->rec, out->arena, size, &cfg);
  if (rc != ETK_OK) {
    cli_recorder_free(out);
    return etk_error_set(err, rc, ETK_NO_OFFSET,
                         "cannot start the recorder: %s", etk_strerror(rc));
  }
  etk_recorder_set_debug_level(
      out->rec, debug_level == CLI_DEBUG_NONE ? ETK_DEBUG_LEVEL_NONE
                : debug_level == CLI_DEBUG_OUTPUTS
                    ? ETK_DEBUG_LEVEL_PROGRAM_OUTPUTS
                    : ETK_DEBUG_LEVEL_INTERMEDIATE_OUTPUTS);
  etk_recorder_set_profiling_level(out->rec, profile_level == CLI_PROFILE_METHOD
                                                 ? ETK_PROFILING_METHOD_ONLY
                                                 : ETK_PROFILING_ALL_EVENTS);
  if (want_debug) {
    uint64_t cap = dbg_bytes * r + 4096;
    if (cap > ((uint64_t)1 << 31)) {
      cli_recorder_free(out);
      return etk_error_set(err, ETK_E_LIMIT, ETK_NO_OFFSET,
                           "the debug buffer of %u runs would exceed 2 GiB; "
                           "use fewer iterations",
                           runs);
    }
    out->debug_capacity = (size_t)cap;
    out->debug_buffer =
        aligned_alloc(64, (out->debug_capacity + 63) & ~(size_t)63);
    if (!out->debug_buffer) {
      cli_recorder_free(out);
      return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                           "out of memory for the debug buffer");
    }
    etk_recorder_set_debug_buffer(out->rec, out->debug_buffer,
                                  out->debug_capacity);
  }
  return ETK_OK;
}

int cli_recorder_write(cli_recorder_t *r, const char *etdump_path,
                       const char *debug_path, uint32_t *dropped,
                       etk_error_t *err) {
  const uint8_t *data;
  size_t len;
  int rc = etk_recorder_finish(r->rec, &data, &len);
  if (rc != ETK_OK)
    return etk_error_set(err, rc, ETK_NO_OFFSET, "cannot finish the ETDump: %s",
                         etk_strerror(rc));
  if (dropped) *dropped = etk_recorder_dropped(r->rec);
  if (etdump_path && (rc = etk_write_file(etdump_path, data, len, err)) != 0)
    return rc;
  if (debug_path) {
    size_t used = etk_recorder_debug_buffer_used(r->rec);
    rc = etk_write_file(debug_path, r->debug_buffer, used, err);
    if (rc != ETK_OK) return rc;
  }
  return ETK_OK;
}

void cli_recorder_free(cli_recorder_t *r) {
  if (!r) return;
  free(r->arena);
  free(r->debug_buffer);
  memset(r, 0, sizeof *r);
}

/* ------------------------------------------------------- inputs and outputs */

int cli_parse_memory_limit(const char *s, uint64_t *out) {
  char *end;
  if (!s || *s < '0' || *s > '9') return 0;
  unsigned long long n = strtoull(s, &end, 10);
  unsigned shift = 0;
  if (*end == 'K' || *end == 'k') shift = 10;
  else if (*end == 'M' || *end == 'm') shift = 20;
  else if (*end == 'G' || *end == 'g') shift = 30;
  else if (*end == 'T' || *end == 't') shift = 40;
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
  return ETK_OK;
}

static void fill_one(void *p, int st, size_t k) {
  uint8_t *b = p;
  switch (st) {
  case ETK_FLOAT: { float f = 1.0f; memcpy(b + 4 * k, &f, 4); } break;
  case ETK_DOUBLE: { double d = 1.0; memcpy(b + 8 * k, &d, 8); } break;
  case ETK_HALF: { uint16_t h = 0x3C00; memcpy(b + 2 * k, &h, 2); } break;
  case ETK_BFLOAT16: { uint16_t h = 0x3F80; memcpy(b + 2 * k, &h, 2); } break;
  default: {
    size_t e = etk_scalar_type_size(st);
    memset(b + e * k, 0, e);
    b[e * k] = 1; /* little-endian integer one, or true */
  }
  }
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
      return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
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
  size_t bytes = (size_t)etk_tensor_numel(t) * etk_scalar_type_size(t->scalar_type);
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

static void print_element(FILE *out, const void *data, int st, size_t k) {
  const uint8_t *p = data;
  switch (st) {
  case ETK_FLOAT: { float f; memcpy(&f, p + 4 * k, 4); fprintf(out, "%g", f); } break;
  case ETK_DOUBLE: { double d; memcpy(&d, p + 8 * k, 8); fprintf(out, "%g", d); } break;
  case ETK_BOOL: fprintf(out, "%s", p[k] ? "true" : "false"); break;
  case ETK_BYTE: fprintf(out, "%u", p[k]); break;
  case ETK_CHAR: fprintf(out, "%d", (int8_t)p[k]); break;
  case ETK_SHORT: { int16_t x; memcpy(&x, p + 2 * k, 2); fprintf(out, "%d", x); } break;
  case ETK_INT: { int32_t x; memcpy(&x, p + 4 * k, 4); fprintf(out, "%d", x); } break;
  case ETK_LONG: { int64_t x; memcpy(&x, p + 8 * k, 8); fprintf(out, "%lld", (long long)x); } break;
  default: fprintf(out, "?");
  }
}

void cli_print_value(FILE *out, const etk_method_t *m, size_t output,
                     size_t max_values) {
  const etk_value_t *v = etk_method_output(m, output);
  if (!v) return;
  switch (v->tag) {
  case ETK_VALUE_INT: fprintf(out, "Int %lld", (long long)v->u.i); return;
  case ETK_VALUE_DOUBLE: fprintf(out, "Double %g", v->u.d); return;
  case ETK_VALUE_BOOL: fprintf(out, "Bool %s", v->u.b ? "true" : "false"); return;
  case ETK_VALUE_TENSOR: break;
  default: fprintf(out, "%s", etk_program_tag_name(v->tag)); return;
  }
  const etk_tensor_t *t = v->u.tensor;
  fprintf(out, "%s [", etk_scalar_type_name(t->scalar_type));
  for (int32_t d = 0; d < t->dim; d++)
    fprintf(out, "%s%d", d ? ", " : "", t->sizes[d]);
  fprintf(out, "] = [");
  size_t n = (size_t)etk_tensor_numel(t);
  for (size_t k = 0; k < n && k < max_values && t->data; k++) {
    if (k) fprintf(out, ", ");
    print_element(out, t->data, t->scalar_type, k);
  }
  if (n > max_values) fprintf(out, ", ...");
  fprintf(out, "]");
}
