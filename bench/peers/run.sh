#!/usr/bin/env bash
# make bench-peers: mbench side by side with the tools its users would
# otherwise run, each pair interleaved in one run (docs/PERFORMANCE.md):
#   1. mbench's openvino backend vs OpenVINO's benchmark_app (latency hint,
#      1 stream, 1 thread) on the same model;
#   2. mbench vs onnxruntime's Python InferenceSession.run loop (the same
#      libonnxruntime: the wheel's);
#   3. mbench diff vs reading the two files, numpy and scikit-image;
#   4. mbench exec vs hyperfine (bench/exec.sh);
#   5. mbench's Python callable runs (the python backend) vs pyperf and
#      pytest-benchmark on the same function;
#   6. mbench load vs MLPerf LoadGen (mlcommons-loadgen): Server p99,
#      Offline and issue rates, pair by pair (peers.py loadgen);
#   7. the SLO answer (--slo p99=5ms, then p99=50ms) at normal priority
#      beside LoadGen's FindPeakPerformance (bench/peers/loadgen_slo.sh).
# Every peer figure of docs/LOAD.md, BENCHMARKS.md, PERFORMANCE.md and
# FRAMEWORKS.md comes from this one run.  Needs the venvs of `make
# frameworks` (openvino, peers).  Prints Markdown with the load average
# beside every ratio; keeps a copy in BUILD/bench/peers.txt.
#   bench/peers/run.sh [BUILD_DIR] [PAIRS]      (default build, 8 pairs)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
pairs=${2:-8}
fw=${MBENCH_FRAMEWORKS_DIR:-$root/build/frameworks}
export MBENCH="$root/$build/mbench" MBENCH_ROOT="$root" OV_VENV="$fw/openvino" MBENCH_BUILD="$build"
for v in openvino peers; do
    [ -x "$fw/$v/bin/python" ] || { echo "bench-peers: no $v venv in $fw; run 'make frameworks'" >&2; exit 2; }
done
[ -f "$root/$build/plugins/mbench_openvino.so" ] ||
    { echo "bench-peers: the openvino plugin is not built ($root/$build/plugins); run make after make frameworks" >&2; exit 2; }
ORT_LIB=$(ls "$fw"/peers/lib/python3*/site-packages/onnxruntime/capi/libonnxruntime.so.1* 2>/dev/null | head -n1)
export ORT_LIB
PY="$fw/peers/bin/python"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mbench-peers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
out="$root/$build/bench/peers.txt"
mkdir -p "$(dirname "$out")"
/usr/bin/python3 "$root/tests/fixtures/profile/make_archs.py" "$tmp" mobilenetv2 >/dev/null
{
    echo "# mbench vs peers, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) CPUs:$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo
    echo "## 1. OpenVINO: mbench vs benchmark_app"
    echo
    "$PY" "$root/bench/peers/peers.py" openvino "$tmp" "$pairs"
    echo
    echo "## 2. ONNX Runtime: mbench vs a Python InferenceSession.run loop"
    echo
    "$PY" "$root/bench/peers/peers.py" ort "$tmp" "$pairs"
    echo
    echo "## 3. Metrics: mbench diff vs np.load, numpy and scikit-image"
    echo
    "$PY" "$root/bench/peers/peers.py" metrics "$tmp" "$pairs"
    echo
    echo "## 4. mbench exec vs hyperfine"
    echo
    bash "$root/bench/exec.sh" "$build" 40 4
    echo
    echo "## 5. Python callables: mbench vs pyperf and pytest-benchmark"
    echo
    if [ -f "$root/$build/plugins/mbench_python.so" ]; then
        "$PY" "$root/bench/peers/peers.py" python "$tmp" "$pairs"
    else
        echo "skipped: the python backend is not built (it needs python3-dev: scripts/deps.sh)"
    fi
    echo
    echo "## 6. mbench load vs MLPerf LoadGen"
    echo
    if ! [ -f "$root/$build/bench/models/fashion_cnn.onnx" ]; then
        mkdir -p "$root/$build/bench/models"
        /usr/bin/python3 "$root/bench/models/make_fashion.py" "$root/$build/bench/models" >/dev/null || true
    fi
    "$PY" "$root/bench/peers/peers.py" loadgen "$tmp" "$(( pairs < 4 ? pairs : 4 ))"
    echo
    echo "## 7. The SLO answer beside LoadGen's FindPeakPerformance"
    echo
    # The issue's bound, then one that a normal-priority server can meet on
    # a loaded machine (where at 5 ms neither tool finds a rate).
    for slo in p99=5ms p99=50ms; do
        MBENCH_PEERS_PY="$PY" bash "$root/bench/peers/loadgen_slo.sh" "$build" "$(( pairs < 3 ? pairs : 3 ))" "$slo"
        echo
    done
} 2>&1 | tee "$out"
echo "results kept in $out"
