#!/usr/bin/python3
"""Writes the reference values of the cortex_m:: kernel tests.

How the files were made: `/usr/bin/python3 tests/kernels/reference/make_cortex_m.py`
with numpy only; inputs come from a fixed seed.  Each op is computed from
the formulas of upstream's backends/cortex_m/ops/operators.py (its
requantize_cmsis, the reference conv/linear/pool bodies) and, where those
are float approximations or silent, from CMSIS-NN's portable C
(arm_nn_requantize, arm_avgpool_s8, arm_max_pool_s8, arm_pad_s8,
arm_elementwise_add_s8/mul_s8, arm_softmax_s8 with its fixed-point exp and
reciprocal), re-derived here in Python integers.  The script writes the
inputs and outputs as cm_*.npy next to itself and `cases_cortex_m.txt`,
which tests/kernels/test_kernel_reference.c reads like cases.txt (see
make_reference.py for the token syntax), plus two tokens for channels-last
tensors: `tcl:F` / `ocl:F` is an input / expected output whose .npy holds
the NHWC memory of a logical NCHW tensor (dim order 0, 2, 3, 1).

The module also exports the reference functions, so the KWS-shaped example
program's expected outputs (examples/kws_model/make_expected.py) come from
the same code.
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = []


# ------------------------------------------------------------ arithmetic


def wrap32(v):
    v = np.asarray(v, dtype=np.int64)
    return ((v + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


def div_pow2(v, e):
    """arm_nn_divide_by_power_of_two: round to nearest, ties away from 0."""
    v = np.asarray(v, dtype=np.int64)
    if e == 0:
        return v
    mask = (1 << e) - 1
    rem = v & mask
    res = v >> e
    thr = np.where(res < 0, (mask >> 1) + 1, mask >> 1)
    return res + (rem > thr)


def requantize(v, mult, shift):
    """arm_nn_requantize (no single rounding), as requantize_cmsis."""
    v = wrap32(np.asarray(v, dtype=np.int64) << max(shift, 0))
    r = wrap32((v * int(mult) + (1 << 30)) >> 31)
    return div_pow2(r, max(-shift, 0))


def requant_out(acc, mult, shift, offset, lo, hi):
    return np.clip(requantize(acc, mult, shift) + offset, lo, hi)


def mul_sat(a, b):
    """arm_nn_doubling_high_mult (Python ints)."""
    if a == b == -(1 << 31):
        return (1 << 31) - 1
    acc = (1 << 30) if (a < 0) == (b < 0) else 1 - (1 << 30)
    acc += a * b
    q = abs(acc) >> 31
    return int(wrap32(q if acc >= 0 else -q))


def div_pow2_i(v, e):
    return int(div_pow2(np.int64(v), e))


def exp_on_negative(val):
    quarter = (val & 0xFFFFFF) - (1 << 24)
    remainder = int(wrap32(quarter - val))
    x = int(wrap32((quarter << 5) + (1 << 28)))
    x2 = mul_sat(x, x)
    inner = mul_sat(div_pow2_i(mul_sat(x2, x2), 2) + mul_sat(x2, x), 715827883)
    result = int(wrap32(1895147668 +
                        mul_sat(1895147668, x + div_pow2_i(inner + x2, 1))))
    for k, f in enumerate([1672461947, 1302514674, 790015084, 290630308,
                           39332535, 720401, 242]):
        if remainder & (1 << (24 + k)):
            result = mul_sat(result, f)
    return (1 << 31) - 1 if val == 0 else result


def mul_pow2(val, e):
    thr = (1 << (31 - e)) - 1
    if val > thr:
        return (1 << 31) - 1
    if val < -thr:
        return -(1 << 31)
    return int(wrap32(val << e))


def one_over_one_plus_x(val):
    s = val + (1 << 31) - 1
    half = int((s + (1 if s >= 0 else -1)) / 2)
    x = int(wrap32(1515870810 + mul_sat(half, -1010580540)))
    for _ in range(3):
        x = int(wrap32(x + mul_pow2(
            mul_sat(x, int(wrap32((1 << 29) - mul_sat(half, x)))), 2)))
    return mul_pow2(x, 1)


def softmax_s8(row, mult, shift, diff_min):
    """arm_nn_softmax_common_s8 for one int8 row (int8 output)."""
    mx = int(max(row))
    exps = []
    total = 0
    for v in row:
        d = int(v) - mx
        e = exp_on_negative(mul_sat(int(wrap32(d * (1 << shift))), mult)) \
            if d >= diff_min else None
        exps.append(e)
        if e is not None:
            total += div_pow2_i(e, 12)
    headroom = 32 - int(total).bit_length() if total > 0 else 32
    scale = one_over_one_plus_x(
        int(wrap32(((total << headroom) if total > 0 else 0) - (1 << 31))))
    bits = 12 - headroom + 23
    out = []
    for e in exps:
        r = -128 if e is None else div_pow2_i(mul_sat(scale, e), bits) - 128
        out.append(min(max(r, -128), 127))
    return out


# ------------------------------------------------------------ the ops


def conv(x, w, bias, stride, pad, dil, in_off):
    """int32 accumulators of quantized_conv2d: x NCHW int, w OHWI."""
    n, c, h, wd = x.shape
    o, kh, kw, kin = w.shape
    groups = c // kin
    oh = (h + 2 * pad[0] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * pad[1] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    xp = np.pad(x.astype(np.int64) + in_off,
                ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    acc = np.zeros((n, o, oh, ow), dtype=np.int64)
    per = o // groups
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, :, i * dil[0]:i * dil[0] + stride[0] * (oh - 1) + 1:stride[0],
                       j * dil[1]:j * dil[1] + stride[1] * (ow - 1) + 1:stride[1]]
            for g in range(groups):
                acc[:, g * per:(g + 1) * per] += np.einsum(
                    "nchw,oc->nohw", patch[:, g * kin:(g + 1) * kin],
                    w[g * per:(g + 1) * per, i, j, :].astype(np.int64))
    if bias is not None:
        acc += bias.astype(np.int64)[None, :, None, None]
    return acc


def depthwise(x, w, bias, stride, pad, dil, in_off, cm):
    n, c, h, wd = x.shape
    _, kh, kw, o = w.shape
    oh = (h + 2 * pad[0] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * pad[1] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    xp = np.pad(x.astype(np.int64) + in_off,
                ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    acc = np.zeros((n, o, oh, ow), dtype=np.int64)
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, :, i * dil[0]:i * dil[0] + stride[0] * (oh - 1) + 1:stride[0],
                       j * dil[1]:j * dil[1] + stride[1] * (ow - 1) + 1:stride[1]]
            for oc in range(o):
                acc[:, oc] += patch[:, oc // cm] * int(w[0, i, j, oc])
    if bias is not None:
        acc += bias.astype(np.int64)[None, :, None, None]
    return acc


def transpose_conv(x, w, bias, stride, pad, outpad, dil, in_off):
    n, c, h, wd = x.shape
    o, kh, kw, kin = w.shape
    oh = (h - 1) * stride[0] - 2 * pad[0] + dil[0] * (kh - 1) + outpad[0] + 1
    ow = (wd - 1) * stride[1] - 2 * pad[1] + dil[1] * (kw - 1) + outpad[1] + 1
    acc = np.zeros((n, o, oh, ow), dtype=np.int64)
    xo = x.astype(np.int64) + in_off
    for iy in range(h):
        for ix in range(wd):
            for i in range(kh):
                for j in range(kw):
                    y = iy * stride[0] - pad[0] + i * dil[0]
                    z = ix * stride[1] - pad[1] + j * dil[1]
                    if 0 <= y < oh and 0 <= z < ow:
                        acc[:, :, y, z] += xo[:, :, iy, ix] @ w[:, i, j, :].astype(np.int64).T
    if bias is not None:
        acc += bias.astype(np.int64)[None, :, None, None]
    return acc


def per_channel(acc, mults, shifts, off, lo, hi):
    out = np.zeros(acc.shape, dtype=np.int64)
    for o in range(acc.shape[1]):
        out[:, o] = requant_out(acc[:, o], mults[o], shifts[o], off, lo, hi)
    return out.astype(np.int8)


def linear(x, w, bias, ksum, in_off, f_off, out_off, mult, shift, amax, amin):
    xi = x.astype(np.int64).reshape(-1, x.shape[-1])
    wi = w.astype(np.int64)
    if ksum is not None:
        acc = xi @ wi.T + xi.sum(-1, keepdims=True) * f_off + ksum
    else:
        acc = (xi + in_off) @ (wi + f_off).T
        if bias is not None:
            acc = acc + bias
    out = requant_out(acc, mult, shift, out_off, amin, amax)
    return out.reshape(*x.shape[:-1], w.shape[0]).astype(np.int8)


def pool_size(h, k, s, p, ceil):
    num = h + 2 * p - k
    o = num // s + 1
    if ceil and num % s:
        o += 1
    if ceil and (o - 1) * s >= h + p:
        o -= 1
    return o


def pool(x, k, s, p, ceil, is_max, lo=-128, hi=127):
    n, c, h, w = x.shape
    oh, ow = pool_size(h, k[0], s[0], p[0], ceil), pool_size(w, k[1], s[1], p[1], ceil)
    out = np.zeros((n, c, oh, ow), dtype=np.int64)
    for y in range(oh):
        for z in range(ow):
            y0, z0 = y * s[0] - p[0], z * s[1] - p[1]
            win = x[:, :, max(y0, 0):min(y0 + k[0], h),
                    max(z0, 0):min(z0 + k[1], w)].astype(np.int64)
            if is_max:
                v = win.max((2, 3))
            else:
                cnt = win.shape[2] * win.shape[3]
                sm = win.sum((2, 3))
                # C's truncating division of sum +- count/2
                num = np.where(sm > 0, sm + cnt // 2, sm - cnt // 2)
                v = np.sign(num) * (np.abs(num) // cnt)
            out[:, :, y, z] = np.clip(v, lo, hi)
    return out.astype(np.int8)


def q_mult(real):
    """A real multiplier as CMSIS-NN's (multiplier, shift)."""
    m, e = np.frexp(real)
    mult = int(round(m * (1 << 31)))
    if mult == 1 << 31:
        mult //= 2
        e += 1
    return mult, int(e)


# ------------------------------------------------------------ the cases


def save(name, a):
    np.save(os.path.join(HERE, name + ".npy"), np.ascontiguousarray(a))
    return name


def nhwc(a):
    return a.transpose(0, 2, 3, 1)


def case(name, kernel, *tokens):
    CASES.append("%s|%s|0|%s" % (name, kernel, " ".join(tokens)))


def lst(v):
    return "l:" + ",".join(str(int(x)) for x in v)


def i8(rng, *shape):
    return rng.integers(-128, 128, size=shape).astype(np.int8)


def conv_cases(rng):
    # plain conv with stride, padding, dilation and mixed shifts
    x, w = i8(rng, 1, 3, 7, 6), i8(rng, 4, 3, 3, 3)
    b = rng.integers(-3000, 3000, size=4).astype(np.int32)
    mults = np.array([1518500250, 1300000000, 1900000000, 1100000000], np.int32)
    shifts = np.array([-9, -8, -10, -7], np.int32)
    acc = conv(x, w, b, (2, 1), (1, 1), (1, 2), 5)
    y = per_channel(acc, mults, shifts, -7, -100, 110)
    case("cm_conv2d", "cortex_m::quantized_conv2d.out",
         "tcl:" + save("cm_conv2d_in0", nhwc(x)), "t:" + save("cm_conv2d_in1", w),
         "t:" + save("cm_conv2d_in2", b), "l:2,1", "l:1,1", "l:1,2", "i:5", "i:-7",
         "t:" + save("cm_conv2d_in3", mults), "t:" + save("cm_conv2d_in4", shifts),
         "i:-100", "i:110", "n", "ocl:" + save("cm_conv2d_out0", nhwc(y)), "=13")
    # grouped (2 groups), no bias, a left shift
    x, w = i8(rng, 1, 4, 5, 5), i8(rng, 6, 2, 2, 2)
    mults = np.full(6, 1234567890, np.int32)
    shifts = np.array([-6, -5, -6, -4, -7, 1], np.int32)
    acc = conv(x, w, None, (1, 1), (0, 1), (1, 1), -3)
    y = per_channel(acc, mults, shifts, 2, -128, 127)
    case("cm_conv2d_grouped", "cortex_m::quantized_conv2d.out",
         "tcl:" + save("cm_convg_in0", nhwc(x)), "t:" + save("cm_convg_in1", w),
         "n", "l:1,1", "l:0,1", "l:1,1", "i:-3", "i:2",
         "t:" + save("cm_convg_in2", mults), "t:" + save("cm_convg_in3", shifts),
         "i:-128", "i:127", "n", "ocl:" + save("cm_convg_out0", nhwc(y)), "=13")
    # depthwise, depth multiplier 3
    x, w = i8(rng, 1, 2, 6, 5), i8(rng, 1, 3, 3, 6)
    b = rng.integers(-2000, 2000, size=6).astype(np.int32)
    mults = rng.integers(1 << 30, (1 << 31) - 1, size=6).astype(np.int32)
    shifts = rng.integers(-10, -5, size=6).astype(np.int32)
    acc = depthwise(x, w, b, (2, 1), (1, 2), (1, 2), 17, 3)
    y = per_channel(acc, mults, shifts, -20, -128, 100)
    case("cm_depthwise", "cortex_m::quantized_depthwise_conv2d.out",
         "tcl:" + save("cm_dw_in0", nhwc(x)), "t:" + save("cm_dw_in1", w),
         "t:" + save("cm_dw_in2", b), "l:2,1", "l:1,2", "l:1,2", "i:3", "i:17",
         "i:-20", "t:" + save("cm_dw_in3", mults), "t:" + save("cm_dw_in4", shifts),
         "i:-128", "i:100", "n", "ocl:" + save("cm_dw_out0", nhwc(y)), "=14")
    # transposed conv with output padding
    x, w = i8(rng, 1, 3, 4, 4), i8(rng, 2, 3, 3, 3)
    b = rng.integers(-500, 500, size=2).astype(np.int32)
    mults = np.array([1600000000, 1200000000], np.int32)
    shifts = np.array([-8, -9], np.int32)
    acc = transpose_conv(x, w, b, (2, 2), (1, 1), (1, 0), (1, 1), 4)
    y = per_channel(acc, mults, shifts, 3, -128, 127)
    case("cm_transpose_conv", "cortex_m::quantized_transpose_conv2d.out",
         "tcl:" + save("cm_tconv_in0", nhwc(x)), "t:" + save("cm_tconv_in1", w),
         "t:" + save("cm_tconv_in2", b), "l:2,2", "l:1,1", "l:1,0", "l:1,1", "i:4",
         "i:3", "t:" + save("cm_tconv_in3", mults), "t:" + save("cm_tconv_in4", shifts),
         "i:-128", "i:127", "n", "n", "ocl:" + save("cm_tconv_out0", nhwc(y)), "=15")


def matmul_cases(rng):
    x, w = i8(rng, 2, 3, 16), i8(rng, 5, 16)
    b = rng.integers(-4000, 4000, size=5).astype(np.int32)
    y = linear(x, w, b, None, 128, 0, 23, 1500406475, -8, 127, -128)
    case("cm_linear", "cortex_m::quantized_linear.out",
         "t:" + save("cm_linear_in0", x), "t:" + save("cm_linear_in1", w),
         "t:" + save("cm_linear_in2", b), "n", "i:128", "i:0", "i:23",
         "l:1500406475", "l:-8", "i:127", "i:-128",
         "o:" + save("cm_linear_out0", y), "=11")
    # kernel_sum form: sum(w) * input_offset + bias folded in by the exporter
    ksum = (w.astype(np.int64).sum(1) * 9 + b).astype(np.int32)
    y = linear(x, w, None, ksum, 9, 0, -5, 1300000000, -9, 100, -90)
    case("cm_linear_ksum", "cortex_m::quantized_linear.out",
         "t:cm_linear_in0", "t:cm_linear_in1", "n",
         "t:" + save("cm_linear_ksum_in0", ksum), "i:9", "i:0", "i:-5",
         "l:1300000000", "l:-9", "i:100", "i:-90",
         "o:" + save("cm_linear_ksum_out0", y), "=11")
    # a filter offset (no new random draws: the same x, w and b)
    y = linear(x, w, b, None, 7, 3, 2, 1200000000, -9, 127, -128)
    case("cm_linear_filter_offset", "cortex_m::quantized_linear.out",
         "t:cm_linear_in0", "t:cm_linear_in1", "t:cm_linear_in2", "n", "i:7",
         "i:3", "i:2", "l:1200000000", "l:-9", "i:127", "i:-128",
         "o:" + save("cm_linear_foff_out0", y), "=11")
    a, bt = i8(rng, 2, 3, 8), i8(rng, 2, 4, 8)
    acc = np.einsum("bmk,bnk->bmn", a.astype(np.int64) + 3, bt.astype(np.int64) - 2)
    y = requant_out(acc, 1400000000, -8, -4, -128, 127).astype(np.int8)
    case("cm_batch_matmul", "cortex_m::quantized_batch_matmul.out",
         "t:" + save("cm_bmm_in0", a), "i:3", "t:" + save("cm_bmm_in1", bt), "i:-2",
         "i:-4", "i:1400000000", "i:-8", "n", "o:" + save("cm_bmm_out0", y), "=8")


def pool_cases(rng):
    x = i8(rng, 1, 3, 7, 6)
    y = pool(x, (3, 3), (2, 2), (1, 1), True, False)
    case("cm_avg_pool", "cortex_m::quantized_avg_pool2d.out",
         "tcl:" + save("cm_avg_in0", nhwc(x)), "l:3,3", "l:2,2", "l:1,1", "b:1",
         "i:-128", "i:2077939072", "i:-4", "n",
         "ocl:" + save("cm_avg_out0", nhwc(y)), "=9")
    y = pool(x, (2, 3), (2, 1), (1, 1), False, True, -50, 90)
    case("cm_max_pool", "cortex_m::quantized_max_pool2d.out",
         "tcl:cm_avg_in0", "l:2,3", "l:2,1", "l:1,1", "l:1,1", "b:0", "i:4", "i:4",
         "i:-50", "i:90", "ocl:" + save("cm_max_out0", nhwc(y)), "=10")
    # pad: physical (N, H, W, C) order for a channels-last input
    pre, post = [0, 1, 0, 2], [1, 0, 2, 1]
    y = np.pad(x, ((pre[0], post[0]), (pre[3], post[3]), (pre[1], post[1]),
                   (pre[2], post[2])), constant_values=-7)
    case("cm_pad", "cortex_m::pad.out", "tcl:cm_avg_in0", lst(pre), lst(post),
         "i:-7", "ocl:" + save("cm_pad_out0", nhwc(y)), "=4")
    z = i8(rng, 2, 3, 4)
    y = np.pad(z, ((1, 0), (0, 2), (3, 1)), constant_values=5)
    case("cm_pad_3d", "cortex_m::pad.out", "t:" + save("cm_pad3_in0", z),
         "l:0,1,0,3", "l:0,0,2,1", "i:5", "o:" + save("cm_pad3_out0", y), "=4")
    z = i8(rng, 2, 3, 4, 5)
    case("cm_transpose", "cortex_m::transpose.out", "t:" + save("cm_tr_in0", z),
         "l:2,0,3,1", "o:" + save("cm_tr_out0", z.transpose(2, 0, 3, 1)), "=2")


def elementwise_cases(rng):
    a, b = i8(rng, 1, 4, 3, 5), i8(rng, 1, 4, 3, 5)
    m1, s1 = q_mult(0.6)
    m2, s2 = q_mult(0.4)
    mo, so = q_mult(1.0 / (1 << 20) / 0.7)

    def add(a, b):
        x = requantize((a.astype(np.int64) + 3) << 20, m1, s1)
        y = requantize((b.astype(np.int64) - 5) << 20, m2, s2)
        return requant_out(x + y, mo, so, -2, -128, 127).astype(np.int8)
    case("cm_add", "cortex_m::quantized_add.out", "tcl:" + save("cm_add_in0", nhwc(a)),
         "i:-3", "i:%d" % m1, "i:%d" % s1, "tcl:" + save("cm_add_in1", nhwc(b)), "i:5",
         "i:%d" % m2, "i:%d" % s2, "i:-2", "i:%d" % mo, "i:%d" % so, "i:-128",
         "i:127", "ocl:" + save("cm_add_out0", nhwc(add(a, b))), "=13")
    c = i8(rng, 1, 4, 1, 1)
    case("cm_add_channel", "cortex_m::quantized_add.out", "tcl:cm_add_in0",
         "i:-3", "i:%d" % m1, "i:%d" % s1, "t:" + save("cm_add_in2", c), "i:5",
         "i:%d" % m2, "i:%d" % s2, "i:-2", "i:%d" % mo, "i:%d" % so, "i:-128",
         "i:127", "ocl:" + save("cm_addc_out0", nhwc(add(a, c))), "=13")
    mm, sm = q_mult(0.003)
    prod = (a.astype(np.int64) - 4) * (b.astype(np.int64) + 6)
    y = requant_out(prod, mm, sm, 7, -128, 127).astype(np.int8)
    case("cm_mul", "cortex_m::quantized_mul.out", "tcl:cm_add_in0", "i:4",
         "tcl:cm_add_in1", "i:-6", "i:7", "i:%d" % mm, "i:%d" % sm,
         "ocl:" + save("cm_mul_out0", nhwc(y)), "=7")
    num = (a.astype(np.float32) - 1).ravel()
    den = (b.astype(np.float32) + 2).ravel()
    den[:3] = 0  # a zero divisor gives a zero quotient
    b2 = (den - 2).astype(np.int8).reshape(a.shape)
    q = np.where(den != 0, num / np.where(den != 0, den, 1), np.float32(0))
    v = q.astype(np.float32) * np.float32(20.0)
    v = np.sign(v) * np.floor(np.abs(v) + np.float32(0.5))  # std::round
    y = np.clip(v + 3, -128, 127).astype(np.int8).reshape(a.shape)
    case("cm_div", "cortex_m::quantized_div.out", "t:" + save("cm_div_in0", a), "i:1",
         "t:" + save("cm_div_in1", b2), "i:-2", "i:3", "d:20",
         "o:" + save("cm_div_out0", y), "=6")
    lut = i8(rng, 256)
    case("cm_activation", "cortex_m::quantized_activation.out", "tcl:cm_add_in0",
         "t:" + save("cm_act_in0", lut),
         "ocl:" + save("cm_act_out0", nhwc(lut[a.astype(np.int64) + 128])), "=2")
    r = i8(rng, 1, 4, 1, 5)
    case("cm_minimum", "cortex_m::minimum.out", "t:" + save("cm_min_in0", a),
         "t:" + save("cm_min_in1", r), "o:" + save("cm_min_out0", np.minimum(a, r)),
         "=2")
    case("cm_maximum", "cortex_m::maximum.out", "t:cm_min_in0", "t:cm_min_in1",
         "o:" + save("cm_max2_out0", np.maximum(a, r)), "=2")
    # softmax: input scale 0.1 as CMSIS-NN's Q5.26 multiplier
    mult, shift = q_mult(0.1 * (1 << 26))
    x = i8(rng, 3, 10)
    y = np.array([softmax_s8(row, mult, shift, -128) for row in x], np.int8)
    xi = x.astype(np.int64)
    ref = np.exp(0.1 * (xi - xi.max(1, keepdims=True)))
    ref = np.clip(np.round(ref / ref.sum(1, keepdims=True) * 256) - 128, -128, 127)
    assert np.abs(ref - y).max() <= 2, "the fixed-point softmax strays from exp"
    case("cm_softmax", "cortex_m::softmax.out", "t:" + save("cm_softmax_in0", x),
         "i:-1", "i:0", "i:-128", "i:%d" % mult, "i:%d" % shift, "i:-128",
         "o:" + save("cm_softmax_out0", y), "=7")


def quant_cases(rng):
    x = (rng.standard_normal((1, 2, 5, 7)) * 120).astype(np.float32)
    x[0, 0, 0, :4] = np.float32(2.822781801224) * np.array([0.5, 1.5, -2.5, 3.5],
                                                            np.float32)
    scale = 2.822781801224
    inv = np.float32(1.0) / np.float32(scale)
    q = np.clip(np.rint(x * inv) + 68, -128, 127).astype(np.int8)
    case("cm_quantize", "cortex_m::quantize_per_tensor.out",
         "tcl:" + save("cm_quant_in0", nhwc(x)), "d:%.12g" % scale, "i:68",
         "i:-128", "i:127", "i:1", "ocl:" + save("cm_quant_out0", nhwc(q)), "=6")
    d = ((q.astype(np.int32) - 23).astype(np.float32) * np.float32(0.154293164611))
    case("cm_dequantize", "cortex_m::dequantize_per_tensor.out",
         "t:" + save("cm_dequant_in0", q), "d:0.154293164611", "i:23", "i:-128",
         "i:127", "i:1", "o:" + save("cm_dequant_out0", d), "=6")


def main():
    rng = np.random.default_rng(29)
    quant_cases(rng)
    conv_cases(rng)
    matmul_cases(rng)
    pool_cases(rng)
    elementwise_cases(rng)
    with open(os.path.join(HERE, "cases_cortex_m.txt"), "w") as f:
        f.write("\n".join(CASES) + "\n")


if __name__ == "__main__":
    main()
