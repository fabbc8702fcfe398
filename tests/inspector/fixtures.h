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

/* Appendix B: Default + four Execute runs, run 3 with an extra mul. */
uint8_t *fixture_appendix_b(size_t *len);

/* Appendix C: three Execute runs (bundled input 0, 0, 1) with delegate
 * events, metadata, debug tensors and a program output. */
uint8_t *fixture_appendix_c(size_t *len);

/* Appendix C's debug buffer: float32 [1,2,3] at 0, int64 [7,8] at 64,
 * float32 [9] at 128 (136 bytes). */
uint8_t *fixture_appendix_c_buffer(size_t *len);

/* Names that attack every output format: tab, newline, quotes, commas,
 * backslash, an ANSI escape, a bidi override, non-ASCII, a numeric name. */
uint8_t *fixture_hostile_names(size_t *len);

/* Allocation events in two runs with allocators, plus a profile event. */
uint8_t *fixture_allocations(size_t *len);

/* Wrap-around and missing end times. */
uint8_t *fixture_wrap(size_t *len);

/* Delegate events (XNNPACK-style ids "linear #1", ints, DELEGATE_CALL) for
 * the summary view. */
uint8_t *fixture_delegates(size_t *len);

/* Writes an integer debug event of instruction `iid` (-1: none) named by
 * the delegate debug id `delegate_name` (NULL: none), not an output. */
struct etw;
void fixture_debug_int(struct etw *w, int32_t iid, const char *delegate_name,
                       int64_t value);

#endif
