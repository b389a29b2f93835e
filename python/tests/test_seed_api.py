"""The runner API our users know (BenchmarkConfig, run_inference_benchmark,
run_benchmark_suite): the seed's fields and defaults, its row and CSV
names filled from mbench's result document, files that never overwrite,
and the document kept for report/gate/store."""
import csv
import dataclasses
import json
import os
import re
import subprocess

import pytest

import mbench
from mbench import _seed
from conftest import FAST, ROOT, cli, have_plugin

SEED_FIELDS = {  # the seed's BenchmarkConfig, with its defaults
    "framework": None, "model_name": None, "device_prefer": None,
    "batch_sizes": [1, 8, 32, 128], "warmup_iterations": 10,
    "measurement_iterations": 50, "input_shape": None, "dtype": "float32",
    "data_source": "synthetic", "csv_output_dir": "results/raw", "verbose": True,
}
SEED_METRICS = ["latency_p50_ms", "latency_p95_ms", "latency_p99_ms", "latency_mean_ms",
                "latency_std_ms", "latency_min_ms", "latency_max_ms", "throughput_ips",
                "memory_mb", "compilation_time_ms"]
SEED_META = ["framework", "model", "device", "device_type", "batch_size", "input_shape",
             "dtype", "timestamp", "git_commit"]
FAST_OPTS = {"min_time": 0.2, "max_time": 0.6}


def test_the_config_has_the_seeds_fields_and_defaults():
    fields = {f.name: f for f in dataclasses.fields(mbench.BenchmarkConfig)}
    c = mbench.BenchmarkConfig(framework="pytorch", model_name="resnet50")
    for name, default in SEED_FIELDS.items():
        assert name in fields, name
        if default is not None or name == "device_prefer":
            assert getattr(c, name) == default, name
    assert list(fields)[:len(SEED_FIELDS)] == list(SEED_FIELDS)  # the seed's order
    assert set(SEED_METRICS + SEED_META) <= set(mbench.SEED_COLUMNS)


def test_frameworks_map_onto_model_specs_and_options():
    c = mbench.BenchmarkConfig("pytorch", "vit_b_16")
    assert c.spec() == "torchvision:vit_b_16"
    assert mbench.BenchmarkConfig("jax", "resnet50").spec() == "flax:resnet50"
    assert mbench.BenchmarkConfig("onnxruntime", "m.onnx").spec() == "m.onnx"
    opts = mbench.BenchmarkConfig("jax", "resnet50", batch_sizes=[1, 4], warmup_iterations=3,
                                  measurement_iterations=20, input_shape=(3, 160, 160),
                                  data_source="x.npy", processes=3).run_options()
    assert opts == {"batch": [1, 4], "warmup": 3, "iterations": 20, "save_samples": True,
                    "processes": 3, "threads": None, "data": "x.npy",
                    "shape": {"x": [1, 3, 160, 160]}}
    # the seed's counts: exactly measurement_iterations, >= 5 per process
    assert mbench.BenchmarkConfig("jax", "m", measurement_iterations=10).run_options()[
        "processes"] == 2
    assert mbench.BenchmarkConfig("jax", "m").run_options()["processes"] == 10
    assert mbench.BenchmarkConfig("pytorch", "m", dtype="bfloat16").run_options()[
        "dtype"] == "bfloat16"


def test_what_mbench_cannot_honour_is_refused_before_measuring(tmp_path):
    with pytest.raises(ValueError, match="use 'pytorch', 'jax' or 'onnxruntime'"):
        mbench.BenchmarkConfig("tensorflow", "resnet50").spec()
    with pytest.raises(ValueError, match="float32, float16, bfloat16"):
        mbench.BenchmarkConfig("pytorch", "resnet50", dtype="int8").run_options()
    with pytest.raises(ValueError):
        mbench.run_benchmark_suite(["resnet50"], ["pytorch", "mxnet"],
                                   csv_output_dir=str(tmp_path))
    assert os.listdir(tmp_path) == []


def _digits(tmp_path):
    p = tmp_path / "digits.onnx"
    p.write_bytes(open(os.path.join(ROOT, "models", "digits_fp32.onnx"), "rb").read())
    return str(p)


def test_rows_csv_and_document_of_an_onnx_model(tmp_path, capsys):
    out = tmp_path / "results" / "raw"
    cfg = mbench.BenchmarkConfig("onnxruntime", _digits(tmp_path), batch_sizes=[1, 4],
                                 warmup_iterations=3, measurement_iterations=20,
                                 csv_output_dir=str(out), processes=2, threads=1,
                                 options=FAST_OPTS)
    rows = mbench.run_inference_benchmark(cfg)
    assert "Results saved to: " + rows.csv_path in capsys.readouterr().out
    assert [r["batch_size"] for r in rows] == [1, 4]
    assert re.fullmatch(r"benchmark_results_\d{8}_\d{6}\.csv", os.path.basename(rows.csv_path))
    doc = rows.document
    assert doc["kind"] == "run" and rows.json_paths == [rows.csv_path[:-4] + ".json"]
    assert json.load(open(rows.json_paths[0])) == doc
    with open(rows.csv_path) as f:
        table = list(csv.DictReader(f))
    assert list(table[0].keys()) == mbench.SEED_COLUMNS + _seed.MBENCH_COLUMNS
    for row, line, run in zip(rows, table, doc["runs"]):
        assert row["framework"] == "onnxruntime" and row["model"] == cfg.model_name
        assert row["processes"] == 2 and row["iterations"] == 20  # the seed's count
        assert len(run["samples_ns"]) == 20
        assert None not in (row["latency_p95_ms"], row["latency_p99_ms"])
        # the seed's p50: the median of the pooled iterations (numpy's)
        xs = sorted(x / 1e6 for x in run["samples_ns"])
        assert row["latency_p50_ms"] == pytest.approx((xs[9] + xs[10]) / 2)
        assert row["latency_p99_ms"] == pytest.approx(xs[18] + 0.81 * (xs[19] - xs[18]))
        assert row["latency_max_ms"] == pytest.approx(xs[-1])
        # the seed's throughput is images per second: samples, not calls
        assert row["throughput_ips"] == pytest.approx(run["throughput"]["samples_per_s"])
        assert row["throughput_ips"] == pytest.approx(row["batch_size"] * row["inferences_per_s"], rel=1e-6)
        assert row["latency_min_ms"] <= row["latency_p50_ms"] <= row["latency_max_ms"]
        assert row["latency_ci_lo_ms"] <= row["latency_median_ms"] <= row["latency_ci_hi_ms"]
        assert row["compilation_time_ms"] is None  # ORT compiles nothing apart
        assert row["session_create_ms"] == pytest.approx(run["phases"]["session_create_ns"] / 1e6)
        assert row["input_shape"] == str(tuple(run["inputs"][0]["shape"][1:]))  # per sample
        assert 0 < row["memory_mb"] < row["process_rss_peak_mb"]
        for k in SEED_METRICS + SEED_META:
            assert line[k] == ("" if row[k] is None else str(row[k])), k
    # the document is mbench's own: report and gate take it
    p = subprocess.run([cli(), "report", rows.json_paths[0], "--csv", str(tmp_path / "r.csv")],
                       stderr=subprocess.PIPE, text=True)
    assert p.returncode == 0, p.stderr
    p = subprocess.run([cli(), "gate", "--current", rows.json_paths[0], "--baseline",
                        rows.json_paths[0], "-q"], stderr=subprocess.PIPE, text=True)
    assert p.returncode in (0, 4), p.stderr


def test_files_are_never_overwritten(tmp_path):
    first = _seed._stamp_path(str(tmp_path))
    open(first + ".csv", "w").close()
    second = _seed._stamp_path(str(tmp_path))
    assert second != first and second.startswith(first)
    with pytest.raises(FileExistsError):
        _seed._write_csv(first + ".csv", [])


def test_the_suite_writes_one_csv_and_a_document_per_configuration(tmp_path):
    model = _digits(tmp_path)
    rows = mbench.run_benchmark_suite(models=[model], frameworks=["onnxruntime"],
                                      batch_sizes=[1, 2], csv_output_dir=str(tmp_path / "o"),
                                      verbose=False, processes=2, threads=1,
                                      warmup_iterations=2, measurement_iterations=10,
                                      options=FAST_OPTS)
    assert [r["batch_size"] for r in rows] == [1, 2] and len(rows.documents) == 1
    names = sorted(os.listdir(tmp_path / "o"))
    assert len(names) == 2 and names[0].endswith(".csv")
    assert names[1].endswith("_onnxruntime_digits.onnx.json")


def test_a_python_model_object_with_the_seeds_names(tmp_path):
    np = pytest.importorskip("numpy")
    if not have_plugin("python"):
        pytest.skip("the python backend is not built")
    import seed_models
    cfg = mbench.BenchmarkConfig("numpy", "mlp", model=seed_models.Mlp(), input_shape=(64,),
                                 batch_sizes=[2], csv_output_dir=str(tmp_path), verbose=False,
                                 processes=1, threads=1, warmup_iterations=2,
                                 measurement_iterations=10, options=FAST_OPTS)
    row = mbench.run_inference_benchmark(cfg)[0]
    assert row["framework"] == "numpy" and row["model"] == "mlp" and row["status"] == "ok"
    assert row["input_shape"] == "(64,)" and row["dtype"] == "float32"
    assert row["compilation_time_ms"] is None  # nothing compiles
    assert row["runtime"].startswith("numpy ") and row["spec"].startswith("pickle:")
    assert np.isfinite(row["latency_p50_ms"]) and row["process_rss_peak_mb"] > 0
    assert row["memory_mb"] is None  # a plain callable's weights are not known


def test_pytorch_resnet_family_runs_with_device_fallback(tmp_path, capsys):
    import importlib.util
    if importlib.util.find_spec("torchvision") is None or not have_plugin("python"):
        pytest.skip("torchvision or the python backend is missing")
    cfg = mbench.BenchmarkConfig("pytorch", "mobilenet_v3_small", device_prefer="cuda",
                                 batch_sizes=[1], csv_output_dir=str(tmp_path),
                                 processes=1, threads=1, warmup_iterations=2,
                                 measurement_iterations=10, options=FAST_OPTS)
    rows = mbench.run_inference_benchmark(cfg)
    r = rows[0]
    assert r["status"] == "ok" and r["runtime"].startswith("torch ")
    assert r["device_type"] in ("cpu", None) and r["spec"] == "torchvision:mobilenet_v3_small"
    err = capsys.readouterr().err
    assert "mbench: warning: device_prefer='cuda' is not available here" in err
    assert "mbench: error:" not in err  # the fallback is no error
    assert any("measured on the CPU" in n for n in rows.document["warnings"])


def _doc(backend, phases):
    run = {"status": "ok", "backend": backend, "batch_size": 4, "device": "cpu",
           "device_type": "cpu", "runtime": {"name": "jax", "version": "0.10.2"},
           "model": {"path": "flax:resnet50", "name": "flax:resnet50"},
           "inputs": [{"name": "x", "dtype": "float32", "shape": [4, 3, 224, 224]}],
           "phases": phases, "replication": {"processes": 3}, "iterations": 30,
           "latency": {"median": 2e6, "p95": 3e6, "p99": 4e6, "mean": 2.2e6, "std": 1e5,
                       "min": 1.5e6, "max": 5e6,
                       "median_ci95": {"estimate": 2.1e6, "lo": 1.9e6, "hi": 2.3e6}},
           "throughput": {"inferences_per_s": 500.0, "samples_per_s": 2000.0},
           "memory": {"rss_peak_bytes": 300 * 1048576,
                      "rss_after_session_bytes": 298 * 1048576}}
    run["model"]["param_bytes"] = 1048576
    return {"kind": "run", "created_utc": "2026-11-27T10:00:00Z",
            "git": {"commit": "abc"}, "runs": [run]}


def test_compile_time_is_the_compile_phase_and_nothing_for_eager_models():
    jax = _seed.seed_rows(_doc("python", {"compile_ns": 7.5e9, "session_create_ns": 9e9}),
                          "jax", "resnet50")[0]
    assert jax["compilation_time_ms"] == 7500.0
    eager = _seed.seed_rows(_doc("python", {"compile_ns": None, "session_create_ns": 9e9}),
                            "pytorch", "resnet50")[0]
    assert eager["compilation_time_ms"] is None  # building the model is not compiling
    ort = _seed.seed_rows(_doc("ort", {"session_create_ns": 4e6}), "onnxruntime", "m")[0]
    assert ort["compilation_time_ms"] is None and ort["session_create_ms"] == 4.0
    # without samples: the document's pooled median; mbench's own apart
    assert jax["latency_p50_ms"] == 2.0 and jax["latency_median_ms"] == 2.1
    assert jax["throughput_ips"] == 2000.0
    # per sample; the weights (1 MiB) and what the inferences added (2 MiB)
    assert jax["input_shape"] == "(3, 224, 224)" and jax["memory_mb"] == 3.0
    assert jax["process_rss_peak_mb"] == 300.0


def test_the_seeds_percentiles_are_numpys():
    xs = [5.0, 1.0, 3.0, 2.0, 4.0]
    s = sorted(xs)
    assert _seed.percentile(s, 50) == 3.0 and _seed.percentile(s, 95) == pytest.approx(4.8)
    assert _seed.percentile(s, 99) == pytest.approx(4.96) and _seed.percentile([], 50) is None
    doc = _doc("python", {"compile_ns": None})
    doc["runs"][0]["samples_ns"] = [x * 1e6 for x in xs]
    row = _seed.seed_rows(doc, "pytorch", "m")[0]
    assert (row["latency_p50_ms"], row["latency_min_ms"], row["latency_max_ms"]) == (3.0, 1.0, 5.0)
    assert row["latency_std_ms"] == pytest.approx(2 ** 0.5)  # numpy.std: population
    assert row["git_commit"] == "abc" and row["timestamp"] == "2026-11-27T10:00:00Z"


def test_a_jax_model_reports_its_compile_time(tmp_path):
    env = os.path.join(os.environ.get("MBENCH_FRAMEWORKS_DIR") or
                       os.path.join(ROOT, "build", "frameworks"), "jax")
    if not os.path.exists(os.path.join(env, "bin", "python")) or not have_plugin("python"):
        pytest.skip(f"no jax environment ({env}: make frameworks) or python backend")
    model = os.path.join(ROOT, "tests", "fixtures", "python", "models.py") + ":jax_mlp"
    cfg = mbench.BenchmarkConfig("jax", "mlp", model=model, python=env, input_shape=(64,),
                                 batch_sizes=[2], csv_output_dir=str(tmp_path), verbose=False,
                                 processes=1, threads=1, warmup_iterations=2,
                                 measurement_iterations=10, options=FAST_OPTS)
    rows = mbench.run_inference_benchmark(cfg)
    row = rows[0]
    assert row["status"] == "ok" and row["runtime"].startswith("jax ")
    compile_ns = rows.document["runs"][0]["phases"]["compile_ns"]
    assert compile_ns > 0 and row["compilation_time_ms"] == pytest.approx(compile_ns / 1e6)


def test_the_runner_command_takes_the_seeds_flags(tmp_path):
    """python -m mbench.runner: the old runner's flags, its exit codes and
    its CSV (one row per batch size), on an ONNX model (fast)."""
    import sys
    import mbench.runner as runner
    assert runner.BenchmarkConfig is mbench.BenchmarkConfig
    out = tmp_path / "raw"
    argv = ["--framework", "onnxruntime", "--model", _digits(tmp_path), "--batch-sizes", "1",
            "3", "--iterations", "10", "--warmup", "2", "--output-dir", str(out),
            "--processes", "2", "--threads", "1"]
    p = subprocess.run([sys.executable, "-m", "mbench.runner"] + argv, cwd=str(tmp_path),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       env=dict(os.environ, PYTHONPATH=os.path.dirname(
                           os.path.dirname(mbench.__file__))))
    assert p.returncode == 0, p.stderr
    assert "Total configurations: 2" in p.stdout
    csvs = [n for n in os.listdir(out) if n.endswith(".csv")]
    assert len(csvs) == 1 and ("Results saved to: " + str(out / csvs[0])) in p.stdout
    with open(out / csvs[0]) as f:
        table = list(csv.DictReader(f))
    assert [r["batch_size"] for r in table] == ["1", "3"]
    assert all(int(r["iterations"]) >= 10 and r["processes"] == "2" for r in table)
    assert all(r["latency_p95_ms"] and r["latency_p99_ms"] for r in table)
    # a configuration mbench cannot honour: one line, exit 2, nothing written
    for bad in (["--framework", "tensorflow"], ["--batch-sizes", "0"],
                ["--warmup", "-1"]):
        p = subprocess.run([sys.executable, "-m", "mbench.runner", "--output-dir",
                            str(tmp_path / "none")] + bad,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=dict(os.environ, PYTHONPATH=os.path.dirname(
                               os.path.dirname(mbench.__file__))))
        assert p.returncode == 2 and p.stderr.count("\n") == 1, (bad, p.stderr)
        assert p.stderr.startswith("mbench.runner: error: ")
    assert not (tmp_path / "none").exists()
