#!/usr/bin/env bash
# api_example.sh - docs/examples/api_compare.c and api_profile.c compile
# against the public header and the shared library (which exports only the
# public API) and run a benchmark, a comparison and a profile through it.
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
exported=$(nm -D --defined-only "$SO" | awk '{print $3}')
if echo "$exported" | grep -q '^mb__'; then
    notok "libmbench.so exports no internal mb__ symbol" "$(echo "$exported" | grep '^mb__' | head -5)"
else
    ok "libmbench.so exports no internal mb__ symbol"
fi
done_testing
