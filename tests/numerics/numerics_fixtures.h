/*
 * numerics_fixtures.h - hand-made ETDumps, debug buffers and ETRecords for
 * the numerics tests (tests/etdump/etdump_writer.h and the ETRecord
 * writer; values chosen so that every metric is exact or far from a
 * rounding boundary of compare_results' second decimal).
 *
 * A/B pair ("ab"): one "Execute" block each, traced from the "same
 * program" with different values:
 *   iid 0 conv      float32 [2, 2]  A 1 2 3 4       B 1.5 2 2.5 4
 *   iid 1 relu      float32 [4]     A 0 2 0 4       B 0 2 0 4 (identical)
 *   iid 2 delegate  "linear #0"     A 0.5 -0.5      B 0.5 -0.25
 *   iid 3 max_pool  out float32 [2] A 3 4           B 3 4.5
 *                   indices int64 [2]  A 1 3        B 1 3
 *   iid 4 list      TensorList      A [1 1], [2]    B [1 1]
 *   iid 5 int       Int             A 7             (only in A)
 *   iid 6           float32 [1]     (only in B)     B 9
 *   iid 7           float32         A [3]           B [4]
 *   iid 8 zeros     float32 [2]     A 0 0           B 0 0
 *   output          float32 [2]     A 1 2           B 1 2.5
 * plus ab.etrecord: nodes for iid 0..8 (debug handles 1..9) and a
 * delegate map for "linear #0".
 *
 * compare_results ("compare"): block "Execute" without bundled index and
 * block "Execute" with index 0, each with a profile event and two program
 * outputs: float32 [1, 2.5, 3, 3.5] and int64 [1, 2, 3]; compare.etrecord
 * has reference_outputs {"forward": [[[2, 2, 2, 2], [1, 2, 3]],
 * [[1, 2, 3, 4], [1, 2, 3]]]}.
 */
#ifndef ETK_NUMERICS_FIXTURES_H
#define ETK_NUMERICS_FIXTURES_H

#include <stddef.h>
#include <stdint.h>

/* An ETDump and its debug buffer, malloc'd. */
typedef struct nf_dump {
  uint8_t *etdp, *buf;
  size_t etdp_len, buf_len;
} nf_dump_t;

void nf_dump_free(nf_dump_t *d);

/* side 0 = A, 1 = B.  0 on success. */
int nf_ab_dump(int side, nf_dump_t *out);
int nf_compare_dump(nf_dump_t *out);

/* ETRecords (malloc'd zip bytes); 0 on success. */
int nf_ab_etrecord(uint8_t **out, size_t *len);
int nf_compare_etrecord(uint8_t **out, size_t *len);

/* Writes a.etdp, a.bin, b.etdp, b.bin, ab.etrecord, compare.etdp,
 * compare.bin, compare.etrecord, compare_norefs.etrecord (no
 * references) and compare_legacy.etrecord (a raw pickle as
 * reference_outputs) into `dir`.  0 on success. */
int nf_write_all(const char *dir);

#endif
