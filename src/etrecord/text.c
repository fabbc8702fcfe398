/*
 * text.c - decoding the text fields of node metadata: Python stack traces,
 * nn_module_stack, source_fn_stack, module access paths and target names,
 * and a program's schema_version as text.
 *
 * All public functions here are pure: they read a (pointer, length) text,
 * never allocate, and return spans into the input or write snprintf-style
 * into a caller buffer.  That makes them safe on hostile input and usable
 * by the inspector on strings from anywhere.  The two etr_*_decode
 * helpers at the end copy the decoded parts into an arena for edge_program.c.
 *
 * Formats (torch's, as the ETRecord JSON stores them):
 *   stack_trace      '  File "<path>", line <n>, in <func>\n    <code>\n'
 *                    repeated, outermost frame first;
 *   nn_module_stack  "key,path,type;key,path,type", outermost first; the
 *                    path may itself contain commas inside () or [], as in
 *                    "getattr(L['self'].layers, '0')";
 *   source_fn_stack  "name,fn;name,fn".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---------------------------------------------------------- stack traces */

static bool span_starts(const char *s, size_t n, const char *lit) {
  size_t m = strlen(lit);
  return n >= m && memcmp(s, lit, m) == 0;
}

static void trim(const char **s, size_t *n) {
  while (*n && (**s == ' ' || **s == '\t')) {
    (*s)++;
    (*n)--;
  }
  while (*n &&
         ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t' || (*s)[*n - 1] == '\r'))
    (*n)--;
}

/* Parses one line as a frame header; false if it is not one. */
static bool parse_frame_line(const char *line, size_t n,
                             etk_etrecord_frame_t *f) {
  trim(&line, &n);
  if (!span_starts(line, n, "File \"")) return false;
  const char *body = line + 6;
  size_t rest = n - 6;
  /* The file is greedy: everything up to the last `", line `. */
  static const char sep[] = "\", line ";
  size_t sep_len = sizeof sep - 1;
  size_t at = SIZE_MAX;
  for (size_t i = 0; i + sep_len <= rest; i++)
    if (memcmp(body + i, sep, sep_len) == 0) at = i;
  if (at == SIZE_MAX) return false;
  size_t i = at + sep_len;
  int64_t num = 0;
  size_t digits = 0;
  while (i < rest && body[i] >= '0' && body[i] <= '9') {
    if (num < INT64_MAX / 10 - 10) num = num * 10 + (body[i] - '0');
    i++;
    digits++;
  }
  if (digits == 0 || !span_starts(body + i, rest - i, ", in ")) return false;
  i += 5;
  f->file.ptr = body;
  f->file.len = at;
  f->line = num;
  f->function.ptr = body + i;
  f->function.len = rest - i;
  f->code.ptr = body + rest;
  f->code.len = 0;
  return true;
}

/* The line of text[0..len) that starts at *pos (without its newline);
 * moves *pos past the newline.  Call while *pos < len. */
static etk_etrecord_span_t next_line(const char *text, size_t len,
                                     size_t *pos) {
  etk_etrecord_span_t line = {text + *pos, len - *pos};
  const char *nl = memchr(line.ptr, '\n', line.len);
  if (nl) line.len = (size_t)(nl - line.ptr);
  *pos += line.len + (nl ? 1 : 0);
  return line;
}

int etk_etrecord_stack_trace_split(const char *text, size_t len,
                                   etk_etrecord_frame_t *frames, size_t cap,
                                   size_t *count) {
  if (!count || (!text && len > 0) || (!frames && cap > 0))
    return ETK_E_INVALID_ARGUMENT;
  size_t n = 0;
  size_t pos = 0;
  etk_etrecord_frame_t *last = NULL;
  while (pos < len) {
    etk_etrecord_span_t line = next_line(text, len, &pos);
    etk_etrecord_frame_t f;
    if (parse_frame_line(line.ptr, line.len, &f)) {
      if (n < cap) {
        frames[n] = f;
        last = &frames[n];
      } else {
        last = NULL;
      }
      n++;
      continue;
    }
    if (last && last->code.len == 0) {
      trim(&line.ptr, &line.len);
      last->code = line;
    }
    last = NULL;
  }
  *count = n;
  return ETK_OK;
}

static bool library_file(etk_etrecord_span_t file) {
  if (file.len && file.ptr[0] == '<') return true;
  static const char *const dirs[] = {"/site-packages/", "/dist-packages/"};
  for (size_t d = 0; d < 2; d++) {
    size_t m = strlen(dirs[d]);
    for (size_t i = 0; i + m <= file.len; i++)
      if (memcmp(file.ptr + i, dirs[d], m) == 0) return true;
  }
  return false;
}

int etk_etrecord_stack_trace_user_frame(const char *text, size_t len,
                                        etk_etrecord_frame_t *frame) {
  if (!frame || (!text && len > 0)) return ETK_E_INVALID_ARGUMENT;
  /* Walk frames one at a time (no allocation), keeping the last user one
   * and the last one overall. */
  bool have_any = false, have_user = false;
  etk_etrecord_frame_t any, user;
  size_t pos = 0;
  while (pos < len) {
    etk_etrecord_span_t line = next_line(text, len, &pos);
    etk_etrecord_frame_t f;
    if (!parse_frame_line(line.ptr, line.len, &f)) continue;
    /* The code line, if the next line is not a frame itself. */
    if (pos < len) {
      size_t peek = pos;
      etk_etrecord_span_t next = next_line(text, len, &peek);
      etk_etrecord_frame_t probe;
      if (!parse_frame_line(next.ptr, next.len, &probe)) {
        trim(&next.ptr, &next.len);
        f.code = next;
      }
    }
    any = f;
    have_any = true;
    if (!library_file(f.file)) {
      user = f;
      have_user = true;
    }
  }
  if (!have_any) return ETK_E_NOT_FOUND;
  *frame = have_user ? user : any;
  return ETK_OK;
}

/* --------------------------------------------------------- module stacks */

/* Splits s[0..n) on `sep` outside () and []; calls back per part.  Returns
 * the number of parts. */
typedef struct part_sink {
  etk_etrecord_span_t *parts;
  size_t cap;
} part_sink_t;

static size_t split_outside_brackets(const char *s, size_t n, char sep,
                                     part_sink_t *sink) {
  size_t parts = 0, start = 0;
  int depth = 0;
  for (size_t i = 0; i <= n; i++) {
    char c = i < n ? s[i] : sep;
    if (c == '(' || c == '[') {
      depth++;
    } else if ((c == ')' || c == ']') && depth > 0) {
      depth--;
    } else if (c == sep && (depth == 0 || i == n)) {
      if (parts < sink->cap) {
        sink->parts[parts].ptr = s + start;
        sink->parts[parts].len = i - start;
      }
      parts++;
      start = i + 1;
    }
  }
  return parts;
}

int etk_etrecord_module_stack_split(const char *text, size_t len,
                                    etk_etrecord_module_span_t *entries,
                                    size_t cap, size_t *count) {
  if (!count || (!text && len > 0) || (!entries && cap > 0))
    return ETK_E_INVALID_ARGUMENT;
  *count = 0;
  if (len == 0) return ETK_OK;
  size_t n = 0, start = 0;
  for (size_t i = 0; i <= len; i++) {
    if (i < len && text[i] != ';') continue;
    etk_etrecord_span_t parts[3];
    part_sink_t sink = {parts, 3};
    size_t k = split_outside_brackets(text + start, i - start, ',', &sink);
    if (k != 3) {
      *count = n;
      return ETK_E_FORMAT;
    }
    if (n < cap) {
      entries[n].key = parts[0];
      entries[n].path = parts[1];
      entries[n].type = parts[2];
    }
    n++;
    start = i + 1;
  }
  *count = n;
  return ETK_OK;
}

/* snprintf-style output cursor. */
typedef struct out_cursor {
  char *out;
  size_t size, len;
} out_cursor_t;

static void put(out_cursor_t *o, const char *s, size_t n) {
  if (o->size && o->len < o->size - 1) {
    size_t room = o->size - 1 - o->len;
    memcpy(o->out + o->len, s, n < room ? n : room);
  }
  o->len += n;
}

static void put_component(out_cursor_t *o, const char *s, size_t n) {
  if (o->len) put(o, ".", 1);
  put(o, s, n);
}

static void finish(out_cursor_t *o) {
  if (o->size) o->out[o->len < o->size ? o->len : o->size - 1] = 0;
}

static bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_';
}

typedef struct path_parser {
  const char *s;
  size_t n, i;
  out_cursor_t *o;
  int depth;
} path_parser_t;

static bool pp_lit(path_parser_t *p, const char *lit) {
  size_t m = strlen(lit);
  if (p->n - p->i < m || memcmp(p->s + p->i, lit, m) != 0) return false;
  p->i += m;
  return true;
}

static void pp_spaces(path_parser_t *p) {
  while (p->i < p->n && p->s[p->i] == ' ') p->i++;
}

static bool pp_quoted(path_parser_t *p, const char **q, size_t *qn) {
  if (p->i >= p->n || (p->s[p->i] != '\'' && p->s[p->i] != '"')) return false;
  char quote = p->s[p->i++];
  size_t start = p->i;
  while (p->i < p->n && p->s[p->i] != quote) p->i++;
  if (p->i >= p->n) return false;
  *q = p->s + start;
  *qn = p->i - start;
  p->i++;
  return true;
}

static bool pp_expr(path_parser_t *p);

static bool pp_primary(path_parser_t *p) {
  if (pp_lit(p, "getattr(")) {
    if (++p->depth > 64 || !pp_expr(p)) return false;
    p->depth--;
    pp_spaces(p);
    if (!pp_lit(p, ",")) return false;
    pp_spaces(p);
    const char *q;
    size_t qn;
    if (!pp_quoted(p, &q, &qn)) return false;
    pp_spaces(p);
    if (!pp_lit(p, ")")) return false;
    put_component(p->o, q, qn);
    return true;
  }
  if (pp_lit(p, "L['self']") || pp_lit(p, "L[\"self\"]")) return true;
  if (pp_lit(p, "L__self__")) {
    if (p->i < p->n && p->s[p->i] == '_') {
      size_t start = ++p->i;
      while (p->i < p->n && ident_char(p->s[p->i])) p->i++;
      if (p->i == start) return false;
      put_component(p->o, p->s + start, p->i - start);
    }
    return true;
  }
  size_t start = p->i;
  while (p->i < p->n && ident_char(p->s[p->i])) p->i++;
  if (p->i == start) return false;
  if (p->i - start == 4 && memcmp(p->s + start, "self", 4) == 0) return true;
  put_component(p->o, p->s + start, p->i - start);
  return true;
}

static bool pp_expr(path_parser_t *p) {
  if (!pp_primary(p)) return false;
  for (;;) {
    if (pp_lit(p, ".")) {
      size_t start = p->i;
      while (p->i < p->n && ident_char(p->s[p->i])) p->i++;
      if (p->i == start) return false;
      put_component(p->o, p->s + start, p->i - start);
    } else if (p->i < p->n && p->s[p->i] == '[') {
      p->i++;
      const char *q;
      size_t qn;
      if (pp_quoted(p, &q, &qn)) {
        put_component(p->o, q, qn);
      } else {
        size_t start = p->i;
        while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') p->i++;
        if (p->i == start) return false;
        put_component(p->o, p->s + start, p->i - start);
      }
      if (!pp_lit(p, "]")) return false;
    } else {
      return true;
    }
  }
}

size_t etk_etrecord_module_path_normalize(const char *path, size_t len,
                                          char *out, size_t out_size) {
  out_cursor_t o = {out, out ? out_size : 0, 0};
  if (!path) len = 0;
  path_parser_t p = {path, len, 0, &o, 0};
  if (len == 0 || !pp_expr(&p) || p.i != len) {
    o.len = 0;
    put(&o, path ? path : "", len);
  }
  finish(&o);
  return o.len;
}

int etr_module_stack_decode(etr_arena_t *arena, const char *text,
                            etk_etrecord_module_entry_t **entries,
                            size_t *count) {
  *entries = NULL;
  *count = 0;
  size_t len = strlen(text), n = 0;
  if (etk_etrecord_module_stack_split(text, len, NULL, 0, &n) != ETK_OK)
    return ETK_E_FORMAT;
  if (n == 0) return ETK_OK;
  etk_etrecord_module_span_t *spans = calloc(n, sizeof *spans);
  etk_etrecord_module_entry_t *e = etr_arena_calloc(arena, n, sizeof *e);
  if (!spans || !e) {
    free(spans);
    return ETK_E_NO_MEMORY;
  }
  etk_etrecord_module_stack_split(text, len, spans, n, &n);
  for (size_t i = 0; i < n; i++) {
    e[i].key = etr_arena_strndup(arena, spans[i].key.ptr, spans[i].key.len);
    e[i].path = etr_arena_strndup(arena, spans[i].path.ptr, spans[i].path.len);
    e[i].type = etr_arena_strndup(arena, spans[i].type.ptr, spans[i].type.len);
    size_t need = etk_etrecord_module_path_normalize(
        spans[i].path.ptr, spans[i].path.len, NULL, 0);
    char *norm = etr_arena_alloc(arena, need + 1);
    if (!e[i].key || !e[i].path || !e[i].type || !norm) {
      free(spans);
      return ETK_E_NO_MEMORY;
    }
    etk_etrecord_module_path_normalize(spans[i].path.ptr, spans[i].path.len,
                                       norm, need + 1);
    e[i].normalized = norm;
  }
  free(spans);
  *entries = e;
  *count = n;
  return ETK_OK;
}

int etr_source_fn_stack_decode(etr_arena_t *arena, const char *text,
                               etk_etrecord_source_fn_t **entries,
                               size_t *count) {
  *entries = NULL;
  *count = 0;
  size_t len = strlen(text);
  if (len == 0) return ETK_OK;
  size_t n = 1;
  for (size_t i = 0; i < len; i++) n += text[i] == ';';
  etk_etrecord_source_fn_t *e = etr_arena_calloc(arena, n, sizeof *e);
  if (!e) return ETK_E_NO_MEMORY;
  size_t k = 0, start = 0;
  for (size_t i = 0; i <= len; i++) {
    if (i < len && text[i] != ';') continue;
    etk_etrecord_span_t parts[2];
    part_sink_t sink = {parts, 2};
    if (split_outside_brackets(text + start, i - start, ',', &sink) != 2)
      return ETK_E_FORMAT;
    e[k].name = etr_arena_strndup(arena, parts[0].ptr, parts[0].len);
    e[k].fn = etr_arena_strndup(arena, parts[1].ptr, parts[1].len);
    if (!e[k].name || !e[k].fn) return ETK_E_NO_MEMORY;
    k++;
    start = i + 1;
  }
  *entries = e;
  *count = k;
  return ETK_OK;
}

/* ------------------------------------------------------- node helpers */

bool etk_etrecord_node_in_module(const etk_etrecord_node_t *node,
                                 const char *name,
                                 etk_etrecord_module_match_t mode) {
  if (!node || !name) return false;
  for (size_t i = 0; i < node->module_count; i++) {
    const etk_etrecord_module_entry_t *m = &node->modules[i];
    if (mode == ETK_ETRECORD_MODULE_SUBSTRING) {
      if (strstr(m->key, name)) return true;
    } else if (strcmp(m->normalized, name) == 0 || strcmp(m->path, name) == 0 ||
               strcmp(m->key, name) == 0) {
      return true;
    }
  }
  return false;
}

size_t etk_etrecord_node_module_path(const etk_etrecord_node_t *node,
                                     bool with_type, char *out,
                                     size_t out_size) {
  out_cursor_t o = {out, out ? out_size : 0, 0};
  if (node && node->module_count) {
    const etk_etrecord_module_entry_t *m =
        &node->modules[node->module_count - 1];
    put(&o, m->normalized, strlen(m->normalized));
    if (with_type && m->type[0]) {
      const char *dot = strrchr(m->type, '.');
      const char *t = dot ? dot + 1 : m->type;
      if (o.len) put(&o, " ", 1);
      put(&o, "(", 1);
      put(&o, t, strlen(t));
      put(&o, ")", 1);
    }
  }
  finish(&o);
  return o.len;
}

size_t etk_etrecord_program_schema_version(const etk_etrecord_program_t *prog,
                                           char *out, size_t out_size) {
  int n;
  if (prog->schema_minor >= 0)
    n = snprintf(out, out_size, "%lld.%lld", (long long)prog->schema_major,
                 (long long)prog->schema_minor);
  else
    n = snprintf(out, out_size, "%lld", (long long)prog->schema_major);
  return n < 0 ? 0 : (size_t)n;
}

size_t etk_etrecord_node_source(const etk_etrecord_node_t *node, bool full_path,
                                char *out, size_t out_size) {
  out_cursor_t o = {out, out ? out_size : 0, 0};
  etk_etrecord_frame_t f;
  if (node && node->stack_trace &&
      etk_etrecord_stack_trace_user_frame(
          node->stack_trace, strlen(node->stack_trace), &f) == ETK_OK) {
    const char *file = f.file.ptr;
    size_t n = f.file.len;
    if (!full_path) {
      for (size_t i = n; i-- > 0;)
        if (f.file.ptr[i] == '/' || f.file.ptr[i] == '\\') {
          file = f.file.ptr + i + 1;
          n = f.file.len - i - 1;
          break;
        }
    }
    put(&o, file, n);
    char num[32];
    int k = snprintf(num, sizeof num, ":%lld", (long long)f.line);
    put(&o, num, (size_t)k);
  }
  finish(&o);
  return o.len;
}

/* ------------------------------------------------------------- targets */

size_t etk_etrecord_op_from_target(const char *target, char *out,
                                   size_t out_size) {
  static const char *const prefixes[] = {
      "executorch.exir.dialects.edge.ops.",
      "executorch.exir.dialects.backend.ops.",
      "torch.ops.higher_order.",
      "torch.ops.",
      "executorch.exir.memory.",
      "memory.",
      "_operator.",
  };
  out_cursor_t o = {out, out ? out_size : 0, 0};
  const char *t = target ? target : "";
  for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
    size_t m = strlen(prefixes[i]);
    if (strncmp(t, prefixes[i], m) == 0 && t[m]) {
      t += m;
      break;
    }
  }
  put(&o, t, strlen(t));
  finish(&o);
  return o.len;
}

size_t etk_etrecord_edge_target(const char *op, char *out, size_t out_size) {
  static const char edge[] = "executorch.exir.dialects.edge.ops.";
  out_cursor_t o = {out, out ? out_size : 0, 0};
  if (!op) op = "";
  if (strncmp(op, "executorch.exir.dialects.", 25) == 0) {
    put(&o, op, strlen(op));
    finish(&o);
    return o.len;
  }
  put(&o, edge, sizeof edge - 1);
  const char *sep = strstr(op, "::");
  size_t dots = 0;
  for (const char *c = op; *c; c++) dots += *c == '.';
  if (sep) {
    put(&o, op, (size_t)(sep - op));
    put(&o, ".", 1);
    put(&o, sep + 2, strlen(sep + 2));
    if (!strchr(sep + 2, '.')) put(&o, ".default", 8);
  } else {
    if (dots == 0) put(&o, "aten.", 5);
    put(&o, op, strlen(op));
    if (dots <= 1) put(&o, ".default", 8);
  }
  finish(&o);
  return o.len;
}
