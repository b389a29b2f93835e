"""The runner API our users know (BenchmarkConfig, run_inference_benchmark,
run_benchmark_suite), on mbench's measurement.

    cfg = BenchmarkConfig(framework="pytorch", model_name="resnet50",
                          batch_sizes=[1, 8], processes=3)
    rows = run_inference_benchmark(cfg)      # one dict per batch size
    rows[0]["latency_p50_ms"], rows.document  # the seed's names; mbench's document

Every row has the seed's metric and metadata names, in its order
(SEED_COLUMNS), followed by mbench's own figures (MBENCH_COLUMNS: the 95%
CI of the median, processes, iterations, ...).  The CSV
benchmark_results_YYYYmmdd_HHMMSS.csv and the result document (.json,
same stem: for `mbench report`, `gate`, `store`) go to csv_output_dir.

What maps how (docs/FRAMEWORKS.md, "The runner API"):
- framework 'pytorch' -> torchvision:MODEL_NAME (random weights, eval
  mode), 'jax' -> flax:MODEL_NAME (the project's Flax twins),
  'onnxruntime' -> MODEL_NAME is an .onnx path; model= gives the model
  instead (a spec string or a Python object, as for mbench.run).
- warmup_iterations -> --warmup (in every measured process);
  measurement_iterations -> --iterations (exactly that many timed
  iterations per batch size, split over the processes; their samples are
  kept, --save-samples, and the seed's percentiles computed from them).
- processes: the unit of replication of mbench's median and CI; when
  None, measurement_iterations // 5 between 2 and 10 (so that every
  process times at least 5 iterations).
- device_prefer -> the backend option device= when it is not 'cpu'; when
  the device is not there, the run falls back to the CPU, saying so.
- input_shape: the per-sample shape (without the batch axis) of the
  model's input 'x' (the built-in models' input).
- data_source 'synthetic' -> mbench's seeded synthetic inputs; a path ->
  --data (.npy, .npz, .pb or a directory of them).
"""
import csv
import dataclasses
import datetime
import json
import os
import sys
from typing import Any, Dict, List, Optional, Sequence

from ._lib import MbenchError

# The seed's columns, in its order (its BENCHMARKING guide).
SEED_COLUMNS = [
    "framework", "model", "device", "device_type", "batch_size",
    "input_shape", "dtype", "latency_p50_ms", "latency_p95_ms",
    "latency_p99_ms", "latency_mean_ms", "latency_std_ms", "latency_min_ms",
    "latency_max_ms", "throughput_ips", "memory_mb", "compilation_time_ms",
    "timestamp", "git_commit",
]
# What mbench adds, after them: its own median (the geometric mean of the
# per-process medians, docs/STATISTICS.md) with its 95% CI, ...
MBENCH_COLUMNS = [
    "latency_median_ms", "latency_ci_lo_ms", "latency_ci_hi_ms",
    "processes", "iterations", "inferences_per_s", "first_inference_ms",
    "session_create_ms", "process_rss_peak_mb", "runtime", "spec", "status",
]

_SPECS = {"pytorch": "torchvision:", "torch": "torchvision:",
          "jax": "flax:", "flax": "flax:", "onnxruntime": "", "onnx": ""}


@dataclasses.dataclass
class BenchmarkConfig:
    """One benchmark: the seed's fields and defaults, then mbench's own."""
    framework: str
    model_name: str
    device_prefer: Optional[str] = None
    batch_sizes: List[int] = dataclasses.field(
        default_factory=lambda: [1, 8, 32, 128])
    warmup_iterations: int = 10
    measurement_iterations: int = 50
    input_shape: Optional[Sequence[int]] = None
    dtype: str = "float32"
    data_source: str = "synthetic"
    csv_output_dir: str = "results/raw"
    verbose: bool = True
    # mbench's own
    processes: Optional[int] = None
    threads: Optional[int] = None
    model: Any = None
    python: Optional[str] = None
    options: Dict[str, Any] = dataclasses.field(default_factory=dict)

    def spec(self):
        """The model spec this config measures (a string), or the model
        object given as model=."""
        if self.model is not None:
            return self.model
        fw = self.framework.lower()
        if fw not in _SPECS:
            raise ValueError(f"BenchmarkConfig.framework '{self.framework}': "
                             f"use 'pytorch', 'jax' or 'onnxruntime' (or give "
                             f"the model as model=)")
        return _SPECS[fw] + self.model_name

    def run_options(self):
        """The mbench.run options of this config (everything but the model
        and the device): exactly measurement_iterations timed iterations
        per batch size (--iterations, split over the processes), their
        samples kept (the seed's percentiles are of them)."""
        if self.dtype not in DTYPES:
            raise ValueError(f"BenchmarkConfig.dtype '{self.dtype}': use "
                             f"one of {', '.join(DTYPES)}")
        if not self.batch_sizes:
            raise ValueError("BenchmarkConfig.batch_sizes is empty")
        if int(self.measurement_iterations) < 1:
            raise ValueError("BenchmarkConfig.measurement_iterations must "
                             "be >= 1")
        opts = dict(batch=list(self.batch_sizes),
                    warmup=int(self.warmup_iterations),
                    iterations=int(self.measurement_iterations),
                    save_samples=True,
                    processes=self.processes if self.processes else
                    default_processes(self.measurement_iterations),
                    threads=self.threads)
        if self.dtype not in ("float32", None):
            opts["dtype"] = self.dtype  # a backend option (docs/FRAMEWORKS.md)
        if self.data_source and self.data_source != "synthetic":
            opts["data"] = self.data_source
        if self.input_shape is not None:
            opts["shape"] = {"x": [1] + [int(d) for d in self.input_shape]}
        if self.python:
            opts["python"] = self.python
        opts.update(self.options)
        return opts


DTYPES = ("float32", "float16", "bfloat16")


def default_processes(iterations):
    """Processes for a count of timed iterations: at least 5 each, 2 to
    10 of them."""
    return max(2, min(10, int(iterations) // 5))


class Rows(list):
    """The rows of a benchmark (dicts), with the result documents they came
    from (.documents; .document when there is one) and the files written
    (.csv_path, .json_paths)."""
    documents: List[dict]
    csv_path: Optional[str] = None
    json_paths: List[str]

    def __init__(self, rows=(), documents=()):
        super().__init__(rows)
        self.documents = list(documents)
        self.json_paths = []

    @property
    def document(self):
        return self.documents[0] if len(self.documents) == 1 else None

    def to_dataframe(self):
        from . import _pandas
        return _pandas().DataFrame(list(self),
                                   columns=SEED_COLUMNS + MBENCH_COLUMNS)


def _ms(v):
    return v / 1e6 if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def percentile(sorted_xs, q):
    """The q-th percentile of sorted values, linearly interpolated between
    the closest ranks: numpy.percentile's default, which the seed used."""
    n = len(sorted_xs)
    if n == 0:
        return None
    pos = (n - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, n - 1)
    return sorted_xs[lo] + (sorted_xs[hi] - sorted_xs[lo]) * (pos - lo)


def _pooled(run):
    """The seed's latency figures (ms) of every timed iteration of a run,
    pooled over its processes: p50, p95, p99 (numpy.percentile), mean,
    std (numpy.std: population), min, max; None without samples."""
    xs = sorted(x / 1e6 for x in run.get("samples_ns") or [])
    if not xs:  # a document without its samples: its own pooled figures
        lat = run.get("latency") or {}
        return {k: _ms(lat.get(f)) for k, f in (
            ("p50", "median"), ("p95", "p95"), ("p99", "p99"),
            ("mean", "mean"), ("std", "std"), ("min", "min"), ("max", "max"))}
    n = len(xs)
    mean = sum(xs) / n
    std = (sum((x - mean) ** 2 for x in xs) / n) ** 0.5
    return {"p50": percentile(xs, 50), "p95": percentile(xs, 95),
            "p99": percentile(xs, 99), "mean": mean, "std": std,
            "min": xs[0], "max": xs[-1]}


def _memory_mb(run):
    """The seed's "peak memory": what the model holds and its inferences
    add, not the interpreter and framework libraries: the model's
    parameter bytes plus the RSS the inferences added on top of the built
    session (rss_peak - rss_after_session), in MiB; None when the document
    lacks a figure (a plain callable's parameters are not known: its
    process's peak is process_rss_peak_mb)."""
    mem = run.get("memory") or {}
    peak, after = mem.get("rss_peak_bytes"), mem.get("rss_after_session_bytes")
    params = (run.get("model") or {}).get("param_bytes")
    if not all(isinstance(v, (int, float)) for v in (peak, after, params)):
        return None
    return (max(0, peak - after) + params) / 1048576.0


def _sample_shape(ins):
    """The per-sample shape of the first input (the batch axis dropped), as
    the seed's input_shape ("auto-detected from model")."""
    shape = tuple((ins[0] or {}).get("shape") or ()) if ins else ()
    return str(shape[1:]) if shape else "()"


def seed_rows(doc, framework, model):
    """One row per run of a result document, with the seed's names and
    meanings (docs/FRAMEWORKS.md, "The runner API": the column table)."""
    from . import rows as csv_rows
    out = []
    for run, base in zip(doc.get("runs", []), csv_rows(doc)):
        ph = run.get("phases") or {}
        tp = run.get("throughput") or {}
        rt = run.get("runtime") or {}
        ins = run.get("inputs") or [{}]
        pooled = _pooled(run) or {}
        peak = (run.get("memory") or {}).get("rss_peak_bytes")
        row = {
            "framework": framework, "model": model,
            "device": run.get("device") or rt.get("device"),
            "device_type": run.get("device_type"),
            "batch_size": run.get("batch_size"),
            "input_shape": _sample_shape(ins),
            # the dtype the model computes in (dtype= converts it and its
            # floating inputs), else its input's
            "dtype": rt.get("dtype") or (ins[0].get("dtype") if ins else None),
            "latency_p50_ms": pooled.get("p50"),
            "latency_p95_ms": pooled.get("p95"),
            "latency_p99_ms": pooled.get("p99"),
            "latency_mean_ms": pooled.get("mean"),
            "latency_std_ms": pooled.get("std"),
            "latency_min_ms": pooled.get("min"),
            "latency_max_ms": pooled.get("max"),
            # the seed's throughput is images (samples) per second
            "throughput_ips": tp.get("samples_per_s"),
            "memory_mb": _memory_mb(run),
            # JIT/XLA compilation (the seed: "JAX only"); building a
            # session is not compiling: session_create_ms has it
            "compilation_time_ms": _ms(ph.get("compile_ns")),
            "timestamp": base["timestamp"],
            "git_commit": base["git_commit"],
            "latency_median_ms": base["latency_p50_ms"],
            "latency_ci_lo_ms": base["latency_ci_lo_ms"],
            "latency_ci_hi_ms": base["latency_ci_hi_ms"],
            "processes": (run.get("replication") or {}).get("processes"),
            "iterations": run.get("iterations"),
            "inferences_per_s": tp.get("inferences_per_s"),
            "first_inference_ms": base["first_inference_ms"],
            "session_create_ms": _ms(ph.get("session_create_ns")),
            "process_rss_peak_mb": peak / 1048576.0
            if isinstance(peak, (int, float)) else None,
            "runtime": f"{rt.get('name') or ''} {rt.get('version') or ''}".strip(),
            "spec": (run.get("model") or {}).get("path"),
            "status": run.get("status"),
        }
        out.append(row)
    return out


def _stamp_path(out_dir):
    """out_dir/benchmark_results_YYYYmmdd_HHMMSS (local time, as the seed),
    the stem of no existing file (_2, _3, ... appended)."""
    os.makedirs(out_dir, exist_ok=True)
    stamp = datetime.datetime.now().strftime("%Y%m%d_%H%M%S")
    base = os.path.join(out_dir, f"benchmark_results_{stamp}")
    n, suffix = 1, ""
    while any(f.startswith(os.path.basename(base + suffix) + ".") or
              f.startswith(os.path.basename(base + suffix) + "_")
              for f in os.listdir(out_dir)):
        n += 1
        suffix = f"_{n}"
    return base + suffix


def _write_csv(path, rows):
    cols = SEED_COLUMNS + MBENCH_COLUMNS
    # exclusive creation: a file that appeared meanwhile is not overwritten
    with open(path, "x", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: "" if r.get(k) is None else r.get(k) for k in cols})


def _write_json(path, doc):
    with open(path, "x") as f:
        json.dump(doc, f, indent=1)


def _measure(config):
    """(document, device note) of one config: device_prefer is tried first
    and the CPU taken when the device is not there."""
    from . import run
    spec = config.spec()
    opts = config.run_options()
    dev = (config.device_prefer or "cpu").lower()
    if dev != "cpu":
        try:
            return run(spec, verbose=config.verbose, device=dev,
                       _tried=True, **opts), None
        except MbenchError as e:
            if "device" not in str(e):
                raise
            note = (f"device_prefer='{dev}' is not available here ({e}); "
                    f"measured on the CPU")
            if config.verbose:
                print(f"mbench: warning: {note}", file=sys.stderr)
    else:
        note = None
    return run(spec, verbose=config.verbose, **opts), note


def _banner(config):
    print("=" * 60)
    print(f"{config.framework} benchmark: {config.model_name}")
    print("=" * 60)
    sys.stdout.flush()


def _summary(rows, csv_path):
    for r in rows:
        lo, hi = r["latency_ci_lo_ms"], r["latency_ci_hi_ms"]
        med = r["latency_median_ms"]
        ci = (f" (mbench's median {med:.3f} ms, 95% CI {lo:.3f}, {hi:.3f})"
              if None not in (med, lo, hi) else "")
        p50 = r["latency_p50_ms"]
        ips = r["throughput_ips"]
        mem = r["memory_mb"]
        print(f"  {r['framework']} {r['model']} batch {r['batch_size']}: "
              + (f"p50 {p50:.3f} ms{ci}, " if p50 is not None else "")
              + (f"{ips:.2f} images/s, " if ips is not None else "")
              + (f"memory {mem:.1f} MB" if mem is not None else "")
              + f" ({r['processes']} processes)")
    print(f"Total configurations: {len(rows)}")
    print(f"Results saved to: {csv_path}")
    sys.stdout.flush()


def _collect(config):
    if config.verbose:
        _banner(config)
    doc, note = _measure(config)
    rows = seed_rows(doc, config.framework, config.model_name)
    if note:
        doc.setdefault("warnings", []).append(note)
    return doc, rows


def run_inference_benchmark(config):
    """Measures config's model at each batch size; returns Rows (one dict
    per batch size, SEED_COLUMNS then MBENCH_COLUMNS) and writes them to
    csv_output_dir/benchmark_results_YYYYmmdd_HHMMSS.csv with the result
    document beside it (.json).  Raises MbenchError (mbench's one-line
    error) or ValueError (a config mbench cannot honour)."""
    if not isinstance(config, BenchmarkConfig):
        raise TypeError("run_inference_benchmark takes a BenchmarkConfig")
    doc, rows = _collect(config)
    out = Rows(rows, [doc])
    base = _stamp_path(config.csv_output_dir)
    out.csv_path = base + ".csv"
    _write_csv(out.csv_path, rows)
    _write_json(base + ".json", doc)
    out.json_paths.append(base + ".json")
    if config.verbose:
        _summary(rows, out.csv_path)
    return out


def run_benchmark_suite(models, frameworks, batch_sizes=None, **config):
    """Every model in every framework (the seed's suite): one
    run_inference_benchmark each, all rows in one CSV
    (benchmark_results_YYYYmmdd_HHMMSS.csv) and each result document beside
    it (..._FRAMEWORK_MODEL.json).  config: more BenchmarkConfig fields
    (processes=3, csv_output_dir=..., verbose=False)."""
    if isinstance(models, str):
        models = [models]
    if isinstance(frameworks, str):
        frameworks = ["pytorch", "jax"] if frameworks == "both" else [frameworks]
    if batch_sizes is not None:
        config["batch_sizes"] = list(batch_sizes)
    configs = [BenchmarkConfig(framework=f, model_name=m, **config)
               for f in frameworks for m in models]
    for c in configs:  # refuse a bad config before measuring anything
        c.spec()
        c.run_options()
    out = Rows()
    collected = []
    try:
        for c in configs:
            doc, rows = _collect(c)
            collected.append((c, doc))
            out.extend(rows)
            out.documents.append(doc)
    finally:  # what was measured is written, also when a later one fails
        if collected:
            _write_suite(out, collected, configs[0])
    return out


def _write_suite(out, collected, first):
    base = _stamp_path(first.csv_output_dir)
    out.csv_path = base + ".csv"
    _write_csv(out.csv_path, out)
    for c, doc in collected:
        name = f"{base}_{c.framework}_{os.path.basename(c.model_name)}.json"
        _write_json(name, doc)
        out.json_paths.append(name)
    if first.verbose:
        _summary(out, out.csv_path)
