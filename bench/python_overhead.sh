#!/usr/bin/env bash
# mbench's median against a bare Python loop around the framework call
# (bench/python_overhead.c): PyTorch eager and JAX (with block_until_ready),
# a small CNN on 3x32x32 images at batch 1, 1 thread, interleaved blocks in
# one process.  Goal: the ratio of the medians within +-2%.
# Usage: bench/python_overhead.sh [BUILD_DIR]
set -u
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/$build/bench/python_overhead"
fw=${MBENCH_FRAMEWORKS_DIR:-$root/build/frameworks}
m="$root/tests/fixtures/python/models.py"
if [ ! -x "$bin" ]; then
    echo "python_overhead: not built (needs python3-dev: scripts/deps.sh bench, then make bench)"
    exit 0
fi
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
for pair in torch:torch_conv:input jax:jax_conv:x; do
    IFS=: read -r env factory input <<<"$pair"
    if [ ! -x "$fw/$env/bin/python" ]; then
        echo "python_overhead: no $env environment in $fw/$env (make frameworks): skipped"
        continue
    fi
    "$bin" "$m:$factory" "$fw/$env" "$input=1,3,32,32" 60 200 ||
        echo "(python_overhead $env: status $?)"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
