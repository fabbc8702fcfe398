/*
 * schema_json_check.h - compares a verified FlatBuffers table, read through
 * etkit's accessors and walked with its schema descriptor, against flatc's
 * JSON rendering of the same data (mini_json tree).
 *
 * Every field of the descriptor is compared (absent scalars against their
 * schema default, absent strings/vectors/tables against absent JSON
 * members) and every JSON member must name a described field, so a
 * descriptor that forgets a field fails too.  Mismatches are printed as
 * "# path: message" lines; the return value is their number.
 */
#ifndef ETK_TEST_SCHEMA_JSON_CHECK_H
#define ETK_TEST_SCHEMA_JSON_CHECK_H

#include "etkit/flatbuf.h"
#include "mini_json.h"

int schema_json_check(etk_fb_table_t table, const etk_fb_table_desc_t *desc,
                      const json_node_t *object, const char *path);

/* Reads a whole file and parses it; NULL if either fails. */
json_node_t *schema_json_load(const char *path);

#endif
