#!/usr/bin/env bash
# ov_precision.sh - the precision a variant computes in comes from its
# runtime (issue 35): OpenVINO computes in bf16 by default on a CPU with
# avx512_bf16 or AMX, and compare judges it by the bf16 gates, saying so
# beside the verdict and in the JSON; backend-opt=precision=f32 computes in
# fp32 and is judged by the fp32 gates.  On a CPU without bf16 OpenVINO
# computes in fp32 by default: the default case then expects fp32 (the bf16
# sentence is checked by tests/unit/test_valrun.c).  Skipped without the
# openvino plugin and venv (make frameworks) or the Fashion-MNIST images.
. "$(dirname "$0")/lib.sh"
PLUGIN="$MBENCH_BUILD/plugins/mbench_openvino.so"
VENV="${MBENCH_FRAMEWORKS_DIR:-$MBENCH_ROOT/build/frameworks}/openvino"
F="$FIX/fashion"
D="$T_TMP/f"
if [ ! -f "$PLUGIN" ] || [ ! -x "$VENV/bin/python" ] || [ ! -f "$MBENCH_ORT_LIB" ]; then
    skip "the openvino backend against ONNX Runtime" "plugin not built, no openvino venv (make frameworks) or no ONNX Runtime"
    done_testing
fi
if ! $PY "$F/make_fashion.py" data "$D" 300 >"$T_TMP/py.err" 2>&1; then
    skip "the Fashion-MNIST images are written" "$(tail -1 "$T_TMP/py.err")"
    done_testing
fi
if grep -qE 'avx512_bf16|amx_bf16' /proc/cpuinfo; then want=bf16; else want=fp32; fi
FAST=(--processes 2 --min-time 0.05s --max-time 0.2s --min-iterations 5 --warmup 1 --threads 1)
C=("$MBENCH" compare ort="$F/fashion_fp32.onnx" --data "$D/images.npy" --labels "$D/labels.npy" "${FAST[@]}")

expect_exit "OpenVINO at its default precision passes against ONNX Runtime" 0 \
    "${C[@]}" ov="$F/fashion_fp32.onnx",backend=openvino --json "$T_TMP/ov.json"
contains "the verdict names the $want gates" "$LAST_OUT" "verdict PASS: 1 output within the $want gates"
if [ "$want" = bf16 ]; then
    contains "... and says OpenVINO computed in bf16, with the way to fp32" "$LAST_OUT" \
        "ov computed in bf16, OpenVINO's default on this CPU: bf16 gates; backend-opt=precision=f32 to compute in fp32"
fi
check "the JSON verdict stores the precision and where it came from" $PY - "$T_TMP/ov.json" "$want" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
v = [x for x in d["comparison"]["variants"] if x["name"] == "ov"][0]["verdict"]
assert v["precision"] == sys.argv[2] and v["precision_source"] == "runtime", v
assert v["passed"] is True, v
ip = d["runs"][1]["runtime"]["session"]["inference_precision"]
assert {"bf16": "bf16", "f32": "fp32"}[ip] == sys.argv[2], ip
PY

expect_exit "backend-opt=precision=f32 passes the fp32 gates" 0 \
    "${C[@]}" ov="$F/fashion_fp32.onnx",backend=openvino,backend-opt=precision=f32 --json "$T_TMP/f32.json"
contains "the verdict names the fp32 gates" "$LAST_OUT" "verdict PASS: 1 output within the fp32 gates"
check "the JSON: fp32, asked for" $PY - "$T_TMP/f32.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))["comparison"]["variants"][1]["verdict"]
assert v["precision"] == "fp32" and v["precision_reason"] == "computed in fp32, as precision=f32 asked: fp32 gates", v
rel = [c for p in v["per_output"] for c in p["checks"] if c["check"].startswith("rel_l2")][0]
assert rel["check"] == "rel_l2<=0.0001" and rel["value"] < 1e-4, rel
PY

expect_exit "validate judges the candidate's runtime precision too" 0 \
    "$MBENCH" validate "$F/fashion_fp32.onnx" "$F/fashion_fp32.onnx" --candidate-opt backend=openvino \
    --data "$D/images.npy" --threads 1
contains "validate names the gates and why" "$LAST_OUT" "default gates for $want (computed in $want"
done_testing
