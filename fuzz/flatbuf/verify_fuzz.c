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
#include "fuzz_walk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
    fuzz_sink +=
        fuzz_walk_table(etk_fb_root(data, root), &etk_etdump_schema, 0);
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
