/*
 * test_golden_bytes.c - the builder reproduces upstream's golden ETDumps
 * byte for byte when fed upstream's call sequence (golden_replay.c).
 *
 * Byte identity is stronger than the compatibility etkit needs (logical
 * equality under flatc), but it pins down every layout rule at once:
 * string and vector padding, field placement, table alignment, vtable
 * sharing (flatcc's hash buckets) and the header.
 */
#include <stdlib.h>

#include "etk_test.h"
#include "golden_replay.h"

static void check_replay(const char *golden, golden_replay_fn replay) {
  const char *path = etk_test_conformance_path(golden);
  if (!path) ETK_SKIP("conformance file absent");
  size_t expected_len = 0;
  unsigned char *expected = etk_test_read_file(path, &expected_len);
  REQUIRE(expected != NULL);
  static _Alignas(8) uint8_t mem[8192];
  const uint8_t *out = NULL;
  size_t len = 0;
  CHECK_EQ_INT(golden_replay_into(replay, mem, sizeof mem, &out, &len), ETK_OK);
  CHECK_EQ_U64(len, expected_len);
  if (len == expected_len && out) {
    for (size_t i = 0; i < len; i++) {
      if (out[i] != expected[i]) {
        printf("# %s: first difference at byte 0x%zx: %02x != %02x\n", golden,
               i, out[i], expected[i]);
        etk_test_failed_ = 1;
        break;
      }
    }
  }
  free(expected);
}

ETK_TEST(golden_empty_block_bytes) {
  check_replay("golden_empty_block.etdp", golden_replay_empty_block);
}

ETK_TEST(golden_allocators_bytes) {
  check_replay("golden_allocators.etdp", golden_replay_allocators);
}

ETK_TEST(golden_delegate_events_bytes) {
  check_replay("golden_delegate_events.etdp", golden_replay_delegate_events);
}

ETK_TEST(golden_debug_events_bytes) {
  check_replay("golden_debug_events.etdp", golden_replay_debug_events);
}

ETK_TEST_MAIN()
