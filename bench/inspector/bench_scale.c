/*
 * bench_scale.c - every output path of `etkit` on million-event ETDumps,
 * measured in one run against flatc's own JSON decode of the same files
 * (the first step upstream's Python Inspector takes).
 *
 * WHAT IT DOES
 *   Generates two dumps with the FlatBuffers builder (etdump_generator.c):
 *   "repeat" (runs of the same 49 events) and "wide" (N distinct events),
 *   writes them to temporary files, then runs, as child processes and in
 *   turn (flatc, then each etkit path, round after round, so that a drift
 *   of the shared machine's speed hits all of them alike):
 *
 *     flatc --json --strict-json --raw-binary --size-prefixed
 *           SCHEMA -- FILE                           (repeat and wide)
 *     etkit inspect --format tsv  --etdump_path repeat
 *     etkit inspect --format tsv  --etdump_path wide
 *     etkit inspect --etdump_path wide --tsv_path DIR/wide.tsv
 *                                  (upstream's CLI: the table on stdout and
 *                                   the TSV file, written like flatc's)
 *     etkit inspect --format json --etdump_path wide
 *     etkit inspect --format json --etdump_path wide -o DIR/wide.json
 *     etkit trace wide
 *     etkit diff wide wide
 *
 *   Each child's CPU time (user + system) and peak resident set come from
 *   wait4(), its wall time from the clock; output goes to /dev/null (flatc
 *   writes its JSON file into a temporary directory, removed after each
 *   run: writing it is part of its decode).  The median over the rounds is
 *   printed, then for each inspect path its CPU-time ratio to flatc and its
 *   peak resident set, each against its goal (TSV 0.15x, JSON 0.30x, file
 *   + 24 MB) with "met" or "NOT met" and the bytes per event held beside
 *   the mapped file, one "<name> <value> <unit>" line per figure.  The
 *   files the jobs write are removed after each run.
 *   callgrind_scale.sh, beside this file, counts the instructions of the
 *   same inspect paths and of flatc (repeatable where these timings are
 *   not) and splits them between opening, rows, table, TSV and JSON.
 *
 * USAGE
 *   bench_scale [--events N] [--runs R] [--etkit PATH] [--flatc PATH]
 *               [--only LABELS] [--only-diff] [--keep DIR]
 *   (defaults: 1000000 events, 3 rounds, the etkit built with this bench,
 *   flatc from PATH).  --etkit lets the same run time another build.
 *   --only runs just the jobs whose labels appear in the comma-separated
 *   LABELS (e.g. "flatc_wide,tsv_wide"; a row or memory figure whose jobs
 *   did not run is skipped); --only-diff is short for
 *   --only flatc_wide,diff_wide.  --keep writes the dumps into DIR and
 *   leaves them there (repeat.etdp, wide.etdp) for comparing outputs by
 *   hand.  Without flatc the etkit figures are printed and the ratios
 *   skipped.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_clock.h"
#include "etdump_generator.h"
#include "etkit/common.h"

#ifndef ETKIT_CLI_PATH
#define ETKIT_CLI_PATH "etkit"
#endif
#ifndef ETKIT_SCHEMA_PATH
#define ETKIT_SCHEMA_PATH "schema/etdump_schema_flatcc.fbs"
#endif

#define MAX_RUNS 15
#define MAX_ARGS 12

typedef struct job {
  const char *label;
  const char *argv[MAX_ARGS];
  double cpu[MAX_RUNS], wall[MAX_RUNS], rss[MAX_RUNS];
  int done;
  int skip; /* left out by --only */
} job_t;

/* Runs argv with stdout and stderr to /dev/null; records its figures. */
static int run_job(job_t *j) {
  double t0 = bench_wall_seconds();
  pid_t pid = fork();
  if (pid < 0) return 1;
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
      dup2(null, 1);
      dup2(null, 2);
    }
    execvp(j->argv[0], (char *const *)j->argv);
    _exit(127);
  }
  int status;
  struct rusage ru;
  if (wait4(pid, &status, 0, &ru) != pid) return 1;
  double wall = bench_wall_seconds() - t0;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "bench_scale: %s failed (status %d)\n", j->label,
            WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 1;
  }
  j->cpu[j->done] =
      (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
      (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
  j->wall[j->done] = wall;
  j->rss[j->done] = (double)ru.ru_maxrss * 1024.0; /* Linux: kilobytes */
  j->done++;
  return 0;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(const double *v, int n) {
  double tmp[MAX_RUNS];
  memcpy(tmp, v, (size_t)n * sizeof *v);
  qsort(tmp, (size_t)n, sizeof *tmp, cmp_double);
  return n % 2 ? tmp[n / 2] : 0.5 * (tmp[n / 2 - 1] + tmp[n / 2]);
}

static int write_dump(etdump_shape_t shape, size_t events, const char *path,
                      double *file_bytes) {
  uint8_t *mem;
  const uint8_t *bytes;
  size_t len;
  if (etdump_generate(shape, events, &mem, &bytes, &len) != ETK_OK) return 1;
  FILE *f = fopen(path, "wb");
  int bad = !f || fwrite(bytes, 1, len, f) != len;
  if (f && fclose(f) != 0) bad = 1;
  free(mem);
  *file_bytes = (double)len;
  return bad;
}

/* Whether `label` is one of the comma-separated names in `list`. */
static int label_listed(const char *list, const char *label) {
  size_t n = strlen(label);
  for (const char *p = list; *p;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == n && memcmp(p, label, n) == 0) return 1;
    if (!end) break;
    p = end + 1;
  }
  return 0;
}

static int flatc_available(const char *flatc) {
  job_t probe;
  memset(&probe, 0, sizeof probe);
  probe.label = "flatc --version";
  probe.argv[0] = flatc;
  probe.argv[1] = "--version";
  return run_job(&probe) == 0;
}

/* Prints a job's medians. */
static void print_job(const job_t *j) {
  printf("scale_%s_cpu_s %.3f s (rounds:", j->label, median(j->cpu, j->done));
  for (int i = 0; i < j->done; i++) printf(" %.3f", j->cpu[i]);
  printf(")\n");
  printf("scale_%s_wall_s %.3f s\n", j->label, median(j->wall, j->done));
  printf("scale_%s_peak_rss_mb %.1f MB\n", j->label,
         median(j->rss, j->done) / 1048576.0);
}

/* Prints a ratio row of the table: median of the per-round ratios (CPU),
 * and the ratio of the median wall times.  Skipped when either job did not
 * run. */
static void print_ratio(const char *row, const job_t *a, const job_t *flatc,
                        double goal) {
  double r[MAX_RUNS];
  if (a->skip || flatc->skip) return;
  for (int i = 0; i < a->done; i++) r[i] = a->cpu[i] / flatc->cpu[i];
  double m = median(r, a->done);
  printf("table_%s_vs_flatc_cpu %.3f x (goal <= %.2f; %s)\n", row, m, goal,
         m <= goal ? "met" : "NOT met");
  for (int i = 0; i < a->done; i++) r[i] = a->wall[i] / flatc->wall[i];
  printf("table_%s_vs_flatc_wall %.3f x\n", row, median(r, a->done));
}

/* Each inspect path's peak RSS against the same goal: file + 24 MB. */
static void print_memory(const job_t *const *js, size_t n, double file_bytes,
                         size_t events) {
  double mb = 1048576.0;
  for (size_t k = 0; k < n; k++) {
    if (js[k]->skip) continue;
    double rss = median(js[k]->rss, js[k]->done);
    printf(
        "table_%s_peak_rss_mb %.1f MB (goal <= %.1f: file + 24; %s; "
        "%.1f B/event beside the file)\n",
        js[k]->label, rss / mb, file_bytes / mb + 24,
        rss <= file_bytes + 24 * mb ? "met" : "NOT met",
        (rss - file_bytes) / (double)(events ? events : 1));
  }
}

int main(int argc, char **argv) {
  size_t events = 1000000;
  int runs = 3;
  const char *etkit = ETKIT_CLI_PATH, *flatc = "flatc";
  const char *only = NULL, *keep = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--only-diff") == 0)
      only = "flatc_wide,diff_wide";
    else if (i + 1 < argc && strcmp(argv[i], "--events") == 0)
      events = strtoull(argv[++i], NULL, 10);
    else if (i + 1 < argc && strcmp(argv[i], "--runs") == 0)
      runs = atoi(argv[++i]);
    else if (i + 1 < argc && strcmp(argv[i], "--etkit") == 0)
      etkit = argv[++i];
    else if (i + 1 < argc && strcmp(argv[i], "--flatc") == 0)
      flatc = argv[++i];
    else if (i + 1 < argc && strcmp(argv[i], "--only") == 0)
      only = argv[++i];
    else if (i + 1 < argc && strcmp(argv[i], "--keep") == 0)
      keep = argv[++i];
    else {
      fprintf(stderr,
              "usage: bench_scale [--events N] [--runs R] "
              "[--etkit PATH] [--flatc PATH] [--only LABELS] [--only-diff] "
              "[--keep DIR]\n");
      return 2;
    }
  }
  if (runs < 1) runs = 1;
  if (runs > MAX_RUNS) runs = MAX_RUNS;
  const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : P_tmpdir;
  char dir[512], repeat[600], wide[600], tsv_out[600], json_out[640];
  if (keep)
    snprintf(dir, sizeof dir, "%s", keep);
  else
    snprintf(dir, sizeof dir, "%s/etkit-scale-%d", tmp, (int)getpid());
  if (mkdir(dir, 0700) != 0 && !keep) {
    perror("bench_scale: mkdir");
    return 1;
  }
  snprintf(repeat, sizeof repeat, "%s/repeat.etdp", dir);
  snprintf(tsv_out, sizeof tsv_out, "%s/wide.tsv", dir);
  snprintf(json_out, sizeof json_out, "%s/wide.inspect.json", dir);
  snprintf(wide, sizeof wide, "%s/wide.etdp", dir);
  double repeat_bytes = 0, wide_bytes = 0;
  if (write_dump(ETDUMP_SHAPE_REPEAT, events, repeat, &repeat_bytes) ||
      write_dump(ETDUMP_SHAPE_WIDE, events, wide, &wide_bytes)) {
    fprintf(stderr, "bench_scale: cannot generate the dumps in %s\n", dir);
    return 1;
  }
  int have_flatc = flatc_available(flatc);
  job_t jobs[] = {
      {.label = "flatc_repeat",
       .argv = {flatc, "--json", "--strict-json", "--raw-binary",
                "--size-prefixed", "-o", dir, ETKIT_SCHEMA_PATH, "--", repeat,
                NULL}},
      {.label = "flatc_wide",
       .argv = {flatc, "--json", "--strict-json", "--raw-binary",
                "--size-prefixed", "-o", dir, ETKIT_SCHEMA_PATH, "--", wide,
                NULL}},
      {.label = "tsv_repeat",
       .argv = {etkit, "inspect", "--format", "tsv", "--etdump_path", repeat,
                NULL}},
      {.label = "tsv_wide",
       .argv = {etkit, "inspect", "--format", "tsv", "--etdump_path", wide,
                NULL}},
      {.label = "tsv_path_wide",
       .argv = {etkit, "inspect", "--etdump_path", wide, "--tsv_path", tsv_out,
                NULL}},
      {.label = "json_wide",
       .argv = {etkit, "inspect", "--format", "json", "--etdump_path", wide,
                NULL}},
      {.label = "json_file_wide",
       .argv = {etkit, "inspect", "--format", "json", "--etdump_path", wide,
                "-o", json_out, NULL}},
      {.label = "trace_wide", .argv = {etkit, "trace", "-q", wide, NULL}},
      {.label = "diff_wide", .argv = {etkit, "diff", wide, wide, NULL}},
  };
  enum {
    FLATC_REPEAT,
    FLATC_WIDE,
    TSV_REPEAT,
    TSV_WIDE,
    TSV_PATH_WIDE,
    JSON_WIDE,
    JSON_FILE_WIDE,
    TRACE_WIDE,
    DIFF_WIDE,
    NJOBS
  };
  for (int k = 0; k < NJOBS; k++)
    jobs[k].skip = (!have_flatc && k <= FLATC_WIDE) ||
                   (only && !label_listed(only, jobs[k].label));
  int bad = 0;
  for (int r = 0; r < runs && !bad; r++) {
    for (int k = 0; k < NJOBS && !bad; k++) {
      if (jobs[k].skip) continue;
      bad |= run_job(&jobs[k]);
      remove(tsv_out);
      remove(json_out);
      if (k <= FLATC_WIDE) { /* flatc's JSON: not kept */
        char out[700];
        snprintf(out, sizeof out, "%s/%s.json", dir,
                 k == FLATC_REPEAT ? "repeat" : "wide");
        remove(out);
      }
    }
  }
  if (!keep) {
    remove(repeat);
    remove(wide);
    rmdir(dir);
  }
  if (bad) return 1;

  printf("scale_events %zu events\n", events);
  printf("scale_repeat_file_mb %.1f MB\n", repeat_bytes / 1048576.0);
  printf("scale_wide_file_mb %.1f MB\n", wide_bytes / 1048576.0);
  printf("scale_rounds %d runs\n", runs);
  for (int k = 0; k < NJOBS; k++)
    if (!jobs[k].skip) print_job(&jobs[k]);
  if (have_flatc) {
    print_ratio("inspect_tsv_repeat", &jobs[TSV_REPEAT], &jobs[FLATC_REPEAT],
                0.15);
    print_ratio("inspect_tsv_wide", &jobs[TSV_WIDE], &jobs[FLATC_WIDE], 0.15);
    print_ratio("inspect_tsv_path_wide", &jobs[TSV_PATH_WIDE],
                &jobs[FLATC_WIDE], 0.15);
    print_ratio("inspect_json_wide", &jobs[JSON_WIDE], &jobs[FLATC_WIDE], 0.30);
    print_ratio("inspect_json_file_wide", &jobs[JSON_FILE_WIDE],
                &jobs[FLATC_WIDE], 0.30);
    print_ratio("trace_wide", &jobs[TRACE_WIDE], &jobs[FLATC_WIDE], 0.30);
    print_ratio("diff_wide", &jobs[DIFF_WIDE], &jobs[FLATC_WIDE], 0.50);
  } else {
    printf("table_vs_flatc skipped (no flatc: %s)\n", flatc);
  }
  double mb = 1048576.0;
  if (!jobs[DIFF_WIDE].skip)
    printf(
        "table_diff_wide_peak_rss_mb %.1f MB (goal <= %.1f: 2 x file + "
        "40)\n",
        median(jobs[DIFF_WIDE].rss, runs) / mb, (2 * wide_bytes) / mb + 40);
  const job_t *inspect_jobs[] = {&jobs[TSV_WIDE], &jobs[TSV_PATH_WIDE],
                                 &jobs[JSON_WIDE], &jobs[JSON_FILE_WIDE]};
  print_memory(inspect_jobs, sizeof inspect_jobs / sizeof inspect_jobs[0],
               wide_bytes, events);
  if (jobs[TSV_WIDE].skip) return 0;
  printf("table_inspect_wide_peak_rss_mb %.1f MB (goal <= %.1f: file + 24)\n",
         median(jobs[TSV_WIDE].rss, runs) / mb, wide_bytes / mb + 24);
  printf("table_inspect_wide_rss_beside_file %.1f B/event\n",
         (median(jobs[TSV_WIDE].rss, runs) - wide_bytes) / (double)events);
  return 0;
}
