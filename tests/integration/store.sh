#!/usr/bin/env bash
# store.sh - mbench gate, the SQLite results store, history and db
# export/import, end to end on synthetic result documents
# (tests/fixtures/store/make_doc.py).
. "$(dirname "$0")/lib.sh"

MK="$PY $FIX/store/make_doc.py"
cd "$T_TMP" || exit 1

# ---- gate on files -----------------------------------------------------
$MK base.json --seed 1
$MK same.json --seed 2
$MK slow.json --seed 3 --median-ns 2e6
$MK few.json --seed 4 --n 10
$MK othersha.json --seed 5 --sha "$(printf 'cd%.0s' $(seq 32))"
$MK batch4.json --seed 6 --batch 4
$MK schema2.json --seed 7 --schema mbench.result/2
$MK acc.json --seed 8 --comparison-json '{"variants":[{"name":"int8","outputs":[{"name":"y","cosine":0.95}]}]}'
$MK bigger.json --seed 9 --size 8192

expect_exit "identical distributions in two runs are inconclusive at the 5% default (exit 4)" 4 "$MBENCH" gate --baseline base.json --current same.json --json same-gate.json
contains "the gate warns that 5% is below the drift between two runs" "$LAST_OUT" "p50: the threshold 5.0% is below the drift between two separate runs (sd 5.0% of a run's level, the default for a gate without stored history)"
contains "and says why no count of processes decides it" "$LAST_OUT" "no number of processes decides it; measure both sides in one compare"
check "the verdict says which between-run term it used" $PY -c "
import json
m = [x for x in json.load(open('same-gate.json'))['comparisons'][0]['metrics'] if x['metric'] == 'p50'][0]
assert m['between_run'] == {'sd_log': 0.05, 'runs': 0, 'source': 'default'} and m['processes_needed'] is None, m"
expect_exit "identical distributions pass a threshold above that drift" 0 "$MBENCH" gate --baseline base.json --current same.json --max-regression p50=20%
expect_exit "a 2x slowdown is a regression (exit 1)" 1 "$MBENCH" gate --baseline base.json --current slow.json --md verdict.md --json verdict.json
contains "the regression names p50 and its confidence interval" "$LAST_OUT" "p50 +"
contains "the regression states the U test p-value against alpha 0.01" "$LAST_OUT" "< 0.01"
if $PY -c 'import json,sys; g=json.load(open("verdict.json")); sys.exit(0 if g["schema"]=="mbench.gate/1" and g["verdict"]=="regression" and g["exit_code"]==1 and g["method"]["alpha"]==0.01 and any(m["metric"]=="p50" and m["verdict"]=="regression" for m in g["comparisons"][0]["metrics"]) else 1)'; then
    ok "--json writes an mbench.gate/1 verdict with per-metric figures"
else notok "--json writes an mbench.gate/1 verdict with per-metric figures" "$(head -c 400 verdict.json)"; fi
contains "--md writes a Markdown table for a pull-request comment" "$(cat verdict.md)" "| m.onnx | m.onnx | 1 | p50 |"
expect_exit "gate --html writes the verdict as a page, --json - sends it to stdout" 1 "$MBENCH" gate --baseline base.json --current slow.json --html verdict.html --json -
contains "the page names the verdict and the regressed metric" "$(cat verdict.html)" '<span id="verdict" style="color:var(--bad)">REGRESSION</span>'
contains "the page has the regressed metric's row" "$(cat verdict.html)" '<td>p50</td>'
if printf '%s' "$LAST_OUT" | $PY -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["verdict"]=="regression" else 1)'; then
    ok "with --json - stdout holds the verdict document alone"
else notok "with --json - stdout holds the verdict document alone" "$(printf '%s' "$LAST_OUT" | head -3)"; fi
contains "with --json - the table goes to stderr" "$LAST_ERR" "mbench gate: REGRESSION"
expect_exit "gate --csv - sends the verdict table to stdout as CSV" 1 "$MBENCH" gate --baseline base.json --current slow.json --csv - -q
check "the CSV has the p50 row with the raw ratio and its CI, read back by Python's csv" $PY -c '
import csv, io, sys
rows = {r["metric"]: r for r in csv.DictReader(io.StringIO(sys.argv[1]))}
p = rows["p50"]
assert p["verdict"] == "regression" and p["unit"] == "ns", p
assert float(p["ratio_ci95_lo"]) > 1 and float(p["current"]) > float(p["baseline"]), p
' "$LAST_OUT"
expect_exit "too few samples per process for p99 are inconclusive (exit 4)" 4 "$MBENCH" gate --baseline base.json --current few.json --max-regression p99=10%
contains "inconclusive says why it cannot decide and what to do" "$LAST_OUT" "run both sides with --processes 40"
$MK one.json --seed 11 --processes 1
expect_exit "one process per side cannot decide (exit 4)" 4 "$MBENCH" gate --baseline base.json --current one.json
contains "one process is called within-run noise" "$LAST_OUT" "one process measures within-run noise only"
$MK slow10.json --seed 12 --median-ns 1.1e6
$MK slow40.json --seed 13 --median-ns 1.4e6
expect_exit "a 10% slowdown between two runs is within their drift: not a regression" 4 "$MBENCH" gate --baseline base.json --current slow10.json
expect_exit "a 40% slowdown over 10 processes per side is a regression" 1 "$MBENCH" gate --baseline base.json --current slow40.json --json s40.json
check "the gate's CI and p agree with numpy/scipy: Welch on the log per-process medians plus 2 tau^2 (tau 5%)" $PY - <<'PYEOF'
import json
import numpy as np
from scipy import stats
b = np.log(json.load(open("base.json"))["runs"][0]["replication"]["per_process"]["median"])
c = np.log(json.load(open("slow40.json"))["runs"][0]["replication"]["per_process"]["median"])
g = json.load(open("s40.json"))
m = [x for x in g["comparisons"][0]["metrics"] if x["metric"] == "p50"][0]
vb, vc, vt = b.var(ddof=1) / len(b), c.var(ddof=1) / len(c), 2 * 0.05 ** 2
df = (vb + vc + vt) ** 2 / (vb ** 2 / (len(b) - 1) + vc ** 2 / (len(c) - 1))
d = c.mean() - b.mean()
p = 2 * stats.t.sf(abs(d) / np.sqrt(vb + vc + vt), df)
assert abs(m["p_value"] - p) < 1e-9 * max(p, 1e-300), (m["p_value"], p)
h = stats.t.ppf(0.975, df) * np.sqrt(vb + vc + vt)
assert abs(m["ratio"] - np.exp(d)) < 1e-9 and abs(m["ci95"][0] - np.exp(d - h)) < 1e-9 and abs(m["ci95"][1] - np.exp(d + h)) < 1e-9, (m, np.exp([d - h, d, d + h]))
assert abs(m["df"] - df) < 1e-6 * df, (m["df"], df)
PYEOF
expect_exit "a different model hash still gates, matched by name" 0 "$MBENCH" gate --baseline base.json --current othersha.json --max-regression p50=20%
contains "a different model hash is reported with both hashes" "$LAST_OUT" "model sha256 differs (baseline abababababab, current cdcdcdcdcdcd)"
expect_exit "runs with no matching batch size are an error" 3 "$MBENCH" gate --baseline base.json --current batch4.json
contains "the batch mismatch names both sides' batch sizes" "$LAST_ERR" "no baseline run for model m.onnx variant m.onnx batch 4 (the baseline has batch sizes 1"
one_line "the batch mismatch is one line" "$LAST_ERR"
expect_exit "a baseline of another schema version is an error" 3 "$MBENCH" gate --baseline schema2.json --current base.json
contains "the schema error names the version found and the one expected" "$LAST_ERR" "has schema 'mbench.result/2' but this mbench 0.1.0 reads 'mbench.result/1'"
expect_exit "a model that grew is a size regression at the 1% default" 1 "$MBENCH" gate --baseline base.json --current bigger.json
expect_exit "size=off lets a grown model pass (latency judged at 20%)" 0 "$MBENCH" gate --baseline base.json --current bigger.json --max-regression size=off,p50=20%
expect_exit "an accuracy gate that fails gives exit 5" 5 "$MBENCH" gate --baseline base.json --current acc.json --gate 'cosine>=0.99'
expect_exit "an accuracy gate that holds passes" 0 "$MBENCH" gate --baseline base.json --current acc.json --gate 'cosine>=0.9' --max-regression p50=20%
expect_exit "an accuracy gate on a metric that was not recorded is an error" 3 "$MBENCH" gate --baseline base.json --current same.json --gate 'cosine>=0.9'
contains "the missing accuracy metric is named" "$LAST_ERR" "no accuracy figure 'cosine'"

# ---- the between-run term from history -------------------------------------
for i in 1 2 3 4 5 6; do
    $MK "spread$i.json" --seed $((40 + i)) --median-ns $((900000 + 100000 * (i % 3))) --created "2026-11-0${i}T02:00:00Z"
done
expect_exit "six earlier runs are imported for the history" 0 "$MBENCH" db import --db spread.db spread1.json spread2.json spread3.json spread4.json spread5.json spread6.json
expect_exit "a 40% slowdown is not a regression when the stored runs spread by 10%" 4 \
    "$MBENCH" gate --db spread.db --baseline base.json --current slow40.json --no-store --json hist.json
contains "the warning names the drift from the history" "$LAST_OUT" "estimated from the stored history"
check "the between-run term is the random effect of the stored runs (numpy)" $PY - <<'PYEOF'
import json
import numpy as np
m = [x for x in json.load(open("hist.json"))["comparisons"][0]["metrics"] if x["metric"] == "p50"][0]
docs = [json.load(open(f"spread{i}.json"))["runs"][0]["latency"] for i in range(1, 7)]
y = np.log([d["median"] for d in docs])
se = [(np.log(d["median_ci95"]["hi"]) - np.log(d["median_ci95"]["lo"])) / (2 * 1.959964)
      if d.get("median_ci95") else 0.0 for d in docs]
tau = np.sqrt(max(0.0, y.var(ddof=1) - np.mean(np.square(se))))
br = m["between_run"]
assert br["source"] == "history" and br["runs"] == 6 and abs(br["sd_log"] - tau) < 1e-9, (br, tau)
PYEOF

# ---- bad command lines: one line each ----------------------------------
expect_exit "gate without --current is a usage error" 2 "$MBENCH" gate --baseline base.json
one_line "gate without --current says so in one line" "$LAST_ERR"
expect_exit "a malformed --max-regression is a usage error" 2 "$MBENCH" gate --baseline base.json --current same.json --max-regression p50=5
contains "the malformed threshold names the fix" "$LAST_ERR" "expected a percentage such as p50=5%"
expect_exit "an unknown metric in --max-regression is a usage error" 2 "$MBENCH" gate --baseline base.json --current same.json --max-regression p42=5%
expect_exit "a malformed --gate is a usage error" 2 "$MBENCH" gate --baseline base.json --current acc.json --gate 'cosine~0.9'
one_line "the malformed --gate is reported in one line" "$LAST_ERR"
expect_exit "an unknown gate flag is a usage error" 2 "$MBENCH" gate --frobnicate
expect_exit "a missing baseline file is a runtime error" 3 "$MBENCH" gate --baseline nope.json --current same.json
one_line "the missing file is reported in one line" "$LAST_ERR"
echo '{"schema": ' > broken.json
expect_exit "a baseline that is not JSON is a runtime error" 3 "$MBENCH" gate --baseline broken.json --current same.json
contains "invalid JSON names the file" "$LAST_ERR" "broken.json is not valid JSON"
expect_exit "--against without --db is a usage error" 2 "$MBENCH" gate --against main --current same.json
expect_exit "gate --help exits 0" 0 "$MBENCH" gate --help
expect_exit "history without --db is a usage error" 2 "$MBENCH" history
expect_exit "db without a subcommand is a usage error" 2 "$MBENCH" db
expect_exit "db export needs --json or --to" 2 "$MBENCH" db export --db x.db

# ---- the store: put, idempotence, history, export/import ---------------
expect_exit "documents are imported into a new SQLite store" 0 "$MBENCH" db import --db s.db base.json same.json slow.json
expect_exit "importing a stored document again is harmless" 0 "$MBENCH" db import --db s.db base.json
contains "a stored document is not stored twice" "$LAST_OUT" "(0 new, 1 already there)"
info=$("$MBENCH" db info --db s.db)
contains "the store holds one row per run" "$info" "runs: 3"
contains "the store keeps the raw samples" "$info" "run_samples: 3"
contains "the store is at the current schema version" "$info" "schema_version: 3"
jm=$(sqlite3 s.db 'PRAGMA journal_mode')
[ "$jm" = wal ] && ok "the SQLite store is in WAL mode" || notok "the SQLite store is in WAL mode" "journal_mode: $jm"
host=$(sqlite3 s.db 'SELECT DISTINCT env_hostname FROM documents')
[ "$host" = ci-host ] && ok "environment fields are stored as columns" || notok "environment fields are stored as columns" "got '$host'"
expect_exit "export writes every document to JSON" 0 "$MBENCH" db export --db s.db --json export.json
expect_exit "an export imports into another store" 0 "$MBENCH" db import --db s2.db export.json
contains "the imported store has every run" "$("$MBENCH" db info --db s2.db)" "runs: 3"
expect_exit "a store copies into another store" 0 "$MBENCH" db export --db s.db --to s3.db
contains "the copied store has every document" "$("$MBENCH" db info --db s3.db)" "documents: 3"
n1=$(sqlite3 s.db 'SELECT samples_ns FROM run_samples ORDER BY run_id' | md5sum)
n3=$(sqlite3 s3.db 'SELECT samples_ns FROM run_samples ORDER BY run_id' | md5sum)
[ "$n1" = "$n3" ] && ok "raw samples survive a store-to-store copy exactly" || notok "raw samples survive a store-to-store copy exactly"

for i in $(seq 1 12); do
    med=1e6; [ "$i" -gt 6 ] && med=1.25e6
    $MK "h$i.json" --seed "$((100 + i))" --median-ns "$med" --created "2026-11-$(printf %02d "$i")T00:00:00Z"
done
"$MBENCH" db import --db h.db h{1..12}.json >/dev/null
expect_exit "history prints a series" 0 "$MBENCH" history --db h.db --html h.html --json h.json
contains "history finds the planted step at the 7th result" "$(echo "$LAST_OUT" | grep 'change point')" "     7  2026-11-07"
if $PY -c 'import json,sys; h=json.load(open("h.json")); s=h["series"][0]; sys.exit(0 if h["schema"]=="mbench.history/1" and len(s["points"])==12 and [c["index"] for c in s["change_points"]]==[6] else 1)'; then
    ok "history --json has the points and exactly one change point"
else notok "history --json has the points and exactly one change point" "$(head -c 300 h.json)"; fi
contains "history --html is a self-contained page with an inline SVG" "$(cat h.html)" "<svg xmlns"
expect_exit "history --md - writes Markdown to stdout" 0 "$MBENCH" history --db h.db --md -
contains "history --md marks the change point in the 7th row" "$(echo "$LAST_OUT" | grep '^| 7 |')" "| 7 | 2026-11-07T00:00:00Z | - | - | 1.28 ms | **+2"
expect_exit "history --csv - writes CSV to stdout" 0 "$MBENCH" history --db h.db --csv - -q
check "history --csv has every point, values in ns, and the change point on the 7th row (Python's csv)" $PY -c '
import csv, io, json, sys
rows = list(csv.DictReader(io.StringIO(sys.argv[1])))
doc = json.load(open("h.json"))
pts = [p for s in doc["series"] for p in s["points"]]
assert len(rows) == len(pts), (len(rows), len(pts))
assert all(r["unit"] == "ns" and r["metric"] == "p50" for r in rows)
assert [abs(float(r["value"]) - p["value"]) <= 1e-6 * p["value"] for r, p in zip(rows, pts)] == [True] * len(pts)
marked = [r["index"] for r in rows if r["change_point_change"]]
assert marked == ["7"] and float(rows[6]["change_point_change"]) > 0.2, (marked, rows[6])
' "$LAST_OUT"
"$MBENCH" history --db h.db --metric p50 --limit 6 --json flat.json >/dev/null
if $PY -c 'import json,sys; s=json.load(open("flat.json"))["series"][0]; sys.exit(0 if len(s["points"])==6 and s["change_points"]==[] else 1)'; then
    ok "a flat noisy series has no change point"
else notok "a flat noisy series has no change point" "$(head -c 300 flat.json)"; fi
expect_exit "history rejects an unknown metric" 2 "$MBENCH" history --db h.db --metric p42

# ---- gate against the store, with git facts ----------------------------
mkdir repo && git -C repo init -q -b main && git -C repo -c user.email=t@t -c user.name=t commit -q --allow-empty -m one
c1=$(git -C repo rev-parse HEAD)
expect_exit "a baseline is stored with the git facts of --git-dir" 0 "$MBENCH" db import --db g.db --git-dir repo base.json
row=$(sqlite3 g.db 'SELECT git_commit, git_branch, git_dirty FROM runs')
[ "$row" = "$c1|main|0" ] && ok "the store records commit, branch and dirty flag" || notok "the store records commit, branch and dirty flag" "got $row"
git -C repo checkout -q -b feature && git -C repo -c user.email=t@t -c user.name=t commit -q --allow-empty -m two
expect_exit "gate --db --against main finds the slowdown" 1 "$MBENCH" gate --db g.db --against main --current slow.json --git-dir repo
contains "the store baseline names the branch and commit" "$LAST_OUT" "sqlite@main (commit ${c1:0:12})"
br=$(sqlite3 g.db "SELECT git_branch FROM documents ORDER BY id DESC LIMIT 1")
[ "$br" = feature ] && ok "gate --db appends the current results with their branch" || notok "gate --db appends the current results with their branch" "got $br"
expect_exit "gate --against a commit prefix works" 0 "$MBENCH" gate --db g.db --against "${c1:0:8}" --current same.json --git-dir repo --no-store --max-regression p50=20%
expect_exit "gate --against an unknown branch is an error" 3 "$MBENCH" gate --db g.db --against nosuch --current same.json --git-dir repo
contains "the unknown branch is named" "$LAST_ERR" "no stored results for branch or commit 'nosuch'"

# ---- schema versions, corrupt and foreign files -----------------------
sqlite3 v1.db < "$FIX/store/schema_v1.sql"
expect_exit "a version-1 store opens" 0 "$MBENCH" db info --db v1.db
contains "a version-1 store is migrated to version 3" "$(sqlite3 v1.db 'SELECT version FROM schema_version')" "3"
cols=$(sqlite3 v1.db "SELECT count(*) FROM pragma_table_info('runs') WHERE name = 'git_commit_date'")
[ "$cols" = 1 ] && ok "the migration adds the version-2 columns" || notok "the migration adds the version-2 columns" "got $cols"
expect_exit "rows from version 1 are still there after migration" 0 "$MBENCH" history --db v1.db
contains "the migrated history shows the old run" "$LAST_OUT" "old.onnx"

sqlite3 v99.db "CREATE TABLE schema_version (version INTEGER NOT NULL, updated_utc TEXT NOT NULL); INSERT INTO schema_version VALUES (99, 'future');"
before=$(md5sum < v99.db)
expect_exit "a store of a newer schema is refused" 3 "$MBENCH" db import --db v99.db base.json
contains "the refusal names both schema versions" "$LAST_ERR" "schema version 99, newer than the version 3"
[ "$(md5sum < v99.db)" = "$before" ] && ok "a newer store is left untouched" || notok "a newer store is left untouched"

head -c 4096 /dev/urandom > corrupt.db
before=$(md5sum < corrupt.db)
expect_exit "a corrupt database file is refused" 3 "$MBENCH" db import --db corrupt.db base.json
contains "the corrupt file is named with the fix" "$LAST_ERR" "corrupt.db is not a usable SQLite database"
one_line "the corrupt file error is one line" "$LAST_ERR"
[ "$(md5sum < corrupt.db)" = "$before" ] && ok "a corrupt file is never overwritten" || notok "a corrupt file is never overwritten"
sqlite3 foreign.db "CREATE TABLE t (x); INSERT INTO t VALUES (1);"
expect_exit "a SQLite database of something else is refused" 3 "$MBENCH" db import --db foreign.db base.json
contains "the foreign database is left untouched" "$LAST_ERR" "left untouched"
expect_exit "a directory as --db is refused" 2 "$MBENCH" db info --db repo
expect_exit "a store in a missing directory is an error" 3 "$MBENCH" db info --db nodir/x.db

# ---- locks and concurrent writers -------------------------------------
"$MBENCH" db import --db lock.db base.json >/dev/null
# The holder says when it has the lock (no sleep to guess it), keeps it for
# a second - the import must wait that long - and rolls back.
mkfifo lock.ready
$PY -c "
import sqlite3, sys, time
c = sqlite3.connect('lock.db', isolation_level=None)
c.execute('BEGIN EXCLUSIVE'); c.execute(\"INSERT INTO schema_version VALUES (2, 'held')\")
open('lock.ready', 'w').write('locked\\n')
time.sleep(1); c.execute('ROLLBACK')" &
holder=$!
read -r _ < lock.ready
expect_exit "a write to a locked store waits for the lock, then succeeds" 0 "$MBENCH" db import --db lock.db same.json
wait "$holder"
contains "the write after the lock is stored" "$("$MBENCH" db info --db lock.db)" "documents: 2"

$PY - <<'EOF'
import json
base = json.load(open("base.json"))
for w in range(8):
    for i in range(20):
        base["created_utc"] = "2026-11-22T%02d:%02d:00Z" % (w, i)
        json.dump(base, open("c_%d_%d.json" % (w, i), "w"))
EOF
for w in $(seq 0 7); do
    ( for i in $(seq 0 19); do "$MBENCH" db import --db conc.db "c_${w}_$i.json" >/dev/null || echo "writer $w insert $i failed" >> conc.err; done ) &
done
wait
docs=$(sqlite3 conc.db 'SELECT count(*) FROM documents')
runs=$(sqlite3 conc.db 'SELECT count(*) FROM runs')
[ "$docs" = 160 ] && [ "$runs" = 160 ] && [ ! -s conc.err ] && ok "8 concurrent writers x 20 inserts leave exactly 160 rows" \
    || notok "8 concurrent writers x 20 inserts leave exactly 160 rows" "documents $docs, runs $runs" "$(cat conc.err 2>/dev/null | head -3)"

# ---- a store this user may only read; a full disk ----------------------
# As root, an unprivileged user (nobody) reads a mode-444 store in a
# directory it cannot write (no -shm file can be made there) and in one it
# owns; a full file system is a real tmpfs of 320 KiB.
if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1 && command -v runuser >/dev/null && nobody_can_run; then
    RO="$T_TMP/ro"; mkdir -p "$RO/own"
    "$MBENCH" db import --db "$RO/s.db" h{1..12}.json >/dev/null
    cp "$RO/s.db" "$RO/own/s.db"
    chmod 444 "$RO/s.db" "$RO/own/s.db"; chown -R nobody "$RO/own"; chmod 755 "$RO"
    chmod o+rx "$T_TMP" "$(dirname "$T_TMP")" 2>/dev/null
    sum=$(md5sum < "$RO/s.db")
    for db in "$RO/s.db" "$RO/own/s.db"; do
        where=$([ "$db" = "$RO/s.db" ] && echo "in a read-only directory" || echo "in its own directory")
        expect_exit "db info on a mode-444 store $where works as nobody" 0 runuser -u nobody -- "$MBENCH" db info --db "$db"
        contains "db info counts the read-only store's documents" "$LAST_OUT" "documents: 12"
        expect_exit "history on a mode-444 store $where works as nobody" 0 runuser -u nobody -- "$MBENCH" history --db "$db" --model h.onnx
        expect_exit "db export of a mode-444 store $where works as nobody" 0 runuser -u nobody -- "$MBENCH" db export --db "$db" --json -
    done
    runuser -u nobody -- "$MBENCH" gate --db "$RO/s.db" --against nosuch --current base.json --no-store >/dev/null 2>"$T_TMP/gate.err"
    contains "gate --against --no-store reads a mode-444 store as nobody (and finds no such ref)" "$(cat "$T_TMP/gate.err")" "no stored results for branch or commit 'nosuch'"
    expect_exit "storing into a mode-444 store as nobody fails" 3 runuser -u nobody -- "$MBENCH" db import --db "$RO/s.db" base.json
    contains "the failure says the store is read-only" "$LAST_ERR" "is read-only for this user"
    [ "$(md5sum < "$RO/s.db")" = "$sum" ] && [ -z "$(ls "$RO" | grep -v '^s.db$\|^own$')" ] && ok "the read-only store is unchanged and nothing was created beside it" \
        || notok "the read-only store is unchanged and nothing was created beside it" "$(ls -la "$RO")"
    FULL="$T_TMP/full"; mkdir -p "$FULL"
    if mount -t tmpfs -o size=320k tmpfs "$FULL" 2>/dev/null; then
        "$MBENCH" db import --db "$FULL/s.db" base.json >/dev/null
        dd if=/dev/zero of="$FULL/filler" bs=4k 2>/dev/null
        expect_exit "storing on a full disk fails" 3 "$MBENCH" db import --db "$FULL/s.db" h{1..12}.json
        contains "the full disk is called a full disk" "$LAST_ERR" "disk full: SQLite could not write $FULL/s.db"
        one_line "the full-disk error is one line" "$LAST_ERR"
        rm -f "$FULL/filler"
        contains "the store on the full disk keeps what it held" "$("$MBENCH" db info --db "$FULL/s.db")" "documents: 1"
        umount "$FULL"
    else
        skip "storing on a full disk" "cannot mount a tmpfs here"
    fi
else
    skip "read-only stores and full disks" "needs root (to act as nobody and mount a tmpfs) and a build nobody can run (not under a mode-700 home)"
fi

# Reading commands never create a store from a mistyped path.
for cmd in "db export --db $T_TMP/typo.db --json $T_TMP/typo.json" "history --db $T_TMP/typo.db" "db info --db $T_TMP/typo.db"; do
    expect_exit "'mbench $(echo $cmd | cut -d' ' -f1-2)' on a missing store is an error" 3 "$MBENCH" $cmd
    contains "the error names the missing store" "$LAST_ERR" "does not exist"
done
[ ! -e "$T_TMP/typo.db" ] && ok "no empty store was created" || notok "no empty store was created"

done_testing
