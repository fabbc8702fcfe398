/*
 * bench_numerics_gap.c - `etkit numerics --gap` at scale: a generated chain
 * of N operators (aten::relu on 4 floats, one debug handle each), the
 * ETDump a run of it logs (one operator event and one intermediate output
 * per operator, the values in a debug buffer), and the CLI timed on them
 * as a child process (wall and CPU seconds from wait4(), peak RSS).
 *
 * The audit of issue 28 measured 84 s at 200,000 nodes when the pairing
 * compared every AOT entry with every runtime entry; near-linear pairing
 * keeps the time per node the same from 20,000 to 200,000 nodes, which
 * the last line prints as a ratio (1.0 = linear).
 *
 * Usage: bench_numerics_gap [--etkit PATH] [--keep DIR] [N ...]
 * (default 20000 200000; --keep writes the files into DIR and leaves them)
 * Output: "<name> <value> <unit>" lines.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "etdump_writer.h"
#include "etkit/etrecord.h"
#include "etkit/schema.h"

#ifndef ETKIT_CLI_PATH
#define ETKIT_CLI_PATH "etkit"
#endif

static const int64_t g_sizes[1] = {4};

static char *numbered(const char *prefix, size_t k) {
  char buf[64];
  snprintf(buf, sizeof buf, "%s%zu", prefix, k);
  return strdup(buf);
}

/* The chain x -> relu_0 -> relu_1 -> ... as an ETRecord file, with the
 * all-ones input as its representative input. */
static int write_record(size_t n, const char *path) {
  etk_etrecord_node_desc_t *nodes = calloc(n, sizeof *nodes);
  etk_etrecord_input_desc_t *ins = calloc(n, sizeof *ins);
  etk_etrecord_tensor_desc_t *tens = calloc(n + 1, sizeof *tens);
  etk_etrecord_handle_desc_t *handles = calloc(n, sizeof *handles);
  int64_t *ids = calloc(n, sizeof *ids);
  char **names = calloc(n + 1, sizeof *names), target[128];
  int rc = 1;
  if (!nodes || !ins || !tens || !handles || !ids || !names) goto out;
  etk_etrecord_edge_target("aten::relu", target, sizeof target);
  names[0] = strdup("x");
  tens[0] = (etk_etrecord_tensor_desc_t){names[0], 7, g_sizes, 1};
  for (size_t k = 0; k < n; k++) {
    names[k + 1] = numbered("aten_relu_default_", k);
    if (!names[k + 1]) goto out;
    ins[k] = (etk_etrecord_input_desc_t){"self", names[k]};
    ids[k] = (int64_t)k + 1;
    nodes[k] = (etk_etrecord_node_desc_t){
        .name = names[k + 1],
        .target = target,
        .debug_handle = ids[k],
        .inputs = &ins[k],
        .input_count = 1,
        .outputs = (const char *const *)&names[k + 1],
        .output_count = 1};
    tens[k + 1] = (etk_etrecord_tensor_desc_t){names[k + 1], 7, g_sizes, 1};
    handles[k] = (etk_etrecord_handle_desc_t){(int64_t)k, &ids[k], 1, false};
  }
  etk_etrecord_method_desc_t m = {
      .name = "forward",
      .nodes = nodes,
      .node_count = n,
      .graph_inputs = (const char *const *)names,
      .graph_input_count = 1,
      .graph_outputs = (const char *const *)&names[n],
      .graph_output_count = 1,
      .tensors = tens,
      .tensor_count = n + 1,
      .handles = handles,
      .handle_count = n};
  static const float ones[4] = {1, 1, 1, 1};
  const etk_torch_tensor_desc_t input = {ETK_SCALAR_TYPE_FLOAT, 1, g_sizes,
                                         ones, sizeof ones};
  const etk_etrecord_references_desc_t refs = {NULL, 0, &input, 1};
  etk_etrecord_desc_t desc = {
      .methods = &m, .method_count = 1, .references = &refs};
  etk_error_t err;
  etk_error_clear(&err);
  rc = etk_etrecord_write_file(&desc, path, &err) != ETK_OK;
  if (rc) {
    char line[512];
    fprintf(stderr, "bench_numerics_gap: %s\n",
            etk_error_format(&err, line, sizeof line));
  }
out:
  for (size_t k = 0; names && k <= n; k++) free(names[k]);
  free(names);
  free(nodes);
  free(ins);
  free(tens);
  free(handles);
  free(ids);
  return rc;
}

/* The run's ETDump (an operator event and its output per instruction) and
 * the debug buffer (the outputs, relu of the all-ones input: ones, each at
 * a 64-byte boundary as upstream's buffer sink places them). */
static int write_dump(size_t n, const char *etdp, const char *bin) {
  static const float ones[4] = {1, 1, 1, 1};
  uint8_t slot[64] = {0};
  FILE *f = fopen(bin, "wb");
  etw_t *w = etw_new(256 * n + (1 << 16));
  size_t len;
  int rc = !f || !w;
  memcpy(slot, ones, sizeof ones);
  if (!rc) etw_run_begin(w, "Execute", -1);
  for (size_t k = 0; k < n && !rc; k++) {
    etw_profile_simple(w, "native_call_relu.out", 0, (int32_t)k, 100 * k,
                       100 * k + 50);
    etw_debug_t d = etw_tensor_debug((int32_t)k, ETK_SCALAR_TYPE_FLOAT, g_sizes,
                                     1, (int64_t)(64 * k));
    etw_debug(w, &d);
    rc = fwrite(slot, 1, sizeof slot, f) != sizeof slot;
  }
  if (f && fclose(f) != 0) rc = 1;
  if (!rc) {
    etw_run_end(w);
    const uint8_t *bytes = etw_finish(w, &len);
    rc = !bytes || etw_write_file(etdp, bytes, len) != 0;
  }
  etw_free(w);
  return rc;
}

static double wall_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Runs argv with output to /dev/null; wall, CPU seconds and peak KB. */
static int run(const char *const *argv, double *wall, double *cpu_s,
               long *rss_kb) {
  double t0 = wall_now();
  pid_t pid = fork();
  if (pid < 0) return 1;
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 1);
    execv(argv[0], (char *const *)argv);
    _exit(127);
  }
  int status;
  struct rusage ru;
  if (wait4(pid, &status, 0, &ru) != pid) return 1;
  *wall = wall_now() - t0;
  *cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
  *rss_kb = ru.ru_maxrss;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "bench_numerics_gap: %s exited with status %d\n", argv[0],
            WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 1;
  }
  return 0;
}

static int bench(const char *etkit, const char *dir, size_t n, bool keep,
                 double *per_node) {
  char rec[512], etdp[512], bin[512];
  snprintf(rec, sizeof rec, "%s/chain%zu.etrecord", dir, n);
  snprintf(etdp, sizeof etdp, "%s/chain%zu.etdp", dir, n);
  snprintf(bin, sizeof bin, "%s/chain%zu.bin", dir, n);
  int rc = write_record(n, rec) || write_dump(n, etdp, bin);
  double wall = 0, cpu_s = 0;
  long kb = 0;
  const char *argv[] = {etkit,
                        "numerics",
                        "--gap",
                        "mse",
                        "--etdump_path",
                        etdp,
                        "--debug_buffer_path",
                        bin,
                        "--etrecord_path",
                        rec,
                        NULL};
  if (!rc) rc = run(argv, &wall, &cpu_s, &kb);
  if (!rc) {
    printf("numerics_gap_%zu_seconds %.3f s\n", n, wall);
    printf("numerics_gap_%zu_cpu_seconds %.3f s\n", n, cpu_s);
    printf("numerics_gap_%zu_peak_rss %.1f MB\n", n, (double)kb / 1024.0);
    *per_node = cpu_s / (double)n;
  }
  if (!keep) {
    remove(rec);
    remove(etdp);
    remove(bin);
  }
  return rc;
}

int main(int argc, char **argv) {
  const char *etkit = ETKIT_CLI_PATH, *keep = NULL;
  size_t sizes[16], count = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--etkit") == 0 && i + 1 < argc)
      etkit = argv[++i];
    else if (strcmp(argv[i], "--keep") == 0 && i + 1 < argc)
      keep = argv[++i];
    else if (count < 16)
      sizes[count++] = (size_t)strtoull(argv[i], NULL, 10);
  }
  if (!count) {
    sizes[0] = 20000;
    sizes[1] = 200000;
    count = 2;
  }
  char tmp[] = "/tmp/bench_numerics_gap.XXXXXX";
  const char *dir = keep ? keep : mkdtemp(tmp);
  if (!dir) return 1;
  double first = 0, last = 0;
  int rc = 0;
  for (size_t i = 0; i < count && !rc; i++) {
    rc = bench(etkit, dir, sizes[i], keep != NULL, &last);
    if (i == 0) first = last;
  }
  if (!rc && count > 1 && first > 0)
    printf("numerics_gap_time_per_node_growth %.2f x\n", last / first);
  if (!keep) rmdir(dir);
  return rc;
}
