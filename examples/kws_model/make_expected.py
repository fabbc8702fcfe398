#!/usr/bin/python3
"""Computes the expected outputs of the KWS-shaped example program.

`/usr/bin/python3 examples/kws_model/make_expected.py` (numpy only) rebuilds
the program's weights, input and requantization parameters from the same
fixed linear congruential sequences kws_model.c uses, runs the sixteen
instructions with the reference formulas of
tests/kernels/reference/make_cortex_m.py (CMSIS-NN's integer arithmetic),
and writes next to itself:
    input.npy            the program's input, float32 [1, 1, 49, 10]
    expected_logits.npy  the linear layer's int8 output [1, 12]
    expected_output.npy  the program's output, float32 [1, 12]
The C side never reads these files; the tests compare a run of the built
program with them, so the numpy reference and the kernels check each
other.
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "kernels", "reference"))
import make_cortex_m as ref  # noqa: E402

IN_SCALE, IN_ZP = 2.822781801224, 68
OUT_SCALE, OUT_ZP = 0.154293164611, 23
CH = 64
BLOCKS = 4


class Lcg:
    """state = state * 1664525 + 1013904223 (mod 2^32), as kws_model.c."""

    def __init__(self, seed):
        self.state = seed

    def next(self):
        self.state = (self.state * 1664525 + 1013904223) & 0xFFFFFFFF
        return self.state

    def int8s(self, n):
        return np.array([(self.next() >> 24) - 128 for _ in range(n)], np.int8)

    def biases(self, n, span):
        return np.array([(self.next() >> 16) % (2 * span + 1) - span
                         for _ in range(n)], np.int32)

    def mults(self, n):
        return np.array([(1 << 30) + (self.next() >> 2) for _ in range(n)],
                        np.int64).astype(np.int32)


def make_input():
    g = Lcg(2024)
    v = np.array([g.next() >> 8 for _ in range(490)], np.float32)
    x = (v / np.float32(16777216.0) - np.float32(0.5)) * np.float32(200.0)
    return x.astype(np.float32).reshape(1, 1, 49, 10)


def run(x, layers=None):
    """The program on x; `layers`, when a list, receives (kind, params,
    output) per instruction for the interpreter's reference graph."""
    g = Lcg(29)
    note = layers.append if layers is not None else (lambda item: None)
    inv = np.float32(1.0) / np.float32(IN_SCALE)
    q = np.clip(np.rint(x * inv) + IN_ZP, -128, 127).astype(np.int8)
    note(("quantize", {}, q))
    # depthwise 10x4, stride 2, padding (5, 1), depth multiplier 64
    w = g.int8s(10 * 4 * CH).reshape(1, 10, 4, CH)
    b = g.biases(CH, 200)
    m, s = g.mults(CH), np.full(CH, -6, np.int32)
    acc = ref.depthwise(q, w, b, (2, 2), (5, 1), (1, 1), -IN_ZP, CH)
    h = ref.per_channel(acc, m, s, -128, -128, 127)
    note(("dw1", dict(w=w, b=b, m=m, s=s), h))
    note(("clone", {}, h))
    for _ in range(BLOCKS):
        w = g.int8s(3 * 3 * CH).reshape(1, 3, 3, CH)
        b = g.biases(CH, 200)
        m, s = g.mults(CH), np.full(CH, -6, np.int32)
        acc = ref.depthwise(h, w, b, (1, 1), (1, 1), (1, 1), 128, 1)
        h = ref.per_channel(acc, m, s, -128, -128, 127)
        note(("dw", dict(w=w, b=b, m=m, s=s), h))
        w = g.int8s(CH * CH).reshape(CH, 1, 1, CH)
        b = g.biases(CH, 200)
        m, s = g.mults(CH), np.full(CH, -8, np.int32)
        acc = ref.conv(h, w, b, (1, 1), (0, 0), (1, 1), 128)
        h = ref.per_channel(acc, m, s, -128, -128, 127)
        note(("pw", dict(w=w, b=b, m=m, s=s), h))
    note(("clone", {}, h))
    note(("pad", {}, h))
    p = ref.pool(h, (24, 5), (24, 5), (0, 0), False, False)
    note(("avg", {}, p))
    note(("view", {}, p.reshape(1, CH)))
    w = g.int8s(12 * CH).reshape(12, CH)
    b = g.biases(12, 5000)
    mult = int(g.mults(12)[0])  # kws_model.c draws one per output
    logits = ref.linear(p.reshape(1, CH), w, b, None, 128, 0, OUT_ZP, mult, -10,
                        127, -128)
    note(("linear", dict(w=w, b=b, mult=mult), logits))
    out = ((logits.astype(np.int32) - OUT_ZP).astype(np.float32) *
           np.float32(OUT_SCALE))
    note(("dequantize", {}, out))
    return logits, out


def main():
    x = make_input()
    logits, out = run(x)
    np.save(os.path.join(HERE, "input.npy"), x)
    np.save(os.path.join(HERE, "expected_logits.npy"), logits)
    np.save(os.path.join(HERE, "expected_output.npy"), out.astype(np.float32))
    print("logits", logits.ravel().tolist())


if __name__ == "__main__":
    main()
