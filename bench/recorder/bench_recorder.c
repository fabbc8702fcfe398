/*
 * bench_recorder.c - what the recorder costs: time per begin+end pair (with
 * a trivial counter clock, with the default host clock and with the
 * calibrated cycle-counter clock where the CPU has one), the by-name
 * compatibility path, a small tensor log, finish per event, RAM and output
 * bytes per operator event.  One line per figure: "<name> <value> <unit>".
 * "excl_clock" subtracts the cost of the counter clock's two calls, timed
 * separately, from the pair measured with that clock.
 *
 * Each timing is the best of several rounds (the least disturbed by other
 * work on the machine); rounds record 20,000 OPERATOR_CALL events into one
 * block, finish (not timed), and start a fresh dump.
 *
 * COMPARING WITH AN EARLIER RECORDER (a regression shows as a ratio)
 *   - Same run: configure with -DETKIT_BENCH_BASELINE=<git commit>; the
 *     build compiles that commit's recorder a second time into this binary
 *     (its symbols renamed etkbase_*, bench/recorder/CMakeLists.txt), and
 *     every run times both, alternating (--repeat N passes, default 3,
 *     best of each), then prints "baseline_<figure>" and
 *     "ratio_<figure> <new/baseline>" after the usual lines.  Timings on a
 *     busy machine drift between runs; alternating in one process is what
 *     makes the ratio trustworthy.
 *   - Saved: --save-baseline FILE writes the figures ("<name> <value>
 *     <unit>" lines, the format every version of this bench prints, so the
 *     stdout of an older build serves too); --baseline FILE reads such a
 *     file and prints a ratio line per figure found in both.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "etkit/recorder.h"

#define EVENTS 20000u
#define ROUNDS 60
#define MAX_FIGURES 24

typedef struct bench_figures {
  double pair, pair_name, pair_host, pair_cycles, clock_calls;
  double tensor, finish, ram_per_event, arena_per_event, file_bytes_per_op;
} bench_figures_t;

/* One printed figure. */
typedef struct figure {
  char name[64];
  double value;
  char unit[16];
} figure_t;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t counter_clock(void *ctx) {
  return ++*(uint64_t *)ctx;
}

static void die(const char *what) {
  fprintf(stderr, "bench_recorder: %s\n", what);
  exit(1);
}

static uint64_t arena[8u * 1024u * 1024u / 8u];
static uint64_t ticks;
static etk_recorder_cycle_clock_t cycle_clock;
static int have_cycles;

/* the current recorder */
#define REC(f) f
#define BODY(f) current_##f
#include "bench_recorder_body.h"
#undef REC
#undef BODY

#ifdef ETKIT_BENCH_BASELINE
/* the baseline recorder: the same functions, renamed etkbase_* */
#define BASE_DECL(ret, f, args) ret etkbase_##f args;
BASE_DECL(void, etk_recorder_config_init, (etk_recorder_config_t *))
BASE_DECL(int, etk_recorder_init,
          (etk_recorder_t **, void *, size_t, const etk_recorder_config_t *))
BASE_DECL(etk_recorder_name_t, etk_recorder_intern,
          (etk_recorder_t *, const char *))
BASE_DECL(int, etk_recorder_begin_block, (etk_recorder_t *, const char *))
BASE_DECL(void, etk_recorder_set_chain_debug_handle,
          (etk_recorder_t *, int32_t, uint32_t))
BASE_DECL(etk_recorder_scope_t, etk_recorder_begin,
          (etk_recorder_t *, etk_recorder_name_t))
BASE_DECL(etk_recorder_scope_t, etk_recorder_begin_named,
          (etk_recorder_t *, const char *, int32_t, uint32_t))
BASE_DECL(int, etk_recorder_end,
          (etk_recorder_t *, const etk_recorder_scope_t *))
BASE_DECL(uint32_t, etk_recorder_dropped, (const etk_recorder_t *))
BASE_DECL(int, etk_recorder_finish,
          (etk_recorder_t *, const uint8_t **, size_t *))
BASE_DECL(void, etk_recorder_stats,
          (const etk_recorder_t *, etk_recorder_stats_t *))
BASE_DECL(int, etk_recorder_set_debug_buffer,
          (etk_recorder_t *, void *, size_t))
BASE_DECL(int, etk_recorder_log_value,
          (etk_recorder_t *, const etk_recorder_value_t *, etk_logged_type_t))
#undef BASE_DECL
#define REC(f) etkbase_##f
#define BODY(f) baseline_##f
#include "bench_recorder_body.h"
#undef REC
#undef BODY
#endif

static double time_clock_calls(void) {
  /* two indirect calls of the counter clock, as a pair makes */
  volatile uint64_t sink = 0;
  uint64_t (*volatile fn)(void *) = counter_clock;
  double best = 1e30;
  for (int r = 0; r < ROUNDS; r++) {
    uint64_t t0 = now_ns();
    for (uint32_t i = 0; i < EVENTS; i++) {
      sink += fn(&ticks);
      sink += fn(&ticks);
    }
    {
      double per = (double)(now_ns() - t0) / EVENTS;
      if (per < best) best = per;
    }
  }
  (void)sink;
  return best;
}

/* *best = the smaller of each timing, the sizes as measured. */
static void keep_best(bench_figures_t *best, const bench_figures_t *f,
                      int first) {
  if (first) {
    *best = *f;
    return;
  }
#define KEEP(x) \
  if (f->x < best->x) best->x = f->x
  KEEP(pair);
  KEEP(pair_name);
  KEEP(pair_host);
  KEEP(pair_cycles);
  KEEP(tensor);
  KEEP(finish);
#undef KEEP
}

static void add(figure_t *out, int *n, const char *name, double value,
                const char *unit) {
  if (*n >= MAX_FIGURES) return;
  snprintf(out[*n].name, sizeof out[*n].name, "%s", name);
  out[*n].value = value;
  snprintf(out[*n].unit, sizeof out[*n].unit, "%s", unit);
  (*n)++;
}

/* The printed figures of f, in the order this bench has always used. */
static int figures_list(const bench_figures_t *f, figure_t *out) {
  int n = 0;
  /* The pair with a trivial counter clock, then the same minus what the
   * two calls of that clock cost on their own (an estimate: the calls can
   * overlap other work inside the pair). */
  add(out, &n, "recorder_pair_counter_clock", f->pair, "ns");
  add(out, &n, "recorder_counter_clock_two_calls", f->clock_calls, "ns");
  add(out, &n, "recorder_pair_excl_clock", f->pair - f->clock_calls, "ns");
  add(out, &n, "recorder_pair_default_clock", f->pair_host, "ns");
  if (have_cycles) {
    add(out, &n, "recorder_pair_cycle_clock", f->pair_cycles, "ns");
    add(out, &n, "recorder_cycle_clock_rate",
        (double)cycle_clock.ticks_per_second, "Hz");
  }
  add(out, &n, "recorder_pair_by_name", f->pair_name, "ns");
  add(out, &n, "recorder_log_tensor_64B", f->tensor, "ns");
  add(out, &n, "recorder_ram_per_event", f->ram_per_event, "B");
  add(out, &n, "recorder_arena_per_event", f->arena_per_event, "B");
  add(out, &n, "recorder_file_bytes_per_op_event", f->file_bytes_per_op, "B");
  add(out, &n, "upstream_file_bytes_per_op_event", 60, "B");
  add(out, &n, "recorder_finish_per_event", f->finish, "ns");
  return n;
}

static void print_figure(FILE *to, const char *prefix, const figure_t *g) {
  if (strcmp(g->unit, "Hz") == 0 || strncmp(g->name, "upstream_", 9) == 0)
    fprintf(to, "%s%s %.0f %s\n", prefix, g->name, g->value, g->unit);
  else
    fprintf(to, "%s%s %.2f %s\n", prefix, g->name, g->value, g->unit);
}

/* Ratio lines new/baseline for every figure present in both lists (the
 * clock's own cost and the fixed upstream figure are not the recorder's). */
static void print_ratios(const figure_t *cur, int n, const figure_t *base,
                         int nb) {
  for (int i = 0; i < n; i++) {
    if (strcmp(cur[i].name, "recorder_counter_clock_two_calls") == 0 ||
        strcmp(cur[i].name, "recorder_cycle_clock_rate") == 0 ||
        strncmp(cur[i].name, "upstream_", 9) == 0)
      continue;
    for (int j = 0; j < nb; j++) {
      if (strcmp(cur[i].name, base[j].name) != 0) continue;
      if (base[j].value > 0)
        printf("ratio_%s %.3f new/baseline\n", cur[i].name,
               cur[i].value / base[j].value);
      break;
    }
  }
}

/* Reads "<name> <value> <unit>" lines; other lines are skipped.  Returns
 * the number read, or -1 when the file cannot be opened. */
static int read_figures(const char *path, figure_t *out) {
  char line[256];
  int n = 0;
  FILE *f = fopen(path, "r");
  if (f == NULL) return -1;
  while (n < MAX_FIGURES && fgets(line, sizeof line, f) != NULL) {
    figure_t g;
    if (sscanf(line, "%63s %lf %15s", g.name, &g.value, g.unit) == 3)
      out[n++] = g;
  }
  fclose(f);
  return n;
}

static int write_figures(const char *path, const figure_t *g, int n) {
  char tmp[4096];
  FILE *f;
  if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) return -1;
  f = fopen(tmp, "w");
  if (f == NULL) return -1;
  for (int i = 0; i < n; i++) print_figure(f, "", &g[i]);
  if (fclose(f) != 0 || rename(tmp, path) != 0) {
    remove(tmp);
    return -1;
  }
  return 0;
}

static void usage(void) {
  fprintf(stderr,
          "usage: bench_recorder [--repeat N] [--save-baseline FILE] "
          "[--baseline FILE]\n");
  exit(2);
}

int main(int argc, char **argv) {
  const char *save = NULL, *load = NULL;
  int repeat = 3;
  bench_figures_t cur, f;
  figure_t cur_list[MAX_FIGURES];
  int n;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--save-baseline") == 0 && i + 1 < argc)
      save = argv[++i];
    else if (strcmp(argv[i], "--baseline") == 0 && i + 1 < argc)
      load = argv[++i];
    else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
      repeat = atoi(argv[++i]);
      if (repeat < 1 || repeat > 100) usage();
    } else {
      usage();
    }
  }
  memset(&cur, 0, sizeof cur);
  memset(&f, 0, sizeof f);
  have_cycles = etk_recorder_cycle_clock_init(&cycle_clock) == ETK_OK;

#ifdef ETKIT_BENCH_BASELINE
  bench_figures_t base;
  memset(&base, 0, sizeof base);
  for (int r = 0; r < repeat; r++) {
    current_measure(&f);
    keep_best(&cur, &f, r == 0);
    baseline_measure(&f);
    keep_best(&base, &f, r == 0);
  }
#else
  for (int r = 0; r < repeat; r++) {
    current_measure(&f);
    keep_best(&cur, &f, r == 0);
  }
#endif
  cur.clock_calls = time_clock_calls();
  n = figures_list(&cur, cur_list);
  for (int i = 0; i < n; i++) print_figure(stdout, "", &cur_list[i]);

#ifdef ETKIT_BENCH_BASELINE
  {
    figure_t base_list[MAX_FIGURES];
    int nb;
    base.clock_calls = cur.clock_calls;
    nb = figures_list(&base, base_list);
    printf("# baseline %s (same run, alternating, best of %d)\n",
           ETKIT_BENCH_BASELINE, repeat);
    for (int i = 0; i < nb; i++)
      print_figure(stdout, "baseline_", &base_list[i]);
    print_ratios(cur_list, n, base_list, nb);
  }
#endif
  if (load != NULL) {
    figure_t saved[MAX_FIGURES];
    int ns = read_figures(load, saved);
    if (ns < 0) {
      fprintf(stderr, "bench_recorder: cannot read %s\n", load);
      return 1;
    }
    printf("# baseline %s (saved)\n", load);
    print_ratios(cur_list, n, saved, ns);
  }
  if (save != NULL && write_figures(save, cur_list, n) != 0) {
    fprintf(stderr, "bench_recorder: cannot write %s\n", save);
    return 1;
  }
  return 0;
}
