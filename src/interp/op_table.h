/*
 * op_table.h - private to etkit_interp: the op table (op_table.c) and the
 * argument schema the node call (call.c) reads.
 */
#ifndef ETKIT_INTERP_OP_TABLE_H
#define ETKIT_INTERP_OP_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etkit/interp.h"

/* How a node's outputs reach the kernel. */
typedef enum interp_out_kind {
  INTERP_OUT_TENSORS = 0, /* out_count tensors, repeated as the returns */
  INTERP_OUT_LIST         /* one tensor-list out argument, no returns */
} interp_out_kind_t;

/* One op of the graph mapped onto a kernel.
 *   schema: the op's arguments in schema order, "name:kind[=default]"
 *     separated by spaces.  kinds: T tensor, T? optional tensor, TL tensor
 *     list, OTL optional tensor list, I int, I? optional int, D float,
 *     D? optional float, B bool, S scalar, S? optional scalar, L int list,
 *     L? optional int list, str / str? string, dtype / dtype? ScalarType,
 *     mf? memory format (passed as None), X any (not passed).  A default
 *     is a number, 0/1 for bools, "a,b" for lists ("[]" empty), "None",
 *     or a word for strings; a default written "!v" must hold (any other
 *     value makes the node unsupported: training-mode batch norm ...).
 *   kargs: the kernel's arguments before its outs, names of schema
 *     arguments separated by spaces, or "#B0" / "#N" / "#L0,0" literals;
 *     NULL = every schema argument but the X ones, in order.
 *   outs / scratch: the node's tensor outputs and how many extra
 *     ("scratch") outs the kernel writes that the node does not return
 *     (e.g. aten.layer_norm has 1 output, native_layer_norm.out 3);
 *     scratch_dtype -1 = the first output's dtype. */
typedef struct interp_op {
  const char *op;
  const char *kernel;
  const char *schema;
  const char *kargs;
  interp_out_kind_t out_kind;
  int scratch;
  int scratch_dtype;
} interp_op_t;

/* The entry for `op` ("aten.add.Tensor"), or NULL. */
const interp_op_t *interp_op_find(const char *op);

#endif /* ETKIT_INTERP_OP_TABLE_H */
