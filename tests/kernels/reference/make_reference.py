#!/usr/bin/python3
"""Writes the PyTorch reference values of the kernel tests.

How the files were made: `/usr/bin/python3 tests/kernels/reference/make_reference.py`
on Debian's python3-torch 1.13 (CPU) with numpy; inputs come from a fixed
seed.  For every case the script computes the op with PyTorch's own
functional form (torch.ops.aten.* or torch.nn.functional, or the
decomposition PyTorch documents when 1.13 has no op of that name:
quantize/dequantize_per_tensor and scaled_dot_product_attention) and writes
the inputs and outputs as .npy next to this script, plus `cases.txt`, the
manifest the C test (tests/kernels/test_kernel_reference.c) reads:

    name|kernel|tolerance|arg arg ...

with one token per kernel argument, in schema order:
    t:F      tensor input read from F.npy       o:F     out tensor, expected F.npy
    i:N d:X b:0|1 s:TEXT n (None)               l:1,2   int list (l: = empty)
    tl:F,G   tensor list                        ol:F,G  out tensor list
    otl:F,-  optional tensor list (- = None)    =K      argument K again (returns)

Torch is needed only to regenerate these files; the tests read the .npy.
"""
import os

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(20)
CASES = []


def save(name, t):
    a = t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t)
    np.save(os.path.join(HERE, name + ".npy"), np.ascontiguousarray(a))
    return name


def rnd(*shape):
    return torch.randn(*shape, dtype=torch.float32)


def case(name, kernel, tol, *tokens):
    CASES.append("%s|%s|%g|%s" % (name, kernel, tol, " ".join(tokens)))


def ins(name, *tensors):
    return ["t:" + save("%s_in%d" % (name, k), t) for k, t in enumerate(tensors)]


def out(name, t, k=0):
    return "o:" + save("%s_out%d" % (name, k), t)


def unary(name, kernel, fn, x, extra=(), tol=1e-6):
    n = len(extra) + 1
    case(name, kernel, tol, *ins(name, x), *extra, out(name, fn(x)), "=%d" % n)


def conv_cases():
    x, w, b = rnd(1, 3, 9, 9), rnd(4, 3, 3, 3), rnd(4)
    y = torch.ops.aten.convolution(x, w, b, [2, 2], [1, 1], [1, 1], False, [0, 0], 1)
    case("conv2d", "aten::convolution.out", 1e-5, *ins("conv2d", x, w, b),
         "l:2,2", "l:1,1", "l:1,1", "b:0", "l:0,0", "i:1", out("conv2d", y), "=9")
    x, w = rnd(2, 4, 6, 6), rnd(4, 1, 3, 3)
    y = torch.ops.aten.convolution(x, w, None, [1, 1], [1, 1], [2, 2], False, [0, 0], 4)
    case("conv_dw", "aten::convolution.out", 1e-5, *ins("conv_dw", x, w), "n",
         "l:1,1", "l:1,1", "l:2,2", "b:0", "l:0,0", "i:4", out("conv_dw", y), "=9")


def matmul_cases():
    a, m1, m2 = rnd(5), rnd(3, 4), rnd(4, 5)
    case("addmm", "aten::addmm.out", 1e-5, *ins("addmm", a, m1, m2), "d:0.5",
         "d:2", out("addmm", torch.addmm(a, m1, m2, beta=0.5, alpha=2)), "=5")
    case("mm", "aten::mm.out", 1e-5, *ins("mm", m1, m2), out("mm", m1 @ m2), "=2")
    b1, b2 = rnd(2, 3, 4), rnd(2, 4, 5)
    case("bmm", "aten::bmm.out", 1e-5, *ins("bmm", b1, b2),
         out("bmm", torch.bmm(b1, b2)), "=2")
    x, w, b = rnd(2, 3, 8), rnd(6, 8), rnd(6)
    case("linear", "aten::linear.out", 1e-5, *ins("linear", x, w, b),
         out("linear", F.linear(x, w, b)), "=3")


def norm_cases():
    x, w, b, rm, rv = rnd(2, 3, 4, 4), rnd(3), rnd(3), rnd(3), torch.rand(3) + 0.5
    # 1.13 has no _native_batch_norm_legit_no_training: its first output is
    # eval-mode batch_norm, the other two are empty
    empty = torch.zeros(0)
    y = (F.batch_norm(x, rm, rv, w, b, training=False, eps=1e-5), empty, empty)
    case("batch_norm", "aten::_native_batch_norm_legit_no_training.out", 1e-5,
         *ins("batch_norm", x, w, b, rm, rv), "d:0.1", "d:1e-05",
         out("batch_norm", y[0]), "o:" + save("batch_norm_out1", y[1]),
         "o:" + save("batch_norm_out2", y[2]), "=7", "=8", "=9")
    x, w, b = rnd(2, 3, 8), rnd(8), rnd(8)
    y = torch.ops.aten.native_layer_norm(x, [8], w, b, 1e-5)
    case("layer_norm", "aten::native_layer_norm.out", 1e-5,
         *ins("layer_norm", x, w, b)[:1], "l:8", *ins("layer_norm", x, w, b)[1:],
         "d:1e-05", out("layer_norm", y[0]), out("layer_norm", y[1], 1),
         out("layer_norm", y[2], 2), "=5", "=6", "=7")
    x, w, b = rnd(2, 6, 3, 3), rnd(6), rnd(6)
    y = torch.ops.aten.native_group_norm(x, w, b, 2, 6, 9, 3, 1e-5)
    case("group_norm", "aten::native_group_norm.out", 1e-5,
         *ins("group_norm", x, w, b), "i:2", "i:6", "i:9", "i:3", "d:1e-05",
         out("group_norm", y[0]), out("group_norm", y[1], 1),
         out("group_norm", y[2], 2), "=8", "=9", "=10")


def activation_cases():
    x = rnd(3, 7) * 4
    unary("relu", "aten::relu.out", torch.relu, x)
    unary("sigmoid", "aten::sigmoid.out", torch.sigmoid, x)
    unary("tanh", "aten::tanh.out", torch.tanh, x)
    unary("silu", "aten::silu.out", F.silu, x)
    unary("hardswish", "aten::hardswish.out", F.hardswish, x)
    unary("hardtanh", "aten::hardtanh.out", lambda t: F.hardtanh(t, -1.5, 2.0), x,
          ("d:-1.5", "d:2"))
    unary("gelu", "aten::gelu.out", F.gelu, x, ("s:none",))
    unary("gelu_tanh", "aten::gelu.out", lambda t: F.gelu(t, approximate="tanh"), x,
          ("s:tanh",))
    unary("exp", "aten::exp.out", torch.exp, rnd(4, 5))
    pos = torch.rand(4, 5) + 0.1
    unary("sqrt", "aten::sqrt.out", torch.sqrt, pos)
    unary("rsqrt", "aten::rsqrt.out", torch.rsqrt, pos, tol=1e-5)
    unary("softmax", "aten::_softmax.out", lambda t: torch.softmax(t, -1), x,
          ("i:-1", "b:0"))
    unary("log_softmax", "aten::_log_softmax.out",
          lambda t: torch.log_softmax(t, 1), x, ("i:1", "b:0"), tol=1e-5)


def binary_cases():
    a, b = rnd(2, 3, 4), rnd(3, 1)
    case("add", "aten::add.out", 1e-6, *ins("add", a, b), "d:2",
         out("add", torch.add(a, b, alpha=2)), "=3")
    case("sub", "aten::sub.out", 1e-6, *ins("sub", a, b), "i:1",
         out("sub", a - b), "=3")
    case("mul", "aten::mul.out", 1e-6, *ins("mul", a, b), out("mul", a * b), "=2")
    case("div", "aten::div.out", 1e-6, *ins("div", a, b), out("div", a / b), "=2")
    p = torch.rand(2, 5) + 0.5
    case("pow_scalar", "aten::pow.Tensor_Scalar_out", 1e-5, *ins("pow_scalar", p),
         "d:2.5", out("pow_scalar", torch.pow(p, 2.5)), "=2")
    e = rnd(5)
    case("pow_tensor", "aten::pow.Tensor_Tensor_out", 1e-5,
         *ins("pow_tensor", p, e), out("pow_tensor", torch.pow(p, e)), "=2")
    ia, ib = torch.randint(-5, 6, (3, 4)), torch.randint(0, 4, (4,))
    case("pow_int", "aten::pow.Tensor_Tensor_out", 0, *ins("pow_int", ia, ib),
         out("pow_int", torch.pow(ia, ib)), "=2")


def reduce_pool_cases():
    x = rnd(2, 3, 4, 5)
    case("mean", "aten::mean.out", 1e-6, *ins("mean", x), "l:2,3", "b:1", "n",
         out("mean", x.mean((2, 3), keepdim=True)), "=4")
    case("sum", "aten::sum.IntList_out", 1e-5, *ins("sum", x), "l:1", "b:0", "n",
         out("sum", x.sum(1)), "=4")
    case("amax", "aten::amax.out", 0, *ins("amax", x), "l:-1", "b:0",
         out("amax", x.amax(-1)), "=3")
    x = rnd(1, 2, 7, 7)
    y, idx = torch.ops.aten.max_pool2d_with_indices(x, [3, 3], [2, 2], [1, 1])
    case("max_pool", "aten::max_pool2d_with_indices.out", 0, *ins("max_pool", x),
         "l:3,3", "l:2,2", "l:1,1", "l:1,1", "b:0", out("max_pool", y),
         out("max_pool", idx, 1), "=6", "=7")
    y = F.avg_pool2d(x, 3, 2, 1, count_include_pad=False)
    case("avg_pool", "aten::avg_pool2d.out", 1e-6, *ins("avg_pool", x), "l:3,3",
         "l:2,2", "l:1,1", "b:0", "b:0", "n", out("avg_pool", y), "=7")
    y = F.adaptive_avg_pool2d(x, (3, 2))
    case("adaptive_pool", "aten::adaptive_avg_pool2d.out", 1e-6,
         *ins("adaptive_pool", x), "l:3,2", out("adaptive_pool", y), "=2")


def shape_cases():
    a, b = rnd(2, 3), rnd(2, 2)
    case("cat", "aten::cat.out", 0, "tl:" + save("cat_in0", a) + "," +
         save("cat_in1", b), "i:1", out("cat", torch.cat([a, b], 1)), "=2")
    x = rnd(2, 7, 3)
    parts = torch.split(x, [2, 4, 1], 1)
    names = [save("split_out%d" % k, p) for k, p in enumerate(parts)]
    case("split", "aten::split_with_sizes_copy.out", 0, *ins("split", x), "l:2,4,1",
         "i:1", "ol:" + ",".join(names))
    parts = torch.split(x, 3, 1)
    names = [save("split_eq_out%d" % k, p) for k, p in enumerate(parts)]
    case("split_eq", "aten::split_copy.Tensor_out", 0, *ins("split_eq", x), "i:3",
         "i:1", "ol:" + ",".join(names))
    case("slice", "aten::slice_copy.Tensor_out", 0, *ins("slice", x), "i:1", "i:1",
         "i:6", "i:2", out("slice", x[:, 1:6:2]), "=5")
    case("select", "aten::select_copy.int_out", 0, *ins("select", x), "i:1", "i:-2",
         out("select", x[:, -2]), "=3")
    s = rnd(2, 1, 3, 1)
    case("squeeze", "aten::squeeze_copy.dims_out", 0, *ins("squeeze", s), "l:1,3",
         out("squeeze", s.squeeze(3).squeeze(1)), "=2")
    case("unsqueeze", "aten::unsqueeze_copy.out", 0, *ins("unsqueeze", a), "i:-1",
         out("unsqueeze", a.unsqueeze(-1)), "=2")
    e = rnd(3, 1)
    case("expand", "aten::expand_copy.out", 0, *ins("expand", e), "l:2,3,4", "b:0",
         out("expand", e.expand(2, 3, 4)), "=3")
    case("permute", "aten::permute_copy.out", 0, *ins("permute", x), "l:2,0,1",
         out("permute", x.permute(2, 0, 1)), "=2")
    case("view", "aten::view_copy.out", 0, *ins("view", x), "l:7,-1",
         out("view", x.reshape(7, -1)), "=2")
    case("clone", "aten::clone.out", 0, *ins("clone", x), "n", out("clone", x.clone()),
         "=2")
    case("to_copy", "aten::_to_copy.out", 0, *ins("to_copy", x * 10), "b:0", "n",
         out("to_copy", (x * 10).to(torch.int32)), "=3")


def index_cases():
    w, i = rnd(10, 4), torch.tensor([[1, 9, 0], [3, 3, 7]])
    case("embedding", "aten::embedding.out", 0, *ins("embedding", w, i), "i:-1",
         "b:0", "b:0", out("embedding", F.embedding(i, w)), "=5")
    x = rnd(4, 5, 6)
    i0, i2 = torch.tensor([[0, 3], [-1, 2]]), torch.tensor([5, 0])
    y = x[i0, :, i2]
    case("index", "aten::index.Tensor_out", 0, *ins("index", x),
         "otl:" + save("index_in1", i0) + ",-," + save("index_in2", i2),
         out("index", y), "=2")
    y = x[:, i0]
    case("index_mid", "aten::index.Tensor_out", 0, *ins("index_mid", x),
         "otl:-," + save("index_mid_in1", i0), out("index_mid", y), "=2")
    g = torch.randint(0, 5, (4, 3, 6))
    case("gather", "aten::gather.out", 0, *ins("gather", x, g)[:1], "i:1",
         *ins("gather", x, g)[1:], "b:0", out("gather", torch.gather(x, 1, g)), "=4")
    c, a, b = torch.rand(3, 1) > 0.5, rnd(3, 4), rnd(4)
    case("where", "aten::where.self_out", 0, *ins("where", c, a, b),
         out("where", torch.where(c, a, b)), "=3")


def attention_quant_cases():
    q, k, v = rnd(2, 2, 5, 8), rnd(2, 2, 6, 8), rnd(2, 2, 6, 4)
    mask = torch.rand(5, 6) > 0.3
    mask[:, 0] = True
    s = (q @ k.transpose(-1, -2)) / (8 ** 0.5)
    s = s.masked_fill(~mask, float("-inf"))
    y = torch.softmax(s, -1) @ v
    case("sdpa", "aten::scaled_dot_product_attention.out", 1e-5,
         *ins("sdpa", q, k, v, mask), "d:0", "b:0", "n", out("sdpa", y), "=7")
    s = (q @ k.transpose(-1, -2)) * 0.25
    causal = torch.ones(5, 6, dtype=torch.bool).tril()
    y = torch.softmax(s.masked_fill(~causal, float("-inf")), -1) @ v
    case("sdpa_causal", "aten::scaled_dot_product_attention.out", 1e-5,
         *ins("sdpa_causal", q, k, v), "n", "d:0", "b:1", "d:0.25",
         out("sdpa_causal", y), "=7")
    x = rnd(4, 6) * 3
    x[0, :4] = torch.tensor([0.25, 0.75, -0.25, 1.25])  # ties round half-even
    scale, zp = 0.5, 3
    qx = torch.clamp(torch.round(x * (1.0 / scale)) + zp, -128, 127).to(torch.int8)
    case("quantize", "quantized_decomposed::quantize_per_tensor.out", 0,
         *ins("quantize", x), "d:0.5", "i:3", "i:-128", "i:127", "i:1",
         out("quantize", qx), "=6")
    dq = (qx.to(torch.float32) - zp) * scale
    case("dequantize", "quantized_decomposed::dequantize_per_tensor.out", 0,
         *ins("dequantize", qx), "d:0.5", "i:3", "i:-128", "i:127", "i:1",
         out("dequantize", dq), "=6")


def main():
    for f in os.listdir(HERE):
        if f.endswith(".npy"):
            os.remove(os.path.join(HERE, f))
    conv_cases()
    matmul_cases()
    norm_cases()
    activation_cases()
    binary_cases()
    reduce_pool_cases()
    shape_cases()
    index_cases()
    attention_quant_cases()
    with open(os.path.join(HERE, "cases.txt"), "w") as f:
        f.write("\n".join(CASES) + "\n")


if __name__ == "__main__":
    main()
