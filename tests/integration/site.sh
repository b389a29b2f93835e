#!/usr/bin/env bash
# site.sh - mbench site on a store of real runs: a real git repository of
# 20 commits on two branches (main and feature, forked at main's 6th
# commit) whose benchmark program doubles its work at main's 9th commit
# (the planted regression), measured with `mbench exec` (phases, a
# counter and a requirement that fails from that commit on) and `mbench
# run --backend null` (model series at two batch sizes), on two machines
# (the second machine's documents are real measurements whose environment
# names another CPU and host: there is one machine here).  Main's 10th
# commit carries an older commit date than the 9th, so only first-parent
# order puts the step at the right commit.  Checks the JSON for bots, the
# determinism and incrementality of regeneration, and the four kinds of
# page in headless chromium (DOM after the page's own script, and
# screenshots).  Each page checks itself and sets <html data-ok>: the
# elements it promises, no script error, and on the index that sorting
# orders the rows and the machine filter hides the other machine's; on
# the branch view that a branch against itself shows no change; on a
# series page that every point is drawn (a page with a point removed
# must fail).
. "$(dirname "$0")/lib.sh"
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
P="$T_TMP/proj"
DB="$T_TMP/store.db"
mkdir -p "$P"

cat > "$P/bench.c" <<'EOF'
#include "mbench_events.h"
#include "work.h"
int main(int argc, char **argv)
{
    volatile double x = 0;
    long n = argc > 1 ? 100000L : WORK;
    (void)argv;
    mbe_start("setup");
    for (long i = 0; i < n / 4; i++)
        x += (double)i;
    mbe_end("setup");
    mbe_start("compute");
    for (long i = 0; i < n; i++)
        x += (double)i * 0.5;
    mbe_end("compute");
    mbe_counter("items", (double)(n / 1000));
    return 0;
}
EOF
echo '#define WORK 1500000L' > "$P/work.h"
echo bench > "$P/.gitignore"

g() { git -C "$P" "$@"; }
g init -q -b main
g config user.email site@example.org
g config user.name site

# commit DAY MESSAGE: a commit dated 2026-10-DAY
commit() {
    g add -A
    GIT_AUTHOR_DATE="2026-10-$1T12:00:00Z" GIT_COMMITTER_DATE="2026-10-$1T12:00:00Z" \
        g commit -qm "$2"
}

# measure: builds HEAD and stores its runs for machine A (as measured) and
# machine B (measured too, its environment renamed).
measure() {
    cc -O1 -I"$MBENCH_ROOT/include" -o "$P/bench" "$P/bench.c" || return 1
    local rep
    for rep in 1 2 3; do
        (cd "$P" && "$MBENCH" exec -q -r 5 -n compute -c ./bench -n 'light <b id="hostile">x</b>' \
            -c './bench small' --require 'counter.items<=2000' --db "$DB" >/dev/null 2>&1)
        (cd "$P" && "$MBENCH" exec -q -r 5 -n compute -c ./bench -n 'light <b id="hostile">x</b>' \
            -c './bench small' --require 'counter.items<=2000' --json "$T_TMP/b.json" >/dev/null 2>&1)
        $PY - "$T_TMP/b.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
e = d["environment"]
e.update(cpu_model="Simulated Machine B CPU @ 3.0GHz", hostname="runner-b",
         logical_cores=64, memory_bytes=256 * 2**30)
json.dump(d, open(sys.argv[1], "w"))
EOF
        "$MBENCH" db import --db "$DB" --git-dir "$P" "$T_TMP/b.json" >/dev/null || return 1
    done
    (cd "$P" && "$MBENCH" run none --backend null --batch 1,4 --iterations 20 -q --db "$DB" >/dev/null 2>&1)
}

built=1
for i in 1 2 3 4 5 6; do
    echo "$i" > "$P/step"; commit "$(printf %02d $((i * 2)))" "main $i" && measure || built=0
done
FORK=$(g rev-parse HEAD)
g checkout -q -b feature
for i in 1 2 3 4 5 6; do
    echo "f$i" > "$P/step"; commit "$(printf %02d $((13 + i * 2)))" "feature $i" && measure || built=0
done
g checkout -q main
for i in 7 8 9 10 11 12 13 14; do
    echo "$i" > "$P/step"
    [ "$i" = 9 ] && echo '#define WORK 3000000L' > "$P/work.h"
    day=$((i * 2))
    [ "$i" = 10 ] && day=17 # older than main 9's date: only first-parent order places it
    commit "$(printf %02d "$day")" "main $i" && measure || built=0
    [ "$i" = 9 ] && PLANTED=$(g rev-parse HEAD)
done
[ "$built" = 1 ] && ok "20 commits on two branches are measured on two machines" ||
    notok "20 commits on two branches are measured on two machines"
runs=$(sqlite3 "$DB" 'SELECT count(*) FROM runs')
[ "$runs" -ge 200 ] && ok "the store holds a few hundred runs ($runs)" || notok "the store holds a few hundred runs" "runs: $runs"

S="$T_TMP/site"
expect_exit "site writes the site" 0 "$MBENCH" site --db "$DB" --out "$S" --git-dir "$P" \
    --commit-url 'https://forge.example/proj/commit/{sha}'
contains "site says it ordered points by first-parent history" "$LAST_OUT" "points in first-parent order"
for f in index.html regressions.html regressions.json branches.html; do
    [ -s "$S/$f" ] && ok "the site has $f" || notok "the site has $f"
done

# ---- the JSON for bots ----------------------------------------------------
check "regressions.json names the planted regression at the planted commit on main, on both machines" \
    $PY - "$S/regressions.json" "$PLANTED" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1])); planted = sys.argv[2]
assert d["schema"] == "mbench.regressions/1", d["schema"]
cps = [e for e in d["entries"] if e["type"] == "change_point" and e["branch"] == "main"]
def at(metric, variant, direction):
    return {e["series"]["machine"] for e in cps if e["series"]["metric"] == metric
            and e["series"]["variant"] == variant and e["commit"] == planted
            and e["direction"] == direction}
assert len(d["machines"]) == 2, d["machines"]
# user CPU time and the counter: wall times on a loaded machine may
# place the step elsewhere (they are shown, not asserted)
for metric, direction in (("counter.items", "change"), ("user", "regression")):
    got = at(metric, "compute", direction)
    assert len(got) == 2, (metric, got, [(e["series"]["metric"], e["commit"][:8]) for e in cps])
c = [e for e in cps if e["series"]["metric"] == "counter.items" and e["series"]["variant"] == "compute"]
assert all(abs(e["change"] - 1.0) < 1e-9 for e in c), c
for e in cps:
    if e["series"]["metric"] == "user" and e["commit"] == planted:
        assert e["ci"]["lo"] > 0.3 and e["prev_commit"] != planted, e
gates = [e for e in d["entries"] if e["type"] == "gate"]
assert len(gates) == 12 and all(e["requirement"] == "counter.items<=2000" and e["branch"] == "main" and e["series"]["metric"] == "p50" for e in gates), (len(gates), gates[:2])
dates = [e["date"] for e in d["entries"]]
assert dates == sorted(dates, reverse=True), "not newest first"
EOF
check "no change point is found on the feature branch's counter (it forked before the step)" \
    $PY - "$S/regressions.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
bad = [e for e in d["entries"] if e["branch"] == "feature" and e["series"]["metric"] == "counter.items"]
assert not bad, bad
EOF

# ---- determinism and incrementality --------------------------------------
expect_exit "site regenerates with nothing changed" 0 "$MBENCH" site --db "$DB" --out "$S" --git-dir "$P" \
    --commit-url 'https://forge.example/proj/commit/{sha}'
contains "an unchanged store rewrites no file" "$LAST_OUT" " 0 file(s) written"
"$MBENCH" site --db "$DB" --out "$T_TMP/site2" --git-dir "$P" -q \
    --commit-url 'https://forge.example/proj/commit/{sha}'
if diff -r "$S" "$T_TMP/site2" >/dev/null; then ok "the same store gives byte-identical sites"
else notok "the same store gives byte-identical sites" "$(diff -rq "$S" "$T_TMP/site2" | head -3)"; fi
cp "$DB" "$T_TMP/more.db"
(cd "$P" && "$MBENCH" run none --backend null --batch 8 --iterations 20 -q --db "$T_TMP/more.db" >/dev/null 2>&1)
expect_exit "site updates after one more stored run" 0 "$MBENCH" site --db "$T_TMP/more.db" --out "$S" --git-dir "$P" \
    --commit-url 'https://forge.example/proj/commit/{sha}'
written=$(printf '%s' "$LAST_OUT" | sed -n 's/.* \([0-9]*\) file(s) written.*/\1/p')
total=$(find "$S" -type f | wc -l)
if [ -n "$written" ] && [ "$written" -ge 4 ] && [ "$written" -le 12 ]; then
    ok "one new series re-renders its own pages and the summaries only ($written of $total files)"
else notok "one new series re-renders its own pages and the summaries only" "$LAST_OUT"; fi
expect_exit "site goes back to the first store" 0 "$MBENCH" site --db "$DB" --out "$S" --git-dir "$P" \
    --commit-url 'https://forge.example/proj/commit/{sha}'
if [[ "$LAST_OUT" =~ \ ([1-9][0-9]*)\ removed ]]; then ok "the pages of the series that are gone are removed (${BASH_REMATCH[1]})"
else notok "the pages of the series that are gone are removed" "$LAST_OUT"; fi
if diff -r "$S" "$T_TMP/site2" >/dev/null; then ok "after the round trip the site is byte-identical again"
else notok "after the round trip the site is byte-identical again" "$(diff -rq "$S" "$T_TMP/site2" | head -3)"; fi
"$MBENCH" site --db "$DB" --out "$T_TMP/bydate" --no-git -q
check "ordered by commit date alone, the step lands on main's 10th commit instead (why first-parent order matters)" \
    $PY - "$T_TMP/bydate/regressions.json" "$PLANTED" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
c = [e for e in d["entries"] if e["type"] == "change_point" and e["branch"] == "main"
     and e["series"]["metric"] == "counter.items" and e["series"]["variant"] == "compute"]
assert c and all(e["commit"] != sys.argv[2] for e in c), c
EOF

expect_exit "site takes a commit as baseline and another default branch" 0 "$MBENCH" site --db "$DB" --out "$T_TMP/alt" \
    --git-dir "$P" --baseline "${FORK:0:10}" --branch feature --compare main -q
contains "the index says which baseline it compares with" "$(cat "$T_TMP/alt/index.html")" "baseline: ${FORK:0:10}"
contains "the branch view puts the chosen branches side by side" "$(cat "$T_TMP/alt/branches.html")" 'id="head-a">feature</th><th class="n" id="head-b">main</th>'
check "vs baseline compares feature's latest counter with the fork point's (no change)" $PY - "$T_TMP/alt/index.html" <<'EOF'
import re, sys
rows = re.findall(r'<tr id="row-[0-9a-f]+" data-kind="exec" data-machine="m[0-9a-f]+" data-text="[^"]*compute[^"]*counter.items[^"]*"[^>]*data-base="([^"]*)"', open(sys.argv[1]).read())
assert len(rows) == 2 and all(float(b) == 0 for b in rows), rows
EOF

# ---- bad input -------------------------------------------------------------
expect_exit "site without --out is a usage error" 2 "$MBENCH" site --db "$DB"
expect_exit "a commit URL without {sha} is refused" 2 "$MBENCH" site --db "$DB" --out "$T_TMP/x" --commit-url 'https://forge/commit/'
expect_exit "a javascript: commit URL is refused" 2 "$MBENCH" site --db "$DB" --out "$T_TMP/x" --commit-url 'javascript:alert({sha})'
expect_exit "a branch the store lacks is a usage error" 2 "$MBENCH" site --db "$DB" --out "$T_TMP/x" --branch nope
one_line "it says so in one line" "$LAST_ERR"
expect_exit "a store that does not exist is a runtime error" 3 "$MBENCH" site --db "$T_TMP/none.db" --out "$T_TMP/x"
[ -e "$T_TMP/none.db" ] && notok "no store file is created" || ok "no store file is created"

# ---- in headless chromium ---------------------------------------------------
if [ ! -x "$CHROMIUM" ]; then
    skip "the site loads in a headless browser" "chromium not found at $CHROMIUM (apt-get install chromium)"
    done_testing
fi
browse() { # browse OUTFLAG URL: one headless chromium run, no network
    local prof; prof=$(mktemp -d "$T_TMP/prof.XXXXXX")
    timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic \
        --no-first-run --disable-background-networking --disable-component-update \
        --disable-sync --disable-extensions --hide-scrollbars \
        --user-data-dir="$prof" --window-size=1280,1600 "$@" 2>/dev/null
}
SERIES=$($PY - "$S/regressions.json" "$PLANTED" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
a = [m["id"] for m in d["machines"] if m["hostnames"] != ["runner-b"]][0]
print([e["series"]["id"] for e in d["entries"] if e["type"] == "change_point" and e["commit"] == sys.argv[2]
       and e["series"]["metric"] == "user" and e["series"]["variant"] == "compute"
       and e["series"]["machine"] == a][0])
EOF
)
# A page that must FAIL its in-page check: a point missing from the chart.
$PY - "$S/s/$SERIES.html" "$T_TMP/broken.html" <<'EOF'
import re, sys
t = open(sys.argv[1]).read()
open(sys.argv[2], "w").write(re.sub(r'<circle id="pt-0".*?</circle>', "", t, count=1, flags=re.S))
EOF
browse --dump-dom "file://$T_TMP/broken.html" > "$T_TMP/broken.dom" &
for p in index regressions branches "s/$SERIES"; do
    n=$(basename "$p")
    browse --dump-dom "file://$S/$p.html" > "$T_TMP/$n.dom" &
    browse --screenshot="$T_TMP/$n.png" "file://$S/$p.html" >/dev/null &
done
wait
if ! cat "$T_TMP"/*.dom 2>/dev/null | grep -qi '<html'; then
    skip "the site loads in a headless browser" "chromium at $CHROMIUM cannot start here"
    done_testing
fi
for n in index regressions branches "$SERIES"; do
    dom=$(cat "$T_TMP/$n.dom")
    if [[ "$dom" == *'data-ok="1"'* ]]; then ok "page $n passes its in-page check in chromium"
    else notok "page $n passes its in-page check in chromium" "$(printf '%s' "$dom" | grep -o 'data-check="[^"]*"' | head -1)"; fi
    if [ "$(head -c 8 "$T_TMP/$n.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then ok "chromium renders page $n to a PNG"
    else notok "chromium renders page $n to a PNG"; fi
    [[ "$dom" == *'<b id="hostile">'* ]] && notok "page $n shows the hostile variant name as text" ||
        ok "page $n shows the hostile variant name as text"
done
dom=$(cat "$T_TMP/broken.dom")
if [[ "$dom" == *'data-ok="0"'* && "$dom" == *'the chart does not draw every point'* ]]; then ok "a series page whose chart lost a point fails its in-page check"
else notok "a series page whose chart lost a point fails its in-page check" "$(printf '%s' "$dom" | grep -o 'data-check="[^"]*"')"; fi
check "the index lists every series, both machines, with a sparkline each" $PY - "$T_TMP/index.dom" "$S/regressions.json" <<'EOF'
import re, sys, json
dom = open(sys.argv[1]).read()
rows = re.findall(r'<tr id="row-([0-9a-f]{12})" data-kind="([a-z]+)" data-machine="(m[0-9a-f]{8})"', dom)
machines = {m for _, _, m in rows}
kinds = {k for _, k, _ in rows}
assert len(rows) >= 24 and len(machines) == 2 and kinds == {"exec", "model"}, (len(rows), machines, kinds)
assert dom.count('class="spark"') == len(rows)
assert 'light &lt;b id="hostile"&gt;x&lt;/b&gt;' in dom
EOF
dom=$(cat "$T_TMP/$SERIES.dom")
contains "the series page marks the planted commit's point as a regression" "$dom" "class=\"cp\" data-commit=\"$PLANTED\" data-cp=\"regression\""
contains "the series page links the commit to the forge" "$dom" "https://forge.example/proj/commit/$PLANTED"
contains "the series page draws the change point at the planted commit" "$dom" "class=\"cp-line\" data-commit=\"$PLANTED\""
contains "the series page marks the failed gate at the planted commit" "$dom" "class=\"pt gate-fail\" data-commit=\"$PLANTED\""
contains "the series page shows the runs behind a point" "$dom" "3: <span class=\"mono\">#"
check "the points of main come in first-parent order" $PY - "$T_TMP/$SERIES.dom" "$P" <<'EOF'
import re, subprocess, sys
dom = open(sys.argv[1]).read()
pts = re.findall(r'<tr id="point-\d+"(?: class="cp")? data-commit="([0-9a-f]+)" data-cp="[a-z]*"><td class="n">\d+</td><td>.*?</td><td>(\w+)</td>', dom)
main = [c for c, b in pts if b == "main"]
fp = subprocess.run(["git", "-C", sys.argv[2], "rev-list", "--first-parent", "--reverse", "main"],
                    capture_output=True, text=True).stdout.split()
assert main == fp, (len(main), len(fp))
EOF
dom=$(cat "$T_TMP/regressions.dom")
contains "the regressions page lists the planted regression at its commit" "$dom" "data-commit=\"$PLANTED\" data-direction=\"regression\""
contains "the regressions page lists the failed gate" "$dom" "failed gate"
dom=$(cat "$T_TMP/branches.dom")
contains "the branch view puts main beside feature" "$dom" 'id="head-a">main</th><th class="n" id="head-b">feature</th>'
check "the branch view shows the step between main and feature for the counter" $PY - "$T_TMP/branches.dom" <<'EOF'
import re, sys
dom = open(sys.argv[1]).read()
rows = re.findall(r'<tr data-series="[0-9a-f]+"><td><a [^>]*>\./bench / compute</a></td><td>counter.items</td>.*?</tr>', dom)
assert len(rows) == 2 and all("+100.0%" not in r and "-50.0%" in r for r in rows), rows
EOF
done_testing
