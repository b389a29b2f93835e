#!/usr/bin/env bash
# profile_outputs.sh - mbench profile takes the shared output flags (--json,
# --csv, --md, --html, --db) and each writer renders the profile document
# as per-operator tables that agree with the JSON: CSV rows, Markdown rows
# and HTML rows per op type, the store holding the document, `mbench
# report` rebuilding the same Markdown from the saved JSON, and the HTML
# page loaded in headless Chromium.  Model: the MLP of
# tests/fixtures/run/make_models.py (profiled through ONNX Runtime).
. "$(dirname "$0")/lib.sh"

export XDG_CACHE_HOME="$T_TMP/cache"
if ! $PY "$FIX/run/make_models.py" "$T_TMP/m" >"$T_TMP/gen.log" 2>&1; then
    notok "the models can be generated" "$(tail -3 "$T_TMP/gen.log")"
    done_testing
fi
M="$T_TMP/m/mlp.onnx"
O="$T_TMP/out"
RUNOPTS=(--iterations 5 --warmup 1 --threads 1 --no-peak --no-counters)

expect_exit "profile writes every shared output" 0 "$MBENCH" profile "$M" "${RUNOPTS[@]}" \
    --json "$O/p.json" --csv "$O/p.csv" --md "$O/p.md" --html "$O/p.html" --db "$O/p.db" --quiet
check "--csv has one row per op type with the JSON's times" $PY -c "
import csv, json, sys
d = json.load(open(sys.argv[1])); p = d['runs'][0]['profile']
rows = list(csv.DictReader(open(sys.argv[2])))
assert [r['op_type'] for r in rows] == [o['op_type'] for o in p['op_types']], rows
for r, o in zip(rows, p['op_types']):
    assert abs(float(r['per_run_ms']) - o['per_run_ns'] / 1e6) < 1e-6, (r, o)
    assert abs(float(r['share']) - o['share']) < 1e-6, (r, o)
    assert r['batch_size'] == '1' and r['model'] == 'mlp.onnx', r" "$O/p.json" "$O/p.csv"
check "--md has the op-type table with a row per op type" $PY -c "
import json, sys
p = json.load(open(sys.argv[1]))['runs'][0]['profile']; md = open(sys.argv[2]).read()
assert '### By operator type' in md and '### Reconciliation' in md, md[:300]
for o in p['op_types']:
    assert '| %s | %.1f | %.3f |' % (o['op_type'], o['calls_per_run'], o['per_run_ns'] / 1e6) in md, o['op_type']" "$O/p.json" "$O/p.md"
check "--html has the op-type table, the chart and no script" $PY -c "
import json, sys
p = json.load(open(sys.argv[1]))['runs'][0]['profile']; h = open(sys.argv[2]).read()
assert '<h2>By operator type</h2>' in h and '<svg' in h and '<script' not in h
for o in p['op_types']:
    assert '<td>%s</td>' % o['op_type'] in h, o['op_type']" "$O/p.json" "$O/p.html"
check "--db stores the profile document and its run" $PY -c "
import json, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
docs = c.execute('SELECT kind, doc FROM documents').fetchall()
assert len(docs) == 1 and docs[0][0] == 'profile', docs
assert json.loads(docs[0][1])['runs'][0]['profile']['op_types']
runs = c.execute('SELECT variant, p50_ns FROM runs').fetchall()
assert len(runs) == 1 and runs[0][1] > 0, runs" "$O/p.db"
expect_exit "mbench report rebuilds the Markdown from the saved JSON" 0 "$MBENCH" report "$O/p.json" --md "$O/r.md"
check "the rebuilt Markdown is the same bytes" cmp "$O/p.md" "$O/r.md"

expect_exit "a second --csv appends rows without a second header" 0 "$MBENCH" profile "$M" "${RUNOPTS[@]}" \
    --no-timing --csv "$O/p.csv" --quiet
check "the CSV has one header" test "$(grep -c '^model,variant,batch_size,op_type' "$O/p.csv")" -eq 1
expect_exit "--json - writes the document to stdout" 0 "$MBENCH" profile "$M" "${RUNOPTS[@]}" --no-timing --json -
check "stdout is the profile document alone" $PY -c "
import json, sys; d = json.loads(sys.argv[1]); assert d['kind'] == 'profile' and d['runs'][0]['profile']" "$LAST_OUT"
contains "the console report went to stderr" "$LAST_ERR" "By operator type"

expect_exit "an output that cannot be written fails before profiling" 3 "$MBENCH" profile "$M" "${RUNOPTS[@]}" \
    --md /proc/nope/p.md
one_line "that error is one line" "$LAST_ERR"
contains "that error names the flag" "$LAST_ERR" "--md"

# ---- a comparison in every format ------------------------------------------
expect_exit "--compare takes the shared outputs" 0 "$MBENCH" profile --compare "$O/p.json" "$M" "${RUNOPTS[@]}" \
    --csv "$O/c.csv" --md "$O/c.md" --html "$O/c.html" --quiet
check "the comparison CSV rows add up to the change of the run" $PY -c "
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert any(r['op_type'] == '(framework overhead)' for r in rows), rows
c = [float(r['contribution']) for r in rows if r['contribution']]
# the shares of the change sum to 1; when the two runs hardly differ the
# shares are large and printed rounded, so the tolerance scales with them
assert abs(sum(c) - 1) < 0.01 * max(1, sum(abs(x) for x in c)), c" "$O/c.csv"
contains "the comparison Markdown has its table" "$(cat "$O/c.md")" "| op type | A ms | B ms | B - A ms | contribution |"
contains "the comparison HTML explains the change" "$(cat "$O/c.html")" "Where the change comes from"

# ---- the HTML page in a browser ----------------------------------------------
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$CHROMIUM" ]; then
    skip "the profile page renders in a headless browser" "chromium not found at $CHROMIUM"
    done_testing
fi
prof=$(mktemp -d "$T_TMP/chr.XXXXXX")
timeout 25 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --disable-extensions \
    --user-data-dir="$prof" --dump-dom "file://$O/p.html" >"$T_TMP/p.dom" 2>/dev/null
if ! grep -q '</html>\|</body>' "$T_TMP/p.dom"; then
    skip "the profile page renders in a headless browser" "chromium at $CHROMIUM cannot start here"
    done_testing
fi
check "in the browser, the page has the op-type table with every op type" $PY -c "
import json, sys
from html.parser import HTMLParser
p = json.load(open(sys.argv[1]))['runs'][0]['profile']
class P(HTMLParser):
    def __init__(s): super().__init__(); s.cells = []; s.in_td = False; s.rects = 0
    def handle_starttag(s, t, a):
        s.in_td = t == 'td'; s.rects += t == 'rect'
    def handle_data(s, d):
        if s.in_td: s.cells.append(d.strip())
x = P(); x.feed(open(sys.argv[2]).read())
for o in p['op_types']: assert o['op_type'] in x.cells, (o['op_type'], x.cells[:20])
assert x.rects > 3, x.rects" "$O/p.json" "$T_TMP/p.dom"
done_testing
