/*
 * render_options.c - the defaults and the parsed names of the Inspector's
 * render options, shared by the event tables (inspector_render.c) and the
 * module view (module_tree.c), which both sit above this file.
 */
#include <string.h>

#include "inspector_internal.h"

void etk_inspector_render_options_init(etk_inspector_render_options_t *o) {
  if (!o) return;
  memset(o, 0, sizeof *o);
  o->include_units = 1;
  o->json_indent = 2;
}

int etk_inspect_sort_parse(const char *name, etk_inspect_sort_t *out) {
  static const char *const names[] = {"none", "avg", "p10",   "p50",   "p90",
                                      "min",  "max", "total", "count", "name"};
  if (!name || !out) return ETK_E_INVALID_ARGUMENT;
  for (int i = 0; i < 10; i++)
    if (strcmp(name, names[i]) == 0) {
      *out = (etk_inspect_sort_t)i;
      return ETK_OK;
    }
  return ETK_E_INVALID_ARGUMENT;
}
