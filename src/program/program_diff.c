/*
 * program_diff.c - what changed between two programs, as upstream's
 * devtools/pte_tool/diff_pte.py reports it.
 *
 * WHAT IS COMPARED
 *   The version; the methods pairwise by index (their names; operators
 *   "name.overload" and delegate ids as multisets, each side's surplus
 *   sorted; non_const_buffer_sizes; value and instruction counts; every
 *   value of the shorter value table: tensors field by field and by their
 *   data, other values by kind and contents); the methods one side has
 *   beyond the other; the named-data keys only one side has; and, beyond
 *   upstream, the segment count and bytes.
 *
 * CONSTANT DATA
 *   A tensor's data is its constant bytes or the initial value of a
 *   planned tensor (what the loader resolved into etk_program_tensor_t
 *   .data).  Equal bytes are found with memcmp; when they differ, the
 *   elements are read in the tensor's dtype: float32 a block of 64 at a
 *   time (diff_float: sparse blocks through note(), dense ones with an
 *   SSE2 scan; bit-identical to note() on every element, about 2.3x
 *   faster when every element changed), other dtypes through
 *   etk_scalar_type_read (a dtype with no numeric reading counts
 *   differing bytes, as upstream).  Statistics follow upstream (number
 *   differing, max and mean absolute difference over the differing
 *   elements) plus the max relative difference |a-b|/max(|a|,|b|)
 *   (bounded, symmetric) and the count of differing elements with a NaN.
 *   bench/program/bench_program_diff.c measures the rate,
 *   tests/program/test_program_diff_data.c the results bit for bit.
 *
 * Every array is allocated once at its final size after a counting pass
 * (the counts are bounded by the programs' own tables).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/program_schema.h"
#include "etkit/program_tools.h"
#include "etkit/scalar_type.h"

#if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
#define DIFF_SSE2 1
#include <emmintrin.h>
#endif

/* ------------------------------------------------------- element stats */

static void note(etk_program_diff_tensor_t *o, double x, double y,
                 double *sum) {
  o->differing++;
  if (isnan(x) || isnan(y)) {
    o->nan++;
    return;
  }
  double d = fabs(x - y);
  if (isinf(d)) d = INFINITY;
  *sum += d;
  if (d > o->max_abs) o->max_abs = d;
  double m = fabs(x) > fabs(y) ? fabs(x) : fabs(y);
  /* divide only when the ratio can beat the maximum so far */
  if (m > 0 && d > o->max_rel * m) o->max_rel = d / m;
}

/* True when the float32 with bits `b` is a NaN. */
static inline bool f32_bits_nan(uint32_t b) {
  return (b & 0x7fffffffu) > 0x7f800000u;
}

#define DIFF_BLOCK 64

/* Step 1 of diff_float for one block: d[k] = |x - y| for each differing
 * non-NaN element (bit k of *valid set), 0 for the others; adds the
 * differing and NaN counts;
 * raises *block_max to the largest d; returns whether an element could
 * raise max_rel from r0 (d > r0 * max(|x|, |y|); m > 0 is implied: m = 0
 * means x = y = 0 and d = 0, m = inf with r0 = 0 gives a NaN product). */
static int scan_scalar(const uint8_t *pa, const uint8_t *pb, size_t from,
                       size_t len, double r0, double *d, uint64_t *nd,
                       uint64_t *nn, double *block_max, uint64_t *valid) {
  int candidate = 0;
  for (size_t k = from; k < len; k++) {
    uint32_t bx, by;
    float fx, fy;
    memcpy(&bx, pa + k * 4, 4);
    memcpy(&by, pb + k * 4, 4);
    memcpy(&fx, &bx, 4);
    memcpy(&fy, &by, 4);
    int ne = bx != by;
    int either_nan = (int)f32_bits_nan(bx) | (int)f32_bits_nan(by);
    *nd += (uint64_t)ne;
    *nn += (uint64_t)(ne & either_nan);
    double x = fx, y = fy;
    /* |x - y| of two finite floats is finite or +inf, as note() has it */
    int ok = ne & !either_nan;
    double v = ok ? fabs(x - y) : 0.0;
    double ax = fabs(x), ay = fabs(y);
    double m = ax > ay ? ax : ay;
    *valid |= (uint64_t)ok << k;
    d[k] = v;
    *block_max = v > *block_max ? v : *block_max;
    candidate |= v > r0 * m;
  }
  return candidate;
}

/* The number of bits set (no popcnt instruction on the x86-64 baseline:
 * __builtin_popcountll would be a libgcc call). */
static unsigned bits64(uint64_t m) {
  m = m - ((m >> 1) & 0x5555555555555555ull);
  m = (m & 0x3333333333333333ull) + ((m >> 2) & 0x3333333333333333ull);
  m = (m + (m >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return (unsigned)((m * 0x0101010101010101ull) >> 56);
}

#ifdef DIFF_SSE2
/* scan_scalar() for a whole block, four elements at a time (SSE2, the
 * x86-64 baseline), given the block's differing elements `ne`: d, the
 * block's max and the candidate test in double precision on every lane
 * (a lane with equal bits gives d = 0, or NaN for infinities, and a NaN
 * lane NaN: neither raises the max (maxpd keeps its second operand on a
 * NaN) nor passes the candidate test, and *valid leaves them out of the
 * sum); NaNs are looked for element by element only in a block that has
 * one. */
static int scan_block(const uint8_t *pa, const uint8_t *pb, size_t len,
                      uint64_t ne, double r0, double *d, uint64_t *nd,
                      uint64_t *nn, double *block_max, uint64_t *valid) {
  if (len != DIFF_BLOCK)
    return scan_scalar(pa, pb, 0, len, r0, d, nd, nn, block_max, valid);
  const __m128i abs32 = _mm_set1_epi32(0x7fffffff);
  const __m128i inf32 = _mm_set1_epi32(0x7f800000);
  const __m128d abs64 = _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffff));
  const __m128d r = _mm_set1_pd(r0);
  __m128d vmax = _mm_set1_pd(*block_max), vcand = _mm_setzero_pd();
  __m128i vnan = _mm_setzero_si128();
  for (size_t k = 0; k < DIFF_BLOCK; k += 4) {
    __m128i ia = _mm_loadu_si128((const __m128i *)(const void *)(pa + k * 4));
    __m128i ib = _mm_loadu_si128((const __m128i *)(const void *)(pb + k * 4));
    vnan = _mm_or_si128(
        vnan, _mm_or_si128(_mm_cmpgt_epi32(_mm_and_si128(ia, abs32), inf32),
                           _mm_cmpgt_epi32(_mm_and_si128(ib, abs32), inf32)));
    __m128 fa = _mm_castsi128_ps(ia), fb = _mm_castsi128_ps(ib);
    __m128d x0 = _mm_cvtps_pd(fa), y0 = _mm_cvtps_pd(fb);
    __m128d x1 = _mm_cvtps_pd(_mm_movehl_ps(fa, fa));
    __m128d y1 = _mm_cvtps_pd(_mm_movehl_ps(fb, fb));
    __m128d v0 = _mm_and_pd(_mm_sub_pd(x0, y0), abs64);
    __m128d v1 = _mm_and_pd(_mm_sub_pd(x1, y1), abs64);
    __m128d m0 = _mm_max_pd(_mm_and_pd(x0, abs64), _mm_and_pd(y0, abs64));
    __m128d m1 = _mm_max_pd(_mm_and_pd(x1, abs64), _mm_and_pd(y1, abs64));
    _mm_storeu_pd(d + k, v0);
    _mm_storeu_pd(d + k + 2, v1);
    vmax = _mm_max_pd(v0, _mm_max_pd(v1, vmax));
    vcand = _mm_or_pd(vcand, _mm_or_pd(_mm_cmpgt_pd(v0, _mm_mul_pd(r, m0)),
                                       _mm_cmpgt_pd(v1, _mm_mul_pd(r, m1))));
  }
  uint64_t nan = 0;
  if (_mm_movemask_epi8(vnan))
    for (size_t k = 0; k < DIFF_BLOCK; k++) {
      uint32_t bx, by;
      memcpy(&bx, pa + k * 4, 4);
      memcpy(&by, pb + k * 4, 4);
      nan |= (uint64_t)((int)f32_bits_nan(bx) | (int)f32_bits_nan(by)) << k;
    }
  *nd += bits64(ne);
  *nn += bits64(ne & nan);
  *valid = ne & ~nan;
  double lanes[2];
  _mm_storeu_pd(lanes, vmax);
  *block_max = lanes[0] > lanes[1] ? lanes[0] : lanes[1];
  return _mm_movemask_pd(vcand) != 0;
}
#else
static int scan_block(const uint8_t *pa, const uint8_t *pb, size_t len,
                      uint64_t ne, double r0, double *d, uint64_t *nd,
                      uint64_t *nn, double *block_max, uint64_t *valid) {
  (void)ne;
  return scan_scalar(pa, pb, 0, len, r0, d, nd, nn, block_max, valid);
}
#endif

/* Bit k set when element k of the block differs in its bits. */
static uint64_t ne_mask(const uint8_t *pa, const uint8_t *pb, size_t len) {
  uint64_t ne = 0;
  size_t k = 0;
#ifdef DIFF_SSE2
  for (; k + 4 <= len; k += 4) {
    __m128i ia = _mm_loadu_si128((const __m128i *)(const void *)(pa + k * 4));
    __m128i ib = _mm_loadu_si128((const __m128i *)(const void *)(pb + k * 4));
    unsigned eq =
        (unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(ia, ib)));
    ne |= (uint64_t)(eq ^ 0xfu) << k;
  }
#endif
  for (; k < len; k++)
    ne |= (uint64_t)(memcmp(pa + k * 4, pb + k * 4, 4) != 0) << k;
  return ne;
}

/* note() for every float32 element whose bits differ, bit-identical to
 * note()'s results, a block of 64 elements at a time:
 *   1. scan_block(), without branches: |x - y| of each differing non-NaN
 *      element into d[] (0 for the others), the counts, the block's
 *      largest d (a max is exact in any order), and whether any element
 *      could raise max_rel (d > max_rel * m with the block's starting
 *      max_rel: max_rel only grows, so an element that cannot beat it
 *      there cannot beat it later either);
 *   2. the sum of the valid elements' d in element order, and only when
 *      1. found a candidate, note()'s max_rel steps in order.
 * Blocks with equal bytes are skipped by memcmp at memory speed, blocks
 * with at most 8 differing elements go through note() element by element.
 */
static void diff_float(const uint8_t *a, const uint8_t *b, uint64_t n,
                       etk_program_diff_tensor_t *o, double *sum) {
  double d[DIFF_BLOCK];
  uint64_t differing = o->differing, nan = o->nan;
  double s = *sum, max_abs = o->max_abs, max_rel = o->max_rel;
  for (uint64_t start = 0; start < n; start += DIFF_BLOCK) {
    size_t len = (size_t)(n - start < DIFF_BLOCK ? n - start : DIFF_BLOCK);
    const uint8_t *pa = a + start * 4, *pb = b + start * 4;
    if (memcmp(pa, pb, len * 4) == 0) continue;
    uint64_t ne = ne_mask(pa, pb, len);
    if (bits64(ne) <= 8) {
      /* a few changed elements: note() itself, in order */
      etk_program_diff_tensor_t t = *o;
      t.differing = differing;
      t.nan = nan;
      t.max_abs = max_abs;
      t.max_rel = max_rel;
      for (; ne; ne &= ne - 1) {
        size_t k = (size_t)__builtin_ctzll(ne);
        float fx, fy;
        memcpy(&fx, pa + k * 4, 4);
        memcpy(&fy, pb + k * 4, 4);
        note(&t, fx, fy, &s);
      }
      differing = t.differing;
      nan = t.nan;
      max_abs = t.max_abs;
      max_rel = t.max_rel;
      continue;
    }
    uint64_t valid = 0;
    int candidate = scan_block(pa, pb, len, ne, max_rel, d, &differing, &nan,
                               &max_abs, &valid);
    /* in element order, the valid ones only */
    if (valid == ~0ull) {
      for (size_t k = 0; k < DIFF_BLOCK; k++) s += d[k];
    } else {
      for (uint64_t m = valid; m; m &= m - 1) s += d[__builtin_ctzll(m)];
    }
    for (size_t k = 0; candidate && k < len; k++) {
      float fx, fy;
      memcpy(&fx, pa + k * 4, 4);
      memcpy(&fy, pb + k * 4, 4);
      double ax = fabs((double)fx), ay = fabs((double)fy);
      double m = ax > ay ? ax : ay;
      if (m > 0 && d[k] > max_rel * m) max_rel = d[k] / m;
    }
  }
  o->differing = differing;
  o->nan = nan;
  o->max_abs = max_abs;
  o->max_rel = max_rel;
  *sum = s;
}

void etk_program_diff_data(int32_t scalar_type, const uint8_t *a,
                           uint64_t len_a, const uint8_t *b, uint64_t len_b,
                           etk_program_diff_tensor_t *o) {
  o->elements = o->differing = o->nan = 0;
  o->max_abs = o->mean_abs = o->max_rel = 0;
  uint64_t len = len_a < len_b ? len_a : len_b;
  size_t elem = etk_scalar_type_size(scalar_type);
  double probe, sum = 0;
  if (!a || !b || len == 0) return;
  if (elem == 0 || !etk_scalar_type_read(scalar_type, a, &probe)) {
    o->elements = len; /* bytes, as upstream for unknown formats */
    for (uint64_t i = 0; i < len; i++) o->differing += a[i] != b[i];
    return;
  }
  uint64_t n = len / elem;
  o->elements = n;
  if (memcmp(a, b, (size_t)(n * elem)) == 0) return;
  if (scalar_type == ETK_SCALAR_TYPE_FLOAT) {
    diff_float(a, b, n, o, &sum);
  } else {
    for (uint64_t i = 0; i < n; i++) {
      const uint8_t *pa = a + i * elem, *pb = b + i * elem;
      if (memcmp(pa, pb, elem) == 0) continue;
      double x = 0, y = 0;
      etk_scalar_type_read(scalar_type, pa, &x);
      etk_scalar_type_read(scalar_type, pb, &y);
      note(o, x, y, &sum);
    }
  }
  uint64_t finite = o->differing - o->nan;
  o->mean_abs = finite ? sum / (double)finite : 0;
}

/* ------------------------------------------------------- tensor fields */

static bool same_str(const char *x, const char *y) {
  if (!x || !y) return x == y;
  return strcmp(x, y) == 0;
}

static unsigned tensor_fields(const etk_program_tensor_t *x,
                              const etk_program_tensor_t *y) {
  unsigned f = 0;
  if (x->scalar_type != y->scalar_type) f |= ETK_PDIFF_DTYPE;
  if (x->dim != y->dim ||
      (x->dim && memcmp(x->sizes, y->sizes, x->dim * sizeof *x->sizes)))
    f |= ETK_PDIFF_SIZES;
  if (x->dim != y->dim ||
      (x->dim && memcmp(x->dim_order, y->dim_order, x->dim)))
    f |= ETK_PDIFF_DIM_ORDER;
  if (x->storage_offset != y->storage_offset) f |= ETK_PDIFF_STORAGE_OFFSET;
  if (x->requires_grad != y->requires_grad) f |= ETK_PDIFF_REQUIRES_GRAD;
  if (x->layout != y->layout) f |= ETK_PDIFF_LAYOUT;
  if (x->data_buffer_idx != y->data_buffer_idx) f |= ETK_PDIFF_BUFFER_INDEX;
  if (x->planned != y->planned ||
      (x->planned &&
       (x->memory_id != y->memory_id || x->memory_offset != y->memory_offset)))
    f |= ETK_PDIFF_ALLOCATION;
  if (x->shape_dynamism != y->shape_dynamism) f |= ETK_PDIFF_DYNAMISM;
  if (!same_str(x->fully_qualified_name, y->fully_qualified_name))
    f |= ETK_PDIFF_NAME;
  if (x->external != y->external) f |= ETK_PDIFF_EXTERNAL;
  return f;
}

/* Fills *o for the tensors at one index; returns whether they differ. */
static bool diff_tensor(const etk_program_tensor_t *x,
                        const etk_program_tensor_t *y,
                        etk_program_diff_tensor_t *o, uint64_t *compared) {
  o->a = x;
  o->b = y;
  o->fields = tensor_fields(x, y);
  o->has_data = x->data || y->data;
  bool same_data = x->data && y->data && x->nbytes == y->nbytes &&
                   memcmp(x->data, y->data, (size_t)x->nbytes) == 0;
  if (x->data && y->data) *compared += x->nbytes;
  o->bytes_differ = o->has_data && !same_data;
  if (!o->fields && !o->bytes_differ) return false;
  if (o->bytes_differ && x->data && y->data)
    etk_program_diff_data(x->scalar_type, x->data, x->nbytes, y->data,
                          y->nbytes, o);
  return true;
}

/* Whether two non-tensor values differ (kind or contents). */
static bool value_differs(const etk_program_value_t *x,
                          const etk_program_value_t *y) {
  if (x->tag != y->tag) return true;
  switch (x->tag) {
    case ETK_PTE_KT_INT:
      return x->u.i != y->u.i;
    case ETK_PTE_KT_BOOL:
      return x->u.b != y->u.b;
    case ETK_PTE_KT_DOUBLE:
      return memcmp(&x->u.d, &y->u.d, sizeof x->u.d) != 0 && x->u.d != y->u.d;
    case ETK_PTE_KT_STRING:
      return x->u.string.len != y->u.string.len ||
             memcmp(x->u.string.data, y->u.string.data, x->u.string.len);
    case ETK_PTE_KT_INT_LIST:
      return x->u.int_list.count != y->u.int_list.count ||
             memcmp(x->u.int_list.items, y->u.int_list.items,
                    x->u.int_list.count * sizeof *x->u.int_list.items);
    case ETK_PTE_KT_DOUBLE_LIST:
      for (uint32_t i = 0; i < x->u.double_list.count; i++)
        if (x->u.double_list.items[i] != y->u.double_list.items[i]) return true;
      return x->u.double_list.count != y->u.double_list.count;
    case ETK_PTE_KT_BOOL_LIST:
      return x->u.bool_list.count != y->u.bool_list.count ||
             memcmp(x->u.bool_list.items, y->u.bool_list.items,
                    x->u.bool_list.count);
    case ETK_PTE_KT_TENSOR_LIST:
    case ETK_PTE_KT_OPTIONAL_TENSOR_LIST:
      return x->u.tensor_list.count != y->u.tensor_list.count ||
             memcmp(x->u.tensor_list.items, y->u.tensor_list.items,
                    x->u.tensor_list.count * sizeof *x->u.tensor_list.items);
    default:
      return false;
  }
}

/* ------------------------------------------------------ name multisets */

static int cmp_name(const void *x, const void *y) {
  return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Sorted surplus of a over b and of b over a (both arrays sorted in
 * place).  Output arrays hold at least na and nb entries. */
static void multiset_diff(const char **a, size_t na, const char **b, size_t nb,
                          const char **only_a, size_t *ca, const char **only_b,
                          size_t *cb) {
  if (na) qsort(a, na, sizeof *a, cmp_name);
  if (nb) qsort(b, nb, sizeof *b, cmp_name);
  size_t i = 0, j = 0;
  *ca = *cb = 0;
  while (i < na || j < nb) {
    int c = i == na ? 1 : j == nb ? -1 : strcmp(a[i], b[j]);
    if (c == 0) {
      i++;
      j++;
    } else if (c < 0) {
      only_a[(*ca)++] = a[i++];
    } else {
      only_b[(*cb)++] = b[j++];
    }
  }
}

/* ------------------------------------------------------------- building */

/* Storage for every name list: one array of pointers, carved up. */
typedef struct names_pool {
  const char **items;
  size_t used, cap;
} names_pool_t;

static const char **pool_take(names_pool_t *p, size_t n) {
  const char **r = p->items + p->used;
  p->used += n;
  return r;
}

static uint32_t instruction_count(const etk_program_plan_t *p) {
  uint32_t n = 0;
  for (uint32_t c = 0; c < p->chain_count; c++)
    n += p->chains[c].instruction_count;
  return n;
}

static void diff_names(names_pool_t *pool, const char **scratch_a,
                       const char **scratch_b, size_t na, size_t nb,
                       const char ***only_a, size_t *ca, const char ***only_b,
                       size_t *cb) {
  *only_a = pool_take(pool, na);
  *only_b = pool_take(pool, nb);
  multiset_diff(scratch_a, na, scratch_b, nb, *only_a, ca, *only_b, cb);
}

static bool diff_plan(const etk_program_plan_t *x, const etk_program_plan_t *y,
                      etk_program_diff_t *d, etk_program_diff_plan_t *o,
                      names_pool_t *pool, const char **sa, const char **sb) {
  o->name_a = x->name;
  o->name_b = y->name;
  o->name_differs = !same_str(x->name, y->name);
  o->buffers_differ = x->buffer_size_count != y->buffer_size_count ||
                      (x->buffer_size_count &&
                       memcmp(x->buffer_sizes, y->buffer_sizes,
                              x->buffer_size_count * sizeof *x->buffer_sizes));
  o->values_a = x->value_count;
  o->values_b = y->value_count;
  o->instructions_a = instruction_count(x);
  o->instructions_b = instruction_count(y);
  for (uint32_t k = 0; k < x->operator_count; k++)
    sa[k] = x->operators[k].full_name;
  for (uint32_t k = 0; k < y->operator_count; k++)
    sb[k] = y->operators[k].full_name;
  diff_names(pool, sa, sb, x->operator_count, y->operator_count, &o->ops_only_a,
             &o->ops_only_a_count, &o->ops_only_b, &o->ops_only_b_count);
  for (uint32_t k = 0; k < x->delegate_count; k++)
    sa[k] = x->delegates[k].id ? x->delegates[k].id : "";
  for (uint32_t k = 0; k < y->delegate_count; k++)
    sb[k] = y->delegates[k].id ? y->delegates[k].id : "";
  diff_names(pool, sa, sb, x->delegate_count, y->delegate_count,
             &o->delegates_only_a, &o->delegates_only_a_count,
             &o->delegates_only_b, &o->delegates_only_b_count);
  uint32_t n =
      x->value_count < y->value_count ? x->value_count : y->value_count;
  o->first_tensor = d->tensor_count;
  o->first_value = d->value_count;
  for (uint32_t v = 0; v < n; v++) {
    const etk_program_value_t *vx = &x->values[v], *vy = &y->values[v];
    if (vx->tag == ETK_PTE_KT_TENSOR && vy->tag == ETK_PTE_KT_TENSOR) {
      etk_program_diff_tensor_t *t = &d->tensors[d->tensor_count];
      memset(t, 0, sizeof *t);
      t->plan = o->index;
      t->value = v;
      if (diff_tensor(vx->u.tensor, vy->u.tensor, t, &d->constant_bytes))
        d->tensor_count++;
    } else if (value_differs(vx, vy)) {
      etk_program_diff_value_t *e = &d->values[d->value_count++];
      e->plan = o->index;
      e->value = v;
      e->tag_a = vx->tag;
      e->tag_b = vy->tag;
    }
  }
  o->tensor_count = d->tensor_count - o->first_tensor;
  o->value_count = d->value_count - o->first_value;
  for (uint32_t v = n; v < x->value_count; v++)
    o->extra_tensors_a += x->values[v].tag == ETK_PTE_KT_TENSOR;
  for (uint32_t v = n; v < y->value_count; v++)
    o->extra_tensors_b += y->values[v].tag == ETK_PTE_KT_TENSOR;
  return o->name_differs || o->buffers_differ || o->values_a != o->values_b ||
         o->instructions_a != o->instructions_b || o->ops_only_a_count ||
         o->ops_only_b_count || o->delegates_only_a_count ||
         o->delegates_only_b_count || o->tensor_count || o->value_count;
}

static uint64_t segment_bytes(const etk_program_t *p) {
  uint64_t n = 0;
  for (uint32_t s = 0; s < p->segment_count; s++) n += p->segments[s].size;
  return n;
}

static void diff_named(const etk_program_t *a, const etk_program_t *b,
                       etk_program_diff_t *d, names_pool_t *pool,
                       const char **sa, const char **sb) {
  for (uint32_t k = 0; k < a->named_data_count; k++)
    sa[k] = a->named_data[k].key ? a->named_data[k].key : "";
  for (uint32_t k = 0; k < b->named_data_count; k++)
    sb[k] = b->named_data[k].key ? b->named_data[k].key : "";
  diff_names(pool, sa, sb, a->named_data_count, b->named_data_count,
             &d->named_only_a, &d->named_only_a_count, &d->named_only_b,
             &d->named_only_b_count);
}

/* The largest name list of either program, and the pool all lists need. */
static void sizes_needed(const etk_program_t *a, const etk_program_t *b,
                         size_t *scratch, size_t *pool, size_t *values) {
  size_t s = a->named_data_count > b->named_data_count ? a->named_data_count
                                                       : b->named_data_count;
  size_t p =
      a->named_data_count + b->named_data_count + a->plan_count + b->plan_count;
  size_t v = 0;
  const etk_program_t *both[2] = {a, b};
  for (int side = 0; side < 2; side++)
    for (uint32_t k = 0; k < both[side]->plan_count; k++) {
      const etk_program_plan_t *pl = &both[side]->plans[k];
      if (pl->operator_count > s) s = pl->operator_count;
      if (pl->delegate_count > s) s = pl->delegate_count;
      p += pl->operator_count + pl->delegate_count;
      if (side == 0) v += pl->value_count;
    }
  *scratch = s ? s : 1;
  *pool = p ? p : 1;
  *values = v ? v : 1;
}

int etk_program_diff_build(const etk_program_t *a, const etk_program_t *b,
                           etk_program_diff_t *d, etk_error_t *err) {
  memset(d, 0, sizeof *d);
  d->size_a = a->size;
  d->size_b = b->size;
  d->bitwise_equal =
      a->size == b->size && memcmp(a->data, b->data, a->size) == 0;
  d->version_a = a->version;
  d->version_b = b->version;
  d->segments_a = a->segment_count;
  d->segments_b = b->segment_count;
  d->segment_bytes_a = segment_bytes(a);
  d->segment_bytes_b = segment_bytes(b);
  size_t nscratch, npool, nvalues;
  sizes_needed(a, b, &nscratch, &npool, &nvalues);
  size_t nplans = a->plan_count < b->plan_count ? a->plan_count : b->plan_count;
  names_pool_t pool = {calloc(npool, sizeof(char *)), 0, npool};
  const char **sa = calloc(nscratch, sizeof *sa);
  const char **sb = calloc(nscratch, sizeof *sb);
  d->plans = calloc(nplans ? nplans : 1, sizeof *d->plans);
  d->tensors = calloc(nvalues, sizeof *d->tensors);
  d->values = calloc(nvalues, sizeof *d->values);
  d->internal_ = pool.items;
  if (!pool.items || !sa || !sb || !d->plans || !d->tensors || !d->values) {
    free(sa);
    free(sb);
    etk_program_diff_free(d);
    return etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET,
                         "out of memory comparing the programs");
  }
  bool differs = a->version != b->version || a->plan_count != b->plan_count ||
                 d->segments_a != d->segments_b ||
                 d->segment_bytes_a != d->segment_bytes_b;
  for (size_t k = 0; k < nplans; k++) {
    d->plans[k].index = (uint32_t)k;
    if (diff_plan(&a->plans[k], &b->plans[k], d, &d->plans[k], &pool, sa, sb))
      differs = true;
  }
  d->plan_count = nplans;
  d->extra_plans_a = pool_take(&pool, a->plan_count - nplans);
  d->extra_plans_b = pool_take(&pool, b->plan_count - nplans);
  for (size_t k = nplans; k < a->plan_count; k++)
    d->extra_plans_a[d->extra_plans_a_count++] = a->plans[k].name;
  for (size_t k = nplans; k < b->plan_count; k++)
    d->extra_plans_b[d->extra_plans_b_count++] = b->plans[k].name;
  diff_named(a, b, d, &pool, sa, sb);
  if (d->named_only_a_count || d->named_only_b_count) differs = true;
  free(sa);
  free(sb);
  d->differs = differs;
  return ETK_OK;
}

void etk_program_diff_free(etk_program_diff_t *d) {
  if (!d) return;
  free(d->internal_);
  free(d->plans);
  free(d->tensors);
  free(d->values);
  memset(d, 0, sizeof *d);
}
