/*
 * bench_graph.c - how fast an ETRecord's graph is read into the graph
 * object (etk_graph_load: the JSON walk with typed arguments, values,
 * edges, checks, partitions) and written as Model Explorer's graph JSON.
 *
 * The record, written by etkit's ETRecord writer: N call nodes of a
 * transformer-like stack (layers of 8 ops, each op taking the previous
 * output and, every 4th op, a residual 4 ops back), module stacks 3 to 24
 * entries deep, stack traces, a TensorMeta per value, a debug handle per
 * node and one delegate covering every 16th layer.
 *
 * Output: "<name> <value> <unit>" (wall seconds; the load also in process
 * CPU seconds, steadier on a shared machine; MB of peak RSS).
 *
 *   bench_graph [N ...]      N = 1000 5000 20000 by default
 *   bench_graph --memory [N ...]   peak RSS of etk_graph_load in a child
 *                            process against the record's file size
 *                            (N = 200000 by default; goal <= 4x)
 *   bench_graph --write N FILE    writes the record of N nodes (to profile
 *                            `bench_graph --load FILE` by hand)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>

#include "etkit/graph.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double peak_mb(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_maxrss / 1024.0;
}

typedef struct names {
  char **s;
  size_t n;
} names_t;

static char *numbered(const char *prefix, size_t a) {
  char buf[64];
  snprintf(buf, sizeof buf, "%s%zu", prefix, a);
  return strdup(buf);
}

static int build(size_t n, uint8_t **zip, size_t *len) {
  static const char *const ops[8] = {"aten::layer_norm", "aten::linear",
                                     "aten::gelu",       "aten::linear",
                                     "aten::add.Tensor", "aten::softmax",
                                     "aten::mul.Tensor", "aten::add.Tensor"};
  etk_etrecord_node_desc_t *nodes = calloc(n, sizeof *nodes);
  etk_etrecord_input_desc_t *inputs = calloc(2 * n, sizeof *inputs);
  etk_etrecord_module_desc_t *mods = calloc(24 * n, sizeof *mods);
  etk_etrecord_tensor_desc_t *tensors = calloc(n + 1, sizeof *tensors);
  etk_etrecord_handle_desc_t *handles = calloc(n, sizeof *handles);
  int64_t *hv = calloc(n, sizeof *hv);
  char **outs = calloc(n + 1, sizeof *outs);
  char **targets = calloc(n, sizeof *targets);
  if (!nodes || !inputs || !mods || !tensors || !handles || !hv || !outs ||
      !targets)
    return 1;
  static int64_t sizes[3] = {1, 128, 768};
  outs[0] = strdup("x");
  tensors[0] = (etk_etrecord_tensor_desc_t){"x", 7, sizes, 3};
  const char *trace =
      "  File \"model.py\", line 42, in forward\n    y = f(x)\n";
  for (size_t i = 0; i < n; i++) {
    outs[i + 1] = numbered("node_", i);
    char t[160];
    etk_etrecord_edge_target(ops[i % 8], t, sizeof t);
    targets[i] = strdup(t);
    size_t k = 0;
    inputs[2 * i] = (etk_etrecord_input_desc_t){"self", outs[i]};
    k++;
    if (i % 4 == 3 && i >= 4)
      inputs[2 * i + k++] = (etk_etrecord_input_desc_t){"other", outs[i - 3]};
    size_t depth = 3 + (i / 8) % 22; /* 3..24 */
    etk_etrecord_module_desc_t *m = &mods[24 * i];
    for (size_t d = 0; d < depth; d++) {
      char *key = numbered("L__self___layers_", d);
      char *path = numbered("layers.", d);
      m[d] = (etk_etrecord_module_desc_t){key, path, "model.Block"};
    }
    hv[i] = (int64_t)i + 1;
    handles[i] = (etk_etrecord_handle_desc_t){(int64_t)i, &hv[i], 1, false};
    nodes[i] =
        (etk_etrecord_node_desc_t){.name = outs[i + 1],
                                   .target = targets[i],
                                   .debug_handle = (int64_t)i + 1,
                                   .stack_trace = trace,
                                   .module_stack = m,
                                   .module_stack_count = depth,
                                   .inputs = &inputs[2 * i],
                                   .input_count = k,
                                   .outputs = (const char *const *)&outs[i + 1],
                                   .output_count = 1};
    tensors[i + 1] = (etk_etrecord_tensor_desc_t){outs[i + 1], 7, sizes, 3};
  }
  etk_etrecord_method_desc_t meth = {
      .name = "forward",
      .nodes = nodes,
      .node_count = n,
      .graph_inputs = (const char *const *)outs,
      .graph_input_count = 1,
      .graph_outputs = (const char *const *)&outs[n],
      .graph_output_count = 1,
      .tensors = tensors,
      .tensor_count = n + 1,
      .handles = handles,
      .handle_count = n};
  etk_etrecord_desc_t desc = {.methods = &meth, .method_count = 1};
  etk_error_t err;
  etk_error_clear(&err);
  int rc = etk_etrecord_write_memory(&desc, zip, len, &err);
  if (rc != ETK_OK) {
    char line[512];
    fprintf(stderr, "bench_graph: %s\n",
            etk_error_format(&err, line, sizeof line));
  }
  return rc != ETK_OK;
}

static int run(size_t n) {
  uint8_t *zip;
  size_t len;
  if (build(n, &zip, &len)) return 1;
  double t0 = now(), c0 = cpu();
  etk_etrecord_t *rec;
  etk_graph_t *g;
  etk_error_t err;
  etk_error_clear(&err);
  const etk_etrecord_program_t *prog;
  double tp = 0;
  if (etk_etrecord_open_memory(zip, len, NULL, &rec, &err) != ETK_OK ||
      etk_etrecord_edge_program_load(rec, NULL, &prog, &err) != ETK_OK ||
      (tp = now()) < 0 || etk_graph_load(rec, NULL, &g, &err) != ETK_OK) {
    char line[512];
    fprintf(stderr, "bench_graph: %s\n",
            etk_error_format(&err, line, sizeof line));
    return 1;
  }
  double t1 = now(), c1 = cpu();
  char *js;
  size_t js_len;
  if (etk_graph_model_explorer_json(g, NULL, &js, &js_len, &err) != ETK_OK)
    return 1;
  double t2 = now();
  printf("graph_%zu_record_bytes %zu bytes\n", n, len);
  printf("graph_%zu_read_program %.4f s\n", n, tp - t0);
  printf("graph_%zu_build_graph %.4f s\n", n, t1 - tp);
  printf("graph_%zu_load %.4f s\n", n, t1 - t0);
  printf("graph_%zu_load_cpu %.4f s\n", n, c1 - c0);
  printf("graph_%zu_model_explorer %.4f s\n", n, t2 - t1);
  printf("graph_%zu_model_explorer_bytes %zu bytes\n", n, js_len);
  printf("graph_%zu_peak_rss %.1f MB\n", n, peak_mb());
  free(js);
  etk_graph_free(g);
  etk_etrecord_close(rec);
  free(zip);
  return 0;
}

/* Peak resident set of this process image (VmHWM: since the exec, unlike
 * wait4()'s ru_maxrss, which counts the pages of the parent a fork
 * shared), in MB; -1 when unknown. */
static double own_peak_mb(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  double kb = -1;
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, "VmHWM:", 6) == 0) kb = strtod(line + 6, NULL);
  if (f) fclose(f);
  return kb < 0 ? -1 : kb / 1024.0;
}

/* Child mode: opens FILE and loads its graph in a fresh process image and
 * prints the load's time and peak memory against the file's size (label
 * N).  Goal: at most 4 times the file. */
static int load_only(const char *path, const char *label) {
  etk_etrecord_t *rec;
  etk_graph_t *g;
  etk_error_t err;
  etk_error_clear(&err);
  double t0 = now();
  if (etk_etrecord_open_file(path, NULL, &rec, &err) != ETK_OK ||
      etk_graph_load(rec, NULL, &g, &err) != ETK_OK) {
    char line[512];
    fprintf(stderr, "bench_graph: %s\n",
            etk_error_format(&err, line, sizeof line));
    return 1;
  }
  double t1 = now(), mb = own_peak_mb();
  etk_graph_free(g);
  etk_etrecord_close(rec);
  struct stat st;
  if (!label || stat(path, &st) != 0) return 0;
  double file_mb = (double)st.st_size / 1048576.0;
  printf("graph_%s_file_bytes %lld bytes\n", label, (long long)st.st_size);
  printf("graph_%s_load_seconds %.3f s\n", label, t1 - t0);
  printf("graph_%s_load_peak_rss %.1f MB\n", label, mb);
  printf("graph_%s_load_memory_ratio %.2f x\n", label, mb / file_mb);
  return 0;
}

/* The record of n nodes written to a file and loaded by a child (this
 * program with --load), which prints the figures. */
static int memory(const char *self, size_t n) {
  uint8_t *zip;
  size_t len;
  char path[] = "/tmp/bench_graph.XXXXXX", label[32];
  if (build(n, &zip, &len)) return 1;
  int fd = mkstemp(path);
  FILE *f = fd < 0 ? NULL : fdopen(fd, "wb");
  int bad = !f || fwrite(zip, 1, len, f) != len;
  if (f && fclose(f) != 0) bad = 1;
  free(zip);
  if (bad) return 1;
  snprintf(label, sizeof label, "%zu", n);
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    execl(self, self, "--load", path, label, (char *)NULL);
    _exit(127);
  }
  int status = 0;
  bad = pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0;
  remove(path);
  return bad;
}

int main(int argc, char **argv) {
  size_t defaults[3] = {1000, 5000, 20000};
  if ((argc == 3 || argc == 4) && strcmp(argv[1], "--load") == 0)
    return load_only(argv[2], argc == 4 ? argv[3] : NULL);
  if (argc == 4 && strcmp(argv[1], "--write") == 0) {
    uint8_t *zip;
    size_t len;
    if (build((size_t)strtoull(argv[2], NULL, 10), &zip, &len)) return 1;
    FILE *f = fopen(argv[3], "wb");
    int bad = !f || fwrite(zip, 1, len, f) != len;
    if (f && fclose(f) != 0) bad = 1;
    free(zip);
    return bad;
  }
  if (argc > 1 && strcmp(argv[1], "--memory") == 0) {
    for (int i = 2; i < argc; i++)
      if (memory(argv[0], (size_t)strtoull(argv[i], NULL, 10))) return 1;
    return argc > 2 ? 0 : memory(argv[0], 200000);
  }
  if (argc > 1) {
    for (int i = 1; i < argc; i++)
      if (run((size_t)strtoull(argv[i], NULL, 10))) return 1;
    return 0;
  }
  for (int i = 0; i < 3; i++)
    if (run(defaults[i])) return 1;
  return 0;
}
