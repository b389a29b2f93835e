#!/usr/bin/env bash
# Models at a large fraction of a second per inference (a Python framework
# on ResNet-50 here) must not make the defaults take minutes: the default
# warmup stops after 2 s, at least one iteration (a count given is run in full), and --max-time
# bounds a variant whose iterations outlast the 50 ms slots even when
# --min-iterations asks for more.  The null backend busy-waits delay=NS
# per inference, so the timings are known.
. "$(dirname "$0")/lib.sh"
SLOW=(x --backend null --backend-opt delay=500000000)
warm() { $PY -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"][0]; print(r["phases"]["warmup_iters"])' "$1"; }
expect_exit "a 0.5 s model with the default warmup" 0 \
    "$MBENCH" run "${SLOW[@]}" --processes 1 --iterations 1 --json "$T_TMP/a.json"
contains "warms up 4 times (2 s), not 10" "$(warm "$T_TMP/a.json")" "4"
expect_exit "and with --warmup 5" 0 \
    "$MBENCH" run "${SLOW[@]}" --processes 1 --iterations 1 --warmup 5 --json "$T_TMP/b.json"
contains "warms up the 5 times asked for" "$(warm "$T_TMP/b.json")" "5"
expect_exit "in processes of their own, the default warmup stops as well" 0 \
    "$MBENCH" run "${SLOW[@]}" --processes 2 --iterations 2 --json "$T_TMP/c.json"
contains "4 warmup iterations in the first process" "$(warm "$T_TMP/c.json")" "4"
expect_exit "--max-time 1s bounds a 0.3 s model despite the default 100 minimum iterations" 0 \
    "$MBENCH" run x --backend null --backend-opt delay=300000000 --processes 2 --warmup 1 \
    --max-time 1s --min-time 0.1s --json "$T_TMP/d.json"
check "each process measured within its share of max-time (1 or 2 iterations, not 50)" \
    $PY -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"][0]; n=r["replication"]["samples_per_process"]; assert n and all(1 <= k <= 2 for k in n), n' "$T_TMP/d.json"
done_testing
