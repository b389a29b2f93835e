"""Shared fixtures: the models of tests/fixtures/torch/make_models.py,
generated once per session, and fast measurement options."""
import os
import subprocess
import sys

import pytest

ROOT = os.environ.get("MBENCH_ROOT") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("MBENCH_BUILD") or os.path.join(ROOT, "build")
FAST = dict(threads=1, processes=2, warmup=3, min_time=0.2, max_time=0.6,
            min_iterations=10)

try:  # installed (python.sh's venv), else the source tree
    import mbench  # noqa: F401
except ImportError:
    sys.path.insert(0, os.path.join(ROOT, "python"))

pytest_plugins = ["pytester"]


def have_torch_plugin():
    return os.path.exists(os.path.join(BUILD, "plugins", "mbench_torch.so"))


@pytest.fixture(scope="session")
def models(tmp_path_factory):
    try:
        import torch  # noqa: F401
    except ImportError:
        pytest.skip("python3-torch is not installed (scripts/deps.sh test)")
    d = tmp_path_factory.mktemp("models")
    subprocess.run([sys.executable, "-W", "ignore",
                    os.path.join(ROOT, "tests", "fixtures", "torch", "make_models.py"),
                    str(d)], check=True)
    return d


@pytest.fixture
def torch_plugin():
    if not have_torch_plugin():
        pytest.skip("the torch plugin is not built (libtorch-dev missing)")
