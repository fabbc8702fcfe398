/*
 * inspector_link.c - fills an Inspector's ETRecord-link slots from an
 * ETRecord (library etkit_link).
 *
 * This file is the only place where the ETRecord reader meets the
 * inspector, and it is built as its own library so that etkit_etrecord
 * stays a plain reader (no dependency on the analysis layer above it).
 * For every Inspector event it builds an etk_etrecord_event_ref_t from the
 * event's fields, resolves it with the linker (link.c, upstream's rules),
 * and hands the result to etk_inspector_event_set_link(), which copies it.
 *
 * Field mapping (upstream Event <- ETRecord):
 *   debug_handles          link.debug_handles (int or list, or None)
 *   num_outputs            link.num_outputs
 *   delegate_backend_name  link.delegate_backend_name
 *   op_types               nodes[i]->op, duplicates kept
 *   stack_traces,
 *   module_hierarchy       unique_nodes, keyed by the FX node name plus "_"
 *                          (upstream's operator-graph naming), valued by the
 *                          stack trace and the raw nn_module_stack text.
 * Events that get nothing (no handles, no backend, one output) are left
 * with the inspector's defaults.  Scratch arrays (op types, nodes, the
 * "_"-suffixed names, origins) are reused from event to event; the
 * inspector copies what it keeps.
 *
 * Origins (etkit): for each of those nodes, the innermost user frame of its
 * stack trace (etk_etrecord_stack_trace_user_frame) and its decoded
 * nn_module_stack go to etk_inspector_event_set_origins(), in the same
 * order as the link's nodes.  The inspector's module view, module totals
 * and source column are built on them, so the analysis layer never parses
 * torch's text formats itself.
 *
 * Methods of blocks: etk_etrecord_inspector_link() uses one method for
 * every event (upstream: "forward"); etk_etrecord_inspector_link_block()
 * links one block with the method etk_etrecord_block_method() picks for
 * it, or with the caller's choice (rules in etkit/etrecord.h);
 * etk_etrecord_inspector_link_block_graph() takes the nodes from one named
 * graph instead (upstream's reference_graph_name).
 */
#include <stdlib.h>
#include <string.h>

#include "common/vec.h"
#include "etkit/link.h"
#include "link_match.h"

typedef struct scratch {
  const char **ops;
  size_t ops_cap;
  etk_inspector_link_node_t *nodes;
  size_t nodes_cap;
  char *names;
  size_t names_cap;
  etk_inspector_node_origin_t *origins;
  size_t origins_cap;
  etk_inspector_module_t *modules;
  size_t modules_cap;
  char *frames; /* file and function of each origin, NUL-terminated */
  size_t frames_cap;
  etk_etrecord_frame_t *spans; /* the user frame of each node */
  size_t spans_cap;
} scratch_t;

static int fill_link(scratch_t *s, const etk_etrecord_event_link_t *l,
                     etk_inspector_event_link_t *out) {
  memset(out, 0, sizeof *out);
  out->has_debug_handles = l->has_debug_handles;
  out->debug_handles_is_list = l->debug_handles_is_list;
  out->debug_handles = l->debug_handles;
  out->debug_handle_count = l->debug_handle_count;
  out->num_outputs = l->num_outputs;
  out->delegate_backend_name = l->delegate_backend_name;
  if (!ETK_VEC_RESERVE(s->ops, s->ops_cap, l->node_count) ||
      !ETK_VEC_RESERVE(s->nodes, s->nodes_cap, l->unique_node_count))
    return ETK_E_NO_MEMORY;
  for (size_t i = 0; i < l->node_count; i++) s->ops[i] = l->nodes[i]->op;
  out->op_types = l->node_count ? s->ops : NULL;
  out->op_type_count = l->node_count;
  /* names + "_", packed into one buffer; offsets first, pointers after the
   * buffer stops moving */
  size_t total = 0;
  for (size_t i = 0; i < l->unique_node_count; i++) {
    size_t n = strlen(l->unique_nodes[i]->name) + 2;
    if (n > SIZE_MAX - total) return ETK_E_OVERFLOW;
    total += n;
  }
  if (!ETK_VEC_RESERVE(s->names, s->names_cap, total ? total : 1))
    return ETK_E_NO_MEMORY;
  size_t at = 0;
  for (size_t i = 0; i < l->unique_node_count; i++) {
    const etk_etrecord_node_t *n = l->unique_nodes[i];
    size_t len = strlen(n->name);
    memcpy(s->names + at, n->name, len);
    s->names[at + len] = '_';
    s->names[at + len + 1] = 0;
    s->nodes[i].name = s->names + at;
    s->nodes[i].stack_trace = n->stack_trace;
    s->nodes[i].module_hierarchy = n->nn_module_stack;
    at += len + 2;
  }
  out->nodes = l->unique_node_count ? s->nodes : NULL;
  out->node_count = l->unique_node_count;
  return ETK_OK;
}

/* The origins of l->unique_nodes into s->origins (file/function strings in
 * s->frames, module entries in s->modules). */
static int fill_origins(scratch_t *s, const etk_etrecord_event_link_t *l) {
  size_t n = l->unique_node_count, modules = 0, text = 0;
  for (size_t i = 0; i < n; i++) {
    const etk_etrecord_node_t *node = l->unique_nodes[i];
    if (node->module_count > SIZE_MAX / 2 - modules) return ETK_E_OVERFLOW;
    modules += node->module_count;
  }
  if (!ETK_VEC_RESERVE(s->origins, s->origins_cap, n) ||
      !ETK_VEC_RESERVE(s->modules, s->modules_cap, modules ? modules : 1))
    return ETK_E_NO_MEMORY;
  /* frames first (spans into the record's strings), then copy the spans */
  if (!ETK_VEC_RESERVE(s->spans, s->spans_cap, n)) return ETK_E_NO_MEMORY;
  etk_etrecord_frame_t *frames = s->spans;
  for (size_t i = 0; i < n; i++) {
    const etk_etrecord_node_t *node = l->unique_nodes[i];
    memset(&frames[i], 0, sizeof frames[i]);
    if (node->stack_trace &&
        etk_etrecord_stack_trace_user_frame(
            node->stack_trace, strlen(node->stack_trace), &frames[i]) != ETK_OK)
      memset(&frames[i], 0, sizeof frames[i]);
    size_t need = frames[i].file.ptr
                      ? frames[i].file.len + frames[i].function.len + 2
                      : 0;
    if (need > SIZE_MAX / 2 - text) return ETK_E_OVERFLOW;
    text += need;
  }
  if (!ETK_VEC_RESERVE(s->frames, s->frames_cap, text ? text : 1))
    return ETK_E_NO_MEMORY;
  size_t at = 0, m = 0;
  for (size_t i = 0; i < n; i++) {
    const etk_etrecord_node_t *node = l->unique_nodes[i];
    etk_inspector_node_origin_t *o = &s->origins[i];
    memset(o, 0, sizeof *o);
    if (frames[i].file.ptr) {
      char *file = s->frames + at;
      memcpy(file, frames[i].file.ptr, frames[i].file.len);
      file[frames[i].file.len] = 0;
      at += frames[i].file.len + 1;
      char *fn = s->frames + at;
      memcpy(fn, frames[i].function.ptr, frames[i].function.len);
      fn[frames[i].function.len] = 0;
      at += frames[i].function.len + 1;
      o->file = file;
      o->function = fn;
      o->line = frames[i].line;
    }
    o->modules = node->module_count ? s->modules + m : NULL;
    o->module_count = node->module_count;
    for (size_t k = 0; k < node->module_count; k++, m++) {
      const etk_etrecord_module_entry_t *e = &node->modules[k];
      s->modules[m].key = e->key;
      s->modules[m].path = e->path;
      s->modules[m].normalized = e->normalized;
      s->modules[m].type = e->type;
    }
  }
  return ETK_OK;
}

/* Links events first..first+count of `insp`; `last`: the method's last
 * mapped instruction (link_last_instruction()), for the summary. */
static int link_events(etk_etrecord_linker_t *linker, etk_inspector_t *insp,
                       size_t first, size_t count, const char *method,
                       int64_t last, scratch_t *s,
                       etk_etrecord_link_summary_t *summary, etk_error_t *err) {
  int rc = ETK_OK;
  for (size_t i = first; i < first + count && rc == ETK_OK; i++) {
    etk_inspector_event_t ev;
    rc = etk_inspector_event_get(insp, i, &ev);
    if (rc != ETK_OK) {
      etk_error_set(err, rc, ETK_NO_OFFSET, "cannot read inspector event %zu",
                    i);
      break;
    }
    etk_etrecord_event_ref_t ref = {.method = method,
                                    .name = ev.name,
                                    .chain_index = ev.chain_index,
                                    .instruction_id = ev.instruction_id,
                                    .has_instruction_id = true,
                                    .delegate_debug_id_int = -1,
                                    .delegate_debug_id_str = NULL};
    if (ev.is_delegated_op) {
      if (ev.delegate_id_is_int)
        ref.delegate_debug_id_int = ev.delegate_debug_id_int;
      else
        ref.delegate_debug_id_str = ev.delegate_debug_id_str;
    }
    etk_etrecord_event_link_t link;
    rc = etk_etrecord_linker_resolve(linker, &ref, &link, err);
    if (rc != ETK_OK) break;
    if (summary) {
      summary->events++;
      summary->linked += link.has_debug_handles;
      summary->with_nodes += link.node_count > 0;
      summary->no_delegate_mapping += link.no_delegate_mapping;
      link_count_event(summary, &ev, last, link.has_debug_handles);
    }
    if (!link.has_debug_handles && !link.delegate_backend_name &&
        link.num_outputs == 1)
      continue;
    etk_inspector_event_link_t il;
    rc = fill_link(s, &link, &il);
    if (rc == ETK_OK && link.unique_node_count) rc = fill_origins(s, &link);
    if (rc != ETK_OK) {
      etk_error_set(err, rc, ETK_NO_OFFSET, "out of memory linking event %zu",
                    i);
      break;
    }
    rc = etk_inspector_event_set_link(insp, i, &il, err);
    if (rc == ETK_OK)
      rc = etk_inspector_event_set_origins(insp, i, s->origins,
                                           link.unique_node_count, err);
  }
  return rc;
}

static void scratch_free(scratch_t *s) {
  free(s->ops);
  free(s->nodes);
  free(s->names);
  free(s->origins);
  free(s->modules);
  free(s->frames);
  free(s->spans);
}

int etk_etrecord_inspector_link(etk_etrecord_t *rec, etk_inspector_t *insp,
                                const char *method, unsigned flags,
                                etk_etrecord_link_summary_t *summary,
                                etk_error_t *err) {
  if (summary) memset(summary, 0, sizeof *summary);
  if (!rec || !insp)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  etk_etrecord_linker_t *linker;
  int rc = etk_etrecord_linker_create(rec, flags, &linker, err);
  if (rc != ETK_OK) return rc;
  scratch_t s = {0};
  rc = link_events(linker, insp, 0, etk_inspector_event_count(insp), method,
                   link_last_instruction(rec, method), &s, summary, err);
  scratch_free(&s);
  etk_etrecord_linker_destroy(linker);
  return rc;
}

/* ------------------------------------------------------ methods of blocks */

const char *etk_etrecord_method_at(const etk_etrecord_t *rec, size_t index) {
  if (!rec) return NULL;
  size_t n = 0;
  const etk_etrecord_method_maps_t *maps;
  for (size_t i = 0; (maps = etk_etrecord_maps_at(rec, i)) != NULL; i++, n++)
    if (n == index) return maps->method;
  etk_etrecord_info_t info;
  etk_etrecord_info_get(rec, &info);
  for (size_t i = 0; i < info.program_count; i++) {
    const etk_etrecord_program_ref_t *p = etk_etrecord_program_at(rec, i);
    if (!p || p->kind != ETK_ETRECORD_PROGRAM_EDGE ||
        etk_etrecord_maps_find(rec, p->method))
      continue;
    /* a method with two edge programs (bare and suffixed) counts once */
    bool seen = false;
    for (size_t j = 0; j < i && !seen; j++) {
      const etk_etrecord_program_ref_t *q = etk_etrecord_program_at(rec, j);
      seen = q && q->kind == ETK_ETRECORD_PROGRAM_EDGE &&
             strcmp(q->method, p->method) == 0;
    }
    if (seen) continue;
    if (n++ == index) return p->method;
  }
  return NULL;
}

static const char *find_method(const etk_etrecord_t *rec, const char *name) {
  const char *m;
  for (size_t i = 0; name && (m = etk_etrecord_method_at(rec, i)) != NULL; i++)
    if (strcmp(m, name) == 0) return m;
  return NULL;
}

bool etk_etrecord_has_method(const etk_etrecord_t *rec, const char *method) {
  return find_method(rec, method) != NULL;
}

const char *etk_etrecord_block_method(const etk_etrecord_t *rec,
                                      const char *block_name) {
  if (!rec) return NULL;
  const char *m = find_method(rec, block_name);
  if (!m) m = find_method(rec, "forward");
  if (!m && etk_etrecord_method_at(rec, 0) && !etk_etrecord_method_at(rec, 1))
    m = etk_etrecord_method_at(rec, 0);
  return m;
}

int etk_etrecord_inspector_link_block(etk_etrecord_t *rec,
                                      etk_inspector_t *insp, size_t block,
                                      const char *method, unsigned flags,
                                      etk_etrecord_link_summary_t *summary,
                                      etk_error_t *err) {
  return etk_etrecord_inspector_link_block_graph(rec, insp, block, method, NULL,
                                                 flags, summary, err);
}

int etk_etrecord_inspector_link_block_graph(
    etk_etrecord_t *rec, etk_inspector_t *insp, size_t block,
    const char *method, const char *graph, unsigned flags,
    etk_etrecord_link_summary_t *summary, etk_error_t *err) {
  etk_inspector_block_t b;
  if (!rec || !insp || etk_inspector_block_get(insp, block, &b) != ETK_OK)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_etrecord_inspector_link_block: bad argument");
  if (!method)
    method = etk_etrecord_block_method(rec, b.name_present ? b.name : NULL);
  if (!method && !(flags & ETK_ETRECORD_LINK_FORWARD_ONLY)) return ETK_OK;
  etk_etrecord_linker_t *linker = NULL;
  int rc = etk_etrecord_linker_create(rec, flags, &linker, err);
  if (rc == ETK_OK) rc = etk_etrecord_linker_set_graph(linker, graph, err);
  if (rc != ETK_OK) {
    etk_etrecord_linker_destroy(linker);
    return rc;
  }
  scratch_t s = {0};
  rc = link_events(linker, insp, b.first_event, b.event_count, method,
                   link_last_instruction(rec, method), &s, summary, err);
  scratch_free(&s);
  etk_etrecord_linker_destroy(linker);
  return rc;
}
