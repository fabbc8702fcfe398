/*
 * verify_fuzz.c - libFuzzer target: random bytes against the ETDump schema.
 *
 * Each input is verified three ways (size-prefixed with the "ED00"
 * identifier, size-prefixed without identifier check, and plain).  Whenever
 * the verifier accepts, every field the schema describes is read with the
 * unchecked accessors; the sanitizers then prove that "verified" really
 * means "safe to read".  A verifier failure must describe itself (code equal
 * to the return value, offset inside the input).
 *
 * Also linked with fuzz/replay.c as the ctest test flatbuf_verify_fuzz_replay,
 * which replays corpus/ under any compiler.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "etkit/schema.h"
#include "fuzz_scalar.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads every described field; the sum keeps the reads observable. */
static uint64_t walk_table(etk_fb_table_t t, const etk_fb_table_desc_t *d) {
  uint64_t sum = 0;
  if (!etk_fb_table_present(t)) return 0;
  for (uint16_t i = 0; i < d->field_count; i++) {
    const etk_fb_field_desc_t *f = &d->fields[i];
    switch (f->kind) {
      case ETK_FB_SCALAR:
        sum += fuzz_scalar_bits(t, f);
        break;
      case ETK_FB_STRING: {
        etk_fb_string_t s = etk_fb_get_string(t, f->id);
        if (s.data)
          sum += s.len + (uint8_t)s.data[s.len] +
                 (uint64_t)etk_fb_utf8_valid(s.data, s.len);
        break;
      }
      case ETK_FB_TABLE:
        sum += walk_table(etk_fb_get_table(t, f->id), f->table);
        break;
      case ETK_FB_VEC_SCALAR: {
        etk_fb_vector_t v = etk_fb_get_vector(t, f->id);
        for (uint64_t k = 0; k < (uint64_t)v.count * f->size; k++)
          sum += v.data[k];
        break;
      }
      case ETK_FB_VEC_TABLE: {
        etk_fb_vector_t v = etk_fb_get_vector(t, f->id);
        for (uint32_t k = 0; k < v.count; k++)
          sum += walk_table(etk_fb_vector_table(t.buf, v, k), f->table);
        break;
      }
      case ETK_FB_VEC_STRING: {
        etk_fb_vector_t v = etk_fb_get_vector(t, f->id);
        for (uint32_t k = 0; k < v.count; k++)
          sum += etk_fb_vector_string(t.buf, v, k).len;
        break;
      }
      default:
        break;
    }
  }
  return sum;
}

static volatile uint64_t fuzz_sink;

static void verify_and_walk(const uint8_t *data, size_t size, int size_prefixed,
                            const char *ident) {
  etk_fb_verify_options_t options = {0};
  etk_fb_verify_error_t err;
  uint32_t root = 0;
  options.size_prefixed = size_prefixed;
  options.ident = ident;
  int rc = etk_fb_verify(data, size, &etk_etdump_schema, &options, &root, &err);
  if (rc == ETK_OK) {
    fuzz_sink += walk_table(etk_fb_root(data, root), &etk_etdump_schema);
  } else if (err.code != rc ||
             (size > 0 && err.offset >= size && rc != ETK_E_TRUNCATED)) {
    abort(); /* the error report must describe the failure */
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* libFuzzer may pass NULL with size 0; the verifier rejects NULL */
  static const uint8_t empty[1] = {0};
  if (data == NULL) data = empty;
  verify_and_walk(data, size, 1, ETK_ETDUMP_FILE_IDENTIFIER);
  verify_and_walk(data, size, 1, NULL);
  verify_and_walk(data, size, 0, NULL);
  return 0;
}
