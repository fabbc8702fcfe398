/*
 * cmd_graph.c - `etkit graph ETRECORD`: the edge-dialect program of an
 * ETRecord as a readable listing, upstream's get_exported_program() for a
 * terminal.
 *
 * One row per node: name (indented by nesting depth for control-flow and
 * lowered-module graphs), op type, debug handle, module path (innermost
 * nn_module_stack entry, with its class) and source (file:line of the
 * innermost user frame of the stack trace).  Options add the argument
 * summary, list the archive members, or print the emitter maps of the
 * method.  Columns are padded to the widest cell; cells are built in
 * memory first so that a failure never leaves half a table.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "cli_term.h"
#include "cmd_graph_delegation.h"
#include "cmd_graph_program.h"
#include "commands.h"
#include "etkit/etrecord.h"

#define CMD "graph"

static const char *const usage_text =
    "usage: etkit graph ETRECORD [options]\n"
    "       etkit graph PROGRAM.pte|.bpte [options]  (without the ETRecord)\n"
    "\n"
    "Lists the edge-dialect program recorded in an ETRecord: each node's\n"
    "name, op, debug handle, module path and source line.  Given a\n"
    "program, its instruction graph (`etkit graph PROGRAM -h`).\n"
    "\n"
    "options:\n"
    "  --method NAME   method to list (default: forward, or the only one)\n"
    "  --graph NAME    list another recorded graph instead, e.g.\n"
    "                  exported_program or aten_dialect_output/forward\n"
    "  --args          add each node's arguments\n"
    "  --full-paths    show full source paths, not base names\n"
    "  --members       list the archive members instead\n"
    "  --maps          print the method's debug-handle, delegate and\n"
    "                  output-count maps instead\n"
    "  --delegation    how much was delegated, as upstream's\n"
    "                  print_delegation_info (`etkit graph X --delegation "
    "-h`)\n"
    "  --html FILE     draw the graph as an HTML page instead, coloured by\n"
    "                  an ETDump; --model-explorer / --node-data write\n"
    "                  Model Explorer files (`etkit graph X --html F -h`)\n"
    "  -h, --help      this help\n";

/* A table of malloc'd cells. */
typedef struct table {
  size_t cols;
  char **cells;
  size_t rows, cap;
  bool failed;
} table_t;

static void table_row(table_t *t, const char *const *values) {
  if (t->failed) return;
  if (t->rows == t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 32;
    char **bigger = realloc(t->cells, cap * t->cols * sizeof *bigger);
    if (!bigger) {
      t->failed = true;
      return;
    }
    t->cells = bigger;
    t->cap = cap;
  }
  char **row = &t->cells[t->rows * t->cols];
  for (size_t c = 0; c < t->cols; c++) {
    row[c] = etk_cli_term_text(values[c] ? values[c] : "");
    if (!row[c]) {
      for (size_t k = 0; k < c; k++) free(row[k]);
      t->failed = true;
      return;
    }
  }
  t->rows++;
}

/* Prints the table; false when out of memory (nothing printed). */
static bool table_print(const table_t *t) {
  size_t *w = calloc(t->cols, sizeof *w);
  if (!w) return false;
  for (size_t r = 0; r < t->rows; r++)
    for (size_t c = 0; c < t->cols; c++) {
      size_t n = strlen(t->cells[r * t->cols + c]);
      if (n > w[c]) w[c] = n;
    }
  for (size_t r = 0; r < t->rows; r++) {
    /* no padding after the last non-empty cell: no trailing blanks */
    size_t last = 0;
    for (size_t c = 0; c < t->cols; c++)
      if (t->cells[r * t->cols + c][0]) last = c;
    for (size_t c = 0; c <= last; c++) {
      const char *v = t->cells[r * t->cols + c];
      if (c == last)
        printf("%s\n", v);
      else
        printf("%-*s  ", (int)w[c], v);
    }
  }
  free(w);
  return true;
}

static void table_free(table_t *t) {
  for (size_t i = 0; i < t->rows * t->cols; i++) free(t->cells[i]);
  free(t->cells);
}

static const char *dialect_name(etk_etrecord_dialect_t d) {
  switch (d) {
    case ETK_ETRECORD_DIALECT_ALL_TAGS:
      return "all tags (before 2024-07)";
    case ETK_ETRECORD_DIALECT_SINGLE_KEY:
      return "single key";
    default:
      return "none seen";
  }
}

static const char *member_kind_name(etk_etrecord_member_kind_t k) {
  static const char *const names[] = {"other",
                                      "marker",
                                      "program",
                                      "state dict",
                                      "constants",
                                      "example inputs",
                                      "debug handle map",
                                      "delegate map",
                                      "num-outs map",
                                      "reference outputs",
                                      "representative inputs",
                                      "export graph id",
                                      "program buffer"};
  return (size_t)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

static int list_members(etk_etrecord_t *rec) {
  etk_etrecord_info_t info;
  etk_etrecord_info_get(rec, &info);
  table_t t = {.cols = 5};
  const char *head[] = {"member", "bytes", "stored", "method", "kind"};
  table_row(&t, head);
  for (size_t i = 0; i < info.member_count; i++) {
    const etk_etrecord_member_t *m = etk_etrecord_member_at(rec, i);
    char size[32], comp[32], method[16];
    snprintf(size, sizeof size, "%llu", (unsigned long long)m->size);
    snprintf(comp, sizeof comp, "%llu", (unsigned long long)m->compressed_size);
    snprintf(method, sizeof method, "%s",
             m->compression == 0   ? "stored"
             : m->compression == 8 ? "deflate"
                                   : "other");
    const char *row[] = {m->name, size, comp, method,
                         member_kind_name(m->kind)};
    table_row(&t, row);
  }
  bool printed = !t.failed && table_print(&t);
  table_free(&t);
  if (!printed) return etk_cli_fail(CMD, "out of memory");
  return 0;
}

static void format_handles(char *buf, size_t size, const int64_t *h, size_t n,
                           bool is_list) {
  size_t len = 0;
  buf[0] = 0;
  if (is_list) len += (size_t)snprintf(buf, size, "[");
  for (size_t i = 0; i < n && len < size; i++)
    len += (size_t)snprintf(buf + len, size - len, "%s%lld", i ? ", " : "",
                            (long long)h[i]);
  if (is_list && len < size) snprintf(buf + len, size - len, "]");
}

static int print_maps(etk_etrecord_t *rec, const char *method) {
  const etk_etrecord_method_maps_t *m = etk_etrecord_maps_find(rec, method);
  if (!m)
    return etk_cli_fail(CMD, "the ETRecord has no maps for method '%s'",
                        method ? method : "forward");
  table_t t = {.cols = 5};
  const char *head[] = {"instruction", "debug handles", "delegate",
                        "delegate ids", "outputs"};
  table_row(&t, head);
  /* every instruction named by any of the three maps, in order */
  size_t ih = 0, id = 0, io = 0;
  for (;;) {
    int64_t next = INT64_MAX;
    if (ih < m->handle_count && m->handles[ih].instruction_id < next)
      next = m->handles[ih].instruction_id;
    if (id < m->delegate_count && m->delegates[id].instruction_id < next)
      next = m->delegates[id].instruction_id;
    if (io < m->num_outs_count && m->num_outs[io].instruction_id < next)
      next = m->num_outs[io].instruction_id;
    if (next == INT64_MAX) break;
    char iid[32], handles[256] = "", ids[512] = "", outs[32] = "";
    const char *backend = "";
    snprintf(iid, sizeof iid, "%lld", (long long)next);
    if (ih < m->handle_count && m->handles[ih].instruction_id == next) {
      const etk_etrecord_handle_entry_t *e = &m->handles[ih++];
      if (e->is_null)
        snprintf(handles, sizeof handles, "None");
      else
        format_handles(handles, sizeof handles, e->handles, e->handle_count,
                       e->is_list);
    }
    if (id < m->delegate_count && m->delegates[id].instruction_id == next) {
      const etk_etrecord_delegate_entry_t *d = &m->delegates[id++];
      backend = d->backend_name ? d->backend_name : "None";
      size_t len = 0;
      for (size_t k = 0; k < d->id_count && len < sizeof ids; k++) {
        char hs[200];
        format_handles(hs, sizeof hs, d->ids[k].handles, d->ids[k].handle_count,
                       true);
        len += (size_t)snprintf(ids + len, sizeof ids - len, "%s%s: %s",
                                k ? "  " : "", d->ids[k].id, hs);
      }
    }
    if (io < m->num_outs_count && m->num_outs[io].instruction_id == next)
      snprintf(outs, sizeof outs, "%lld",
               (long long)m->num_outs[io++].num_outputs);
    const char *row[] = {iid, handles, backend, ids, outs};
    table_row(&t, row);
  }
  if (t.failed) {
    table_free(&t);
    return etk_cli_fail(CMD, "out of memory");
  }
  etk_cli_print_term("method ", m->method);
  printf("\n\n");
  bool printed = table_print(&t);
  table_free(&t);
  return printed ? 0 : etk_cli_fail(CMD, "out of memory");
}

static int list_program(const char *path, etk_etrecord_t *rec,
                        const etk_etrecord_program_t *p, bool with_args,
                        bool full_paths) {
  etk_etrecord_info_t info;
  etk_etrecord_info_get(rec, &info);
  etk_cli_print_term("etrecord  ", path);
  printf("\n");
  printf("layout    %s\n", etk_etrecord_layout_name(info.layout));
  char schema[64];
  etk_etrecord_program_schema_version(p, schema, sizeof schema);
  char line[1024];
  snprintf(line, sizeof line, "%s (method %s; schema %s; unions: %s%s%s)",
           p->ref.member, p->ref.method[0] ? p->ref.method : "-", schema,
           dialect_name(p->dialect), p->verifiers[0] ? "; verifiers " : "",
           p->verifiers);
  etk_cli_print_term("program   ", line);
  printf("\n");
  printf("inputs    ");
  for (size_t i = 0; i < p->input_count; i++)
    etk_cli_print_term(i ? ", " : "", p->inputs[i]);
  printf("\noutputs   ");
  for (size_t i = 0; i < p->output_count; i++)
    etk_cli_print_term(i ? ", " : "", p->outputs[i]);
  printf("\nnodes     %zu\n\n", p->node_count);

  table_t t = {.cols = with_args ? 6 : 5};
  const char *head[] = {"node", "op", "handle", "module", "source", "args"};
  table_row(&t, head);
  for (size_t i = 0; i < p->node_count; i++) {
    const etk_etrecord_node_t *n = &p->nodes[i];
    char name[300], handle[32], module[300], source[300];
    snprintf(name, sizeof name, "%*s%s",
             (int)(2 * (n->depth > 16 ? 16 : n->depth)), "",
             n->name[0] ? n->name : "-");
    if (n->has_debug_handle)
      snprintf(handle, sizeof handle, "%lld", (long long)n->debug_handle);
    else
      snprintf(handle, sizeof handle, "-");
    etk_etrecord_node_module_path(n, true, module, sizeof module);
    if (!module[0]) snprintf(module, sizeof module, "-");
    etk_etrecord_node_source(n, full_paths, source, sizeof source);
    if (!source[0]) snprintf(source, sizeof source, "-");
    char op[300];
    if (n->delegate_backend)
      snprintf(op, sizeof op, "%s (%s)", n->op, n->delegate_backend);
    else
      snprintf(op, sizeof op, "%s", n->op);
    const char *row[] = {name, op, handle, module, source, n->args};
    table_row(&t, row);
  }
  bool printed = !t.failed && table_print(&t);
  table_free(&t);
  if (!printed) return etk_cli_fail(CMD, "out of memory");
  return 0;
}

/* One line: "<path>: <member>: <message> (line L, column C)"; the path is
 * not repeated when the error already names it. */
static int fail_with(const char *path, const etk_error_t *err) {
  char line[ETK_ERROR_LINE_SIZE];
  etk_error_format(err, line, sizeof line);
  if (strcmp(err->where, path) == 0) return etk_cli_fail(CMD, "%s", line);
  return etk_cli_fail(CMD, "%s: %s", path, line);
}

typedef struct graph_cli {
  const char *path, *method, *graph;
  int with_args, full_paths, members, maps; /* ETK_CLI_FLAG fields */
} graph_cli_t;

static const etk_cli_option_t options[] = {
    ETK_CLI_STRING("method", 0, graph_cli_t, method),
    ETK_CLI_STRING("graph", 0, graph_cli_t, graph),
    ETK_CLI_FLAG("args", 0, graph_cli_t, with_args),
    ETK_CLI_FLAG("full_paths", 0, graph_cli_t, full_paths),
    ETK_CLI_FLAG("members", 0, graph_cli_t, members),
    ETK_CLI_FLAG("maps", 0, graph_cli_t, maps),
};

/* One option; 0 or an exit status. */
static int apply_option(void *ctx, const etk_cli_parser_t *p, int id) {
  graph_cli_t *c = ctx;
  switch (id) {
    case ETK_CLI_POSITIONAL:
      if (c->path) return etk_cli_usage(CMD, "more than one ETRecord given");
      c->path = p->value;
      break;
  }
  return 0;
}

/* True when argv asks for a drawn graph or Model Explorer files (handled
 * by cmd_graph_view.c): --html, --model-explorer or --node-data, in any
 * of the parser's spellings, before a "--". */
static bool wants_view(int argc, char **argv) {
  static const char *const names[] = {"html", "model_explorer", "node_data"};
  for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
    if (strncmp(argv[i], "--", 2) != 0) continue;
    char name[32];
    size_t n = 0;
    for (const char *a = argv[i] + 2; *a && *a != '=' && n + 1 < sizeof name;
         a++)
      name[n++] = *a == '-' ? '_' : *a;
    name[n] = 0;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
      if (strcmp(name, names[k]) == 0) return true;
  }
  return false;
}

int etk_cmd_graph(int argc, char **argv) {
  if (wants_view(argc, argv)) return etk_cmd_graph_view(argc, argv);
  if (cli_graph_names_program(argc, argv)) {
    /* a program holds delegate calls, not the delegated nodes upstream's
     * summary counts */
    if (cli_graph_wants_delegation(argc, argv))
      return etk_cli_usage(CMD,
                           "--delegation needs the program's ETRecord (a "
                           ".pte does not hold the delegated graph)");
    return cli_graph_program(argc, argv);
  }
  if (cli_graph_wants_delegation(argc, argv))
    return cli_graph_delegation(argc, argv);
  graph_cli_t c;
  memset(&c, 0, sizeof c);
  int rc = etk_cli_parse(CMD, usage_text, options, ETK_CLI_COUNT(options), argc,
                         argv, apply_option, &c);
  if (rc) return rc < 0 ? 0 : rc;
  if (etk_cli_require(CMD, c.path, "ETRECORD")) return 2;
  const char *path = c.path, *method = c.method, *graph = c.graph;
  etk_etrecord_t *rec;
  etk_error_t err;
  etk_error_clear(&err);
  if (etk_etrecord_open_file(path, NULL, &rec, &err) != ETK_OK)
    return fail_with(path, &err);
  int status;
  if (c.members) {
    status = list_members(rec);
  } else if (c.maps) {
    status = print_maps(rec, method);
  } else {
    const etk_etrecord_program_t *p;
    rc = graph ? etk_etrecord_graph_load(rec, graph, &p, &err)
               : etk_etrecord_edge_program_load(rec, method, &p, &err);
    if (rc != ETK_OK)
      status = fail_with(path, &err);
    else
      status = list_program(path, rec, p, c.with_args, c.full_paths);
  }
  etk_etrecord_close(rec);
  if (status == 0 && (fflush(stdout) != 0 || ferror(stdout)))
    return etk_cli_fail(CMD, "error writing standard output");
  return status;
}
