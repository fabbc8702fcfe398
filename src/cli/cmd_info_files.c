/*
 * cmd_info_files.c - `etkit info` on an ETDump and on an ETRecord.
 *
 * ETDump: schema version, runs (RunData), the event blocks the Inspector
 * groups them into, events of each kind (profile, debug, allocation), the
 * span of the profile timestamps, the profile mode (a stats-mode dump's
 * sketches: how many executions they hold), the recorder's calibration and
 * its dropped-event marker when the recorder ran out of room.  An ETDump stores
 * no time unit: the ticks are what the recorder's clock gave (etkit's host
 * clock: ns), and readers take --source_time_scale (default ns), as upstream's
 * Inspector.
 *
 * ETRecord: the layout (which writer generation), its programs and
 * methods with their node counts, the representative inputs and reference
 * outputs present or not, and the delegates (lowered modules) by backend.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli_args.h"
#include "cmd_info.h"
#include "commands.h"
#include "etkit/analysis.h"
#include "etkit/compensation.h"
#include "etkit/etdump.h"
#include "etkit/etrecord.h"
#include "etkit/inspector.h"
#include "etkit/latency_dump.h"

#define CMD "info"

static void print_events(const etk_etdump_t *dump) {
  size_t kinds[4] = {0, 0, 0, 0};
  uint64_t first = UINT64_MAX, last = 0;
  size_t n = etk_etdump_event_count(dump);
  for (size_t i = 0; i < n; i++) {
    etk_etdump_event_t e;
    if (etk_etdump_event_get(dump, i, &e) != ETK_OK) continue;
    kinds[e.kind >= 1 && e.kind <= 3 ? e.kind : 0]++;
    if (e.kind == ETK_ETDUMP_EVENT_PROFILE) {
      if (e.start_time < first) first = e.start_time;
      if (e.end_time > last) last = e.end_time;
    }
  }
  printf("events: %zu (%zu profile, %zu debug, %zu allocation)\n", n, kinds[1],
         kinds[2], kinds[3]);
  if (kinds[1] && last >= first)
    printf("time: profile timestamps span %" PRIu64 " ticks (%" PRIu64
           "..%" PRIu64 ")\n",
           last - first, first, last);
  if (etk_inspector_dump_in_cycles(dump)) {
    printf(
        "time scale: CPU cycles (etkit's firmware marker: etkit's readers "
        "show cycles)\n");
    return;
  }
  printf(
      "time scale: not stored in an ETDump (readers take "
      "--source_time_scale, default ns; etkit's host recorder writes "
      "ns)\n");
}

/* A stats-mode dump (--profile-mode stats): its events are one median per
 * key, so say how many runs its sketches hold (the Execute block's
 * Method::execute count) and where the full figures are. */
static void print_stats_mode(const etk_etdump_t *dump) {
  static const char execute[] = "Method::execute";
  etk_latency_dump_info_t info;
  if (!etk_latency_dump_find(dump, &info)) {
    printf("profile mode: events\n");
    return;
  }
  uint64_t runs = 0;
  double error = 0;
  for (size_t k = 0; k < info.keys; k++) {
    etk_latency_key_t key;
    etk_etdump_event_t e;
    etk_error_t err;
    etk_error_clear(&err);
    if (etk_latency_dump_key(dump, &info, k, &key, &err) != ETK_OK) {
      printf("profile mode: stats, latency sketch %zu unreadable: %s\n", k,
             err.message);
      return;
    }
    if (etk_sketch_error_bound(&key.sketch) > error)
      error = etk_sketch_error_bound(&key.sketch);
    if (etk_etdump_event_get(dump, key.event, &e) == ETK_OK &&
        e.name.len == sizeof execute - 1 &&
        memcmp(e.name.data, execute, sizeof execute - 1) == 0 &&
        etk_sketch_count(&key.sketch) > runs)
      runs = etk_sketch_count(&key.sketch);
  }
  printf("profile mode: stats: %zu latency sketches (run %zu), %" PRIu64
         " executions of Method::execute, quantiles within %.3g%%, %" PRIu64
         " duration(s) refused; each event holds its key's median (etkit "
         "inspect shows count and quantiles)\n",
         info.keys, info.run, runs, error * 100.0, info.refused);
}

int cli_info_etdump(const char *path) {
  etk_error_t err;
  etk_error_clear(&err);
  etk_etdump_t *dump = NULL;
  if (etk_etdump_open_path(path, NULL, &dump, &err) != ETK_OK)
    return etk_cli_fail_error(CMD, &err);
  printf("%s: %s, schema version %u\n", path,
         etk_file_kind_describe(ETK_FILE_ETDUMP), etk_etdump_version(dump));
  size_t runs = etk_etdump_run_count(dump);
  etk_inspector_t *insp = NULL;
  if (etk_inspector_open(dump, NULL, &insp, &err) == ETK_OK)
    printf("runs: %zu in %zu event block%s\n", runs,
           etk_inspector_block_count(insp),
           etk_inspector_block_count(insp) == 1 ? "" : "s");
  else
    printf("runs: %zu (the Inspector cannot group them: %s)\n", runs,
           err.message);
  etk_inspector_close(insp);
  for (size_t r = 0; r < runs; r++) {
    etk_etdump_run_t run;
    if (etk_etdump_run_get(dump, r, &run) != ETK_OK) continue;
    printf("  run %zu: %.*s%s%u event%s", r, (int)run.name.len,
           run.name.data ? run.name.data : "", run.name.data ? ", " : "",
           run.event_count, run.event_count == 1 ? "" : "s");
    if (run.bundled_input_index >= 0)
      printf(", bundled input %d", (int)run.bundled_input_index);
    if (run.allocator_count)
      printf(", %u allocator%s", run.allocator_count,
             run.allocator_count == 1 ? "" : "s");
    putchar('\n');
  }
  print_events(dump);
  print_stats_mode(dump);
  etk_calibration_t cal;
  etk_own_pairs_t own;
  if (etk_calibration_find(dump, &cal)) {
    printf(
        "calibration: begin+end pair %.1f ticks, clock read %.1f, tensor "
        "log %.1f + %.1f per KiB (run %u; inspect --compensate uses it%s)\n",
        cal.pair, cal.clock, cal.tensor, cal.tensor_kib, cal.run,
        cal.adjacent ? ", or each run's own pair from its kernel calls" : "");
    if (cal.adjacent &&
        etk_compensation_own_pairs(dump, &cal, &own, NULL) == ETK_OK &&
        own.runs > 0)
      printf(
          "runs' own pairs: %zu of %zu runs, median %.1f ticks "
          "(%.1f .. %.1f)\n",
          own.own, own.runs, own.median, own.min, own.max);
  } else
    printf("calibration: none (inspect --compensate needs --event-cost)\n");
  etk_dropped_marker_t m;
  if (etk_dropped_marker_find(dump, &m))
    printf("dropped: %" PRIu64 " events, %" PRIu64 " blocks, %" PRIu64
           " allocators (the recorder's buffer filled)\n",
           m.events, m.blocks, m.allocators);
  else
    printf("dropped: none\n");
  etk_etdump_close(dump);
  return fflush(stdout) == 0 ? 0 : etk_cli_fail(CMD, "error writing output");
}

static void print_program(etk_etrecord_t *rec, size_t i) {
  const etk_etrecord_program_ref_t *ref = etk_etrecord_program_at(rec, i);
  const etk_etrecord_program_t *prog = NULL;
  etk_error_t err;
  etk_error_clear(&err);
  static const char *const kinds[] = {"edge program", "exported program",
                                      "graph", "ET dialect program"};
  printf("  %s %s", kinds[ref->kind <= 3 ? ref->kind : 0], ref->member);
  if (etk_etrecord_program_load(rec, i, &prog, &err) != ETK_OK) {
    printf(": cannot be read (%s)\n", err.message);
    return;
  }
  size_t ops = 0, delegates = 0;
  for (size_t n = 0; n < prog->node_count; n++) {
    if (prog->nodes[n].depth == 0) ops++;
    if (prog->nodes[n].delegate_backend) delegates++;
  }
  printf(": %zu node%s (%zu at top level), %zu input%s, %zu output%s\n",
         prog->node_count, prog->node_count == 1 ? "" : "s", ops,
         prog->input_count, prog->input_count == 1 ? "" : "s",
         prog->output_count, prog->output_count == 1 ? "" : "s");
  for (size_t n = 0; n < prog->node_count; n++)
    if (prog->nodes[n].delegate_backend)
      printf("    delegate %s: backend %s\n", prog->nodes[n].name,
             prog->nodes[n].delegate_backend);
}

int cli_info_etrecord(const char *path) {
  etk_error_t err;
  etk_error_clear(&err);
  etk_etrecord_t *rec = NULL;
  if (etk_etrecord_open_file(path, NULL, &rec, &err) != ETK_OK)
    return etk_cli_fail_error(CMD, &err);
  etk_etrecord_info_t info;
  etk_etrecord_info_get(rec, &info);
  printf("%s: %s, layout %s, %zu members\n", path,
         etk_file_kind_describe(ETK_FILE_ZIP),
         etk_etrecord_layout_name(info.layout), info.member_count);
  printf("programs: %zu\n", info.program_count);
  for (size_t i = 0; i < info.program_count; i++) print_program(rec, i);
  printf("methods: %zu", info.method_count);
  for (size_t m = 0; m < info.method_count; m++) {
    const etk_etrecord_method_maps_t *mm = etk_etrecord_maps_at(rec, m);
    if (mm)
      printf("%s%s (%zu debug handles, %zu delegate entries)", m ? ", " : " - ",
             mm->method, mm->handle_count, mm->delegate_count);
  }
  putchar('\n');
  printf("representative inputs: %s\n",
         info.features & ETK_ETRECORD_HAS_REPRESENTATIVE_INPUTS ? "present"
                                                                : "absent");
  printf("reference outputs: %s\n",
         info.features & ETK_ETRECORD_HAS_REFERENCE_OUTPUTS ? "present"
                                                            : "absent");
  printf("instruction_id_to_num_outs_map: %s\n",
         info.features & ETK_ETRECORD_HAS_NUM_OUTS_MAP ? "present" : "absent");
  if (info.features & ETK_ETRECORD_HAS_EXPORT_GRAPH_ID)
    printf("export graph id: %" PRId64 "\n", info.export_graph_id);
  etk_etrecord_close(rec);
  return fflush(stdout) == 0 ? 0 : etk_cli_fail(CMD, "error writing output");
}
