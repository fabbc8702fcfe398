/*
 * graph_fixture.h - ETRecords for the graph tests: the hand-written serde
 * program tests/graph/fixtures/full_edge.json (optionally edited), with
 * its state dict, constants, example inputs, representative inputs,
 * reference outputs and emitter maps as real torch.save / JSON members.
 */
#ifndef ETK_GRAPH_TEST_FIXTURE_H
#define ETK_GRAPH_TEST_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "etkit/etrecord_writer.h"
#include "etkit/graph.h"

/* The values the fixture stores, for byte comparisons. */
extern const float graph_fixture_conv_weight[2];
extern const float graph_fixture_bn_mean[2];
extern const float graph_fixture_lifted[1];
extern const float graph_fixture_x[1];
extern const float graph_fixture_reference[2];

/* The program text, malloc'd and NUL-terminated (NULL when unreadable). */
char *graph_fixture_program(void);

/* Replaces the first occurrence of `from` by `to` in a malloc'd text
 * (returns a new malloc'd text and frees `text`; NULL when absent). */
char *graph_fixture_edit(char *text, const char *from, const char *to);

/* An ETRecord zip around `program` (NULL = the unedited fixture); *len
 * gets its size.  malloc'd; NULL on failure. */
uint8_t *graph_fixture_record(const char *program, size_t *len);

/* Opens the record and loads its graph with `flags`.  Returns the status;
 * `line` receives the error text. */
int graph_fixture_load(const char *program, unsigned flags,
                       etk_etrecord_t **rec, etk_graph_t **g, char *line,
                       size_t line_size);

/* Writes `desc` with etkit's ETRecord writer, opens it and loads its
 * graph (default options).  Returns the status; on failure *rec and *g
 * may be NULL or the record alone (close what is not NULL) and `line`
 * receives the error text.  The caller frees *g, then closes *rec. */
int graph_fixture_load_desc(const etk_etrecord_desc_t *desc,
                            etk_etrecord_t **rec, etk_graph_t **g, char *line,
                            size_t line_size);

#endif
