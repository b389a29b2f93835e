"""Shared fixtures: the models of tests/fixtures/torch/make_models.py,
generated once per session, and fast measurement options.

The mbench command and the plugins are the ones that belong with the
package under test (mbench._lib.cli(): the bundled binary of an installed
wheel, build/mbench from the source tree), never a build tree's by path:
tests/integration/python.sh runs this suite with the build tree hidden."""
import os
import subprocess
import sys

import pytest

ROOT = os.environ.get("MBENCH_ROOT") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", ".."))
FAST = dict(threads=1, processes=2, warmup=3, min_time=0.2, max_time=0.6,
            min_iterations=10)

try:  # installed (python.sh's venv), else the source tree
    import mbench  # noqa: F401
except ImportError:
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import mbench  # noqa: F401

pytest_plugins = ["pytester"]


def cli():
    """The mbench command of the package under test."""
    return mbench._lib.cli()


def have_plugin(name):
    """Whether the libmbench under test finds plugin mbench_NAME.so where
    it looks beside itself (plugins/, mbench/plugins/: docs/BACKENDS.md)."""
    d = os.path.dirname(mbench._lib.library_path())
    return any(os.path.exists(os.path.join(d, sub, f"mbench_{name}.so"))
               for sub in ("plugins", os.path.join("mbench", "plugins")))


def have_torch_plugin():
    return have_plugin("torch")


@pytest.fixture(scope="session")
def models(tmp_path_factory):
    # Looked up, not imported: with torch loaded in this process mbench
    # measures through the command instead of libmbench (mbench._sub).
    import importlib.util
    if importlib.util.find_spec("torch") is None:
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
