/*
 * store_table.c - the result table every store query returns, and how it
 * renders: the box table and CSV through etkit/render.h's frame renderers,
 * JSON as an array of objects (one per row, keys = headers).  Also the
 * small shared helpers of the queries: sample summaries, time text and a
 * growable list of doubles.
 *
 * DATA LAYOUT
 *   Cells are render.h's etk_cell_t in one row-major array; a text cell's
 *   bytes are malloc'd and owned by the table (freed by
 *   etk_store_table_free).  Rows grow by doubling.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store_internal.h"

int store_table_init(etk_store_table_t *t, const char *const *headers,
                     size_t cols) {
  memset(t, 0, sizeof *t);
  t->headers = calloc(cols, sizeof *t->headers);
  if (!t->headers) return ETK_E_NO_MEMORY;
  t->cols = cols;
  for (size_t i = 0; i < cols; i++)
    if (!(t->headers[i] = strdup(headers[i]))) {
      etk_store_table_free(t);
      return ETK_E_NO_MEMORY;
    }
  return ETK_OK;
}

etk_cell_t *store_table_row(etk_store_table_t *t) {
  if (t->rows == t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 16;
    if (cap > SIZE_MAX / sizeof(etk_cell_t) / (t->cols ? t->cols : 1))
      return NULL;
    etk_cell_t *c = realloc(t->cells, cap * t->cols * sizeof *c);
    if (!c) return NULL;
    t->cells = c;
    t->cap = cap;
  }
  etk_cell_t *row = t->cells + t->rows * t->cols;
  memset(row, 0, t->cols * sizeof *row);
  t->rows++;
  return row;
}

bool store_cell_text(etk_cell_t *c, const char *text) {
  if (!text) {
    etk_cell_set_none(c);
    return true;
  }
  size_t n = strlen(text);
  char *copy = malloc(n + 1);
  if (!copy) return false;
  memcpy(copy, text, n + 1);
  etk_cell_set_text(c, copy, n);
  return true;
}

void etk_store_table_free(etk_store_table_t *t) {
  if (!t) return;
  for (size_t i = 0; i < t->rows * t->cols; i++)
    if (t->cells[i].kind == ETK_CELL_TEXT ||
        t->cells[i].kind == ETK_CELL_OBJECT)
      free((char *)t->cells[i].text);
  for (size_t i = 0; t->headers && i < t->cols; i++) free(t->headers[i]);
  free(t->headers);
  free(t->cells);
  memset(t, 0, sizeof *t);
}

int etk_store_format_parse(const char *name, etk_store_format_t *out) {
  static const char *const names[] = {"table", "csv", "json"};
  for (int i = 0; name && i < 3; i++)
    if (strcmp(name, names[i]) == 0) {
      *out = (etk_store_format_t)i;
      return ETK_OK;
    }
  return ETK_E_INVALID_ARGUMENT;
}

static int table_cell(void *ctx, size_t row, size_t col, etk_cell_t *out,
                      etk_strbuf_t *scratch) {
  const etk_store_table_t *t = ctx;
  (void)scratch;
  *out = t->cells[row * t->cols + col];
  return ETK_OK;
}

void store_json_cell(etk_json_t *j, const etk_cell_t *c) {
  switch (c->kind) {
    case ETK_CELL_FLOAT:
      if (isfinite(c->f))
        etk_json_double(j, c->f);
      else
        etk_json_cstring(j, NULL);
      break;
    case ETK_CELL_INT:
      etk_json_int(j, c->i);
      break;
    case ETK_CELL_BOOL:
      etk_json_bool(j, (int)c->i);
      break;
    case ETK_CELL_TEXT:
    case ETK_CELL_OBJECT:
      etk_json_string(j, c->text, c->len);
      break;
    default:
      etk_json_cstring(j, NULL);
      break;
  }
}

int etk_store_table_render(const etk_store_table_t *t, etk_store_format_t f,
                           etk_render_sink_t *sink, etk_error_t *err) {
  if (!t || !sink) return ETK_E_INVALID_ARGUMENT;
  if (f == ETK_STORE_FORMAT_JSON) {
    etk_json_t j;
    etk_json_init(&j, sink, 2);
    etk_json_begin_array(&j);
    for (size_t r = 0; r < t->rows; r++) {
      etk_json_begin_object(&j);
      for (size_t c = 0; c < t->cols; c++) {
        etk_json_key(&j, t->headers[c]);
        store_json_cell(&j, &t->cells[r * t->cols + c]);
      }
      etk_json_end_object(&j);
    }
    etk_json_end_array(&j);
    etk_render_putc(sink, '\n');
    return ETK_OK;
  }
  etk_frame_t frame = {t->rows,    t->cols,   (const char *const *)t->headers,
                       table_cell, (void *)t, 0};
  if (f == ETK_STORE_FORMAT_CSV)
    return etk_render_delimited(&frame, ',', sink, err);
  return etk_render_table(&frame, sink, err);
}

/* ------------------------------------------------------------- helpers */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void store_summarize(double *v, size_t n, store_summary_t *out) {
  memset(out, 0, sizeof *out);
  out->count = n;
  if (n == 0) {
    out->median = out->mean = out->min = out->max = NAN;
    return;
  }
  qsort(v, n, sizeof *v, cmp_double);
  double sum = 0.0;
  for (size_t i = 0; i < n; i++) sum += v[i];
  out->sum = sum;
  out->mean = sum / (double)n;
  out->min = v[0];
  out->max = v[n - 1];
  out->median = (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void store_format_time(int64_t t, char *out, size_t size) {
  time_t tt = (time_t)t;
  struct tm tm;
  if (!gmtime_r(&tt, &tm) || !strftime(out, size, "%Y-%m-%d %H:%M:%S", &tm))
    snprintf(out, size, "%lld", (long long)t);
}

bool store_grow(void **items, size_t *cap, size_t count, size_t size) {
  if (count < *cap) return true;
  size_t n = *cap ? *cap * 2 : 64;
  void *p = n <= SIZE_MAX / size ? realloc(*items, n * size) : NULL;
  if (!p) return false;
  *items = p;
  *cap = n;
  return true;
}

bool store_doubles_push(store_doubles_t *v, double x) {
  if (!store_grow((void **)&v->items, &v->cap, v->count, sizeof x))
    return false;
  v->items[v->count++] = x;
  return true;
}

bool store_ids_push(store_ids_t *v, int64_t x) {
  if (!store_grow((void **)&v->items, &v->cap, v->count, sizeof x))
    return false;
  v->items[v->count++] = x;
  return true;
}

int store_ids_row(void *ctx, const store_row_t *row) {
  return store_ids_push(ctx, row->ops->get_int(row, 0)) ? 0 : ETK_E_NO_MEMORY;
}
