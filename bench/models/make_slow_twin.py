#!/usr/bin/env python3
"""Makes a slow twin of an ONNX model for the replication benchmark.

The twin computes exactly the same outputs: it adds a chain of N MatMuls on
the flattened first input whose result is multiplied by zero and added to
the first output.  The chain depends on the input, so ONNX Runtime cannot
fold it away at session creation; N sets how much slower the twin is.

usage: make_slow_twin.py IN.onnx OUT.onnx N [WIDTH]
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    width = int(sys.argv[4]) if len(sys.argv) > 4 else 64
    m = onnx.load(src)
    g = m.graph
    x = g.input[0].name
    out = g.output[0].name
    rng = np.random.default_rng(7)
    # Rename the original output so that the new one can take its name.
    inner = out + "_before_twin"
    for node in g.node:
        node.output[:] = [inner if o == out else o for o in node.output]
    nodes = [helper.make_node("Flatten", [x], ["twin_flat"], axis=1)]
    feat = 1
    for d in g.input[0].type.tensor_type.shape.dim[1:]:
        feat *= d.dim_value
    inits = [numpy_helper.from_array(
        (rng.standard_normal((feat, width)) / np.sqrt(feat)).astype(np.float32), "twin_w0")]
    cur = "twin_flat"
    nodes.append(helper.make_node("MatMul", [cur, "twin_w0"], ["twin_h0"]))
    cur = "twin_h0"
    for i in range(1, n):
        w = (rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32)
        inits.append(numpy_helper.from_array(w, f"twin_w{i}"))
        nodes.append(helper.make_node("MatMul", [cur, f"twin_w{i}"], [f"twin_h{i}"]))
        nodes.append(helper.make_node("Tanh", [f"twin_h{i}"], [f"twin_t{i}"]))
        cur = f"twin_t{i}"
    inits.append(numpy_helper.from_array(np.zeros((1,), np.float32), "twin_zero"))
    nodes += [
        helper.make_node("ReduceSum", [cur], ["twin_sum"], keepdims=1),
        helper.make_node("Mul", ["twin_sum", "twin_zero"], ["twin_nil"]),
        helper.make_node("Add", [inner, "twin_nil"], [out]),
    ]
    g.node.extend(nodes)
    g.initializer.extend(inits)
    onnx.checker.check_model(m)
    onnx.save(m, dst)


if __name__ == "__main__":
    main()
