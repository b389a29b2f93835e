#!/usr/bin/env bash
# pairing.sh - outputs pair by name in validate, compare and diff (issue
# 35): a candidate listing the same outputs in another order passes; a
# renamed output is refused with the --map hint and passes with --map; an
# extra output is the same one-line error in every command, refused before
# compare measures; outputs that share no name pair by position with a
# note; --save-outputs keeps each model's own names.
. "$(dirname "$0")/lib.sh"
D="$T_TMP/p"
mkdir -p "$D"
if [ ! -f "$MBENCH_ORT_LIB" ]; then
    skip "validate and compare run models" "no ONNX Runtime at $MBENCH_ORT_LIB"
    done_testing
fi
if ! $PY "$FIX/accuracy/make_pairs.py" "$D" 2>"$T_TMP/py.err"; then
    skip "the fixtures are generated" "python3-onnx or numpy missing: $(tail -1 "$T_TMP/py.err")"
    done_testing
fi
FAST=(--processes 2 --min-time 0.05s --max-time 0.2s --min-iterations 5 --warmup 1)
V=("$MBENCH" validate "$D/base.onnx")
C=("$MBENCH" compare base="$D/base.onnx")

# ---- the same outputs in another order ----
expect_exit "validate: outputs listed in the other order PASS" 0 "${V[@]}" "$D/swapped.onnx" --data "$D/x.npy" --save-outputs "$D/saved"
contains "validate: the verdict is PASS" "$LAST_OUT" "PASS: $D/swapped.onnx vs $D/base.onnx"
expect_exit "compare: outputs listed in the other order PASS" 0 "${C[@]}" sw="$D/swapped.onnx" --data "$D/x.npy" "${FAST[@]}" --json "$D/sw.json"
contains "compare: the verdict is PASS" "$LAST_OUT" "verdict PASS: 2 outputs"
check "compare's JSON pairs logits with logits, by name" $PY - "$D/sw.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))["comparison"]["variants"][1]
p = v["verdict"]["output_pairing"]
assert p["method"] == "name" and p["note"] is None, p
assert [(x["baseline"], x["candidate"]) for x in p["pairs"]] == [("logits", "logits"), ("aux", "aux")], p
out = {o["name"]: o for o in v["agreement"]["outputs"]}
assert out["logits"]["rel_l2"] == 0 and out["aux"]["rel_l2"] == 0, out
PY
# the saved outputs pair by name as well
expect_exit "diff of the saved outputs pairs them by name" 0 "$MBENCH" diff "$D/saved/baseline" "$D/saved/candidate" --gate 'max_abs<=0'

# .npz members pair by name too, whatever their order; renamed: --map
$PY - "$D" <<'PY'
import sys
import numpy as np
d = sys.argv[1]
a, b = np.arange(6, dtype=np.float32), np.ones(4, np.float32)
np.savez(d + "/n1.npz", logits=a, aux=b)
np.savez(d + "/n2.npz", aux=b, logits=a)
np.savez(d + "/n3.npz", aux=b, scores=a)
PY
expect_exit "diff of .npz archives with the members in another order" 0 "$MBENCH" diff "$D/n1.npz" "$D/n2.npz" --gate 'max_abs<=0'
expect_exit "diff of .npz with a renamed member is refused" 3 "$MBENCH" diff "$D/n1.npz" "$D/n3.npz"
contains "... with the --map hint" "$LAST_ERR" "--map logits=scores"
expect_exit "... and pairs it with --map" 0 "$MBENCH" diff "$D/n1.npz" "$D/n3.npz" --map logits=scores --gate 'max_abs<=0'

# ---- a renamed output ----
expect_exit "validate: a renamed output is refused (exit 3)" 3 "${V[@]}" "$D/renamed.onnx" --data "$D/x.npy"
contains "validate: the one line names both and the --map hint" "$LAST_ERR" \
    "outputs do not pair: 'logits' of the baseline has no counterpart in the candidate; 'scores' of the candidate has no counterpart in the baseline (outputs of the baseline: logits, aux; of the candidate: scores, aux); if logits was renamed, pair it with --map logits=scores"
expect_exit "validate --map logits=scores PASSes" 0 "${V[@]}" "$D/renamed.onnx" --data "$D/x.npy" --map logits=scores --json "$D/vmap.json" --save-outputs "$D/saved2"
contains "validate: the console names the candidate's output" "$LAST_OUT" "logits (candidate: scores) [16,4]"
check "validate's JSON: logits by map, aux by name" $PY - "$D/vmap.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))["validation"]
p = v["output_pairing"]
assert p["method"] == "mixed", p
assert p["pairs"][0] == {"baseline": "logits", "candidate": "scores", "by": "map"}, p
assert v["outputs"][0]["candidate_name"] == "scores" and v["passed"] is True, v["outputs"][0]
PY
check "the candidate's saved outputs keep its own names" test -f "$D/saved2/candidate/scores.npy"
expect_exit "diff of renamed saved outputs is refused" 3 "$MBENCH" diff "$D/saved2/baseline" "$D/saved2/candidate"
contains "diff: the same line, with the --map hint" "$LAST_ERR" "if logits was renamed, pair it with --map logits=scores"
expect_exit "diff --map logits=scores pairs them" 0 "$MBENCH" diff "$D/saved2/baseline" "$D/saved2/candidate" --map logits=scores --gate 'max_abs<=0'
start=$(date +%s)
expect_exit "compare: a renamed output is refused (exit 3)" 3 "${C[@]}" rn="$D/renamed.onnx" --data "$D/x.npy" --processes 40 --min-time 2s
contains "compare: the same line, naming the variant" "$LAST_ERR" \
    "outputs do not pair: 'logits' of the baseline base has no counterpart in variant rn"
# 40 processes of at least 2 s each would take minutes: refused before
if [ $(( $(date +%s) - start )) -lt 60 ]; then ok "compare refuses before it measures"
else notok "compare refuses before it measures" "took $(( $(date +%s) - start )) s"; fi
expect_exit "compare --map logits=scores PASSes" 0 "${C[@]}" rn="$D/renamed.onnx" --data "$D/x.npy" "${FAST[@]}" --map logits=scores
contains "compare: the verdict is PASS" "$LAST_OUT" "verdict PASS: 2 outputs"
expect_exit "a --map naming no output is a usage error (as --output)" 2 "${V[@]}" "$D/renamed.onnx" --data "$D/x.npy" --map logit=scores
contains "the --map error lists the outputs" "$LAST_ERR" "--map logit=scores: the baseline has no output named 'logit'; its outputs are: logits, aux"
expect_exit "a malformed --map is a usage error" 2 "${V[@]}" "$D/renamed.onnx" --map logits

# ---- an extra output: one line in every command ----
line="'extra' of the candidate has no counterpart in the baseline (outputs of the baseline: logits, aux; of the candidate: logits, aux, extra)"
expect_exit "validate: an extra output is refused" 3 "${V[@]}" "$D/extra.onnx" --data "$D/x.npy"
contains "validate: the extra output's line" "$LAST_ERR" "$line"
expect_exit "compare: an extra output is refused, not ignored" 3 "${C[@]}" ex="$D/extra.onnx" --data "$D/x.npy" "${FAST[@]}"
contains "compare: the extra output's line" "$LAST_ERR" "'extra' of variant ex has no counterpart in the baseline base"

# ---- no name in common: by position, and said ----
expect_exit "validate: single outputs named differently pair by position" 0 "$MBENCH" validate "$D/one.onnx" "$D/one_out.onnx" --data "$D/x.npy"
contains "validate says so" "$LAST_OUT" "outputs   paired by position: logits=output (no output name matches"
expect_exit "compare: the same" 0 "$MBENCH" compare a="$D/one.onnx" b="$D/one_out.onnx" --data "$D/x.npy" "${FAST[@]}"
contains "compare says so beside the verdict" "$LAST_OUT" "outputs paired by position: logits=output"
done_testing
