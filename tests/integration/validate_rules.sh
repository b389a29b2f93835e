#!/usr/bin/env bash
# validate_rules.sh - the rules `mbench validate` and `mbench compare`
# share (docs/ACCURACY.md): the default precision comes from the dtype with
# the most weight elements (not bytes) in both, and an output the class-
# score rule picks always has its top-1 agreement (one classifier shape
# rule for the picker and the metrics).  Models: make_rules.py.
. "$(dirname "$0")/lib.sh"
D="$T_TMP/r"
mkdir -p "$D"
if [ ! -f "$MBENCH_ORT_LIB" ]; then
    skip "validate runs models" "no ONNX Runtime at $MBENCH_ORT_LIB"
    done_testing
fi
if ! $PY "$FIX/accuracy/make_rules.py" "$D" 2>"$T_TMP/py.err"; then
    skip "the rule fixtures are generated" "python3-onnx or numpy missing: $(tail -1 "$T_TMP/py.err")"
    done_testing
fi
ORT=(--ort-lib "$MBENCH_ORT_LIB" --threads 1)

# jq-like check with python: NAME FILE EXPR (d = the document)
jcheck() {
    local n=$1 f=$2 expr=$3 o
    if o=$($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else "false: " + sys.argv[2])' "$f" "$expr" 2>&1)
    then ok "$n"; else notok "$n" "$o"; fi
}

expect_exit "class scores shaped [N,C,1,1] validated against themselves pass" 0 \
    "$MBENCH" validate "$D/nc11.onnx" "$D/nc11.onnx" --data "$D/x8.npy" --json "$D/nc11.json" "${ORT[@]}"
contains "they are read as class scores" "$LAST_OUT" "logits ([16,5,1,1] float32): named like class scores"
contains "their top-1 agreement is judged" "$LAST_OUT" "PASS top-1 agreement on logits 1.0000"
jcheck "the metrics give the [N,C,1,1] output its top-1 agreement" "$D/nc11.json" \
    'd["validation"]["outputs"][0]["top1_agreement"] == 1 and d["validation"]["rule"] == "top1_agreement"'

expect_exit "a candidate with mostly int8 weight elements is validated" 0 \
    "$MBENCH" validate "$D/mixed_f32.onnx" "$D/mixed_q.onnx" --data "$D/x40.npy" --json "$D/mixed.json" "${ORT[@]}"
contains "validate takes its precision from the element count" "$LAST_OUT" \
    "default gates for int8 (from the candidate's weights (1000 int8 elements))"
expect_exit "compare runs the same two models" 0 \
    "$MBENCH" compare f="$D/mixed_f32.onnx" q="$D/mixed_q.onnx" --data "$D/x40.npy" --processes 2 \
    --min-time 0.2s --max-time 1s --min-iterations 20 --warmup 2 --json "$D/cmp.json" "${ORT[@]}"
jcheck "compare judges the candidate at the precision validate chose (int8, not fp32 by bytes)" "$D/cmp.json" \
    '[v for v in d["comparison"]["variants"] if v["name"] == "q"][0]["agreement"]["precision"] == "int8"'
done_testing
