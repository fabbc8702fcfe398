#!/usr/bin/python3
"""Interpreter benchmark (issue 20): the AOT run of a 5M-parameter convnet
and of a 2-layer transformer block at fp32 by etkit's interpreter, against
numpy doing the same ops, and calculate_numeric_gap on them.

    bench_interp.py --runner BUILD/bench/interp/bench_interp_run
                    --pythonpath BUILD/python [--repeat 5]

The script writes each model as a graph description with numpy-made
weights (no torch), times numpy on the same ops (convolution as im2col +
matmul, the way numpy users write it), asks bench_interp_run to write the
ETRecord with etkit's writer and time etk_interp_run, then times
Inspector-side calculate_numeric_gap (interpreter + pairing + MSE) against
runtime events that carry the interpreter's own outputs.  Prints one line
per figure, "<name> <value> <unit>", then the goals (interp <= 3x numpy,
calculate_numeric_gap <= 2 s).
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np


class Graph:
    """Records nodes in the tests/interp/reference/*.graph format."""

    def __init__(self, folder, model):
        self.folder, self.model = folder, model
        self.lines, self.handle, self.count = [], 0, {}

    def save(self, name, a):
        np.save(os.path.join(self.folder, f"{self.model}_{name}.npy"),
                np.ascontiguousarray(a))

    def input(self, a):
        self.save("input", a)
        self.lines.append(f"input x {self.model}_input")
        return "x"

    def weight(self, key, a):
        ph = "p_" + key.replace(".", "_")
        self.save("w_" + key, a)
        self.lines.append(f"weight {ph} {key} {self.model}_w_{key}")
        return ph

    def node(gr, op, shape, **args):  # noqa: N805 - "self" is an argument name
        short = op.split(".")[1]
        k = gr.count.get(short, 0)
        gr.count[short] = k + 1
        name = f"aten_{short}_{k}"
        gr.handle += 1
        gr.save(name, np.zeros(shape, np.float32))  # shape and dtype only
        toks = []
        for a, v in args.items():
            if isinstance(v, str):
                toks.append(f"{a}=t:{v}")
            elif isinstance(v, bool):
                toks.append(f"{a}=b:{int(v)}")
            elif isinstance(v, int):
                toks.append(f"{a}=i:{v}")
            elif isinstance(v, float):
                toks.append(f"{a}=d:{v!r}")
            else:
                toks.append(f"{a}=l:" + ",".join(str(x) for x in v))
        gr.lines.append(f"node {name} {op} {gr.handle} {name} " + " ".join(toks))
        return name

    def finish(self, out):
        self.lines.append(f"output {out}")
        with open(os.path.join(self.folder, f"{self.model}.graph"), "w") as f:
            f.write("\n".join(self.lines) + "\n")


def conv_np(x, w, b, pad):
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    cols = np.lib.stride_tricks.sliding_window_view(xp, (kh, kw), axis=(2, 3))
    # cols: n, c, h, w, kh, kw -> (h*w, c*kh*kw) @ (c*kh*kw, o)
    cols = cols.transpose(0, 2, 3, 1, 4, 5).reshape(n * h * wd, c * kh * kw)
    y = cols @ w.reshape(o, -1).T + b
    return y.reshape(n, h, wd, o).transpose(0, 3, 1, 2)


def pool_np(x):
    n, c, h, w = x.shape
    return x.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))


def convnet(folder, rng):
    g = Graph(folder, "convnet5m")
    chans = [3, 32, 64, 128, 256, 512]
    x = (rng.standard_normal((1, 3, 64, 64))).astype(np.float32)
    cur, size, params, ws = g.input(x), 64, 0, []
    for i in range(5):
        w = (rng.standard_normal((chans[i + 1], chans[i], 3, 3)) * 0.05).astype(np.float32)
        b = np.zeros(chans[i + 1], np.float32)
        params += w.size + b.size
        ws.append((w, b))
        pw, pb = g.weight(f"conv{i}.weight", w), g.weight(f"conv{i}.bias", b)
        cur = g.node("aten.convolution.default", (1, chans[i + 1], size, size), input=cur,
                     weight=pw, bias=pb, stride=[1, 1], padding=[1, 1], dilation=[1, 1],
                     transposed=False, output_padding=[0, 0], groups=1)
        cur = g.node("aten.relu.default", (1, chans[i + 1], size, size), self=cur)
        if i != 3:
            size //= 2
            cur = g.node("aten.max_pool2d.default", (1, chans[i + 1], size, size), self=cur,
                         kernel_size=[2, 2], stride=[2, 2])
    flat = 512 * size * size
    cur = g.node("aten.view_copy.default", (1, flat), self=cur, size=[1, flat])
    w1 = (rng.standard_normal((416, flat)) * 0.01).astype(np.float32)
    b1 = np.zeros(416, np.float32)
    w2 = (rng.standard_normal((10, 416)) * 0.05).astype(np.float32)
    b2 = np.zeros(10, np.float32)
    params += w1.size + b1.size + w2.size + b2.size
    cur = g.node("aten.linear.default", (1, 416), input=cur, weight=g.weight("fc1.weight", w1),
                 bias=g.weight("fc1.bias", b1))
    cur = g.node("aten.relu.default", (1, 416), self=cur)
    cur = g.node("aten.linear.default", (1, 10), input=cur, weight=g.weight("fc2.weight", w2),
                 bias=g.weight("fc2.bias", b2))
    g.finish(cur)

    def run_numpy():
        y = x
        for i, (w, b) in enumerate(ws):
            y = np.maximum(conv_np(y, w, b, 1), 0)
            if i != 3:
                y = pool_np(y)
        y = y.reshape(1, -1)
        y = np.maximum(y @ w1.T + b1, 0)
        return y @ w2.T + b2

    return "convnet5m", params, run_numpy


def layer_norm_np(x, w, b):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + 1e-5) * w + b


def transformer(folder, rng):
    g = Graph(folder, "transformer2")
    s, d, h, f = 128, 256, 8, 1024
    x = rng.standard_normal((1, s, d)).astype(np.float32)
    cur, params, layers = g.input(x), 0, []

    def weight(key, shape, scale):
        nonlocal params
        a = (rng.standard_normal(shape) * scale).astype(np.float32)
        params += a.size
        return a, g.weight(key, a)

    for layer in range(2):
        p = {}
        for name, shape, scale in [("ln1.w", (d,), 1.0), ("ln1.b", (d,), 0.1),
                                   ("q", (d, d), 0.05), ("k", (d, d), 0.05), ("v", (d, d), 0.05),
                                   ("o", (d, d), 0.05), ("ln2.w", (d,), 1.0),
                                   ("ln2.b", (d,), 0.1), ("fc1", (f, d), 0.05),
                                   ("fc2", (d, f), 0.05)]:
            p[name] = weight(f"l{layer}.{name}", shape, scale)
        layers.append(p)
        ln = g.node("aten.layer_norm.default", (1, s, d), input=cur, normalized_shape=[d],
                    weight=p["ln1.w"][1], bias=p["ln1.b"][1])
        heads = {}
        for hname in "qkv":
            t = g.node("aten.linear.default", (1, s, d), input=ln, weight=p[hname][1])
            t = g.node("aten.view_copy.default", (1, s, h, d // h), self=t,
                       size=[1, s, h, d // h])
            heads[hname] = g.node("aten.permute_copy.default", (1, h, s, d // h), self=t,
                                  dims=[0, 2, 1, 3])
        a = g.node("aten.scaled_dot_product_attention.default", (1, h, s, d // h),
                   query=heads["q"], key=heads["k"], value=heads["v"])
        a = g.node("aten.permute_copy.default", (1, s, h, d // h), self=a, dims=[0, 2, 1, 3])
        a = g.node("aten.view_copy.default", (1, s, d), self=a, size=[1, s, d])
        a = g.node("aten.linear.default", (1, s, d), input=a, weight=p["o"][1])
        cur = g.node("aten.add.Tensor", (1, s, d), self=cur, other=a)
        ln = g.node("aten.layer_norm.default", (1, s, d), input=cur, normalized_shape=[d],
                    weight=p["ln2.w"][1], bias=p["ln2.b"][1])
        m = g.node("aten.linear.default", (1, s, f), input=ln, weight=p["fc1"][1])
        m = g.node("aten.gelu.default", (1, s, f), self=m)
        m = g.node("aten.linear.default", (1, s, d), input=m, weight=p["fc2"][1])
        cur = g.node("aten.add.Tensor", (1, s, d), self=cur, other=m)
    g.finish(cur)

    def gelu(t):
        return 0.5 * t * (1 + _erf(t / np.sqrt(2.0)))

    def run_numpy():
        y = x
        for p in layers:
            ln = layer_norm_np(y, p["ln1.w"][0], p["ln1.b"][0])
            q, k, v = (
                (ln @ p[n][0].T).reshape(1, s, h, d // h).transpose(0, 2, 1, 3) for n in "qkv")
            sc = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d // h)
            sc = np.exp(sc - sc.max(-1, keepdims=True))
            a = (sc / sc.sum(-1, keepdims=True)) @ v
            a = a.transpose(0, 2, 1, 3).reshape(1, s, d) @ p["o"][0].T
            y = y + a
            ln = layer_norm_np(y, p["ln2.w"][0], p["ln2.b"][0])
            m = gelu(ln @ p["fc1"][0].T)
            y = y + m @ p["fc2"][0].T
        return y

    return "transformer2", params, run_numpy


def _erf(t):
    # numpy has no erf: Abramowitz-Stegun 7.1.26 costs what a vectorised erf
    # does (a handful of element-wise passes)
    sign = np.sign(t)
    a = np.abs(t)
    k = 1.0 / (1.0 + 0.3275911 * a)
    y = 1 - (((((1.061405429 * k - 1.453152027) * k) + 1.421413741) * k - 0.284496736) * k
             + 0.254829592) * k * np.exp(-a * a)
    return sign * y


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def gap_seconds(pythonpath, folder, model, etrecord, repeat):
    """calculate_numeric_gap (interpreter + pairing + MSE) with runtime
    events that hold the interpreter's own outputs."""
    code = f"""
import sys, time, types
sys.path.insert(0, {pythonpath!r})
import etkit
from etkit import _etkit, _numeric_gap
rec = etkit.parse_etrecord({etrecord!r})
nodes = _etkit.interp(rec._handle, None, 0, None)
events = [etkit.Event(name=n[0], debug_handles=n[2][0], debug_data=[o.copy() for o in n[5]],
                      _instruction_id=i, op_types=[n[1]]) for i, n in enumerate(nodes)]
insp = types.SimpleNamespace(_etrecord=rec, event_blocks=[types.SimpleNamespace(events=events)])
best = 1e9
for _ in range({repeat}):
    t0 = time.perf_counter()
    df = _numeric_gap.calculate_numeric_gap(insp, "MSE")
    best = min(best, time.perf_counter() - t0)
assert len(df) > 0 and all(g == [0.0] for g in df["gap"]), df
print(best, len(df))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    t, rows = out.stdout.split()
    return float(t), int(rows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runner", required=True)
    ap.add_argument("--pythonpath", required=True)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    rng = np.random.default_rng(20)
    with tempfile.TemporaryDirectory() as folder:
        ok = True
        for make in (convnet, transformer):
            model, params, run_numpy = make(folder, rng)
            t_np = best(run_numpy, args.repeat)
            etrecord = os.path.join(folder, model + ".etrecord")
            out = subprocess.run([args.runner, folder, model, etrecord, str(args.repeat)],
                                 capture_output=True, text=True)
            if out.returncode != 0:
                raise SystemExit(out.stderr)
            t_c = float(out.stdout.split()[0])
            t_gap, rows = gap_seconds(args.pythonpath, folder, model, etrecord, args.repeat)
            ratio = t_c / t_np
            print(f"{model}_params {params} count")
            print(f"{model}_numpy {t_np * 1e3:.2f} ms")
            print(f"{model}_interp {t_c * 1e3:.2f} ms")
            print(f"{model}_interp_vs_numpy {ratio:.2f} x (goal <= 3)")
            print(f"{model}_calculate_numeric_gap {t_gap * 1e3:.1f} ms ({rows} rows; goal <= 2000)")
            ok = ok and ratio <= 3 and t_gap <= 2
        print("goals " + ("met" if ok else "NOT met"))


if __name__ == "__main__":
    main()
