#!/usr/bin/env bash
# accuracy.sh - `mbench diff` and `mbench validate` from the outside: exit
# codes, verdicts, loud warnings, bad input.  Models and data come from
# tests/fixtures/accuracy/make_models.py (generated at test time).
. "$(dirname "$0")/lib.sh"
D="$T_TMP/m"
mkdir -p "$D"
if ! $PY "$FIX/accuracy/make_models.py" "$D" 2>"$T_TMP/py.err"; then
    skip "the accuracy fixtures are generated" "python3-onnx or numpy missing: $(tail -1 "$T_TMP/py.err")"
    done_testing
fi
$PY - "$D" <<'PY'
import sys, numpy as np
d = sys.argv[1]
rng = np.random.default_rng(1)
a = rng.random((2, 3, 32, 32), dtype=np.float32)
np.save(d + "/a.npy", a)
np.save(d + "/b.npy", (a + 0.01).astype(np.float32))
np.save(d + "/b_shape.npy", a.reshape(2, 3, 16, 64))
np.savez(d + "/a.npz", out=a, aux=a[0])
np.savez(d + "/b.npz", aux=a[0], out=a)
import os
os.makedirs(d + "/da"); os.makedirs(d + "/db")
np.save(d + "/da/x.npy", a); np.save(d + "/db/x.npy", a)
np.save(d + "/da/y.npy", a[0]); np.save(d + "/db/y.npy", a[0] * 2)
open(d + "/bad.npy", "wb").write(b"\x93NUMPY\x01\x00garbage")
np.save(d + "/empty.npy", np.zeros((3, 0, 5), np.float32))
np.save(d + "/empty2.npy", np.zeros((3, 0, 5), np.float32))
PY
ORT=(--ort-lib "$MBENCH_ORT_LIB")

# ---- diff ----
expect_exit "diff of a tensor with itself passes its gates" 0 \
    "$MBENCH" diff "$D/a.npy" "$D/a.npy" --gate 'psnr>=100' --gate 'ssim>=0.999999'
contains "diff prints an infinite PSNR for identical tensors" "$LAST_OUT" "psnr inf dB"
expect_exit "diff exits 1 when a gate fails" 1 \
    "$MBENCH" diff "$D/a.npy" "$D/b.npy" --gate 'max_abs<=1e-3'
contains "the failing gate is named with its value" "$LAST_OUT" "FAIL max_abs<=0.001"
expect_exit "diff exits 0 without gates" 0 "$MBENCH" diff "$D/a.npy" "$D/b.npy"
expect_exit "diff of different shapes exits 3" 3 "$MBENCH" diff "$D/a.npy" "$D/b_shape.npy"
contains "the shape error names both shapes" "$LAST_ERR" "[2,3,32,32]"
contains "the shape error names the candidate's shape" "$LAST_ERR" "[2,3,16,64]"
one_line "the shape error is one line" "$LAST_ERR"
expect_exit "diff of a corrupt .npy exits 3" 3 "$MBENCH" diff "$D/a.npy" "$D/bad.npy"
expect_exit "diff of a missing file exits 3" 3 "$MBENCH" diff "$D/a.npy" "$D/none.npy"
expect_exit "diff with one path is a usage error" 2 "$MBENCH" diff "$D/a.npy"
expect_exit "diff with a nonsense flag is a usage error" 2 "$MBENCH" diff "$D/a.npy" "$D/a.npy" --frobnicate
one_line "the usage error is one line" "$LAST_ERR"
expect_exit "a malformed gate is a usage error" 2 "$MBENCH" diff "$D/a.npy" "$D/a.npy" --gate 'psnr=>40'
expect_exit "diff --help exits 0" 0 "$MBENCH" diff --help
expect_exit "two empty tensors of one shape pass every gate (nothing can differ)" 0 \
    "$MBENCH" diff "$D/empty.npy" "$D/empty2.npy" --gate 'cosine>=0.999' --gate 'rel_l2<=1e-4'
contains "the metrics of empty tensors are n/a" "$LAST_OUT" "cosine n/a"
expect_exit "npz archives are matched by member name" 0 \
    "$MBENCH" diff "$D/a.npz" "$D/b.npz" --gate 'max_abs==0'
expect_exit "directories are matched by file name" 1 \
    "$MBENCH" diff "$D/da" "$D/db" --gate 'max_abs==0' --json "$D/dir.json"
contains "the JSON document lists both tensors" "$(cat "$D/dir.json")" '"name": "y"'
expect_exit "diff writes Markdown, HTML and CSV beside the JSON" 1 \
    "$MBENCH" diff "$D/da" "$D/db" --gate 'max_abs==0' --md "$D/dir.md" --html "$D/dir.html" --csv "$D/dir.csv" -q
contains "the Markdown names the verdict" "$(cat "$D/dir.md")" "# mbench diff: FAIL"
contains "the Markdown lists the gate on each tensor" "$(cat "$D/dir.md")" "max\\_abs==0 on y:"
contains "the HTML page is titled with the verdict" "$(cat "$D/dir.html")" "<title>mbench diff: FAIL</title>"
check "the CSV has one line per tensor whose figures are the JSON document's (Python's csv)" $PY -c '
import csv, json, math, sys
rows = {r["tensor"]: r for r in csv.DictReader(open(sys.argv[1]))}
doc = {o["name"]: o for o in json.load(open(sys.argv[2]))["outputs"]}
assert sorted(rows) == sorted(doc), (sorted(rows), sorted(doc))
for n, o in doc.items():
    for k in ("mae", "max_abs", "cosine", "rel_l2", "count"):
        a, b = float(rows[n][k]), o[k]
        assert a == b or abs(a - b) <= 1e-8 * abs(b), (n, k, a, b)
' "$D/dir.csv" "$D/dir.json"
expect_exit "--heatmap writes a PNG" 0 "$MBENCH" diff "$D/a.npy" "$D/b.npy" --heatmap "$D/h.png"
if [ "$(head -c 8 "$D/h.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]; then
    ok "the heatmap file starts with the PNG signature"
else notok "the heatmap file starts with the PNG signature" "$(od -An -tx1 "$D/h.png" | head -1)"; fi
check "the 32x32 heatmap is scaled up to 256x256 pixels" \
    $PY -c "import zlib,struct,sys; d=open('$D/h.png','rb').read(); w,h=struct.unpack('>II', d[16:24]); sys.exit(0 if (w,h)==(256,256) else 1)"

# ---- validate ----
if [ ! -f "$MBENCH_ORT_LIB" ]; then
    skip "validate runs models" "no ONNX Runtime at $MBENCH_ORT_LIB"
    done_testing
fi
expect_exit "an fp16-weight candidate within tolerance passes on labels" 0 \
    "$MBENCH" validate "$D/base.onnx" "$D/fp16.onnx" --data "$D/data.npy" --labels "$D/labels.npy" --batch 16 "${ORT[@]}"
contains "validate reports both accuracies" "$LAST_OUT" "baseline top-1 1.0000"
expect_exit "a broken candidate fails on top-1 agreement" 1 \
    "$MBENCH" validate "$D/base.onnx" "$D/broken.onnx" --data "$D/data.npy" "${ORT[@]}"
contains "the failed criterion is printed" "$LAST_OUT" "FAIL top-1 agreement"
expect_exit "a broken candidate fails on labels" 1 \
    "$MBENCH" validate "$D/base.onnx" "$D/broken.onnx" --data "$D/data.npy" --labels "$D/labels.npy" "${ORT[@]}"
expect_exit "a candidate with NaN outputs fails" 1 \
    "$MBENCH" validate "$D/base.onnx" "$D/nan.onnx" --data "$D/data.npy" "${ORT[@]}"
contains "the NaN outputs are named" "$LAST_OUT" "NaN/Inf values"
expect_exit "a near-identical candidate passes the explicit gates" 0 \
    "$MBENCH" validate "$D/base.onnx" "$D/close.onnx" --data "$D/data.npy" --gate 'cosine>=0.99999' --json "$D/v.json" "${ORT[@]}"
contains "the validate document records the verdict" "$(cat "$D/v.json")" '"passed": true'
expect_exit "report rebuilds a validation's Markdown and HTML from its document" 0 \
    "$MBENCH" report "$D/v.json" --md "$D/vr.md" --html "$D/vr.html"
contains "the rebuilt Markdown has the verdict" "$(head -1 "$D/vr.md")" "mbench validate: PASS"
contains "the rebuilt HTML has the verdict" "$(cat "$D/vr.html")" "PASS"
expect_exit "validate without data still decides" 0 \
    "$MBENCH" validate "$D/img.onnx" "$D/img.onnx" --samples 3 --json "$D/vs.json" "${ORT[@]}"
contains "random inputs are announced loudly on stderr" "$LAST_ERR" "NO REAL DATA"
contains "random inputs are announced in the console report" "$LAST_OUT" "RANDOM INPUTS ONLY"
contains "random inputs are recorded in the document's warnings" "$(cat "$D/vs.json")" "rests on random inputs"
expect_exit "labels of the wrong count are a runtime error" 3 \
    "$MBENCH" validate "$D/base.onnx" "$D/base.onnx" --data "$D/data.npy" --labels "$D/labels_short.txt" "${ORT[@]}"
contains "the label error gives both counts, before measuring" "$LAST_ERR" "63 labels for 64 samples; give one label per sample (checked before measuring)"
expect_exit "labels without data are a usage error" 2 \
    "$MBENCH" validate "$D/base.onnx" "$D/base.onnx" --labels "$D/labels.npy" "${ORT[@]}"
expect_exit "a missing candidate is a runtime error" 3 \
    "$MBENCH" validate "$D/base.onnx" "$D/missing.onnx" --data "$D/data.npy" "${ORT[@]}"
contains "the missing model is named" "$LAST_ERR" "missing.onnx"
expect_exit "data that does not fit the model is a runtime error" 3 \
    "$MBENCH" validate "$D/img.onnx" "$D/img.onnx" --data "$D/data.npy" "${ORT[@]}"
expect_exit "--save-outputs writes both models' outputs" 0 \
    "$MBENCH" validate "$D/base.onnx" "$D/close.onnx" --data "$D/data.npy" --save-outputs "$D/saved" -q "${ORT[@]}"
expect_exit "saved outputs can be diffed" 0 \
    "$MBENCH" diff "$D/saved/baseline" "$D/saved/candidate" --precision fp32
done_testing
