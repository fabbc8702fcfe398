/*
 * cortex_m.h - the fixed-point arithmetic of CMSIS-NN's int8 kernels,
 * shared by the cortex_m:: kernels (cortex_m_*.c): requantization, the
 * doubling high multiplies and the exp/reciprocal approximations of its
 * softmax.  Integer-exact with CMSIS-NN's portable C (the build without
 * CMSIS_NN_USE_SINGLE_ROUNDING), whose arithmetic relies on two's-complement
 * wrap-around and arithmetic right shifts; here every such step is spelled
 * out through unsigned arithmetic and floor shifts, so the results are the
 * same on every C99 compiler and the code has no undefined behaviour.
 */
#ifndef ETKIT_CORTEX_M_H
#define ETKIT_CORTEX_M_H

#include <stdint.h>

#include "kernel_util.h"

/* ------------------------------------------------ argument helpers
 * (cortex_m_util.c) */

/* Fails unless t is CHAR (int8). */
int etk_cm_check_int8(const etk_op_t *op, const etk_tensor_t *t,
                      const char *what);
/* An Int argument that must fit int32. */
int etk_cm_int32(const etk_op_t *op, size_t i, const char *what, int32_t *out);
/* A 2-item int list (1 item means both), every item >= min. */
int etk_cm_pair(const etk_op_t *op, size_t i, const char *what, int64_t min,
                int64_t *out);
/* Per-channel requantization tables: INT tensors of n items each, shifts
 * in [-31, 31] (checked when running). */
int etk_cm_requant_tables(const etk_op_t *op, const etk_tensor_t *mult,
                          const etk_tensor_t *shift, int64_t n);
/* A requantization shift (Int in [-31, 31]). */
int etk_cm_shift(const etk_op_t *op, size_t i, const char *what, int32_t *out);
/* Element k of an INT tensor's dense data. */
static inline int32_t etk_cm_i32_at(const etk_tensor_t *t, int64_t k) {
  return ((const int32_t *)t->data)[k];
}

/* int32 wrap-around of a 64-bit value (as a cast on every two's-complement
 * target, without the implementation-defined conversion). */
static inline int32_t etk_cm_wrap32(int64_t v) {
  uint32_t u = (uint32_t)((uint64_t)v & 0xffffffffu);
  return u >= 0x80000000u ? (int32_t)(u - 0x80000000u) + INT32_MIN : (int32_t)u;
}

/* Floor division by 2^n (an arithmetic right shift), 0 <= n <= 31. */
static inline int32_t etk_cm_asr32(int32_t x, int n) {
  return x >= 0 ? x >> n : -1 - ((-1 - x) >> n);
}
static inline int64_t etk_cm_asr64(int64_t x, int n) {
  return x >= 0 ? x >> n : -1 - ((-1 - x) >> n);
}

/* x * 2^n with int32 wrap-around (a left shift on the register). */
static inline int32_t etk_cm_shl32(int32_t x, int n) {
  return etk_cm_wrap32((int64_t)(uint32_t)((uint32_t)x << n));
}

/* arm_nn_doubling_high_mult_no_sat: bits 31.. of m1 * m2 + 2^30. */
static inline int32_t etk_cm_dhm_no_sat(int32_t m1, int32_t m2) {
  int64_t acc = (int64_t)m1 * m2 + ((int64_t)1 << 30);
  return etk_cm_wrap32(etk_cm_asr64(acc, 31));
}

/* arm_nn_doubling_high_mult (MUL_SAT): rounding away from zero and the
 * division truncating toward zero; INT32_MIN * INT32_MIN saturates. */
static inline int32_t etk_cm_dhm(int32_t m1, int32_t m2) {
  int64_t acc = (int64_t)1 << 30;
  if ((m1 < 0) != (m2 < 0)) acc = 1 - acc;
  acc += (int64_t)m1 * m2;
  if (m1 == INT32_MIN && m2 == INT32_MIN) return INT32_MAX;
  return etk_cm_wrap32(acc / ((int64_t)1 << 31));
}

/* arm_nn_divide_by_power_of_two: dividend / 2^exponent rounded to nearest,
 * ties away from zero; 0 <= exponent <= 31. */
static inline int32_t etk_cm_div_pow2(int32_t dividend, int exponent) {
  int32_t mask = (int32_t)(((uint32_t)1 << exponent) - 1u);
  int32_t remainder = (int32_t)((uint32_t)dividend & (uint32_t)mask);
  int32_t result = etk_cm_asr32(dividend, exponent);
  int32_t threshold = mask >> 1;
  if (result < 0) threshold++;
  if (remainder > threshold) result++;
  return result;
}

/* arm_nn_requantize: val * 2^max(shift, 0) (wrapping), the doubling high
 * multiply by `multiplier`, then the rounding divide by 2^max(-shift, 0).
 * shift is in [-31, 31]. */
static inline int32_t etk_cm_requantize(int32_t val, int32_t multiplier,
                                        int32_t shift) {
  int left = shift > 0 ? (int)shift : 0, right = shift > 0 ? 0 : (int)-shift;
  return etk_cm_div_pow2(etk_cm_dhm_no_sat(etk_cm_shl32(val, left), multiplier),
                         right);
}

/* acc + (x + off) * w in CMSIS-NN's int32 accumulator, wrapping (unsigned
 * arithmetic: defined in C, and 32-bit multiplies on a Cortex-M). */
static inline uint32_t etk_cm_mac(uint32_t acc, int32_t x, int32_t off,
                                  int32_t w) {
  return acc + ((uint32_t)x + (uint32_t)off) * (uint32_t)w;
}

/* The int32 value of a wrapped accumulator. */
static inline int32_t etk_cm_acc(uint32_t acc) {
  return etk_cm_wrap32((int64_t)acc);
}

static inline int32_t etk_cm_clamp(int32_t v, int32_t lo, int32_t hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

/* arm_nn_exp_on_negative_values: exp(val) for val <= 0 in Q5.26, result
 * in Q0.31 (the table of exp(-2^k) factors and a Taylor polynomial). */
static inline int32_t etk_cm_exp_on_negative(int32_t val) {
  static const int32_t factors[7] = {
      1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
  int32_t quarter = (int32_t)(((uint32_t)val & 0xffffffu)) - (1 << 24);
  int32_t remainder = etk_cm_wrap32((int64_t)quarter - val);
  int32_t x = etk_cm_wrap32((int64_t)etk_cm_shl32(quarter, 5) + (1 << 28));
  int32_t x2 = etk_cm_dhm(x, x);
  int32_t poly = etk_cm_dhm(
      etk_cm_div_pow2(etk_cm_dhm(x2, x2), 2) + etk_cm_dhm(x2, x), 715827883);
  int32_t result = etk_cm_wrap32(
      1895147668 +
      (int64_t)etk_cm_dhm(
          1895147668,
          etk_cm_wrap32((int64_t)x + etk_cm_div_pow2(poly + x2, 1))));
  for (int k = 0; k < 7; k++)
    if ((uint32_t)remainder & ((uint32_t)1 << (24 + k)))
      result = etk_cm_dhm(result, factors[k]);
  return val == 0 ? INT32_MAX : result;
}

/* arm_nn_mult_by_power_of_two: val * 2^exp, saturating. */
static inline int32_t etk_cm_mul_pow2(int32_t val, int exp) {
  int32_t thresh = (int32_t)(((uint32_t)1 << (31 - exp)) - 1u);
  if (val > thresh) return INT32_MAX;
  if (val < -thresh) return INT32_MIN;
  return etk_cm_shl32(val, exp);
}

/* arm_nn_one_over_one_plus_x_for_x_in_0_1: 1 / (1 + x) by three
 * Newton-Raphson steps, x in Q0.31 (in [0, 1)), result in Q1.30 * 2. */
static inline int32_t etk_cm_one_over_one_plus_x(int32_t val) {
  int64_t sum = (int64_t)val + INT32_MAX;
  int32_t half = (int32_t)((sum + (sum >= 0 ? 1 : -1)) / 2);
  int32_t x =
      etk_cm_wrap32(1515870810 + (int64_t)etk_cm_dhm(half, -1010580540));
  const int32_t one = 1 << 29;
  for (int k = 0; k < 3; k++)
    x = etk_cm_wrap32(
        (int64_t)x +
        etk_cm_mul_pow2(
            etk_cm_dhm(x, etk_cm_wrap32((int64_t)one - etk_cm_dhm(half, x))),
            2));
  return etk_cm_mul_pow2(x, 1);
}

#endif /* ETKIT_CORTEX_M_H */
