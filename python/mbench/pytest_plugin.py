"""pytest plugin: performance regression tests against a stored baseline.

Registered through the pytest11 entry point when the package is installed
(or with `-p mbench.pytest_plugin`).  The fixture `mbench_gate` judges a
result document against a baseline document with `mbench gate` (the same
statistics as the command: per-process figures, Welch t and a CI against
the threshold):

    # the baseline model at hand: one interleaved compare, 5% decidable
    def test_resnet_latency(mbench_gate):
        mbench_gate.compare("resnet_main.onnx", "resnet.onnx",
                            max_regression="p50=5%", batch=1, processes=10)

    # only a stored result: a threshold above the two-run drift (~5%)
    def test_resnet_latency_stored(mbench_gate):
        res = mbench.run("resnet.onnx", batch_sizes=[1], processes=10)
        mbench_gate(res, "baselines/resnet.json", max_regression="p50=20%")

- No baseline file yet, or `pytest --mbench-update-baselines`: the result
  is stored as the baseline and the test is skipped, saying so.
- A regression (exit 1) or an accuracy gate failure (exit 5) fails the
  test with the gate's reasons; a pass returns the verdict (a dict,
  schema mbench.gate/1).
- Inconclusive (too few processes, a CI straddling the threshold) skips
  the test with what would decide it, or fails it with
  `--mbench-strict`.

Relative baseline paths are taken from the test file's directory, or from
--mbench-baseline-dir / the ini option mbench_baseline_dir.
"""
import json
import os
import subprocess
import tempfile

import pytest

from . import _lib


def pytest_addoption(parser):
    g = parser.getgroup("mbench", "performance baselines (mbench)")
    g.addoption("--mbench-update-baselines", action="store_true",
                help="store the current results as the baselines")
    g.addoption("--mbench-strict", action="store_true",
                help="an inconclusive gate fails the test instead of skipping it")
    g.addoption("--mbench-baseline-dir", default=None,
                help="directory of relative baseline paths")
    parser.addini("mbench_baseline_dir", "directory of relative baseline paths")


def _reasons(verdict):
    out = []
    for c in verdict.get("comparisons", []):
        for m in c.get("metrics", []):
            if m.get("verdict") not in ("pass", "improvement", "skipped"):
                out.append(f"batch {c.get('batch_size')}: {m.get('reason')}")
    for g in verdict.get("gates", []) or []:
        if isinstance(g, dict) and g.get("passed") is False:
            out.append(str(g.get("reason") or g))
    return out


class Gate:
    def __init__(self, request):
        self.config = request.config
        self.test_dir = os.path.dirname(str(request.node.fspath))

    def _path(self, baseline):
        if os.path.isabs(baseline):
            return baseline
        base = (self.config.getoption("mbench_baseline_dir")
                or self.config.getini("mbench_baseline_dir") or self.test_dir)
        return os.path.join(base, baseline)

    def __call__(self, result, baseline, max_regression=None, gate=None):
        path = self._path(str(baseline))
        if self.config.getoption("mbench_update_baselines") or not os.path.exists(path):
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
            with open(path, "w") as f:
                json.dump(result, f, indent=1)
            pytest.skip(f"mbench: baseline recorded in {path}; rerun to gate against it")
        with tempfile.TemporaryDirectory() as d:
            cur, out = os.path.join(d, "current.json"), os.path.join(d, "verdict.json")
            with open(cur, "w") as f:
                json.dump(result, f)
            args = [_lib.cli(), "gate", "--current", cur, "--baseline", path,
                    "--json", out, "-q"]
            if max_regression:
                args += ["--max-regression", max_regression]
            for g in [gate] if isinstance(gate, str) else gate or []:
                args += ["--gate", g]
            p = subprocess.run(args, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
            if p.returncode in (2, 3) or not os.path.exists(out):
                raise _lib.MbenchError(p.returncode, "mbench gate",
                                       p.stderr.strip() or f"exit {p.returncode}")
            with open(out) as f:
                verdict = json.load(f)
        why = "; ".join(_reasons(verdict)) or verdict.get("verdict", "")
        if p.returncode in (1, 5):
            pytest.fail(f"mbench gate against {path}: {verdict.get('verdict')}: {why}",
                        pytrace=False)
        if p.returncode == 4:
            msg = f"mbench gate against {path} is inconclusive: {why}"
            if self.config.getoption("mbench_strict"):
                pytest.fail(msg, pytrace=False)
            pytest.skip(msg)
        return verdict


    def compare(self, baseline_model, model, max_regression="p50=5%",
                **options):
        """Measures baseline_model and model in one interleaved compare
        (mbench.compare: fresh processes, rounds alternating, speedups
        paired by round) and judges the paired speedup's 95% CI against
        the allowed slowdown: a pass when the whole CI is within it, a
        failure when the whole CI is beyond it, else inconclusive (a skip,
        or a failure with --mbench-strict).  Between two separate runs the
        drift alone is about 5% (docs/GATE.md), so a 5% threshold needs
        this paired form.  Returns the compare document."""
        from . import compare
        figure, limit = _threshold(max_regression)
        doc = compare({"baseline": baseline_model, "current": model},
                      **options)
        bad, unsure = judge_compare(doc, figure, limit)
        if bad:
            pytest.fail("mbench compare: regression: " + "; ".join(bad),
                        pytrace=False)
        if unsure:
            msg = "mbench compare is inconclusive: " + "; ".join(unsure)
            if self.config.getoption("mbench_strict"):
                pytest.fail(msg, pytrace=False)
            pytest.skip(msg)
        return doc


def judge_compare(doc, figure, limit, name="current"):
    """(regressions, undecided) of a compare document: per batch size, the
    variant `name`'s paired `figure` speedup CI against an allowed
    slowdown of `limit` (0.05: its time at most 1.05x the baseline's)."""
    bad, unsure = [], []
    for c in doc.get("comparisons") or [doc.get("comparison") or {}]:
        v = next((x for x in c.get("variants") or []
                  if x.get("name") == name), {})
        sp = v.get(f"speedup_{figure}") or {}
        ci = sp.get("ci95") or [None, None]
        at = f"batch {c.get('batch_size')}"
        if v.get("status") != "ok":
            bad.append(f"{at}: {v.get('error') or 'the current model failed'}")
        elif None in ci or sp.get("value") is None:
            unsure.append(f"{at}: no CI of the {figure} speedup "
                          f"(give processes=10 or more)")
        elif ci[1] < 1 / (1 + limit):
            bad.append(f"{at}: {figure} {1 / sp['value']:.3f}x the "
                       f"baseline's time (95% CI {1 / ci[1]:.3f}-"
                       f"{1 / ci[0]:.3f}x), beyond the allowed "
                       f"{limit:.0%} regression")
        elif ci[0] < 1 / (1 + limit):
            unsure.append(f"{at}: {figure} {1 / sp['value']:.3f}x the "
                          f"baseline's time, 95% CI {1 / ci[1]:.3f}-"
                          f"{1 / ci[0]:.3f}x straddles {1 + limit:.2f}x: "
                          f"more processes would decide")
    return bad, unsure


def _threshold(spec):
    """("median"|"p99", fraction) of "p50=5%", "median=5%" or "p99=10%"."""
    name, _, pct = str(spec).partition("=")
    figure = {"p50": "median", "median": "median", "p99": "p99"}.get(
        name.strip())
    try:
        limit = float(pct.strip().rstrip("%")) / 100
    except ValueError:
        limit = -1
    if figure is None or not 0 < limit < 10:
        raise ValueError(f"max_regression '{spec}': expected p50=N%, "
                         f"median=N% or p99=N% (N > 0)")
    return figure, limit


@pytest.fixture
def mbench_gate(request):
    """gate(result, baseline_path, max_regression=None, gate=None): see the
    module's documentation."""
    return Gate(request)
