#!/usr/bin/python3
"""Writes the KWS-shaped cortex_m:: graph of the interpreter tests.

`/usr/bin/python3 tests/interp/reference/make_kws_graph.py` (numpy only):
the sixteen instructions of examples/kws_model as an edge graph of
cortex_m:: nodes in kws.graph (the format of make_graphs.py), with the
weights, the input and every node's expected output computed by
examples/kws_model/make_expected.py (CMSIS-NN's integer formulas).
Activations are saved in logical NCHW order.  One token beyond
make_graphs.py's: `st:N`, a ScalarType in torch.export's serde numbering
(2 = int8).
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "examples", "kws_model"))
import make_expected as kws  # noqa: E402

CONV_TAIL = "activation_min=i:-128 activation_max=i:127"


def main():
    lines = []
    layers = []
    x = kws.make_input()
    kws.run(x, layers)
    np.save(os.path.join(HERE, "kws_input.npy"), x)
    lines.append("input x kws_input")
    prev, handle, count = "x", 0, {}

    def weight(key, a):
        ph = "p_" + key.replace(".", "_")
        np.save(os.path.join(HERE, "kws_w_%s.npy" % key), np.ascontiguousarray(a))
        lines.append("weight %s %s kws_w_%s" % (ph, key, key))
        return ph

    for kind, p, out in layers:
        count[kind] = count.get(kind, 0) + 1
        tag = "%s%d" % (kind, count[kind])
        if "w" in p:
            w, b = weight(tag + ".weight", p["w"]), weight(tag + ".bias", p["b"])
        if "m" in p:
            m, s = (weight(tag + ".mult", p["m"].astype(np.int32)),
                    weight(tag + ".shift", p["s"].astype(np.int32)))
        if kind == "quantize":
            op, args = "quantize_per_tensor", (
                "input=t:x scale=d:2.822781801224 zero_point=i:68 quant_min=i:-128 "
                "quant_max=i:127 dtype=st:2")
        elif kind in ("dw1", "dw"):
            first = kind == "dw1"
            op, args = "quantized_depthwise_conv2d", (
                "input=t:%s weight=t:%s bias=t:%s stride=l:%s padding=l:%s "
                "dilation=l:1,1 depth_multiplier=i:%d input_offset=i:%d "
                "output_offset=i:-128 requantize_multipliers=t:%s "
                "requantize_shifts=t:%s %s" % (
                    prev, w, b, "2,2" if first else "1,1", "5,1" if first else "1,1",
                    64 if first else 1, -68 if first else 128, m, s, CONV_TAIL))
        elif kind == "pw":
            op, args = "quantized_conv2d", (
                "input=t:%s weight=t:%s bias=t:%s stride=l:1,1 padding=l:0,0 "
                "dilation=l:1,1 input_offset=i:128 output_offset=i:-128 "
                "requantize_multipliers=t:%s requantize_shifts=t:%s %s" % (
                    prev, w, b, m, s, CONV_TAIL))
        elif kind == "clone":
            op, args = None, "self=t:%s non_blocking=b:0 dim_order=l:0,2,3,1" % prev
        elif kind == "pad":
            op, args = "pad", "input=t:%s pre_pad=l:0,0,0,0 post_pad=l:0,0,0,0 " \
                              "pad_value=i:-128" % prev
        elif kind == "avg":
            op, args = "quantized_avg_pool2d", (
                "input=t:%s kernel_size=l:24,5 stride=l:24,5 padding=l:0,0 "
                "ceil_mode=b:0 zero_point=i:-128 multiplier=i:2077939072 "
                "shift=i:-4" % prev)
        elif kind == "view":
            op, args = None, "self=t:%s size=l:1,64" % prev
        elif kind == "linear":
            op, args = "quantized_linear", (
                "input=t:%s weights=t:%s bias=t:%s kernel_sum=n input_offset=i:128 "
                "filter_offset=i:0 output_offset=i:23 requantize_multipliers=l:%d "
                "requantize_shifts=l:-10 activation_max=i:127 activation_min=i:-128"
                % (prev, w, b, p["mult"]))
        else:
            op, args = "dequantize_per_tensor", (
                "input=t:%s scale=d:0.154293164611 zero_point=i:23 quant_min=i:-128 "
                "quant_max=i:127 dtype=st:2" % prev)
        target = ("cortex_m.%s.default" % op if op else
                  "dim_order_ops._clone_dim_order.default" if kind == "clone"
                  else "aten.view_copy.default")
        handle += 1
        name = "%s_%d" % (target.replace(".", "_"), handle)
        np.save(os.path.join(HERE, "kws_%s.npy" % name), np.ascontiguousarray(out))
        lines.append("node %s %s %d %s %s" % (name, target, handle, name, args))
        prev = name
    lines.append("output %s" % prev)
    with open(os.path.join(HERE, "kws.graph"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
