/*
 * etdump_summary.c - a short per-operator timing table of an ETDump, for
 * `etkit demo` (and anyone who wants a quick look without the inspector).
 *
 * The bytes are verified with the ETDump schema descriptors first, then the
 * ProfileEvents of every "Execute" block are grouped by name: operator
 * kernels (native_call_*), DELEGATE_CALL, delegate events (by their string
 * id, or "#<id>" for integer ids), and Method::execute.  OPERATOR_CALL is
 * left out: it wraps native_call_* and would count each operator twice.
 * The table keeps the order in which names first appear, so it reads in
 * program order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/flatbuf.h"
#include "etkit/schema.h"
#include "run_support.h"

typedef struct row {
  char name[64];
  int32_t instruction;
  uint64_t count;
  double sum, min, max;
} row_t;

int cli_print_etdump_summary(FILE *out, const uint8_t *etdp, size_t len,
                             const char *tick_unit) {
  etk_fb_verify_options_t opt;
  memset(&opt, 0, sizeof opt);
  opt.ident = ETK_ETDUMP_FILE_IDENTIFIER;
  opt.size_prefixed = 1;
  uint32_t root;
  int rc = etk_fb_verify(etdp, len, &etk_etdump_schema, &opt, &root, NULL);
  if (rc != ETK_OK) return rc;
  row_t *rows = NULL;
  size_t nrows = 0, cap = 0;
  etk_fb_table_t dump = etk_fb_root(etdp, root);
  etk_fb_vector_t runs = etk_fb_get_vector(dump, ETK_ETDUMP_RUN_DATA);
  uint32_t executes = 0;
  for (uint32_t r = 0; r < runs.count; r++) {
    etk_fb_table_t run = etk_fb_vector_table(etdp, runs, r);
    etk_fb_string_t bname = etk_fb_get_string(run, ETK_ETDUMP_RUN_DATA_NAME);
    if (!bname.data || strcmp(bname.data, "Execute") != 0) continue;
    executes++;
    etk_fb_vector_t events = etk_fb_get_vector(run, ETK_ETDUMP_RUN_DATA_EVENTS);
    for (uint32_t e = 0; e < events.count; e++) {
      etk_fb_table_t ev = etk_fb_vector_table(etdp, events, e);
      etk_fb_table_t pe = etk_fb_get_table(ev, ETK_ETDUMP_EVENT_PROFILE_EVENT);
      if (!etk_fb_table_present(pe)) continue;
      char name[64];
      etk_fb_string_t n = etk_fb_get_string(pe, ETK_ETDUMP_PROFILE_EVENT_NAME);
      etk_fb_string_t ds =
          etk_fb_get_string(pe, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_ID_STR);
      int32_t di =
          etk_fb_get_i32(pe, ETK_ETDUMP_PROFILE_EVENT_DELEGATE_DEBUG_ID_INT, -1);
      if (n.data)
        snprintf(name, sizeof name, "%s", n.data);
      else if (ds.data)
        snprintf(name, sizeof name, "  delegate: %s", ds.data);
      else if (di >= 0)
        snprintf(name, sizeof name, "  delegate: #%d", di);
      else
        continue;
      if (strcmp(name, "OPERATOR_CALL") == 0) continue;
      int32_t chain = etk_fb_get_i32(pe, ETK_ETDUMP_PROFILE_EVENT_CHAIN_INDEX, 0);
      int32_t instr =
          chain < 0 ? -1
                    : etk_fb_get_i32(pe, ETK_ETDUMP_PROFILE_EVENT_INSTRUCTION_ID,
                                     -1);
      double d = (double)(etk_fb_get_u64(pe, ETK_ETDUMP_PROFILE_EVENT_END_TIME, 0) -
                          etk_fb_get_u64(pe, ETK_ETDUMP_PROFILE_EVENT_START_TIME, 0));
      size_t k = 0;
      while (k < nrows && !(strcmp(rows[k].name, name) == 0 &&
                            rows[k].instruction == instr))
        k++;
      if (k == nrows) {
        if (nrows == cap) {
          cap = cap ? cap * 2 : 32;
          row_t *bigger = realloc(rows, cap * sizeof *rows);
          if (!bigger) {
            free(rows);
            return ETK_E_NO_MEMORY;
          }
          rows = bigger;
        }
        memset(&rows[nrows], 0, sizeof rows[nrows]);
        snprintf(rows[nrows].name, sizeof rows[nrows].name, "%s", name);
        rows[nrows].instruction = instr;
        rows[nrows].min = d;
        nrows++;
      }
      row_t *row = &rows[k];
      row->count++;
      row->sum += d;
      if (d < row->min) row->min = d;
      if (d > row->max) row->max = d;
    }
  }
  fprintf(out, "%-4s  %-34s %5s %12s %12s %12s\n", "inst", "event", "runs",
          "mean", "min", "max");
  for (size_t k = 0; k < nrows; k++) {
    const row_t *r = &rows[k];
    char inst[16] = "-";
    if (r->instruction >= 0) snprintf(inst, sizeof inst, "%d", r->instruction);
    fprintf(out, "%-4s  %-34.34s %5llu %10.3f %s %10.3f %s %10.3f %s\n", inst,
            r->name, (unsigned long long)r->count, r->sum / (double)r->count,
            tick_unit, r->min, tick_unit, r->max, tick_unit);
  }
  fprintf(out, "(%u Execute blocks; durations in raw recorder ticks)\n",
          executes);
  free(rows);
  return ETK_OK;
}

/* ------------------------------------------------- inspector's table */

#include "etkit/inspector.h"
#include "etkit/render.h"

int cli_print_inspector_summary(FILE *out, const char *etdump_path,
                                const char *debug_path, etk_error_t *err) {
  etk_inspector_options_t opt;
  etk_inspector_options_init(&opt);
  opt.target_time_scale = ETK_TIME_US;
  uint8_t *debug = NULL;
  size_t debug_len = 0;
  if (debug_path && etk_read_file(debug_path, 0, &debug, &debug_len, err))
    return err->code;
  opt.debug_buffer = debug;
  opt.debug_buffer_len = debug_len;
  etk_inspector_t *insp = NULL;
  int rc = etk_inspector_open_path(etdump_path, &opt, &insp, err);
  if (rc == ETK_OK) {
    etk_inspector_render_options_t ro;
    etk_inspector_render_options_init(&ro);
    ro.view = ETK_INSPECT_VIEW_SUMMARY;
    etk_render_sink_t sink;
    etk_render_sink_init_file(&sink, out);
    rc = etk_inspector_render(insp, &ro, &sink, err);
    if (rc == ETK_OK) rc = etk_render_sink_flush(&sink);
  }
  etk_inspector_close(insp);
  free(debug);
  return rc;
}
