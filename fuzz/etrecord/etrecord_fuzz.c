/*
 * etrecord_fuzz.c - libFuzzer target for the ETRecord reader: the ZIP
 * container, the JSON pre-scan and jansson, the maps, the program walker,
 * the linker and the text helpers.
 *
 * Two input forms, so that mutations reach the JSON code even though every
 * stored member is protected by a CRC:
 *   - input starting with "PK": opened as an ETRecord archive as is;
 *   - anything else: split on NUL bytes into up to seven member texts,
 *     zipped (with correct CRCs) next to an ETRECORD_V0 marker under the
 *     names below (with tests/etrecord/fixture.c), then opened.
 * Everything that opens is then walked: every program loaded, every node's
 * helpers called, every member read, and events linked for every map entry.
 * Tight limits keep each run small.  Any crash, sanitizer report or leak is
 * a bug; errors are expected and ignored.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/etrecord.h"
#include "fixture.h"

static const char *const kNames[] = {
    "debug_handle_map",
    "edge_dialect_exported_program/forward",
    "delegate_map",
    "instruction_id_to_num_outs_map",
    "edge_dialect_exported_program/decode",
    "export_graph_id",
    "edge_dialect_exported_program",
};
#define MAX_CHUNKS (sizeof kNames / sizeof kNames[0])

static uint8_t *zip_chunks(const uint8_t *data, size_t size, size_t *out_len) {
  return fixture_zip_chunks(data, size, kNames, MAX_CHUNKS, out_len);
}

static void walk_program(const etk_etrecord_program_t *p) {
  char buf[256];
  for (size_t i = 0; i < p->node_count; i++) {
    const etk_etrecord_node_t *n = &p->nodes[i];
    etk_etrecord_node_module_path(n, true, buf, sizeof buf);
    etk_etrecord_node_source(n, false, buf, sizeof buf);
    etk_etrecord_node_in_module(n, "fc", ETK_ETRECORD_MODULE_SUBSTRING);
    etk_etrecord_node_in_module(n, "fc", ETK_ETRECORD_MODULE_EXACT_PATH);
    if (n->has_debug_handle)
      etk_etrecord_program_nodes_for_handle(p, n->debug_handle, NULL);
    if (n->stack_trace) {
      etk_etrecord_frame_t frames[4];
      size_t count;
      etk_etrecord_stack_trace_split(n->stack_trace, strlen(n->stack_trace),
                                     frames, 4, &count);
    }
  }
}

static void link_all(etk_etrecord_t *rec) {
  etk_etrecord_info_t info;
  etk_etrecord_info_get(rec, &info);
  for (unsigned flags = 0; flags < 16; flags += 5) {
    etk_etrecord_linker_t *l;
    if (etk_etrecord_linker_create(rec, flags, &l, NULL) != ETK_OK) return;
    for (size_t m = 0; m < info.method_count; m++) {
      const etk_etrecord_method_maps_t *mm = etk_etrecord_maps_at(rec, m);
      for (size_t i = 0; i < mm->handle_count && i < 64; i++) {
        etk_etrecord_event_ref_t ev = {
            .method = mm->method,
            .name = "OPERATOR_CALL",
            .chain_index = 0,
            .instruction_id = mm->handles[i].instruction_id,
            .has_instruction_id = true,
            .delegate_debug_id_int = -1};
        etk_etrecord_event_link_t out;
        etk_etrecord_linker_resolve(l, &ev, &out, NULL);
        etk_etrecord_link_in_module(&out, "L__self__",
                                    ETK_ETRECORD_MODULE_SUBSTRING);
        ev.name = "DELEGATE_CALL";
        etk_etrecord_linker_resolve(l, &ev, &out, NULL);
        ev.delegate_debug_id_int = (int64_t)i;
        etk_etrecord_linker_resolve(l, &ev, &out, NULL);
        ev.delegate_debug_id_int = -1;
        ev.delegate_debug_id_str = "a";
        etk_etrecord_linker_resolve(l, &ev, &out, NULL);
      }
    }
    etk_etrecord_linker_destroy(l);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* The text helpers on raw bytes first: they take any (pointer, length). */
  const char *text = (const char *)data;
  size_t count;
  etk_etrecord_module_span_t spans[4];
  etk_etrecord_module_stack_split(text, size, spans, 4, &count);
  etk_etrecord_frame_t frame;
  etk_etrecord_stack_trace_user_frame(text, size, &frame);
  char out[64];
  etk_etrecord_module_path_normalize(text, size < 512 ? size : 512, out,
                                     sizeof out);

  etk_etrecord_limits_t lim;
  fixture_fuzz_limits(&lim);

  uint8_t *zip = NULL;
  size_t zip_len = size;
  const uint8_t *bytes = data;
  if (size < 2 || data[0] != 'P' || data[1] != 'K') {
    zip = zip_chunks(data, size, &zip_len);
    if (!zip) return 0;
    bytes = zip;
  }
  etk_etrecord_t *rec;
  if (etk_etrecord_open_memory(bytes, zip_len, &lim, &rec, NULL) == ETK_OK) {
    etk_etrecord_info_t info;
    etk_etrecord_info_get(rec, &info);
    for (size_t i = 0; i < info.program_count; i++) {
      const etk_etrecord_program_t *p;
      if (etk_etrecord_program_load(rec, i, &p, NULL) == ETK_OK)
        walk_program(p);
    }
    for (size_t i = 0; i < info.member_count; i++) {
      const uint8_t *d;
      size_t n;
      if (etk_etrecord_member_read(rec, etk_etrecord_member_at(rec, i)->name,
                                   &d, &n, NULL) == ETK_OK)
        etk_etrecord_blob_kind(d, n);
    }
    const etk_etrecord_program_t *p;
    etk_etrecord_graph_load(rec, "aten_dialect_output", &p, NULL);
    link_all(rec);
    etk_etrecord_close(rec);
  }
  free(zip);
  return 0;
}
