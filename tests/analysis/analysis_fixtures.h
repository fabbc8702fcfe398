/*
 * analysis_fixtures.h - hand-made ETDumps for the analysis tests (trace,
 * diff, memory, report), built with the test ETDump writer on top of the
 * etk_fb_* FlatBuffers builder.  Each returns malloc'd bytes (caller
 * frees) and their length, or NULL.  The exact events and ticks are listed
 * in analysis_fixtures.c: the tests compute their expectations from them.
 */
#ifndef ETKIT_TESTS_ANALYSIS_FIXTURES_H
#define ETKIT_TESTS_ANALYSIS_FIXTURES_H

#include <stddef.h>
#include <stdint.h>

/* "Default" (load_method around Method::init, allocations) and two
 * "Execute" runs: OPERATOR_CALL around native calls, DELEGATE_CALL around
 * two delegated events (int id with text metadata, string id with binary
 * metadata), allocations in a known and an unknown allocator. */
uint8_t *afx_model(size_t *len);

/* One run whose 32-bit tick counter wraps in the middle, with a missing
 * end time. */
uint8_t *afx_wrap(size_t *len);

/* end < start with ticks beyond 32 bits (the Inspector refuses it). */
uint8_t *afx_invalid(size_t *len);

/* Two identical runs whose clock restarts (runs overlap in raw ticks),
 * each with a slice that partially overlaps its neighbour. */
uint8_t *afx_overlap(size_t *len);

/* Names that attack HTML and JSON: <script>, quotes, &, newline, tab,
 * ANSI escape, bidi override, a table close; a hostile run and allocator
 * name.  The event names are afx_hostile_names, one event each. */
uint8_t *afx_hostile(size_t *len);
extern const char *const afx_hostile_names[];
extern const size_t afx_hostile_name_count;

/* One run plus the recorder's "etkit:dropped_events=17,blocks=2" marker. */
uint8_t *afx_dropped(size_t *len);

/* The A/B pair of the diff tests (see analysis_fixtures.c for the
 * expected deltas). */
uint8_t *afx_diff_a(size_t *len);
uint8_t *afx_diff_b(size_t *len);

#endif
