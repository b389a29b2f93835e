#!/usr/bin/env bash
# make bench: benchmarks of mbench itself.  Prints every figure; keeps a
# copy in BUILD/bench/results.txt.  Ratios are measured within one run.
# Usage: bench/run.sh [BUILD_DIR]
set -u
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
export MBENCH="$root/$build/mbench" MBENCH_BUILD="$root/$build" MBENCH_ROOT="$root"
export MBENCH_ORT_LIB="$root/build/ort/libonnxruntime.so.1"
out="$root/$build/bench/results.txt"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mbench-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export MBENCH_BENCH_TMP="$tmp"
mkdir -p "$(dirname "$out")"
{
    echo "# mbench benchmarks, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
    echo
    echo "## 1. harness overhead (null backend)"
    "$root/$build/bench/harness"
    echo
    echo "## 2. mbench's median against a bare C loop around ORT Run (interleaved)"
    /usr/bin/python3 "$root/tests/fixtures/run/make_models.py" "$tmp/m" >/dev/null
    "$root/$build/bench/ort_bare" "$tmp/m/mlp.onnx" 1
    "$root/$build/bench/ort_bare" "$root/models/digits_fp32.onnx" 8
    for s in "$root"/bench/*.sh; do
        [ "$(basename "$s")" = run.sh ] && continue
        echo
        echo "## $(basename "$s" .sh)"
        if [ "$(basename "$s")" = replication.sh ]; then
            # The figures of STATISTICS.md and GATE.md: 40 compares of each
            # kind under a load generator, 24 two-run pairs (about 1-1.5
            # hours on a busy 2-core machine).
            OPTS="${OPTS:---threads 1}" bash "$s" "$build" 40 24 ||
                echo "(bench $(basename "$s") failed with status $?)"
            continue
        fi
        bash "$s" "$build" || echo "(bench $(basename "$s") failed with status $?)"
    done
} 2>&1 | tee "$out"
echo "results kept in $out"
