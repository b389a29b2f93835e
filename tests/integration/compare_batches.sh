#!/usr/bin/env bash
# mbench compare over several batch sizes in one call: every variant is
# measured at every size (interleaved, in the same rounds), each size is
# judged on its own, the document holds one comparison per size and the
# console, Markdown and HTML show one speedup table per size.  Real ONNX
# Runtime on the digits CNN (fp32 against int8), few processes.
. "$(dirname "$0")/lib.sh"
MD="$MBENCH_ROOT/models"
cd "$T_TMP" || exit 1
FAST=(--processes 3 --iterations 40 --warmup 2)

expect_exit "compare --batch 1,8 runs" 0 "$MBENCH" compare \
    fp32="$MD/digits_fp32.onnx" int8="$MD/digits_int8.onnx" --batch 1,8 \
    "${FAST[@]}" --json b.json --md b.md --html b.html
table=$LAST_OUT

# The document: a run per variant and size; a comparison per size, each
# speedup the ratio of that size's runs (geometric means of per-process
# medians, the runs' median_ci95.estimate).
out=$($PY - <<'PY' 2>&1
import json, math
d = json.load(open("b.json"))
runs = {(r["variant"], r["batch_size"]): r for r in d["runs"]}
assert sorted(runs) == [("fp32", 1), ("fp32", 8), ("int8", 1), ("int8", 8)], sorted(runs)
cs = d["comparisons"]
assert [c["batch_size"] for c in cs] == [1, 8], [c["batch_size"] for c in cs]
assert d["comparison"] == cs[0], "comparison is not the first batch's"
sp = []
for c in cs:
    b = c["batch_size"]
    v = {e["name"]: e for e in c["variants"]}
    est = lambda n: runs[(n, b)]["latency"]["median_ci95"]["estimate"]
    want = est("fp32") / est("int8")
    got = v["int8"]["speedup_median"]["value"]
    assert math.isclose(got, want, rel_tol=1e-9), (b, got, want)
    assert v["int8"]["speedup_median"]["replicates"] == 3, v["int8"]["speedup_median"]
    sp.append(got)
assert sp[0] != sp[1], "both sizes have the same speedup: %r" % sp
# batch 8 takes longer than batch 1 for both (a real measurement per size)
for n in ("fp32", "int8"):
    assert runs[(n, 8)]["latency"]["median"] > runs[(n, 1)]["latency"]["median"], n
print("fine")
PY
)
contains "a run per variant and size, a comparison per size judged on that size's runs" "$out" "fine"

n=$(echo "$table" | grep -c "^variant ")
if [ "$n" = 2 ]; then ok "the console prints two tables"; else notok "the console prints two tables" "$table"; fi
contains "the first is titled batch 1" "$table" $'batch 1\n'
contains "the second is titled batch 8" "$table" $'batch 8\n'
contains "the Markdown has a speedup table at batch 1" "$(cat b.md)" "### Speedups at batch 1"
contains "and at batch 8" "$(cat b.md)" "### Speedups at batch 8"
contains "the Markdown recommendations name the batch size" "$(cat b.md)" "int8 (batch 8): "
contains "the HTML has a speedup table at batch 1" "$(cat b.html)" 'id="speedups-b1"'
contains "and at batch 8" "$(cat b.html)" 'id="speedups-b8"'
contains "the HTML draws the batch chart" "$(cat b.html)" 'id="chart-batch-thr"'

# One size: as before (no titles), with a one-entry "comparisons".
expect_exit "compare at one size" 0 "$MBENCH" compare a=none b=none --backend null \
    --processes 2 --iterations 20 --warmup 1 --json one.json
if [[ "$LAST_OUT" == *$'\nbatch '* ]]; then notok "one size prints no batch title" "$LAST_OUT"
else ok "one size prints no batch title"; fi
contains "one size records one comparison with its batch size" \
    "$($PY -c 'import json; d = json.load(open("one.json")); print([c["batch_size"] for c in d["comparisons"]], d["comparison"]["batch_size"])')" "[1] 1"

# Variants must share the sizes.
expect_exit "a variant with other batch sizes is refused" 2 "$MBENCH" compare a=none \
    b=none,batch=4 --backend null --processes 2 --iterations 20
one_line "in one line" "$LAST_ERR"
contains "naming the variant and the fix" "$LAST_ERR" "variant b has other batch sizes than a"

done_testing
