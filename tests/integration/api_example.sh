#!/usr/bin/env bash
# api_example.sh - docs/examples/api_compare.c, api_profile.c and
# api_validate.c (and api_site.c) compile against the public header and the shared library
# (which exports only the public API) and run a benchmark, a comparison, a
# profile and validations through it (the validations on the real models of tests/fixtures/accuracy, through
# ONNX Runtime, with the verdicts `mbench validate` gives).
. "$(dirname "$0")/lib.sh"
SO="$MBENCH_BUILD/libmbench.so.0"
if [ ! -f "$SO" ]; then skip "the API example" "no shared library in $MBENCH_BUILD"; done_testing; fi
if [ -n "${MBENCH_SANITIZED:-}" ]; then
    # The sanitized library needs the sanitizer runtime in the program too.
    skip "the API example" "built without sanitizers; runs in make test"; done_testing
fi
check "the API example compiles against include/ and libmbench.so" \
    cc -std=c11 -Wall -Werror -I"$MBENCH_ROOT/include" "$MBENCH_ROOT/docs/examples/api_compare.c" \
    "$SO" -Wl,-rpath,"$MBENCH_BUILD" -o "$T_TMP/api_compare"
expect_exit "the API example runs a benchmark and a comparison" 0 "$T_TMP/api_compare"
contains "the comparison judged the slower variant" "$LAST_OUT" "slower"
check "the profile example compiles against include/ and libmbench.so" \
    cc -std=c11 -Wall -Werror -I"$MBENCH_ROOT/include" "$MBENCH_ROOT/docs/examples/api_profile.c" \
    "$SO" -Wl,-rpath,"$MBENCH_BUILD" -o "$T_TMP/api_profile"
if $PY "$FIX/run/make_models.py" "$T_TMP/m" >"$T_TMP/gen.log" 2>&1; then
    expect_exit "the profile example profiles a model through ONNX Runtime" 0 "$T_TMP/api_profile" "$T_TMP/m/mlp.onnx"
    contains "the costliest op type of the MLP is named" "$LAST_OUT" "costliest op type: "
    if [[ "$LAST_OUT" =~ costliest\ op\ type:\ (MatMul|Add|Relu|Gemm|FusedMatMul|FusedGemm)$ ]]; then
        ok "the costliest op type is one of the MLP's operators"
    else notok "the costliest op type is one of the MLP's operators" "$LAST_OUT"; fi
    expect_exit "a profile of a missing model fails with its reason" 1 "$T_TMP/api_profile" "$T_TMP/none.onnx"
    contains "the failure names the model" "$LAST_ERR" "none.onnx"
else
    notok "the MLP model can be generated" "$(tail -3 "$T_TMP/gen.log")"
fi
check "the site example compiles against include/ and libmbench.so" \
    cc -std=c11 -Wall -Werror -I"$MBENCH_ROOT/include" "$MBENCH_ROOT/docs/examples/api_site.c" \
    "$SO" -Wl,-rpath,"$MBENCH_BUILD" -o "$T_TMP/api_site"
"$MBENCH" run none --backend null --batch 1,2 --iterations 20 -q --db "$T_TMP/site.db" >/dev/null 2>&1
expect_exit "the site example writes the site of a store" 0 "$T_TMP/api_site" "$T_TMP/site.db" "$T_TMP/site" 'https://forge.example/c/{sha}'
[ -s "$T_TMP/site/index.html" ] && ok "the site has its index" || notok "the site has its index" "$(ls "$T_TMP/site" 2>&1)"
expect_exit "the site example again" 0 "$T_TMP/api_site" "$T_TMP/site.db" "$T_TMP/site" 'https://forge.example/c/{sha}'
contains "an unchanged store rewrites no file" "$LAST_OUT" "wrote 0 files"
expect_exit "the site example fails on a missing store" 1 "$T_TMP/api_site" "$T_TMP/none.db" "$T_TMP/site"
contains "and says which" "$LAST_ERR" "none.db"
check "the validate example compiles against include/ and libmbench.so" \
    cc -std=c11 -Wall -Werror -I"$MBENCH_ROOT/include" "$MBENCH_ROOT/docs/examples/api_validate.c" \
    "$SO" -Wl,-rpath,"$MBENCH_BUILD" -o "$T_TMP/api_validate"
D="$T_TMP/v"
mkdir -p "$D"
if [ ! -f "$MBENCH_ORT_LIB" ]; then
    skip "the validate example runs models" "no ONNX Runtime at $MBENCH_ORT_LIB"
elif ! $PY "$FIX/accuracy/make_models.py" "$D" 2>"$T_TMP/py.err"; then
    skip "the validate example runs models" "python3-onnx or numpy missing: $(tail -1 "$T_TMP/py.err")"
else
    expect_exit "the API validates an fp16 candidate on data and labels" 0 \
        "$T_TMP/api_validate" "$D/base.onnx" "$D/fp16.onnx" "$D/data.npy" "$D/labels.npy"
    contains "the fp16 candidate passes on the labels rule" "$LAST_OUT" "verdict: PASS (rule labels)"
    expect_exit "the API validates a broken candidate without error" 0 \
        "$T_TMP/api_validate" "$D/base.onnx" "$D/broken.onnx" "$D/data.npy"
    contains "the broken candidate fails on top-1 agreement" "$LAST_OUT" "verdict: FAIL (rule top1_agreement)"
    expect_exit "mbench validate gives the broken candidate the same verdict" 1 \
        "$MBENCH" validate "$D/base.onnx" "$D/broken.onnx" --data "$D/data.npy" --threads 1
    expect_exit "the API validates on synthetic inputs" 0 \
        "$T_TMP/api_validate" "$D/img.onnx" "$D/img.onnx"
    contains "a model against itself passes on the gates" "$LAST_OUT" "verdict: PASS (rule gates)"
    expect_exit "a missing candidate is an error of the call" 1 \
        "$T_TMP/api_validate" "$D/base.onnx" "$D/missing.onnx" "$D/data.npy"
    contains "the error names the candidate" "$LAST_ERR" "candidate"
fi
exported=$(nm -D --defined-only "$SO" | awk '{print $3}')
if echo "$exported" | grep -q '^mb__'; then
    notok "libmbench.so exports no internal mb__ symbol" "$(echo "$exported" | grep '^mb__' | head -5)"
else
    ok "libmbench.so exports no internal mb__ symbol"
fi
done_testing
