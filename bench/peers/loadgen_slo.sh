#!/usr/bin/env bash
# The SLO answer beside MLPerf LoadGen's (make bench-peers; docs/LOAD.md,
# "Two answers"): `mbench load --slo pQ=BOUND --realtime none` (its
# measured-basis answer, "as a normal-priority server measured it", and
# its model-capacity answer) and LoadGen's Server scenario in
# FindPeakPerformance mode (bench/peers/loadgen_peak.py) on the same
# Fashion-MNIST CNN, one serving thread and one intra-op thread each,
# alternating ROUNDS times; the load average beside every row.
#   bench/peers/loadgen_slo.sh [BUILD_DIR] [ROUNDS] [SLO]   (build, 3, p99=5ms)
# Needs the peers venv (make frameworks; MBENCH_FRAMEWORKS_DIR) with
# mlcommons-loadgen and onnxruntime.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
rounds=${2:-3}
slo=${3:-p99=5ms}
mbench=${MBENCH:-$root/$build/mbench}
fw=${MBENCH_FRAMEWORKS_DIR:-$root/build/frameworks}
peers=${MBENCH_PEERS_PY:-$fw/peers/bin/python}
if ! [ -x "$peers" ] || ! "$peers" -c 'import mlperf_loadgen, onnxruntime' 2>/dev/null; then
    echo "(skipped: no MLPerf LoadGen in $peers; run 'make frameworks')"
    exit 0
fi
models="$root/$build/bench/models"
if ! [ -f "$models/fashion_cnn.onnx" ]; then
    mkdir -p "$models"
    /usr/bin/python3 "$root/bench/models/make_fashion.py" "$models" >/dev/null || true
fi
if ! [ -f "$models/fashion_cnn.onnx" ]; then
    echo "(skipped: no Fashion-MNIST CNN; apt-get install dataset-fashion-mnist python3-torch)"
    exit 0
fi
q=${slo%%=*}; q=${q#p}
bound=${slo#*=}
bound_ms=$(/usr/bin/python3 -c "
import re, sys
m = re.fullmatch(r'([0-9.]+)(us|ms|s)', sys.argv[1])
print(float(m.group(1)) * {'us': 1e-3, 'ms': 1, 's': 1e3}[m.group(2)])" "$bound")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mbench-lgslo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
load() { cut -d' ' -f1 /proc/loadavg; }
for k in $(seq 1 "$rounds"); do
    sides="m l"; [ $((k % 2)) -eq 0 ] && sides="l m"
    for s in $sides; do
        l0=$(load)
        if [ "$s" = m ]; then
            # the onnxruntime wheel's library when given (run.sh: ORT_LIB), as
            # LoadGen's SUT runs it
            MBENCH_ORT_LIB=${ORT_LIB:-${MBENCH_ORT_LIB:-}} "$mbench" load "$models/fashion_cnn.onnx" --slo "$slo" --concurrency 1 --threads 1 \
                --realtime none --min-time 0.25 --max-time 5 --records 0 --quiet \
                --json "$tmp/m$k.json" || echo "(mbench run $k failed)" >&2
        else
            "$peers" "$root/bench/peers/loadgen_peak.py" --model "$models/fashion_cnn.onnx" \
                --bound-ms "$bound_ms" --percentile "$q" --start-qps 2000 --floor-qps 100 \
                --outdir "$tmp/lg$k" > "$tmp/l$k.json" || echo "(LoadGen run $k failed)" >&2
        fi
        echo "$l0 $(load)" > "$tmp/$s$k.load"
    done
done
/usr/bin/python3 - "$tmp" "$rounds" "$slo" <<'PYEOF'
import json, os, sys
tmp, rounds, slo = sys.argv[1], int(sys.argv[2]), sys.argv[3]
print("`--slo %s`, Fashion-MNIST CNN, 1 serving thread, 1 intra-op thread, normal priority "
      "on both sides, %d alternating rounds\n" % (slo, rounds))
print("| round | tool | question | answer/s | 95% interval | searches (range) | load |")
print("|---:|---|---|---:|---:|---:|---:|")
for k in range(1, rounds + 1):
    ld = {s: open(os.path.join(tmp, "%s%d.load" % (s, k))).read().split() for s in "ml"
          if os.path.exists(os.path.join(tmp, "%s%d.load" % (s, k)))}
    f = os.path.join(tmp, "m%d.json" % k)
    if os.path.exists(f):
        A = json.load(open(f))["load"]["slo_answers"]
        for b in ("measured", "model"):
            a = A[b]
            ci = a["qps_ci95"]
            print("| %d | mbench load --realtime none | %s | %s | %s | %.0f-%.0f | %s-%s |" % (
                k, a["question"], "%.0f" % a["qps"] if a["met"] else "no rate met",
                "%.0f-%.0f" % tuple(ci) if ci else "-", a["min_qps"], a["max_qps"], *ld["m"]))
    f = os.path.join(tmp, "l%d.json" % k)
    if os.path.exists(f) and os.path.getsize(f):
        r = json.load(open(f))
        print("| %d | LoadGen FindPeakPerformance | its Server validity (early stopping) | %s | - | "
              "base rates tried %s | %s-%s |" % (
                  k, "%.0f" % r["peak_qps"] if r["met"] else "no base rate down to %.0f/s met it"
                  % min(r["base_qps_tried"]),
                  " ".join("%.0f" % x for x in r["base_qps_tried"]), *ld["l"]))
PYEOF
