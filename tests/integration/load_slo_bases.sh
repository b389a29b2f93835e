#!/usr/bin/env bash
# mbench load --slo states what it measured (issue 39): the serving
# priority, the spin policy and the SLO basis before any figure, in the
# console, Markdown and HTML; and the answer on both bases (model
# capacity at the resolved priority, and as a normal-priority server
# measured it), each with its interval, which holds every search's answer.
# Functional only: no assertion on a figure's size.
. "$(dirname "$0")/lib.sh"
ARGS=(x --backend null --backend-opt sleep=1000000 --slo p90=50ms --concurrency 1
      --min-time 0.05 --min-iterations 50 --max-steps 3 --repeat 2 --warmup 2)
expect_exit "an SLO search on the null backend" 0 \
    "$MBENCH" load "${ARGS[@]}" --json "$T_TMP/b.json" --md "$T_TMP/b.md" --html "$T_TMP/b.html"
out=$LAST_OUT
contains "the console states the serving priority" "$out" "serving priority: "
contains "the console states the spin policy" "$out" "spin: "
contains "the console states the SLO basis" "$out" "SLO basis: "
check "both answers are printed, each with its interval" $PY -c '
import re, sys
for q in ("model capacity, harness delays removed", "as a normal-priority server measured it"):
    line = [l for l in sys.argv[1].splitlines() if q in l and ("Highest" in l or "No rate" in l)]
    assert len(line) == 1, (q, sys.argv[1])
    assert "No rate met" in line[0] or re.search(r"requests/s, 95% interval [0-9]+-[0-9]+", line[0]), line[0]
' "$out"
check "the priority, spin and basis come before the step table and the answers" \
    $PY - "$out" "$(cat "$T_TMP/b.md")" <<'PYEOF'
import sys
for text in sys.argv[1:]:
    p = text.index("serving priority:")
    assert p < text.index("spin:") < text.index("SLO basis:") < text.index("p99 ms"), text[:600]
    assert text.index("SLO basis:") < text.index("Highest rate") or "No rate met" in text
PYEOF
contains "the HTML states the conditions" "$(cat "$T_TMP/b.html")" 'id="load-conditions"'
check "both answers, the interval holds every search, the normal one at realtime none" \
    $PY - "$T_TMP/b.json" <<'PYEOF'
import json, math, sys
d = json.load(open(sys.argv[1]))
L = d["load"]
A = L["slo_answers"]
assert set(A) == {"model", "measured"} and L["search"] == A["model"]
assert A["measured"]["realtime"] == "none" and A["measured"]["question"] == \
    "as a normal-priority server measured it"
assert A["model"]["question"] == "model capacity, harness delays removed"
for s in A.values():
    q = [x["qps"] for x in s["searches"]]
    assert len(q) == 2 and all(x["basis"] == s["basis"] for x in s["searches"])
    if all(v > 0 for v in q):
        lo, hi = s["qps_ci95"]
        assert lo <= min(q) and hi >= max(q), (lo, hi, q)
        # at least one grid step of spread (t(1) = 12.706, sqrt(1 + 1/2))
        h = 12.706204736174707 * math.log(s["grid"]["ratio"]) * math.sqrt(1.5)
        assert hi / lo >= math.exp(2 * h) * (1 - 1e-9), (lo, hi, h)
for st in L["steps"]:
    if st.get("search_basis") == "measured":
        assert st["slo"]["basis"] == "measured"
        assert "realtime none" in st["dispatch"]["issue"]["priority"], st["dispatch"]["issue"]
PYEOF
expect_exit "--slo-basis measured puts the measured answer first" 0 \
    "$MBENCH" load "${ARGS[@]}" --slo-basis measured --json "$T_TMP/m.json"
check "load.search is the measured summary" $PY -c '
import json, sys
L = json.load(open(sys.argv[1]))["load"]
assert L["search"]["basis"] == "measured" and L["search"] == L["slo_answers"]["measured"]
' "$T_TMP/m.json"
# A bound no rate meets: each answer says how many searches met a rate
# and how low the steps went, not a bare "no".
expect_exit "an SLO no rate meets" 0 \
    "$MBENCH" load x --backend null --backend-opt sleep=1000000 --slo p90=1us --concurrency 1 \
    --min-time 0.05 --min-iterations 50 --max-time 0.3 --max-steps 4 --repeat 1 --warmup 2
contains "the console says no search met a rate" "$LAST_OUT" "0 of 1 search met a rate"
contains "and how low the steps went" "$LAST_OUT" "every step failed, down to"
done_testing
