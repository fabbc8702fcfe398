/*
 * stats_values.c - STATS debug values (etkit/etdump.h): whether a dump
 * recorded at ETK_DEBUG_LEVEL_STATS (its marker, found by the reader at
 * open) logged a tensor as a STATS vector, and the 13 values of one read
 * from the debug buffer.
 */
#include <string.h>

#include "etdump_internal.h"
#include "etkit/schema.h"
#include "etkit/tensor_stats.h"

int etk_etdump_has_tensor_stats(const etk_etdump_t *d) {
  return d != NULL && d->tensor_stats;
}

int etk_etdump_tensor_is_stats(const etk_etdump_t *d,
                               const etk_etdump_tensor_t *t) {
  return etk_etdump_has_tensor_stats(d) && t != NULL &&
         t->scalar_type == ETK_SCALAR_TYPE_DOUBLE && t->dim == 1 &&
         etk_etdump_tensor_dim(t, 0) == ETK_TENSOR_STATS_COUNT &&
         t->offset >= 0;
}

int etk_etdump_tensor_stats(const etk_etdump_t *d, const etk_etdump_tensor_t *t,
                            const uint8_t *buf, size_t len,
                            double out[ETK_TENSOR_STATS_COUNT],
                            etk_error_t *err) {
  const uint8_t *data = NULL;
  uint64_t nbytes = 0;
  if (!etk_etdump_tensor_is_stats(d, t) || out == NULL)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "not a STATS vector");
  int rc = etk_etdump_tensor_data(t, buf, len, &data, &nbytes, err);
  if (rc != ETK_OK) return rc;
  if (nbytes != 8u * ETK_TENSOR_STATS_COUNT || data == NULL)
    return etk_error_set(err, ETK_E_FORMAT, ETK_NO_OFFSET,
                         "a STATS vector of %llu bytes",
                         (unsigned long long)nbytes);
  memcpy(out, data, 8u * ETK_TENSOR_STATS_COUNT); /* host order, as written */
  return ETK_OK;
}
