#!/usr/bin/env bash
# gate_cpus.sh - gate refuses to compare runs measured on different CPU
# models (documents from two machines, or a suite whose Slurm tasks ran on
# different nodes) unless --allow-mixed-cpus.
. "$(dirname "$0")/lib.sh"
cd "$T_TMP"
$MBENCH exec --runs 3 -q --json a.json -- true >/dev/null 2>&1
$MBENCH exec --runs 3 -q --json b.json -- true >/dev/null 2>&1
# judged: a verdict (0 pass, 1 regression, 4 inconclusive), not refused
judged() { local n=$1; shift; "$@" >/dev/null 2>"$T_TMP/err"; local rc=$?
    case $rc in 0|1|4) ok "$n" ;; *) notok "$n" "exit $rc" "$(cat "$T_TMP/err")" ;; esac; }
judged "gate of two documents of this machine gives a verdict" $MBENCH gate --baseline a.json --current b.json -q
$PY - <<'PY'
import json
d = json.load(open("b.json")); d["environment"]["cpu_model"] = "Other CPU 9000"; json.dump(d, open("other.json", "w"))
d = json.load(open("b.json")); d["runs"][0]["slurm"] = {"cpu_model": "Node CPU 42"}; json.dump(d, open("node.json", "w"))
PY
expect_exit "gate refuses documents of different CPU models (exit 3)" 3 $MBENCH gate --baseline a.json --current other.json
one_line "... in one line" "$LAST_ERR"
contains "... naming both models" "$LAST_ERR" "'Other CPU 9000' in other.json"
contains "... and the way out" "$LAST_ERR" "--allow-mixed-cpus"
expect_exit "a run's Slurm node CPU model counts too" 3 $MBENCH gate --baseline a.json --current node.json
contains "... named" "$LAST_ERR" "Node CPU 42"
judged "--allow-mixed-cpus judges them anyway" $MBENCH gate --baseline a.json --current other.json --allow-mixed-cpus -q

# history: one series whose stored results come from two CPU models
$MBENCH exec --runs 3 -q --db h.sqlite -n t -- true >/dev/null 2>&1
$MBENCH exec --runs 3 -q --db h.sqlite -n t -- true >/dev/null 2>&1
expect_exit "history of one CPU model shows its series" 0 $MBENCH history --db h.sqlite
sqlite3 h.sqlite "update documents set env_cpu_model = 'Other CPU 9000' where id = (select max(id) from documents)"
expect_exit "history refuses a series of two CPU models (exit 3)" 3 $MBENCH history --db h.sqlite
one_line "... in one line" "$LAST_ERR"
contains "... naming the series and the models" "$LAST_ERR" "'Other CPU 9000'"
expect_exit "history --allow-mixed-cpus shows it" 0 $MBENCH history --db h.sqlite --allow-mixed-cpus
done_testing
