#!/usr/bin/env bash
# ort_messages.sh - what the ONNX Runtime backend says about things that
# are not the model's fault: a directory given as the model, an external
# data file that is missing, and execution providers that the library lists
# but cannot load (runtime.providers holds only the usable ones).
. "$(dirname "$0")/lib.sh"

M="$T_TMP/models"
if ! "$PY" "$FIX/model/make_models.py" "$M" 2>"$T_TMP/make.err"; then
    notok "the fixture models are generated" "$(tail -3 "$T_TMP/make.err")"
    done_testing
fi
FAST=(--iterations 2 --warmup 0)

# --- a directory as the model ---------------------------------------------------
expect_exit "run DIR is a runtime error" 3 "$MBENCH" run "$M" "${FAST[@]}"
one_line "run DIR: the error is one line" "$LAST_ERR"
contains "run DIR: says it is a directory and to give the .onnx file" "$LAST_ERR" "is a directory; give the .onnx file"
contains "run DIR: names an .onnx file inside it" "$LAST_ERR" ".onnx"
if [[ "$LAST_ERR" == *"model package"* ]]; then notok "run DIR: ONNX Runtime's model-package message is not passed on" "$LAST_ERR"; else ok "run DIR: ONNX Runtime's model-package message is not passed on"; fi
mkdir -p "$T_TMP/empty"
expect_exit "run on an empty directory is a runtime error" 3 "$MBENCH" run "$T_TMP/empty" "${FAST[@]}"
contains "run on an empty directory says there is no .onnx in it" "$LAST_ERR" "there is none in it"
expect_exit "profile DIR is a runtime error too" 3 "$MBENCH" profile "$M" "${FAST[@]}" --no-peak --no-counters
contains "profile DIR: says it is a directory" "$LAST_ERR" "is a directory; give the .onnx file"

# --- a missing external data file -------------------------------------------------
expect_exit "a model whose external data file is missing is a runtime error" 3 "$MBENCH" run "$M/external_missing.onnx" "${FAST[@]}"
one_line "missing external data: one line" "$LAST_ERR"
contains "missing external data: names the missing file" "$LAST_ERR" "needs external data file gone.bin, not found in $M"
if [[ "$LAST_ERR" == *"valid, complete ONNX file"* ]]; then notok "missing external data: does not blame the .onnx file" "$LAST_ERR"; else ok "missing external data: does not blame the .onnx file"; fi
# a corrupt model still gets the generic advice
printf '\x08\x07\x12\x03abc' >"$T_TMP/bad.onnx"
expect_exit "a corrupt model is still rejected" 3 "$MBENCH" run "$T_TMP/bad.onnx" "${FAST[@]}"
if [[ "$LAST_ERR" == *"external data"* ]]; then notok "a corrupt model is not blamed on external data" "$LAST_ERR"; else ok "a corrupt model is not blamed on external data"; fi

# --- listed against usable execution providers --------------------------------------
ORTLIB=${MBENCH_ORT_LIB:-$MBENCH_ROOT/build/ort/libonnxruntime.so.1}
mkdir -p "$T_TMP/ort"
ln -s "$(readlink -f "$ORTLIB")" "$T_TMP/ort/libonnxruntime.so.1"
expect_exit "run with a copy of the runtime library" 0 "$MBENCH" run "$M/mlp.onnx" "${FAST[@]}" --ort-lib "$T_TMP/ort/libonnxruntime.so.1" --json "$T_TMP/plain.json" --quiet
listed=$("$PY" -c "import json,sys; print(json.load(open(sys.argv[1]))['runs'][0]['runtime']['providers_listed'])" "$T_TMP/plain.json" 2>&1)
if [[ "$listed" != *CUDAExecutionProvider* ]]; then
    skip "CUDA listed but not loadable is marked unusable" "this ONNX Runtime does not list CUDA ($listed)"
else
    check "a listed provider without its provider library is not in runtime.providers" "$PY" -c "
import json,sys; r=json.load(open(sys.argv[1]))['runs'][0]['runtime']
assert 'CUDAExecutionProvider' not in r['providers'], r['providers']
assert 'CPUExecutionProvider' in r['providers'], r['providers']
assert 'CUDAExecutionProvider' in r['providers_listed'].split(','), r
assert 'CUDAExecutionProvider (libonnxruntime_providers_' in r['providers_unusable'], r['providers_unusable']" "$T_TMP/plain.json"
    # with the provider libraries beside it, CUDA counts as usable (their
    # presence is what is checked; nothing is loaded)
    : >"$T_TMP/ort/libonnxruntime_providers_shared.so"
    : >"$T_TMP/ort/libonnxruntime_providers_cuda.so"
    expect_exit "run with provider libraries beside the runtime" 0 "$MBENCH" run "$M/mlp.onnx" "${FAST[@]}" --ort-lib "$T_TMP/ort/libonnxruntime.so.1" --json "$T_TMP/cuda.json" --quiet
    check "a provider whose library is present is listed as usable" "$PY" -c "
import json,sys; r=json.load(open(sys.argv[1]))['runs'][0]['runtime']
assert 'CUDAExecutionProvider' in r['providers'], r
assert 'CUDAExecutionProvider' not in r['providers_unusable'], r" "$T_TMP/cuda.json"
fi
done_testing
