#!/usr/bin/env bash
# bench/load.sh - figures of `mbench load` (docs/LOAD.md and BENCHMARKS.md
# quote them):
#  1. harness rate: requests per second the load engine issues and records
#     on the null backend with zero service time (run() returns at once):
#     closed loop with 1 and 2 threads (each request = two clock reads, a
#     call, a record and an atomic count), Poisson arrivals at 200k and
#     1M requests/s served by 2 threads (achieved rate, latency from the
#     scheduled arrival, dropped), and offline (1M requests at once).
#  2. the SLO search on a real ONNX model (models/digits_fp32.onnx, one
#     intra-op thread, 2 serving threads sharing one session, p99 <= 20 ms)
#     repeated SEARCHES times: the median answer and its spread; the HTML
#     report with the hockey-stick chart is kept in BUILD/bench/load.html.
# The machine's load average is printed first: on a shared machine every
# figure here is a figure of that machine at that moment.
# Usage: bench/load.sh BUILD_DIR [SEARCHES] [MIN_TIME]
set -u
build=${1:-build}
searches=${2:-5}
min_time=${3:-1s}
root=$(cd "$(dirname "$0")/.." && pwd)
mbench="$root/$build/mbench"
[ -x "$mbench" ] || { echo "bench/load.sh: $mbench not built" >&2; exit 2; }
export MBENCH_ORT_LIB=${MBENCH_ORT_LIB:-$root/build/ort/libonnxruntime.so.1}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mbench-load-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
echo
echo "### harness rate, null backend, zero service time"
show() { # JSON LABEL
    $py - "$1" "$2" <<'PYEOF'
import json, sys
st = json.load(open(sys.argv[1]))["load"]["steps"][-1]
lat = st["latency"]
p = lambda v: "-" if v is None else ("%.0f ns" % v if v < 1e4 else "%.3f ms" % (v / 1e6))
tgt = st["target_qps"]
print("%-34s %10.0f requests/s achieved%s; %d requests, %d dropped; latency p50 %s, p99 %s"
      % (sys.argv[2], st["achieved_qps"], "" if tgt is None else " (target %.0f)" % tgt,
         st["requests"]["completed"], st["requests"]["dropped"], p(lat.get("median")), p(lat.get("p99"))))
PYEOF
}
for c in 1 2; do
    "$mbench" load harness --backend null --concurrency $c --min-time 2s --records 0 \
        --quiet --json "$tmp/closed$c.json" && show "$tmp/closed$c.json" "closed loop, $c thread(s)"
done
for q in 200000 1000000; do
    "$mbench" load harness --backend null --concurrency 2 --qps $q --min-time 2s --records 0 \
        --quiet --json "$tmp/p$q.json" && show "$tmp/p$q.json" "Poisson $q/s, 2 threads"
done
"$mbench" load harness --backend null --concurrency 2 --offline --requests 1000000 --records 0 \
    --quiet --json "$tmp/off.json" && show "$tmp/off.json" "offline 1M requests, 2 threads"

echo
echo "### SLO search, models/digits_fp32.onnx, p99 <= 20 ms, $searches searches"
"$mbench" load "$root/models/digits_fp32.onnx" --slo p99=20ms --concurrency 2 --threads 1 \
    --repeat "$searches" --min-time "$min_time" --records 0 --quiet \
    --json "$tmp/slo.json" --html "$root/$build/bench/load.html" || {
    echo "(the SLO search failed)"; exit 1; }
$py - "$tmp/slo.json" <<'PYEOF'
import json, sys
import numpy as np
s = json.load(open(sys.argv[1]))["load"]["search"]
q = np.array([x["qps"] for x in s["searches"]])
a = np.array([x["achieved_qps"] for x in s["searches"]])
steps = [x["steps"] for x in s["searches"]]
print("answers (requests/s):", " ".join("%.0f" % v for v in q))
print("median %.0f requests/s (achieved %.0f/s), range %.0f-%.0f = %.1f%% of the median, "
      "sd/mean %.1f%%; %s steps per search"
      % (np.median(q), np.median(a), q.min(), q.max(), (q.max() - q.min()) / np.median(q) * 100,
         q.std(ddof=1) / q.mean() * 100 if len(q) > 1 else 0, "/".join(map(str, steps))))
PYEOF
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "HTML report with the chart: $build/bench/load.html"
