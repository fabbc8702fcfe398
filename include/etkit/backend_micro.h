/*
 * etkit/backend_micro.h - EtkitMicroBackend (library etkit_backend_micro), the
 * example delegate of the reference runtime, and its graph builder.
 */
#ifndef ETKIT_BACKEND_MICRO_H
#define ETKIT_BACKEND_MICRO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etkit/method.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------- EtkitMicroBackend */

/* etkit's own backend: its payload is a tiny serialised sub-graph of
 * portable-kernel calls (docs/runtime.md, "EtkitMicroBackend payload").
 * Each op reports a delegate profiling event (integer or string debug id,
 * optional metadata bytes) and logs its outputs as delegate intermediate
 * outputs.  Build a payload with etk_micro_graph_*:
 *
 *   etk_micro_graph_t g;
 *   etk_micro_graph_init(&g, buf, sizeof buf);
 *   int x = etk_micro_graph_arg(&g, 0);             // DelegateCall arg 0
 *   int y = etk_micro_graph_arg(&g, 1);             // DelegateCall arg 1 (out)
 *   etk_micro_graph_op(&g, "aten::relu.out", "relu #0", -1, NULL, 0,
 *                      (const uint16_t[]){x, y, y}, 3, 1);
 *   size_t len; etk_micro_graph_finish(&g, &len);   // payload = buf[0..len)
 */
#define ETK_MICRO_BACKEND_ID "EtkitMicroBackend"

typedef struct etk_micro_graph {
  uint8_t *buf;
  size_t cap, used;
  uint16_t value_count, op_count;
  uint32_t scratch_bytes;
  int status; /* first error, sticky */
} etk_micro_graph_t;

/* Starts a payload in buf[0..cap) (borrowed). */
int etk_micro_graph_init(etk_micro_graph_t *g, void *buf, size_t cap);
/* Local values; each returns its local index (>= 0) or a negative error. */
int etk_micro_graph_arg(etk_micro_graph_t *g, uint16_t delegate_arg);
int etk_micro_graph_tensor(etk_micro_graph_t *g, int scalar_type, uint32_t dim,
                           const int32_t *sizes);
int etk_micro_graph_int(etk_micro_graph_t *g, int64_t v);
int etk_micro_graph_double(etk_micro_graph_t *g, double v);
int etk_micro_graph_bool(etk_micro_graph_t *g, bool v);
int etk_micro_graph_null(etk_micro_graph_t *g);
/* IntList of local Int values (boxed, as in programs). */
int etk_micro_graph_int_list(etk_micro_graph_t *g, const uint16_t *items,
                             uint16_t count);
/* An op: kernel `name` ("aten::relu.out"), debug id `debug_name` (string,
 * or NULL) or `debug_id` (>= 0 when debug_name is NULL), optional metadata
 * bytes, args (local indices, kernel order), and how many trailing args
 * are outputs to log. */
int etk_micro_graph_op(etk_micro_graph_t *g, const char *name,
                       const char *debug_name, int32_t debug_id,
                       const void *metadata, uint16_t metadata_len,
                       const uint16_t *args, uint16_t nargs,
                       uint16_t output_count);
/* Completes the payload; *len = bytes used.  Returns the sticky status. */
int etk_micro_graph_finish(etk_micro_graph_t *g, size_t *len);

/* The backend itself (also found by etk_backend_find). */
const etk_backend_t *etk_micro_backend(void);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_BACKEND_MICRO_H */
