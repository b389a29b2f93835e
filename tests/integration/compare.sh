#!/usr/bin/env bash
# mbench compare on the bundled digits CNN and its variants with real data
# and labels; accuracy and speedups checked independently with numpy; a
# crashing and a hanging variant (an out-of-tree plugin) are marked FAILED
# while the others complete; bad input.
. "$(dirname "$0")/lib.sh"
MD="$MBENCH_ROOT/models"
# Functional checks on 3 processes (the default 40 is for measuring; what
# the intervals are worth is measured by bench/replication.sh).
FAST=(--processes 3 --min-time 0.05s --max-time 0.3s --min-iterations 20 --warmup 2)

expect_exit "a three-variant comparison on real data runs" 0 \
    "$MBENCH" compare fp32="$MD/digits_fp32.onnx" int8="$MD/digits_int8.onnx,opt-level=all" \
    pruned="$MD/digits_pruned.onnx" --data "$MD/digits_test.npy" --labels "$MD/digits_labels.npy" \
    --batch 8 "${FAST[@]}" --json "$T_TMP/c.json" --save-outputs "$T_TMP/outs"
contains "the table shows speedups" "$LAST_OUT" "speedup"
contains "recommendations are printed" "$LAST_OUT" "Recommendations"
contains "the int8 model's size is judged" "$LAST_OUT" "smaller model"

check "accuracy, agreement and speedups agree with numpy on the saved outputs and samples" \
$PY - "$T_TMP/c.json" "$T_TMP/outs" "$MD/digits_labels.npy" <<'PYEOF'
import json, sys
import numpy as np
from scipy import stats
def proc_medians(run):
    s = np.array(run["samples_ns"], float)
    cuts = np.cumsum(run["samples_per_process"])[:-1]
    return np.array([np.median(x) for x in np.split(s, cuts)])
d = json.load(open(sys.argv[1]))
outs, labels = sys.argv[2], np.load(sys.argv[3])
assert d["kind"] == "compare"
cmp = d["comparison"]
assert cmp["baseline"] == "fp32" and cmp["random_inputs_only"] is False
runs = {r["variant"]: r for r in d["runs"]}
base = np.array(runs["fp32"]["samples_ns"], float)
logits = {}
for v in cmp["variants"]:
    name = v["name"]
    assert v["status"] == "ok", v
    lg = np.load(f"{outs}/{name}/logits.npy")
    assert lg.shape == (360, 10), lg.shape
    logits[name] = lg
    top1 = (lg.argmax(1) == labels).mean()
    assert abs(v["accuracy"]["top1"] - top1) < 1e-12, (name, v["accuracy"], top1)
    top5 = np.mean([labels[i] in np.argsort(-lg[i], kind="stable")[:5] for i in range(len(labels))])
    assert abs(v["accuracy"]["top5"] - top5) < 1e-12, (name, v["accuracy"]["top5"], top5)
    if name != "fp32":
        # Speedup: ratio of geometric means of per-process medians, paired
        # by round; Student t over blocks of consecutive rounds (every
        # round its own block below 16 rounds; scipy).
        mb, mx = proc_medians(runs["fp32"]), proc_medians(runs[name])
        assert len(mb) == len(mx) == runs["fp32"]["replication"]["processes"] >= 2
        dl = np.log(mx) - np.log(mb)
        k = len(dl)
        B = k if k < 16 else 8
        bm = np.array([dl[k * j // B:k * (j + 1) // B].mean() for j in range(B)])
        se = bm.std(ddof=1) / np.sqrt(B)
        h = stats.t.ppf(0.975, B - 1) * se
        sp = np.exp(-bm.mean())
        assert abs(v["speedup_median"]["value"] - sp) < 1e-9 * sp, (v["speedup_median"], sp)
        lo, hi = v["speedup_median"]["ci95"]
        assert abs(lo - np.exp(-bm.mean() - h)) < 1e-9 and abs(hi - np.exp(-bm.mean() + h)) < 1e-9, (lo, hi)
        p = stats.ttest_1samp(bm, 0).pvalue
        assert abs(v["significance"]["p"] - p) < 1e-9, (v["significance"], p)
        assert v["significance"]["test"] == "paired t on log per-process medians, over blocks of consecutive rounds"
        assert v["significance"]["blocks"]["count"] == B, v["significance"]
        agree = (lg.argmax(1) == logits["fp32"].argmax(1)).mean()
        assert abs(v["agreement"]["top1"] - agree) < 1e-12, (v["agreement"]["top1"], agree)
        out0 = v["agreement"]["outputs"][0]
        mae = np.abs(lg.astype(np.float64) - logits["fp32"]).mean()
        assert abs(out0["mae"] - mae) <= 1e-9 * max(mae, 1e-30), (out0["mae"], mae)
        assert v["recommendations"], v
# The baseline's accuracy on the held-out digits is what the model makes.
assert abs(cmp["variants"][0]["accuracy"]["top1"] - 0.95) < 0.03
PYEOF

expect_exit "without --data the comparison still runs" 0 \
    "$MBENCH" compare a="$MD/digits_fp32.onnx" b="$MD/digits_fp16.onnx" "${FAST[@]}" --json "$T_TMP/r.json"
contains "random inputs are said loudly" "$LAST_OUT" "RANDOM INPUTS ONLY"

# A crashing and a hanging variant, through an out-of-tree backend plugin.
if cc -shared -fPIC -I"$MBENCH_ROOT/include" "$FIX/compare/bad_backend.c" -o "$T_TMP/bad.so" 2>"$T_TMP/cc.err"; then
    expect_exit "a crashed variant fails the command after the others finish" 3 \
        "$MBENCH" compare ok=none,backend=null crash=none,backend="$T_TMP/bad.so",backend-opt=mode=crash \
        other=none,backend=null "${FAST[@]}" --json "$T_TMP/crash.json"
    contains "the crash is named with its signal" "$LAST_OUT$LAST_ERR" "signal 11"
    check "the crashed variant is FAILED and the others have results" $PY -c "
import json; d = json.load(open('$T_TMP/crash.json'))
v = {x['name']: x for x in d['comparison']['variants']}
assert v['crash']['status'] == 'failed' and 'signal' in v['crash']['error'], v['crash']
assert v['ok']['status'] == 'ok' and v['other']['status'] == 'ok'
assert v['other']['speedup_median'] is not None"
    start=$(date +%s)
    expect_exit "a hung variant is killed at --timeout" 3 \
        "$MBENCH" compare ok=none,backend=null hang=none,backend="$T_TMP/bad.so",backend-opt=mode=hang \
        --timeout 2s "${FAST[@]}"
    contains "the hang is named as a timeout" "$LAST_ERR" "timed out"
    [ $(( $(date +%s) - start )) -lt 30 ] && ok "the timeout ends the wait promptly" || notok "the timeout ends the wait promptly"
    expect_exit "--fail-fast stops at the first failure" 3 \
        "$MBENCH" compare crash=none,backend="$T_TMP/bad.so",backend-opt=mode=crash,backend-opt=after=0 \
        ok=none,backend=null --fail-fast "${FAST[@]}"
else
    notok "the test plugin compiles" "$(cat "$T_TMP/cc.err")"
fi

printf '# variants of the digits model\nfp32=%s\n\n  opt0=%s,opt-level=disable,threads=1\n' \
    "$MD/digits_fp32.onnx" "$MD/digits_fp32.onnx" > "$T_TMP/variants.txt"
expect_exit "variants can come from a file" 0 \
    "$MBENCH" compare --variants "$T_TMP/variants.txt" "${FAST[@]}" --json "$T_TMP/vf.json" --csv "$T_TMP/vf.csv" --quiet
check "the file's variants were compared, with per-variant options" $PY -c "
import json, csv; d = json.load(open('$T_TMP/vf.json'))
names = [v['name'] for v in d['comparison']['variants']]
assert names == ['fp32', 'opt0'], names
r = {x['variant']: x for x in d['runs']}
assert r['opt0']['config']['backend_options'] == {'opt-level': 'disable', 'threads': '1'}, r['opt0']['config']
rows = list(csv.DictReader(open('$T_TMP/vf.csv')))
assert [x['variant'] for x in rows] == ['fp32', 'opt0'], rows"
$PY - "$T_TMP/seqout.onnx" <<'PYEOF'
import sys, onnx
from onnx import helper as h, TensorProto as T
g = h.make_graph([h.make_node("Relu", ["x"], ["y"]), h.make_node("SequenceConstruct", ["x", "y"], ["s"])], "seqout",
    [h.make_tensor_value_info("x", T.FLOAT, ["batch", 4])],
    [h.make_tensor_value_info("y", T.FLOAT, ["batch", 4]), h.make_tensor_sequence_value_info("s", T.FLOAT, None)])
m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)]); m.ir_version = 8
onnx.save(m, sys.argv[1])
PYEOF
expect_exit "a model with a sequence output is compared on its tensor outputs" 0 \
    "$MBENCH" compare a="$T_TMP/seqout.onnx" b="$T_TMP/seqout.onnx,opt-level=disable" "${FAST[@]}" --json "$T_TMP/sq.json" --quiet
check "the sequence output is marked as not compared and the tensor output is" $PY -c "
import json; o = json.load(open('$T_TMP/sq.json'))['comparison']['variants'][1]['agreement']['outputs']
assert o[0]['name'] == 'y' and o[0]['mae'] == 0, o[0]
assert o[1]['name'] == 's' and 'not a tensor' in o[1]['skipped'], o[1]"
expect_exit "one variant is a usage error" 2 "$MBENCH" compare a="$MD/digits_fp32.onnx"
one_line "the usage error is one line" "$LAST_ERR"
expect_exit "a variant without NAME= is a usage error" 2 "$MBENCH" compare "$MD/digits_fp32.onnx" b="$MD/digits_fp32.onnx"
expect_exit "an unknown variant option is a usage error" 2 "$MBENCH" compare a="$MD/digits_fp32.onnx,speed=max" b="$MD/digits_fp32.onnx"
contains "the unknown option is named" "$LAST_ERR" "speed"
expect_exit "an unknown --baseline is a usage error" 2 "$MBENCH" compare a="$MD/digits_fp32.onnx" b="$MD/digits_fp32.onnx" --baseline c
head -c 200 "$MD/digits_labels.npy" > "$T_TMP/short.npy"
printf '1\n2\n3\n' > "$T_TMP/three.txt"
expect_exit "labels of the wrong count are a runtime error" 3 \
    "$MBENCH" compare a="$MD/digits_fp32.onnx" b="$MD/digits_int8.onnx" --data "$MD/digits_test.npy" \
    --labels "$T_TMP/three.txt" --batch 8 "${FAST[@]}"
contains "the label error names the file" "$LAST_ERR" "three.txt"
expect_exit "a variant whose model is missing is FAILED" 3 \
    "$MBENCH" compare a="$MD/digits_fp32.onnx" b="$T_TMP/missing.onnx" "${FAST[@]}"
contains "the missing model is named" "$LAST_OUT$LAST_ERR" "missing.onnx"

# ---- honest uncertainty: the process is the unit --------------------------
NULLV=(--processes 6 --min-time 0.12s --warmup 2)
expect_exit "an A/A comparison with process effects runs" 0 \
    "$MBENCH" compare a=none,backend=null,backend-opt=delay=20000,backend-opt=process_sd=0.03 \
    b=none,backend=null,backend-opt=delay=20000,backend-opt=process_sd=0.03 "${NULLV[@]}" --json "$T_TMP/aa.json"
# How often an A/A compare claims a difference is a statistical claim: it is
# measured by bench/replication.sh (docs/STATISTICS.md), not asserted here.
check "A/A gives a verdict and says it was paired over 6 processes" $PY -c "
import json; v=json.load(open('$T_TMP/aa.json'))['comparison']['variants'][1]
s=v['significance']
assert isinstance(s['significant'], bool) and s['verdict'], s
assert s['replicates'] == 6 and s['unit'] == 'process', s"
expect_exit "a 2x slower variant is called slower" 0 \
    "$MBENCH" compare a=none,backend=null,backend-opt=delay=20000 \
    b=none,backend=null,backend-opt=delay=40000 "${NULLV[@]}" --json "$T_TMP/ab.json"
contains "the slower variant is named with its CI and process count" "$LAST_OUT" "slower than baseline (95% CI"
# Busy-waits of 20 and 40 us: about 0.5 on an idle machine (bench/run.sh
# measures the harness); here the verdict and a margin that no load or
# steal time can cross (a descheduled wait only gets longer, and the
# per-process medians ignore the few that were).
check "the speedup is well below 1 (busy-waits of 20 and 40 us) and inside its CI" $PY -c "
import json; v=json.load(open('$T_TMP/ab.json'))['comparison']['variants'][1]
lo, hi = v['speedup_median']['ci95']; x = v['speedup_median']['value']
assert v['significance']['verdict'] == 'slower' and lo <= x <= hi and 0.25 < x < 0.8, v"
expect_exit "with 20 rounds the speedup is judged over 8 blocks of rounds" 0 \
    "$MBENCH" compare a=none,backend=null,backend-opt=delay=20000,backend-opt=process_sd=0.03 \
    b=none,backend=null,backend-opt=delay=22000,backend-opt=process_sd=0.03 --processes 20 --min-time 0.2s --warmup 2 --json "$T_TMP/b20.json"
check "the blocked interval and test agree with numpy and scipy" $PY - "$T_TMP/b20.json" <<'PYEOF'
import json, sys
import numpy as np
from scipy import stats
d = json.load(open(sys.argv[1]))
runs = {r["variant"]: r for r in d["runs"]}
a = np.log(runs["a"]["replication"]["per_process"]["median"])
b = np.log(runs["b"]["replication"]["per_process"]["median"])
dl = b - a
bm = np.array([dl[20 * j // 8:20 * (j + 1) // 8].mean() for j in range(8)])
v = d["comparison"]["variants"][1]
s = v["significance"]
h = stats.t.ppf(0.975, 7) * bm.std(ddof=1) / np.sqrt(8)
assert s["df"] == 7 and s["blocks"]["count"] == 8, s
assert abs(v["speedup_median"]["value"] - np.exp(-bm.mean())) < 1e-9, v
lo, hi = v["speedup_median"]["ci95"]
assert abs(lo - np.exp(-bm.mean() - h)) < 1e-9 and abs(hi - np.exp(-bm.mean() + h)) < 1e-9, (lo, hi)
assert abs(s["p"] - stats.ttest_1samp(bm, 0).pvalue) < 1e-9, s
groups = [dl[20 * j // 8:20 * (j + 1) // 8] for j in range(8)]
f = stats.f_oneway(*groups)
assert abs(s["blocks"]["drift_p"] - f.pvalue) < 1e-9, (s["blocks"], f.pvalue)
rounds = runs["a"]["replication"]["rounds"]
assert len(rounds) == 20 and all(0 <= r["cpu_busy"] <= 1 for r in rounds), rounds
assert all(x["t_s"] < y["t_s"] for x, y in zip(rounds, rounds[1:])), rounds
PYEOF
expect_exit "one process per variant still compares" 0 \
    "$MBENCH" compare a=none,backend=null,backend-opt=delay=20000 \
    b=none,backend=null,backend-opt=delay=40000 --processes 1 --min-time 0.3s --json "$T_TMP/one.json"
contains "one process per variant claims nothing" "$LAST_OUT" "covers within-run noise only; no difference is claimed"
check "one process per variant is not significant even for 2x" $PY -c "
import json; v=json.load(open('$T_TMP/one.json'))['comparison']['variants'][1]
assert v['significance']['significant'] is False and v['significance']['unit'] == 'block', v"
expect_exit "--output naming no output is a usage error before measuring" 2 \
    "$MBENCH" compare a="$MD/digits_fp32.onnx" b="$MD/digits_fp16.onnx" --output nope
contains "the unknown output lists the real ones" "$LAST_ERR" "its outputs are: logits"
expect_exit "--threshold takes a percentage" 0 \
    "$MBENCH" compare a=none,backend=null b=none,backend=null --threshold 2% --processes 2 --iterations 40 --quiet
expect_exit "a bad --threshold is a usage error" 2 \
    "$MBENCH" compare a=none,backend=null b=none,backend=null --threshold much

printf '# variants\nfast=none,backend=null   # the reference\nslow=none,backend=null,backend-opt=delay=1000\t# slower\n' > "$T_TMP/vars.txt"
expect_exit "a --variants file with inline comments runs" 0 \
    "$MBENCH" compare --variants "$T_TMP/vars.txt" --processes 2 --iterations 40 --quiet --json "$T_TMP/vars.json"
check "inline comments are not part of the specifications" $PY -c "
import json; d=json.load(open('$T_TMP/vars.json'))
assert [v['name'] for v in d['comparison']['variants']] == ['fast', 'slow']
assert all(r['status'] == 'ok' for r in d['runs']), d['runs']"

expect_exit "a missing model is refused before anything is measured" 3 \
    "$MBENCH" compare base="$T_TMP/missing.onnx" other=none,backend=null --processes 2 --iterations 20
contains "the error names the variant and the file" "$LAST_ERR" "variant base: model file"
printf 'not a model' > "$T_TMP/garbage.onnx"
expect_exit "a FAILED baseline fails the command" 3 \
    "$MBENCH" compare base="$T_TMP/garbage.onnx" other=none,backend=null --processes 2 --iterations 20 --json "$T_TMP/fb.json"
contains "other rows do not pretend to be the baseline" "$LAST_OUT" "n/a (baseline FAILED)"
contains "the recommendation says the baseline failed" "$LAST_OUT" "the baseline base FAILED"
check "a FAILED baseline leaves no speedup on the other variants" $PY -c "
import json; v=json.load(open('$T_TMP/fb.json'))['comparison']['variants']
assert v[0]['status'] == 'failed' and v[1]['speedup_median'] is None, v"

expect_exit "gate on a compare document: a 2x slower variant is a regression" 1 \
    "$MBENCH" gate --current "$T_TMP/ab.json" --json "$T_TMP/gab.json"
contains "the gate says it paired the rounds" "$LAST_OUT" "paired t (round by round)"
check "the paired gate agrees with scipy's paired t on the log per-process medians" $PY - "$T_TMP/ab.json" "$T_TMP/gab.json" <<'PYEOF'
import json, sys
import numpy as np
from scipy import stats
d, g = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
runs = {r["variant"]: r for r in d["runs"]}
a = np.log(runs["a"]["replication"]["per_process"]["median"])
b = np.log(runs["b"]["replication"]["per_process"]["median"])
m = [x for x in g["comparisons"][0]["metrics"] if x["metric"] == "p50"][0]
t = stats.ttest_rel(b, a)
assert abs(m["p_value"] - t.pvalue) < 1e-9 * max(t.pvalue, 1e-300), (m["p_value"], t.pvalue)
assert abs(m["ratio"] - np.exp((b - a).mean())) < 1e-9, m
assert g["paired"] is True and m["verdict"] == "regression", g
PYEOF
# Exit 0, 1 (regression) or 4 (inconclusive): which is chance; the
# false-regression rate is bench/replication.sh's A/A gate figure.
"$MBENCH" gate --current "$T_TMP/aa.json" --json "$T_TMP/gaa.json" >/dev/null 2>&1
rc=$?
{ [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || [ "$rc" -eq 4 ]; } && $PY -c "import json,sys; assert json.load(open(sys.argv[1]))['paired'] is True" "$T_TMP/gaa.json" \
    && ok "gate on an A/A compare document gives a paired verdict" \
    || notok "gate on an A/A compare document gives a paired verdict" "exit $rc"

# ---- workers die with their parent -----------------------------------------
# kill -9 of compare (no handler runs) while its workers measure: each worker
# holds PR_SET_PDEATHSIG, so all of them end at once (0.5 s on an idle
# machine); the wait below is a hang guard of 20 s against their 100 s of
# measuring, so that a loaded machine's slow exit is not taken for a
# survivor.
"$MBENCH" compare a=none,backend=null,backend-opt=delay=1000000 b=none,backend=null,backend-opt=delay=1000000 \
    --processes 3 --iterations 100000 --max-time 120s \
    --quiet >/dev/null 2>&1 &
cp=$!
workers=""
for _ in $(seq 1 200); do   # until both workers of the first round exist (at most ~10 s)
    workers=$(ps -o pid= --ppid "$cp" | tr -d ' ' | tr '\n' ' ')
    [ "$(echo $workers | wc -w)" -ge 2 ] && break
    read -r -t 0.05 <> <(:) || true
done
kill -9 "$cp"; wait "$cp" 2>/dev/null
alive="$workers"
for _ in $(seq 1 200); do   # until none is alive, at most ~20 s
    read -r -t 0.1 <> <(:) || true
    alive=""
    for w in $workers; do [ -d "/proc/$w" ] && [ "$(awk '{print $3}' "/proc/$w/stat" 2>/dev/null)" != Z ] && alive+="$w "; done
    [ -z "$alive" ] && break
done
[ -n "$workers" ] && [ -z "$alive" ] && ok "after kill -9 of compare, its workers ($workers) end with it" \
    || notok "after kill -9 of compare, its workers end with it" "workers: ${workers:-none seen}" "alive after 20 s: $alive"
for w in $alive; do kill -9 "$w" 2>/dev/null; done

done_testing
