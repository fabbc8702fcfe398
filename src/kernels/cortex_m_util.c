/*
 * cortex_m_util.c - argument readers shared by the cortex_m:: kernels of
 * upstream's Cortex-M backend (cortex_m_conv.c, cortex_m_pool.c,
 * cortex_m_elementwise.c, quant_ops.c).
 *
 * Those programs pass CMSIS-NN's parameters almost verbatim: offsets,
 * multipliers and shifts as Ints that must fit int32, strides and padding
 * as 2-item lists, per-channel requantization as two INT tensors.  The
 * readers here reject anything CMSIS-NN's arithmetic would turn into
 * undefined behaviour (an out-of-range shift, a multiplier beyond int32)
 * with one message naming the op and the argument.
 */
#include "cortex_m.h"

int etk_cm_check_int8(const etk_op_t *op, const etk_tensor_t *t,
                      const char *what) {
  return etk_op_check_dtype(op, t, what, ETK_DTYPE_BIT(ETK_CHAR));
}

int etk_cm_int32(const etk_op_t *op, size_t i, const char *what, int32_t *out) {
  int64_t v;
  int rc = etk_op_int(op, i, what, &v);
  if (rc) return rc;
  if (v < INT32_MIN || v > INT32_MAX)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT, "%s %lld does not fit int32",
                       what, (long long)v);
  *out = (int32_t)v;
  return ETK_OK;
}

int etk_cm_pair(const etk_op_t *op, size_t i, const char *what, int64_t min,
                int64_t *out) {
  int64_t items[ETK_MAX_DIMS];
  size_t n;
  int rc = etk_op_int_list(op, i, what, items, ETK_MAX_DIMS, &n);
  if (rc) return rc;
  if (n != 1 && n != 2)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "%s must have 2 items, got %zu", what, n);
  out[0] = items[0];
  out[1] = items[n - 1];
  if (out[0] < min || out[1] < min || out[0] > INT32_MAX || out[1] > INT32_MAX)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "%s [%lld, %lld] must be in [%lld, 2^31)", what,
                       (long long)out[0], (long long)out[1], (long long)min);
  return ETK_OK;
}

int etk_cm_requant_tables(const etk_op_t *op, const etk_tensor_t *mult,
                          const etk_tensor_t *shift, int64_t n) {
  int rc;
  if ((rc = etk_op_check_dtype(op, mult, "requantize_multipliers",
                               ETK_DTYPE_BIT(ETK_INT))) ||
      (rc = etk_op_check_dtype(op, shift, "requantize_shifts",
                               ETK_DTYPE_BIT(ETK_INT))))
    return rc;
  if (op->checking) return ETK_OK;
  if (etk_tensor_numel(mult) != n || etk_tensor_numel(shift) != n)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                       "requantize_multipliers and requantize_shifts need %lld "
                       "items (one per output channel), got %lld and %lld",
                       (long long)n, (long long)etk_tensor_numel(mult),
                       (long long)etk_tensor_numel(shift));
  for (int64_t k = 0; k < n; k++) {
    int32_t s = etk_cm_i32_at(shift, k);
    if (s < -31 || s > 31)
      return etk_op_fail(op, ETK_E_INVALID_ARGUMENT,
                         "requantize_shifts[%lld] = %d is outside [-31, 31]",
                         (long long)k, (int)s);
  }
  return ETK_OK;
}

int etk_cm_shift(const etk_op_t *op, size_t i, const char *what, int32_t *out) {
  int rc = etk_cm_int32(op, i, what, out);
  if (rc) return rc;
  if (*out < -31 || *out > 31)
    return etk_op_fail(op, ETK_E_INVALID_ARGUMENT, "%s %d is outside [-31, 31]",
                       what, (int)*out);
  return ETK_OK;
}
