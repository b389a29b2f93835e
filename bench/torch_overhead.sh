#!/usr/bin/env bash
# What mbench adds to a bare LibTorch forward loop (bench/torch_overhead.cpp):
# the CNN and the transformer block of tests/fixtures/torch/make_models.py,
# 1 intra-op thread, interleaved blocks in one process.  Goal: < 1%.
# Usage: bench/torch_overhead.sh [BUILD_DIR]
set -u
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/$build/bench/torch_overhead"
if [ ! -x "$bin" ]; then
    echo "torch_overhead: not built (needs libtorch-dev: scripts/deps.sh bench, then make bench)"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mbench-torch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 -W ignore "$root/tests/fixtures/torch/make_models.py" "$tmp" >/dev/null || exit 1
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
"$bin" "$tmp/cnn.pt" 1 1
"$bin" "$tmp/cnn.pt" 8 1
"$bin" "$tmp/block.pt" 1 1
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
