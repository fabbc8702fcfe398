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

uint8_t *fixture_appendix_d_etdump(size_t *len);
uint8_t *fixture_appendix_d_etrecord(size_t *len);
uint8_t *fixture_quirks_etdump(size_t *len);
uint8_t *fixture_quirks_etrecord(size_t *len);
uint8_t *fixture_modules_etdump(size_t *len);
uint8_t *fixture_modules_etrecord(size_t *len);

/* Broken ETRecords for the must-fail CLI tests (hand-made zips):
 *   no_marker     a zip without ETRECORD_V0;
 *   bad_map       debug_handle_map is not valid JSON (fails when opened);
 *   bad_program   the edge program is not valid JSON (fails when linked). */
uint8_t *fixture_etrecord_no_marker(size_t *len);
uint8_t *fixture_etrecord_bad_map(size_t *len);
uint8_t *fixture_etrecord_bad_program(size_t *len);

#endif
