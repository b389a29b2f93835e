#!/usr/bin/env bash
# store_walro.sh - a WAL store whose writer was killed (.db + .db-wal, no
# -shm) in a read-only directory, read as nobody (issue 37): every
# document is read (from a private copy, src/store/sqlite.c), and writing
# there says the real reason.
. "$(dirname "$0")/lib.sh"
if [ "$(id -u)" -ne 0 ] || ! id nobody >/dev/null 2>&1 || ! command -v runuser >/dev/null || ! nobody_can_run; then
    skip "a read-only WAL store is read whole as nobody" "needs root (to act as nobody) and a build nobody can run"
    done_testing
fi
W="$T_TMP/w"; mkdir -p "$W"; chmod 755 "$T_TMP"
for i in $(seq 9); do $MBENCH exec --runs 1 -q --db "$W/s.db" -- true >/dev/null || notok "store $i"; done
# A connection held open keeps the next writers from checkpointing on
# close; killing it leaves the WAL as a killed writer does.
$PY -c "import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1]); c.execute('select count(*) from sqlite_master').fetchall()
print('ready', flush=True); time.sleep(120)" "$W/s.db" >"$T_TMP/py.out" &
holder=$!
for i in $(seq 50); do grep -q ready "$T_TMP/py.out" && break; sleep 0.1; done
for i in $(seq 4); do $MBENCH exec --runs 1 -q --db "$W/s.db" -- true >/dev/null || notok "store $((9 + i))"; done
kill -9 $holder; wait $holder 2>/dev/null
rm -f "$W/s.db-shm"; chmod 555 "$W"
if [ -s "$W/s.db-wal" ] && [ ! -e "$W/s.db-shm" ]; then ok "the store is a .db and a .db-wal, no -shm, in a read-only directory"; else notok "the store is a .db and a .db-wal, no -shm, in a read-only directory" "$(ls -la "$W")"; fi
expect_exit "db info reads it as nobody" 0 runuser -u nobody -- env TMPDIR=/tmp "$MBENCH" db info --db "$W/s.db"
contains "... all 13 documents, the WAL's included" "$LAST_OUT" "documents: 13"
expect_exit "history reads every stored run as nobody" 0 runuser -u nobody -- env TMPDIR=/tmp "$MBENCH" db export --db "$W/s.db" --json -
n=$(printf '%s' "$LAST_OUT" | $PY -c 'import json, sys; d = json.load(sys.stdin); print(len(d) if isinstance(d, list) else len(d.get("documents", d.get("runs", []))))' 2>/dev/null)
contains "db export gives the 13 documents" "n=$n" "n=13"
if [ -z "$(ls /tmp | grep '^mbench-store\.' | while read -r d; do [ "$(stat -c %U "/tmp/$d")" = nobody ] && echo "$d"; done)" ]; then ok "the private copy is removed"; else notok "the private copy is removed" "$(ls -la /tmp | grep mbench-store)"; fi
$MBENCH exec --runs 1 -q --json "$T_TMP/one.json" -- true >/dev/null; chmod 644 "$T_TMP/one.json"
expect_exit "db import there as nobody fails" 3 runuser -u nobody -- "$MBENCH" db import --db "$W/s.db" "$T_TMP/one.json"
contains "... naming the real cause" "$LAST_ERR" "not writable by this user"
one_line "... in one line" "$LAST_ERR"
expect_exit "a read-only TMPDIR too: refused, saying why" 3 runuser -u nobody -- env TMPDIR="$W" "$MBENCH" db info --db "$W/s.db"
contains "... naming the WAL and TMPDIR" "$LAST_ERR" "is a WAL store that this user cannot read in place"
chmod 755 "$W"
done_testing
