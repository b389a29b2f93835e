"""Models for test_python_models.py, importable by name (so that the
standard pickle can record them by reference): a numpy MLP as a callable
object, built from a fixed seed."""
import numpy as np


class Mlp:
    """y = relu(x @ w1) @ w2 on [batch, 64] float32 inputs."""

    def __init__(self, seed=0, scale=1.0):
        rng = np.random.default_rng(seed)
        self.w1 = (rng.standard_normal((64, 32)) / 8).astype(np.float32)
        self.w2 = (rng.standard_normal((32, 10)) * scale / 6).astype(np.float32)

    def __call__(self, x):
        return np.maximum(x @ self.w1, 0) @ self.w2


def two_inputs(a, b):
    return a * b + a


def write_onnx(path, seed=0):
    """The same Mlp as an ONNX graph (MatMul, Relu, MatMul), input x
    [N, 64] -> output y [N, 10]."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    m = Mlp(seed)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w1"], ["h"]),
         helper.make_node("Relu", ["h"], ["r"]),
         helper.make_node("MatMul", ["r", "w2"], ["y"])],
        "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 10])],
        [numpy_helper.from_array(m.w1, "w1"), numpy_helper.from_array(m.w2, "w2")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    onnx.save(model, str(path))
    return str(path)
