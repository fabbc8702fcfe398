/*
 * flatc_run.h - runs the flatc compiler (Debian flatbuffers-compiler) for
 * the conformance tests, on the project's schema/etdump_schema_flatcc.fbs.
 *
 * The flatc path comes from CMake (find_program, compile definition
 * ETK_FLATC_PATH, empty when not found); flatc_path() returns NULL then, and
 * tests ETK_SKIP.
 */
#ifndef ETK_TEST_FLATC_RUN_H
#define ETK_TEST_FLATC_RUN_H

#include <stddef.h>
#include <stdint.h>

/* flatc's path, or NULL if flatc is unavailable. */
const char *flatc_path(void);

/* Path of the ETDump schema in the source tree. */
const char *flatc_etdump_schema(void);

/* Decodes a size-prefixed binary with
 *   flatc --json --strict-json [--defaults-json] --size-prefixed --raw-binary
 * and returns the path of the JSON file written (static storage), or NULL
 * when flatc fails (its exit status is then printed). */
const char *flatc_binary_to_json(const uint8_t *bytes, size_t len,
                                 int defaults_json);

/* Encodes a JSON file with `flatc -b --size-prefixed`; returns the bytes
 * (malloc'd, *len set) or NULL when flatc rejects it. */
uint8_t *flatc_json_to_binary(const char *json_path, size_t *len);

#endif
