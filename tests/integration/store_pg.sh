#!/usr/bin/env bash
# store_pg.sh - the results store on a real PostgreSQL server: Debian's
# server binaries (scripts/deps.sh test installs them) run a throw-away
# cluster on 127.0.0.1 at a free port with its socket in a temp dir; the
# same put/history/gate/export checks as store.sh go through postgresql://
# URLs.  initdb refuses root, so as root the cluster runs as the
# 'postgres' user.  Skips, saying why, only when the server cannot start.
. "$(dirname "$0")/lib.sh"

MK="$PY $FIX/store/make_doc.py"
cd "$T_TMP" || exit 1

skip_all() { skip "PostgreSQL store tests" "$1"; done_testing; }

initdb=$(ls /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -n 1)
[ -n "$initdb" ] || skip_all "no PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb; install 'postgresql')"
bindir=$(dirname "$initdb")
as_pg=()
PGROOT=$(mktemp -d /tmp/mbench-pg.XXXXXX)
if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 || skip_all "running as root and there is no 'postgres' user to run the server"
    chown postgres "$PGROOT"
    as_pg=(runuser -u postgres --)
fi
port=$($PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
stop_pg() { "${as_pg[@]}" "$bindir/pg_ctl" -D "$PGROOT/data" -m immediate stop >/dev/null 2>&1; rm -rf "$PGROOT"; }
trap stop_pg EXIT
if ! "${as_pg[@]}" "$initdb" -D "$PGROOT/data" -A trust -U mbench --no-sync >"$T_TMP/initdb.log" 2>&1; then
    skip_all "initdb failed: $(tail -n 1 "$T_TMP/initdb.log")"
fi
if ! "${as_pg[@]}" "$bindir/pg_ctl" -D "$PGROOT/data" -l "$PGROOT/server.log" -w -t 60 \
        -o "-p $port -k $PGROOT -c listen_addresses=127.0.0.1 -F" start >/dev/null 2>&1; then
    skip_all "the server did not start: $(tail -n 2 "$PGROOT/server.log" 2>/dev/null | tr '\n' ' ')"
fi
URL="postgresql://mbench@127.0.0.1:$port/postgres"
ok "a throw-away PostgreSQL server runs on 127.0.0.1:$port"

$MK base.json --seed 1
$MK same.json --seed 2
$MK slow.json --seed 3 --median-ns 2e6

expect_exit "documents are stored in PostgreSQL" 0 "$MBENCH" db import --db "$URL" base.json same.json
expect_exit "storing a document again is harmless" 0 "$MBENCH" db import --db "$URL" base.json
contains "a stored document is not stored twice" "$LAST_OUT" "(0 new, 1 already there)"
info=$("$MBENCH" db info --db "$URL")
contains "PostgreSQL holds one row per run" "$info" "runs: 2"
contains "PostgreSQL keeps the raw samples" "$info" "run_samples: 2"

for i in $(seq 1 12); do
    med=1e6; [ "$i" -gt 6 ] && med=1.25e6
    $MK "h$i.json" --seed "$((100 + i))" --median-ns "$med" --created "2026-11-$(printf %02d "$i")T00:00:00Z" --model h.onnx
done
"$MBENCH" db import --db "$URL" h{1..12}.json >/dev/null
expect_exit "history reads PostgreSQL" 0 "$MBENCH" history --db "$URL" --model h.onnx
contains "history finds the planted step in PostgreSQL" "$(echo "$LAST_OUT" | grep 'change point')" "     7  2026-11-07"
expect_exit "site reads PostgreSQL" 0 "$MBENCH" site --db "$URL" --out pgsite --no-git
check "the site of PostgreSQL has the planted step at the 7th result" $PY -c '
import json; d = json.load(open("pgsite/regressions.json"))
c = [e for e in d["entries"] if e["type"] == "change_point" and e["series"]["model"] == "h.onnx" and e["series"]["metric"] == "p50"]
assert len(c) == 1 and c[0]["date"].startswith("2026-11-07") and c[0]["direction"] == "regression", c'
"$MBENCH" db export --db "$URL" --to pgcopy.db >/dev/null
"$MBENCH" site --db pgcopy.db --out sqlsite --no-git -q
# The same entries; figures to 1e-9 (SQLite hands REAL columns back with 15
# significant digits, PostgreSQL with the shortest exact text).
check "PostgreSQL and its SQLite copy give the same regressions.json" $PY -c '
import json, math
def same(a, b):
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-9)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(same, a, b))
    return a == b
assert same(json.load(open("pgsite/regressions.json")), json.load(open("sqlsite/regressions.json")))'

mkdir repo && git -C repo init -q -b main && git -C repo -c user.email=t@t -c user.name=t commit -q --allow-empty -m one
c1=$(git -C repo rev-parse HEAD)
"$MBENCH" db import --db "$URL" --git-dir repo "$($MK g.json --seed 11 >/dev/null; echo g.json)" >/dev/null
git -C repo checkout -q -b feature && git -C repo -c user.email=t@t -c user.name=t commit -q --allow-empty -m two
expect_exit "gate --against main takes its baseline from PostgreSQL" 1 "$MBENCH" gate --db "$URL" --against main --current slow.json --git-dir repo
contains "the PostgreSQL baseline names the branch and commit" "$LAST_OUT" "postgresql@main (commit ${c1:0:12})"
expect_exit "gate --against a commit prefix works on PostgreSQL" 0 "$MBENCH" gate --db "$URL" --against "${c1:0:10}" --current same.json --git-dir repo --no-store --max-regression p50=20%

expect_exit "PostgreSQL exports to a SQLite store" 0 "$MBENCH" db export --db "$URL" --to copy.db
docs_pg=$("$MBENCH" db info --db "$URL" | sed -n 's/^documents: //p')
docs_lite=$("$MBENCH" db info --db copy.db | sed -n 's/^documents: //p')
[ -n "$docs_pg" ] && [ "$docs_pg" = "$docs_lite" ] && ok "the SQLite copy has every PostgreSQL document" || notok "the SQLite copy has every PostgreSQL document" "pg $docs_pg, sqlite $docs_lite"

$PY - <<'EOF'
import json
base = json.load(open("base.json"))
for w in range(4):
    for i in range(10):
        base["created_utc"] = "2026-12-01T%02d:%02d:00Z" % (w, i)
        json.dump(base, open("c_%d_%d.json" % (w, i), "w"))
EOF
before=$("$MBENCH" db info --db "$URL" | sed -n 's/^runs: //p')
for w in 0 1 2 3; do
    ( for i in $(seq 0 9); do "$MBENCH" db import --db "$URL" "c_${w}_$i.json" >/dev/null || echo "writer $w insert $i failed" >> conc.err; done ) &
done
wait
after=$("$MBENCH" db info --db "$URL" | sed -n 's/^runs: //p')
[ $((after - before)) -eq 40 ] && [ ! -s conc.err ] && ok "4 concurrent writers x 10 inserts add exactly 40 runs" \
    || notok "4 concurrent writers x 10 inserts add exactly 40 runs" "before $before after $after" "$(head -3 conc.err 2>/dev/null)"

# ---- a libpq keyword/value string with a password: PostgreSQL, never a file
# A role that must give its password (SCRAM) over TCP; the rest stays trust.
SECRET="pw$($PY -c 'import secrets; print(secrets.token_hex(12))')"
psql_=("$bindir/psql" -X -q -v ON_ERROR_STOP=1 -d "$URL")
"${psql_[@]}" -c "CREATE ROLE mbsecret LOGIN SUPERUSER PASSWORD '$SECRET'" >/dev/null
{ echo "host all mbsecret 127.0.0.1/32 scram-sha-256"; cat "$PGROOT/data/pg_hba.conf"; } > "$T_TMP/hba"
cat "$T_TMP/hba" > "$PGROOT/data/pg_hba.conf"
"${as_pg[@]}" "$bindir/pg_ctl" -D "$PGROOT/data" reload >/dev/null 2>&1
"${psql_[@]}" -c "SELECT pg_reload_conf()" >/dev/null
KW="host=127.0.0.1 port=$port dbname=postgres user=mbsecret password=$SECRET"
# Everything the runs may write is under $W: working directory, TMPDIR,
# HOME and the --outdir.
W=$(mktemp -d "$T_TMP/secret.XXXXXX"); mkdir -p "$W/cwd" "$W/tmp" "$W/home" "$W/out"
touch "$T_TMP/marker"
docs0=$("$MBENCH" db info --db "$URL" | sed -n 's/^documents: //p')
secret_run() { ( cd "$W/cwd" && TMPDIR="$W/tmp" HOME="$W/home" "$@" ); }
LAST_OUT=$(secret_run "$MBENCH" run none --backend null --processes 2 --iterations 20 --warmup 1 --quiet \
    --db "$KW" --outdir "$W/out" --json "$W/out/r.json" 2>"$T_TMP/stderr"); rc=$?; LAST_ERR=$(cat "$T_TMP/stderr")
[ $rc -eq 0 ] && ok "run --db 'host=... password=...' succeeds" || notok "run --db 'host=... password=...' succeeds" "exit $rc" "$LAST_ERR"
docs1=$("$MBENCH" db info --db "$URL" | sed -n 's/^documents: //p')
[ -n "$docs0" ] && [ "$docs1" = $((docs0 + 1)) ] && ok "the keyword connection string stored the result in PostgreSQL" \
    || notok "the keyword connection string stored the result in PostgreSQL" "documents before $docs0, after $docs1"
expect_exit "history reads through the keyword connection string" 0 secret_run "$MBENCH" history --db "$KW"
expect_exit "db info reads through the keyword connection string" 0 secret_run "$MBENCH" db info --db "$KW"
contains "db info names PostgreSQL with the password hidden" "$LAST_OUT" "password=*** (postgresql)"
expect_exit "a wrong password in a keyword string fails" 3 secret_run "$MBENCH" run none --backend null --processes 2 --iterations 20 --warmup 1 --quiet \
    --db "host=127.0.0.1 port=$port dbname=postgres user=mbsecret password=wrong${SECRET}x"
contains "the wrong password is reported by the server" "$LAST_ERR" "password authentication failed"
expect_exit "a keyword string to a dead server fails clearly" 3 secret_run "$MBENCH" db info --db "host=127.0.0.1 port=1 dbname=x user=u password=$SECRET"
contains "the dead server is named" "$LAST_ERR" "cannot connect to PostgreSQL at host=127.0.0.1 port=1 dbname=x user=u password=***"
if [[ "$LAST_ERR$LAST_OUT" == *"$SECRET"* ]]; then notok "no message shows the password" "$LAST_ERR"; else ok "no message shows the password"; fi
# The secret in no file name and no file content anywhere the runs could
# write, nor in any file changed since they started in the shared temp dirs
# (but the test runner's own TAP log, which holds this script's output).
names=$(find "$W" /tmp /var/tmp /dev/shm -xdev -name "*$SECRET*" 2>/dev/null | head -5)
[ -z "$names" ] && ok "no file anywhere is named with the password" || notok "no file anywhere is named with the password" "$names"
hits=$(grep -rlF -- "$SECRET" "$W" 2>/dev/null | head -5)
hits+=$(find /tmp /var/tmp /dev/shm -xdev -type f -newer "$T_TMP/marker" -size -64M 2>/dev/null | grep -Ev "^${MBENCH_TEST_TMP:-/nonexistent}/(out\.[0-9]+|all\.log)$" | xargs -r grep -lF -- "$SECRET" 2>/dev/null | head -5)
[ -z "$hits" ] && ok "no file holds the password (cwd, TMPDIR, HOME, outdir, /tmp)" || notok "no file holds the password (cwd, TMPDIR, HOME, outdir, /tmp)" "$hits"
[ -n "$(ls "$W/out")" ] && [ -z "$(ls -A "$W/cwd")" ] && ok "the run wrote its --outdir set and nothing into its working directory" \
    || notok "the run wrote its --outdir set and nothing into its working directory" "out: $(ls "$W/out" | tr '\n' ' ')" "cwd: $(ls -A "$W/cwd" | tr '\n' ' ')"
n=$("${psql_[@]}" -At -c "SELECT count(*) FROM documents WHERE doc LIKE '%$SECRET%' OR command_line LIKE '%$SECRET%'")
[ "$n" = 0 ] && ok "no stored document holds the password" || notok "no stored document holds the password" "$n documents"
contains "the stored command line shows the password as ***" "$("${psql_[@]}" -At -c "SELECT command_line FROM documents ORDER BY id DESC LIMIT 1")" "password=***"

"${as_pg[@]}" "$bindir/pg_ctl" -D "$PGROOT/data" -m fast stop >/dev/null 2>&1
expect_exit "an unreachable PostgreSQL server is a runtime error" 3 "$MBENCH" db info --db "$URL"
contains "the unreachable server is named with a hint" "$LAST_ERR" "cannot connect to PostgreSQL at postgresql://mbench@127.0.0.1:$port/postgres: connection to server"
one_line "the unreachable server error is one line" "$LAST_ERR"

done_testing
