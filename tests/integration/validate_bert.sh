#!/usr/bin/env bash
# validate_bert.sh - `mbench validate` on a real-shaped model: a 2-layer
# BERT-like encoder with three outputs (last_hidden_state, pooler_output,
# logits, in Hugging Face's order).  The verdict must read logits as the
# class scores (not the earlier pooler_output embedding), judge every
# output, honour --output, convert float32 --data for an fp16-I/O copy,
# and write real --md/--html reports.  Figures are checked against numpy's
# own forward pass (tests/fixtures/accuracy/make_bert.py).
. "$(dirname "$0")/lib.sh"
D="$T_TMP/b"
mkdir -p "$D"
if [ ! -f "$MBENCH_ORT_LIB" ]; then
    skip "validate runs models" "no ONNX Runtime at $MBENCH_ORT_LIB"
    done_testing
fi
if ! $PY "$FIX/accuracy/make_bert.py" "$D" 2>"$T_TMP/py.err"; then
    skip "the BERT-like fixtures are generated" "python3-onnx or numpy missing: $(tail -1 "$T_TMP/py.err")"
    done_testing
fi
# --opt-level basic keeps DequantizeLinear + MatMul apart, so ONNX Runtime
# computes what numpy computes (its QDQ fusion re-quantizes activations).
ORT=(--ort-lib "$MBENCH_ORT_LIB" --opt-level basic)
V=("$MBENCH" validate)

# jcheck NAME FILE PYTHON-EXPR: passes when the expression is true with
# j = the validation object of FILE and e = numpy's expected.json.
jcheck() {
    local n=$1 f=$2 expr=$3 o
    if o=$($PY - "$f" "$D/expected.json" "$expr" 2>&1 <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["validation"]
e = json.load(open(sys.argv[2]))
out = {m["name"]: m for m in j["outputs"]}
per = {p["name"]: p for p in j["per_output"]}
if not eval(sys.argv[3]):
    sys.exit("false: %s" % sys.argv[3])
PY
    ); then ok "$n"; else notok "$n" "$o"; fi
}

# ---- the 50%-error candidate fails on logits ----
expect_exit "a candidate with 50% error on the logits fails" 1 \
    "${V[@]}" "$D/bert.onnx" "$D/bert_bad.onnx" --data "$D/data.npz" --json "$D/bad.json" \
    --md "$D/bad.md" --html "$D/bad.html" "${ORT[@]}"
contains "logits are read as the class scores, not pooler_output" "$LAST_OUT" \
    "class scores: logits ([64,3] float32): named like class scores"
contains "the pooler output is passed over as an embedding" "$LAST_OUT" \
    "pooler_output (named like an embedding or hidden state)"
contains "top-1 agreement is judged on logits" "$LAST_OUT" "FAIL top-1 agreement on logits 0.6406"
contains "every output gets a verdict" "$LAST_OUT" "PASS   pooler_output (gates)"
jcheck "rel_l2 of the logits matches numpy (0.5)" "$D/bad.json" \
    'abs(out["logits"]["rel_l2"] - e["bad"]["logits"]["rel_l2"]) < 1e-5'
jcheck "top-1 agreement of the logits matches numpy" "$D/bad.json" \
    'out["logits"]["top1_agreement"] == e["bad"]["logits"]["top1_agreement"]'
jcheck "the document records the chosen output and every output's verdict" "$D/bad.json" \
    'j["output_choice"]["output"] == "logits" and j["rule"] == "top1_agreement" and per["logits"]["passed"] is False and per["pooler_output"]["passed"] is True and not j["passed"]'

# ---- the int8 copy passes ----
expect_exit "a good int8 copy (about 1% error) passes" 0 \
    "${V[@]}" "$D/bert.onnx" "$D/bert_int8.onnx" --data "$D/data.npz" --json "$D/int8.json" "${ORT[@]}"
contains "its logits agree on every sample" "$LAST_OUT" "PASS top-1 agreement on logits 1.0000"
contains "it is judged by the int8 gates" "$LAST_OUT" "default gates for int8"
jcheck "rel_l2 of every output matches numpy" "$D/int8.json" \
    'all(abs(out[k]["rel_l2"] - e["int8"][k]["rel_l2"]) < 1e-5 for k in ("last_hidden_state", "pooler_output", "logits"))'
jcheck "the int8 logits are about 1.2% off (numpy)" "$D/int8.json" \
    '0.01 < out["logits"]["rel_l2"] < 0.015 and e["int8"]["pooler_output"]["top1_agreement"] < 0.99'

# ---- labels are scored on logits ----
expect_exit "labels = argmax(logits) are scored on the logits" 0 \
    "${V[@]}" "$D/bert.onnx" "$D/bert_int8.onnx" --data "$D/data.npz" --labels "$D/labels.npy" \
    --json "$D/lab.json" "${ORT[@]}"
jcheck "the baseline's top-1 accuracy against its own argmax is 1.0" "$D/lab.json" \
    'j["accuracy"]["output"] == "logits" and j["accuracy"]["baseline"]["top1"] == 1.0 and j["rule"] == "labels"'
jcheck "the candidate's top-1 accuracy is numpy's agreement" "$D/lab.json" \
    'j["accuracy"]["candidate"]["top1"] == e["int8"]["logits"]["top1_agreement"]'
expect_exit "the 50% candidate fails on the labels" 1 \
    "${V[@]}" "$D/bert.onnx" "$D/bert_bad.onnx" --data "$D/data.npz" --labels "$D/labels.npy" "${ORT[@]}"
contains "its accuracy is numpy's agreement" "$LAST_OUT" "FAIL top-1 accuracy on logits 0.6406 vs baseline 1.0000"

# ---- --output ----
expect_exit "--output pooler_output shows that output, and still judges the broken logits" 1 \
    "${V[@]}" "$D/bert.onnx" "$D/bert_bad.onnx" --data "$D/data.npz" --output pooler_output \
    --json "$D/out.json" "${ORT[@]}"
contains "the choice is printed" "$LAST_OUT" "pooler_output ([64,16] float32) chosen with --output"
jcheck "every output is judged (issue 35: --output never escapes judgement)" "$D/out.json" \
    'per["logits"]["passed"] is False and per["pooler_output"]["passed"] is True and j["output_choice"]["requested"]'
expect_exit "--output logits fails the 50% candidate" 1 \
    "${V[@]}" "$D/bert.onnx" "$D/bert_bad.onnx" --data "$D/data.npz" --output logits "${ORT[@]}"
expect_exit "an unknown --output is a usage error" 2 \
    "${V[@]}" "$D/bert.onnx" "$D/bert_bad.onnx" --data "$D/data.npz" --output probs "${ORT[@]}"
one_line "the --output error is one line" "$LAST_ERR"
contains "it lists the outputs" "$LAST_ERR" "its outputs are: last_hidden_state, pooler_output, logits"
expect_exit "--labels on an --output that is not class scores is a runtime error" 3 \
    "${V[@]}" "$D/bert.onnx" "$D/bert_int8.onnx" --data "$D/data.npz" --labels "$D/labels.npy" \
    --output last_hidden_state "${ORT[@]}"
contains "the labels error says why" "$LAST_ERR" "not [N, C] class scores"

# ---- fp16 I/O on float32 data ----
expect_exit "an fp16-I/O candidate is validated on float32 --data" 0 \
    "${V[@]}" "$D/emb.onnx" "$D/emb_fp16.onnx" --data "$D/emb_data.npz" --json "$D/f16.json" "${ORT[@]}"
contains "the candidate's conversion is reported" "$LAST_OUT" \
    "candidate: emb_data.npz: 64 samples (input 'inputs_embeds': float32 data converted to float16)"
contains "its outputs are float16" "$LAST_OUT" "logits [64,3] float32 vs float16"
jcheck "fp16 rel_l2 of every output matches numpy's fp16 mirror" "$D/f16.json" \
    'all(abs(out[k]["rel_l2"] - e["fp16"][k]["rel_l2"]) < 1e-4 for k in ("last_hidden_state", "pooler_output", "logits"))'
jcheck "fp16 top-1 agreement is numpy's" "$D/f16.json" \
    'out["logits"]["top1_agreement"] == e["fp16"]["logits"]["top1_agreement"] == 1.0'
expect_exit "an fp16-I/O baseline takes float32 --data too" 0 \
    "${V[@]}" "$D/emb_fp16.onnx" "$D/emb.onnx" --data "$D/emb_data.npz" --precision fp16 "${ORT[@]}"
expect_exit "float16 --data feeds the float32 model" 0 \
    "${V[@]}" "$D/emb.onnx" "$D/emb_fp16.onnx" --data "$D/emb_data16.npz" "${ORT[@]}"

# ---- --md and --html are reports of the validation ----
md=$(cat "$D/bad.md" 2>/dev/null)
contains "the Markdown report has the verdict" "$md" "# mbench validate: FAIL"
contains "the Markdown report lists the runs" "$md" "| candidate | $(echo "$D" | sed 's/_/\\_/g')/bert\\_bad.onnx | opt-level=basic |"
contains "the Markdown report gives each output's checks" "$md" "| logits | class scores | top1\\_agreement&gt;=0.9900 | 0.640625 | FAIL |"
contains "the Markdown report has the metrics" "$md" "| pooler\\_output | \\[64,16\\] | float32 / float32 | 0 |"
if [[ "$md" == *"no runs"* ]]; then notok "the Markdown report is not empty" "$md"; else ok "the Markdown report is not empty"; fi
html=$(cat "$D/bad.html" 2>/dev/null)
contains "the HTML report has the per-output table" "$html" "<td>logits</td><td>class scores</td><td>top1_agreement&gt;=0.9900</td>"
contains "the HTML report embeds the document" "$html" '<script type="application/json" id="mbench-data">'

# ---- a failed baseline is an error, not a verdict ----
expect_exit "a baseline that does not load is a runtime error" 3 \
    "${V[@]}" "$D/missing.onnx" "$D/bert.onnx" --data "$D/data.npz" --md "$D/none.md" "${ORT[@]}"
contains "the error names the baseline" "$LAST_ERR" "baseline $D/missing.onnx"
if [[ "$LAST_OUT" == *PASS* || "$LAST_OUT" == *FAIL* || -e "$D/none.md" ]]; then
    notok "no verdict and no report follow a failed baseline" "$LAST_OUT"
else ok "no verdict and no report follow a failed baseline"; fi
done_testing
