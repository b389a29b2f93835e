#!/usr/bin/env bash
# verdict_inputs.sh - validate and compare share one meaning of their
# options and check what they are given before measuring (issue 35):
# validate --output chooses what is shown, never what escapes judgement
# (the broken pooler still FAILs); validate --require OUTPUT:METRIC as in
# compare; a baseline output that is NaN/Inf everywhere is refused, in
# some elements a warning with the counts; labels of the wrong count or
# with ids outside the model's classes are refused before anything runs.
. "$(dirname "$0")/lib.sh"
D="$T_TMP/v"
mkdir -p "$D"
if [ ! -f "$MBENCH_ORT_LIB" ]; then
    skip "validate and compare run models" "no ONNX Runtime at $MBENCH_ORT_LIB"
    done_testing
fi
if ! $PY "$FIX/accuracy/make_bert.py" "$D" 2>"$T_TMP/py.err" ||
    ! $PY "$FIX/accuracy/make_pairs.py" "$D" 2>"$T_TMP/py.err"; then
    skip "the fixtures are generated" "python3-onnx or numpy missing: $(tail -1 "$T_TMP/py.err")"
    done_testing
fi
FAST=(--processes 2 --min-time 0.05s --max-time 0.2s --min-iterations 5 --warmup 1)
B=("$MBENCH" validate "$D/bert.onnx" "$D/bert_broken.onnx" --data "$D/data.npz")

# ---- --output chooses what is shown, not what is judged ----
expect_exit "validate --output logits still FAILs the broken pooler" 1 "${B[@]}" --output logits --json "$D/o.json"
contains "the verdict per output names pooler_output" "$LAST_OUT" "FAIL   pooler_output (gates)"
if [[ "$LAST_OUT" == *"pooler_output [64,16]"* ]]; then
    notok "only the --output's metrics are shown" "$LAST_OUT"
else ok "only the --output's metrics are shown"; fi
check "every output is judged in the JSON" $PY - "$D/o.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))["validation"]
per = {p["name"]: p for p in v["per_output"]}
assert all(p["judged"] for p in per.values()), per
assert per["pooler_output"]["passed"] is False and v["passed"] is False, per
PY

# ---- validate --require, as in compare ----
expect_exit "validate --require on another output than the broken one (exit 0 on a pass)" 0 \
    "$MBENCH" validate "$D/bert.onnx" "$D/bert.onnx" --data "$D/data.npz" \
    --require 'pooler_output:rel_l2<=0.01' --require 'gates=pass' --json "$D/r.json"
contains "the requirement is judged on the output it names" "$LAST_OUT" "PASS pooler_output:rel_l2<=0.01 [candidate]: output pooler_output"
check "the requirements are in the document" $PY -c "
import json,sys; r=json.load(open(sys.argv[1]))['requirements']; assert [x['passed'] for x in r] == [True, True], r" "$D/r.json"
expect_exit "an unmet requirement of a passing validation is exit 6" 6 \
    "$MBENCH" validate "$D/bert.onnx" "$D/bert.onnx" --data "$D/data.npz" --require 'logits:rel_l2<0'
expect_exit "a failed verdict stays exit 1 whatever the requirements" 1 "${B[@]}" --require 'logits:rel_l2<=0.01'
expect_exit "with --output, a requirement on another output is a usage error" 2 \
    "$MBENCH" validate "$D/bert.onnx" "$D/bert.onnx" --data "$D/data.npz" --output logits --require 'pooler_output:rel_l2<=0.01'
contains "... saying --output chooses what --require names" "$LAST_ERR" \
    "--output logits chooses the output --require names (every output is still judged); name logits, or drop --output"
expect_exit "compare: the same" 2 "$MBENCH" compare base="$D/bert.onnx" pool="$D/bert_broken.onnx" --data "$D/data.npz" \
    "${FAST[@]}" --output logits --require 'pooler_output:rel_l2<=0.01'
expect_exit "with --output logits, an unscoped output figure judges logits only" 0 \
    "${B[@]}" --output logits --require 'rel_l2<=0.01' --gate 'rel_l2<=1'
contains "... the figure is logits'" "$LAST_OUT" "PASS rel_l2<=0.01 [candidate]: output logits"
expect_exit "a malformed requirement is a usage error" 2 "${B[@]}" --require 'rel_l2<=>1'
expect_exit "--gate with an output's metric keeps working" 1 "${B[@]}" --gate 'rel_l2<=0.01'

# ---- a baseline that is NaN/Inf ----
expect_exit "an all-NaN baseline output is refused" 3 "$MBENCH" validate "$D/allnan.onnx" "$D/allnan.onnx" --data "$D/x.npy"
contains "... with the counts" "$LAST_ERR" "the baseline's output logits is NaN or Inf in all 64 elements (NaN 64, Inf 0)"
expect_exit "compare refuses it too" 3 "$MBENCH" compare a="$D/allnan.onnx" b="$D/allnan.onnx" --data "$D/x.npy" "${FAST[@]}"
contains "... with the same line" "$LAST_ERR" "the baseline's output logits is NaN or Inf in all 64 elements"
expect_exit "a baseline NaN in some elements passes against itself" 0 "$MBENCH" validate "$D/somenan.onnx" "$D/somenan.onnx" --data "$D/x.npy" --json "$D/s.json"
contains "... with a warning and the counts" "$LAST_ERR" "warning: the baseline's output logits is NaN or Inf in"
check "the warning is in the document" $PY -c "
import json,sys; w=json.load(open(sys.argv[1]))['warnings']; assert any('NaN or Inf in' in x for x in w), w" "$D/s.json"

# ---- labels checked before anything runs ----
V=("$MBENCH" validate "$D/base.onnx" "$D/base.onnx" --data "$D/x.npy")
expect_exit "validate: 15 labels for 16 samples are refused" 3 "${V[@]}" --labels "$D/y15.npy"
contains "... before measuring" "$LAST_ERR" "--labels $D/y15.npy: 15 labels for 16 samples; give one label per sample (checked before measuring)"
expect_exit "validate: a label outside the model's 4 classes is refused" 3 "${V[@]}" --labels "$D/y_bad.npy"
contains "... naming it and the class count" "$LAST_ERR" "label 7 of sample 5 is outside [0, 4): logits has 4 classes (checked before measuring)"
for y in y15 y_bad; do
    start=$(date +%s)
    expect_exit "compare: $y.npy is refused" 3 "$MBENCH" compare a="$D/base.onnx" b="$D/base.onnx" \
        --data "$D/x.npy" --labels "$D/$y.npy" --processes 40 --min-time 2s
    if [ $(( $(date +%s) - start )) -lt 60 ]; then ok "compare refuses $y.npy before it measures"
    else notok "compare refuses $y.npy before it measures" "took $(( $(date +%s) - start )) s"; fi
done
contains "compare names the label" "$LAST_ERR" "label 7 of sample 5 is outside [0, 4)"
expect_exit "good labels pass" 0 "${V[@]}" --labels "$D/y.npy"
done_testing
