#!/usr/bin/env bash
# make demo: benchmark the bundled default model (a CNN trained on the real
# 8x8 digits) and compare it with its fp16, int8 and pruned variants on the
# held-out images and labels, writing an HTML report next to the console
# output.  Usage: scripts/demo.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
mb="$root/$build/mbench"
m="$root/models"
out="$root/$build/demo"
mkdir -p "$out"

step() { printf '\n\033[1m$ %s\033[0m\n' "$*" | sed 's|'"$root"'/||g'; }

step mbench info models/digits_fp32.onnx
"$mb" info "$m/digits_fp32.onnx"

step mbench run models/digits_fp32.onnx --data models/digits_test.npy --batch 1,8,32 --max-time 3s
"$mb" run "$m/digits_fp32.onnx" --data "$m/digits_test.npy" --batch 1,8,32 \
    --max-time 3s --json "$out/run.json"

step mbench compare fp32=... fp16=... int8=...,opt-level=all pruned=... \
    --data models/digits_test.npy --labels models/digits_labels.npy --batch 8 --html "$build/demo/report.html"
"$mb" compare fp32="$m/digits_fp32.onnx" fp16="$m/digits_fp16.onnx" \
    int8="$m/digits_int8.onnx,opt-level=all" pruned="$m/digits_pruned.onnx" \
    --data "$m/digits_test.npy" --labels "$m/digits_labels.npy" --batch 8 \
    --min-time 1s --max-time 4s \
    --json "$out/compare.json" --html "$out/report.html" --md "$out/report.md"

printf '\nReports: %s/report.html (open it in a browser), %s/report.md, %s/compare.json\n' \
    "$build/demo" "$build/demo" "$build/demo"
