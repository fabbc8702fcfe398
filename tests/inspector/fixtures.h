/*
 * fixtures.h - the hand-made ETDumps of the inspector notes (Appendices B
 * and C) and a few more scenarios, built with the test ETDump writer.  Used
 * by the unit tests, by make_fixtures (files for the CLI golden tests) and
 * by the fuzz corpus generator.
 *
 * Each builder returns a malloc'd copy of the finished bytes (caller frees)
 * and its length, or NULL on failure.
 */
#ifndef ETKIT_TESTS_INSPECTOR_FIXTURES_H
#define ETKIT_TESTS_INSPECTOR_FIXTURES_H

#include <stddef.h>
#include <stdint.h>

/* Every builder, fixture_<name>(size_t *len), with the file make_fixtures
 * writes its bytes to: X(name, file).
 *   appendix_b        Appendix B: Default + four Execute runs, run 3 with an
 *                     extra mul.
 *   appendix_c        Appendix C: three Execute runs (bundled input 0, 0, 1)
 *                     with delegate events, metadata, debug tensors and a
 *                     program output.
 *   appendix_c_buffer Appendix C's debug buffer: float32 [1,2,3] at 0, int64
 *                     [7,8] at 64, float32 [9] at 128 (136 bytes).
 *   hostile_names     names that attack every output format: tab, newline,
 *                     quotes, commas, backslash, an ANSI escape, a bidi
 *                     override, non-ASCII, a numeric name.
 *   allocations       allocation events in two runs with allocators, plus a
 *                     profile event.
 *   wrap              wrap-around and missing end times.
 *   delegates         delegate events (XNNPACK-style ids "linear #1", ints,
 *                     DELEGATE_CALL) for the summary view. */
#define INSPECTOR_FIXTURE_FILES(X)             \
  X(appendix_b, "appendix_b.etdp")             \
  X(appendix_c, "appendix_c.etdp")             \
  X(appendix_c_buffer, "appendix_c_debug.bin") \
  X(hostile_names, "hostile_names.etdp")       \
  X(allocations, "allocations.etdp")           \
  X(wrap, "wrap.etdp")                         \
  X(delegates, "delegates.etdp")

#define INSPECTOR_FIXTURE_DECLARE(name, file) \
  uint8_t *fixture_##name(size_t *len);
INSPECTOR_FIXTURE_FILES(INSPECTOR_FIXTURE_DECLARE)
#undef INSPECTOR_FIXTURE_DECLARE

/* Writes an integer debug event of instruction `iid` (-1: none) named by
 * the delegate debug id `delegate_name` (NULL: none), not an output. */
struct etw;
void fixture_debug_int(struct etw *w, int32_t iid, const char *delegate_name,
                       int64_t value);

#endif
