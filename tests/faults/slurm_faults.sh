#!/usr/bin/env bash
# slurm_faults.sh - the slow Slurm faults, on a one-node cluster of their
# own (scripts/slurm-local.sh), outside make test: `make test-slurm-faults`
# (docs/SCALE.md).  tests/integration/slurm.sh keeps the quick ones
# (scancel, a failing task, the node set DOWN with the requeued task's
# begin time moved to now, a killed slurmctld).
#  - a task over its time limit (Slurm's shortest is one minute): reported
#    as timed out with Slurm's reason, its run interrupted, resumed after
#    the fix;
#  - slurmd killed past SlurmdTimeout while a task runs: Slurm marks the
#    node down and requeues the task, holds it its ~120 s (BeginTime, not
#    moved here), reruns it; the driver's status matches squeue's all along,
#    the document and the store row are the final attempt's, and the task
#    ran exactly as often as Slurm ran it.
# Takes about 5 minutes.  SKIPs when the cluster cannot start.
. "$(dirname "$0")/../integration/lib.sh"
J() { $PY -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

SD=$(mktemp -d /tmp/mbench-slurm-faults.XXXXXX); chmod 755 "$SD"
export MBENCH_SLURM_PORT=${MBENCH_SLURM_TEST_PORT:-16937} MBENCH_SLURM_DIR="$SD/cluster"
trap '"$MBENCH_ROOT/scripts/slurm-local.sh" stop "$MBENCH_SLURM_DIR"; rm -rf "$SD"' EXIT
if ! out=$("$MBENCH_ROOT/scripts/slurm-local.sh" start 2>&1); then
    skip "a one-node Slurm cluster" "it cannot start here: $(echo "$out" | tail -1)"
    done_testing
fi
ok "scripts/slurm-local.sh start brings up a one-node cluster"
export SLURM_CONF="$MBENCH_SLURM_DIR/slurm.conf" PATH="$PATH:/usr/sbin"
W="$SD/work"; mkdir -p "$W"; cd "$W"
t0=$(date +%s)
say() { echo "# $(( $(date +%s) - t0 )) s: $*"; }

# --- a task over its time limit (the others finish)
cat > tl.csv <<CSV
name,command
ok,true
slow,"sh -c 'test -f $W/fixed || sleep 600'"
CSV
expect_exit "a suite with a one-minute time limit, submitted" 0 $MBENCH suite tl.csv --slurm --share-nodes --no-wait --slurm-dir F --time-limit 1m
contains "the time limit is passed to sbatch" "$(J F/job.json 'd["sbatch"]')" "--time=1"
expect_exit "collect waits for the time limit and reports it (exit 3)" 3 timeout 300 $MBENCH slurm collect F --json f.json --poll 5s
say "time limit reached"
contains "the timed-out task is reported as such" "$LAST_ERR" "task 1 timeout"
contains "... with Slurm's reason" "$LAST_ERR" "exceeded its Slurm time limit"
contains "... and its log's tail" "$LAST_ERR" "DUE TO TIME LIMIT"
contains "the partial document: the finished task, the stopped one" "$(J f.json '[r["status"] for r in d["runs"]]')" "['ok', 'interrupted']"
contains "... the stopped one says why" "$(J f.json 'd["runs"][1]["slurm"].get("stopped")')" "exceeded its Slurm time limit"
touch fixed
expect_exit "resume after the fix" 0 timeout 300 $MBENCH slurm resume F --json r.json --poll 2s
contains "... reruns the timed-out task only" "$LAST_ERR" "resubmitted 1 task(s)"
contains "... both ok now" "$(J r.json '[r["status"] for r in d["runs"]]')" "['ok', 'ok']"

# --- slurmd killed past SlurmdTimeout while a task runs
# the command counts its runs; the first outlives the node's timeout
cat > sk.sh <<SH
echo run >> $W/ran
[ "\$(wc -l < $W/ran)" -gt 1 ] || sleep 120
SH
printf 'name,command\nlong,sh %s/sk.sh\n' "$W" > sk.csv
expect_exit "a task submitted, with --db" 0 $MBENCH suite sk.csv --slurm --no-wait --slurm-dir SK -q
for _ in $(seq 120); do [ -f SK/started/0.json ] && break; sleep 0.5; done
[ -f SK/started/0.json ] && ok "... it runs" || notok "... it runs" "no SK/started/0.json"
job=$(J SK/job.json 'd["jobs"][0]["job_id"]')_0
kill -9 "$(cat "$MBENCH_SLURM_DIR/slurmd.pid")"
say "slurmd killed"
# collect follows it all along; meanwhile status is compared with squeue
timeout 600 $MBENCH slurm collect SK --json sk.json --db sk.sqlite --poll 2s >"$W/sk.out" 2>"$W/sk.err" &
collect=$!
restarted=0 looks=0 bad=() seen=""
for _ in $(seq 300); do
    kill -0 "$collect" 2>/dev/null || break
    # slurmd comes back once Slurm has given up on it (the node is DOWN)
    if [ "$restarted" = 0 ] && sinfo -h -n "$(hostname -s)" -o %t 2>/dev/null | grep -q down; then
        slurmd && restarted=1 && say "node down, slurmd restarted"
    fi
    before=$(squeue -h -j "$job" -o %T 2>/dev/null)
    st=$($MBENCH slurm status SK 2>/dev/null | awk '$1 == "0" { print $2 }')
    after=$(squeue -h -j "$job" -o %T 2>/dev/null)
    case "$before" in PENDING) want=pending ;; RUNNING|COMPLETING|CONFIGURING) want=running ;; *) want="" ;; esac
    if [ -n "$want" ] && [ "$before" = "$after" ]; then
        looks=$((looks + 1))
        [ "$st" = "$want" ] || bad+=("squeue $before, status '$st'")
        [[ "$seen" == *"$want"* ]] || seen="$seen $want"
    fi
    sleep 2
done
wait "$collect"; rc=$?
say "collect ended"
[ "$rc" = 0 ] && ok "collect follows the requeued task to its end (exit 0)" || notok "collect follows the requeued task to its end (exit 0)" "exit $rc" "$(tail -5 "$W/sk.err")"
[ "$restarted" = 1 ] && ok "Slurm marked the node down (SlurmdTimeout)" || notok "Slurm marked the node down (SlurmdTimeout)"
if [ "${#bad[@]}" = 0 ] && [ "$looks" -ge 5 ]; then ok "slurm status matched squeue at each of $looks looks ($seen)"
else notok "slurm status matched squeue at each look" "$looks looks" "${bad[@]}"; fi
contains "... and said the task was requeued" "$(cat "$W/sk.err")" "requeued"
restarts=$(scontrol -o show job "$job" 2>/dev/null | grep -o 'Restarts=[0-9]*' | cut -d= -f2)
contains "the document is the final attempt's (ok, restarts as Slurm counts them)" "$(J sk.json '[(r["status"], r["slurm"]["restarts"]) for r in d["runs"]]')" "[('ok', ${restarts:-1})]"
# the task's command counts its own runs
runs=$(wc -l < ran)
[ "$runs" = $(( ${restarts:-1} + 1 )) ] && ok "the task ran as often as Slurm ran it ($runs)" || notok "the task ran as often as Slurm ran it" "runs: $runs" "Slurm restarts: $restarts"
contains "... each attempt's start record kept" "$(ls SK/started)" "0.json.${job%_0}.r0"
contains "--db holds the final attempt only, ok" "$(sqlite3 sk.sqlite "select count(*), group_concat(r.status) from runs r join documents d on d.id = r.document_id where d.superseded_by is null" 2>&1)" "1|ok"
say "done"
done_testing
