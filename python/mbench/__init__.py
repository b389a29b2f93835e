"""mbench from Python: benchmark, compare and validate models with libmbench,
and time your own inference loops.

    import mbench
    res = mbench.run("net.onnx", batch_sizes=[1, 8], threads=1, processes=5)
    res["runs"][0]["latency"]["median"]      # the result document, a dict
    res.to_dataframe()                        # pandas, the CSV's columns

    cmp = mbench.compare({"ort": "net.onnx", "torch": "net.pt"}, batch=8)
    val = mbench.validate("fp32.onnx", "int8.onnx", data="x.npy")

    with mbench.timer("infer", items=8):      # one iteration of your loop,
        model(x)                              # reported to `mbench exec`

Options are the `mbench run` flags without dashes, with `_` for `-`
(min_time="0.5s", warmup=5, backend_opt=...); numbers of seconds may be
given as numbers; lists become comma lists; a dict gives a repeatable
NAME=VALUE option (dim={"seq": 128}, shape={"x": [1, 3, 224, 224]}).
Results are plain dicts (the JSON documents of docs/FORMATS.md).
"""
import json
import subprocess

from . import _lib
from ._lib import MbenchError
from .events import timer, record_iter

__all__ = ["run", "compare", "validate", "rows", "to_dataframe", "timer",
           "record_iter", "Result", "MbenchError", "CSV_COLUMNS", "version"]

# The columns of `mbench run --csv` (src/report/csv.c), in order.
CSV_COLUMNS = [
    "framework", "model", "variant", "device", "device_type", "batch_size",
    "input_shape", "dtype", "latency_p50_ms", "latency_p95_ms",
    "latency_p99_ms", "latency_mean_ms", "latency_std_ms", "latency_min_ms",
    "latency_max_ms", "latency_ci_lo_ms", "latency_ci_hi_ms", "iterations",
    "throughput_ips", "throughput_sps", "memory_mb", "compilation_time_ms",
    "first_inference_ms", "timestamp", "git_commit", "model_sha256", "status",
    "top1", "top1_delta", "top1_delta_ci_lo", "top1_delta_ci_hi", "verdict",
    "verdict_failures",
]

_DURATIONS = {"min_time", "max_time", "warmup_time", "timeout"}


def version():
    """libmbench's version string."""
    return _lib.library().mb_version().decode()


class Result(dict):
    """A result document (a dict) with its rows at hand."""

    def rows(self):
        return rows(self)

    def to_dataframe(self):
        return to_dataframe(self)

    @property
    def passed(self):
        """validate: the verdict; None for other documents."""
        v = self.get("validation")
        return v.get("passed") if isinstance(v, dict) else None


def _value(key, v):
    if isinstance(v, bool):
        return "1" if v else "0"
    if key in _DURATIONS and isinstance(v, (int, float)):
        return f"{v}s"
    if isinstance(v, (list, tuple)):
        return ",".join(str(x) for x in v)
    return str(v)


def _options(opts):
    """(key, value) pairs for mb_runner_set; None values are left out."""
    out = []
    for k, v in opts.items():
        if v is None:
            continue
        key = k.replace("_", "-")
        if isinstance(v, dict):  # repeatable NAME=VALUE options
            for name, val in v.items():
                out.append((key, f"{name}={_value(key, val)}"))
        else:
            out.append((key, _value(k, v)))
    return out


def run(model, batch_sizes=None, **options):
    """Benchmarks model (like `mbench run`) and returns the result document.

    batch_sizes: a list (default [1]); any other keyword is a run option
    (threads, processes, warmup, min_time, backend, data, ...).  Raises
    MbenchError with the library's one-line message on failure."""
    if batch_sizes is not None:
        options["batch"] = list(batch_sizes) if not isinstance(
            batch_sizes, int) else [batch_sizes]
    with _lib.Runner(_options(options)) as r:
        return Result(json.loads(r.run(str(model))))


def _variant(name, spec):
    if isinstance(spec, dict):
        spec = dict(spec)
        model = spec.pop("model")
        extra = ",".join(f"{k.replace('_', '-')}={_value(k, v)}"
                         for k, v in spec.items() if v is not None)
        return f"{name}={model}" + ("," + extra if extra else "")
    return f"{name}={spec}"


def compare(variants, **options):
    """Compares variants (like `mbench compare`): a dict NAME -> model path,
    or NAME -> {"model": path, option: value, ...} for per-variant options
    (threads=2, backend_opt="dtype=bfloat16", ...).  The first variant is
    the baseline unless baseline=NAME.  Returns the compare document."""
    if not isinstance(variants, dict) or not variants:
        raise ValueError("compare takes a dict of variants: "
                         "{NAME: model path or {\"model\": path, option: value}}")
    specs = [_variant(n, s) for n, s in variants.items()]
    with _lib.Runner(_options(options)) as r:
        return Result(json.loads(r.compare(specs)))


def _cli_args(options):
    args = []
    for k, v in options.items():
        if v is None or v is False:
            continue
        flag = "--" + k.replace("_", "-")
        if v is True:
            args.append(flag)
        elif isinstance(v, dict):
            for name, val in v.items():
                args += [flag, f"{name}={_value(k, val)}"]
        else:
            args += [flag, _value(k, v)]
    return args


def validate(baseline, candidate, **options):
    """Validates candidate against baseline (like `mbench validate`): data,
    labels, tolerance, gate=[...], precision, samples, ... .  Returns the
    validate document; .passed is the verdict.  Uses libmbench's
    mb_runner_validate when the library has it, else the mbench command's
    JSON output (the same document)."""
    gates = options.pop("gate", None)
    if isinstance(gates, str):
        gates = [gates]
    if _lib.has_validate():
        opts = _options(options) + [("gate", g) for g in gates or []]
        with _lib.Runner(opts) as r:
            return Result(json.loads(r.validate(str(baseline), str(candidate))))
    args = [_lib.cli(), "validate", str(baseline), str(candidate), "--json",
            "-", "-q"] + _cli_args(options)
    for g in gates or []:
        args += ["--gate", g]
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if p.returncode not in (0, 1):
        msg = p.stderr.strip().splitlines()
        raise MbenchError(p.returncode, "mbench validate",
                          msg[-1] if msg else f"exit {p.returncode}")
    return Result(json.loads(p.stdout))


def _ms(v):
    return v / 1e6 if isinstance(v, (int, float)) and not isinstance(
        v, bool) else None


def _cmp_entry(doc, run):
    """A compare variant's comparison entry at the run's batch size."""
    cmps = doc.get("comparisons") or []
    c = next((x for x in cmps if x.get("batch_size") == run.get("batch_size")),
             doc.get("comparison") or {})
    return next((v for v in c.get("variants") or []
                 if v.get("name") == run.get("variant")), {})


def _failures(verdict):
    """The failing outputs and figures of a verdict, as the CSV has them
    (src/runner/cmpverdict.c)."""
    parts = []
    for o in verdict.get("per_output") or []:
        if o.get("passed") is not False:
            continue
        checks = []
        for c in o.get("checks") or []:
            if c.get("result") != "fail":
                continue
            name = c["check"]
            metric = name[:len(name) - len(name.lstrip("abcdefghijklmnopqrstuvwxyz0123456789_"))]
            v = c.get("value")
            checks.append("%s %s (needs %s)" % (metric, "%.4g" % v if isinstance(v, (int, float))
                                                else "undefined", name))
        parts.append("%s: %s" % (o.get("name"), ", ".join(checks)))
    for t in verdict.get("criteria") or []:
        if t.startswith("FAIL the candidate produced"):
            parts.append(t[5:])
    return "; ".join(parts)


def rows(doc):
    """One dict per run with the columns of `mbench run --csv` (times in
    ms, memory in MiB, None where the CSV has an empty field)."""
    out = []
    # The measured project's commit: the run's, else the document's git
    # facts; never mbench's own (src/report/csv.c).
    doc_commit = (doc.get("git") or {}).get("commit")
    for run in doc.get("runs", []):
        commit = (run.get("git") or {}).get("commit") or doc_commit
        is_exec = run.get("backend") == "exec"
        rt = run.get("runtime") or {}
        model = run.get("model") or {}
        lat = run.get("latency") or {}
        ci = lat.get("median_ci95") or {}
        ins = run.get("inputs") or [{}]
        in0 = ins[0] if ins else {}
        tp = run.get("throughput") or {}
        ph = run.get("phases") or {}
        peak = (run.get("memory") or {}).get("rss_peak_bytes")
        out.append({
            "framework": "exec" if is_exec else
                         f"{rt.get('name') or 'unknown'} {rt.get('version') or ''}",
            "model": run.get("command") if is_exec else model.get("name"),
            "variant": run.get("variant"),
            "device": run.get("device"),
            "device_type": run.get("device_type"),
            "batch_size": run.get("batch_size"),
            "input_shape": "x".join(str(d) for d in in0.get("shape") or []),
            "dtype": in0.get("dtype"),
            # the median the CI is about (per-process geometric mean), as
            # the CSV has it; the pooled median stays in latency.median
            "latency_p50_ms": _ms(ci.get("estimate", lat.get("median"))),
            "latency_p95_ms": _ms(lat.get("p95")),
            "latency_p99_ms": _ms(lat.get("p99")),
            "latency_mean_ms": _ms(lat.get("mean")),
            "latency_std_ms": _ms(lat.get("std")),
            "latency_min_ms": _ms(lat.get("min")),
            "latency_max_ms": _ms(lat.get("max")),
            "latency_ci_lo_ms": _ms(ci.get("lo")),
            "latency_ci_hi_ms": _ms(ci.get("hi")),
            "iterations": run.get("iterations"),
            "throughput_ips": tp.get("inferences_per_s"),
            "throughput_sps": tp.get("samples_per_s"),
            "memory_mb": peak / 1048576.0 if isinstance(peak, (int, float)) else None,
            "compilation_time_ms": _ms(ph.get("session_create_ns")),
            "first_inference_ms": _ms(ph.get("first_inference_ns")),
            "timestamp": doc.get("created_utc"),
            "git_commit": commit,
            "model_sha256": model.get("sha256"),
            "status": run.get("status"),
        })
        e = _cmp_entry(doc, run)
        acc = e.get("accuracy") or {}
        ci = acc.get("delta_top1_ci95") or [None, None]
        vd = e.get("verdict")
        out[-1].update({
            "top1": acc.get("top1"),
            "top1_delta": acc.get("delta_top1"),
            "top1_delta_ci_lo": ci[0],
            "top1_delta_ci_hi": ci[1],
            "verdict": None if not isinstance(vd, dict) else
                       "pass" if vd.get("passed") else "fail",
            "verdict_failures": _failures(vd) if isinstance(vd, dict) else None,
        })
    return out


def to_dataframe(doc):
    """The rows as a pandas DataFrame with CSV_COLUMNS (ImportError, saying
    so, when pandas is not installed)."""
    try:
        import pandas as pd
    except ImportError as e:
        raise ImportError("mbench.to_dataframe needs pandas "
                          "(apt-get install python3-pandas); "
                          "mbench.rows() gives the same rows as dicts") from e
    return pd.DataFrame(rows(doc), columns=CSV_COLUMNS)
