/*
 * event_origins.c - where an event's operators came from: the per-node
 * origins an ETRecord linker attaches (source frame, nn_module_stack), and
 * what the inspector derives from them: the event's module (the deepest
 * module holding all its nodes), its source text, and upstream's
 * find_total_for_module.
 *
 * STORAGE
 *   insp->origins is NULL until the first etk_inspector_event_set_origins;
 *   then one pointer per event, NULL for events without origins.  Each
 *   event's origins are ONE allocation laid out as
 *       insp_origins_t | node origins[count] | modules[sum of counts] | strings
 *   so a pointer handed out stays valid until that event's origins are
 *   replaced or the inspector is closed, and freeing is one free().
 *
 * THE EVENT'S MODULE
 *   Two module-stack entries are the same module when their normalised
 *   dotted paths are equal (keys carry call-site suffixes, paths do not).
 *   The event's module is the longest common prefix of the stacks of its
 *   nodes that have one, after dropping leading root entries (normalised
 *   path ""), so a count of 0 means the root module.
 *
 * find_total_for_module (upstream Inspector, inspector notes 6.7)
 *   For every event not named exactly "OPERATOR_CALL", look at its nodes'
 *   module stacks (nodes without one are skipped); if any entry matches,
 *   add the event's avg once (when it has perf data) and go to the next
 *   event.  Upstream matches "name is a substring of an entry key"; the
 *   exact mode compares the dotted path, the recorded path and the key.
 */
#include <stdlib.h>
#include <string.h>

#include "inspector_internal.h"

static size_t str_size(const char *s) {
  return s ? strlen(s) + 1 : 0;
}

static size_t align8(size_t n) {
  return (n + 7) & ~(size_t)7;
}

static void free_one(insp_origins_t *o) {
  free(o);
}

void insp_origins_free(etk_inspector_t *insp) {
  if (!insp->origins) return;
  for (size_t i = 0; i < insp->event_count; i++) free_one(insp->origins[i]);
  free(insp->origins);
  insp->origins = NULL;
}

int etk_inspector_event_set_origins(etk_inspector_t *insp, size_t event,
                                    const etk_inspector_node_origin_t *origins,
                                    size_t count, etk_error_t *err) {
  if (!insp || event >= insp->event_count || (count && !origins))
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_inspector_event_set_origins: bad argument");
  size_t modules = 0, strings = 0;
  for (size_t i = 0; i < count; i++) {
    const etk_inspector_node_origin_t *o = &origins[i];
    if (o->module_count && !o->modules)
      return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                           "etk_inspector_event_set_origins: node %zu has "
                           "module_count %zu and no modules",
                           i, o->module_count);
    if (o->module_count > SIZE_MAX / 64 - modules)
      return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                           "too many module entries");
    modules += o->module_count;
    strings += str_size(o->file) + str_size(o->function);
    for (size_t k = 0; k < o->module_count; k++) {
      const etk_inspector_module_t *m = &o->modules[k];
      strings += str_size(m->key) + str_size(m->path) +
                 str_size(m->normalized) + str_size(m->type);
    }
  }
  if (!insp->origins && count == 0) return ETK_OK;
  if (!insp->origins) {
    insp->origins = calloc(insp->event_count, sizeof *insp->origins);
    if (!insp->origins)
      return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                           "out of memory");
  }
  insp_origins_t *block = NULL;
  if (count) {
    size_t head = align8(sizeof(insp_origins_t));
    size_t nodes = align8(count * sizeof(etk_inspector_node_origin_t));
    size_t mods = align8(modules * sizeof(etk_inspector_module_t));
    if (count > SIZE_MAX / 64 || strings > SIZE_MAX - head - nodes - mods - 1)
      return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                           "origins too large");
    char *mem = calloc(1, head + nodes + mods + strings + 1);
    if (!mem)
      return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                           "out of memory");
    block = (insp_origins_t *)(void *)mem;
    etk_inspector_node_origin_t *nv =
        (etk_inspector_node_origin_t *)(void *)(mem + head);
    etk_inspector_module_t *mv =
        (etk_inspector_module_t *)(void *)(mem + head + nodes);
    char *p = mem + head + nodes + mods;
#define COPY_STR(dst, src)         \
  do {                             \
    if (src) {                     \
      size_t n_ = strlen(src) + 1; \
      memcpy(p, src, n_);          \
      (dst) = p;                   \
      p += n_;                     \
    } else {                       \
      (dst) = NULL;                \
    }                              \
  } while (0)
    for (size_t i = 0; i < count; i++) {
      const etk_inspector_node_origin_t *o = &origins[i];
      COPY_STR(nv[i].file, o->file);
      COPY_STR(nv[i].function, o->function);
      nv[i].line = o->file ? o->line : 0;
      nv[i].modules = o->module_count ? mv : NULL;
      nv[i].module_count = o->module_count;
      for (size_t k = 0; k < o->module_count; k++, mv++) {
        const etk_inspector_module_t *m = &o->modules[k];
        COPY_STR(mv->key, m->key ? m->key : "");
        COPY_STR(mv->path, m->path ? m->path : "");
        COPY_STR(mv->normalized, m->normalized ? m->normalized : "");
        COPY_STR(mv->type, m->type ? m->type : "");
      }
    }
#undef COPY_STR
    block->nodes = nv;
    block->count = count;
  }
  free_one(insp->origins[event]);
  insp->origins[event] = block;
  return ETK_OK;
}

int etk_inspector_event_origins(const etk_inspector_t *insp, size_t event,
                                const etk_inspector_node_origin_t **origins,
                                size_t *count) {
  if (!insp || !origins || !count || event >= insp->event_count)
    return ETK_E_INVALID_ARGUMENT;
  const insp_origins_t *o = insp->origins ? insp->origins[event] : NULL;
  *origins = o ? o->nodes : NULL;
  *count = o ? o->count : 0;
  return ETK_OK;
}

int etk_inspector_event_has_modules(const etk_inspector_t *insp, size_t event) {
  const etk_inspector_node_origin_t *o;
  size_t n;
  if (etk_inspector_event_origins(insp, event, &o, &n) != ETK_OK) return 0;
  for (size_t i = 0; i < n; i++)
    if (o[i].module_count) return 1;
  return 0;
}

int etk_inspector_event_module(const etk_inspector_t *insp, size_t event,
                               const etk_inspector_module_t **modules,
                               size_t *count) {
  const etk_inspector_node_origin_t *o;
  size_t n;
  if (!modules || !count) return ETK_E_INVALID_ARGUMENT;
  int rc = etk_inspector_event_origins(insp, event, &o, &n);
  if (rc != ETK_OK) return rc;
  const etk_inspector_module_t *base = NULL;
  size_t depth = 0;
  for (size_t i = 0; i < n; i++) {
    if (!o[i].module_count) continue;
    if (!base) {
      base = o[i].modules;
      depth = o[i].module_count;
      continue;
    }
    size_t k = 0;
    while (k < depth && k < o[i].module_count &&
           strcmp(base[k].normalized, o[i].modules[k].normalized) == 0)
      k++;
    depth = k;
  }
  /* leading root entries ("L__self__", path "") are the root itself */
  while (depth && base[0].normalized[0] == 0) {
    base++;
    depth--;
  }
  *modules = depth ? base : NULL;
  *count = depth;
  return ETK_OK;
}

/* Distinct "file:line" entries shown per event before ", ...". */
#define INSP_SOURCE_MAX 32

static const char *display_file(const char *file, int full_paths) {
  if (full_paths) return file;
  const char *slash = strrchr(file, '/'), *back = strrchr(file, '\\');
  if (back && (!slash || back > slash)) slash = back;
  return slash ? slash + 1 : file;
}

int insp_event_source_text(const etk_inspector_t *insp, size_t event,
                           int full_paths, etk_strbuf_t *b) {
  const etk_inspector_node_origin_t *o;
  size_t n;
  if (etk_inspector_event_origins(insp, event, &o, &n) != ETK_OK) return 0;
  size_t shown = 0, index[INSP_SOURCE_MAX];
  for (size_t i = 0; i < n; i++) {
    if (!o[i].file) continue;
    const char *file = display_file(o[i].file, full_paths);
    /* distinct entries only (an event's nodes often share a line), among
     * the ones shown: the scan stays O(nodes * cap) for huge delegates */
    int seen = 0;
    for (size_t k = 0; k < shown && !seen; k++)
      seen = o[index[k]].line == o[i].line &&
             strcmp(display_file(o[index[k]].file, full_paths), file) == 0;
    if (seen) continue;
    if (shown == INSP_SOURCE_MAX) {
      etk_strbuf_append(b, ", ...", 5);
      break;
    }
    if (shown) etk_strbuf_append(b, ", ", 2);
    etk_strbuf_printf(b, "%s:%lld", file, (long long)o[i].line);
    index[shown++] = i;
  }
  return shown > 0;
}

static int entry_matches(const etk_inspector_module_t *m, const char *name,
                         etk_inspector_module_match_t match) {
  if (match == ETK_INSPECTOR_MODULE_SUBSTRING)
    return strstr(m->key, name) != NULL;
  return strcmp(m->normalized, name) == 0 || strcmp(m->path, name) == 0 ||
         strcmp(m->key, name) == 0;
}

int etk_inspector_module_total(etk_inspector_t *insp, const char *name,
                               etk_inspector_module_match_t match,
                               double *total, size_t *events) {
  if (events) *events = 0;
  if (!insp || !name || !total) return ETK_E_INVALID_ARGUMENT;
  *total = 0.0;
  if (!insp->origins) return ETK_OK;
  char buf[32];
  for (size_t e = 0; e < insp->event_count; e++) {
    const insp_origins_t *o = insp->origins[e];
    if (!o) continue;
    size_t len;
    insp_event_t ev = insp_event_at(insp, e);
    const char *ename = insp_event_name(insp, &ev, buf, &len);
    if (len == 13 && memcmp(ename, "OPERATOR_CALL", 13) == 0) continue;
    int hit = 0;
    for (size_t i = 0; i < o->count && !hit; i++)
      for (size_t k = 0; k < o->nodes[i].module_count && !hit; k++)
        hit = entry_matches(&o->nodes[i].modules[k], name, match);
    if (!hit) continue;
    etk_stats_t st;
    if (etk_inspector_event_stats(insp, e, &st) != ETK_OK) continue;
    *total += st.avg;
    if (events) (*events)++;
  }
  return ETK_OK;
}
