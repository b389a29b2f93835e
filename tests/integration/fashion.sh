#!/usr/bin/env bash
# fashion.sh - a real classifier on real images (issue 23): the
# Fashion-MNIST CNN (tests/fixtures/fashion, committed with the script that
# trained it) and its PyTorch int8 QDQ export, whose weights are all
# Constant nodes: info counts them, validate judges it by the int8 gates
# and passes it; the test images as class-folder PNGs give exactly the
# top-1 of the same images as .npy; JPEGs decode to Pillow's pixels.
# Skips without Debian's dataset-fashion-mnist or Pillow.
. "$(dirname "$0")/lib.sh"
F="$FIX/fashion"
D="$T_TMP/f"
if [ ! -f "$MBENCH_ORT_LIB" ]; then
    skip "fashion runs models" "no ONNX Runtime at $MBENCH_ORT_LIB"
    done_testing
fi

# ---- parameters in Constant nodes (no data needed) ----
expect_exit "info reads the int8 QDQ export" 0 "$MBENCH" info "$F/fashion_int8.onnx" --json "$T_TMP/i8.json"
contains "info reports its parameters, split" "$LAST_OUT" \
    "parameters 9,135 (9135), 9.1 KiB (9,318 bytes): 0 in 0 initializers, 9,135 in 43 constants"
contains "... by dtype: int8 dominates" "$LAST_OUT" "int8                  9,067 params"
check "the JSON counts constants as parameters and keeps the split" $PY - "$T_TMP/i8.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["params"] == 9135 and d["initializer_params"] == 0, d
assert d["constants"]["values"] == 9135 and d["params_by_dtype"]["int8"]["count"] == 9067, d
PY
check "info agrees with the onnx package on both models" $PY "$FIX/model/expect_info.py" \
    "$F/fashion_int8.onnx" "$T_TMP/i8.json"

if ! $PY "$F/make_fashion.py" data "$D" 1000 >"$T_TMP/py.err" 2>&1; then
    skip "the Fashion-MNIST images are written" "$(tail -1 "$T_TMP/py.err")"
    done_testing
fi
V=("$MBENCH" validate "$F/fashion_fp32.onnx" "$F/fashion_int8.onnx" --batch 50)

# ---- the int8 QDQ model passes with its labels, no --precision ----
expect_exit "the int8 QDQ model validates PASS with --labels --tolerance 0.01" 0 \
    "${V[@]}" --data "$D/images.npy" --labels "$D/labels.npy" --tolerance 0.01 --json "$T_TMP/v.json"
contains "... judged by the int8 gates from its weights" "$LAST_OUT" \
    "default gates for int8 (from the candidate's weights (9067 int8 elements))"
check "the top-1 difference and its paired CI match numpy and scipy" $PY - "$T_TMP/v.json" "$FIX/stats" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[2])
from tango_ref import tango
a = json.load(open(sys.argv[1]))["validation"]["accuracy"]
p = a["paired"]
assert p["both_right"] + p["baseline_only"] + p["candidate_only"] + p["both_wrong"] == 1000, p
lo, hi = tango(p["candidate_only"], p["baseline_only"], 1000)
assert abs(a["top1_delta_ci95"][0] - lo) < 1e-9 and abs(a["top1_delta_ci95"][1] - hi) < 1e-9, (a, lo, hi)
PY

# ---- PNG class folders = .npy, exactly ----
expect_exit "the PNG folder validates (labels from its class folders)" 0 \
    "${V[@]}" --data "$D/png" --json "$T_TMP/png.json" --save-outputs "$T_TMP/png_out"
contains "the class folders are the labels" "$LAST_OUT" "(the 10 class folders, in sorted order)"
check "PNG folder and .npy give the same top-1 and the same logits" $PY - "$T_TMP/png.json" "$T_TMP/v.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["validation"]["accuracy"]
n = json.load(open(sys.argv[2]))["validation"]["accuracy"]
for m in ("baseline", "candidate"):
    assert p[m]["top1"] == n[m]["top1"] and p[m]["top5"] == n[m]["top5"], (p, n)
PY
expect_exit "compare reads the PNG folder's labels too" 0 \
    "$MBENCH" compare fp32="$F/fashion_fp32.onnx" int8="$F/fashion_int8.onnx" --data "$D/png" --batch 50 \
    --processes 2 --min-time 0.1s --max-time 0.3s --min-iterations 5 --warmup 1 --json "$T_TMP/c.json" \
    --require 'verdict=pass' --require 'top1_delta>=-0.05'
check "compare's top-1 of the folder is validate's" $PY - "$T_TMP/c.json" "$T_TMP/v.json" <<'PY'
import json, sys
c = {v["name"]: v for v in json.load(open(sys.argv[1]))["comparison"]["variants"]}
n = json.load(open(sys.argv[2]))["validation"]["accuracy"]
assert c["fp32"]["accuracy"]["top1"] == n["baseline"]["top1"], c
assert c["int8"]["accuracy"]["top1"] == n["candidate"]["top1"] and c["int8"]["verdict"]["passed"], c
PY

# ---- JPEG pixels are Pillow's ----
I="$T_TMP/im"
if $PY "$FIX/images/make_images.py" "$I" >"$T_TMP/py2.err" 2>&1; then
    expect_exit "the JPEG folder feeds a 1-channel identity model" 0 \
        "$MBENCH" validate "$I/ident_gray.onnx" "$I/ident_gray.onnx" --data "$D/jpeg" --batch 50 \
        --save-outputs "$T_TMP/jpg_out" -q
    check "the decoded JPEGs are Pillow's pixels / 255, exactly" $PY -c "
import numpy as np
a = np.load('$T_TMP/jpg_out/baseline/pixels.npy'); b = np.load('$D/jpeg_ref.npy')
assert a.shape == b.shape and (a == b).all(), (a.shape, b.shape, abs(a - b).max())"
else
    skip "the JPEG folder feeds a 1-channel identity model" "$(tail -1 "$T_TMP/py2.err")"
fi
done_testing
