/*
 * module_tree.c - operator time per nn.Module (the module view) and the
 * find_total_for_module report, rendered through etkit_render.
 *
 * PURPOSE
 *   Answer "which part of the model takes the time" from an ETDump linked
 *   to its ETRecord: each counted operator event adds its per-run time
 *   (avg) to the module it belongs to and to every module above it.  The
 *   rules, stated once in etkit/inspector_core.h ("MODULE VIEW"), are about not
 *   counting any time twice:
 *     - framework events (Method::execute, Method::init,
 *       Program::load_method) are the method, not operators;
 *     - OPERATOR_CALL wraps the kernel event of the same instruction
 *       (native_call_*), so it counts only when there is no such event (a
 *       runtime built without kernel-level events);
 *     - DELEGATE_CALL wraps the delegated per-op events of its instruction,
 *       so it counts only when the backend logged none;
 *     - a delegated per-op event that resolves to no graph node ran inside
 *       its DELEGATE_CALL and inherits that call's module.
 *   "Instruction" means (chain, instruction id) within one event block.
 *
 * DATA LAYOUT
 *   One array of tree nodes for all selected blocks; each block has its own
 *   root (index kept in the block pass) and optionally an "(unattributed)"
 *   child.  A module node is identified by (parent node, normalised dotted
 *   path) through an open-addressing hash table, so building is linear in
 *   the number of module-stack entries visited.  Strings point into the
 *   inspector's origins (stable while the view is rendered).  Rows are
 *   the nodes in pre-order, siblings in first-appearance order or sorted;
 *   the walk is iterative (module stacks of hostile records may be deep).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/vec.h"
#include "inspector_internal.h"

#define NO_NODE UINT32_MAX

typedef struct mt_node {
  uint32_t block;
  uint32_t parent;
  uint32_t depth;
  int kind;         /* 0 module, 1 root, 2 unattributed */
  const char *path; /* normalised dotted path (modules) */
  const char *key;  /* nn_module_stack key (modules) */
  const char *type; /* qualified class name, may be NULL */
  uint64_t count;
  double total, self;
} mt_node_t;

typedef struct mt_tree {
  mt_node_t *nodes;
  size_t count, cap;
  uint32_t *table; /* hash of module nodes: index or NO_NODE */
  size_t table_cap;
} mt_tree_t;

static uint64_t hash_key(uint32_t parent, const char *path) {
  uint64_t h = 1469598103934665603ull ^ parent;
  for (const unsigned char *p = (const unsigned char *)path; *p; p++)
    h = (h ^ *p) * 1099511628211ull;
  return h ^ (h >> 29);
}

static int tree_grow_table(mt_tree_t *t) {
  size_t cap = t->table_cap ? t->table_cap * 2 : 64;
  uint32_t *tab = malloc(cap * sizeof *tab);
  if (!tab) return ETK_E_NO_MEMORY;
  for (size_t i = 0; i < cap; i++) tab[i] = NO_NODE;
  for (size_t i = 0; i < t->count; i++) {
    const mt_node_t *n = &t->nodes[i];
    if (n->kind != 0) continue;
    size_t at = (size_t)hash_key(n->parent, n->path) & (cap - 1);
    while (tab[at] != NO_NODE) at = (at + 1) & (cap - 1);
    tab[at] = (uint32_t)i;
  }
  free(t->table);
  t->table = tab;
  t->table_cap = cap;
  return ETK_OK;
}

static int tree_add(mt_tree_t *t, const mt_node_t *n, uint32_t *index) {
  if (t->count >= UINT32_MAX - 1) return ETK_E_LIMIT;
  if (t->count == t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 64;
    mt_node_t *q = realloc(t->nodes, cap * sizeof *q);
    if (!q) return ETK_E_NO_MEMORY;
    t->nodes = q;
    t->cap = cap;
  }
  t->nodes[t->count] = *n;
  *index = (uint32_t)t->count++;
  return ETK_OK;
}

/* The child of `parent` for module entry m, created on first use. */
static int tree_child(mt_tree_t *t, uint32_t parent,
                      const etk_inspector_module_t *m, uint32_t *out) {
  if ((t->count + 1) * 2 > t->table_cap) {
    int rc = tree_grow_table(t);
    if (rc != ETK_OK) return rc;
  }
  size_t at = (size_t)hash_key(parent, m->normalized) & (t->table_cap - 1);
  while (t->table[at] != NO_NODE) {
    const mt_node_t *n = &t->nodes[t->table[at]];
    if (n->parent == parent && strcmp(n->path, m->normalized) == 0) {
      *out = t->table[at];
      return ETK_OK;
    }
    at = (at + 1) & (t->table_cap - 1);
  }
  mt_node_t n = {t->nodes[parent].block,
                 parent,
                 t->nodes[parent].depth + 1,
                 0,
                 m->normalized,
                 m->key,
                 m->type,
                 0,
                 0.0,
                 0.0};
  int rc = tree_add(t, &n, out);
  if (rc == ETK_OK) t->table[at] = *out;
  return rc;
}

static void tree_free(mt_tree_t *t) {
  free(t->nodes);
  free(t->table);
}

/* ------------------------------------------------------- instructions */

/* Per (chain, instruction) of one block: what its events tell about the
 * wrappers. */
typedef struct mt_instr {
  uint64_t key;
  int used;
  int has_kernel;        /* a non-delegated, non-wrapper event with perf data */
  int has_delegated_ops; /* a delegated event with perf data */
  uint32_t delegate_call; /* the DELEGATE_CALL event, or NO_NODE */
} mt_instr_t;

typedef struct mt_instrs {
  mt_instr_t *slots;
  size_t cap;
} mt_instrs_t;

static mt_instr_t *instr_get(mt_instrs_t *s, int32_t chain, int32_t iid) {
  uint64_t key = ((uint64_t)(uint32_t)chain << 32) | (uint32_t)iid;
  uint64_t h = key * 0x9e3779b97f4a7c15ull;
  size_t at = (size_t)(h >> 20) & (s->cap - 1);
  while (s->slots[at].used && s->slots[at].key != key)
    at = (at + 1) & (s->cap - 1);
  if (!s->slots[at].used) {
    s->slots[at].used = 1;
    s->slots[at].key = key;
    s->slots[at].delegate_call = NO_NODE;
  }
  return &s->slots[at];
}

static int is_name(const char *s, size_t n, const char *lit) {
  return n == strlen(lit) && memcmp(s, lit, n) == 0;
}

enum { EV_SKIP = 0, EV_OP, EV_OPERATOR_CALL, EV_DELEGATE_CALL };

/* Classifies an event by name (delegated events are always operators). */
static int event_class(const etk_inspector_t *insp, uint32_t e, char *buf) {
  const insp_event_t evs = insp_event_at(insp, e), *ev = &evs;
  if (insp_event_is_delegated(ev)) return EV_OP;
  size_t len;
  const char *name = insp_event_name(insp, ev, buf, &len);
  if (is_name(name, len, "Method::execute") ||
      is_name(name, len, "Method::init") ||
      is_name(name, len, "Program::load_method"))
    return EV_SKIP;
  if (is_name(name, len, "OPERATOR_CALL")) return EV_OPERATOR_CALL;
  if (is_name(name, len, "DELEGATE_CALL")) return EV_DELEGATE_CALL;
  return EV_OP;
}

/* Adds `v` to node `at` (self) and to it and every ancestor (total). */
static void tree_credit(mt_tree_t *t, uint32_t at, double v) {
  t->nodes[at].self += v;
  for (uint32_t n = at; n != NO_NODE; n = t->nodes[n].parent) {
    t->nodes[n].total += v;
    t->nodes[n].count++;
  }
}

/* The tree node of an event: its module path below the block's root, or
 * the root when its nodes carry no module stack; NO_NODE when the event
 * has no linked node at all. */
static int event_node(const etk_inspector_t *insp, mt_tree_t *t, uint32_t root,
                      uint32_t e, uint32_t *out) {
  *out = NO_NODE;
  etk_inspector_event_link_t link;
  etk_inspector_event_link(insp, e, &link);
  if (link.node_count == 0) return ETK_OK;
  const etk_inspector_node_origin_t *o;
  size_t n;
  etk_inspector_event_origins(insp, e, &o, &n);
  /* the root's type, from a leading root entry ("L__self__", path "") */
  for (size_t i = 0; i < n && !t->nodes[root].type; i++)
    if (o[i].module_count && o[i].modules[0].normalized[0] == 0)
      t->nodes[root].type = o[i].modules[0].type;
  const etk_inspector_module_t *path;
  size_t depth;
  etk_inspector_event_module(insp, e, &path, &depth);
  uint32_t at = root;
  for (size_t k = 0; k < depth; k++) {
    if (path[k].normalized[0] == 0) continue; /* a nested root entry */
    int rc = tree_child(t, at, &path[k], &at);
    if (rc != ETK_OK) return rc;
  }
  *out = at;
  return ETK_OK;
}

static int build_block(etk_inspector_t *insp, mt_tree_t *t, size_t b) {
  const insp_block_t *bk = &insp->blocks[b];
  if (bk->event_count == 0) return ETK_OK;
  char buf[32];
  mt_instrs_t instrs = {NULL, 1};
  while (instrs.cap < (size_t)bk->event_count * 2) instrs.cap *= 2;
  instrs.slots = calloc(instrs.cap, sizeof *instrs.slots);
  uint8_t *has_perf = malloc(bk->event_count);
  int32_t *chains = malloc((size_t)bk->event_count * sizeof *chains);
  int rc = ETK_OK;
  if (!instrs.slots || !has_perf || !chains) rc = ETK_E_NO_MEMORY;
  if (rc == ETK_OK &&
      insp_scratch_reserve(insp, bk->run_count ? bk->run_count : 1) != ETK_OK)
    rc = ETK_E_NO_MEMORY;
  /* pass 1: what each instruction holds */
  for (uint32_t i = 0; rc == ETK_OK && i < bk->event_count; i++) {
    uint32_t e = bk->first_event + i;
    etk_inspector_event_t info;
    etk_inspector_event_get(insp, e, &info);
    chains[i] = info.chain_index;
    insp_event_t ev = insp_event_at(insp, e);
    has_perf[i] =
        ev.pname != INSP_NONE && insp_event_raw(insp, e, insp->scratch) > 0;
    int cls = event_class(insp, e, buf);
    mt_instr_t *in = instr_get(&instrs, chains[i], ev.iid);
    if (cls == EV_DELEGATE_CALL && in->delegate_call == NO_NODE)
      in->delegate_call = e;
    if (!has_perf[i] || cls != EV_OP) continue;
    if (insp_event_is_delegated(&ev))
      in->has_delegated_ops = 1;
    else
      in->has_kernel = 1;
  }
  /* pass 2: credit the counted events */
  uint32_t root = NO_NODE, unattributed = NO_NODE;
  for (uint32_t i = 0; rc == ETK_OK && i < bk->event_count; i++) {
    uint32_t e = bk->first_event + i;
    if (!has_perf[i]) continue;
    int cls = event_class(insp, e, buf);
    insp_event_t ev = insp_event_at(insp, e);
    mt_instr_t *in = instr_get(&instrs, chains[i], ev.iid);
    if (cls == EV_SKIP || (cls == EV_OPERATOR_CALL && in->has_kernel) ||
        (cls == EV_DELEGATE_CALL && in->has_delegated_ops))
      continue;
    etk_stats_t st;
    if (etk_inspector_event_stats(insp, e, &st) != ETK_OK) continue;
    if (root == NO_NODE) {
      mt_node_t r = {(uint32_t)b, NO_NODE, 0, 1,   "(root)",
                     NULL,        NULL,    0, 0.0, 0.0};
      if ((rc = tree_add(t, &r, &root)) != ETK_OK) break;
    }
    uint32_t at;
    if ((rc = event_node(insp, t, root, e, &at)) != ETK_OK) break;
    if (at == NO_NODE && insp_event_is_delegated(&ev) &&
        in->delegate_call != NO_NODE &&
        (rc = event_node(insp, t, root, in->delegate_call, &at)) != ETK_OK)
      break;
    if (at == NO_NODE) {
      if (unattributed == NO_NODE) {
        mt_node_t u = {(uint32_t)b, root, 1, 2,   "(unattributed)",
                       NULL,        NULL, 0, 0.0, 0.0};
        if ((rc = tree_add(t, &u, &unattributed)) != ETK_OK) break;
      }
      at = unattributed;
    }
    tree_credit(t, at, st.avg);
  }
  free(instrs.slots);
  free(has_perf);
  free(chains);
  return rc;
}

/* ------------------------------------------------------- ordering */

/* What cmp_siblings orders by (etk_sort_r's context). */
typedef struct sibling_order {
  etk_inspect_sort_t key;
  int desc;
  const mt_node_t *nodes;
} sibling_order_t;

static int cmp_siblings(const void *a, const void *b, void *ctx) {
  const sibling_order_t *o = ctx;
  const etk_inspect_sort_t order_key = o->key;
  const int order_desc = o->desc;
  const mt_node_t *order_nodes = o->nodes;
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  const mt_node_t *p = &order_nodes[x], *q = &order_nodes[y];
  if (p->kind != q->kind) return p->kind - q->kind; /* unattributed last */
  int c = 0;
  if (order_key == ETK_INSPECT_SORT_NAME) {
    c = strcmp(p->path, q->path);
  } else if (order_key == ETK_INSPECT_SORT_COUNT) {
    c = (p->count > q->count) - (p->count < q->count);
  } else if (order_key != ETK_INSPECT_SORT_NONE) {
    c = (p->total > q->total) - (p->total < q->total);
  }
  if (order_desc) c = -c;
  if (c) return c;
  return (x > y) - (x < y); /* first appearance */
}

/* Pre-order of the tree: out[] receives every node index. */
static int tree_order(const mt_tree_t *t,
                      const etk_inspector_render_options_t *o, uint32_t *out) {
  size_t n = t->count ? t->count : 1;
  uint32_t *count = calloc(n, sizeof *count);    /* children per node */
  uint32_t *offset = malloc(n * sizeof *offset); /* first child in kids[] */
  uint32_t *kids = malloc(n * sizeof *kids);
  uint32_t *stack = malloc(n * sizeof *stack);
  int rc = count && offset && kids && stack ? ETK_OK : ETK_E_NO_MEMORY;
  if (rc == ETK_OK) {
    for (size_t i = 0; i < t->count; i++)
      if (t->nodes[i].parent != NO_NODE) count[t->nodes[i].parent]++;
    uint32_t sum = 0;
    for (size_t i = 0; i < t->count; i++) {
      offset[i] = sum;
      sum += count[i];
      count[i] = 0;
    }
    for (size_t i = 0; i < t->count; i++) {
      uint32_t p = t->nodes[i].parent;
      if (p != NO_NODE) kids[offset[p] + count[p]++] = (uint32_t)i;
    }
    /* siblings: first appearance (node order), or by the sort key */
    sibling_order_t order;
    order.key = o->sort;
    order.desc = o->sort == ETK_INSPECT_SORT_NAME   ? o->reverse != 0
                 : o->sort == ETK_INSPECT_SORT_NONE ? 0
                                                    : o->reverse == 0;
    order.nodes = t->nodes;
    for (size_t i = 0; rc == ETK_OK && i < t->count; i++)
      if (count[i] > 1 && !etk_sort_r(kids + offset[i], count[i], sizeof *kids,
                                      cmp_siblings, &order))
        rc = ETK_E_NO_MEMORY;
    /* roots were added block by block, so they come out in block order */
    size_t emitted = 0, sp = 0;
    for (size_t r = 0; r < t->count; r++) {
      if (t->nodes[r].parent != NO_NODE) continue;
      stack[sp++] = (uint32_t)r;
      while (sp) {
        uint32_t at = stack[--sp];
        out[emitted++] = at;
        for (uint32_t k = count[at]; k-- > 0;)
          stack[sp++] = kids[offset[at] + k];
      }
    }
  }
  free(count);
  free(offset);
  free(kids);
  free(stack);
  return rc;
}

/* ------------------------------------------------------- rendering */

typedef struct mt_view {
  const etk_inspector_t *insp;
  const mt_tree_t *tree;
  const uint32_t *rows;
  size_t nrows;
  double *root_total; /* per row: its block's root total */
  int table;          /* table: tree guides, no depth column */
  const char *headers[8];
  char header_buf[2][48];
  double scale[2]; /* table: total, self in a readable unit (0: raw) */
} mt_view_t;

/* etkit's own tables show a duration column in a readable unit: the unit
 * etk_duration_unit() picks for the column's largest magnitude `max` (in
 * target units).  Returns the factor from target units to it (0 keeps raw
 * target units: not a table, no units, or an unknown time scale) and sets
 * *unit to its name. */
static double column_scale(const etk_inspector_t *insp,
                           const etk_inspector_render_options_t *o, double max,
                           const char **unit) {
  *unit = etk_time_scale_name(insp->options.target_time_scale);
  double sec = etk_seconds_per_unit(*unit);
  if (o->format != ETK_INSPECT_FORMAT_TABLE || !o->include_units || sec <= 0)
    return 0;
  double per_second;
  *unit = etk_duration_unit(max * sec, &per_second);
  return sec * per_second;
}

static void set_duration(etk_cell_t *out, double v, double scale) {
  etk_cell_set_float(out, scale > 0 ? etk_duration_round(v * scale) : v);
}

static const char *short_type(const char *type) {
  if (!type) return NULL;
  const char *dot = strrchr(type, '.');
  return dot ? dot + 1 : type;
}

static int module_cell(void *ctx, size_t row, size_t col, etk_cell_t *out,
                       etk_strbuf_t *b) {
  mt_view_t *v = ctx;
  const mt_node_t *n = &v->tree->nodes[v->rows[row]];
  if (v->table && col >= 1) col++; /* no depth column in the table */
  switch (col) {
    case 0: {
      etk_etdump_str_t s =
          etk_etdump_string(v->insp->dump, v->insp->blocks[n->block].name_id);
      if (s.data)
        etk_cell_set_text(out, s.data, s.len);
      else
        etk_cell_set_none(out);
      break;
    }
    case 1:
      etk_cell_set_int(out, n->depth);
      break;
    case 2:
      if (v->table && n->depth > 0) {
        for (uint32_t d = 1; d < n->depth; d++)
          etk_strbuf_appends(b, "\xe2\x94\x82  ");
        etk_strbuf_appends(b, "\xe2\x94\x9c\xe2\x94\x80 ");
        etk_strbuf_appends(b, n->path);
        etk_cell_set_text(out, b->data, b->len);
      } else {
        etk_cell_set_text(out, n->path, strlen(n->path));
      }
      break;
    case 3: {
      const char *t = short_type(n->type);
      if (t && *t)
        etk_cell_set_text(out, t, strlen(t));
      else
        etk_cell_set_none(out);
      break;
    }
    case 4:
      etk_cell_set_int(out, (int64_t)n->count);
      break;
    case 5:
      set_duration(out, n->total, v->scale[0]);
      break;
    case 6:
      set_duration(out, n->self, v->scale[1]);
      break;
    default: {
      double root = v->root_total[row];
      if (root > 0) {
        double pct = n->total / root * 100.0;
        etk_cell_set_float(out,
                           v->scale[0] > 0 ? etk_duration_round(pct) : pct);
      } else
        etk_cell_set_none(out);
      break;
    }
  }
  return ETK_OK;
}

static int modules_json(mt_view_t *v, const etk_inspector_render_options_t *o,
                        etk_render_sink_t *sink) {
  etk_json_t j;
  etk_json_init(&j, sink, o->json_indent);
  etk_json_begin_object(&j);
  etk_json_key(&j, "target_time_scale");
  etk_json_cstring(&j, etk_time_scale_name(v->insp->options.target_time_scale));
  etk_json_key(&j, "modules");
  etk_json_begin_array(&j);
  for (size_t r = 0; r < v->nrows; r++) {
    const mt_node_t *n = &v->tree->nodes[v->rows[r]];
    etk_json_begin_object(&j);
    etk_json_key(&j, "event_block_index");
    etk_json_uint(&j, n->block);
    for (size_t c = 0; c < 8; c++) {
      etk_cell_t cell;
      etk_strbuf_t scratch;
      etk_strbuf_init(&scratch);
      memset(&cell, 0, sizeof cell);
      module_cell(v, r, c, &cell, &scratch);
      etk_json_key(&j, v->headers[c]);
      switch (cell.kind) {
        case ETK_CELL_TEXT:
          etk_json_string(&j, cell.text, cell.len);
          break;
        case ETK_CELL_INT:
          etk_json_int(&j, cell.i);
          break;
        case ETK_CELL_FLOAT:
          etk_json_double(&j, cell.f);
          break;
        default:
          etk_json_null(&j);
          break;
      }
      etk_strbuf_free(&scratch);
      if (c == 2) {
        etk_json_key(&j, "key");
        etk_json_cstring(&j, n->key);
        etk_json_key(&j, "qualified_type");
        etk_json_cstring(&j, n->type);
      }
    }
    etk_json_end_object(&j);
  }
  etk_json_end_array(&j);
  etk_json_end_object(&j);
  return etk_json_finish(&j);
}

int insp_render_modules(etk_inspector_t *insp,
                        const etk_inspector_render_options_t *o,
                        const uint8_t *selected, etk_render_sink_t *sink,
                        etk_error_t *err) {
  mt_tree_t t;
  memset(&t, 0, sizeof t);
  int rc = ETK_OK;
  for (size_t b = 0; b < insp->block_count && rc == ETK_OK; b++)
    if (selected[b]) rc = build_block(insp, &t, b);
  uint32_t *rows = NULL;
  double *root_total = NULL;
  if (rc == ETK_OK) {
    rows = malloc((t.count ? t.count : 1) * sizeof *rows);
    root_total = malloc((t.count ? t.count : 1) * sizeof *root_total);
    if (!rows || !root_total) rc = ETK_E_NO_MEMORY;
  }
  if (rc == ETK_OK) rc = tree_order(&t, o, rows);
  if (rc == ETK_OK) {
    double root = 0;
    for (size_t r = 0; r < t.count; r++) {
      if (t.nodes[rows[r]].kind == 1) root = t.nodes[rows[r]].total;
      root_total[r] = root;
    }
    mt_view_t v = {insp,    &t,         rows,
                   t.count, root_total, o->format == ETK_INSPECT_FORMAT_TABLE,
                   {0},     {{0}},      {0, 0}};
    double max[2] = {0, 0};
    for (size_t r = 0; r < t.count; r++) {
      if (fabs(t.nodes[r].total) > max[0]) max[0] = fabs(t.nodes[r].total);
      if (fabs(t.nodes[r].self) > max[1]) max[1] = fabs(t.nodes[r].self);
    }
    const char *units[2];
    v.scale[0] = column_scale(insp, o, max[0], &units[0]);
    v.scale[1] = column_scale(insp, o, max[1], &units[1]);
    snprintf(v.header_buf[0], sizeof v.header_buf[0],
             o->include_units ? "total (%s)" : "total", units[0]);
    snprintf(v.header_buf[1], sizeof v.header_buf[1],
             o->include_units ? "self (%s)" : "self", units[1]);
    const char *all[8] = {
        "event_block_name", "depth",         "module",    "type", "count",
        v.header_buf[0],    v.header_buf[1], "% of total"};
    memcpy(v.headers, all, sizeof all);
    if (o->format == ETK_INSPECT_FORMAT_JSON) {
      rc = modules_json(&v, o, sink);
    } else if (v.table) {
      const char *tab[7] = {all[0], all[2], all[3], all[4],
                            all[5], all[6], all[7]};
      etk_frame_t f = {v.nrows, 7, tab, module_cell, &v, 1};
      rc = etk_render_table(&f, sink, err);
    } else {
      etk_frame_t f = {v.nrows, 8, v.headers, module_cell, &v, 1};
      rc = etk_render_delimited(
          &f, o->format == ETK_INSPECT_FORMAT_CSV ? ',' : '\t', sink, err);
    }
  }
  free(rows);
  free(root_total);
  tree_free(&t);
  if (rc != ETK_OK && (!err || err->code == ETK_OK))
    return etk_error_set(err, rc, ETK_NO_OFFSET,
                         "rendering the module view failed: %s",
                         etk_strerror(rc));
  return rc;
}

int etk_inspector_module_rows(etk_inspector_t *insp,
                              etk_inspector_module_row_t **out, size_t *count,
                              etk_error_t *err) {
  if (!insp || !out || !count)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_inspector_module_rows: NULL argument");
  *out = NULL;
  *count = 0;
  mt_tree_t t;
  memset(&t, 0, sizeof t);
  int rc = ETK_OK;
  for (size_t b = 0; b < insp->block_count && rc == ETK_OK; b++)
    rc = build_block(insp, &t, b);
  uint32_t *order = NULL;
  etk_inspector_module_row_t *rows = NULL;
  if (rc == ETK_OK && t.count) {
    order = malloc(t.count * sizeof *order);
    rows = malloc(t.count * sizeof *rows);
    if (!order || !rows) rc = ETK_E_NO_MEMORY;
  }
  etk_inspector_render_options_t o;
  etk_inspector_render_options_init(&o);
  if (rc == ETK_OK && t.count) rc = tree_order(&t, &o, order);
  for (size_t i = 0; rc == ETK_OK && i < t.count; i++) {
    const mt_node_t *n = &t.nodes[order[i]];
    etk_inspector_module_row_t *r = &rows[i];
    r->block = n->block;
    r->depth = n->depth;
    r->path = n->path;
    r->key = n->key;
    r->type = n->type;
    r->count = n->count;
    r->total = n->total;
    r->self = n->self;
  }
  free(order);
  if (rc == ETK_OK) {
    *out = rows;
    *count = t.count;
  } else {
    free(rows);
  }
  tree_free(&t);
  if (rc != ETK_OK)
    return etk_error_set(err, rc, ETK_NO_OFFSET, "module view: %s",
                         etk_strerror(rc));
  return ETK_OK;
}

int etk_inspector_module_view_total(etk_inspector_t *insp, const char *name,
                                    double *total, size_t *events,
                                    etk_error_t *err) {
  if (events) *events = 0;
  if (!name || !total)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_inspector_module_view_total: NULL argument");
  *total = 0.0;
  etk_inspector_module_row_t *rows;
  size_t n;
  int rc = etk_inspector_module_rows(insp, &rows, &n, err);
  if (rc != ETK_OK) return rc;
  for (size_t i = 0; i < n; i++) {
    const etk_inspector_module_row_t *r = &rows[i];
    if (r->depth == 0 || !((r->path && strcmp(r->path, name) == 0) ||
                           (r->key && strcmp(r->key, name) == 0)))
      continue;
    *total += r->total;
    if (events) *events += (size_t)r->count;
  }
  free(rows);
  return ETK_OK;
}

/* ------------------------------------------------------- module totals */

typedef struct totals_view {
  const char *const *names;
  const double *totals;
  const size_t *events;
  const char *match;
  double scale; /* table: totals in a readable unit (0: raw) */
} totals_view_t;

static int totals_cell(void *ctx, size_t row, size_t col, etk_cell_t *out,
                       etk_strbuf_t *b) {
  totals_view_t *v = ctx;
  (void)b;
  switch (col) {
    case 0:
      etk_cell_set_text(out, v->names[row], strlen(v->names[row]));
      break;
    case 1:
      etk_cell_set_text(out, v->match, strlen(v->match));
      break;
    case 2:
      etk_cell_set_int(out, (int64_t)v->events[row]);
      break;
    default:
      set_duration(out, v->totals[row], v->scale);
      break;
  }
  return ETK_OK;
}

int etk_inspector_render_module_totals(
    etk_inspector_t *insp, const char *const *names, size_t count,
    etk_inspector_module_match_t match,
    const etk_inspector_render_options_t *options, etk_render_sink_t *sink,
    etk_error_t *err) {
  if (!insp || !sink || (count && !names))
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "etk_inspector_render_module_totals: NULL argument");
  for (size_t i = 0; i < count; i++)
    if (!names[i])
      return etk_error_set(
          err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
          "etk_inspector_render_module_totals: name %zu is NULL", i);
  etk_inspector_render_options_t defaults;
  if (!options) {
    etk_inspector_render_options_init(&defaults);
    options = &defaults;
  }
  double *totals = malloc((count ? count : 1) * sizeof *totals);
  size_t *events = malloc((count ? count : 1) * sizeof *events);
  if (!totals || !events) {
    free(totals);
    free(events);
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
  }
  int vrc = ETK_OK;
  for (size_t i = 0; i < count && vrc == ETK_OK; i++)
    vrc = match == ETK_INSPECTOR_MODULE_VIEW
              ? etk_inspector_module_view_total(insp, names[i], &totals[i],
                                                &events[i], err)
              : etk_inspector_module_total(insp, names[i], match, &totals[i],
                                           &events[i]);
  if (vrc != ETK_OK) {
    free(totals);
    free(events);
    return vrc;
  }
  const char *unit = etk_time_scale_name(insp->options.target_time_scale);
  double max = 0;
  for (size_t i = 0; i < count; i++)
    if (fabs(totals[i]) > max) max = fabs(totals[i]);
  const char *table_unit;
  double scale = column_scale(insp, options, max, &table_unit);
  char total_header[48];
  snprintf(total_header, sizeof total_header,
           options->include_units ? "total (%s)" : "total", table_unit);
  const char *headers[4] = {"module", "match", "events", total_header};
  totals_view_t v = {names, totals, events,
                     match == ETK_INSPECTOR_MODULE_EXACT  ? "exact"
                     : match == ETK_INSPECTOR_MODULE_VIEW ? "module view"
                                                          : "substring",
                     scale};
  int rc;
  if (options->format == ETK_INSPECT_FORMAT_JSON) {
    etk_json_t j;
    etk_json_init(&j, sink, options->json_indent);
    etk_json_begin_object(&j);
    etk_json_key(&j, "target_time_scale");
    etk_json_cstring(&j, unit);
    etk_json_key(&j, "module_totals");
    etk_json_begin_array(&j);
    for (size_t i = 0; i < count; i++) {
      etk_json_begin_object(&j);
      etk_json_key(&j, headers[0]);
      etk_json_cstring(&j, names[i]);
      etk_json_key(&j, headers[1]);
      etk_json_cstring(&j, v.match);
      etk_json_key(&j, headers[2]);
      etk_json_uint(&j, events[i]);
      etk_json_key(&j, headers[3]);
      etk_json_double(&j, totals[i]);
      etk_json_end_object(&j);
    }
    etk_json_end_array(&j);
    etk_json_end_object(&j);
    rc = etk_json_finish_or_error(&j, err);
  } else {
    etk_frame_t f = {count, 4, headers, totals_cell, &v, 1};
    rc = options->format == ETK_INSPECT_FORMAT_TABLE
             ? etk_render_table(&f, sink, err)
             : etk_render_delimited(
                   &f, options->format == ETK_INSPECT_FORMAT_CSV ? ',' : '\t',
                   sink, err);
  }
  free(totals);
  free(events);
  return rc;
}
