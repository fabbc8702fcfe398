/*
 * bench_analysis.c - how fast the analyses are on large ETDumps: the
 * Chrome-trace export (with and without args), the A/B diff of a dump with
 * itself, and the HTML report (default caps), each written to /dev/null.
 *
 * Dumps come from bench/inspector's generator ("repeat": runs of 49
 * nested events, 24 operators under OPERATOR_CALL under Method::execute;
 * "wide": one run of N distinct events).  Every step is timed in wall and
 * process-CPU time (the machine may be shared: the CPU figure is what an
 * idle machine shows as wall time).  Output: "<name> <value> <unit>".
 *
 *   bench_analysis            1M events of each shape
 *   bench_analysis --quick    100k events of each shape
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_clock.h"
#include "etdump_generator.h"
#include "etkit/inspector.h"

typedef struct timing {
  double w, c;
} timing_t;

static timing_t start(void) {
  timing_t t = {bench_wall_seconds(), bench_cpu_seconds()};
  return t;
}

static void report(const char *label, const char *what, timing_t t0,
                   size_t events, uint64_t bytes) {
  double w = bench_wall_seconds() - t0.w, c = bench_cpu_seconds() - t0.c;
  printf("analysis_%s_%s_ms %.1f ms\n", label, what, w * 1e3);
  printf("analysis_%s_%s_cpu_ms %.1f ms\n", label, what, c * 1e3);
  printf("analysis_%s_%s_cpu_ns_per_event %.1f ns\n", label, what,
         c * 1e9 / (double)events);
  if (bytes) {
    printf("analysis_%s_%s_output_kb %.1f KB\n", label, what,
           (double)bytes / 1024.0);
    printf("analysis_%s_%s_output_bytes_per_event %.1f B\n", label, what,
           (double)bytes / (double)events);
  }
}

static int run_case(const char *label, etdump_shape_t shape, size_t n) {
  uint8_t *mem;
  const uint8_t *bytes;
  size_t len;
  if (etdump_generate(shape, n, &mem, &bytes, &len) != ETK_OK) {
    fprintf(stderr, "bench: cannot generate %s\n", label);
    return 1;
  }
  etk_error_t err;
  etk_error_clear(&err);
  etk_etdump_t *dump = NULL;
  etk_inspector_t *insp = NULL;
  etk_inspector_options_t io;
  etk_inspector_options_init(&io);
  io.target_time_scale = ETK_TIME_NS;
  if (etk_etdump_open_memory(bytes, len, NULL, &dump, &err) != ETK_OK ||
      etk_inspector_open(dump, &io, &insp, &err) != ETK_OK) {
    fprintf(stderr, "bench: %s\n", err.message);
    return 1;
  }
  size_t events = etk_etdump_event_count(dump);
  printf("analysis_%s_events %zu events\n", label, events);
  FILE *devnull = fopen("/dev/null", "wb");
  etk_render_sink_t *sink = malloc(sizeof *sink);
  int rc = devnull && sink ? ETK_OK : ETK_E_NO_MEMORY;

  for (int no_args = 0; no_args < 2 && rc == ETK_OK; no_args++) {
    etk_trace_options_t to;
    etk_trace_options_init(&to);
    to.no_args = no_args;
    etk_render_sink_init_file(sink, devnull);
    timing_t t = start();
    rc = etk_trace_write_json(dump, insp, &to, "bench.etdp", sink, NULL, &err);
    if (rc == ETK_OK) rc = etk_render_sink_flush(sink);
    report(label, no_args ? "trace_no_args" : "trace", t, events, sink->bytes);
  }
  if (rc == ETK_OK) {
    etk_render_sink_init_file(sink, devnull);
    timing_t t = start();
    etk_diff_t *d = NULL;
    rc = etk_diff_build(insp, insp, NULL, &d, &err);
    etk_diff_render_options_t ro;
    etk_diff_render_options_init(&ro);
    ro.format = ETK_INSPECT_FORMAT_TSV;
    if (rc == ETK_OK) rc = etk_diff_render(d, &ro, sink, &err);
    if (rc == ETK_OK) rc = etk_render_sink_flush(sink);
    report(label, "diff_tsv", t, events, sink->bytes);
    etk_diff_free(d);
  }
  if (rc == ETK_OK) {
    etk_render_sink_init_file(sink, devnull);
    timing_t t = start();
    rc = etk_report_write_html(insp, NULL, sink, &err);
    if (rc == ETK_OK) rc = etk_render_sink_flush(sink);
    report(label, "report_html", t, events, sink->bytes);
  }
  if (rc == ETK_OK) {
    timing_t t = start();
    etk_memory_report_t *m = NULL;
    rc = etk_memory_report_build(insp, 0, &m, &err);
    report(label, "memory", t, events, 0);
    etk_memory_report_free(m);
  }
  if (rc != ETK_OK) fprintf(stderr, "bench: %s: %s\n", label, err.message);
  free(sink);
  if (devnull) fclose(devnull);
  etk_inspector_close(insp);
  etk_etdump_close(dump);
  free(mem);
  return rc != ETK_OK;
}

int main(int argc, char **argv) {
  size_t n = argc > 1 && strcmp(argv[1], "--quick") == 0 ? 100000 : 1000000;
  const char *suffix = n == 100000 ? "100k" : "1m";
  char label[32];
  int bad = 0;
  snprintf(label, sizeof label, "repeat_%s", suffix);
  bad |= run_case(label, ETDUMP_SHAPE_REPEAT, n);
  snprintf(label, sizeof label, "wide_%s", suffix);
  bad |= run_case(label, ETDUMP_SHAPE_WIDE, n);
  return bad;
}
