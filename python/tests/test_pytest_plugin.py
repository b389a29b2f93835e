"""The mbench_gate fixture in an inner pytest session: a baseline is
recorded, then a planted 20x slowdown (the null backend's 4 ms sleep
against its 0.2 ms busy-wait) fails the test and the same speed passes.

The slowdown is one no load can hide or blur.  At load 30 with steal
time a 2x slowdown of busy-waits over 4 processes came out +187% with a
95% CI of -7%..+781%, and 0.1 against 2 ms busy-waits +7276% but
p = 0.01: a busy-wait of 2 ms is descheduled for tens of ms in some
processes and not in others; both inconclusive, so the inner test was
skipped.  A sleep spends no CPU, never takes less than asked and is only
woken a little late (ratio 20.0, CI 17.4-23.0, at load 14 under
steal-time.sh).  The baseline stays a 0.2 ms busy-wait: an empty run's
per-process medians (tens of ns) spread so that even a document gated
against itself came out inconclusive at 20%."""
import json
import os

import pytest

import mbench

FAST = dict(backend="null", processes=4, warmup=2, min_time=0.2, max_time=0.4,
            min_iterations=20)


@pytest.fixture
def docs(tmp_path):
    fast = mbench.run("null-model", delay=200000, **FAST)
    slow = mbench.run("null-model", sleep=4000000, **FAST)
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
