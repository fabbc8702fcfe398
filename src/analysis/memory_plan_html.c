/*
 * memory_plan_html.c - the memory map: a self-contained HTML page (inline
 * CSS and SVG, no script, no network) with, per planned buffer,
 *   - a map: x = instruction, y = byte offset, one rectangle per tensor
 *     spanning its lifetime and its bytes, filled with the colour of its op
 *     type (operator name without overload; legend on top), with a native
 *     tooltip (<title>: name, value, size, lifetime, op, module, source);
 *   - unsafe overlaps drawn on top as red rectangles (the shared
 *     bytes during the shared instructions), invalid tensors outlined red;
 *   - under the map, the live-bytes curve (a step line over instructions)
 *     with the buffer size and the peak marked.
 * Alias tensors (et_view outputs) are drawn translucent and dashed, over
 * the tensor they view.  Coordinates are scaled into a fixed drawing area, so
 * the page size is linear in the number of tensors.
 */
#include <stdlib.h>
#include <string.h>

#include "etkit/memory_plan.h"
#include "memory_plan_internal.h"
#include "common/vec.h"

#define MAP_W 960.0
#define MAP_H 360.0
#define CURVE_H 120.0
#define LEFT 80.0
#define TOP 10.0

static const char *const palette[] = {
    "#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948",
    "#9c755f", "#bab0ac", "#86bcb6", "#d37295", "#a0cbe8", "#8cd17d",
    "#ffbe7d", "#d4a6c8", "#499894", "#79706e"};
#define PALETTE_N (sizeof palette / sizeof *palette)

/* Op type: the op without its overload ("aten::add.out" -> "aten::add"). */
static size_t op_type_len(const char *op) {
  const char *colon = strstr(op, "::");
  const char *dot = strrchr(op, '.');
  if (colon && dot && dot > colon) return (size_t)(dot - op);
  return strlen(op);
}

typedef struct legend {
  const char **types; /* first op of each type */
  size_t count, cap;
} legend_t;

static size_t legend_index(legend_t *l, const char *op) {
  size_t n = op_type_len(op);
  for (size_t i = 0; i < l->count; i++)
    if (op_type_len(l->types[i]) == n && strncmp(l->types[i], op, n) == 0)
      return i;
  if (!ETK_VEC_RESERVE(l->types, l->cap, l->count + 1)) return 0;
  l->types[l->count] = op;
  return l->count++;
}

static const char *legend_colour(size_t i) {
  return palette[i % PALETTE_N];
}

static void put_text(etk_render_sink_t *s, const char *t, size_t n) {
  etk_html_text(s, t, n);
}

typedef struct scale {
  double n;    /* instructions */
  double size; /* bytes on the y axis */
} scale_t;

static double sx(const scale_t *c, double i) {
  return LEFT + MAP_W * i / c->n;
}
static double sy(const scale_t *c, double b) {
  return TOP + MAP_H * b / c->size;
}

static void tensor_rect(etk_render_sink_t *s, const scale_t *c,
                        const etk_memory_plan_tensor_t *t, legend_t *l) {
  double x0 = sx(c, (double)t->first), x1 = sx(c, (double)t->last + 1.0);
  double y0 = sy(c, (double)t->offset);
  double y1 = sy(c, (double)(t->offset + t->nbytes));
  /* a small tensor in a big buffer stays visible (and hoverable): at
   * least 2 px each way */
  if (y1 - y0 < 2.0) y1 = y0 + 2.0;
  if (x1 - x0 < 2.0) x1 = x0 + 2.0;
  size_t li = legend_index(l, t->op);
  etk_render_printf(s,
                    "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                    "height=\"%.2f\" fill=\"%s\" class=\"%s%s\"><title>",
                    x0, y0, x1 - x0, y1 - y0, legend_colour(li),
                    t->alias_of >= 0 ? "alias " : "",
                    t->invalid ? "invalid" : "");
  etk_html_texts(s, t->name);
  etk_render_printf(s,
                    " (value %u)\n%llu bytes at offset %llu\nlifetime "
                    "%lld..%lld\nop ",
                    t->value, (unsigned long long)t->nbytes,
                    (unsigned long long)t->offset, (long long)t->first,
                    (long long)t->last);
  etk_html_texts(s, t->op);
  if (t->alias_of >= 0)
    etk_render_printf(s, "\nalias of value %lld", (long long)t->alias_of);
  if (t->module[0]) {
    etk_render_puts(s, "\nmodule ");
    etk_html_texts(s, t->module);
  }
  if (t->source[0]) {
    etk_render_puts(s, "\nsource ");
    put_text(s, t->source, strlen(t->source) > 600 ? 600 : strlen(t->source));
  }
  etk_render_puts(s, "</title></rect>\n");
}

typedef struct step {
  int64_t at;
  int64_t delta;
} step_t;

static int step_cmp(const void *pa, const void *pb) {
  const step_t *a = pa, *b = pb;
  return (a->at > b->at) - (a->at < b->at);
}

/* The live-bytes curve of one buffer under its map. */
static int live_curve(etk_render_sink_t *s, const etk_memory_plan_t *p,
                      const etk_memory_plan_buffer_t *b, const scale_t *c) {
  step_t *st = malloc((2 * p->tensor_count + 1) * sizeof *st);
  if (!st) return ETK_E_NO_MEMORY;
  size_t n = 0;
  for (size_t k = 0; k < p->tensor_count; k++) {
    const etk_memory_plan_tensor_t *t = &p->tensors[k];
    if (t->mem_id != b->mem_id || !etk_mp_counts_live(t)) continue;
    st[n++] = (step_t){t->first, (int64_t)t->nbytes};
    st[n++] = (step_t){t->last + 1, -(int64_t)t->nbytes};
  }
  qsort(st, n, sizeof *st, step_cmp);
  double top = (double)(b->size > b->peak_bytes ? b->size : b->peak_bytes);
  if (top <= 0) top = 1;
  double base = TOP + MAP_H + 30.0;
  etk_render_printf(s,
                    "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
                    "class=\"limit\"><title>buffer size %llu bytes</title>"
                    "</line>\n",
                    LEFT, LEFT + MAP_W, base, base,
                    (unsigned long long)b->size);
  etk_render_printf(s, "<polyline class=\"curve\" points=\"%.2f,%.2f", LEFT,
                    base + CURVE_H);
  uint64_t cur = 0;
  for (size_t i = 0; i < n;) {
    double y = base + CURVE_H - CURVE_H * (double)cur / top;
    double x = sx(c, (double)st[i].at);
    etk_render_printf(s, " %.2f,%.2f", x, y);
    size_t j = i;
    while (j < n && st[j].at == st[i].at) cur += (uint64_t)st[j++].delta;
    etk_render_printf(s, " %.2f,%.2f", x,
                      base + CURVE_H - CURVE_H * (double)cur / top);
    i = j;
  }
  etk_render_printf(s, " %.2f,%.2f\"/>\n", LEFT + MAP_W, base + CURVE_H);
  if (b->peak_instruction >= 0) {
    double x = sx(c, (double)b->peak_instruction + 0.5);
    double y = base + CURVE_H - CURVE_H * (double)b->peak_bytes / top;
    etk_render_printf(s,
                      "<circle class=\"peak\" cx=\"%.2f\" cy=\"%.2f\" "
                      "r=\"4\"><title>peak %llu bytes at instruction %lld"
                      "</title></circle>\n<text x=\"%.2f\" y=\"%.2f\" "
                      "class=\"peaklabel\">peak %llu B @ %lld</text>\n",
                      x, y, (unsigned long long)b->peak_bytes,
                      (long long)b->peak_instruction, x + 6, y - 4,
                      (unsigned long long)b->peak_bytes,
                      (long long)b->peak_instruction);
  }
  etk_render_printf(s, "<text x=\"4\" y=\"%.1f\">live bytes</text>\n",
                    base + CURVE_H / 2);
  free(st);
  return ETK_OK;
}

static int buffer_map(etk_render_sink_t *s, const etk_memory_plan_t *p,
                      const etk_memory_plan_buffer_t *b, legend_t *l) {
  scale_t c;
  c.n = p->num_instructions ? (double)p->num_instructions : 1.0;
  uint64_t ymax = b->size > b->used_end ? b->size : b->used_end;
  c.size = ymax ? (double)ymax : 1.0;
  etk_render_printf(
      s, "<h3>mem_id %u: %llu bytes, peak %llu (%.1f%%)</h3>\n", b->mem_id,
      (unsigned long long)b->size, (unsigned long long)b->peak_bytes,
      b->size ? 100.0 * (double)b->peak_bytes / (double)b->size : 0.0);
  etk_render_printf(s,
                    "<svg width=\"%.0f\" height=\"%.0f\" "
                    "xmlns=\"http://www.w3.org/2000/svg\">\n",
                    LEFT + MAP_W + 20, TOP + MAP_H + 40 + CURVE_H + 20);
  etk_render_printf(s,
                    "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" "
                    "width=\"%.1f\" height=\"%.1f\"/>\n",
                    LEFT, TOP, MAP_W, MAP_H * (double)b->size / c.size);
  etk_render_printf(s,
                    "<text x=\"4\" y=\"%.1f\">offset 0</text><text x=\"4\" "
                    "y=\"%.1f\">%llu</text><text x=\"%.1f\" y=\"%.1f\">"
                    "instruction 0</text><text x=\"%.1f\" y=\"%.1f\" "
                    "text-anchor=\"end\">%llu</text>\n",
                    TOP + 10, TOP + MAP_H, (unsigned long long)ymax, LEFT,
                    TOP + MAP_H + 14, LEFT + MAP_W, TOP + MAP_H + 14,
                    (unsigned long long)p->num_instructions);
  for (size_t k = 0; k < p->tensor_count; k++) {
    const etk_memory_plan_tensor_t *t = &p->tensors[k];
    if (t->mem_id == b->mem_id && t->first >= 0) tensor_rect(s, &c, t, l);
  }
  for (size_t k = 0; k < p->overlap_count; k++) {
    const etk_memory_plan_overlap_t *o = &p->overlaps[k];
    if (o->mem_id != b->mem_id) continue;
    double y0 = sy(&c, (double)o->byte_start), y1 = sy(&c, (double)o->byte_end);
    if (y1 - y0 < 1) y1 = y0 + 1;
    etk_render_printf(s,
                      "<rect class=\"overlap\" x=\"%.2f\" y=\"%.2f\" "
                      "width=\"%.2f\" height=\"%.2f\"><title>unsafe: values %u "
                      "and %u share bytes [%llu, %llu) at instructions "
                      "%lld..%lld</title></rect>\n",
                      sx(&c, (double)o->first), y0,
                      sx(&c, (double)o->last + 1) - sx(&c, (double)o->first),
                      y1 - y0, o->a, o->b, (unsigned long long)o->byte_start,
                      (unsigned long long)o->byte_end, (long long)o->first,
                      (long long)o->last);
  }
  int rc = live_curve(s, p, b, &c);
  etk_render_puts(s, "</svg>\n");
  return rc;
}

/* Rules scoped to the map's container, so the map can sit inside another
 * page (etkit report) without restyling it. */
static const char map_style[] =
    ".mplan svg text{font:11px sans-serif;fill:#444}"
    ".mplan rect{stroke:#fff;stroke-width:0.3}"
    ".mplan rect:hover{stroke:#000;stroke-width:1.5}"
    ".mplan rect.alias{fill-opacity:0.35;stroke:#333;stroke-dasharray:3 2}"
    ".mplan rect.invalid{stroke:#d00;stroke-width:2}"
    ".mplan rect.frame{fill:#f6f6f6;stroke:#999}"
    ".mplan rect.overlap{fill:#e00;fill-opacity:0.55;stroke:#900;"
    "stroke-width:1.5}"
    ".mplan .curve{fill:#cde;stroke:#357;stroke-width:1.2}"
    ".mplan .limit{stroke:#999;stroke-dasharray:4 3}.mplan .peak{fill:#d00}"
    ".mplan text.peaklabel{fill:#d00;font-weight:bold}"
    ".mplan .mp-legend span{display:inline-block;width:auto;height:auto;"
    "margin:0 12px 4px 0}"
    ".mplan .mp-legend i{display:inline-block;width:12px;height:12px;"
    "margin-right:4px;vertical-align:middle}"
    ".mplan table{border-collapse:collapse}"
    ".mplan td,.mplan th{border:1px solid #ccc;padding:2px 8px;"
    "text-align:right}.mplan .bad{color:#d00}";

const char *etk_memory_plan_html_style(void) {
  return map_style;
}

int etk_memory_plan_render_html_body(const etk_memory_plan_t *p,
                                     etk_render_sink_t *s, etk_error_t *err) {
  if (!p || !s)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  legend_t l = {0};
  /* Legend first: one pass to collect the op types in order. */
  for (size_t k = 0; k < p->tensor_count; k++)
    if (p->tensors[k].first >= 0) legend_index(&l, p->tensors[k].op);
  etk_render_puts(s, "<div class=\"mplan\">\n<p>Method '");
  etk_html_texts(s, p->method);
  etk_render_printf(s,
                    "': %llu instructions, %zu planned tensors, "
                    "%zu buffers. x = instruction, y = byte offset; hover a "
                    "rectangle for its tensor.</p>\n<table><tr><th>mem_id</th>"
                    "<th>size</th><th>peak</th><th>peak at</th>"
                    "<th>utilisation</th></tr>\n",
                    (unsigned long long)p->num_instructions, p->tensor_count,
                    p->buffer_count);
  for (size_t k = 0; k < p->buffer_count; k++) {
    const etk_memory_plan_buffer_t *b = &p->buffers[k];
    char at[24] = "&ndash;"; /* no peak: JSON null, the text table's - */
    if (b->peak_instruction >= 0)
      snprintf(at, sizeof at, "%lld", (long long)b->peak_instruction);
    etk_render_printf(
        s,
        "<tr><td>%u</td><td>%llu</td><td>%llu</td><td>%s"
        "</td><td>%.1f%%</td></tr>\n",
        b->mem_id, (unsigned long long)b->size,
        (unsigned long long)b->peak_bytes, at,
        b->size ? 100.0 * (double)b->peak_bytes / (double)b->size : 0.0);
  }
  uint64_t problems = p->overlap_total + p->invalid_count;
  etk_render_printf(s,
                    "</table>\n<p class=\"%s\">Plan problems: %llu "
                    "(%llu unsafe overlaps, %zu invalid tensors)</p>\n",
                    problems ? "bad" : "", (unsigned long long)problems,
                    (unsigned long long)p->overlap_total, p->invalid_count);
  etk_render_puts(s, "<div class=\"mp-legend\">");
  for (size_t i = 0; i < l.count; i++) {
    etk_render_printf(s, "<span><i style=\"background:%s\"></i>",
                      legend_colour(i));
    put_text(s, l.types[i], op_type_len(l.types[i]));
    etk_render_puts(s, "</span>");
  }
  etk_render_puts(s,
                  "<span><i style=\"background:#e00\"></i>unsafe overlap"
                  "</span></div>\n");
  int rc = ETK_OK;
  for (size_t k = 0; k < p->buffer_count && rc == ETK_OK; k++)
    rc = buffer_map(s, p, &p->buffers[k], &l);
  etk_render_puts(s, "</div>\n");
  free(l.types);
  if (rc == ETK_OK) rc = s->status;
  if (rc != ETK_OK)
    return etk_error_set(err, rc, ETK_NO_OFFSET, "writing the memory map: %s",
                         etk_strerror(rc));
  return ETK_OK;
}

int etk_memory_plan_render_html(const etk_memory_plan_t *p,
                                etk_render_sink_t *s, etk_error_t *err) {
  if (!p || !s)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  etk_render_puts(s,
                  "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
                  "<title>Memory plan: ");
  etk_html_texts(s, p->method);
  etk_render_printf(s,
                    "</title>\n<style>body{font:13px sans-serif;"
                    "margin:16px;color:#222}%s</style></head><body>\n"
                    "<h1>Memory plan of method '",
                    map_style);
  etk_html_texts(s, p->method);
  etk_render_puts(s, "'</h1>\n");
  int rc = etk_memory_plan_render_html_body(p, s, err);
  if (rc != ETK_OK) return rc;
  etk_render_puts(s, "</body></html>\n");
  if (s->status != ETK_OK)
    return etk_error_set(err, s->status, ETK_NO_OFFSET,
                         "writing the memory map: %s", etk_strerror(s->status));
  return ETK_OK;
}
