#!/usr/bin/env bash
# onnx_testdata.sh - mbench against ONNX's own operator test suite
# (libonnx-testdata).  A fixed subset of about 100 node tests (picked by
# tests/fixtures/accuracy/pick_onnx_tests.py: every k-th eligible test in
# name order) is run through `mbench validate MODEL MODEL --data
# test_data_set_0 --save-outputs DIR` and the saved outputs are compared
# with ONNX's reference outputs by `mbench diff` (rtol 1e-3, atol 1e-7, the
# tolerances of ONNX's backend test runner; gate allclose_fail==0).
#
# Only mbench's own failures fail this test: a crash, an unexpected exit
# code, inputs or outputs it cannot read.  Where ONNX Runtime rejects a
# model, fails to run it, gives different results in two sessions (random
# ops) or deviates from the reference, the case is listed, not failed.
. "$(dirname "$0")/lib.sh"

NODE=/usr/share/libonnx-testdata/data/node
if [ ! -d "$NODE" ]; then
    skip "ONNX's operator tests are installed" "libonnx-testdata missing (scripts/deps.sh test)"
    done_testing
fi
if [ ! -f "$MBENCH_ORT_LIB" ]; then
    skip "ONNX Runtime is available" "no $MBENCH_ORT_LIB (make ort)"
    done_testing
fi
if ! has_modules $PY onnx; then
    skip "python3-onnx is available" "python3-onnx missing"
    done_testing
fi
LIST="$T_TMP/tests.txt"
$PY "$FIX/accuracy/pick_onnx_tests.py" "$NODE" 100 > "$LIST"
n_tests=$(wc -l < "$LIST")
if [ "$n_tests" -ge 50 ]; then ok "the subset holds $n_tests ONNX operator tests"
else notok "the subset holds at least 50 ONNX operator tests" "got $n_tests"; fi

agree=0; ort_reject=(); nondet=(); deviate=(); mb_err=()
while read -r d; do
    name=$(basename "$d")
    out="$T_TMP/out/$name"
    "$MBENCH" validate "$d/model.onnx" "$d/model.onnx" --data "$d/test_data_set_0" \
        --save-outputs "$out" --ort-lib "$MBENCH_ORT_LIB" -q >"$T_TMP/v.out" 2>"$T_TMP/v.err"
    rc=$?
    msg=$(head -c 300 "$T_TMP/v.err" | tr '\n' ' ')
    case $rc in
        0) ;;
        1) nondet+=("$name"); continue ;;
        3) if grep -qE 'rejected model|inference failed' "$T_TMP/v.err"; then
               ort_reject+=("$name: ${msg#mbench: error: }"); continue
           fi
           mb_err+=("$name: validate exit 3: $msg"); continue ;;
        *) mb_err+=("$name: validate exit $rc: $msg"); continue ;;
    esac
    "$MBENCH" diff "$d/test_data_set_0" "$out/baseline" --rtol 1e-3 --atol 1e-7 \
        --gate 'allclose_fail==0' -q >"$T_TMP/d.out" 2>"$T_TMP/d.err"
    rc=$?
    msg=$(head -c 300 "$T_TMP/d.err" | tr '\n' ' ')
    case $rc in
        0) agree=$((agree + 1)) ;;
        1) deviate+=("$name") ;;
        3) if grep -q 'differs from candidate shape' "$T_TMP/d.err"; then
               deviate+=("$name (shape: $msg)")
           else
               mb_err+=("$name: diff exit 3: $msg")
           fi ;;
        *) mb_err+=("$name: diff exit $rc: $msg") ;;
    esac
done < "$LIST"

echo "# $agree of $n_tests operator tests: ONNX Runtime agrees with ONNX's reference outputs"
for x in "${ort_reject[@]}"; do echo "# ONNX Runtime rejects or cannot run: $x"; done
for x in "${nondet[@]}"; do echo "# differs between two sessions (random op): $x"; done
for x in "${deviate[@]}"; do echo "# ONNX Runtime deviates from the reference: $x"; done
if [ ${#mb_err[@]} -eq 0 ]; then
    ok "mbench loads, runs and diffs every picked operator test without an error of its own"
else
    notok "mbench loads, runs and diffs every picked operator test without an error of its own" "${mb_err[@]}"
fi
# A model validated against itself on the same inputs must pass, also
# where its outputs are empty or hold NaN and Inf (these once failed, and
# the loop above files every exit 1 under "random op").
aa_bad=()
for t in test_tril_zero test_split_zero_size_splits test_slice_start_out_of_bounds \
         test_cast_FLOAT_to_BFLOAT16 ../pytorch-operator/test_operator_sqrt; do
    d="$NODE/$t"
    [ -f "$d/model.onnx" ] || continue
    "$MBENCH" validate "$d/model.onnx" "$d/model.onnx" --data "$d/test_data_set_0" \
        --ort-lib "$MBENCH_ORT_LIB" -q >"$T_TMP/aa.out" 2>&1 || aa_bad+=("$t: $(tail -3 "$T_TMP/aa.out" | tr '\n' ' ')")
done
if [ ${#aa_bad[@]} -eq 0 ]; then
    ok "a model passes against itself with empty outputs and with NaN/Inf in its class scores"
else
    notok "a model passes against itself with empty outputs and with NaN/Inf in its class scores" "${aa_bad[@]}"
fi
if [ "$agree" -ge $((n_tests * 8 / 10)) ]; then
    ok "ONNX Runtime agrees with the reference on most picked tests ($agree of $n_tests)"
else
    notok "ONNX Runtime agrees with the reference on most picked tests" "$agree of $n_tests"
fi
done_testing
