#!/usr/bin/env bash
# verdict.sh - compare gives one verdict per variant, validate's, over every
# output and the labels (issue 23): a BERT-like model whose pooler_output
# is 1.5x the baseline's (rel_l2 0.5) while logits are exact FAILS with and
# without labels, naming pooler_output and its rel_l2, in the console, the
# JSON, CSV, Markdown and HTML; --require reaches per-output figures and
# gates=pass; top1_delta has a paired CI; diff --heatmap draws the tensor
# that differs; a narrow terminal says which columns it hid.
. "$(dirname "$0")/lib.sh"
D="$T_TMP/b"
mkdir -p "$D"
if [ ! -f "$MBENCH_ORT_LIB" ]; then
    skip "compare runs models" "no ONNX Runtime at $MBENCH_ORT_LIB"
    done_testing
fi
if ! $PY "$FIX/accuracy/make_bert.py" "$D" 2>"$T_TMP/py.err"; then
    skip "the BERT-like fixtures are generated" "python3-onnx or numpy missing: $(tail -1 "$T_TMP/py.err")"
    done_testing
fi
FAST=(--processes 1 --min-time 0.05s --max-time 0.2s --min-iterations 5 --warmup 1)
C=("$MBENCH" compare base="$D/bert.onnx" pool="$D/bert_broken.onnx" --data "$D/data.npz" "${FAST[@]}")

# ---- with labels: the labels pass, the pooler fails ----
expect_exit "the broken pooler with labels: compare runs (no --require: exit 0)" 0 \
    "${C[@]}" --labels "$D/labels.npy" --json "$D/l.json" --csv "$D/l.csv" --md "$D/l.md" --html "$D/l.html"
contains "the verdict fails and names pooler_output and its rel_l2" "$LAST_OUT" \
    "verdict FAIL: pooler_output: rel_l2 0.5 (needs rel_l2<=0.0001)"
if [[ "$LAST_OUT" == *"accuracy maintained"* ]]; then
    notok "no 'accuracy maintained' for 64 samples whose CI is +-5.7%" "$LAST_OUT"
else ok "no 'accuracy maintained' for 64 samples whose CI is +-5.7%"; fi
contains "the top-1 sentence gives the paired CI" "$LAST_OUT" "paired 95% CI -0.0566 to +0.0566"
contains "the table has a verdict column" "$LAST_OUT" "verdict"
check "the JSON verdict: failed, pooler_output failing rel_l2, logits passing labels" $PY - "$D/l.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
v = [x for x in d["comparison"]["variants"] if x["name"] == "pool"][0]
vd = v["verdict"]
assert vd["passed"] is False and vd["rule"] == "labels", vd
per = {p["name"]: p for p in vd["per_output"]}
assert per["pooler_output"]["passed"] is False, per
bad = [c for c in per["pooler_output"]["checks"] if c["result"] == "fail"]
assert [c["check"] for c in bad] == ["rel_l2<=0.0001"] and abs(bad[0]["value"] - 0.5) < 1e-6, bad
assert per["logits"]["passed"] is True and per["last_hidden_state"]["passed"] is True, per
a = v["accuracy"]
assert a["delta_top1"] == 0 and a["paired"]["baseline_only"] == a["paired"]["candidate_only"] == 0, a
z2 = 1.959963984540054 ** 2
assert abs(a["delta_top1_ci95"][1] - z2 / (64 + z2)) < 1e-9, a
# agreement figures are per output: the pooler's rel_l2 is its own
out = {o["name"]: o for o in v["agreement"]["outputs"]}
assert abs(out["pooler_output"]["rel_l2"] - 0.5) < 1e-6 and out["logits"]["rel_l2"] == 0, out
PY
csv=$(cat "$D/l.csv")
contains "the CSV carries the verdict and the failing figure" "$csv" ",fail,pooler_output: rel_l2 0.5 (needs rel_l2<=0.0001)"
md=$(cat "$D/l.md")
contains "the Markdown accuracy table has the CI and the verdict" "$md" \
    "| pool | 1.000 | 1.000 | +0.0000 | -0.0566 to +0.0566 | 1.000 | FAIL: pooler\\_output: rel\\_l2 0.5"
contains "the Markdown output table has a gates column" "$md" "| FAIL rel\\_l2&lt;=0.0001 |"
html=$(cat "$D/l.html")
contains "the HTML output table has a gates column" "$html" "<th>gates</th>"
contains "the HTML names the failing gate" "$html" "FAIL rel_l2&lt;=0.0001"
# one headline per variant, correctness first (issue 35)
contains "the console's headline: FAIL naming pooler_output, then speed" "$LAST_OUT" \
    "pool: FAIL: pooler_output rel_l2 0.5 > 0.0001; speed "
first=$(grep -m1 '^\*\*Verdict:\*\*' "$D/l.md")
contains "the Markdown's first verdict line says FAIL and names pooler_output" "$first" \
    "**Verdict:** pool: **FAIL**: pooler\_output rel\_l2 0.5 &gt; 0.0001; speed "
contains "the Markdown marks the failed variant in the summary table" "$md" "| pool **FAIL** | bert\_broken.onnx |"
box=$(grep -o '<p class="verdict" id="verdict">.*</p>' "$D/l.html" | head -1)
contains "the HTML header box says FAIL and names pooler_output" "$box" \
    '<b>pool</b> <span class="failed">FAIL</span>: pooler_output rel_l2 0.5 &gt; 0.0001; speed '
contains "the HTML marks the failed variant in the summary table" "$html" 'pool <span class="st-failed">FAIL</span>'
check "the JSON and the CSV carry the same headline" $PY - "$D/l.json" "$D/l.csv" <<'PY'
import csv, json, sys
v = [x for x in json.load(open(sys.argv[1]))["comparison"]["variants"] if x["name"] == "pool"][0]
h = v["headline"]
assert h.startswith("FAIL: pooler_output rel_l2 0.5 > 0.0001; speed "), h
rows = {r["variant"]: r for r in csv.DictReader(open(sys.argv[2]))}
assert rows["pool"]["headline"] == h and rows["base"]["headline"] == "", rows
PY
contains "the compare HTML embeds the pool variant's heatmap of pooler_output" "$html" \
    "<figcaption>pool against base: |candidate - baseline| of pooler_output, all 64 samples (one per row), 64x16; brightest = |diff| 0.4978"
contains "... as a PNG" "$html" '<img alt="heatmap" style="width:min(100%,128px);image-rendering:pixelated" src="data:image/png;base64,iVBORw0KGgo'
expect_exit "validate of the broken pooler fails" 1 "$MBENCH" validate "$D/bert.onnx" "$D/bert_broken.onnx" \
    --data "$D/data.npz" --html "$D/v.html" --md "$D/v.md"
contains "its console reads the identical outputs' PSNR as identical" "$LAST_OUT" "psnr inf dB, identical"
contains "its HTML embeds the heatmap of pooler_output" "$(cat "$D/v.html")" \
    '<figure class="heatmap"><img alt="heatmap"'
contains "its Markdown gives the heatmap's caption" "$(cat "$D/v.md")" \
    "**Heatmap (in the HTML report):** \\|candidate - baseline\\| of pooler\\_output"

# ---- without labels: the output that differs, not the one that agrees ----
expect_exit "the broken pooler without labels: compare runs" 0 "${C[@]}" --json "$D/n.json"
contains "the verdict names pooler_output" "$LAST_OUT" "verdict FAIL: pooler_output: rel_l2 0.5"
if [[ "$LAST_OUT" == *"max |diff| 0"* ]]; then
    notok "the agreeing output's figures are not quoted as the difference" "$LAST_OUT"
else ok "the agreeing output's figures are not quoted as the difference"; fi

# ---- --require ----
expect_exit "--require gates=pass exits 6" 6 "${C[@]}" --require gates=pass
contains "... naming the failed requirement" "$LAST_OUT" "FAIL gates=pass [pool]: gates is fail, required pass"
expect_exit "--require OUTPUT:rel_l2 judges that output" 6 "${C[@]}" --require 'pooler_output:rel_l2<=0.01' \
    --require 'logits:rel_l2<=1e-6' --require 'pool:logits:cosine>=0.999' -q
contains "... pooler_output fails" "$LAST_OUT" "FAIL pooler_output:rel_l2<=0.01 [pool]: output pooler_output: 0.5"
contains "... logits passes" "$LAST_OUT" "PASS logits:rel_l2<=1e-6 [pool]: output logits: 0"
contains "... VARIANT:OUTPUT:figure works" "$LAST_OUT" "PASS pool:logits:cosine>=0.999 [pool]"
expect_exit "rel_l2 without an output is judged on every output" 6 "${C[@]}" --require 'rel_l2<=0.01' -q
contains "... and names the one that fails" "$LAST_OUT" "output pooler_output: 0.5: not <= 0.01"
expect_exit "a passing per-output requirement exits 0" 0 "${C[@]}" --require 'max_abs<=0.6' --require 'verdict=fail' -q
expect_exit "gates=maybe is a usage error" 2 "${C[@]}" --require gates=maybe
contains "... saying pass or fail" "$LAST_ERR" "gates is pass or fail"
expect_exit "an output figure without a comparison is an error naming why" 2 \
    "$MBENCH" run "$D/bert.onnx" --processes 1 --max-time 0.2s --min-time 0.1s --require 'rel_l2<=0.1'

expect_exit "compare --output logits names the class scores but still judges every output" 6 \
    "${C[@]}" --output logits --require gates=pass
contains "... so the pooler still fails" "$LAST_OUT" "verdict FAIL: pooler_output: rel_l2 0.5"

# ---- diff --heatmap draws the tensor that differs ----
mkdir -p "$D/a" "$D/c"
$PY - "$D" <<'PY'
import sys, numpy as np
d = sys.argv[1]
z = np.zeros((8, 8), np.float32)
np.save(f"{d}/a/first.npy", z); np.save(f"{d}/c/first.npy", z)
x = np.arange(64, dtype=np.float32).reshape(8, 8)
np.save(f"{d}/a/second.npy", x); np.save(f"{d}/c/second.npy", x * 1.5)
np.save(f"{d}/a/third.npy", x); np.save(f"{d}/c/third.npy", x + 0.01)
PY
expect_exit "diff --heatmap runs" 0 "$MBENCH" diff "$D/a" "$D/c" --heatmap "$D/h.png"
contains "it draws the tensor that differs most, not the first" "$LAST_OUT" "heatmap of second:"
expect_exit "diff --heatmap --output draws the one named" 0 "$MBENCH" diff "$D/a" "$D/c" --heatmap "$D/h.png" --output third
contains "... third" "$LAST_OUT" "heatmap of third:"
expect_exit "an unknown --output is a usage error" 2 "$MBENCH" diff "$D/a" "$D/c" --heatmap "$D/h.png" --output nosuch
contains "... naming it" "$LAST_ERR" "--output nosuch: no tensor of that name"

# ---- --shape without NAME= for a model with one input (issue 35) ----
DIG="$MBENCH_ROOT/models/digits_fp32.onnx"
expect_exit "--shape 1,1,8,8 without NAME= runs a one-input model" 0 \
    "$MBENCH" run "$DIG" --shape 1,1,8,8 --batch 2 --processes 1 --iterations 5 --warmup 1 -q --json "$D/sh.json"
check "... as the shape of its input 'image' (scaled by --batch)" $PY -c \
    "import json,sys; i=json.load(open('$D/sh.json'))['runs'][0]['inputs']; sys.exit(0 if [x['name'] for x in i]==['image'] and i[0]['shape']==[2,1,8,8] else 1)"
expect_exit "... a fixed size it changes is refused as with NAME=" 2 \
    "$MBENCH" run "$DIG" --shape 1,1,9,8 --processes 1 --iterations 5 --warmup 1 -q
contains "... naming the input and the fixed dimension" "$LAST_ERR" "changes fixed dimension 2 of input 'image'"
expect_exit "--shape without NAME= on a model with two inputs is a usage error" 2 \
    "$MBENCH" run "$D/bert.onnx" --shape 1,8 --processes 1 --iterations 5 --warmup 1 -q
contains "... naming its inputs and the fix" "$LAST_ERR" \
    "--shape 1,8 without NAME= needs a model with one input, and this one has 2 (input_ids, attention_mask); give --shape NAME=D0,D1,..."

# ---- validate warns on small n as compare does (issue 35) ----
$PY - "$D" <<'PY'
import sys, numpy as np
d = sys.argv[1]
x = np.load(f"{d}/data.npz")
np.savez(f"{d}/d32.npz", **{k: v[:32] for k, v in x.items()})
np.save(f"{d}/l32.npy", np.load(f"{d}/labels.npy")[:32])
PY
expect_exit "validate of 32 labelled samples passes" 0 "$MBENCH" validate "$D/bert.onnx" "$D/bert.onnx" \
    --data "$D/d32.npz" --labels "$D/l32.npy" --json "$D/v32.json"
contains "... but warns that its CI of +-10.7% cannot show the accuracy is maintained" "$LAST_OUT" \
    "! top-1 accuracy on logits within the tolerance on these 32 samples (+0.0000), but the paired 95% CI -0.1072 to +0.1072 reaches below -0.01"
check "... and the JSON carries the warning" $PY -c \
    "import json,sys; w=json.load(open('$D/v32.json'))['warnings']; sys.exit(0 if any('score more samples' in x for x in w) else 1)"

# ---- the heatmap draws the worst sample (issue 35) ----
mkdir -p "$D/s17"
$PY - "$D/s17" <<'PY'
import sys, numpy as np
d = sys.argv[1]
a = np.random.default_rng(1).random((32, 3, 8, 8)).astype(np.float32)
b = a.copy(); b[17, 1, 3, 5] += 1.0
np.save(f"{d}/a.npy", a); np.save(f"{d}/b.npy", b)
PY
expect_exit "diff --heatmap of a pair that differs only in sample 17" 0 \
    "$MBENCH" diff "$D/s17/a.npy" "$D/s17/b.npy" --heatmap "$D/s17/h.png" --json "$D/s17/d.json" --html "$D/s17/d.html"
contains "the console names sample 17 as the one drawn" "$LAST_OUT" "sample 17 (its worst of 32)"
contains "... and the brightest colour is the difference of 1" "$LAST_OUT" "brightest = |diff| 1)"
# 8 px scaled by 32: pixel (3, 5) of the image is x 160..191, y 96..127
check "the PNG draws sample 17: its one differing pixel is the brightest colour, the rest dark" \
    $PY - "$FIX/accuracy" "$D/s17/h.png" <<'PY'
import sys; sys.path.insert(0, sys.argv[1])
import png_pixels
px = png_pixels.read(sys.argv[2])
hot, cold = px[100][170], px[10][10]
assert sum(hot) > 500 and sum(cold) < 200, (hot, cold)
PY
check "the JSON's embedded heatmap is sample 17 of the tensor, the worst" $PY - "$D/s17/d.json" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))["heatmap"]
assert h["sample"] == 17 and h["samples"] == 32 and h["chosen"] == "worst sample", h
assert h["max_abs"] == 1 and h["png_base64"].startswith("iVBORw0KGgo"), {k: v for k, v in h.items() if k != "png_base64"}
PY
contains "the HTML of the diff embeds the heatmap as a PNG" "$(cat "$D/s17/d.html")" 'src="data:image/png;base64,iVBORw0KGgo'
expect_exit "--heatmap-sample 3 draws sample 3" 0 \
    "$MBENCH" diff "$D/s17/a.npy" "$D/s17/b.npy" --heatmap "$D/s17/h3.png" --heatmap-sample 3
contains "... and says it was chosen" "$LAST_OUT" "sample 3 (chosen of 32)"
check "... which is all dark: sample 3 does not differ" $PY - "$FIX/accuracy" "$D/s17/h3.png" <<'PY'
import sys; sys.path.insert(0, sys.argv[1])
import png_pixels
px = png_pixels.read(sys.argv[2])
assert sum(px[100][170]) < 200, px[100][170]
PY
expect_exit "a --heatmap-sample outside the tensor is a usage error" 2 \
    "$MBENCH" diff "$D/s17/a.npy" "$D/s17/b.npy" --heatmap "$D/s17/h3.png" --heatmap-sample 32
contains "... naming how many samples there are" "$LAST_ERR" "it has 32 samples (0..31)"
$PY -c "import numpy as np; np.save('$D/s17/z0.npy', np.float32(1.5)); np.save('$D/s17/z1.npy', np.float32(1.25))"
expect_exit "a diff of scalars, where no heatmap can be drawn, still succeeds" 0 \
    "$MBENCH" diff "$D/s17/z0.npy" "$D/s17/z1.npy" --json "$D/s17/z.json"

# ---- a narrow terminal says what it hid ----
out=$(COLUMNS=80 "$MBENCH" run "$D/bert.onnx" --processes 1 --min-time 0.1s --max-time 0.2s 2>/dev/null)
contains "run at 80 columns names the hidden columns" "$out" "(80 columns: not shown: p90, p95, mean ± std, min, max, stop, samples/s;
    COLUMNS=200"
check "run at 80 columns prints no line wider than 80 characters" $PY -c "
import sys
wide = [l for l in sys.argv[1].split(chr(10)) if len(l) > 80]
sys.exit(1 if wide else 0)" "$out"
out=$(COLUMNS=80 "${C[@]}" 2>/dev/null)
contains "compare at 80 columns names the hidden columns" "$out" "(80 columns: not shown: status, p50 CI, p99, run CV, inf/s, peak RSS, size,"
# four variants at 80 columns: no line wider than the terminal (issue 35)
COLUMNS=80 "$MBENCH" compare base="$D/bert.onnx" pool="$D/bert_broken.onnx" int8="$D/bert_int8.onnx" \
    opt="$D/bert.onnx,opt-level=all" --data "$D/data.npz" --labels "$D/labels.npy" "${FAST[@]}" \
    >"$D/c80.out" 2>"$D/c80.err"
check "COLUMNS=80 compare of four variants prints no line wider than 80 characters" \
    $PY - "$D/c80.out" "$D/c80.err" <<'PY'
import sys
lines = [l.rstrip("\n") for f in sys.argv[1:] for l in open(f, encoding="utf-8")]
wide = [l for l in lines if len(l) > 80]
assert not wide and len(lines) > 20, wide or lines
PY
out=$(cat "$D/c80.out")
contains "... the table keeps the speedup CI, top-1, agreement and the verdict" "$out" \
    "variant      p50 ms    speedup [95% CI]                  top-1   agree verdict"
contains "... and the recommendations wrap under their own indent" "$out" "(+0.0000),
    but the paired 95% CI -0.0566 to +0.0566"
out=$(COLUMNS=200 "$MBENCH" run "$D/bert.onnx" --processes 1 --min-time 0.1s --max-time 0.2s 2>/dev/null)
if [[ "$out" == *"not shown"* ]]; then notok "at 200 columns nothing is hidden" "$out"; else ok "at 200 columns nothing is hidden"; fi
done_testing
