"""The mbench_gate fixture in an inner pytest session: a baseline is
recorded, then a planted 2x slowdown (the null backend's delay) fails the
test and the same speed passes."""
import json
import os

import pytest

import mbench

FAST = dict(backend="null", processes=4, warmup=2, min_time=0.2, max_time=0.4,
            min_iterations=20)


@pytest.fixture
def docs(tmp_path):
    fast = mbench.run("null-model", delay=200000, **FAST)
    slow = mbench.run("null-model", delay=400000, **FAST)
    (tmp_path / "fast.json").write_text(json.dumps(fast))
    (tmp_path / "slow.json").write_text(json.dumps(slow))
    return tmp_path


INNER = """
import json, os
def test_gate(mbench_gate):
    cur = json.load(open(os.environ["CUR"]))
    mbench_gate(cur, os.environ["BASE"], max_regression="p50=20%")
"""


def run_inner(pytester, monkeypatch, cur, base, *args):
    monkeypatch.setenv("CUR", str(cur))
    monkeypatch.setenv("BASE", str(base))
    # the inner session imports the same mbench as this one
    pkg_parent = os.path.dirname(os.path.dirname(mbench.__file__))
    monkeypatch.setenv("PYTHONPATH", pkg_parent + os.pathsep + os.environ.get("PYTHONPATH", ""))
    pytester.makepyfile(test_inner=INNER)
    # Installed, the plugin comes by its pytest11 entry point; from the
    # source tree it is named.
    from importlib.metadata import entry_points
    eps = entry_points()
    eps = eps.select(group="pytest11") if hasattr(eps, "select") else eps.get("pytest11", [])
    load = [] if any(e.name == "mbench" for e in eps) else ["-p", "mbench.pytest_plugin"]
    return pytester.runpytest_subprocess(*load, "-rs", *args)


def test_a_missing_baseline_is_recorded_and_the_test_skipped(pytester, monkeypatch, docs):
    base = docs / "baselines" / "b.json"
    res = run_inner(pytester, monkeypatch, docs / "fast.json", base)
    res.assert_outcomes(skipped=1)
    res.stdout.fnmatch_lines(["*baseline recorded*"])
    assert json.loads(base.read_text())["runs"][0]["status"] == "ok"


def test_a_planted_slowdown_fails_the_test(pytester, monkeypatch, docs):
    res = run_inner(pytester, monkeypatch, docs / "slow.json", docs / "fast.json")
    res.assert_outcomes(failed=1)
    res.stdout.fnmatch_lines(["*regression*p50*"])


def test_the_same_speed_passes(pytester, monkeypatch, docs):
    res = run_inner(pytester, monkeypatch, docs / "fast.json", docs / "fast.json")
    res.assert_outcomes(passed=1)


def test_update_baselines_rewrites_the_baseline(pytester, monkeypatch, docs):
    base = docs / "b2.json"
    base.write_text((docs / "fast.json").read_text())
    res = run_inner(pytester, monkeypatch, docs / "slow.json", base,
                    "--mbench-update-baselines")
    res.assert_outcomes(skipped=1)
    assert json.loads(base.read_text()) == json.loads((docs / "slow.json").read_text())


# A 5 ms service time spent asleep (the null backend's sleep=, which
# spins only its last margin): its per-process medians barely move with
# the load, so the paired CI decides 5% on a busy machine too.
INNER_COMPARE = """
import os
import mbench
FAST = dict(backend="null", processes=6, warmup=2, min_time=0.3, max_time=0.6,
            min_iterations=20)
def test_compare(mbench_gate):
    base = {"model": "null-model", "sleep": 5000000}
    cur = {"model": "null-model", "sleep": int(os.environ["DELAY"])}
    mbench_gate.compare(base, cur, max_regression="p50=5%", **FAST)
"""


def run_compare(pytester, monkeypatch, delay):
    monkeypatch.setenv("DELAY", str(delay))
    pkg_parent = os.path.dirname(os.path.dirname(mbench.__file__))
    monkeypatch.setenv("PYTHONPATH", pkg_parent + os.pathsep + os.environ.get("PYTHONPATH", ""))
    pytester.makepyfile(test_inner=INNER_COMPARE)
    from importlib.metadata import entry_points
    eps = entry_points()
    eps = eps.select(group="pytest11") if hasattr(eps, "select") else eps.get("pytest11", [])
    load = [] if any(e.name == "mbench" for e in eps) else ["-p", "mbench.pytest_plugin"]
    return pytester.runpytest_subprocess(*load, "-rs")


def test_the_interleaved_form_passes_an_unchanged_model_twice(pytester, monkeypatch):
    for _ in range(2):
        res = run_compare(pytester, monkeypatch, 5000000)
        res.assert_outcomes(passed=1)


def test_the_interleaved_form_fails_a_slower_model(pytester, monkeypatch):
    res = run_compare(pytester, monkeypatch, 6500000)  # 30% slower
    res.assert_outcomes(failed=1)
    res.stdout.fnmatch_lines(["*regression*median 1.3*beyond the allowed 5% regression*"])


def test_a_threshold_names_a_figure_and_a_percentage():
    from mbench.pytest_plugin import _threshold
    assert _threshold("p50=5%") == ("median", 0.05)
    assert _threshold("p99=10%") == ("p99", 0.1)
    for bad in ("p50", "p90=5%", "p50=-1%", "p50=x"):
        with pytest.raises(ValueError, match="expected p50=N%"):
            _threshold(bad)
