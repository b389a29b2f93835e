#!/usr/bin/env python3
"""One MLPerf LoadGen run for bench/loadgen.sh: the peer of `mbench load`.

The system under test (SUT) is either the null SUT (every query completed
the moment LoadGen issues it, as in LoadGen's own perftests_null_sut) or an
ONNX model run by onnxruntime's Python API on one intra-op thread, served
by one worker thread from a FIFO queue (as `mbench load --concurrency 1
--threads 1` serves it): issue_queries only enqueues, so LoadGen's issue
thread is never blocked by an inference.

Scenarios: Server (Poisson arrivals at --qps; LoadGen measures latency from
each query's scheduled time) and Offline (every query at once).  Prints one
JSON object: the scenario, the SUT, LoadGen's version and its summary
figures (completed or offline samples/s, scheduled samples/s, p50/p90/p99
latency in ns, the validity line), parsed from mlperf_log_summary.txt.

usage: loadgen_peer.py --sut null|onnx [--model M.onnx] --scenario server|offline
                       [--qps R] [--duration-ms D] [--min-queries N] --outdir DIR
"""
import argparse
import json
import os
import queue
import re
import sys
import threading


def parse_summary(path):
    out = {}
    pats = {
        "completed_qps": r"Completed samples per second\s*:\s*([0-9.]+)",
        "scheduled_qps": r"Scheduled samples per second\s*:\s*([0-9.]+)",
        "offline_qps": r"Samples per second\s*:\s*([0-9.]+)",
        "p50_ns": r"50\.00 percentile latency \(ns\)\s*:\s*([0-9]+)",
        "p90_ns": r"90\.00 percentile latency \(ns\)\s*:\s*([0-9]+)",
        "p99_ns": r"99\.00 percentile latency \(ns\)\s*:\s*([0-9]+)",
        "mean_ns": r"Mean latency \(ns\)\s*:\s*([0-9]+)",
        "max_ns": r"Max latency \(ns\)\s*:\s*([0-9]+)",
        "result": r"Result is\s*:\s*(\w+)",
        "early_stopping": r"Early stopping satisfied\s*:\s*(\w+)",
    }
    text = open(path).read()
    for k, p in pats.items():
        m = re.search(p, text)
        if m:
            v = m.group(1)
            out[k] = v if k in ("result", "early_stopping") else float(v)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sut", choices=["null", "onnx"], required=True)
    ap.add_argument("--model")
    ap.add_argument("--scenario", choices=["server", "offline"], required=True)
    ap.add_argument("--qps", type=float, default=1000)
    ap.add_argument("--duration-ms", type=int, default=2000)
    ap.add_argument("--min-queries", type=int, default=1024)
    ap.add_argument("--outdir", required=True)
    a = ap.parse_args()
    try:
        import mlperf_loadgen as lg
        import numpy as np
    except ImportError as e:
        print(f"loadgen_peer.py: {e} (make frameworks: the peers venv)", file=sys.stderr)
        return 77
    os.makedirs(a.outdir, exist_ok=True)

    work = None
    if a.sut == "onnx":
        import onnxruntime as ort
        so = ort.SessionOptions()
        so.intra_op_num_threads = 1
        so.inter_op_num_threads = 1
        sess = ort.InferenceSession(a.model, so, providers=["CPUExecutionProvider"])
        inp = sess.get_inputs()[0]
        shape = [1 if not isinstance(d, int) else d for d in inp.shape]
        x = np.random.default_rng(0).random(shape, dtype=np.float32)
        # The input bound once and the output left to ORT: the least Python
        # per inference (run_with_iobinding; sess.run costs about 1.4x).
        io = sess.io_binding()
        io.bind_cpu_input(inp.name, x)
        io.bind_output(sess.get_outputs()[0].name)
        for _ in range(10):  # warm
            sess.run_with_iobinding(io)
        q = queue.Queue()

        def worker():
            while True:
                items = q.get()
                if items is None:
                    return
                for s in items:
                    sess.run_with_iobinding(io)
                    lg.QuerySamplesComplete([lg.QuerySampleResponse(s.id, 0, 0)])

        work = threading.Thread(target=worker, daemon=True)
        work.start()

        def issue(samples):
            q.put(samples)
    else:
        def issue(samples):
            lg.QuerySamplesComplete([lg.QuerySampleResponse(s.id, 0, 0) for s in samples])

    def flush():
        pass

    settings = lg.TestSettings()
    settings.mode = lg.TestMode.PerformanceOnly
    settings.min_duration_ms = a.duration_ms
    settings.max_duration_ms = 10 * a.duration_ms
    settings.min_query_count = a.min_queries
    if a.scenario == "server":
        settings.scenario = lg.TestScenario.Server
        settings.server_target_qps = a.qps
        settings.server_target_latency_ns = 1000000000
        # One query at a time per callback, as mbench's arrivals come.
        settings.server_coalesce_queries = False
    else:
        settings.scenario = lg.TestScenario.Offline
        settings.offline_expected_qps = a.qps
    log = lg.LogSettings()
    log.log_output.outdir = a.outdir
    log.log_output.copy_summary_to_stdout = False
    sut = lg.ConstructSUT(issue, flush)
    qsl = lg.ConstructQSL(1024, 1024, lambda s: None, lambda s: None)
    lg.StartTestWithLogSettings(sut, qsl, settings, log)
    lg.DestroyQSL(qsl)
    lg.DestroySUT(sut)
    if work is not None:
        q.put(None)
        work.join()
    res = parse_summary(os.path.join(a.outdir, "mlperf_log_summary.txt"))
    try:
        from importlib.metadata import version
        res["loadgen_version"] = version("mlcommons-loadgen")
    except Exception:  # noqa: BLE001 - the figure is optional
        res["loadgen_version"] = None
    res.update({"scenario": a.scenario, "sut": a.sut, "target_qps": a.qps})
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
