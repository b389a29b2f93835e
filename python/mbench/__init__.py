"""mbench from Python: benchmark, compare and validate models with libmbench,
and time your own inference loops.

    import mbench
    res = mbench.run("net.onnx", batch_sizes=[1, 8], threads=1, processes=5)
    res["runs"][0]["latency"]["median"]      # the result document, a dict
    res.to_dataframe()                        # pandas, the CSV's columns

    res = mbench.run("torchvision:resnet50", batch_sizes=[1, 8], processes=3)
    res = mbench.run(my_module, inputs=(3, 224, 224), batch_sizes=[1, 8])
    cmp = mbench.compare({"ort": "net.onnx", "torch": "net.pt"}, batch=8)
    val = mbench.validate("fp32.onnx", "int8.onnx", data="x.npy")

    cfg = mbench.BenchmarkConfig(framework="pytorch", model_name="resnet50")
    rows = mbench.run_inference_benchmark(cfg)   # the seed's rows and CSV

    with mbench.timer("infer", items=8):      # one iteration of your loop,
        model(x)                              # reported to `mbench exec`

Options are the `mbench run` flags without dashes, with `_` for `-`
(min_time="0.5s", warmup=5, backend_opt=...); numbers of seconds may be
given as numbers; lists become comma lists; a dict gives a repeatable
NAME=VALUE option (dim={"seq": 128}, shape={"x": [1, 3, 224, 224]}); any
other key is a backend option (python="VENV", jit="trace").
Results are plain dicts (the JSON documents of docs/FORMATS.md).

ONNX and TorchScript files are measured by libmbench loaded here
(ctypes); Python models (torchvision:, flax:, PATH.py:FACTORY, py:,
pickle:, objects) by the mbench command in a subprocess (see _sub.py for
why): the same documents either way.
"""
import json
import os
import tempfile

from . import _lib, _objects, _sub
from ._lib import MbenchError
from ._opts import pairs as _options, value as _value
from .events import timer, record_iter

__all__ = ["run", "compare", "validate", "rows", "to_dataframe", "timer",
           "record_iter", "Result", "MbenchError", "CSV_COLUMNS", "version",
           "BenchmarkConfig", "run_inference_benchmark", "run_benchmark_suite",
           "SEED_COLUMNS"]

# The columns of `mbench run --csv` (src/report/csv.c), in order.
CSV_COLUMNS = [
    "framework", "model", "variant", "device", "device_type", "batch_size",
    "input_shape", "dtype", "latency_p50_ms", "latency_p95_ms",
    "latency_p99_ms", "latency_mean_ms", "latency_std_ms", "latency_min_ms",
    "latency_max_ms", "latency_ci_lo_ms", "latency_ci_hi_ms", "iterations",
    "throughput_ips", "throughput_sps", "memory_mb", "compilation_time_ms",
    "first_inference_ms", "timestamp", "git_commit", "model_sha256", "status",
    "top1", "top1_delta", "top1_delta_ci_lo", "top1_delta_ci_hi", "verdict",
    "verdict_failures", "headline",
]

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


def _python_run(command, positionals, options, roots=(), ok_codes=(0,),
                python=None):
    """The document of `mbench COMMAND` (roots: PYTHONPATH directories of
    pickled objects; python: the venv for every Python model, as
    MBENCH_PYTHON, where an option cannot name it)."""
    verbose = bool(options.pop("verbose", False))
    tried = bool(options.pop("_tried", False))
    env = _objects.env_with_roots(list(roots))
    if python:
        env = dict(env or os.environ, MBENCH_PYTHON=python)
    return Result(_sub.document(command, positionals, options,
                                verbose=verbose, ok_codes=ok_codes, env=env,
                                echo_error=not tried))


def _is_object(model):
    return not isinstance(model, (str, os.PathLike))


# Frameworks whose thread pools (OpenMP) and state do not survive the
# library's fork() of its measured workers (see _sub.py).
_FORK_UNSAFE = ("torch", "jax", "jaxlib", "tensorflow")


def _in_process_ok():
    """Whether libmbench may fork its workers from this process: not once
    a framework is loaded here (then the mbench command measures)."""
    import sys
    return not any(m in sys.modules for m in _FORK_UNSAFE)


def run(model, batch_sizes=None, inputs=None, **options):
    """Benchmarks model (like `mbench run`) and returns the result document.

    model: a model path or spec (net.onnx, net.pt, torchvision:resnet50,
    flax:vit_b_16, PATH.py:FACTORY, py:MODULE:FACTORY, pickle:PATH), or a
    Python object: a torch.nn.Module, a Flax-like model, a jitted function
    or any callable on numpy arrays, which is pickled (cloudpickle when
    installed) and measured as pickle:PATH in this interpreter's venv.
    batch_sizes: a list (default [1]).  inputs: a per-sample shape
    ((3, 224, 224)), an array whose axis 0 is the samples (--data), a list
    of those (one per input) or a dict NAME -> one of those.  Any other
    keyword is a run option (threads, processes, warmup, min_time,
    backend, data, python=VENV, ...; verbose=True shows mbench's report
    for Python models).  Raises MbenchError with mbench's one-line message
    on failure."""
    if batch_sizes is not None:
        options["batch"] = list(batch_sizes) if not isinstance(
            batch_sizes, int) else [batch_sizes]
    with tempfile.TemporaryDirectory(prefix="mbench-model-") as d:
        roots = []
        if _is_object(model):
            spec = "pickle:" + os.path.join(d, _objects.pickle_name(model))
            roots = _objects.pickle_model(model, spec[len("pickle:"):])
            names = _objects.input_names(model)
        else:
            spec, names = str(model), None
        options.update(_objects.input_options(inputs, names, d))
        if not _objects.is_python_spec(spec) and _in_process_ok():
            options.pop("verbose", None)
            options.pop("_tried", None)
            with _lib.Runner(_options(options)) as r:
                return Result(json.loads(r.run(spec)))
        if "python" not in options and _objects.is_python_spec(spec):
            options["python"] = _objects.host_python(spec, _is_object(model))
        return _python_run("run", [spec], options, roots)


def _variant(name, spec, workdir, roots):
    """A compare variant NAME=MODEL[,opt=value...]: a model object is
    pickled into workdir (the directories its pickle imports from added to
    roots), and a Python model gets python=VENV when this interpreter's
    venv should host it (_objects.host_python)."""
    opts = {}
    if isinstance(spec, dict):
        opts = dict(spec)
        spec = opts.pop("model")
    is_object = _is_object(spec)
    if is_object:
        os.makedirs(os.path.join(workdir, name), exist_ok=True)
        path = os.path.join(workdir, name, _objects.pickle_name(spec))
        roots += [r for r in _objects.pickle_model(spec, path) if r not in roots]
        spec = "pickle:" + path
    python = _objects.is_python_spec(spec)
    if python and "python" not in opts:
        opts["python"] = _objects.host_python(spec, is_object)
    extra = ",".join(f"{k.replace('_', '-')}={_value(k, v)}"
                     for k, v in opts.items() if v is not None)
    return f"{name}={spec}" + ("," + extra if extra else ""), python


def compare(variants, **options):
    """Compares variants (like `mbench compare`): a dict NAME -> model path,
    spec or Python object (as for run), or NAME -> {"model": ..., option:
    value, ...} for per-variant options (threads=2, python="VENV",
    backend_opt="dtype=bfloat16", ...).  The first variant is the baseline
    unless baseline=NAME.  Returns the compare document."""
    if not isinstance(variants, dict) or not variants:
        raise ValueError("compare takes a dict of variants: "
                         "{NAME: model path or {\"model\": path, option: value}}")
    with tempfile.TemporaryDirectory(prefix="mbench-model-") as d:
        roots = []
        made = [_variant(n, s, d, roots) for n, s in variants.items()]
        specs = [m[0] for m in made]
        if not any(m[1] for m in made) and _in_process_ok():
            options.pop("verbose", None)
            with _lib.Runner(_options(options)) as r:
                return Result(json.loads(r.compare(specs)))
        return _python_run("compare", specs, options, roots)


def validate(baseline, candidate, **options):
    """Validates candidate against baseline (like `mbench validate`): data,
    labels, tolerance, gate=[...], precision, samples, ... .  Either model
    may be a path, a spec or a Python object (as for run).  Returns the
    validate document; .passed is the verdict (a failed verdict is not an
    exception).  Uses libmbench's mb_runner_validate when the library has
    it and the models allow (see run), else the mbench command (the same
    document)."""
    gates = options.pop("gate", None)
    if isinstance(gates, str):
        gates = [gates]
    with tempfile.TemporaryDirectory(prefix="mbench-model-") as d:
        models, roots = [], []
        for role, m in (("baseline", baseline), ("candidate", candidate)):
            if _is_object(m):
                os.makedirs(os.path.join(d, role))
                path = os.path.join(d, role, _objects.pickle_name(m))
                roots += _objects.pickle_model(m, path)
                m = "pickle:" + path
            models.append(str(m))
        python = any(_objects.is_python_spec(m) for m in models)
        if _lib.has_validate() and not python and _in_process_ok():
            options.pop("verbose", None)
            opts = _options(options) + [("gate", g) for g in gates or []]
            with _lib.Runner(opts) as r:
                return Result(json.loads(r.validate(*models)))
        host = None
        if python and "python" not in options:
            # validate has one set of backend options, which an ONNX
            # baseline or candidate would refuse: the venv goes by
            # MBENCH_PYTHON, which only the python backend reads
            hosts = {_objects.host_python(m, _is_object(x))
                     for m, x in zip(models, (baseline, candidate))
                     if _objects.is_python_spec(m)}
            host = hosts.pop() if len(hosts) == 1 else None
        if gates:
            options["gate"] = gates
        return _python_run("validate", models, options, roots,
                           ok_codes=(0, 1), python=host)


def _ms(v):
    return v / 1e6 if isinstance(v, (int, float)) and not isinstance(
        v, bool) else None


# Columns of the CSV that hold text; every other non-empty cell is a number.
_TEXT_COLUMNS = {"framework", "model", "variant", "device", "device_type",
                 "input_shape", "dtype", "timestamp", "git_commit",
                 "model_sha256", "status", "verdict", "verdict_failures",
                 "headline"}


def _cell(column, text):
    if text == "":
        return None
    if column in _TEXT_COLUMNS:
        # the CSV writer's guard against formula injection (docs/FORMATS.md)
        if len(text) > 1 and text[0] == "'" and text[1] in "=+-@":
            return text[1:]
        return text
    try:
        return int(text)
    except ValueError:
        return float(text)


def rows(doc):
    """One dict per run with the columns of `mbench run --csv` (times in
    ms, memory in MiB, None where the CSV has an empty field): the CSV
    that libmbench's own writers make of doc (mb_render), so the columns
    and their meaning are the CLI's by construction."""
    import csv
    import io
    text = _lib.render(json.dumps(doc), "csv") or ""
    return [{k: _cell(k, v) for k, v in r.items()}
            for r in csv.DictReader(io.StringIO(text))]


def _pandas():
    try:
        import pandas as pd
    except ImportError as e:
        raise ImportError("mbench.to_dataframe needs pandas "
                          "(apt-get install python3-pandas, or pip install "
                          "pandas in a venv); mbench.rows() gives the same "
                          "rows as dicts") from e
    return pd


def to_dataframe(doc):
    """The rows as a pandas DataFrame with CSV_COLUMNS (ImportError, saying
    so, when pandas is not installed)."""
    return _pandas().DataFrame(rows(doc), columns=CSV_COLUMNS)


from ._seed import (BenchmarkConfig, SEED_COLUMNS, run_benchmark_suite,  # noqa: E402
                    run_inference_benchmark)
