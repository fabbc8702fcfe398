/*
 * pickle_fuzz.c - libFuzzer target for the restricted unpickler and the
 * torch.save archive reader and writer (src/etrecord/pickle.c,
 * torch_archive.c, torch_writer.c).
 *
 * Each input is used three ways, with tight limits:
 *   - input starting with "PK": opened as a torch.save archive as is;
 *   - any input: decoded as a bare pickle (persistent ids refused);
 *   - any input not starting with "PK": zipped as archive/data.pkl next to
 *     four 64-byte storages archive/data/0..3 (correct CRCs), so that
 *     mutations reach persistent ids and _rebuild_tensor_v2 (the ZIP is
 *     built by tests/etrecord/fixture.c).
 * Whatever decodes is walked (every tensor copied out), written back with
 * etk_torch_save_memory() and, when that succeeds, read again: a tree the
 * writer accepts must always read back (a failure traps).  Errors are
 * expected and ignored; crashes, sanitizer reports and leaks are bugs.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/etrecord.h"
#include "fixture.h"

static void limits(etk_pickle_limits_t *l) {
  etk_pickle_limits_default(l);
  l->max_depth = 32;
  l->max_objects = 1u << 16;
  l->max_pickle_bytes = 1u << 20;
  l->max_string_bytes = 1u << 16;
  l->max_dims = 8;
  l->max_entries = 64;
  l->max_storage_bytes = 1u << 16;
  l->max_total_bytes = 1u << 22;
}

static uint64_t walk(const etk_pickle_value_t *v, unsigned depth) {
  uint64_t n = 1;
  if (depth > 40) __builtin_trap(); /* the depth limit must hold */
  if (v->kind == ETK_PICKLE_TENSOR || v->kind == ETK_PICKLE_STORAGE) {
    const etk_torch_tensor_t *t = v->tensor;
    uint64_t bytes = t->numel * t->element_size;
    uint8_t *buf = malloc(bytes ? (size_t)bytes : 1);
    if (buf && etk_torch_tensor_copy(t, buf, bytes) != ETK_OK) __builtin_trap();
    free(buf);
  }
  for (size_t i = 0; i < v->count; i++) {
    n += walk(v->items[i], depth + 1);
    if (v->kind == ETK_PICKLE_DICT) n += walk(v->values[i], depth + 1);
  }
  if (v->kind == ETK_PICKLE_DICT) (void)etk_pickle_dict_get(v, "forward");
  return n;
}

static void exercise(etk_torch_archive_t *a) {
  const etk_pickle_value_t *root = etk_torch_archive_root(a);
  walk(root, 0);
  const etk_pickle_value_t *c;
  (void)etk_etrecord_reference_select(root, "forward", -1, &c, NULL);
  uint8_t *out = NULL;
  size_t len = 0;
  if (etk_torch_save_memory(root, &out, &len, NULL) == ETK_OK) {
    etk_torch_archive_t *back = NULL;
    if (etk_torch_archive_open(out, len, NULL, "back", &back, NULL) != ETK_OK)
      __builtin_trap();
    etk_torch_archive_close(back);
  }
  free(out);
}

static uint8_t *wrap(const uint8_t *data, size_t size, size_t *out_len) {
  static uint8_t storage[4][64];
  for (int s = 0; s < 4; s++)
    for (int i = 0; i < 64; i++) storage[s][i] = (uint8_t)(s * 64 + i * 7);
  static const char *const names[4] = {"archive/data/0", "archive/data/1",
                                       "archive/data/2", "archive/data/3"};
  fixture_member_t members[5] = {
      {.name = "archive/data.pkl", .data = data, .len = size, .deflate = true}};
  for (int k = 0; k < 4; k++)
    members[1 + k] = (fixture_member_t){.name = names[k],
                                        .data = storage[k],
                                        .len = sizeof storage[k],
                                        .deflate = true};
  return fixture_zip(members, sizeof members / sizeof members[0], out_len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  etk_pickle_limits_t lim;
  limits(&lim);
  etk_torch_archive_t *a = NULL;
  if (size >= 2 && data[0] == 'P' && data[1] == 'K') {
    if (etk_torch_archive_open(data, size, &lim, "fuzz", &a, NULL) == ETK_OK)
      exercise(a);
    etk_torch_archive_close(a);
    return 0;
  }
  if (etk_pickle_load(data, size, &lim, "fuzz", &a, NULL) == ETK_OK)
    exercise(a);
  etk_torch_archive_close(a);
  a = NULL;
  size_t len = 0;
  uint8_t *zip = wrap(data, size, &len);
  if (zip && etk_torch_archive_open(zip, len, &lim, "fuzz", &a, NULL) == ETK_OK)
    exercise(a);
  etk_torch_archive_close(a);
  free(zip);
  return 0;
}
