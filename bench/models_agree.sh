#!/usr/bin/env bash
# The issue's agreement figures at full size: torchvision's resnet50 against
# its ONNX export run by mbench's ONNX Runtime (max|diff| <= 1e-4) and
# against its Flax twin flax:resnet50 with the same weights (<= 1e-3 of the
# output scale).  It is tests/integration/models.sh with
# MBENCH_MODELS_FULL=1: the same checks, which the test runs on a reduced
# ResNet of the same blocks, here on resnet50 itself (minutes: BatchNorm
# calibration and the XLA compile at 224x224).  Prints the TAP lines with
# the figures ("# ..." lines).
# Usage: bench/models_agree.sh [BUILD_DIR]
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
export MBENCH="$root/$build/mbench" MBENCH_BUILD="$root/$build" MBENCH_ROOT="$root"
export MBENCH_ORT_LIB="${MBENCH_ORT_LIB:-$root/build/ort/libonnxruntime.so.1}"
export MBENCH_TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/mbench-agree.XXXXXX")
trap 'rm -rf "$MBENCH_TEST_TMP"' EXIT
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
MBENCH_MODELS_FULL=1 bash "$root/tests/integration/models.sh" | grep -E '^(ok|not ok|#)'
rc=${PIPESTATUS[0]}
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit "$rc"
