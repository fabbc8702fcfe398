/*
 * bench_inspector.c - how fast and how lean `etkit inspect --format tsv` is
 * on large ETDumps.
 *
 * For each shape (repeat, wide) and size (1k, 1M, 10M events) the parent
 * generates the dump with the FlatBuffers builder, writes it to a temporary
 * file, frees everything, and runs a CHILD process (this program with
 * --run FILE) that opens the file, verifies and decodes it, groups it into
 * event blocks and writes the TSV table to /dev/null.  The child reports
 * its own wall times; the parent reads the child's peak RSS from wait4()
 * (getrusage of that process alone, so the generator's memory does not
 * count).  Output: one "<name> <value> <unit>" line per figure.
 *
 *   bench_inspector                      all cases (about 30 s)
 *   bench_inspector --quick              1k and 1M only
 *   bench_inspector --generate repeat|wide N FILE    just write a dump
 *   bench_inspector --run FILE           the measured child
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_clock.h"
#include "etdump_generator.h"
#include "etkit/inspector.h"

/* Peak resident set of this process so far, in bytes. */
static double peak_rss(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_maxrss * 1024.0; /* Linux: kilobytes */
}

static int run_child(const char *path) {
  double t0 = bench_wall_seconds();
  etk_etdump_t *dump;
  etk_error_t err;
  etk_error_clear(&err);
  if (etk_etdump_open_path(path, NULL, &dump, &err) != ETK_OK) {
    fprintf(stderr, "bench: %s\n", err.message);
    return 1;
  }
  double t1 = bench_wall_seconds();
  double rss_load = peak_rss();
  etk_inspector_t *insp;
  if (etk_inspector_open(dump, NULL, &insp, &err) != ETK_OK) {
    fprintf(stderr, "bench: %s\n", err.message);
    return 1;
  }
  double t2 = bench_wall_seconds();
  double rss_group = peak_rss();
  FILE *out = fopen("/dev/null", "wb");
  etk_render_sink_t *sink = malloc(sizeof *sink);
  etk_render_sink_init_file(sink, out);
  etk_inspector_render_options_t ro;
  etk_inspector_render_options_init(&ro);
  ro.format = ETK_INSPECT_FORMAT_TSV;
  int rc = etk_inspector_render(insp, &ro, sink, &err);
  if (rc == ETK_OK) rc = etk_render_sink_flush(sink);
  double t3 = bench_wall_seconds();
  fclose(out);
  free(sink);
  printf("%.9f %.9f %.9f %llu %zu %.0f %.0f\n", t1 - t0, t2 - t1, t3 - t2,
         (unsigned long long)etk_etdump_event_count(dump),
         etk_inspector_event_count(insp), rss_load, rss_group);
  etk_inspector_close(insp);
  etk_etdump_close(dump);
  return rc != ETK_OK;
}

static int measure(const char *self, const char *shape_name,
                   etdump_shape_t shape, size_t n, const char *label) {
  char path[256];
  snprintf(path, sizeof path, "%s/etkit-bench-%d-%s.etdp",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid(), label);
  uint8_t *mem;
  const uint8_t *bytes;
  size_t len;
  double g0 = bench_wall_seconds();
  if (etdump_generate(shape, n, &mem, &bytes, &len) != ETK_OK) {
    fprintf(stderr, "bench: cannot generate %s %zu\n", shape_name, n);
    return 1;
  }
  double g1 = bench_wall_seconds();
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(bytes, 1, len, f) != len) {
    fprintf(stderr, "bench: cannot write %s\n", path);
    free(mem);
    if (f) fclose(f);
    return 1;
  }
  fclose(f);
  free(mem);
  int fd[2];
  if (pipe(fd) != 0) return 1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fd[1], 1);
    close(fd[0]);
    execl(self, self, "--run", path, (char *)NULL);
    _exit(127);
  }
  close(fd[1]);
  char buf[256] = {0};
  ssize_t got = read(fd[0], buf, sizeof buf - 1);
  close(fd[0]);
  int status;
  struct rusage ru;
  wait4(pid, &status, 0, &ru);
  remove(path);
  double tl, tg, tt, rss_load, rss_group;
  unsigned long long events;
  size_t insp_events;
  if (got <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
      sscanf(buf, "%lf %lf %lf %llu %zu %lf %lf", &tl, &tg, &tt, &events,
             &insp_events, &rss_load, &rss_group) != 7) {
    fprintf(stderr, "bench: child failed for %s\n", label);
    return 1;
  }
  double total = tl + tg + tt;
  double rss = (double)ru.ru_maxrss * 1024.0; /* Linux: kilobytes */
  printf("inspector_%s_generate_ms %.1f ms\n", label, (g1 - g0) * 1e3);
  printf("inspector_%s_file_bytes_per_event %.1f B\n", label,
         (double)len / (double)events);
  printf("inspector_%s_load_ms %.1f ms\n", label, tl * 1e3);
  printf("inspector_%s_group_ms %.1f ms\n", label, tg * 1e3);
  printf("inspector_%s_tsv_ms %.1f ms\n", label, tt * 1e3);
  printf("inspector_%s_total_ms %.1f ms\n", label, total * 1e3);
  double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
               (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
  printf("inspector_%s_ns_per_event %.1f ns\n", label,
         total * 1e9 / (double)events);
  /* CPU time of the child (whole process, user + system): the same figure
   * without the noise of other processes sharing the machine */
  printf("inspector_%s_cpu_ms %.1f ms\n", label, cpu * 1e3);
  printf("inspector_%s_cpu_ns_per_event %.1f ns\n", label,
         cpu * 1e9 / (double)events);
  printf("inspector_%s_peak_rss_mb %.1f MB\n", label, rss / 1048576.0);
  printf("inspector_%s_bytes_per_event %.1f B\n", label, rss / (double)events);
  /* peak after opening the dump, and after grouping (before the TSV) */
  printf("inspector_%s_load_peak_rss_mb %.1f MB\n", label,
         rss_load / 1048576.0);
  printf("inspector_%s_group_peak_rss_mb %.1f MB\n", label,
         rss_group / 1048576.0);
  printf("inspector_%s_inspector_events %zu events\n", label, insp_events);
  fflush(stdout);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--run") == 0) return run_child(argv[2]);
  if (argc == 5 && strcmp(argv[1], "--generate") == 0) {
    uint8_t *mem;
    const uint8_t *bytes;
    size_t len;
    etdump_shape_t s =
        strcmp(argv[2], "wide") == 0 ? ETDUMP_SHAPE_WIDE : ETDUMP_SHAPE_REPEAT;
    if (etdump_generate(s, strtoull(argv[3], NULL, 10), &mem, &bytes, &len) !=
        ETK_OK)
      return 1;
    FILE *f = fopen(argv[4], "wb");
    int bad = !f || fwrite(bytes, 1, len, f) != len;
    if (f) fclose(f);
    free(mem);
    return bad;
  }
  int quick = argc == 2 && strcmp(argv[1], "--quick") == 0;
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return 1;
  self[n] = 0;
  static const struct {
    const char *label;
    etdump_shape_t shape;
    size_t n;
    int slow;
  } cases[] = {
      {"repeat_1k", ETDUMP_SHAPE_REPEAT, 1000, 0},
      {"wide_1k", ETDUMP_SHAPE_WIDE, 1000, 0},
      {"repeat_1m", ETDUMP_SHAPE_REPEAT, 1000000, 0},
      {"wide_1m", ETDUMP_SHAPE_WIDE, 1000000, 0},
      {"repeat_10m", ETDUMP_SHAPE_REPEAT, 10000000, 1},
      {"wide_10m", ETDUMP_SHAPE_WIDE, 10000000, 1},
  };
  int bad = 0;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    if (quick && cases[i].slow) continue;
    bad |=
        measure(self, cases[i].shape == ETDUMP_SHAPE_WIDE ? "wide" : "repeat",
                cases[i].shape, cases[i].n, cases[i].label);
  }
  return bad;
}
