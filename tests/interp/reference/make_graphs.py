#!/usr/bin/python3
"""Writes the whole-graph references of the interpreter tests.

How the files were made: `/usr/bin/python3 tests/interp/reference/make_graphs.py`
with Debian's python3-torch 1.13 (CPU) and numpy, fixed seed.  Each model
below is written op by op with PyTorch's own functions (torch.ops.aten.*
where 1.13 has the op; the documented decomposition otherwise); every op
is recorded as one node of an edge-dialect graph in `<model>.graph` (the
text the C test turns into an ETRecord with etkit's writer) and its
PyTorch output is saved as `<model>_<node>.npy`, with the weights
(`<model>_w_<key>.npy`) and the input (`<model>_input.npy`).

Graph file lines (space separated):
    input NAME FILE                       the user input
    weight PLACEHOLDER KEY FILE           a parameter (state-dict KEY)
    node NAME OP HANDLE OUTS ARG...       OUTS = out names joined by ','
                                          (a list output when more than one)
                                          ARG = argname=token, tokens as in
                                          tests/kernels/reference (t: tensor,
                                          i: d: b: s: n l: tl: otl:)
    output NAME
Torch is needed only to regenerate these files.
"""
import os

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
aten = torch.ops.aten


class Graph:
    def __init__(self, model):
        self.model = model
        self.lines = []
        self.names = {}
        self.count = {}
        self.handle = 0

    def save(self, name, t):
        np.save(os.path.join(HERE, f"{self.model}_{name}.npy"),
                np.ascontiguousarray(t.detach().numpy()))

    def input(self, t):
        self.names[id(t)] = "x"
        self.save("input", t)
        self.lines.append(f"input x {self.model}_input")
        return t

    def weight(self, key, t):
        ph = "p_" + key.replace(".", "_")
        self.names[id(t)] = ph
        self.save("w_" + key, t)
        self.lines.append(f"weight {ph} {key} {self.model}_w_{key}")
        return t

    def token(self, v):
        if isinstance(v, torch.Tensor):
            return "t:" + self.names[id(v)]
        if v is None:
            return "n"
        if isinstance(v, bool):
            return "b:%d" % v
        if isinstance(v, int):
            return "i:%d" % v
        if isinstance(v, float):
            return "d:%r" % v
        if isinstance(v, str):
            return "s:" + v
        if isinstance(v, (list, tuple)) and v and isinstance(v[0], torch.Tensor):
            return "tl:" + ",".join(self.names[id(x)] for x in v)
        if isinstance(v, (list, tuple)):
            return "l:" + ",".join(str(int(x)) for x in v)
        raise TypeError(v)

    def op(gr, op, fn, **args):  # noqa: N805 - "self" is an argument name
        """Runs fn(**args) and records node `op` with the named args."""
        out = fn(*args.values())
        short = op.split(".")[1]
        k = gr.count.get(short, 0)
        gr.count[short] = k + 1
        name = f"aten_{short}_{op.split('.')[2]}" + (f"_{k}" if k else "")
        gr.handle += 1
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        out_names = [name] if len(outs) == 1 else [f"{name}_o{i}" for i in range(len(outs))]
        for o, n in zip(outs, out_names):
            gr.names[id(o)] = n
            gr.save(n, o)
        toks = " ".join(f"{a}={gr.token(v)}" for a, v in args.items())
        gr.lines.append(f"node {name} {op} {gr.handle} {','.join(out_names)} {toks}")
        return out

    def finish(self, out):
        self.lines.append(f"output {self.names[id(out)]}")
        with open(os.path.join(HERE, f"{self.model}.graph"), "w") as f:
            f.write("\n".join(self.lines) + "\n")


def convnet():
    g = Graph("convnet")
    x = g.input(torch.randn(1, 3, 12, 12))
    w1 = g.weight("conv1.weight", torch.randn(8, 3, 3, 3) * 0.3)
    b1 = g.weight("conv1.bias", torch.randn(8) * 0.1)
    bn_w = g.weight("bn.weight", torch.rand(8) + 0.5)
    bn_b = g.weight("bn.bias", torch.randn(8) * 0.1)
    bn_m = g.weight("bn.running_mean", torch.randn(8) * 0.1)
    bn_v = g.weight("bn.running_var", torch.rand(8) + 0.5)
    w2 = g.weight("conv2.weight", torch.randn(8, 1, 3, 3) * 0.3)
    w3 = g.weight("conv3.weight", torch.randn(16, 8, 1, 1) * 0.3)
    gn_w = g.weight("gn.weight", torch.rand(16) + 0.5)
    gn_b = g.weight("gn.bias", torch.randn(16) * 0.1)
    fc_w = g.weight("fc.weight", torch.randn(10, 16) * 0.3)
    fc_b = g.weight("fc.bias", torch.randn(10) * 0.1)
    y = g.op("aten.convolution.default", aten.convolution, input=x, weight=w1, bias=b1,
             stride=[1, 1], padding=[1, 1], dilation=[1, 1], transposed=False,
             output_padding=[0, 0], groups=1)
    y = g.op("aten._native_batch_norm_legit_no_training.default",
             lambda *a: (F.batch_norm(a[0], a[3], a[4], a[1], a[2], False, a[5], a[6]),
                         torch.zeros(0), torch.zeros(0)),
             input=y, weight=bn_w, bias=bn_b, running_mean=bn_m, running_var=bn_v,
             momentum=0.1, eps=1e-5)[0]
    y = g.op("aten.relu.default", aten.relu, self=y)
    y = g.op("aten.max_pool2d_with_indices.default", aten.max_pool2d_with_indices,
             self=y, kernel_size=[2, 2], stride=[2, 2])[0]
    r = y
    y = g.op("aten.convolution.default", aten.convolution, input=y, weight=w2, bias=None,
             stride=[1, 1], padding=[1, 1], dilation=[1, 1], transposed=False,
             output_padding=[0, 0], groups=8)
    y = g.op("aten.hardswish.default", aten.hardswish, self=y)
    y = g.op("aten.add.Tensor", aten.add, self=y, other=r)
    y = g.op("aten.convolution.default", aten.convolution, input=y, weight=w3, bias=None,
             stride=[1, 1], padding=[0, 0], dilation=[1, 1], transposed=False,
             output_padding=[0, 0], groups=1)
    y = g.op("aten.native_group_norm.default", aten.native_group_norm, input=y,
             weight=gn_w, bias=gn_b, N=1, C=16, HxW=36, group=4, eps=1e-5)[0]
    y = g.op("aten.silu.default", aten.silu, self=y)
    y = g.op("aten.avg_pool2d.default", aten.avg_pool2d, self=y, kernel_size=[3, 3],
             stride=[1, 1], padding=[1, 1], ceil_mode=False, count_include_pad=False)
    y = g.op("aten.mean.dim", aten.mean.dim, self=y, dim=[2, 3], keepdim=False)
    t = g.op("aten.t_copy.default", aten.t, self=fc_w)
    y = g.op("aten.addmm.default", aten.addmm, self=fc_b, mat1=y, mat2=t)
    y = g.op("aten._softmax.default", aten._softmax, self=y, dim=1, half_to_float=False)
    g.finish(y)


def transformer():
    g = Graph("transformer")
    d, h, s = 32, 4, 8
    x = g.input(torch.randn(1, s, d))
    ln1_w = g.weight("ln1.weight", torch.rand(d) + 0.5)
    ln1_b = g.weight("ln1.bias", torch.randn(d) * 0.1)
    wq = g.weight("attn.q.weight", torch.randn(d, d) * 0.2)
    wk = g.weight("attn.k.weight", torch.randn(d, d) * 0.2)
    wv = g.weight("attn.v.weight", torch.randn(d, d) * 0.2)
    wo = g.weight("attn.o.weight", torch.randn(d, d) * 0.2)
    bo = g.weight("attn.o.bias", torch.randn(d) * 0.1)
    ln2_w = g.weight("ln2.weight", torch.rand(d) + 0.5)
    ln2_b = g.weight("ln2.bias", torch.randn(d) * 0.1)
    w1 = g.weight("mlp.fc1.weight", torch.randn(4 * d, d) * 0.2)
    b1 = g.weight("mlp.fc1.bias", torch.randn(4 * d) * 0.1)
    w2 = g.weight("mlp.fc2.weight", torch.randn(d, 4 * d) * 0.1)
    b2 = g.weight("mlp.fc2.bias", torch.randn(d) * 0.1)
    n = g.op("aten.native_layer_norm.default", aten.native_layer_norm, input=x,
             normalized_shape=[d], weight=ln1_w, bias=ln1_b, eps=1e-5)[0]

    def heads(t):
        t = g.op("aten.view_copy.default", aten.reshape, self=t, size=[1, s, h, d // h])
        return g.op("aten.permute_copy.default", aten.permute, self=t, dims=[0, 2, 1, 3])

    q = heads(g.op("aten.linear.default", aten.linear, input=n, weight=wq))
    k = heads(g.op("aten.linear.default", aten.linear, input=n, weight=wk))
    v = heads(g.op("aten.linear.default", aten.linear, input=n, weight=wv))
    # the decomposition export makes of attention: q*scale @ k^T, softmax, @ v
    kt = g.op("aten.transpose_copy.int", aten.transpose, self=k, dim0=-1, dim1=-2)
    qs = g.op("aten.mul.Scalar", aten.mul, self=q, other=float((d // h) ** -0.5))
    q3 = g.op("aten.view_copy.default", aten.reshape, self=qs, size=[h, s, d // h])
    k3 = g.op("aten.view_copy.default", aten.reshape, self=kt, size=[h, d // h, s])
    sc = g.op("aten.bmm.default", aten.bmm, self=q3, mat2=k3)
    p = g.op("aten._softmax.default", aten._softmax, self=sc, dim=-1, half_to_float=False)
    v3 = g.op("aten.view_copy.default", aten.reshape, self=v, size=[h, s, d // h])
    a = g.op("aten.bmm.default", aten.bmm, self=p, mat2=v3)
    a = g.op("aten.view_copy.default", aten.reshape, self=a, size=[1, h, s, d // h])
    # and the fused op, on the same inputs
    a2 = g.op("aten.scaled_dot_product_attention.default",
              lambda q_, k_, v_: torch.softmax(q_ @ k_.transpose(-1, -2) / (d // h) ** 0.5,
                                               -1) @ v_, query=q, key=k, value=v)
    a = g.op("aten.add.Tensor", aten.add, self=a, other=a2)
    a = g.op("aten.mul.Scalar", aten.mul, self=a, other=0.5)
    a = g.op("aten.permute_copy.default", aten.permute, self=a, dims=[0, 2, 1, 3])
    a = g.op("aten.view_copy.default", aten.reshape, self=a, size=[1, s, d])
    a = g.op("aten.linear.default", aten.linear, input=a, weight=wo, bias=bo)
    x1 = g.op("aten.add.Tensor", aten.add, self=x, other=a)
    n2 = g.op("aten.native_layer_norm.default", aten.native_layer_norm, input=x1,
              normalized_shape=[d], weight=ln2_w, bias=ln2_b, eps=1e-5)[0]
    m = g.op("aten.linear.default", aten.linear, input=n2, weight=w1, bias=b1)
    m = g.op("aten.gelu.default", lambda t, ap: F.gelu(t, approximate=ap), self=m,
             approximate="tanh")
    m = g.op("aten.linear.default", aten.linear, input=m, weight=w2, bias=b2)
    y = g.op("aten.add.Tensor", aten.add, self=x1, other=m)
    g.finish(y)


def main():
    for f in os.listdir(HERE):
        if f.endswith(".npy") or f.endswith(".graph"):
            os.remove(os.path.join(HERE, f))
    torch.manual_seed(24)
    convnet()
    transformer()


if __name__ == "__main__":
    main()
