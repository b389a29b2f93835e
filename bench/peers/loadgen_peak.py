#!/usr/bin/env python3
"""MLPerf LoadGen's own answer to `mbench load --slo pQ=BOUND`: its Server
scenario in FindPeakPerformance mode (the highest Poisson rate at which its
early-stopping test holds the percentile under the bound), on an ONNX
model run by onnxruntime's Python API on one intra-op thread and served
by one worker thread from a FIFO queue, as `mbench load --concurrency 1
--threads 1` serves it (the SUT of bench/loadgen_peer.py).  For
bench/peers/loadgen_slo.sh (make bench-peers; docs/LOAD.md).

LoadGen's search needs a base rate that itself meets the bound: the base
starts at --start-qps and halves until it does (down to --floor-qps).
Prints one JSON object: the peak rate LoadGen found ("peak_qps", from its
"Found peak performance field" message; null when no base rate met the
bound), the base rates tried, its summary of the final run.

usage: loadgen_peak.py --model M.onnx --bound-ms 5 [--percentile 99]
                       [--start-qps R] [--floor-qps F] [--duration-ms D] --outdir DIR
"""
import argparse
import json
import os
import queue
import re
import sys
import threading


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--bound-ms", type=float, required=True)
    ap.add_argument("--percentile", type=float, default=99)
    ap.add_argument("--start-qps", type=float, default=1000)
    ap.add_argument("--duration-ms", type=int, default=1000)
    ap.add_argument("--min-queries", type=int, default=2048)
    ap.add_argument("--floor-qps", type=float, default=100)
    ap.add_argument("--outdir", required=True)
    a = ap.parse_args()
    try:
        import mlperf_loadgen as lg
        import numpy as np
        import onnxruntime as ort
    except ImportError as e:
        print(f"loadgen_peak.py: {e} (make frameworks: the peers venv)", file=sys.stderr)
        return 77
    os.makedirs(a.outdir, exist_ok=True)
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(a.model, so, providers=["CPUExecutionProvider"])
    inp = sess.get_inputs()[0]
    shape = [1 if not isinstance(d, int) else d for d in inp.shape]
    x = np.random.default_rng(0).random(shape, dtype=np.float32)
    io = sess.io_binding()
    io.bind_cpu_input(inp.name, x)
    io.bind_output(sess.get_outputs()[0].name)
    for _ in range(10):
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

    def attempt(qps, outdir):
        """One FindPeakPerformance run from base rate qps; its messages."""
        os.makedirs(outdir, exist_ok=True)
        settings = lg.TestSettings()
        settings.scenario = lg.TestScenario.Server
        settings.mode = lg.TestMode.FindPeakPerformance
        settings.server_target_qps = qps
        settings.server_target_latency_ns = int(a.bound_ms * 1e6)
        settings.server_target_latency_percentile = a.percentile / 100
        settings.server_coalesce_queries = False
        settings.min_duration_ms = a.duration_ms
        settings.max_duration_ms = 20 * a.duration_ms
        settings.min_query_count = a.min_queries
        log = lg.LogSettings()
        log.log_output.outdir = outdir
        log.log_output.copy_summary_to_stdout = False
        sut = lg.ConstructSUT(lambda smp: q.put(smp), lambda: None)
        qsl = lg.ConstructQSL(1024, 1024, lambda smp: None, lambda smp: None)
        lg.StartTestWithLogSettings(sut, qsl, settings, log)
        lg.DestroyQSL(qsl)
        lg.DestroySUT(sut)
        msgs = []
        detail = os.path.join(outdir, "mlperf_log_detail.txt")
        for line in open(detail) if os.path.exists(detail) else []:
            if line.startswith(":::MLLOG"):
                try:
                    v = json.loads(line[len(":::MLLOG"):]).get("value")
                except ValueError:
                    continue
                if isinstance(v, str) and v.startswith("FindPeakPerformance"):
                    msgs.append(v)
        return msgs

    # LoadGen's search starts from a base rate that must itself meet the
    # bound ("Initial lower bound does not satisfy performance
    # constraints" otherwise): halve it until it does, down to --floor-qps.
    qps, peak, tried, outdir = a.start_qps, None, [], a.outdir
    while qps >= a.floor_qps:
        outdir = os.path.join(a.outdir, "base%.0f" % qps)
        msgs = attempt(qps, outdir)
        tried.append(qps)
        found = [m for m in msgs if "Found peak performance field" in m]
        if found:
            peak = float(re.search(r"([0-9.]+)\s*$", found[-1]).group(1))
            break
        qps /= 2
    q.put(None)
    work.join()
    res = {"bound_ms": a.bound_ms, "percentile": a.percentile, "base_qps_tried": tried,
           "peak_qps": peak, "met": peak is not None}
    summ = os.path.join(outdir, "mlperf_log_summary.txt")
    text = open(summ).read() if os.path.exists(summ) else ""
    for k, p in (("scheduled_qps", r"Scheduled samples per second\s*:\s*([0-9.]+)"),
                 ("completed_qps", r"Completed samples per second\s*:\s*([0-9.]+)"),
                 ("p99_ns", r"99\.00 percentile latency \(ns\)\s*:\s*([0-9]+)"),
                 ("result", r"Result is\s*:\s*(\w+)")):
        m = re.search(p, text)
        if m:
            res[k] = m.group(1) if k == "result" else float(m.group(1))
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
