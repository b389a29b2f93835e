#!/usr/bin/env bash
# The LibTorch backend plugin on TorchScript models exported by
# tests/fixtures/torch/make_models.py (a CNN and a transformer block, also
# exported to ONNX with the same weights): info, run, compare ORT vs torch
# with output agreement, outputs checked against PyTorch itself, dtype,
# options and bad input.  Skipped when the plugin was not built (no
# libtorch-dev) or python3-torch is missing.
. "$(dirname "$0")/lib.sh"
PLUGIN="$MBENCH_BUILD/plugins/mbench_torch.so"
FAST=(--min-time 0.05s --max-time 0.2s --min-iterations 10 --warmup 3 --threads 1)
if [ ! -f "$PLUGIN" ] || ! has_modules $PY torch; then
    skip "the torch backend" "plugin not built or python3-torch missing (scripts/deps.sh test)"
    done_testing
fi
M="$T_TMP/models"
check "the test script exports both networks to TorchScript and ONNX" \
    $PY -W ignore "$FIX/torch/make_models.py" "$M"

# ---- info ------------------------------------------------------------------
expect_exit "info describes a TorchScript file through the plugin" 0 \
    "$MBENCH" info "$M/cnn.pt"
contains "info names the format and the runtime" "$LAST_OUT" "TorchScript, read by libtorch"
contains "info lists the input with its named batch axis" "$LAST_OUT" "[batch, 3, 32, 32]"
contains "info counts the convolutions" "$LAST_OUT" "_convolution 2"
expect_exit "info --json of the transformer block" 0 "$MBENCH" info "$M/block.pt" --json "$T_TMP/info.json"
check "info's parameter count and outputs match PyTorch's" \
$PY - "$T_TMP/info.json" "$M/check.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
n = json.load(open(sys.argv[2]))["block"]["params"]   # PyTorch's count, by make_models.py
assert d["schema"] == "mbench.info/1" and d["format"] == "TorchScript", d
assert d["params"] == n, (d["params"], n)
assert d["params_by_dtype"]["float32"]["bytes"] == 4 * n
assert [o["name"] for o in d["outputs"]] == ["y", "logits"], d["outputs"]
assert d["op_types"]["linear"] == 5, d["op_types"]
assert d["runtime"]["name"] == "libtorch"
PYEOF

# ---- run -------------------------------------------------------------------
expect_exit "run finds the plugin by the .pt extension" 0 \
    "$MBENCH" run "$M/cnn.pt" --batch 1,4 --processes 2 "${FAST[@]}" --json "$T_TMP/run.json"
contains "the run names libtorch" "$LAST_OUT" "libtorch"
check "the run document has the torch backend, phases, memory, shapes and params" \
$PY - "$T_TMP/run.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
r1, r4 = d["runs"]
for r in (r1, r4):
    assert r["status"] == "ok", r
    assert r["backend"] == "torch" and r["runtime"]["name"] == "libtorch", r["runtime"]
    assert r["runtime"]["threads"] == "1", r["runtime"]  # --threads 1 applied
    assert r["memory"]["rss_peak_bytes"] > 50 << 20, r["memory"]
    assert r["latency"]["median"] > 0
# every batch size ran in fresh processes, each with its own cold run
assert r1["phases"]["first_inference_ns"] > 0 and r4["phases"]["first_inference_ns"] > 0
assert r1["phases"]["library_load_ns"] > 0
assert r1["model"]["params"] > 5000 and r1["model"]["format"] == "TorchScript", r1["model"]
assert r1["outputs"][0]["name"] == "logits" and r1["outputs"][0]["shape"] == [1, 10], r1["outputs"]
assert r4["inputs"][0]["shape"] == [4, 3, 32, 32], r4["inputs"]
PYEOF
expect_exit "--backend torch names the plugin explicitly" 0 \
    "$MBENCH" run "$M/block.pt" --backend torch --processes 1 "${FAST[@]}"

# ---- outputs against PyTorch, and ORT against torch ----------------------------
$PY - "$M" <<'PYEOF'
import json, sys
import numpy as np
m = sys.argv[1]
c = json.load(open(f"{m}/check.json"))
for name, shape in (("cnn", c["cnn"]["input"]), ("block", c["block"]["input"])):
    n = int(np.prod(shape))
    np.save(f"{m}/{name}_x.npy", (np.arange(n, dtype=np.float32) % 97 / 97.0).reshape(shape))
PYEOF
for net in cnn block; do
    expect_exit "compare ort=$net.onnx torch=$net.pt runs both frameworks" 0 \
        "$MBENCH" compare ort="$M/$net.onnx" torch="$M/$net.pt" --data "$M/${net}_x.npy" \
        --batch 2 --processes 2 "${FAST[@]}" --json "$T_TMP/$net.json" --save-outputs "$T_TMP/$net.out"
    contains "the $net comparison shows a speedup column" "$LAST_OUT" "speedup"
    contains "the $net comparison says the outputs agree (verdict PASS)" "$LAST_OUT" "verdict PASS: "
    check "$net: both frameworks' outputs match PyTorch's and each other within 1e-4" \
    $PY - "$T_TMP/$net.json" "$T_TMP/$net.out" "$M/check.json" "$net" <<'PYEOF'
import json, sys
import numpy as np
d, outs, ref, net = json.load(open(sys.argv[1])), sys.argv[2], json.load(open(sys.argv[3])), sys.argv[4]
ref = ref[net]["outputs"]
runs = {r["variant"]: r for r in d["runs"]}
assert runs["torch"]["backend"] == "torch" and runs["ort"]["backend"] == "ort"
for o, want in ref.items():
    want = np.array(want, np.float32)
    assert np.abs(want).max() > 0.1, f"{o}: reference outputs are about zero"
    for v in ("ort", "torch"):
        got = np.load(f"{outs}/{v}/{o}.npy").ravel()
        err = np.abs(got - want).max()
        assert err < 1e-4, (v, o, err)
cmp = {v["name"]: v for v in d["comparison"]["variants"]}
ag = cmp["torch"]["agreement"]
assert ag and all(x.get("max_abs", 1) < 1e-4 for x in ag["outputs"]), ag
assert cmp["torch"]["speedup_median"]["value"] > 0, cmp["torch"]
PYEOF
done
expect_exit "validate ort vs torch passes on the CNN" 0 \
    "$MBENCH" validate "$M/cnn.onnx" "$M/cnn.pt" --data "$M/cnn_x.npy" --batch 2 --threads 1

# ---- dtype and options ----------------------------------------------------------
expect_exit "bfloat16 runs and still agrees loosely with float32" 0 \
    "$MBENCH" compare fp32="$M/cnn.pt" bf16="$M/cnn.pt,backend-opt=dtype=bfloat16" \
    --batch 2 --processes 1 "${FAST[@]}" --json "$T_TMP/bf16.json"
check "the bf16 variant counts bfloat16 parameters and differs from fp32 by a bf16 rounding" \
$PY - "$T_TMP/bf16.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
runs = {r["variant"]: r for r in d["runs"]}
assert "bfloat16" in runs["bf16"]["model"]["params_by_dtype"], runs["bf16"]["model"]
v = {x["name"]: x for x in d["comparison"]["variants"]}["bf16"]
mx = v["agreement"]["outputs"][0]["max_abs"]
assert 0 < mx < 0.5, mx  # not identical (it really ran in bf16), not garbage
PYEOF
expect_exit "float16 without CPU kernels is a clear runtime error" 3 \
    "$MBENCH" run "$M/block.pt" --backend-opt dtype=float16 --processes 1 "${FAST[@]}"
contains "the float16 error names the kernel and the fix" "$LAST_ERR" "not implemented for 'Half'"
one_line "the float16 error is one line" "$LAST_ERR"
expect_exit "optimize=1 (optimize_for_inference) runs" 0 \
    "$MBENCH" run "$M/cnn.pt" --backend-opt optimize=1 --processes 1 "${FAST[@]}"
expect_exit "an unknown torch option is a usage error" 2 \
    "$MBENCH" run "$M/cnn.pt" --backend-opt fuse=1 --processes 1
contains "it lists the options" "$LAST_ERR" "threads, inter-threads, dtype, profiling, optimize"

# ---- bad input ----------------------------------------------------------------------
echo "not a zip" > "$T_TMP/bad.pt"
expect_exit "a .pt that is not a TorchScript archive is a runtime error" 3 "$MBENCH" run "$T_TMP/bad.pt"
contains "it says how to save TorchScript" "$LAST_ERR" "torch.jit.save"
one_line "that error is one line" "$LAST_ERR"
expect_exit "a missing .pt names the path" 3 "$MBENCH" info "$T_TMP/none.pt"
contains "the missing file is named" "$LAST_ERR" "none.pt does not exist"
# Two small TorchScript files, written by one python3 (importing torch
# takes seconds): noshape.pt has no mbench.json; fewer.pt returns three
# tensors and its mbench.json names one.
cat > "$T_TMP/small.py" <<'PYEOF'
import json, sys, torch
class NoShape(torch.nn.Module):
    def forward(self, a, b):
        return a * 2 + b
torch.jit.save(torch.jit.script(NoShape()), sys.argv[1])
class Fewer(torch.nn.Module):
    def forward(self, x):
        return x + 1, x * 2, x - 1
meta = {"inputs": [{"name": "x", "shape": ["batch", 3]}], "outputs": [{"name": "plus"}]}
torch.jit.save(torch.jit.script(Fewer()), sys.argv[2], _extra_files={"mbench.json": json.dumps(meta)})
PYEOF
check "a TorchScript file without mbench.json and one returning more tensors than it names are written" \
    $PY -W ignore "$T_TMP/small.py" "$T_TMP/noshape.pt" "$T_TMP/fewer.pt"
expect_exit "a .pt without mbench.json needs --shape" 3 "$MBENCH" run "$T_TMP/noshape.pt" --processes 1
contains "the error names the flag" "$LAST_ERR" "--shape a="
expect_exit "with --shape for every input it runs" 0 \
    "$MBENCH" run "$T_TMP/noshape.pt" --shape a=4,5 --shape b=4,5 --batch 2 --processes 1 "${FAST[@]}" --json "$T_TMP/ns.json"
check "the shapes given are the shapes fed (batch scales axis 0)" \
    $PY -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"][0]; assert r["inputs"][0]["shape"]==[8,5], r["inputs"]; assert r["outputs"][0]["shape"]==[8,5], r["outputs"]' "$T_TMP/ns.json"
expect_exit "it runs on the outputs described (the others are ignored)" 0 \
    "$MBENCH" run "$T_TMP/fewer.pt" --batch 2 --processes 1 "${FAST[@]}" --json "$T_TMP/fewer.json"
check "the one described output has its name and real shape" \
    $PY -c 'import json,sys; o=json.load(open(sys.argv[1]))["runs"][0]["outputs"]; assert [(x["name"], x["shape"]) for x in o]==[("plus",[2,3])], o' "$T_TMP/fewer.json"
MBENCH_PLUGIN_PATH=/nonexistent expect_exit "an unknown backend name lists the plugin directories" 2 \
    "$MBENCH" run "$M/cnn.pt" --backend nosuch --processes 1
contains "it names the plugin file looked for" "$LAST_ERR" "mbench_nosuch.so"
done_testing
