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
