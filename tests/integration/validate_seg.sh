#!/usr/bin/env bash
# validate_seg.sh - `mbench validate --masks`: Dice and IoU (per class and
# mean) of a segmentation output's argmax against label masks, judged with
# --tolerance, checked against numpy on the outputs validate saved
# (tests/fixtures/accuracy/make_seg.py, ref_seg.py).
. "$(dirname "$0")/lib.sh"
D="$T_TMP/s"
mkdir -p "$D"
if [ ! -f "$MBENCH_ORT_LIB" ]; then
    skip "validate runs models" "no ONNX Runtime at $MBENCH_ORT_LIB"
    done_testing
fi
if ! $PY "$FIX/accuracy/make_seg.py" "$D" 2>"$T_TMP/py.err"; then
    skip "the segmentation fixtures are generated" "python3-onnx or numpy missing: $(tail -1 "$T_TMP/py.err")"
    done_testing
fi
V=("$MBENCH" validate --ort-lib "$MBENCH_ORT_LIB" --threads 1 --data "$D/x.npy")

expect_exit "a close candidate passes IoU and Dice within --tolerance 0.05" 0 \
    "${V[@]}" "$D/seg.onnx" "$D/seg_close.onnx" --masks "$D/masks.npy" --tolerance 0.05 \
    --gate 'cosine>=0.999' --save-outputs "$D/out" --json "$D/close.json"
contains "the console gives both models' mean IoU and Dice" "$LAST_OUT" \
    "segmentation against $D/masks.npy on scores (4 classes, 2048 pixels): baseline mean IoU 0.843277"
contains "and per class" "$LAST_OUT" "class 3: IoU 0.866667 / 0.861111"
contains "the IoU criterion is printed" "$LAST_OUT" "PASS mean IoU on scores against the masks"
check "Dice, IoU, their means and pixel accuracy match numpy" \
    $PY "$FIX/accuracy/ref_seg.py" "$D/close.json" "$D/out" "$D/masks.npy"
expect_exit "the same candidate fails at the default tolerance (its mean IoU drops 0.019)" 1 \
    "${V[@]}" "$D/seg.onnx" "$D/seg_close.onnx" --masks "$D/masks.npy" --gate 'cosine>=0.999'
contains "the IoU check fails with its delta" "$LAST_OUT" "FAIL mean IoU on scores against the masks 0.8239 vs baseline 0.8433 (delta -0.0194, tolerance 0.01)"
expect_exit "a class-swapped candidate fails on the masks ([N,1,H,W] int64 masks)" 1 \
    "${V[@]}" "$D/seg.onnx" "$D/seg_bad.onnx" --masks "$D/masks4.npy" --gate 'nonfinite_new==0' \
    --save-outputs "$D/out4" --json "$D/bad.json" --md "$D/bad.md"
contains "the Markdown report gives the segmentation figures" "$(cat "$D/bad.md")" \
    "**Segmentation against the masks:** on scores (4 classes): baseline mean IoU 0.8433"
check "the swapped candidate's figures match numpy too" \
    $PY "$FIX/accuracy/ref_seg.py" "$D/bad.json" "$D/out4" "$D/masks4.npy"
check "the document records the rule and the per-output checks" $PY -c '
import json, sys
v = json.load(open(sys.argv[1]))["validation"]
p = v["per_output"][0]
assert v["rule"] == "masks" and not v["passed"], v["rule"]
assert p["segmentation"] and [c["check"][:9] for c in p["checks"][:2]] == ["mean_iou>", "mean_dice"], p
assert p["checks"][0]["result"] == "fail"' "$D/bad.json"
expect_exit "--tolerance 1 lets the swapped candidate pass on the masks" 0 \
    "${V[@]}" "$D/seg.onnx" "$D/seg_bad.onnx" --masks "$D/masks4.npy" --gate 'nonfinite_new==0' --tolerance 1 -q
expect_exit "a mask value outside the classes is a runtime error" 3 \
    "${V[@]}" "$D/seg.onnx" "$D/seg.onnx" --masks "$D/masks_range.npy"
contains "it names the value, the sample and the classes" "$LAST_ERR" "mask value 9 of sample 3"
one_line "the error is one line" "$LAST_ERR"
# ---- --ignore-index (torchmetrics/mmseg ignore_index) ----
expect_exit "an ignore label (255) without --ignore-index is a runtime error" 3 \
    "${V[@]}" "$D/seg.onnx" "$D/seg_close.onnx" --masks "$D/masks_ignore.npy"
contains "... that says which flag reads it" "$LAST_ERR" "an ignore label (such as 255) needs --ignore-index"
expect_exit "--ignore-index 255 leaves those pixels out" 0 \
    "${V[@]}" "$D/seg.onnx" "$D/seg_close.onnx" --masks "$D/masks_ignore.npy" --ignore-index 255 \
    --tolerance 0.05 --gate 'cosine>=0.999' --save-outputs "$D/outi" --json "$D/ign.json"
check "Dice and IoU without the ignored pixels match numpy" \
    $PY "$FIX/accuracy/ref_seg.py" "$D/ign.json" "$D/outi" "$D/masks_ignore.npy" 255
check "the document records the ignore index and the pixels left out" $PY -c '
import json, sys
s = json.load(open(sys.argv[1]))["validation"]["segmentation"]
assert s["ignore_index"] == 255 and s["baseline"]["ignored"] > 0, s
assert s["baseline"]["pixels"] + s["baseline"]["ignored"] == 2048, s["baseline"]' "$D/ign.json"
expect_exit "--ignore-index of a class leaves that class out" 0 \
    "${V[@]}" "$D/seg.onnx" "$D/seg.onnx" --masks "$D/masks.npy" --ignore-index 2 \
    --save-outputs "$D/outc" --json "$D/ignc.json"
check "... its IoU is null, as torchmetrics has it" \
    $PY "$FIX/accuracy/ref_seg.py" "$D/ignc.json" "$D/outc" "$D/masks.npy" 2
expect_exit "--ignore-index without --masks is a usage error" 2 \
    "${V[@]}" "$D/seg.onnx" "$D/seg.onnx" --ignore-index 255
expect_exit "--ignore-index takes an integer" 2 \
    "${V[@]}" "$D/seg.onnx" "$D/seg.onnx" --masks "$D/masks.npy" --ignore-index border
expect_exit "masks for another sample count are a runtime error" 3 \
    "${V[@]}" "$D/seg.onnx" "$D/seg.onnx" --masks "$D/masks_short.npy"
contains "it names both counts, before measuring" "$LAST_ERR" "masks_short.npy: 7 masks for 8 samples; give one mask per sample (checked before measuring)"
expect_exit "--masks without --data is a usage error" 2 \
    "$MBENCH" validate "$D/seg.onnx" "$D/seg.onnx" --masks "$D/masks.npy" --ort-lib "$MBENCH_ORT_LIB"
expect_exit "a missing masks file is a runtime error" 3 \
    "${V[@]}" "$D/seg.onnx" "$D/seg.onnx" --masks "$D/none.npy"
done_testing
