/*
 * program_ops.c - the operators of a program: how many instructions of
 * each method call each operator, and the selected_operators.yaml that
 * upstream's selective build reads.
 *
 * The YAML follows codegen/tools/gen_oplist.py --model_file_path exactly
 * (one file, so byte for byte what yaml.safe_dump gives for the same
 * dictionary; tests compare the two):
 *   - operators: every Operator entry of every method ("name.overload",
 *     or "name" without an overload), sorted, each with is_root_operator
 *     and is_used_for_training true, include_all_overloads false and
 *     debug_info [model path];
 *   - et_kernel_metadata: per operator that some KernelCall calls, the
 *     sorted distinct kernel keys of those calls.  A key is "v1/" then
 *     "<dtype>;<dim order>|" per tensor argument (a TensorList counts as
 *     its first tensor, an OptionalTensorList as its first non-null
 *     tensor, empty lists as nothing), with the last character dropped
 *     (so a call without tensor arguments gives "v1", as upstream);
 *   - the fixed keys: build_features [], custom_classes [],
 *     include_all_non_op_selectives false, include_all_operators false,
 *     kernel_metadata {}.
 * Strings that PyYAML would quote are written in single quotes.
 */
#include <stdlib.h>
#include <string.h>

#include "common/buffers.h"
#include "etkit/program_schema.h"
#include "etkit/program_tools.h"

uint32_t etk_program_op_calls(const etk_program_plan_t *plan,
                              uint32_t *counts) {
  uint32_t total = 0;
  for (uint32_t k = 0; k < plan->operator_count; k++) counts[k] = 0;
  for (uint32_t c = 0; c < plan->chain_count; c++) {
    const etk_program_chain_t *ch = &plan->chains[c];
    for (uint32_t i = 0; i < ch->instruction_count; i++) {
      const etk_program_instruction_t *in = &ch->instructions[i];
      if (in->kind != ETK_INSTR_KERNEL_CALL) continue;
      if (in->index >= 0 && (uint32_t)in->index < plan->operator_count) {
        counts[in->index]++;
        total++;
      }
    }
  }
  return total;
}

/* ------------------------------------------------------------ strings */

typedef struct str_list {
  char **items;
  size_t count, cap;
} str_list_t;

static int list_add(str_list_t *l, const char *s, size_t n) {
  if (l->count == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 16;
    char **grown = realloc(l->items, cap * sizeof *grown);
    if (!grown) return ETK_E_NO_MEMORY;
    l->items = grown;
    l->cap = cap;
  }
  char *copy = malloc(n + 1);
  if (!copy) return ETK_E_NO_MEMORY;
  memcpy(copy, s, n);
  copy[n] = '\0';
  l->items[l->count++] = copy;
  return ETK_OK;
}

static void list_free(str_list_t *l) {
  for (size_t i = 0; i < l->count; i++) free(l->items[i]);
  free(l->items);
  memset(l, 0, sizeof *l);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts and drops repeats (Python's sorted(set(...)) on str: code point
 * order is UTF-8 byte order). */
static void list_sort_unique(str_list_t *l) {
  if (l->count < 2) return;
  qsort(l->items, l->count, sizeof *l->items, cmp_str);
  size_t w = 1;
  for (size_t r = 1; r < l->count; r++) {
    if (strcmp(l->items[r], l->items[w - 1]) == 0)
      free(l->items[r]);
    else
      l->items[w++] = l->items[r];
  }
  l->count = w;
}

/* ---------------------------------------------------------------- YAML */

/* True when PyYAML writes `s` as a plain scalar in block context: no
 * leading indicator or space, no ": " or " #", printable ASCII, and not a
 * word YAML 1.1 resolves to another type (bools, null, numbers). */
static bool yaml_plain(const char *s) {
  size_t n = strlen(s);
  if (n == 0 || strchr("-?:,[]{}#&*!|>'\"%@` ", s[0])) return false;
  if (s[n - 1] == ' ' || s[n - 1] == ':') return false;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c < 0x20 || c > 0x7e) return false;
    if (c == ':' && s[i + 1] == ' ') return false;
    if (c == '#' && i > 0 && s[i - 1] == ' ') return false;
  }
  static const char *const words[] = {
      "y",  "Y",    "yes",  "Yes",  "YES",   "n",     "N",     "no", "No",
      "NO", "true", "True", "TRUE", "false", "False", "FALSE", "on", "On",
      "ON", "off",  "Off",  "OFF",  "null",  "Null",  "NULL",  "~"};
  for (size_t w = 0; w < sizeof words / sizeof *words; w++)
    if (strcmp(s, words[w]) == 0) return false;
  /* numbers (int, float, sexagesimal): digits with . _ : + - e E */
  bool digit = false, other = false;
  for (size_t i = 0; i < n; i++) {
    if (s[i] >= '0' && s[i] <= '9')
      digit = true;
    else if (!strchr("._:+-eE", s[i]))
      other = true;
  }
  if (digit && !other) return false;
  if (strcmp(s, ".inf") == 0 || strcmp(s, ".nan") == 0) return false;
  return true;
}

static void yaml_scalar(etr_text_t *t, const char *s) {
  if (yaml_plain(s)) {
    etr_text_adds(t, s);
    return;
  }
  etr_text_adds(t, "'");
  for (const char *p = s; *p; p++) {
    if (*p == '\'') etr_text_adds(t, "'");
    etr_text_add(t, p, 1);
  }
  etr_text_adds(t, "'");
}

/* ----------------------------------------------------------- kernel keys */

/* The tensor an argument stands for, or NULL (see the essay). */
static const etk_program_tensor_t *arg_tensor(const etk_program_plan_t *plan,
                                              int32_t arg) {
  if (arg < 0 || (uint32_t)arg >= plan->value_count) return NULL;
  const etk_program_value_t *v = &plan->values[arg];
  if (v->tag == ETK_PTE_KT_TENSOR) return v->u.tensor;
  if (v->tag != ETK_PTE_KT_TENSOR_LIST &&
      v->tag != ETK_PTE_KT_OPTIONAL_TENSOR_LIST)
    return NULL;
  for (uint32_t k = 0; k < v->u.tensor_list.count; k++) {
    int32_t item = v->u.tensor_list.items[k];
    if (item < 0 || (uint32_t)item >= plan->value_count) continue;
    if (plan->values[item].tag == ETK_PTE_KT_TENSOR)
      return plan->values[item].u.tensor;
    if (v->tag == ETK_PTE_KT_TENSOR_LIST) return NULL;
  }
  return NULL;
}

static int kernel_key(const etk_program_plan_t *plan,
                      const etk_program_instruction_t *in, etr_text_t *t) {
  t->len = 0;
  etr_text_adds(t, "v1/");
  for (uint32_t a = 0; a < in->arg_count; a++) {
    const etk_program_tensor_t *ts = arg_tensor(plan, in->args[a]);
    if (!ts) continue;
    etr_text_addf(t, "%d;", (int)ts->scalar_type);
    for (uint32_t d = 0; d < ts->dim; d++)
      etr_text_addf(t, "%s%u", d ? "," : "", (unsigned)ts->dim_order[d]);
    etr_text_adds(t, "|");
  }
  if (t->failed) return ETK_E_NO_MEMORY;
  t->len--; /* upstream's kernel_key[:-1] */
  return ETK_OK;
}

/* The keys of every call of operator `name` in every method. */
static int keys_of(const etk_program_t *p, const char *name, str_list_t *keys,
                   etr_text_t *scratch) {
  for (uint32_t k = 0; k < p->plan_count; k++) {
    const etk_program_plan_t *plan = &p->plans[k];
    for (uint32_t c = 0; c < plan->chain_count; c++) {
      const etk_program_chain_t *ch = &plan->chains[c];
      for (uint32_t i = 0; i < ch->instruction_count; i++) {
        const etk_program_instruction_t *in = &ch->instructions[i];
        if (in->kind != ETK_INSTR_KERNEL_CALL || in->index < 0 ||
            (uint32_t)in->index >= plan->operator_count ||
            strcmp(plan->operators[in->index].full_name, name) != 0)
          continue;
        int rc = kernel_key(plan, in, scratch);
        if (rc == ETK_OK) rc = list_add(keys, scratch->buf, scratch->len);
        if (rc != ETK_OK) return rc;
      }
    }
  }
  list_sort_unique(keys);
  return ETK_OK;
}

static int write_yaml(const etk_program_t *p, const str_list_t *ops,
                      const char *model_name, etr_text_t *t) {
  etr_text_t scratch;
  etr_text_init(&scratch, 0);
  etr_text_adds(t, "build_features: []\ncustom_classes: []\n");
  etr_text_adds(t, "et_kernel_metadata:");
  bool any = false;
  int rc = ETK_OK;
  for (size_t o = 0; rc == ETK_OK && o < ops->count; o++) {
    str_list_t keys = {0};
    rc = keys_of(p, ops->items[o], &keys, &scratch);
    if (rc == ETK_OK && keys.count) {
      etr_text_adds(t, "\n  ");
      yaml_scalar(t, ops->items[o]);
      etr_text_adds(t, ":");
      for (size_t k = 0; k < keys.count; k++) {
        etr_text_adds(t, "\n  - ");
        yaml_scalar(t, keys.items[k]);
      }
      any = true;
    }
    list_free(&keys);
  }
  etr_text_free(&scratch);
  etr_text_adds(t, any ? "\n" : " {}\n");
  etr_text_adds(t,
                "include_all_non_op_selectives: false\n"
                "include_all_operators: false\n"
                "kernel_metadata: {}\n"
                "operators:");
  for (size_t o = 0; o < ops->count; o++) {
    etr_text_adds(t, "\n  ");
    yaml_scalar(t, ops->items[o]);
    etr_text_adds(t, ":\n    debug_info:\n    - ");
    yaml_scalar(t, model_name);
    etr_text_adds(t,
                  "\n    include_all_overloads: false\n"
                  "    is_root_operator: true\n"
                  "    is_used_for_training: true");
  }
  etr_text_adds(t, ops->count ? "\n" : " {}\n");
  return rc;
}

int etk_program_selective_build_yaml(const etk_program_t *p,
                                     const char *model_name, char **out,
                                     size_t *len, etk_error_t *err) {
  *out = NULL;
  *len = 0;
  str_list_t ops = {0};
  int rc = ETK_OK;
  for (uint32_t k = 0; rc == ETK_OK && k < p->plan_count; k++)
    for (uint32_t o = 0; rc == ETK_OK && o < p->plans[k].operator_count; o++) {
      const char *name = p->plans[k].operators[o].full_name;
      rc = list_add(&ops, name, strlen(name));
    }
  list_sort_unique(&ops);
  etr_text_t t;
  etr_text_init(&t, 0);
  if (rc == ETK_OK) rc = write_yaml(p, &ops, model_name ? model_name : "", &t);
  list_free(&ops);
  if (rc == ETK_OK && (t.failed || !t.buf)) rc = ETK_E_NO_MEMORY;
  if (rc != ETK_OK) {
    etr_text_free(&t);
    return etk_error_set(err, rc, ETK_NO_OFFSET,
                         "out of memory writing the operator list");
  }
  *out = t.buf;
  *len = t.len;
  return ETK_OK;
}
