/*
 * firmware_main.c - the etkit firmware: reads a job file over semihosting
 * (its path is the last word of the command line, QEMU's -append), loads
 * the .pte or .bpte it names into the static arena, runs it on etkit's
 * runtime with the recorder on the board's cycle counter, and writes the
 * outputs (.npy), the ETDump and the debug buffer back the same way.
 *
 * Every byte comes from one arena the linker script sizes (__arena_start
 * .. __arena_end): a program that does not fit fails with one error line
 * before anything runs.  Exit status as `etkit run`: 0 ran (and matched),
 * 1 a bundled case did not match under verify, 2 trouble; 3 is a fault
 * (startup.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "board_clock.h"
#include "board_uart.h"
#include "etkit/backend_micro.h"
#include "etkit/method.h"
#include "etkit/program.h"
#include "etkit/recorder_calibration.h"
#include "etkit/runtime.h"
#include "etkit/transport.h"
#include "firmware_job.h"
#include "semihost.h"

extern uint8_t __arena_start[], __arena_end[];

typedef struct bump {
  uint8_t *next, *end;
} bump_t;

static bump_t arena;
static fw_job_t job;
static etk_tx_t tx; /* job.transport: the UART's framing */

static int fail(const char *fmt, ...) {
  char line[320];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line - 1, fmt, ap);
  va_end(ap);
  if (n < 0) n = 0;
  if ((size_t)n > sizeof line - 2) n = (int)sizeof line - 2;
  line[n] = '\n';
  line[n + 1] = 0;
  sh_puts("etkit firmware: ");
  sh_puts(line);
  return 2;
}

static void say(const char *fmt, ...) {
  char line[320];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  sh_puts(line);
}

/* Arena bytes aligned to `align` (a power of two), or NULL when they do
 * not fit. */
static void *take_aligned(size_t n, uintptr_t align) {
  uintptr_t p = ((uintptr_t)arena.next + align - 1u) & ~(align - 1u);
  if (p > (uintptr_t)arena.end || n > (uintptr_t)arena.end - p) return NULL;
  arena.next = (uint8_t *)(p + n);
  return (void *)p;
}

/* 16-byte aligned arena bytes, or NULL when they do not fit. */
static void *take(size_t n) {
  return take_aligned(n, 16);
}

static size_t arena_left(void) {
  uintptr_t p = ((uintptr_t)arena.next + 15u) & ~(uintptr_t)15u;
  return p >= (uintptr_t)arena.end ? 0 : (size_t)((uintptr_t)arena.end - p);
}

static int no_room(const char *what, size_t need) {
  return fail("%s needs %lu bytes, the firmware's arena has %lu left (of %lu)",
              what, (unsigned long)need, (unsigned long)arena_left(),
              (unsigned long)(__arena_end - __arena_start));
}

/* Reads a whole host file into the arena. */
static int read_file(const char *path, uint8_t **data, size_t *len) {
  int fd = sh_open(path, SH_MODE_READ);
  if (fd < 0) return fail("%s: cannot open", path);
  long n = sh_flen(fd);
  if (n < 0) {
    sh_close(fd);
    return fail("%s: cannot read its length", path);
  }
  if (!(*data = take((size_t)n + 1))) {
    sh_close(fd);
    return no_room(path, (size_t)n);
  }
  size_t left = sh_read(fd, *data, (size_t)n);
  sh_close(fd);
  if (left) return fail("%s: short read", path);
  *len = (size_t)n;
  return 0;
}

static int write_file(const char *path, const void *a, size_t alen,
                      const void *b, size_t blen) {
  int fd = sh_open(path, SH_MODE_WRITE);
  if (fd < 0) return fail("%s: cannot create", path);
  size_t left = sh_write(fd, a, alen);
  if (!left && blen) left = sh_write(fd, b, blen);
  sh_close(fd);
  return left ? fail("%s: short write", path) : 0;
}

/* A file for the host: over semihosting to `path`, or framed over the UART
 * named by the path's last part. */
static int emit(etk_tx_kind_t kind, const char *path, const void *a,
                size_t alen, const void *b, size_t blen) {
  if (!job.transport) return write_file(path, a, alen, b, blen);
  const char *slash = strrchr(path, '/');
  const char *name = slash ? slash + 1 : path;
  etk_tx_part_t parts[2] = {{a, alen}, {b, blen}};
  if (etk_tx_send_parts(&tx, kind, name, parts, 2))
    return fail("%s: cannot send over the UART", name);
  return 0;
}

static const char *npy_descr(int type) {
  switch (type) {
    case ETK_SCALAR_TYPE_BYTE:
      return "|u1";
    case ETK_SCALAR_TYPE_CHAR:
      return "|i1";
    case ETK_SCALAR_TYPE_SHORT:
      return "<i2";
    case ETK_SCALAR_TYPE_INT:
      return "<i4";
    case ETK_SCALAR_TYPE_LONG:
      return "<i8";
    case ETK_SCALAR_TYPE_HALF:
      return "<f2";
    case ETK_SCALAR_TYPE_FLOAT:
      return "<f4";
    case ETK_SCALAR_TYPE_DOUBLE:
      return "<f8";
    case ETK_SCALAR_TYPE_BOOL:
      return "|b1";
    default:
      return NULL;
  }
}

/* Output k of the method as DIR/PREFIXoutput_K.npy (NumPy format 1.0). */
static int write_output(const etk_method_t *m, size_t k, const char *prefix) {
  const etk_value_t *v = etk_method_output(m, k);
  if (!v || v->tag != ETK_VALUE_TENSOR) return 0;
  const etk_tensor_t *t = v->u.tensor;
  const char *descr = npy_descr(t->scalar_type);
  if (!descr)
    return fail("output %lu: dtype %d has no .npy form", (unsigned long)k,
                t->scalar_type);
  char header[256], shape[160] = "";
  size_t sl = 0;
  for (int32_t d = 0; d < t->dim; d++)
    sl += (size_t)snprintf(shape + sl, sizeof shape - sl, "%ld,%s",
                           (long)t->sizes[d], d + 1 < t->dim ? " " : "");
  if (t->dim > 1 && sl) shape[sl - 1] = 0; /* "(2, 3)" not "(2, 3,)" */
  int n = snprintf(header + 10, sizeof header - 10,
                   "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }",
                   descr, shape);
  size_t total = 10 + (size_t)n + 1;
  size_t padded = (total + 63) & ~(size_t)63;
  memset(header + 10 + n, ' ', padded - total);
  header[padded - 1] = '\n';
  memcpy(header, "\x93NUMPY\x01\x00", 8);
  header[8] = (char)((padded - 10) & 0xff);
  header[9] = (char)((padded - 10) >> 8);
  char path[300];
  snprintf(path, sizeof path, "%s/%soutput_%lu.npy", job.output_dir, prefix,
           (unsigned long)k);
  return emit(ETK_TX_KIND_OUTPUT, path, header, padded, t->data, t->nbytes);
}

static int write_outputs(const etk_method_t *m, const char *prefix) {
  if (!job.output_dir[0]) return 0;
  for (size_t k = 0; k < etk_method_output_count(m); k++)
    if (write_output(m, k, prefix)) return 2;
  return 0;
}

static void fill_ones(void *data, int type, size_t n) {
  for (size_t k = 0; k < n; k++) switch (type) {
      case ETK_SCALAR_TYPE_FLOAT:
        ((float *)data)[k] = 1.0f;
        break;
      case ETK_SCALAR_TYPE_DOUBLE:
        ((double *)data)[k] = 1.0;
        break;
      case ETK_SCALAR_TYPE_HALF:
        ((uint16_t *)data)[k] = 0x3c00u;
        break;
      case ETK_SCALAR_TYPE_BFLOAT16:
        ((uint16_t *)data)[k] = 0x3f80u;
        break;
      case ETK_SCALAR_TYPE_SHORT:
        ((int16_t *)data)[k] = 1;
        break;
      case ETK_SCALAR_TYPE_INT:
        ((int32_t *)data)[k] = 1;
        break;
      case ETK_SCALAR_TYPE_LONG:
        ((int64_t *)data)[k] = 1;
        break;
      default:
        ((uint8_t *)data)[k] = 1;
        break;
    }
}

/* Sets input i from the .npy at `path` (dtype and shape checked by the host
 * against the program; here the data length), or to ones. */
static int set_input(etk_method_t *m, size_t i, const char *path) {
  const etk_value_t *in = etk_method_input(m, i);
  etk_error_t err;
  etk_error_clear(&err);
  if (!in) return fail("the method has no input %lu", (unsigned long)i);
  if (in->tag != ETK_VALUE_TENSOR) {
    if (etk_method_set_input(m, i, in, &err))
      return fail("input %lu: %s", (unsigned long)i, err.message);
    return 0;
  }
  etk_tensor_t t = *in->u.tensor;
  memset(t.dim_order, 0, sizeof t.dim_order);
  size_t bytes =
      (size_t)etk_tensor_numel(&t) * etk_scalar_type_size(t.scalar_type);
  if (path) {
    uint8_t *data;
    size_t len;
    if (read_file(path, &data, &len)) return 2;
    size_t hl =
        len >= 10 && data[6] == 1 ? 10u + (data[8] | (size_t)data[9] << 8)
        : len >= 12
            ? 12u + (data[8] | (size_t)data[9] << 8 | (size_t)data[10] << 16)
            : len + 1;
    if (len < 10 || memcmp(data, "\x93NUMPY", 6) || hl > len ||
        len - hl != bytes)
      return fail("%s: not a .npy of %lu data bytes (the method's input %lu)",
                  path, (unsigned long)bytes, (unsigned long)i);
    t.data = data + hl;
  } else {
    if (!(t.data = take(bytes ? bytes : 1))) return no_room("an input", bytes);
    fill_ones(t.data, t.scalar_type,
              bytes / (etk_scalar_type_size(t.scalar_type)
                           ? etk_scalar_type_size(t.scalar_type)
                           : 1));
  }
  t.nbytes = bytes;
  etk_value_t v;
  memset(&v, 0, sizeof v);
  v.tag = ETK_VALUE_TENSOR;
  v.u.tensor = &t;
  if (etk_method_set_input(m, i, &v, &err))
    return fail("input %lu: %s", (unsigned long)i, err.message);
  return 0;
}

/* Measures the recorder's own cost on this board (its clock, its code)
 * into the ETDump; the scratch recorder's bytes are given back. */
static int calibrate(etk_recorder_t *rec) {
  uint8_t *mark = arena.next;
  size_t size = etk_recorder_calibration_scratch_size(0);
  void *scratch = take(size);
  if (!scratch) return no_room("the recorder's calibration", size);
  int rc = etk_method_calibrate(rec, scratch, size, 0, NULL);
  arena.next = mark;
  if (rc != ETK_OK)
    return fail("cannot calibrate the recorder: %s", etk_strerror(rc));
  return 0;
}

/* Loads `method` of `prog` into arena memory, traced into `rec` or not. */
static int load_method(const etk_program_t *prog, const char *method,
                       etk_recorder_t *rec, etk_method_t **out) {
  etk_error_t err;
  etk_error_clear(&err);
  size_t arena_size = 0, np = etk_method_planned_count(prog, method);
  if (etk_method_memory_size(prog, method, &arena_size, &err))
    return fail("%s", err.message);
  void **planned = take(np * sizeof *planned + 1);
  size_t *sizes = take(np * sizeof *sizes + 1);
  size_t need = arena_size;
  for (size_t k = 0; k < np; k++)
    need += etk_method_planned_size(prog, method, k) + 15;
  if (!planned || !sizes) return no_room("the method", need);
  for (size_t k = 0; k < np; k++) {
    sizes[k] = etk_method_planned_size(prog, method, k);
    if (!(planned[k] = take(sizes[k] ? sizes[k] : 1)))
      return no_room("the method's planned memory", need);
    memset(planned[k], 0, sizes[k]);
  }
  etk_method_config_t cfg;
  memset(&cfg, 0, sizeof cfg);
  if (!(cfg.arena = take(arena_size))) return no_room("the method", need);
  cfg.arena_size = arena_size;
  cfg.planned_buffers = planned;
  cfg.planned_sizes = sizes;
  cfg.planned_count = np;
  cfg.recorder = rec;
  cfg.no_allocation_events = 1;
  if (etk_method_load(prog, method, &cfg, out, &err))
    return fail("%s: %s", job.program, err.message);
  return 0;
}

static int execute(etk_method_t *m, uint64_t *cycles) {
  etk_error_t err;
  etk_error_clear(&err);
  uint64_t t0 = board_clock_ticks(NULL);
  int rc = etk_method_execute(m, &err);
  *cycles = board_clock_ticks(NULL) - t0;
  return rc ? fail("execute: %s", err.message) : 0;
}

/* newlib-nano's printf has no %llu */
static const char *u64_text(uint64_t v, char buf[24]) {
  char *p = buf + 23;
  *p = 0;
  do *--p = (char)('0' + v % 10);
  while (v /= 10);
  return p;
}

static void print_cycles(uint64_t min, uint64_t sum, unsigned long n) {
  char a[24], b[24];
  say("  cycles per execute: min %s mean %s (%lu run%s)\n", u64_text(min, a),
      u64_text(n ? sum / n : 0, b), n, n == 1 ? "" : "s");
}

static int run_runs(etk_method_t *m, const etk_bundled_program_t *bp,
                    size_t c) {
  etk_error_t err;
  etk_error_clear(&err);
  uint64_t min = UINT64_MAX, sum = 0, cy;
  /* each run's inputs take the previous run's arena bytes: the arena used
   * is the same for any number of runs */
  uint8_t *mark = arena.next;
  for (unsigned long it = 0; it < job.iterations; it++) {
    arena.next = mark;
    if (bp) {
      if (etk_bundled_load_input(m, bp, c, &err))
        return fail("case %lu: %s", (unsigned long)c, err.message);
    } else {
      for (size_t i = 0; i < etk_method_input_count(m); i++)
        if (set_input(m, i, i < job.input_count ? job.inputs[i] : NULL))
          return 2;
    }
    if (execute(m, &cy)) return 2;
    if (cy < min) min = cy;
    sum += cy;
  }
  print_cycles(min, sum, job.iterations);
  return 0;
}

static int warm_up(const etk_program_t *prog, const char *method,
                   const etk_bundled_program_t *bp) {
  if (!job.warmup) return 0;
  uint8_t *mark = arena.next;
  etk_method_t *w = NULL;
  uint64_t cy;
  etk_error_t err;
  etk_error_clear(&err);
  int rc = load_method(prog, method, NULL, &w);
  for (unsigned long k = 0; k < job.warmup && !rc; k++) {
    if (bp)
      rc = etk_bundled_load_input(w, bp, 0, &err) ? fail("%s", err.message) : 0;
    else
      for (size_t i = 0; i < etk_method_input_count(w) && !rc; i++)
        rc = set_input(w, i, i < job.input_count ? job.inputs[i] : NULL);
    if (!rc) rc = execute(w, &cy);
  }
  etk_method_destroy(w);
  arena.next = mark;
  return rc;
}

int main(void) {
  static char cmdline[512];
  arena.next = __arena_start;
  arena.end = __arena_end;
  /* the UART is set up whatever the transport, so that the runs of both
   * transports count the same cycles */
  board_uart_init();
  etk_tx_init(&tx, board_uart_write, NULL);
  /* fewer frames per file (wire overhead); host memory bounds a chunk */
  etk_tx_set_chunk_bytes(&tx, 16384);
  int dwt = board_clock_init();
  (void)etk_backend_register_builtin(etk_micro_backend());
  const char *job_path = "etkit-job.txt";
  if (sh_cmdline(cmdline, sizeof cmdline) == 0) {
    char *last = strrchr(cmdline, ' ');
    if (last && last[1]) job_path = last + 1;
  }
  uint8_t *text;
  size_t text_len;
  if (read_file(job_path, &text, &text_len)) return 2;
  char why[160];
  if (fw_job_parse((char *)text, text_len, &job, why, sizeof why))
    return fail("%s: %s", job_path, why);

  uint8_t *bytes;
  size_t len;
  if (read_file(job.program, &bytes, &len)) return 2;
  etk_program_options_t po;
  memset(&po, 0, sizeof po);
  po.borrow = 1;
  /* half the arena for the parse, the rest for the method and the trace */
  po.arena_size = arena_left() / 2;
  po.arena = take(po.arena_size);
  etk_error_t err;
  etk_error_clear(&err);
  etk_program_t *prog = NULL;
  etk_bundled_program_t *bp = NULL;
  int is_bundled = len >= 8 && memcmp(bytes + 4, "BP", 2) == 0;
  int rc = is_bundled ? etk_bundled_program_load(bytes, len, &po, &bp, &err)
                      : etk_program_load(bytes, len, &po, &prog, &err);
  if (rc) return fail("%s: %s", job.program, err.message);
  if (bp) prog = bp->program;
  const etk_program_plan_t *plan = etk_program_find_plan(prog, "forward");
  if (!plan) plan = etk_program_find_plan(prog, NULL);
  if (!plan) return fail("%s: no method", job.program);
  const char *method = plan->name;
  const etk_bundled_suite_t *suite =
      bp ? etk_bundled_find_suite(bp, method) : NULL;
  if (bp && !suite)
    return fail("the bundled program has no test cases for method '%s'",
                method);
  if (bp && etk_bundled_check(bp, &err)) return fail("%s", err.message);
  unsigned long runs = job.iterations * (suite ? suite->case_count : 1);

  etk_trace_session_t ts;
  memset(&ts, 0, sizeof ts);
  size_t rec_bytes = 0;
  /* stats mode: a latency sketch per event key, the recorder's arena sized
   * from the program alone (the same for any number of runs) */
  int profile = !job.profile_mode ? job.profile_level
                : job.stats_error_ppm
                    ? ETK_TRACE_PROFILE_STATS_AT(job.stats_error_ppm)
                    : ETK_TRACE_PROFILE_STATS;
  if (job.etdump[0]) {
    size_t arena_size = 0, debug_size = 0;
    int want_debug = job.debug_buffer[0] != 0;
    if (etk_trace_session_size(plan, (unsigned)runs, job.debug_level, profile,
                               &arena_size, &debug_size, &err))
      return fail("%s", err.message);
    /* a calibration's marker is reserved on top of the runs' estimate */
    if (job.calibrate) arena_size += ETK_RECORDER_CALIBRATION_BYTES;
    void *ra = take(arena_size);
    /* the recorder aligns logged tensors to 64-byte addresses: a 64-byte
     * aligned buffer makes the bytes independent of where it lies */
    uint8_t *db = want_debug ? take_aligned(debug_size, 64) : NULL;
    if (!ra || (want_debug && !db))
      return no_room("the trace", arena_size + (want_debug ? debug_size : 0));
    if (etk_trace_session_start(plan, (unsigned)runs, job.debug_level, profile,
                                ra, arena_size, db, want_debug ? debug_size : 0,
                                board_clock_ticks, NULL, &ts, &err))
      return fail("%s", err.message);
    if (job.calibrate && calibrate(ts.rec)) return 2;
    rec_bytes = arena_size;
  }
  etk_method_t *m = NULL;
  if (load_method(prog, method, ts.rec, &m)) return 2;
  say("etkit firmware: %s on %s, clock %s\n", method, FIRMWARE_BOARD,
      dwt ? "DWT CYCCNT" : "SysTick");
  if (job.etdump[0])
    say("  recorder: %lu bytes, %s\n", (unsigned long)rec_bytes,
        job.profile_mode ? "stats mode (a latency sketch per event key)"
                         : "every event");
  if (warm_up(prog, method, bp)) return 2;
  int mismatches = 0;
  if (!bp) {
    if (job.input_count && job.input_count != etk_method_input_count(m))
      return fail("method '%s' takes %lu inputs, %lu --input given", method,
                  (unsigned long)etk_method_input_count(m),
                  (unsigned long)job.input_count);
    unsigned long ni = (unsigned long)etk_method_input_count(m),
                  no = (unsigned long)etk_method_output_count(m);
    say("method %s: %lu input%s, %lu output%s\n", method, ni,
        ni == 1 ? "" : "s", no, no == 1 ? "" : "s");
    if (run_runs(m, NULL, 0) || write_outputs(m, "")) return 2;
  } else {
    for (uint32_t c = 0; c < suite->case_count; c++) {
      if (run_runs(m, bp, c)) return 2;
      etk_bundled_result_t r;
      etk_error_t verr;
      etk_error_clear(&verr);
      int vr =
          etk_bundled_verify_outputs(m, bp, c, job.rtol, job.atol, &r, &verr);
      if (!r.has_expected && vr == ETK_OK) {
        say("case %lu: ran (no expected outputs)\n", (unsigned long)c);
      } else {
        say("case %lu: %s  %s\n", (unsigned long)c, r.passed ? "pass" : "FAIL",
            r.passed ? "" : r.message);
        if (!r.passed) mismatches++;
      }
      char prefix[32];
      snprintf(prefix, sizeof prefix, "case%lu_", (unsigned long)c);
      if (write_outputs(m, prefix)) return 2;
    }
  }
  if (job.etdump[0]) {
    const uint8_t *dump, *debug;
    size_t dump_len, debug_len;
    uint32_t dropped = 0;
    /* the time unit for readers: emulated (or real) CPU cycles */
    etk_recorder_begin_block(ts.rec, "etkit:time_scale=cycles");
    if (etk_trace_session_finish(&ts, &dump, &dump_len, &debug, &debug_len,
                                 &dropped, &err))
      return fail("%s", err.message);
    if (emit(ETK_TX_KIND_ETDUMP, job.etdump, dump, dump_len, NULL, 0)) return 2;
    if (job.debug_buffer[0] && emit(ETK_TX_KIND_DEBUG_BUFFER, job.debug_buffer,
                                    debug, debug_len, NULL, 0))
      return 2;
    if (dropped)
      say("etkit firmware: warning: the recorder dropped %lu events\n",
          (unsigned long)dropped);
  }
  etk_method_destroy(m);
  if (job.transport) etk_tx_end_stream(&tx);
  say("etkit firmware: arena %lu of %lu bytes used\n",
      (unsigned long)(arena.next - __arena_start),
      (unsigned long)(__arena_end - __arena_start));
  return job.verify && mismatches ? 1 : 0;
}
