/*
 * program_args.c - the tooltip's argument lines of a program graph's node
 * (etk_graph_from_program(), etkit/graph.h): the constants the graph folds
 * (dtype, shape, bytes; Netron's initializers) and the literal arguments,
 * read from the program itself, so a tensor that is not drawn is still
 * described where it is used.
 *
 * One line per argument, " | "-separated as the figures are: "arg1 v3:
 * const INT8 [16, 3, 3, 3] (432 B)", "arg2: [1, 1]", "arg0 v0 [1, 3, 8,
 * 8]".  At most MAX_LINES lines and MAX_TEXT bytes; the rest is counted
 * ("... 4 more").
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/program.h"
#include "etkit/program_schema.h"
#include "etkit/scalar_type.h"
#include "graph_view_internal.h"

#define MAX_LINES 16
#define MAX_TEXT 2048

typedef struct lines {
  char text[MAX_TEXT];
  size_t len;
} lines_t;

static void add(lines_t *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void add(lines_t *t, const char *fmt, ...) {
  if (t->len + 1 >= sizeof t->text) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(t->text + t->len, sizeof t->text - t->len, fmt, ap);
  va_end(ap);
  if (n > 0) t->len += (size_t)n;
  if (t->len >= sizeof t->text) t->len = sizeof t->text - 1;
}

static void shape(lines_t *t, const etk_program_tensor_t *x) {
  add(t, "[");
  for (uint32_t d = 0; d < x->dim; d++)
    add(t, "%s%" PRId32, d ? ", " : "", x->sizes[d]);
  add(t, "]");
}

/* The program's value index of argument k of node i, or -1. */
static int64_t program_value(const etk_graph_program_t *p, size_t i,
                             uint32_t k) {
  int64_t c = p->node_chain[i], id = p->node_instruction[i];
  if (c < 0 || id < 0) return -1;
  const etk_program_instruction_t *ins = &p->plan->chains[c].instructions[id];
  if (!ins->args || k >= ins->arg_count) return -1;
  return ins->args[k];
}

char *gv_program_args(const etk_graph_t *g, size_t i) {
  const etk_graph_program_t *p = etk_graph_program(g);
  if (!p || i >= etk_graph_node_count(g)) return NULL;
  const etk_graph_node_t *n = &etk_graph_nodes(g)[i];
  if (n->kind != ETK_GRAPH_NODE_CALL || n->arg_count == 0) return NULL;
  lines_t t = {.len = 0};
  size_t shown = 0;
  for (uint32_t k = 0; k < n->arg_count; k++) {
    const etk_graph_arg_t *a = &n->args[k];
    if (shown == MAX_LINES) {
      add(&t, "%s... %zu more argument%s", shown ? " | " : "", n->arg_count - k,
          n->arg_count - k == 1 ? "" : "s");
      break;
    }
    add(&t, "%s%s", shown++ ? " | " : "", a->name);
    int64_t pv = program_value(p, i, k);
    const etk_program_value_t *v =
        pv >= 0 && (uint64_t)pv < p->plan->value_count ? &p->plan->values[pv]
                                                       : NULL;
    if (v && v->tag == ETK_PTE_KT_TENSOR && v->u.tensor) {
      const etk_program_tensor_t *x = v->u.tensor;
      bool constant = x->external || (x->data_buffer_idx > 0 && !x->planned);
      add(&t, " %s: %s%s ",
          a->value_names && a->value_names[0] ? a->value_names[0] : "?",
          constant ? (x->external ? "external " : "const ") : "",
          etk_scalar_type_name(x->scalar_type));
      shape(&t, x);
      if (constant) add(&t, " (%" PRIu64 " B)", x->nbytes);
      if (x->fully_qualified_name) add(&t, " %s", x->fully_qualified_name);
      continue;
    }
    char text[256];
    etk_graph_arg_format(g, a, text, sizeof text);
    add(&t, ": %s", text);
  }
  char *s = malloc(t.len + 1);
  if (s) {
    memcpy(s, t.text, t.len);
    s[t.len] = 0;
  }
  return s;
}

char *gv_program_label(const etk_graph_t *g, size_t i) {
  if (!etk_graph_program(g) || i >= etk_graph_node_count(g)) return NULL;
  const etk_graph_node_t *n = &etk_graph_nodes(g)[i];
  if (n->kind != ETK_GRAPH_NODE_CALL || !n->target) return NULL;
  /* "cortex_m::quantized_conv2d.out" -> "quantized_conv2d": the namespace
   * and the usual ".out" overload say nothing (the tooltip has them) */
  const char *start = n->partition != ETK_GRAPH_NONE ? "delegate" : n->target;
  for (const char *s = start; (s = strstr(s, "::")) != NULL;) start = s += 2;
  size_t len = strlen(start);
  if (len > 4 && strcmp(start + len - 4, ".out") == 0) len -= 4;
  char *out = malloc(len + 1);
  if (out) {
    memcpy(out, start, len);
    out[len] = 0;
  }
  return out;
}
