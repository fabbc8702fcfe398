/*
 * program_join.c - an ETDump's events on a program's graph
 * (etk_graph_from_program()): the graph has no debug handles, so an event
 * covers the call node of its (chain, instruction), which is what the
 * runtime recorded it for (program_join.h).
 *
 * A delegate's own events (those with a delegate debug id) happen inside
 * the DelegateCall; its DELEGATE_CALL event times the whole call, which
 * is the node's time, so they are left out rather than added to it.
 * Because a program knows its operators, an event whose name is another
 * operator's kernel event ("native_call_relu.out" at a convolution) is a
 * sign of another program's ETDump: it covers nothing and is counted for
 * the warning, as are instruction ids the chain does not have.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "etkit/program.h"
#include "program_join.h"

static bool is_framework(const char *name) {
  return strcmp(name, "Method::execute") == 0 ||
         strcmp(name, "OPERATOR_CALL") == 0 ||
         strcmp(name, "Method::init") == 0 ||
         strcmp(name, "Program::load_method") == 0;
}

/* The instruction of (chain, id), or NULL when the chain lacks it. */
static const etk_program_instruction_t *instruction_at(
    const etk_graph_program_t *p, int64_t chain, int64_t id) {
  if (chain < 0 || (uint64_t)chain >= p->plan->chain_count || id < 0 ||
      (uint64_t)id >= p->plan->chains[chain].instruction_count)
    return NULL;
  return &p->plan->chains[chain].instructions[id];
}

/* Does the event's name fit its instruction? */
static bool name_fits(const etk_graph_program_t *p,
                      const etk_program_instruction_t *ins, const char *name) {
  bool delegate_call = strcmp(name, "DELEGATE_CALL") == 0;
  bool kernel_event = strncmp(name, "native_call_", 12) == 0;
  if (ins->kind == ETK_INSTR_DELEGATE_CALL) return !kernel_event;
  if (ins->kind != ETK_INSTR_KERNEL_CALL) return !delegate_call;
  if (delegate_call) return false;
  const char *want = p->plan->operators[ins->index].event_name;
  return !kernel_event || !want || strcmp(name, want) == 0;
}

size_t program_event_node(const etk_graph_t *g, const etk_inspector_event_t *ev,
                          const char *name, program_fit_t *fit) {
  const etk_graph_program_t *p = etk_graph_program(g);
  if (!p || is_framework(name) || ev->instruction_id < 0) return ETK_GRAPH_NONE;
  if (ev->delegate_id_is_int || ev->delegate_debug_id_str)
    return ETK_GRAPH_NONE; /* inside its DELEGATE_CALL */
  int64_t chain = ev->chain_index < 0 ? 0 : ev->chain_index;
  if (fit) {
    fit->with_ids++;
    fit->last = p->plan->chain_count
                    ? (int64_t)p->plan->chains[0].instruction_count - 1
                    : -1;
  }
  const etk_program_instruction_t *ins =
      instruction_at(p, chain, ev->instruction_id);
  if (!ins) {
    if (fit) fit->beyond++;
    return ETK_GRAPH_NONE;
  }
  if (!name_fits(p, ins, name)) {
    if (fit) fit->wrong_op++;
    return ETK_GRAPH_NONE;
  }
  return etk_graph_instruction_node(g, chain, ev->instruction_id);
}

bool program_block_ran_method(const etk_graph_t *g, const char *block_name) {
  const etk_graph_program_t *p = etk_graph_program(g);
  if (!p) return false;
  const etk_program_t *prog = p->program;
  const char *method = p->plan->name;
  if (block_name && etk_program_find_plan(prog, block_name))
    return strcmp(block_name, method) == 0;
  const etk_program_plan_t *fallback = etk_program_find_plan(prog, "forward");
  if (!fallback) fallback = etk_program_find_plan(prog, NULL);
  return fallback && strcmp(fallback->name, method) == 0;
}

int64_t program_delegate_outputs(const etk_graph_t *g, int64_t chain,
                                 int64_t instruction) {
  size_t node = etk_graph_instruction_node(g, chain, instruction);
  if (node == ETK_GRAPH_NONE) return -1;
  const etk_graph_node_t *n = &etk_graph_nodes(g)[node];
  if (n->partition == ETK_GRAPH_NONE) return -1;
  return (int64_t)n->output_count;
}

bool program_mismatch_line(const program_fit_t *fit, bool nothing,
                           size_t events, const char *name, char *line,
                           size_t size) {
  if (!name) name = "the program";
  if (nothing && events) {
    snprintf(line, size,
             "%s matches nothing in the ETDump: none of the ETDump's %zu "
             "events names one of its instructions with that instruction's "
             "operator (an ETDump of another program?); the graph has no "
             "figures",
             name, events);
    return true;
  }
  if (nothing) return false;
  if (fit->beyond || fit->wrong_op) {
    snprintf(line, size,
             "%s matches the ETDump only in part: of the ETDump's %zu "
             "instruction events, %zu name instructions past its last "
             "(%" PRId64
             ") and %zu another operator than the instruction's "
             "(an ETDump of another program?); those events colour no node",
             name, fit->with_ids, fit->beyond, fit->last, fit->wrong_op);
    return true;
  }
  return false;
}
