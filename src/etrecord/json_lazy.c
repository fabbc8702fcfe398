/*
 * json_lazy.c - reading a big JSON member a piece at a time, and a bound on
 * the memory jansson may take for one document.
 *
 * A program member is one JSON document whose size is nearly all in two
 * containers of its top graph: graph_module.graph.nodes (a list) and
 * graph_module.graph.tensor_values (an object).  jansson's tree of a whole
 * document takes 10 to 20 times its text; walking it element by element
 * (one element's tree at a time, freed before the next) keeps the peak
 * near the text plus what the program keeps.  The scanner here finds those
 * containers and their elements' byte spans without building anything:
 * it follows strings, brackets and scalars only, and leaves every check
 * of the contents to jansson, which parses each element on its own.
 * Anything the scanner does not understand makes it give up (false), and
 * the caller parses the whole document as before.
 *
 * The bound: jansson's allocations go through a counter (installed once
 * with json_set_alloc_funcs; malloc and free themselves are unchanged, so
 * trees allocated before or outside a parse are freed as usual).  While a
 * parse runs on this thread with a budget, an allocation that would pass
 * the budget fails, jansson stops with "out of memory", and
 * etr_json_parse reports ETK_E_LIMIT naming the bound.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ------------------------------------------------------------- budget */

static _Thread_local struct {
  bool active, exceeded;
  size_t used, limit;
} g_budget;

static void *budget_malloc(size_t n) {
  if (g_budget.active) {
    if (n > g_budget.limit - g_budget.used) {
      g_budget.exceeded = true;
      return NULL;
    }
    g_budget.used += n;
  }
  return malloc(n);
}

static void budget_free(void *p) {
  free(p);
}

/* Installed at the first parse.  A parse racing with the installation on
 * another thread merely goes uncounted: malloc and free stay malloc and
 * free either way. */
static atomic_int g_installed;

void etr_json_budget_begin(const etk_etrecord_limits_t *limits, size_t len) {
  if (!atomic_exchange(&g_installed, 1))
    json_set_alloc_funcs(budget_malloc, budget_free);
  uint32_t ratio = limits->max_json_memory_ratio;
  g_budget.exceeded = false;
  g_budget.used = 0;
  g_budget.active = ratio != 0;
  if (!ratio) return;
  size_t limit = len > SIZE_MAX / ratio ? SIZE_MAX : len * ratio;
  g_budget.limit = limit < ETR_JSON_MIN_BUDGET ? ETR_JSON_MIN_BUDGET : limit;
}

bool etr_json_budget_end(size_t *limit) {
  bool exceeded = g_budget.active && g_budget.exceeded;
  *limit = g_budget.limit;
  g_budget.active = false;
  return exceeded;
}

/* ------------------------------------------------------------ scanner */

static size_t skip_ws(const char *t, size_t len, size_t i) {
  while (i < len &&
         (t[i] == ' ' || t[i] == '\n' || t[i] == '\r' || t[i] == '\t'))
    i++;
  return i;
}

/* End (one past) of the string token starting at t[i] == '"'; 0 = bad. */
static size_t skip_string(const char *t, size_t len, size_t i) {
  for (i++; i < len; i++) {
    if (t[i] == '\\')
      i++;
    else if (t[i] == '"')
      return i + 1;
  }
  return 0;
}

/* End of the value starting at t[i] (no leading blanks); 0 = bad. */
static size_t skip_value(const char *t, size_t len, size_t i) {
  if (i >= len) return 0;
  if (t[i] == '"') return skip_string(t, len, i);
  if (t[i] == '{' || t[i] == '[') {
    size_t depth = 0;
    while (i < len) {
      char c = t[i];
      if (c == '"') {
        i = skip_string(t, len, i);
        if (!i) return 0;
        continue;
      }
      if (c == '{' || c == '[') depth++;
      if (c == '}' || c == ']') {
        if (--depth == 0) return i + 1;
      }
      i++;
    }
    return 0;
  }
  size_t start = i;
  while (i < len && t[i] != ',' && t[i] != ']' && t[i] != '}' && t[i] != ' ' &&
         t[i] != '\n' && t[i] != '\r' && t[i] != '\t' && t[i] != ':' &&
         t[i] != '"' && t[i] != '[' && t[i] != '{')
    i++;
  return i > start ? i : 0;
}

bool etr_json_next(const char *t, etr_json_iter_t *it, etr_json_span_t *key,
                   etr_json_span_t *value) {
  size_t i = skip_ws(t, it->end, it->at);
  if (it->bad || i >= it->end) {
    it->bad = true;
    return false;
  }
  if (t[i] == it->close && !it->need_value) {
    it->at = it->end;
    return false;
  }
  if (key) {
    size_t kend = t[i] == '"' ? skip_string(t, it->end, i) : 0;
    if (!kend) goto bad;
    key->start = i;
    key->end = kend;
    i = skip_ws(t, it->end, kend);
    if (i >= it->end || t[i] != ':') goto bad;
    i = skip_ws(t, it->end, i + 1);
  }
  size_t vend = skip_value(t, it->end, i);
  if (!vend) goto bad;
  value->start = i;
  value->end = vend;
  i = skip_ws(t, it->end, vend);
  if (i < it->end && t[i] == ',') {
    it->need_value = true;
    it->at = i + 1;
  } else if (i < it->end && t[i] == it->close && i + 1 == it->end) {
    it->need_value = false;
    it->at = i;
  } else {
    goto bad;
  }
  return true;
bad:
  it->bad = true;
  return false;
}

bool etr_json_iter_init(const char *t, etr_json_span_t span, char open,
                        etr_json_iter_t *it) {
  memset(it, 0, sizeof *it);
  if (span.end - span.start < 2 || t[span.start] != open) return false;
  it->at = span.start + 1;
  it->end = span.end;
  it->close = open == '[' ? ']' : '}';
  return true;
}

/* Whether the key token t[k] (quotes included) is exactly `name` (keys
 * with escapes never match: the caller then parses the whole document). */
static bool key_is(const char *t, etr_json_span_t k, const char *name) {
  size_t n = strlen(name);
  return k.end - k.start == n + 2 && memcmp(t + k.start + 1, name, n) == 0 &&
         !memchr(t + k.start + 1, '\\', n);
}

bool etr_json_member(const char *t, etr_json_span_t obj, const char *name,
                     etr_json_span_t *out) {
  etr_json_iter_t it;
  etr_json_span_t k, v;
  bool found = false;
  if (!etr_json_iter_init(t, obj, '{', &it)) return false;
  while (etr_json_next(t, &it, &k, &v))
    if (key_is(t, k, name)) {
      *out = v; /* the last one wins, as in jansson */
      found = true;
    }
  return found && !it.bad;
}

bool etr_json_root(const char *t, size_t len, etr_json_span_t *out) {
  size_t i = skip_ws(t, len, 0);
  size_t end = skip_value(t, len, i);
  if (!end || skip_ws(t, len, end) != len) return false;
  out->start = i;
  out->end = end;
  return true;
}
