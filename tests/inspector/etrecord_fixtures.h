/*
 * etrecord_fixtures.h - ETDumps and matching ETRecords for the ETRecord
 * features of the inspector (linking, module view, module totals, source
 * column), built with the test ETDump writer and etkit's ETRecord writer.
 * Shared by test_etrecord_views.c and make_etrecord_fixtures (the files of
 * the CLI golden tests).
 *
 * Each builder returns malloc'd bytes (caller frees) and their length, or
 * NULL on failure.
 *
 *   appendix_d   the inspector notes' Appendix D, word for word: maps
 *                {"forward":{"0":7,"1":[8,9,11],"2":[20]}}, delegate ids
 *                0/1/10/fc of XnnpackBackend at instruction 1 (2 outputs),
 *                nodes 7 add, 8 mm, 9 relu, 11 sub (two nodes), 20 mul; the
 *                ETDump holds exactly the events the appendix lists, one run.
 *   quirks       Appendix D's forward plus a "decode" method (instruction 0
 *                -> handle 30, aten.div.Tensor); an ETDump with an "Execute"
 *                block (a delegated id 12 that only a substring lookup
 *                resolves) and a "decode" block.
 *   modules      a small network with nested modules (features.0/1,
 *                head.fc1/act delegated with per-op events, classifier
 *                delegated without them, a root-level op, an unlinked op),
 *                two runs; for the module view.
 */
#ifndef ETKIT_TESTS_INSPECTOR_ETRECORD_FIXTURES_H
#define ETKIT_TESTS_INSPECTOR_ETRECORD_FIXTURES_H

#include <stddef.h>
#include <stdint.h>

/* Every builder, fixture_<name>(size_t *len), with the file
 * make_etrecord_fixtures writes its bytes to: X(name, file).  The broken
 * ETRecords are for the must-fail CLI tests (hand-made zips):
 *   no_marker     a zip without ETRECORD_V0;
 *   bad_map       debug_handle_map is not valid JSON (fails when opened);
 *   bad_program   the edge program is not valid JSON (fails when linked). */
#define ETRECORD_FIXTURE_FILES(X)               \
  X(appendix_d_etdump, "appendix_d.etdp")       \
  X(appendix_d_etrecord, "appendix_d.etrecord") \
  X(quirks_etdump, "quirks.etdp")               \
  X(quirks_etrecord, "quirks.etrecord")         \
  X(modules_etdump, "modules.etdp")             \
  X(modules_etrecord, "modules.etrecord")       \
  X(etrecord_no_marker, "no_marker.etrecord")   \
  X(etrecord_bad_map, "bad_map.etrecord")       \
  X(etrecord_bad_program, "bad_program.etrecord")

#define ETRECORD_FIXTURE_DECLARE(name, file) \
  uint8_t *fixture_##name(size_t *len);
ETRECORD_FIXTURE_FILES(ETRECORD_FIXTURE_DECLARE)
#undef ETRECORD_FIXTURE_DECLARE

#endif
