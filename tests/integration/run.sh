#!/usr/bin/env bash
# mbench run on real ONNX Runtime with small generated models: the result
# document, batch sweeps, symbolic dims, element types, CSV, and every bad
# input with its exit code and one-line message.
. "$(dirname "$0")/lib.sh"
M="$T_TMP/models"
$PY "$FIX/run/make_models.py" "$M" || { notok "fixture models generated"; done_testing; }
# Functional checks on 3 processes; the default (40) is checked once on the
# null backend.
FAST=(--processes 3 --min-time 0.05 --max-time 0.3 --min-iterations 20 --warmup 3)

expect_exit "a batch sweep runs and exits 0" 0 \
    "$MBENCH" run "$M/mlp.onnx" --batch 1,4 "${FAST[@]}" --json "$T_TMP/mlp.json" --save-samples
contains "the console shows a row per batch" "$LAST_OUT" "p50 ms"
contains "random inputs are called out" "$LAST_OUT" "inputs are random"

# The result document, checked independently with numpy.
check "the result document has every promised field and numpy agrees on the percentiles" \
$PY - "$T_TMP/mlp.json" <<'PYEOF'
import json, sys
import numpy as np
from scipy import stats
d = json.load(open(sys.argv[1]))
assert d["schema"] == "mbench.result/1", d["schema"]
assert d["kind"] == "run"
env = d["environment"]
for k in ("cpu_model", "logical_cores", "physical_cores", "governor", "memory_bytes",
          "kernel", "libc", "compiler", "hostname", "mbench_version", "mbench_commit",
          "timestamp_utc"):
    assert k in env, k
assert d["timer"]["resolution_ns"] >= 1
runs = d["runs"]
assert [r["batch_size"] for r in runs] == [1, 4], runs
for r in runs:
    assert r["status"] == "ok", r
    assert r["runtime"]["version"] == "1.30.0", r["runtime"]
    assert "CPUExecutionProvider" in r["runtime"]["providers"]
    assert len(r["model"]["sha256"]) == 64
    assert r["model"]["params"] == 16 * 32 + 32 + 32 * 4, r["model"]["params"]
    s = np.array(r["samples_ns"], dtype=np.float64)
    lat = r["latency"]
    assert lat["count"] == len(s) == r["iterations"]
    for key, q in (("median", 50), ("p90", 90), ("p95", 95)):
        ref = np.percentile(s, q)
        assert abs(lat[key] - ref) <= 1e-9 * ref + 1e-6, (key, lat[key], ref)
    assert abs(lat["mean"] - s.mean()) <= 1e-6 * s.mean()
    assert abs(lat["std"] - s.std(ddof=1)) <= 1e-6 * s.std(ddof=1)
    assert lat["min"] == s.min() and lat["max"] == s.max()
    # The CI of the median is over processes: Student t on the log
    # per-process medians (scipy), the estimate their geometric mean.
    ci = lat["median_ci95"]
    rep = r["replication"]
    k = rep["processes"]
    assert k == 3 and rep["unit"] == "process" and ci["unit"] == "process", rep
    cuts = np.cumsum(r["samples_per_process"])[:-1]
    med = np.log([np.median(x) for x in np.split(s, cuts)])
    assert np.allclose(np.log(rep["per_process"]["median"]), med, rtol=0, atol=1e-12)
    h = stats.t.ppf(0.975, k - 1) * med.std(ddof=1) / np.sqrt(k)
    assert abs(ci["estimate"] - np.exp(med.mean())) < 1e-6 * ci["estimate"]
    assert abs(ci["lo"] - np.exp(med.mean() - h)) < 1e-6 * ci["lo"], (ci, np.exp(med.mean() - h))
    assert abs(ci["hi"] - np.exp(med.mean() + h)) < 1e-6 * ci["hi"], (ci, np.exp(med.mean() + h))
    assert abs(rep["run_to_run_cv"] - med.std(ddof=1)) < 1e-9
    assert r["inputs"][0]["shape"] == [r["batch_size"], 16]
    assert r["stop_rule"] == "fixed_budget", r["stop_rule"]
    tp = r["throughput"]
    assert abs(tp["samples_per_s"] - tp["inferences_per_s"] * r["batch_size"]) < 1e-6 * tp["samples_per_s"]
    for k in ("library_load_ns", "session_create_ns", "warmup_ns", "measure_ns"):
        assert r["phases"][k] > 0, k
    assert r["memory"]["rss_peak_bytes"] > 0
PYEOF

expect_exit "a run on the null backend with the default process count" 0 \
    "$MBENCH" run none --backend null --iterations 40 --warmup 0 --quiet --json "$T_TMP/default.json"
check "the default is 40 processes" $PY -c "
import json; r=json.load(open('$T_TMP/default.json'))['runs'][0]['replication']
assert r['processes'] == 40 and r['unit'] == 'process', r"

expect_exit "a fixed iteration count is honoured" 0 \
    "$MBENCH" run "$M/mlp.onnx" --processes 3 --iterations 37 --json "$T_TMP/fixed.json" --quiet
check "--iterations gives exactly that many samples" \
    $PY -c "import json,sys; r=json.load(open('$T_TMP/fixed.json'))['runs'][0]; assert r['iterations']==37 and r['stop_rule']=='fixed_iterations', r['iterations']" 

expect_exit "--percentile 99.9 runs" 0 "$MBENCH" run "$M/mlp.onnx" --percentile 99.9 --percentile 75 "${FAST[@]}" --json "$T_TMP/pct.json"
n999=$(echo "$LAST_OUT" | grep -c 'p99.9')
[ "$n999" -le 1 ] && ok "p99.9 asked for again is reported once" || notok "p99.9 asked for again is reported once" "$LAST_OUT"
check "the percentile list holds 99.9 once and 75" $PY -c "
import json; q=[p['q'] for p in json.load(open('$T_TMP/pct.json'))['runs'][0]['latency']['percentiles']]
assert q.count(99.9) == 1 and 75 in q, q"

# A batch axis that is not the first (a recurrent state), and --shape.
expect_exit "a state [layers, batch, hidden] is swept with --batch" 0 \
    "$MBENCH" run "$M/state.onnx" --batch 1,4 "${FAST[@]}" --json "$T_TMP/state.json" --quiet
check "the state's batch axis takes the batch size, the layers stay 2" $PY -c "
import json; r=json.load(open('$T_TMP/state.json'))['runs'][1]['inputs']
assert [i['shape'] for i in r] == [[4, 4], [2, 4, 8]], r"
expect_exit "--shape with --batch scales the batch axis" 0 \
    "$MBENCH" run "$M/mlp.onnx" --shape x=1,16 --batch 1,3 "${FAST[@]}" --json "$T_TMP/shape.json" --quiet
check "--shape x=1,16 at --batch 3 feeds [3,16] and counts 3 samples per inference" $PY -c "
import json; r=json.load(open('$T_TMP/shape.json'))['runs'][1]
assert r['inputs'][0]['shape'] == [3, 16], r['inputs']
t = r['throughput']; assert abs(t['samples_per_s'] - 3 * t['inferences_per_s']) < 1e-6 * t['samples_per_s']"
expect_exit "a misspelt --dim is a usage error" 2 "$MBENCH" run "$M/seq.onnx" --dim seqlen=7
contains "the misspelt --dim gets a suggestion" "$LAST_ERR" "did you mean 'seq_len'?"
expect_exit "a misspelt --input-range is a usage error" 2 "$MBENCH" run "$M/mlp.onnx" --input-range y=0:1
contains "the misspelt input is named with the real ones" "$LAST_ERR" "its inputs are: x"

expect_exit "ids past an embedding's end fail at the first inference" 3 "$MBENCH" run "$M/embed5.onnx" "${FAST[@]}"
contains "the failure names the integer input and --input-range" "$LAST_ERR" "--input-range ids=0:1"
one_line "the embedding hint is one line" "$LAST_ERR"
expect_exit "with --input-range the embedding runs" 0 "$MBENCH" run "$M/embed5.onnx" --input-range ids=0:4 "${FAST[@]}" --quiet
expect_exit "an empty item in --batch is a usage error" 2 "$MBENCH" run "$M/mlp.onnx" --batch 1,,4
expect_exit "a symbolic dimension is set with --dim" 0 \
    "$MBENCH" run "$M/seq.onnx" --dim seq_len=7 --batch 2 "${FAST[@]}" --json "$T_TMP/seq.json" --quiet
check "the resolved shape is recorded" \
    $PY -c "import json; r=json.load(open('$T_TMP/seq.json'))['runs'][0]; assert r['inputs'][0]['shape']==[2,7,8], r['inputs']"
expect_exit "an unresolved symbolic dimension is a runtime error" 3 "$MBENCH" run "$M/seq.onnx"
one_line "the unresolved dimension error is one line" "$LAST_ERR"
contains "the error names the dimension and the fix" "$LAST_ERR" "--dim seq_len=VALUE"

expect_exit "mixed int64, bool and float16 inputs run" 0 \
    "$MBENCH" run "$M/mixed.onnx" --dim seq=5 --input-range ids=0:9 "${FAST[@]}" --quiet --json "$T_TMP/mixed.json"
check "every input's dtype is recorded" \
    $PY -c "import json; r=json.load(open('$T_TMP/mixed.json'))['runs'][0]; assert [i['dtype'] for i in r['inputs']]==['int64','bool','float16'], r['inputs']"
expect_exit "every element type can be synthesised" 0 \
    "$MBENCH" run "$M/alltypes.onnx" "${FAST[@]}" --quiet

rm -f "$T_TMP/r.csv"
"$MBENCH" run "$M/mlp.onnx" --batch 1,2 "${FAST[@]}" --quiet --csv "$T_TMP/r.csv" >/dev/null 2>&1
"$MBENCH" run "$M/mlp.onnx" "${FAST[@]}" --quiet --csv "$T_TMP/r.csv" >/dev/null 2>&1
check "CSV appends rows under one header with the promised columns" \
$PY - "$T_TMP/r.csv" <<'PYEOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
hdr = rows[0]
need = "framework model device device_type batch_size input_shape dtype latency_p50_ms latency_p95_ms latency_p99_ms latency_mean_ms latency_std_ms latency_min_ms latency_max_ms throughput_ips memory_mb compilation_time_ms timestamp git_commit".split()
for n in need:
    assert n in hdr, n
assert len(rows) == 4, len(rows)
assert sum(1 for r in rows if r[0] == "framework") == 1
b = hdr.index("batch_size")
assert [r[b] for r in rows[1:]] == ["1", "2", "1"], rows
assert rows[1][hdr.index("input_shape")] == "1x16"
PYEOF

if [ -n "${MBENCH_SANITIZED:-}" ]; then
    # ASan's quarantine holds freed memory, so RSS grows by design there.
    skip "--leak-check on a steady model" "RSS slopes are meaningless under AddressSanitizer"
else
expect_exit "--leak-check fits the RSS slope" 0 \
    "$MBENCH" run "$M/mlp.onnx" --leak-check --min-time 0.3s --max-time 1s --quiet --json "$T_TMP/leak.json"
contains "a steady model's leak verdict is printed" "$LAST_ERR" "leak check, batch 1: no leak"
check "a steady model is not flagged as leaking" $PY -c "
import json; m = json.load(open('$T_TMP/leak.json'))['runs'][0]['memory']
assert m['leak']['suspected'] is False and m['leak']['rss_points'] >= 3, m
assert m['peak_method'] in ('clear_refs', 'process_lifetime')"
if cc -shared -fPIC -I"$MBENCH_ROOT/include" "$FIX/compare/bad_backend.c" -o "$T_TMP/bad.so" 2>/dev/null; then
    expect_exit "a suspected leak is a failed verdict (exit 1)" 1 \
        "$MBENCH" run none --backend "$T_TMP/bad.so" --backend-opt mode=leak --leak-check \
        --min-time 0.3s --max-time 1s --quiet --json "$T_TMP/leaky.json"
    contains "the leak verdict is printed" "$LAST_ERR" "LEAK SUSPECTED"
    check "a backend that loses 4 KiB per run is flagged as leaking, at about that rate" $PY -c "
import json; m = json.load(open('$T_TMP/leaky.json'))['runs'][0]['memory']['leak']
assert m['suspected'] is True and 3000 < m['slope_bytes_per_iter'] < 6000, m"
fi
fi
expect_exit "--save-optimized writes the optimized graph" 0 \
    "$MBENCH" run "$M/mlp.onnx" --save-optimized "$T_TMP/opt.onnx" --iterations 5 --quiet
check "the optimized graph is a loadable ONNX model" $PY -c "import onnx; onnx.checker.check_model(onnx.load('$T_TMP/opt.onnx'))"
NO_COLOR=1 expect_exit "--histogram draws the distribution" 0 \
    "$MBENCH" run "$M/mlp.onnx" --histogram --iterations 200
contains "the histogram is under the table" "$LAST_OUT" "latency distribution"
expect_exit "the null backend needs no model runtime" 0 \
    "$MBENCH" run none --backend null "${FAST[@]}" --quiet --ort-lib /nonexistent.so

# Bad input: one line, a named thing, a fix, a documented exit code.
bad() { # name, code, needle, args...
    local n=$1 code=$2 needle=$3; shift 3
    expect_exit "$n exits $code" "$code" "$MBENCH" run "$@"
    one_line "$n gives a one-line error" "$LAST_ERR"
    contains "$n names the problem" "$LAST_ERR" "$needle"
}
: > "$T_TMP/empty.onnx"
head -c 1500 "$M/mlp.onnx" > "$T_TMP/trunc.onnx"
echo "not a model" > "$T_TMP/text.onnx"
bad "a missing model" 3 "does not exist" "$T_TMP/missing.onnx"
bad "an empty model" 3 "empty" "$T_TMP/empty.onnx"
bad "a truncated model" 3 "trunc.onnx" "$T_TMP/trunc.onnx"
bad "a text file as a model" 3 "text.onnx" "$T_TMP/text.onnx"
bad "--batch 0" 2 "--batch" "$M/mlp.onnx" --batch 0
bad "--batch abc" 2 "--batch" "$M/mlp.onnx" --batch abc
bad "--threads -1" 2 "--threads" "$M/mlp.onnx" --threads -1
bad "--opt-level fast" 2 "--opt-level" "$M/mlp.onnx" --opt-level fast
bad "a nonsense flag" 2 "--frobnicate" "$M/mlp.onnx" --frobnicate
bad "no model" 2 "MODEL" 
bad "a fixed batch dimension with --batch 4" 3 "fixed first dimension" "$M/fixed.onnx" --batch 4
bad "a missing ONNX Runtime library" 3 "--ort-lib" "$M/mlp.onnx" --ort-lib "$T_TMP/nope.so"
bad "an execution provider the library cannot load" 3 "cuda" "$M/mlp.onnx" --ep cuda
# (a missing directory would be created: a regular file stands in the way)
echo file >"$T_TMP/afile"
bad "an unwritable output path" 3 "cannot write" "$M/mlp.onnx" --iterations 5 --quiet --json "$T_TMP/afile/x.json"
echo '{"old": true}' > "$T_TMP/keep.json"
"$MBENCH" run "$T_TMP/missing.onnx" --json "$T_TMP/keep.json" >/dev/null 2>&1
check "a failed run leaves an existing result file untouched" grep -q '"old"' "$T_TMP/keep.json"
done_testing
