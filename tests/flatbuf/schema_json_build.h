/*
 * schema_json_build.h - encodes a JSON document (flatc's JSON form of a
 * schema) into a FlatBuffer with etkit's builder, driven by the schema
 * descriptors.  The conformance tests use it to build ETDumps that set
 * every table and field from hand-written fixtures, so flatc can check
 * what our builder wrote.
 *
 * Children are built before their parent (back-to-front building), fields
 * are added in descriptor order, absent JSON members are not written, and
 * scalars equal to the schema default are skipped as flatc -b does.
 */
#ifndef ETK_TEST_SCHEMA_JSON_BUILD_H
#define ETK_TEST_SCHEMA_JSON_BUILD_H

#include "etkit/flatbuf.h"
#include "mini_json.h"

/* Builds the table described by `desc` from `object`; returns its ref or 0
 * (builder error, or JSON that does not fit the schema: printed). */
etk_fb_ref_t schema_json_build(etk_fb_builder_t *b,
                               const etk_fb_table_desc_t *desc,
                               const json_node_t *object);

#endif
