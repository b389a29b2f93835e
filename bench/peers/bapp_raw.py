"""benchmark_app with its raw latencies kept (bench/peers/peers.py).

OpenVINO's benchmark_app rounds every latency it reports to two decimals
(0.01 ms in its JSON report: useless for a sub-millisecond model).  This
runs benchmark_app's own main() unchanged, with its percentile() helper
wrapped so that the sorted list of per-iteration latencies (ms) it is
given is also written to OUT as JSON: {"latencies_ms": [...], "median_ms":
the usual median, "bapp_median_ms": benchmark_app's own figure (the value
at rank ceil(n/2)) unrounded}.

usage: python bapp_raw.py OUT.json BENCHMARK_APP_ARGS...   (the openvino venv)
"""
import json
import statistics
import sys

import openvino.tools.benchmark.benchmark as bench
from openvino.tools.benchmark.main import main

out = sys.argv.pop(1)
kept = {}
_percentile = bench.percentile


def percentile(values, percent):
    v = _percentile(values, percent)
    if "latencies_ms" not in kept:  # the first call: all iterations
        kept.update(latencies_ms=list(values), median_ms=statistics.median(values),
                    bapp_median_ms=v, percent=percent)
    return v


bench.percentile = percentile
sys.argv[0] = "benchmark_app"
rc = main()
with open(out, "w") as f:
    json.dump(kept, f)
sys.exit(rc)
