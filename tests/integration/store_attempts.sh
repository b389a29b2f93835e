#!/usr/bin/env bash
# store_attempts.sh - the results store keeps the latest attempt of a task
# (docs/STORE.md "Attempts"): a later attempt supersedes the earlier one,
# which stays stored but is never counted twice - history, gate baselines,
# the site and db export read the latest only, whatever order the attempts
# come in.
# The Slurm side (a resumed task stored with its attempt) is in slurm.sh.
. "$(dirname "$0")/lib.sh"

MK="$PY $FIX/store/make_doc.py"
cd "$T_TMP" || exit 1
# attempt FILE KEY NUMBER [STATUS]: stamps a document as an attempt
attempt() {
    $PY - "$@" <<'PY'
import json, sys
f, key, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
d = json.load(open(f))
d["attempt"] = {"key": key, "number": n}
if len(sys.argv) > 4:
    for r in d["runs"]:
        r["status"] = sys.argv[4]
        r["error"] = "exit 4: broken input"
json.dump(d, open(f, "w"))
PY
}
$MK a1.json --seed 1 --median-ns 1e6 && attempt a1.json 'slurm:/jobs/x#0' 1
$MK a2.json --seed 2 --median-ns 2e6 && attempt a2.json 'slurm:/jobs/x#0' 2
$MK late.json --seed 3 --median-ns 1e6 && attempt late.json 'slurm:/jobs/x#0' 1
$MK f1.json --seed 4 --model f.onnx && attempt f1.json 'slurm:/jobs/x#1' 1 failed
$MK f2.json --seed 5 --model f.onnx && attempt f2.json 'slurm:/jobs/x#1' 2
$MK other.json --seed 6 --model other.onnx
$MK cur.json --seed 7 --median-ns 2e6
mkdir repo && git -C repo init -q -b main && git -C repo -c user.email=t@t -c user.name=t commit -q --allow-empty -m one

expect_exit "a first attempt and an unrelated document are stored" 0 "$MBENCH" db import --db s.db --git-dir repo a1.json f1.json other.json
expect_exit "the second attempts are stored" 0 "$MBENCH" db import --db s.db --git-dir repo a2.json f2.json
info=$("$MBENCH" db info --db s.db)
contains "every attempt stays in the store" "$info" "documents: 5"
contains "db info counts the superseded ones" "$info" "superseded: 2"
contains "each superseded document names its replacement" \
    "$(sqlite3 s.db "SELECT a.attempt, b.attempt FROM documents a JOIN documents b ON b.id = a.superseded_by ORDER BY a.id")" "1|2
1|2"
expect_exit "history" 0 "$MBENCH" history --db s.db --json h.json
hist=$($PY -c 'import json,sys; h=json.load(open(sys.argv[1])); print(sorted(len(s["points"]) for s in h["series"]), sum(len(s["points"]) for s in h["series"]))' h.json)
contains "history has one point per task: the latest attempt's, never both" "$hist" "[1, 1, 1] 3"
contains "... the slow first attempt neither (its p50 is 1 ms, the latest 2 ms)" "$($PY -c 'import json,sys; print(sorted(round(p["value"] / 1e6) for s in json.load(open(sys.argv[1]))["series"] for p in s["points"]))' h.json)" "[1, 1, 2]"
expect_exit "an older attempt stored late is superseded at once" 0 "$MBENCH" db import --db s.db --git-dir repo late.json
contains "... by the attempt with the higher number" "$(sqlite3 s.db "SELECT b.attempt FROM documents a JOIN documents b ON b.id = a.superseded_by WHERE a.id = (SELECT max(id) FROM documents)")" "2"
git -C repo checkout -q -b feature && git -C repo -c user.email=t@t -c user.name=t commit -q --allow-empty -m two
expect_exit "gate against the store" 0 "$MBENCH" gate --db s.db --against main --current cur.json --git-dir repo --no-store --max-regression p50=20%
contains "... takes the latest attempt as the baseline (2 ms, not the superseded 1 ms)" "$LAST_OUT$LAST_ERR" "p50"
expect_exit "mbench site" 0 "$MBENCH" site --db s.db -o site -q
if [ -n "$(ls site/s/*.html 2>/dev/null)" ] && ! grep -q 'id="point-1"' site/s/*.html; then ok "... one point per series: the latest attempt's"
else notok "... one point per series: the latest attempt's" "$(grep -l 'id="point-1"' site/s/*.html 2>&1 | head -3)"; fi
expect_exit "db export" 0 "$MBENCH" db export --db s.db --json e.json
contains "... writes the current documents only" "$($PY -c 'import json,sys; e=json.load(open(sys.argv[1])); print(len(e["documents"]), sorted(d["document"].get("attempt", {}).get("number", 0) for d in e["documents"]))' e.json)" "3 [0, 2, 2]"
expect_exit "an import of the export" 0 "$MBENCH" db import --db copy.db e.json
contains "... holds the latest attempts, none superseded" "$("$MBENCH" db info --db copy.db)" "superseded: 0"

# ---- an existing store is migrated with its rows intact
sqlite3 v1.db < "$FIX/store/schema_v1.sql"
expect_exit "a version-1 store takes an attempt" 0 "$MBENCH" db import --db v1.db a1.json a2.json
contains "... migrated to version 3" "$(sqlite3 v1.db 'SELECT version FROM schema_version')" "3"
contains "... its old document current, the first attempt superseded" "$(sqlite3 v1.db 'SELECT count(*), count(superseded_by), count(attempt_key) FROM documents')" "3|1|2"
done_testing
