#!/usr/bin/env bash
# The coverage of the paired accuracy-difference interval
# (docs/STATISTICS.md, "Paired accuracy difference"): by simulation, and on
# real model pairs (the Fashion-MNIST CNN against its int8 QDQ export and a
# pruned copy; skipped without Debian's dataset-fashion-mnist).
# Usage: bench/pairci.sh BUILD
set -u
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/$build/bench/pairci" sim 20000
if [ -f /usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz ]; then
    /usr/bin/python3 "$root/bench/pairci_real.py" "$build" "${MBENCH_BENCH_TMP:-/tmp}/pairci" 2000
else
    echo "(real model pairs skipped: apt-get install dataset-fashion-mnist)"
fi
