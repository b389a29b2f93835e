#!/usr/bin/env bash
# metrics_ref.sh - `mbench diff --json` agrees with independent references
# (numpy for the elementwise metrics, scikit-image's structural_similarity
# with gaussian_weights=True, sigma=1.5, use_sample_covariance=False and
# data_range set) to 1e-6 relative, on random and structured arrays: 2-D,
# 4-D NCHW, a 3-D volume, a float16 candidate, identical inputs (PSNR inf),
# arrays with NaN and Inf, classifier logits and a tensor large enough to
# use every core.  The reference lives in tests/fixtures/accuracy/.
. "$(dirname "$0")/lib.sh"
REF="$FIX/accuracy/ref_metrics.py"

if ! has_modules $PY numpy skimage.metrics; then
    skip "numpy and scikit-image are available" "python3-numpy or python3-skimage missing"
    done_testing
fi
D="$T_TMP/ref"
mkdir -p "$D"
check "the reference cases are generated" $PY "$REF" make "$D"
while read -r name flags; do
    # shellcheck disable=SC2086
    expect_exit "mbench diff reads and compares the $name pair" 0 \
        "$MBENCH" diff "$D/$name/a.npy" "$D/$name/b.npy" $flags --json "$D/$name/mbench.json"
done < "$D/cases.txt"
# The checker prints its own TAP lines; renumber them after ours.
while IFS= read -r line; do
    case "$line" in
        "ok "*) ok "${line#ok * - }" ;;
        "not ok "*) notok "${line#not ok * - }" ;;
        "#"*) echo "$line" ;;
    esac
done < <($PY "$REF" check "$D" 2>&1)
contains "identical inputs report PSNR as the string inf" \
    "$(cat "$D/identical/mbench.json")" '"psnr": "inf"'
done_testing
