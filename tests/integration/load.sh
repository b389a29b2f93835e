#!/usr/bin/env bash
# mbench load on real ONNX Runtime (a small generated MLP) and on the null
# backend: the result document checked against numpy from its own
# per-request records, every scenario, one shared session and several,
# every output format, report, store and gate, and bad input.
. "$(dirname "$0")/lib.sh"
M="$T_TMP/models"
$PY "$FIX/run/make_models.py" "$M" >/dev/null || { notok "fixture models generated"; done_testing; }
FAST=(--min-time 0.3 --max-time 5 --warmup 3 --threads 1)

# A fixed request count: by time, a fast machine serves the tiny MLP more
# often than --records keeps (200000 a step: 226371 in 0.3 s here), and the
# records are what the numpy check below reads.
expect_exit "a closed-loop sweep on ONNX Runtime exits 0" 0 \
    "$MBENCH" load "$M/mlp.onnx" --concurrency 1,2 "${FAST[@]}" --iterations 20000 --json "$T_TMP/closed.json"
contains "the console shows a row per step" "$LAST_OUT" "achieved/s"
expect_exit "Poisson arrivals served by 2 threads sharing one session" 0 \
    "$MBENCH" load "$M/mlp.onnx" --qps 300 --concurrency 2 "${FAST[@]}" --json "$T_TMP/poisson.json"
expect_exit "two sessions, one per thread" 0 \
    "$MBENCH" load "$M/mlp.onnx" --qps 300 --concurrency 2 --sessions 2 "${FAST[@]}" --json "$T_TMP/sessions.json"
expect_exit "offline: every request at once" 0 \
    "$MBENCH" load "$M/mlp.onnx" --offline --requests 500 --concurrency 2 "${FAST[@]}" --json "$T_TMP/offline.json"
expect_exit "more requests than --records keeps: the step still reports" 0 \
    "$MBENCH" load "$M/mlp.onnx" --offline --requests 500 --concurrency 2 "${FAST[@]}" --records 100 --json "$T_TMP/capped.json"
contains "the records not kept are a warning" "$LAST_OUT$LAST_ERR" "500 request records not kept (more than 100)"
check "the capped step has figures but no records" $PY -c '
import json, sys
st = json.load(open(sys.argv[1]))["load"]["steps"][0]
assert "records" not in st and st["requests"]["completed"] == 500 and st["latency"]["median"] > 0, st.keys()
' "$T_TMP/capped.json"

check "the documents agree with numpy on their own per-request records" \
$PY - "$T_TMP/closed.json" "$T_TMP/poisson.json" "$T_TMP/sessions.json" "$T_TMP/offline.json" <<'PYEOF'
import json, sys
import numpy as np
for path in sys.argv[1:]:
    d = json.load(open(path))
    assert d["schema"] == "mbench.result/1" and d["kind"] == "load", path
    L = d["load"]
    assert L["run"]["runtime"]["backend"] == "ort"
    for st in L["steps"]:
        r = st["records"]
        a, s, e = (np.array(r[k], dtype=np.int64) for k in ("arrival_ns", "start_ns", "end_ns"))
        ok = s >= 0
        assert (s[ok] >= a[ok]).all(), "a request started before its arrival"
        lat = (e - a)[ok]
        assert st["requests"]["completed"] == ok.sum()
        assert st["latency"]["count"] == len(lat)
        for q, key in ((50, "median"), (99, "p99")):
            if st["latency"][key] is not None:
                ref = np.percentile(lat, q)
                assert abs(st["latency"][key] - ref) <= 1e-6 * ref + 1, (key, st["latency"][key], ref)
        wall = e[ok].max()
        assert abs(st["achieved_qps"] - ok.sum() / wall * 1e9) < 1e-6 * st["achieved_qps"]
        assert abs(st["wait"]["mean_ns"] - (s - a)[ok].mean()) < 1
        es = st["early_stopping"]
        p99 = [p for p in es["percentiles"] if p["q"] == 99][0]
        assert p99["min_requests"] == 459
        if len(lat) >= 459 and p99["upper_bound_ns"] is not None:
            assert p99["upper_bound_ns"] >= np.percentile(lat, 99) - 1
    if L["scenario"] == "offline":
        a = np.array(L["steps"][-1]["records"]["arrival_ns"])
        assert (a == 0).all(), "offline arrivals are all at 0"
    if L["scenario"] == "poisson":
        st = L["steps"][0]
        assert abs(st["offered_qps"] / 300 - 1) < 0.2, st["offered_qps"]
print("ok")
PYEOF

expect_exit "an SLO search on ONNX Runtime finds a rate and writes every format" 0 \
    "$MBENCH" load "$M/mlp.onnx" --slo p99=100ms --concurrency 2 "${FAST[@]}" --max-steps 4 \
    --json "$T_TMP/slo.json" --html "$T_TMP/slo.html" --md "$T_TMP/slo.md" --csv "$T_TMP/slo.csv" \
    --db "$T_TMP/store.db"
contains "the console states the answer" "$LAST_OUT" "Highest rate with p99 <= 100"
check "the search is recorded with its steps" \
$PY - "$T_TMP/slo.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["load"]["search"]
assert s["met"] and s["qps"] > 0, s
assert d["load"]["steps"][0]["role"] == "calibrate"
assert len(s["searches"]) == 1 and s["searches"][0]["bracket"][0] == s["qps"]
for st in d["load"]["steps"][1:]:
    assert st["slo"]["bound_ns"] == 100000000 and "pass" in st["slo"]
PYEOF
html=$(cat "$T_TMP/slo.html" 2>/dev/null)
contains "the HTML has the latency-against-throughput chart" "$html" 'id="chart-load"'
contains "the HTML embeds the document" "$html" '"kind": "load"'
contains "the Markdown has the step table" "$(cat "$T_TMP/slo.md")" "| p99 bound ms |"
contains "the CSV has a row per step" "$(head -1 "$T_TMP/slo.csv")" "achieved_qps"
stored=$(sqlite3 "$T_TMP/store.db" "select count(*) from documents where kind='load'" 2>&1)
contains "the store keeps the load document" "$stored" "1"
# The page's own script checks its chart and JSON and sets data-ok.
if [ -x /usr/bin/chromium ]; then
    prof=$(mktemp -d "$T_TMP/prof.XXXXXX")
    dom=$(timeout 40 /usr/bin/chromium --headless --no-sandbox --disable-gpu --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$prof" --window-size=1280,2000 --dump-dom "file://$T_TMP/slo.html" 2>/dev/null)
    if [ -z "$dom" ]; then skip "the load report passes its in-browser check" "chromium cannot start here"
    else contains "the load report passes its in-browser check" "$dom" 'data-ok="1"'; fi
else
    skip "the load report passes its in-browser check" "no chromium"
fi
expect_exit "mbench report rebuilds the HTML from the JSON alone" 0 \
    "$MBENCH" report "$T_TMP/slo.json" --html "$T_TMP/again.html"
contains "the rebuilt page has the chart" "$(cat "$T_TMP/again.html")" 'id="chart-load"'
expect_exit "gate compares the highest rates under the SLO" 0 \
    "$MBENCH" gate --baseline "$T_TMP/slo.json" --current "$T_TMP/slo.json" --json "$T_TMP/verdict.json"
contains "the verdict names slo_qps" "$(cat "$T_TMP/verdict.json")" '"slo_qps"'

check "a halved rate under the SLO is a regression for the gate" \
$PY - "$T_TMP/slo.json" "$T_TMP/slow.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["load"]["search"]
s["qps"] /= 2
for x in s["searches"]:
    x["qps"] /= 2
json.dump(d, open(sys.argv[2], "w"))
PYEOF
expect_exit "gate exits 1 on the halved rate" 1 \
    "$MBENCH" gate --baseline "$T_TMP/slo.json" --current "$T_TMP/slow.json"
contains "it says the rate fell" "$LAST_OUT" "fell"

# --cpus pins the process; the document says where it ran.
expect_exit "--cpus 0 runs on CPU 0" 0 \
    "$MBENCH" load x --backend null --concurrency 2 --cpus 0 --min-time 0.1 --json "$T_TMP/cpus.json"
contains "the document records the CPUs" "$(tr -d ' \n' < "$T_TMP/cpus.json")" '"cpus":[0]'
expect_exit "a CPU the machine lacks is refused" 2 \
    "$MBENCH" load x --backend null --cpus 1000
one_line "it is one line" "$LAST_ERR"

# The null backend's fixed service time: a closed loop of 2 gives 2 / S.
expect_exit "the null backend sleeps a fixed service time" 0 \
    "$MBENCH" load x --backend null --backend-opt sleep=5000000 --concurrency 2 --min-time 0.5 --json "$T_TMP/null.json"
check "closed loop throughput is N over the measured service time" \
$PY - "$T_TMP/null.json" <<'PYEOF'
import json, sys
st = json.load(open(sys.argv[1]))["load"]["steps"][0]
x, s = st["achieved_qps"], st["service"]["mean_ns"]
assert abs(x / (2 / s * 1e9) - 1) < 0.02, (x, s)
assert s >= 5e6
PYEOF

# Bad input: one line, a documented exit code, before anything runs.
expect_exit "a malformed --slo is a usage error" 2 "$MBENCH" load "$M/mlp.onnx" --slo p99
one_line "it is one line" "$LAST_ERR"
contains "it shows the form" "$LAST_ERR" "p99=20ms"
expect_exit "two scenarios at once are a usage error" 2 "$MBENCH" load "$M/mlp.onnx" --qps 10 --offline
expect_exit "a rate of 0 is a usage error" 2 "$MBENCH" load "$M/mlp.onnx" --qps 0
expect_exit "bad --cpus is a usage error" 2 "$MBENCH" load "$M/mlp.onnx" --cpus 3-1
expect_exit "more sessions than threads is rejected" 2 "$MBENCH" load "$M/mlp.onnx" --sessions 3 --concurrency 2
contains "it names the flag" "$LAST_ERR" "--sessions"
expect_exit "a missing model is a runtime error" 3 "$MBENCH" load "$T_TMP/nope.onnx"
one_line "it is one line" "$LAST_ERR"
expect_exit "an unwritable output fails before measuring" 3 \
    "$MBENCH" load "$M/mlp.onnx" --json /proc/nope/x.json
done_testing
