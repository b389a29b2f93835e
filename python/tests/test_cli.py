"""The `mbench` console script (python -m mbench is the same code): it runs
the mbench binary that belongs with the package, passing arguments, output
and exit code through, and says what to do when there is none."""
import os
import subprocess
import sys

import pytest

import mbench
from mbench import _cli


def run_module(*args, **kw):
    env = dict(kw.pop("env", os.environ),
               PYTHONPATH=os.path.dirname(os.path.dirname(mbench.__file__)))
    env.pop("MBENCH", None)
    return subprocess.run([sys.executable, "-m", "mbench", *args], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, **kw)


def test_it_runs_the_binary_of_this_package():
    exe = _cli.bundled_cli()
    assert exe is not None
    want = subprocess.run([exe, "--version"], stdout=subprocess.PIPE, text=True).stdout
    p = run_module("--version")
    assert p.returncode == 0 and p.stdout == want and want.startswith("mbench ")


def test_the_exit_code_and_the_error_are_the_binarys(tmp_path):
    p = run_module("run", str(tmp_path / "none.onnx"), "--processes", "1")
    assert p.returncode == 3, (p.returncode, p.stderr)
    assert "none.onnx" in p.stderr


def test_without_a_binary_it_says_how_to_get_one(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(_cli, "_HERE", str(tmp_path / "a" / "b"))
    assert _cli.bundled_cli() is None
    assert _cli.main(["--version"]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install --force-reinstall" in err


def test_python_models_run_in_the_venv_of_the_package(tmp_path):
    """The console script names its own venv in MBENCH_PYTHON (the python
    backend's choice of interpreter), unless the caller set it."""
    import json
    script = tmp_path / "show.py"
    script.write_text("import os, json, sys\n"
                      "json.dump(os.environ.get('MBENCH_PYTHON'), open(sys.argv[1], 'w'))\n")
    out = tmp_path / "seen.json"
    env = {k: v for k, v in os.environ.items() if k != "MBENCH_PYTHON"}
    p = run_module("exec", "-r", "1", "-q", "--", sys.executable, str(script), str(out), env=env)
    assert p.returncode == 0, p.stderr
    in_venv = sys.prefix != sys.base_prefix
    assert json.loads(out.read_text()) == (sys.prefix if in_venv else None)
    p = run_module("exec", "-r", "1", "-q", "--", sys.executable, str(script), str(out),
                   env=dict(env, MBENCH_PYTHON=""))
    assert p.returncode == 0 and json.loads(out.read_text()) == ""


def test_a_missing_framework_names_pip_for_a_wheel_and_make_for_the_tree(monkeypatch):
    """A wheel user is told the pip command (the extra), a source-tree user
    the make target."""
    from mbench.frameworks import _errors
    exc = ModuleNotFoundError("No module named 'torch'", name="torch")
    monkeypatch.setattr(_errors, "from_wheel", lambda: True)
    line = _errors.error_line(exc)
    assert "pip install 'mbench[torch]'" in line and "make" not in line
    exc = ModuleNotFoundError("No module named 'numpy'", name="numpy")
    assert "pip install numpy" in _errors.error_line(exc)
    monkeypatch.setattr(_errors, "from_wheel", lambda: False)
    exc = ModuleNotFoundError("No module named 'flax'", name="flax")
    assert "`make frameworks`" in _errors.error_line(exc)


def test_a_missing_numpy_is_not_reported_as_a_missing_mbench_module(monkeypatch):
    import builtins
    from mbench.frameworks import _spec, SpecError
    real = builtins.__import__

    def no_numpy(name, *a, **k):
        if name == "numpy" or name.startswith("numpy."):
            raise ModuleNotFoundError("No module named 'numpy'", name="numpy")
        return real(name, *a, **k)
    for m in [m for m in sys.modules if m.startswith("mbench.models")]:
        monkeypatch.delitem(sys.modules, m)
    monkeypatch.setattr(builtins, "__import__", no_numpy)
    with pytest.raises(ModuleNotFoundError) as e:
        _spec.resolve("flax:resnet50", {})
    assert e.value.name == "numpy" and not isinstance(e.value, SpecError)
