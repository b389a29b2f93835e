"""The `mbench` console script (python -m mbench is the same code): it runs
the mbench binary that belongs with the package, passing arguments, output
and exit code through, and says what to do when there is none."""
import os
import subprocess
import sys

import mbench
from mbench import _cli


def run_module(*args, **kw):
    env = dict(os.environ,
               PYTHONPATH=os.path.dirname(os.path.dirname(mbench.__file__)))
    env.pop("MBENCH", None)
    env.update(kw.pop("env", {}))
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
    assert err.count("\n") == 1 and "make wheel" in err
