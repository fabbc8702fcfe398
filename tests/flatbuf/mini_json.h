/*
 * mini_json.h - a small JSON reader for the flatbuf conformance tests.
 *
 * Why not jansson: flatc prints ulong fields such as DebugEvent.chain_index
 * = 18446744073709551615, which does not fit jansson's integers.  Here
 * numbers keep their source text, so tests compare them exactly.  Strings
 * are decoded (\uXXXX escapes and surrogate pairs to UTF-8, \u0000 kept as
 * a byte).  Test code: malloc, no limits beyond a depth of 200.
 */
#ifndef ETK_TEST_MINI_JSON_H
#define ETK_TEST_MINI_JSON_H

#include <stddef.h>

typedef enum json_type {
  JSON_NULL,
  JSON_FALSE,
  JSON_TRUE,
  JSON_NUMBER, /* text = the number as written */
  JSON_STRING, /* text = decoded bytes (NUL-terminated, may embed NULs) */
  JSON_ARRAY,
  JSON_OBJECT
} json_type_t;

typedef struct json_node {
  json_type_t type;
  char *text;
  size_t len;
  char *key; /* member name when inside an object */
  struct json_node *first_child;
  struct json_node *next;
} json_node_t;

/* Parses s[0..n); NULL on a syntax error (then *error_at, if given, is the
 * byte offset).  Free with json_free. */
json_node_t *json_parse(const char *s, size_t n, size_t *error_at);
void json_free(json_node_t *node);

/* Member `key` of an object, or NULL. */
const json_node_t *json_get(const json_node_t *object, const char *key);
/* Number of children of an array/object; element i or NULL. */
size_t json_count(const json_node_t *node);
const json_node_t *json_at(const json_node_t *array, size_t i);

#endif
