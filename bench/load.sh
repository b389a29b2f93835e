#!/usr/bin/env bash
# bench/load.sh - figures of `mbench load` (docs/LOAD.md and BENCHMARKS.md
# quote them):
#  1. harness rate: requests per second the load engine issues and records
#     on the null backend with zero service time (run() returns at once):
#     closed loop with 1 and 2 threads in alternating pairs, both at
#     normal priority (--realtime none; auto would serve 1 thread at
#     real-time priority and 2 at normal on 2 CPUs), the ratio of each
#     pair: does the loop scale with threads?  Poisson arrivals at
#     200k and 1M requests/s served by 2 threads (achieved rate, latency
#     from the scheduled arrival, dropped), and offline (1M requests).
#  2. the null backend with 1 ms of service under Poisson arrivals at
#     500/s on one thread (--realtime serve): p50/p90/p99 against an M/D/1
#     replay of the same arrivals with exactly 1 ms of service.
#  2b. the null backend's sleep served as queueing theory says (the figures
#     make test checked until they moved here; make test now holds the
#     engine to accounting identities that hold at any load): a closed
#     loop of N = 1, 2, 4 threads and 10 ms of service gives N / S; offline,
#     200 requests on 2 threads of 5 ms give 2 / S; Poisson 250/s to one
#     thread of 2 ms (M/D/1, rho = 0.5) waits, on average, the
#     Pollaczek-Khinchine value of the service it actually got.  Each with
#     the measured service time (wake-up overshoot included) and the
#     deviation in percent.
#  3. the SLO search on the Fashion-MNIST CNN (bench/models/make_fashion.py;
#     p99 <= 1 ms, one serving thread, one intra-op thread, the default 5
#     searches) repeated RUNS times: each run's answer and 95% interval,
#     and the spread of the answers over the runs against the intervals.
#     The HTML report of the last run is kept in BUILD/bench/load.html.
# The machine's load average is printed with every part: on a shared
# machine every figure here is a figure of that machine at that moment.
# Usage: bench/load.sh BUILD_DIR [RUNS] [PAIRS]
set -u
build=${1:-build}
runs=${2:-3}
pairs=${3:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
mbench="$root/$build/mbench"
[ -x "$mbench" ] || { echo "bench/load.sh: $mbench not built" >&2; exit 2; }
export MBENCH_ORT_LIB=${MBENCH_ORT_LIB:-$root/build/ort/libonnxruntime.so.1}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mbench-load-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3
load() { cut -d' ' -f1-3 /proc/loadavg; }
steal() { head -1 /proc/stat | awk '{print $9, $2+$3+$4+$5+$6+$7+$8+$9}'; }
steal0=$(steal)

echo "load average at start: $(load) on $(nproc) CPUs"
echo
echo "### harness rate, null backend, zero service time (load $(load))"
show() { # JSON LABEL
    $py - "$1" "$2" <<'PYEOF'
import json, sys
st = json.load(open(sys.argv[1]))["load"]["steps"][-1]
lat = st["latency"]
p = lambda v: "-" if v is None else ("%.0f ns" % v if v < 1e4 else "%.3f ms" % (v / 1e6))
tgt = st["target_qps"]
print("%-34s %10.0f requests/s achieved%s (%.2f M per CPU-second of the serving threads); "
      "%d requests, %d dropped; latency p50 %s, p99 %s"
      % (sys.argv[2], st["achieved_qps"], "" if tgt is None else " (target %.0f)" % tgt,
         (st.get("requests_per_cpu_s") or 0) / 1e6,
         st["requests"]["completed"], st["requests"]["dropped"], p(lat.get("median")), p(lat.get("p99"))))
PYEOF
}
rate() { $py -c 'import json,sys; print(json.load(open(sys.argv[1]))["load"]["steps"][-1][sys.argv[2]])' "$1" "$2"; }
ratios=() cratios=()
for k in $(seq 1 "$pairs"); do
    for c in 1 2; do
        "$mbench" load harness --backend null --concurrency $c --min-time 1s --records 0 \
            --realtime none --quiet --json "$tmp/closed$c.json" &&
            show "$tmp/closed$c.json" "closed loop, $c thread(s), pair $k"
    done
    ratios+=("$($py -c 'import sys; print("%.2f" % (float(sys.argv[2]) / float(sys.argv[1])))' \
        "$(rate "$tmp/closed1.json" achieved_qps)" "$(rate "$tmp/closed2.json" achieved_qps)")")
    cratios+=("$($py -c 'import sys; print("%.2f" % (float(sys.argv[2]) / float(sys.argv[1])))' \
        "$(rate "$tmp/closed1.json" requests_per_cpu_s)" "$(rate "$tmp/closed2.json" requests_per_cpu_s)")")
done
echo "closed loop, 2 threads / 1 thread per pair: requests/s ${ratios[*]}; requests per CPU-second ${cratios[*]}"
echo "(the process's share of the CPUs bounds requests/s: with autogroup scheduling its threads share one group's weight)"
for q in 200000 1000000; do
    "$mbench" load harness --backend null --concurrency 2 --qps $q --min-time 2s --records 0 \
        --quiet --json "$tmp/p$q.json" && show "$tmp/p$q.json" "Poisson $q/s, 2 threads"
done
"$mbench" load harness --backend null --concurrency 2 --offline --requests 1000000 --records 0 \
    --quiet --json "$tmp/off.json" && show "$tmp/off.json" "offline 1M requests, 2 threads"

echo
echo "### null backend sleep=1ms, Poisson 500/s, 1 thread, --realtime serve, against M/D/1 (load $(load))"
for k in 1 2 3; do
    "$mbench" load harness --backend null --backend-opt sleep=1000000 --qps 500 --concurrency 1 \
        --min-time 3s --realtime serve --quiet --json "$tmp/md1.json" || continue
    $py - "$tmp/md1.json" <<'PYEOF'
import json, sys
import numpy as np
d = json.load(open(sys.argv[1])); st = d["load"]["steps"][0]; r = st["records"]
a, e = np.array(r["arrival_ns"], dtype=np.int64), np.array(r["end_ns"], dtype=np.int64)
free, ref = -1e18, []
for x in a:
    free = max(x, free) + 1e6
    ref.append(free - x)
m = e - a
print("  " + ", ".join("p%d %.3f ms vs %.3f ms (%+.1f%%)" % (q, np.percentile(m, q) / 1e6, np.percentile(ref, q) / 1e6,
                                                           (np.percentile(m, q) / np.percentile(ref, q) - 1) * 100)
                       for q in (50, 90, 99))
      + "; real-time threads %d" % st["dispatch"]["issue"]["realtime_threads"])
PYEOF
done

echo
echo "### null backend sleep: closed loop N / S, offline 2 / S, M/D/1 mean wait (load $(load))"
"$mbench" load harness --backend null --backend-opt sleep=10000000 --concurrency 1,2,4 --min-time 1s \
    --quiet --json "$tmp/nos.json" &&
"$mbench" load harness --backend null --backend-opt sleep=5000000 --offline --requests 200 --concurrency 2 \
    --quiet --json "$tmp/off2.json" &&
"$mbench" load harness --backend null --backend-opt sleep=2000000 --qps 250 --concurrency 1 --min-time 6s \
    --quiet --json "$tmp/pk.json" &&
$py - "$tmp/nos.json" "$tmp/off2.json" "$tmp/pk.json" <<'PYEOF'
import json, sys
import numpy as np
for st in json.load(open(sys.argv[1]))["load"]["steps"]:
    n, x, s = st["concurrency"], st["achieved_qps"], st["service"]["mean_ns"]
    print("  closed loop N=%d, S=10 ms: %.2f/s, N/S_measured %.2f/s (%+.1f%%), S_measured %.3f ms"
          % (n, x, n / s * 1e9, (x / (n / s * 1e9) - 1) * 100, s / 1e6))
st = json.load(open(sys.argv[2]))["load"]["steps"][0]
x, s = st["achieved_qps"], st["service"]["mean_ns"]
print("  offline 200 requests, 2 threads, S=5 ms: %.2f/s, 2/S_measured %.2f/s (%+.1f%%), S_measured %.3f ms"
      % (x, 2 / s * 1e9, (x / (2 / s * 1e9) - 1) * 100, s / 1e6))
st = json.load(open(sys.argv[3]))["load"]["steps"][0]
r = st["records"]
a, b, e = (np.array(r[k], dtype=np.float64) for k in ("arrival_ns", "start_ns", "end_ns"))
ready = np.maximum(a, np.concatenate(([-1e18], e[:-1])))
svc, lag, wait = e - ready, b - ready, b - a
lam = len(a) / a[-1] * 1e9
rho = lam * svc.mean() / 1e9
pk = lam / 1e9 * (svc ** 2).mean() / (2 * (1 - rho))
print("  Poisson 250/s, 1 thread, S=2 ms: %d requests, rho %.3f, mean wait %.3f ms against "
      "Pollaczek-Khinchine %.3f ms + dispatch lag %.3f ms (%+.1f%%)"
      % (len(a), rho, wait.mean() / 1e6, pk / 1e6, lag.mean() / 1e6,
         (wait.mean() / (pk + lag.mean()) - 1) * 100))
PYEOF

echo
models="$root/$build/bench/models"
if ! [ -f "$models/fashion_cnn.onnx" ]; then
    mkdir -p "$models"
    $py "$root/bench/models/make_fashion.py" "$models" >/dev/null
fi
if ! [ -f "$models/fashion_cnn.onnx" ]; then
    echo "(SLO search skipped: no Fashion-MNIST CNN; apt-get install dataset-fashion-mnist)"
    exit 0
fi
echo "### SLO search, Fashion-MNIST CNN, p99 <= 1 ms, 1 thread, $runs runs of 5 searches"
for k in $(seq 1 "$runs"); do
    echo "run $k: load $(load)"
    "$mbench" load "$models/fashion_cnn.onnx" --slo p99=1ms --concurrency 1 --threads 1 \
        --records 0 --quiet --json "$tmp/slo$k.json" --html "$root/$build/bench/load.html" ||
        echo "(the SLO search failed)"
done
$py - "$tmp" "$runs" <<'PYEOF'
import json, sys, os
import numpy as np
rows = []
for k in range(1, int(sys.argv[2]) + 1):
    f = os.path.join(sys.argv[1], "slo%d.json" % k)
    if not os.path.exists(f):
        continue
    s = json.load(open(f))["load"]["search"]
    ci = s["qps_ci95"]
    rows.append((s["qps"], ci))
    print("run %d: %.0f requests/s, 95%% CI %s; searches %s; realtime %s"
          % (k, s["qps"], "%.0f-%.0f" % tuple(ci) if ci else "-",
             " ".join("%.0f" % x["qps"] for x in s["searches"]),
             json.load(open(f))["load"]["rules"]["realtime"]))
if len(rows) >= 2 and all(r[1] for r in rows):
    a = np.array([r[0] for r in rows])
    hw = np.array([np.log(r[1][1] / r[1][0]) / 2 for r in rows])
    print("over %d runs: answers %.0f-%.0f, sd of the log answers %.3f; the intervals' half-width "
          "on the log scale %.3f on average, i.e. an implied sd of one run's answer of %.3f (t, 4 df)"
          % (len(a), a.min(), a.max(), np.log(a).std(ddof=1), hw.mean(), hw.mean() / 2.776))
PYEOF
echo "load average at end: $(load); CPU time stolen by the host during the run: $(echo "$steal0 $(steal)" | awk '{printf "%.2f%%", ($3-$1)/($4-$2)*100}')"
echo "HTML report with the chart: $build/bench/load.html"
