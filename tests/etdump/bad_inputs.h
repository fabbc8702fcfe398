/*
 * bad_inputs.h - crafted invalid ETDumps: each is a valid dump built with
 * the test writer and then damaged at a located byte.  The same builders
 * produce the committed files in tests/inspector/bad_inputs/ (through
 * make_bad_inputs) and the in-memory cases of test_etdump_reader.c.
 */
#ifndef ETKIT_TESTS_BAD_INPUTS_H
#define ETKIT_TESTS_BAD_INPUTS_H

#include <stddef.h>
#include <stdint.h>

typedef struct bad_input {
  const char *name; /* file stem */
  int code;         /* expected etk status of etk_etdump_open_memory,
                       or ETK_OK when the reader accepts it and the
                       Inspector/renderer rejects it */
  uint8_t *(*build)(size_t *len);
} bad_input_t;

extern const bad_input_t bad_inputs[];
extern const size_t bad_input_count;

#endif
