#!/usr/bin/env bash
# The coverage of the SLO answer's interval (issue 39; docs/LOAD.md,
# "Coverage of the interval"; docs/STATISTICS.md, "The SLO answer"):
# RUNS repeated `mbench load --slo` runs per mode on the Fashion-MNIST CNN,
# the modes interleaved run by run, each run giving both answers (model
# capacity at the resolved priority; as a normal-priority server measured
# it).  For every (mode, basis) it counts the runs whose 95% interval
# holds the median of the other runs' answers; the goal is at least 8 of
# 10.  The load average is printed beside every run and every figure.
#   bench/slo_coverage.sh [BUILD_DIR] [RUNS] [SLO] [MODES]
#   (defaults: build, 10, p99=5ms, "exact loadgen": --early-stopping rules)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
runs=${2:-10}
slo=${3:-p99=5ms}
modes=${4:-exact loadgen}
mbench=${MBENCH:-$root/$build/mbench}
py=/usr/bin/python3
load() { cut -d' ' -f1 /proc/loadavg; }
models="$root/$build/bench/models"
if ! [ -f "$models/fashion_cnn.onnx" ]; then
    mkdir -p "$models"
    $py "$root/bench/models/make_fashion.py" "$models" >/dev/null || true
fi
if ! [ -f "$models/fashion_cnn.onnx" ]; then
    echo "slo_coverage: no Fashion-MNIST CNN (apt-get install dataset-fashion-mnist python3-torch)" >&2
    exit 77
fi
out=${MBENCH_COVERAGE_DIR:-$root/$build/bench/slo_coverage}
mkdir -p "$out"
echo "# SLO interval coverage, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) CPUs, --slo $slo, $runs runs per mode ($modes), load $(cut -d' ' -f1-3 /proc/loadavg)"
for k in $(seq 1 "$runs"); do
    for m in $modes; do
        l0=$(load)
        t0=$(date +%s)
        "$mbench" load "$models/fashion_cnn.onnx" --slo "$slo" --concurrency 1 --threads 1 \
            --min-time 0.25 --max-time 5 --records 0 --early-stopping "$m" --quiet \
            --json "$out/$m.$k.json" || echo "(run $k $m failed)"
        echo "run $k $m: load $l0-$(load), $(( $(date +%s) - t0 )) s"
        echo "$l0 $(load)" > "$out/$m.$k.load"
    done
done
$py - "$out" "$runs" "$modes" <<'PYEOF'
import json, os, statistics, sys
out, runs, modes = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
print()
print("| mode | basis | run | answer/s | 95% interval | holds the others' median | load |")
print("|---|---|---:|---:|---:|---|---:|")
summary = []
for m in modes:
    docs = {}
    for k in range(1, runs + 1):
        f = os.path.join(out, "%s.%d.json" % (m, k))
        if os.path.exists(f):
            docs[k] = (json.load(open(f)), open(os.path.join(out, "%s.%d.load" % (m, k))).read().split())
    for basis in ("model", "measured"):
        ans = {k: d["load"]["slo_answers"][basis] for k, (d, _) in docs.items()}
        q = {k: a["qps"] for k, a in ans.items()}
        held, loads = 0, []
        for k, a in sorted(ans.items()):
            others = statistics.median([v for j, v in q.items() if j != k])
            ci = a["qps_ci95"]
            ok = ci is not None and ci[0] <= others <= ci[1]
            held += ok
            l = docs[k][1]
            loads += [float(x) for x in l]
            print("| %s | %s | %d | %.0f | %s | %s (median of others %.0f) | %s-%s |" % (
                m, basis, k, a["qps"], "%.0f-%.0f" % tuple(ci) if ci else "none",
                "yes" if ok else "**no**", others, l[0], l[1]))
        summary.append((m, basis, held, len(ans), min(q.values()) if q else 0,
                        max(q.values()) if q else 0, min(loads) if loads else 0,
                        max(loads) if loads else 0))
print()
print("| mode | basis | intervals holding the others' median | answers (min-max) | load |")
print("|---|---|---:|---:|---:|")
for m, b, h, n, lo, hi, l0, l1 in summary:
    print("| %s | %s | **%d of %d** | %.0f-%.0f | %.1f-%.1f |" % (m, b, h, n, lo, hi, l0, l1))
PYEOF
