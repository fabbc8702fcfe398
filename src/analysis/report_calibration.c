/*
 * report_calibration.c - the report's "Recorder cost" section: when the
 * ETDump carries the recorder's calibration (etkit/compensation.h), its
 * figures and, for every event that contains other recorded events
 * (Method::execute, DELEGATE_CALL, OPERATOR_CALL ...), the average
 * duration raw and compensated side by side.  Nothing is written for a
 * dump without calibration, so such reports stay as they were.
 */
#include <string.h>

#include "analysis_internal.h"
#include "etkit/compensation.h"

static void cell(etk_render_sink_t *s, double v) {
  char num[ETK_FORMAT_DOUBLE_MAX];
  etk_render_puts(s, "<td class=\"n\">");
  etk_render_put(s, num, etk_format_double_g(v, num));
  etk_render_puts(s, "</td>");
}

void ana_report_calibration(etk_inspector_t *insp, etk_render_sink_t *s,
                            const char *unit) {
  etk_calibration_t cal;
  const etk_etdump_t *dump = etk_inspector_etdump(insp);
  if (!etk_calibration_find(dump, &cal)) return;
  etk_render_puts(s,
                  "<section id=\"recorder-cost\"><h2>Recorder cost</h2>\n"
                  "<p class=\"note\">Measured by the recorder on the target "
                  "(medians of ");
  etk_render_printf(s, "%llu", (unsigned long long)cal.repetitions);
  etk_render_puts(s,
                  " batches, in the dump's clock ticks). Compensated = raw "
                  "less the cost of the events recorded inside "
                  "(docs/inspector.md).</p>\n<table class=\"facts\">\n");
  static const char *const names[6] = {"begin+end pair",
                                       "the same, skipped (method level)",
                                       "empty event's own duration",
                                       "clock read",
                                       "tensor log, fixed",
                                       "tensor log, per KiB"};
  const double v[6] = {cal.pair,  cal.skipped, cal.inner,
                       cal.clock, cal.tensor,  cal.tensor_kib};
  for (int i = 0; i < 6; i++) {
    etk_render_puts(s, "<tr><th>");
    etk_html_texts(s, names[i]);
    etk_render_puts(s, "</th>");
    cell(s, v[i]);
    etk_render_puts(s, "</tr>\n");
  }
  etk_own_pairs_t own;
  if (cal.adjacent &&
      etk_compensation_own_pairs(dump, &cal, &own, NULL) == ETK_OK &&
      own.own > 0) {
    etk_render_printf(s,
                      "<tr><th>begin+end pair in the runs (median of each "
                      "run's kernel calls; %zu of %zu runs, %g .. %g)</th>",
                      own.own, own.runs, own.min, own.max);
    cell(s, own.median);
    etk_render_puts(s, "</tr>\n");
  }
  etk_render_printf(s,
                    "</table>\n<table><thead><tr><th>block</th><th>event</th>"
                    "<th>raw avg (%s)</th><th>compensated avg (%s)</th>"
                    "<th>recording cost (%%)</th></tr></thead>\n<tbody>\n",
                    unit, unit);
  for (size_t e = 0; e < etk_inspector_event_count(insp); e++) {
    double raw, comp;
    etk_inspector_event_t ev;
    if (etk_inspector_event_compensation(insp, e, &raw, &comp) != ETK_OK ||
        !(raw > comp) || etk_inspector_event_get_basic(insp, e, &ev) != ETK_OK)
      continue;
    etk_inspector_block_t b;
    etk_render_puts(s, "<tr><td>");
    if (etk_inspector_block_get(insp, ev.block, &b) == ETK_OK && b.name)
      etk_html_texts(s, b.name);
    etk_render_puts(s, "</td><td class=\"op\">");
    etk_html_texts(s, ev.name ? ev.name : "");
    etk_render_puts(s, "</td>");
    cell(s, raw);
    cell(s, comp);
    cell(s, raw > 0 ? 100.0 * (raw - comp) / raw : 0.0);
    etk_render_puts(s, "</tr>\n");
  }
  etk_render_puts(s, "</tbody></table>\n</section>\n");
}
