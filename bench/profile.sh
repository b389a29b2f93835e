#!/usr/bin/env bash
# bench/profile.sh BUILD_DIR [OUTDIR] - the figures of docs/PROFILE.md:
# machine peaks, then the profile of ResNet-50, MobileNetV2 and a small
# UNet (generated with random weights) with dominant ops, GFLOP/s and share
# of peak, and fp32 vs int8 with --compare.  Run it on an idle machine.
set -eu
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
mb="$root/$build/mbench"
out=${2:-$(mktemp -d "${TMPDIR:-/tmp}/mbench-profile-bench.XXXXXX")}
mkdir -p "$out"
/usr/bin/python3 "$root/tests/fixtures/profile/make_archs.py" "$out" resnet50 mobilenetv2 unet convnet convnet_qdq
echo "== uptime: $(uptime)"
"$mb" machine --refresh
for m in resnet50 mobilenetv2 unet; do
    echo "== $m"
    "$mb" profile "$out/$m.onnx" --iterations "${ITERS:-20}" --top 5 \
        --json "$out/$m.profile.json" --html "$out/$m.html" --flame "$out/$m.svg"
done
echo "== convnet fp32 vs QDQ int8"
"$mb" profile --compare "$out/convnet.onnx" "$out/convnet_qdq.onnx" --iterations "${ITERS:-20}"
echo "== outputs in $out"
