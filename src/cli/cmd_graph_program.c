/*
 * cmd_graph_program.c - `etkit graph PROGRAM.pte|.bpte`: the instruction
 * graph of a program alone (etk_graph_from_program(), etkit/graph.h),
 * for when the ETRecord is not at hand.  Without an output option it is
 * listed here, one row per node (what it reads, what it writes, how many
 * constants it folds); with --html, --model-explorer or --node-data,
 * cmd_graph_view.c draws it as it draws an ETRecord's graph, joined with
 * an ETDump by instruction id.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "cli_term.h"
#include "cmd_graph_program.h"
#include "commands.h"
#include "etkit/program_schema.h"

#define CMD "graph"

static const char *const usage_text =
    "usage: etkit graph PROGRAM.pte|.bpte [options]\n"
    "\n"
    "Lists a program's instruction graph without its ETRecord: one node\n"
    "per KernelCall and DelegateCall (\"#I\": instruction I), the values\n"
    "each reads and writes, and the constants it folds.  --html draws it\n"
    "(`etkit graph PROGRAM --html F -h`), coloured by an ETDump joined by\n"
    "instruction id.\n"
    "\n"
    "options:\n"
    "  --method NAME       method (default: forward, or the first)\n"
    "  --all-instructions  MoveCall, FreeCall and JumpFalseCall as nodes too\n"
    "                      (moves are folded by default)\n"
    "  -h, --help          this help\n";

bool cli_graph_is_program(const char *path) {
  etk_file_kind_t k = etk_file_kind_of_path(path);
  return k == ETK_FILE_PTE || k == ETK_FILE_BPTE;
}

bool cli_graph_names_program(int argc, char **argv) {
  for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
    if (argv[i][0] != '-' && cli_graph_is_program(argv[i])) return true;
  return false;
}

int cli_program_graph_load(const char *cmd, const char *path,
                           const char *method, bool all,
                           cli_program_graph_t *out) {
  memset(out, 0, sizeof *out);
  etk_error_t err;
  etk_error_clear(&err);
  const etk_program_t *program = NULL;
  int rc;
  if (etk_file_kind_of_path(path) == ETK_FILE_BPTE) {
    rc = etk_bundled_program_load_file(path, NULL, &out->bundled, &err);
    if (rc == ETK_OK) program = out->bundled->program;
  } else {
    rc = etk_program_load_file(path, NULL, &out->program, &err);
    program = out->program;
  }
  etk_graph_program_options_t o;
  etk_graph_program_options_default(&o);
  o.method = method;
  o.flags = all ? ETK_GRAPH_PROGRAM_ALL_INSTRUCTIONS : 0;
  o.bundled = out->bundled; /* its expected outputs: the reference */
  if (rc == ETK_OK) rc = etk_graph_from_program(program, &o, &out->graph, &err);
  if (rc == ETK_OK) return 0;
  cli_program_graph_free(out);
  if (!err.where[0]) snprintf(err.where, sizeof err.where, "%s", path);
  return etk_cli_fail_error(cmd, &err);
}

void cli_program_graph_free(cli_program_graph_t *p) {
  etk_graph_free(p->graph);
  etk_program_free(p->program);
  etk_bundled_program_free(p->bundled);
  memset(p, 0, sizeof *p);
}

/* Appends to a fixed cell; cut at its end. */
static void cat(char *cell, size_t size, const char *sep, const char *s) {
  size_t len = strlen(cell);
  if (len + 1 < size)
    snprintf(cell + len, size - len, "%s%s", len ? sep : "", s);
}

/* The constants node i folds: count and bytes. */
static void constants(const etk_graph_program_t *p, size_t i, size_t *count,
                      uint64_t *bytes) {
  *count = 0;
  *bytes = 0;
  int64_t c = p->node_chain[i], id = p->node_instruction[i];
  if (c < 0 || id < 0) return;
  const etk_program_instruction_t *ins = &p->plan->chains[c].instructions[id];
  for (uint32_t k = 0; ins->args && k < ins->arg_count; k++) {
    const etk_program_value_t *v = &p->plan->values[ins->args[k]];
    if (v->tag != ETK_PTE_KT_TENSOR || !v->u.tensor) continue;
    const etk_program_tensor_t *t = v->u.tensor;
    if (t->external || (t->data_buffer_idx > 0 && !t->planned)) {
      (*count)++;
      *bytes += t->nbytes;
    }
  }
}

static void print_row(const char *const cells[5], const int width[4]) {
  char *text[5];
  size_t last = 0;
  for (int k = 0; k < 5; k++) {
    text[k] = etk_cli_term_text(cells[k]);
    if (text[k] && text[k][0]) last = (size_t)k;
  }
  for (size_t k = 0; k <= last; k++) {
    const char *v = text[k] ? text[k] : "?";
    if (k == last)
      printf("%s\n", v);
    else
      printf("%-*s  ", width[k], v);
  }
  for (int k = 0; k < 5; k++) free(text[k]);
}

static void list(const char *path, const etk_graph_t *g) {
  const etk_graph_program_t *p = etk_graph_program(g);
  const etk_graph_node_t *nodes = etk_graph_nodes(g);
  const etk_graph_value_t *values = etk_graph_values(g);
  size_t n = etk_graph_node_count(g), calls = 0, delegates = 0, total = 0;
  for (size_t i = 0; i < n; i++) {
    calls += nodes[i].kind == ETK_GRAPH_NODE_CALL;
    delegates += nodes[i].partition != ETK_GRAPH_NONE;
  }
  for (uint32_t c = 0; c < p->chain_count; c++)
    total += p->plan->chains[c].instruction_count;
  etk_cli_print_term("program   ", path);
  printf("\n");
  etk_cli_print_term("method    ", p->plan->name);
  printf(": %" PRIu32 " input%s, %" PRIu32
         " output%s, %zu instruction%s: "
         "%zu node%s (%zu delegate call%s), %zu folded\n\n",
         p->plan->input_count, p->plan->input_count == 1 ? "" : "s",
         p->plan->output_count, p->plan->output_count == 1 ? "" : "s", total,
         total == 1 ? "" : "s", calls, calls == 1 ? "" : "s", delegates,
         delegates == 1 ? "" : "s", total - calls);
  int width[4] = {4, 2, 5, 6};
  char cell[4][1024];
  for (int pass = 0; pass < 2; pass++) {
    if (pass) {
      const char *head[5] = {"node", "op", "reads", "writes", "constants"};
      print_row(head, width);
    }
    for (size_t i = 0; i < n; i++) {
      const etk_graph_node_t *nd = &nodes[i];
      for (int k = 0; k < 4; k++) cell[k][0] = 0;
      snprintf(cell[0], sizeof cell[0], "%s", nd->name);
      if (nd->partition != ETK_GRAPH_NONE)
        snprintf(cell[1], sizeof cell[1], "%s (%s)", nd->op, nd->target);
      else
        snprintf(cell[1], sizeof cell[1], "%s", nd->op);
      for (size_t a = 0; a < nd->arg_count; a++)
        for (size_t e = 0; nd->args[a].values && e < nd->args[a].count; e++) {
          size_t v = nd->args[a].values[e];
          bool out = v != ETK_GRAPH_NONE && values[v].producer == i;
          if (v != ETK_GRAPH_NONE && !out)
            cat(cell[2], sizeof cell[2], ", ", values[v].name);
        }
      for (size_t k = 0; k < nd->output_value_count; k++) {
        char shape[160], one[256];
        size_t v = nd->output_values[k];
        etk_graph_value_shape(g, v, shape, sizeof shape);
        snprintf(one, sizeof one, "%s%s%s", values[v].name, shape[0] ? " " : "",
                 shape);
        cat(cell[3], sizeof cell[3], ", ", one);
      }
      size_t cc;
      uint64_t bytes;
      constants(p, i, &cc, &bytes);
      char consts[64] = "";
      if (cc) snprintf(consts, sizeof consts, "%zu (%" PRIu64 " B)", cc, bytes);
      if (!pass) {
        for (int k = 0; k < 4; k++) {
          int len = (int)strlen(cell[k]);
          if (len > width[k]) width[k] = len > 60 ? 60 : len;
        }
        continue;
      }
      const char *row[5] = {cell[0], cell[1], cell[2], cell[3], consts};
      print_row(row, width);
    }
  }
}

typedef struct program_cli {
  const char *path, *method;
  int all;
} program_cli_t;

static const etk_cli_option_t options[] = {
    ETK_CLI_STRING("method", 0, program_cli_t, method),
    ETK_CLI_FLAG("all_instructions", 0, program_cli_t, all),
};

static int apply_option(void *ctx, const etk_cli_parser_t *p, int id) {
  program_cli_t *c = ctx;
  if (id == ETK_CLI_POSITIONAL) {
    if (c->path) return etk_cli_usage(CMD, "more than one program given");
    c->path = p->value;
  }
  return 0;
}

int cli_graph_program(int argc, char **argv) {
  program_cli_t c;
  memset(&c, 0, sizeof c);
  int rc = etk_cli_parse(CMD, usage_text, options, ETK_CLI_COUNT(options), argc,
                         argv, apply_option, &c);
  if (rc) return rc < 0 ? 0 : rc;
  if (etk_cli_require(CMD, c.path, "PROGRAM")) return 2;
  cli_program_graph_t pg;
  if (cli_program_graph_load(CMD, c.path, c.method, c.all, &pg)) return 1;
  list(c.path, pg.graph);
  cli_program_graph_free(&pg);
  if (fflush(stdout) != 0 || ferror(stdout))
    return etk_cli_fail(CMD, "error writing standard output");
  return 0;
}
