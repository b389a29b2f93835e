#!/usr/bin/env bash
# secrets.sh - one redaction for every string that leaves mbench (issue
# 37, src/core/redact.c): a password in a command exec runs never reaches
# its JSON, CSV, Markdown, HTML, store or console; passwords holding / ? #
# @ unencoded are hidden whole, also in libpq's errors; /proc/PID/cmdline
# of mbench and its guardian is masked; --db env:NAME keeps the
# connection string out of argv.
. "$(dirname "$0")/lib.sh"
PW='Zq9x/y?z#w@v'
URL="postgresql://u:$PW@127.0.0.1:1/db"
cd "$T_TMP"
expect_exit "exec runs a command holding a database URL" 0 $MBENCH exec --runs 2 --json r.json --csv r.csv --md r.md --html r.html --db r.db -- sh -c 'exit 0' "$URL"
console="$LAST_OUT$LAST_ERR"
leak=$(grep -l -F 'Zq9x' r.json r.csv r.md r.html; sqlite3 r.db .dump 2>/dev/null | grep -c -F 'Zq9x' | grep -v '^0$')
if [ -z "$leak" ]; then ok "no document, report or store row holds the password"; else notok "no document, report or store row holds the password" "$leak"; fi
if [[ "$console" != *Zq9x* ]]; then ok "nor the console"; else notok "nor the console" "$console"; fi
contains "the command is shown with the password hidden" "$($PY -c 'import json; print(json.load(open("r.json"))["runs"][0]["command"])')" "postgresql://u:***@127.0.0.1:1/db"
expect_exit "a failing command's error line" 3 $MBENCH exec --runs 1 -- sh -c 'echo "cannot reach $0" >&2; exit 1' "$URL"
if [[ "$LAST_ERR" != *Zq9x* ]] && [[ "$LAST_ERR" == *"u:***@"* ]]; then ok "... hides the password its stderr echoed"; else notok "... hides the password its stderr echoed" "$LAST_ERR"; fi
expect_exit "--db with an unencoded / ? # @ in the password fails to connect" 3 $MBENCH exec --runs 1 --db "$URL" -- true
if [[ "$LAST_ERR" != *Zq9x* ]] && [[ "$LAST_ERR" != *"y?z"* ]] && [[ "$LAST_ERR" == *'port 1 failed'* ]]; then ok "... and says so without any piece of it (libpq got it encoded)"; else notok "... and says so without any piece of it (libpq got it encoded)" "$LAST_ERR"; fi
export MBENCH_TEST_DB="$URL"
expect_exit "--db env:NAME reads the connection string from the environment" 3 $MBENCH exec --runs 1 --db env:MBENCH_TEST_DB -- true
contains "... and connects to it" "$LAST_ERR" "cannot connect to PostgreSQL at postgresql://u:***@127.0.0.1:1/db"
expect_exit "--db env:NAME of an unset variable is a usage error" 2 $MBENCH exec --runs 1 --db env:MBENCH_NO_SUCH_VAR -- true
contains "... naming it" "$LAST_ERR" "the environment variable MBENCH_NO_SUCH_VAR is not set"
printf 'experiment,url\nx,%s\n' "$URL" > t.csv
expect_exit "a suite whose table holds a database URL" 0 $MBENCH suite t.csv --command "sh -c 'exit 0' {url}" --runs 1 -o s.json --csv s.csv --md s.md --html s.html --db s.db
leak=$(grep -l -F 'Zq9x' s.json s.csv s.md s.html; sqlite3 s.db .dump 2>/dev/null | grep -c -F 'Zq9x' | grep -v '^0$')
if [ -z "$leak" ] && [[ "$LAST_OUT$LAST_ERR" != *Zq9x* ]]; then ok "... shows it nowhere (variant, task row, command, store, console)"; else notok "... shows it nowhere (variant, task row, command, store, console)" "$leak" "$LAST_OUT"; fi
$MBENCH exec --runs 1 -q -- sh -c 'sleep 2' "$URL" >/dev/null 2>&1 &
m=$!
for i in $(seq 50); do g=$(pgrep -P $m -x mbench-guard) && break; sleep 0.1; done
g=${g:-none}; cm=$(tr '\0' ' ' </proc/$m/cmdline 2>/dev/null); cg=$(tr '\0' ' ' </proc/$g/cmdline 2>/dev/null)
if [[ "$cm" == *"u:*"*"@127.0.0.1"* ]] && [[ "$cm" != *Zq9x* ]] && [ "$g" != none ] && [[ "$cg" != *Zq9x* ]]; then ok "/proc/PID/cmdline of mbench and its guardian hold no password"; else notok "/proc/PID/cmdline of mbench and its guardian hold no password" "mbench: $cm" "guardian: $cg"; fi
wait $m
done_testing
