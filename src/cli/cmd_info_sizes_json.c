/*
 * cmd_info_sizes_json.c - `etkit info PROGRAM --sizes --format json`: the
 * figures of etk_program_sizes_build() in the shape of upstream's
 * size_analysis_tool output file (a list holding, per program, an object
 * with "tensor_data", "delegate_blob_data" and "overview"), so a script
 * that reads upstream's model_size_information.json reads this too.
 * Keys beyond upstream's (method, value, shared; planned_memory) are
 * listed in docs/program-tools.md.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli_args.h"
#include "cmd_info.h"
#include "commands.h"
#include "etkit/program_tools.h"
#include "etkit/render.h"
#include "etkit/scalar_type.h"

#define CMD "info"

/* torch's dtype name without "torch." (upstream's str(dtype)[6:]): NumPy's
 * name where it is the same, the ScalarType name in lower case else. */
static void json_dtype(etk_json_t *j, int code) {
  const char *name = etk_scalar_type_numpy_name(code);
  if (name) {
    etk_json_kv_cstring(j, "dtype", name);
    return;
  }
  char lower[32];
  const char *s = etk_scalar_type_name(code);
  size_t n = 0;
  for (; s && s[n] && n + 1 < sizeof lower; n++)
    lower[n] = (char)(s[n] >= 'A' && s[n] <= 'Z' ? s[n] - 'A' + 'a' : s[n]);
  lower[n] = 0;
  etk_json_kv_cstring(j, "dtype", lower);
}

static void json_tensor(etk_json_t *j, const etk_program_t *p,
                        const etk_program_size_tensor_t *t) {
  char value_name[32];
  etk_json_begin_object(j);
  if (t->name) {
    etk_json_kv_cstring(j, "name", t->name);
  } else {
    snprintf(value_name, sizeof value_name, "value_%u", t->value);
    etk_json_kv_cstring(j, "name", value_name);
  }
  etk_json_kv_uint(j, "numel", t->numel);
  json_dtype(j, t->scalar_type);
  etk_json_kv_uint(j, "element_size", etk_scalar_type_size(t->scalar_type));
  etk_json_key(j, "shape");
  etk_json_begin_array(j);
  for (uint32_t d = 0; d < t->dim; d++) etk_json_int(j, t->sizes[d]);
  etk_json_end_array(j);
  etk_json_kv_uint(j, "num_bytes", t->nbytes);
  etk_json_kv_null(j, "nn_module_stack"); /* a program has no graph meta */
  etk_json_kv_cstring(j, "method", p->plans[t->plan].name);
  etk_json_kv_uint(j, "value", t->value);
  etk_json_kv_bool(j, "shared", t->shared);
  etk_json_end_object(j);
}

int cli_info_sizes_json(const etk_program_t *p) {
  etk_error_t err;
  etk_error_clear(&err);
  etk_program_sizes_t s;
  if (etk_program_sizes_build(p, &s, &err) != ETK_OK)
    return etk_cli_fail_error(CMD, &err);
  etk_render_sink_t sink;
  etk_render_sink_init_file(&sink, stdout);
  etk_json_t j;
  etk_json_init(&j, &sink, 2);
  etk_json_begin_array(&j);
  etk_json_begin_object(&j);
  etk_json_key(&j, "tensor_data");
  etk_json_begin_array(&j);
  for (size_t i = 0; i < s.tensor_count; i++) json_tensor(&j, p, &s.tensors[i]);
  etk_json_end_array(&j);
  etk_json_key(&j, "delegate_blob_data");
  etk_json_begin_array(&j);
  for (size_t i = 0; i < s.delegate_count; i++) {
    const etk_program_size_delegate_t *d = &s.delegates[i];
    char name[40];
    /* upstream's get_attr node of the lowered module */
    snprintf(name, sizeof name, "lowered_module_%u", d->index);
    etk_json_begin_object(&j);
    etk_json_kv_cstring(&j, "name", name);
    etk_json_kv_cstring(&j, "backend_id", d->backend_id);
    etk_json_kv_uint(&j, "num_bytes", d->nbytes);
    etk_json_kv_cstring(&j, "method", p->plans[d->plan].name);
    etk_json_end_object(&j);
  }
  etk_json_end_array(&j);
  etk_json_key(&j, "overview");
  etk_json_begin_object(&j);
  etk_json_kv_uint(&j, "total_tensor_data_size", s.total_tensor_data_size);
  etk_json_kv_uint(&j, "total_delegate_blob_data_size",
                   s.total_delegate_blob_data_size);
  etk_json_kv_uint(&j, "serialization_metadata_size",
                   s.serialization_metadata_size);
  etk_json_kv_uint(&j, "model_size", s.model_size);
  etk_json_end_object(&j);
  etk_json_key(&j, "planned_memory");
  etk_json_begin_array(&j);
  for (size_t i = 0; i < s.buffer_count; i++) {
    const etk_program_size_buffer_t *b = &s.buffers[i];
    etk_json_begin_object(&j);
    etk_json_kv_cstring(&j, "method", p->plans[b->plan].name);
    etk_json_kv_uint(&j, "memory_id", b->memory_id);
    etk_json_kv_uint(&j, "num_bytes", b->nbytes);
    etk_json_kv_uint(&j, "tensors", b->tensors);
    etk_json_end_object(&j);
  }
  etk_json_end_array(&j);
  etk_json_end_object(&j);
  etk_json_end_array(&j);
  int rc = etk_json_finish(&j); /* ends with a newline */
  if (etk_render_sink_flush(&sink) != 0) rc = -1;
  etk_program_sizes_free(&s);
  return rc == 0 ? 0 : etk_cli_fail(CMD, "error writing output");
}
