#!/usr/bin/env bash
# slurm.sh - suite --slurm on a real one-node Slurm cluster
# (scripts/slurm-local.sh): a 10-task matrix through Slurm equals the same
# matrix run locally; compare --slurm and run --slurm give documents of
# their kind shaped like the local ones; a failing task, one that exceeds its time limit and a
# cancelled one are reported with their reason and log and only those are
# resubmitted; a task requeued by Slurm (its node set DOWN) is followed to
# its final attempt; a killed slurmctld is reported, not waited on.  SKIPs
# when the cluster cannot start (not root, Slurm or munge not installed).
# The slow faults (a one-minute time limit, slurmd killed past
# SlurmdTimeout, Slurm's own 120 s hold on a requeued task) are in
# tests/faults/slurm_faults.sh (make test-slurm-faults, docs/SCALE.md).
. "$(dirname "$0")/lib.sh"
J() { $PY -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

# The cluster's files live in a directory the munge user can enter.
SD=$(mktemp -d /tmp/mbench-slurm-test.XXXXXX); chmod 755 "$SD"
export MBENCH_SLURM_PORT=${MBENCH_SLURM_TEST_PORT:-16927} MBENCH_SLURM_DIR="$SD/cluster"
trap '"$MBENCH_ROOT/scripts/slurm-local.sh" stop "$MBENCH_SLURM_DIR"; rm -rf "$SD"' EXIT
if ! out=$("$MBENCH_ROOT/scripts/slurm-local.sh" start 2>&1); then
    skip "a one-node Slurm cluster" "it cannot start here: $(echo "$out" | tail -1)"
    done_testing
fi
ok "scripts/slurm-local.sh start brings up a one-node cluster"
export SLURM_CONF="$MBENCH_SLURM_DIR/slurm.conf"
W="$SD/work"; mkdir -p "$W"; cd "$W"

# --- failures first (no-wait): its long task is cancelled with scancel, as
# a user would, once collect --no-wait has seen it run
cat > fail.csv <<CSV
name,command
ok,true
bad,"sh -c 'test -f $W/fixed || { echo broken input >&2; exit 4; }'"
slow,"sh -c 'test -f $W/fixed || sleep 600'"
CSV
expect_exit "suite --slurm --no-wait returns once submitted" 0 $MBENCH suite fail.csv --slurm --share-nodes --no-wait --slurm-dir F --time-limit 30m
contains "it names the job and how to go on" "$LAST_ERR$LAST_OUT" "mbench slurm status"
contains "the time limit is passed to sbatch" "$(J F/job.json 'd["sbatch"]')" "--time=30"
contains "... with the requeue policy, explicit" "$(J F/job.json 'd["sbatch"]')" "--requeue"
contains "... and --share-nodes as --oversubscribe" "$(J F/job.json 'd["sbatch"]')" "--oversubscribe"
expect_exit "collect --no-wait while tasks run" 0 $MBENCH slurm collect F --no-wait --json fnw.json
if echo "$LAST_ERR" | grep -q "task 2 FAILED"; then notok "... does not call the running task FAILED" "$LAST_ERR"; else ok "... does not call the running task FAILED"; fi
contains "... and says it still runs" "$LAST_ERR" "pending or running"
for _ in $(seq 120); do [ -f F/started/2.json ] && break; sleep 0.5; done
scancel "$(J F/job.json 'd["jobs"][0]["job_id"]')_2"

# --- the sbatch options mbench controls are refused, naming the option
for w in "--array=0-2%1:--throttle" "--output=x.log:--slurm-output" "--job-name=x:--job-name" "--parsable:mbench reads the job id"; do
    expect_exit "--sbatch=${w%%:*} is refused" 2 $MBENCH suite fail.csv --slurm --sbatch="${w%%:*}" --slurm-dir R
    contains "... naming ${w#*:}" "$LAST_ERR" "${w#*:}"
done
[ ! -e R/job.json ] && ok "... and leaves no job behind" || notok "... and leaves no job behind"
expect_exit "a failed sbatch (no such partition) exits 3" 3 $MBENCH suite fail.csv --slurm --partition nosuch --slurm-dir B -q
expect_exit "... and leaves a directory that can be used again" 0 $MBENCH suite fail.csv --slurm --share-nodes --no-wait --slurm-dir B -q
$MBENCH slurm cancel B -q >/dev/null 2>&1

# --- a 10-task matrix, through Slurm and locally
{ echo "net,size"; for i in $(seq 0 9); do echo "m$((i % 5)),$((i / 5))"; done; } > m20.csv
expect_exit "a 10-task suite through Slurm: submitted, followed, collected" 0 \
    $MBENCH suite m20.csv --command 'true {net} {size}' --slurm --share-nodes --slurm-dir S20 -o slurm.json --db s.sqlite
contains "each task is reported as it finishes" "$LAST_ERR" "[10/10] task"
expect_exit "the same suite locally" 0 $MBENCH suite m20.csv --command 'true {net} {size}' -o local.json -q
KEY='[(r["task"]["index"], r["task"]["row"], r["status"], r["command"]) for r in d["runs"]]'
if [ "$(J slurm.json "$KEY")" = "$(J local.json "$KEY")" ] && [ "$(J slurm.json 'len(d["runs"])')" = 10 ]; then
    ok "the merged Slurm document has the local run's 10 tasks, in order"
else notok "the merged Slurm document has the local run's 10 tasks, in order" "slurm: $(J slurm.json "$KEY")" "local: $(J local.json "$KEY")"; fi
contains "the merged document is whole (not sharded, not incomplete)" "$(J slurm.json '(d["suite"]["shard"], d.get("incomplete", False), len(d["merged_from"]))')" "(None, False, 10)"
contains "each run records its node, CPU model and job id" "$(J slurm.json 'all(r["slurm"]["node"] and r["slurm"]["cpu_model"] and r["slurm"]["job_id"] and r["slurm"]["array_job_id"] for r in d["runs"])')" "True"
contains "the array task ids are the task indices" "$(J slurm.json '[int(r["slurm"]["array_task_id"]) for r in d["runs"]] == list(range(10))')" "True"
contains "--db holds all 10 tasks, one document each" "$(sqlite3 s.sqlite 'select count(*), count(distinct document_id) from runs' 2>&1)" "10|10"
expect_exit "merge of the job's shard files gives the same tasks" 0 $MBENCH merge S20/shard-*.json -o merged.json
contains "... equal to the local run" "$([ "$(J merged.json "$KEY")" = "$(J local.json "$KEY")" ] && echo same)" "same"

# --- suite --compare through Slurm: one array task per comparison, its
# variants measured together in rounds
cat > cmp.csv <<CSV
experiment,variant,command
e1,a,sh -c 'echo e1-a >> $W/order'
e1,b,sh -c 'echo e1-b >> $W/order'
e2,a,sh -c 'echo e2-a >> $W/order'
e2,b,sh -c 'echo e2-b >> $W/order'
CSV
expect_exit "suite --compare --slurm" 0 $MBENCH suite cmp.csv --compare --runs 2 --slurm --slurm-dir SC -o sc.json
contains "... one array task per comparison" "$LAST_ERR" "2 task(s) as array 0-1"
contains "... each task measured its comparison in rounds" "$(J sc.json '[(r["variant"], r["slurm"]["array_task_id"], r["interleaved"]) for r in d["runs"]]')" "[('e1 variant=a', '0', {'tasks': [0, 1], 'rounds': 2}), ('e1 variant=b', '0', {'tasks': [0, 1], 'rounds': 2}), ('e2 variant=a', '1', {'tasks': [2, 3], 'rounds': 2}), ('e2 variant=b', '1', {'tasks': [2, 3], 'rounds': 2})]"
contains "... as the order of the runs shows" "$(sort order | uniq -c | awk '{print $1}' | tr '\n' ' ')" "2 2 2 2"
contains "... a, b, a, b in each comparison" "$(grep e1 order | tr '\n' ' ')" "e1-a e1-b e1-a e1-b"
contains "... the comparison: interleaved pairs, one CPU model, no warning" "$(J sc.json '[([e["interleaved"] for e in g["entries"]], len(g["cpu_models"]), "warning" in g) for g in d["comparison"]["groups"]]')" "[([True], 1, False), ([True], 1, False)]"

# --- compare and run through Slurm: one array task per batch size, the
# documents of their kind shaped like the local ones (the real digits model)
MOD="$MBENCH_ROOT/models"
FAST=(--processes 3 --iterations 40 --warmup 2)
V=(a="$MOD/digits_fp32.onnx" b="$MOD/digits_int8.onnx")
expect_exit "compare --slurm over two batch sizes (--require judged on the whole: exit 6)" 6 \
    $MBENCH compare "${V[@]}" "${FAST[@]}" --batch 1,4 --require 'speedup>=100' --slurm --slurm-dir CMP --json cs.json --md cs.md --db c.sqlite
contains "... as two array tasks" "$LAST_ERR" "2 task(s) as array 0-1"
contains "... the table is printed" "$LAST_OUT" "batch 4"
expect_exit "the same compare locally" 6 $MBENCH compare "${V[@]}" "${FAST[@]}" --batch 1,4 --require 'speedup>=100' -q --json cl.json
SHAPE='(d["kind"], sorted(k for k in d if k != "slurm"), [(r["variant"], r["batch_size"]) for r in d["runs"]], [c["batch_size"] for c in d["comparisons"]], [sorted(c) for c in d["comparisons"]], len(d["requirements"]))'
if [ "$(J cs.json "$SHAPE")" = "$(J cl.json "$SHAPE")" ]; then ok "the Slurm compare document has the local one's shape, runs and comparisons"
else notok "the Slurm compare document has the local one's shape, runs and comparisons" "slurm: $(J cs.json "$SHAPE")" "local: $(J cl.json "$SHAPE")"; fi
contains "... each run with its node, CPU model and job id, A/B pairs in one task" "$(J cs.json '[(r["slurm"]["array_task_id"], bool(r["slurm"]["node"] and r["slurm"]["cpu_model"] and r["slurm"]["job_id"])) for r in d["runs"]]')" "[('0', True), ('0', True), ('1', True), ('1', True)]"
contains "... its command line is the one typed" "$(J cs.json 'd["command_line"]')" "--slurm"
contains "--md is written" "$(cat cs.md 2>&1)" "compare"
contains "--db holds the compare document" "$(sqlite3 c.sqlite 'select count(distinct document_id), count(*) from runs' 2>&1)" "1|4"
expect_exit "compare --slurm --no-wait with one batch size" 0 $MBENCH compare "${V[@]}" "${FAST[@]}" --slurm --no-wait --slurm-dir CMP1 -q
contains "... is one array task (the whole compare)" "$(J CMP1/job.json '(d["n_tasks"], "task_args" in d)')" "(1, False)"
expect_exit "slurm collect of a compare job" 0 $MBENCH slurm collect CMP1 -q --json c1.json
contains "... gives a compare document" "$(J c1.json '(d["kind"], len(d["comparisons"]), len(d["runs"]))')" "('compare', 1, 2)"
expect_exit "run --slurm over two batch sizes" 0 $MBENCH run "$MOD/digits_fp32.onnx" "${FAST[@]}" --batch 1,4 --slurm --slurm-dir RUN -q --json rs.json
expect_exit "the same run locally" 0 $MBENCH run "$MOD/digits_fp32.onnx" "${FAST[@]}" --batch 1,4 -q --json rl.json
RSHAPE='(d["kind"], sorted(k for k in d if k != "slurm"), [r["batch_size"] for r in d["runs"]], [sorted(k for k in r if k != "slurm") for r in d["runs"]])'
if [ "$(J rs.json "$RSHAPE")" = "$(J rl.json "$RSHAPE")" ]; then ok "the Slurm run document has the local one's shape and batch sizes"
else notok "the Slurm run document has the local one's shape and batch sizes" "slurm: $(J rs.json "$RSHAPE")" "local: $(J rl.json "$RSHAPE")"; fi
contains "... one array task per batch size" "$(J rs.json '[r["slurm"]["array_task_id"] for r in d["runs"]]')" "['0', '1']"
expect_exit "run --slurm --resume with nothing left" 0 $MBENCH run "$MOD/digits_fp32.onnx" --slurm --resume --slurm-dir RUN -q --json rr.json
contains "... collects the same two runs" "$(J rr.json '[r["batch_size"] for r in d["runs"]]')" "[1, 4]"

# --- the failing task and the one cancelled with scancel
expect_exit "slurm status answers while the job runs" 0 $MBENCH slurm status F
contains "status shows the failed task's reason" "$LAST_OUT" "exit 4"
expect_exit "collect reports the failed and the cancelled task (exit 3)" 3 timeout 240 $MBENCH slurm collect F --json f.json --poll 2s
contains "the failed task is reported with its error" "$LAST_ERR" "task 1 FAILED"
contains "... and the program's stderr" "$LAST_ERR" "broken input"
contains "the scancelled task is reported as cancelled" "$LAST_ERR" "task 2 cancelled"
contains "each with its log" "$LAST_ERR" "log: $W/F/logs/2-"
contains "the tail of the log is shown" "$LAST_ERR" "CANCELLED"
contains "and how to resubmit them" "$LAST_ERR" "mbench slurm resume"
# Slurm stops the cancelled task with SIGTERM: its run is interrupted (not
# failed: nothing went wrong in the program itself), whichever of the suite
# and its command the signal reached first.
contains "the partial document: the finished task, the failed one, the stopped one" "$(J f.json '[r["status"] for r in d["runs"]]')" "['ok', 'failed', 'interrupted']"
contains "... the stopped one says why" "$(J f.json 'd["runs"][2]["slurm"].get("stopped")')" "cancelled"
first_job=$(J F/job.json 'd["task_jobs"][0]')
touch fixed
expect_exit "resume resubmits and collects" 0 $MBENCH slurm resume F --json r.json
contains "only the two unfinished tasks are resubmitted" "$LAST_ERR" "resubmitted 2 task(s)"
contains "all three tasks are ok now" "$(J r.json '[r["status"] for r in d["runs"]]')" "['ok', 'ok', 'ok']"
contains "the finished task kept its first job; the others ran again" "$(J r.json '[(r["slurm"]["attempt"]) for r in d["runs"]]')" "[1, 2, 2]"
contains "... its job id unchanged" "$(J F/job.json 'd["task_jobs"][0]')" "$first_job"
expect_exit "resume with nothing left to do" 0 $MBENCH slurm resume F --no-wait
contains "... says so" "$LAST_ERR" "nothing to resubmit"

# --- cancel
printf 'name,command\nlong,sleep 600\n' > long.csv
expect_exit "a long task submitted" 0 $MBENCH suite long.csv --slurm --no-wait --slurm-dir C -q
expect_exit "slurm cancel cancels it" 0 $MBENCH slurm cancel C
expect_exit "collect reports the cancelled task (exit 3)" 3 $MBENCH slurm collect C
contains "... as cancelled" "$LAST_ERR" "task 0 cancelled"

# --- bad input
expect_exit "--shard with --slurm is a usage error" 2 $MBENCH suite m20.csv --command true --slurm --shard 0/2
one_line "... in one line" "$LAST_ERR"
expect_exit "reusing a job directory is refused" 2 $MBENCH suite m20.csv --command true --slurm --slurm-dir S20
contains "... pointing at collect and resume" "$LAST_ERR" "mbench slurm collect"
expect_exit "slurm status of a directory without a job" 2 $MBENCH slurm status "$W"
expect_exit "slurm task outside Slurm" 2 env -u SLURM_ARRAY_TASK_ID $MBENCH slurm task S20
expect_exit "an unknown subcommand" 2 $MBENCH slurm stat S20

# --- --throttle 1, kept across resume; resume after a fix with --db
printf 'name,command\na,true\nb,"sh -c '"'"'test -f %s/fixed2 || exit 5'"'"'"\nc,true\n' "$W" > thr.csv
expect_exit "--throttle 1 with a failing task (exit 3)" 3 $MBENCH suite thr.csv --slurm --throttle 1 --slurm-dir T -q --db t.sqlite
contains "... the array is throttled (%1)" "$(scontrol -o show job "$(J T/job.json 'd["jobs"][0]["job_id"]')" 2>&1 | head -1)" "ArrayTaskThrottle=1"
contains "... each task on a whole node by default" "$(J T/job.json 'd["sbatch"]')" "--exclusive"
touch fixed2
expect_exit "resume after the fix, with --db" 0 $MBENCH slurm resume T --db t.sqlite -q
contains "... only the failed task reran" "$(J T/job.json '[len(j["tasks"]) for j in d["jobs"]]')" "[3, 1]"
contains "... throttled again" "$(scontrol -o show job "$(J T/job.json 'd["jobs"][1]["job_id"]')" 2>&1 | head -1)" "ArrayTaskThrottle=1"
contains "--db holds the resumed task's successful document" "$(sqlite3 t.sqlite "select count(*) from runs where status = 'ok'" 2>&1)" "3"
contains "... which supersedes the failed attempt, kept in the store" "$(sqlite3 t.sqlite "select count(*), count(superseded_by), group_concat(attempt_key is not null) from documents" 2>&1)" "4|1|1,1,1,1"
contains "... so the current documents count each task once, all ok" "$(sqlite3 t.sqlite "select count(*), sum(r.status = 'ok') from runs r join documents d on d.id = r.document_id where d.superseded_by is null" 2>&1)" "3|3"

# --- --mem on the bundled cluster (it declares the node's memory)
printf 'name,command\nm,true\n' > mem.csv
expect_exit "--mem 64M is accepted and runs" 0 $MBENCH suite mem.csv --slurm --mem 64M --slurm-dir MEM -q

# --- fault: the node set DOWN while a task runs; Slurm requeues it
# (--requeue) and the driver follows the new attempt to its end.  Slurm
# holds a requeued task about 120 s (its BeginTime); the test moves it to
# now, as an admin would (the wait itself: tests/faults/slurm_faults.sh)
printf 'name,command\nlong,sleep 6\n' > nd.csv
expect_exit "a task submitted" 0 $MBENCH suite nd.csv --slurm --no-wait --slurm-dir ND -q
node=$(hostname -s)
for _ in $(seq 60); do [ -f ND/started/0.json ] && break; sleep 0.5; done
scontrol update nodename="$node" state=down reason=mbench-test
sleep 3
expect_exit "resume is refused while Slurm holds the requeued task" 2 $MBENCH slurm resume ND
contains "... saying Slurm still holds it" "$LAST_ERR" "still"
contains "status says Slurm requeued it" "$($MBENCH slurm status ND 2>&1)" "requeued"
scontrol update nodename="$node" state=resume 2>/dev/null || true  # ReturnToService=2 may have done it
scontrol update JobId="$(J ND/job.json 'd["jobs"][0]["job_id"]')_0" StartTime=now
expect_exit "collect follows the requeued task to its end" 0 timeout 120 $MBENCH slurm collect ND --json nd.json --poll 1s
contains "... its document is its final attempt's (restarts 1)" "$(J nd.json '[(r["status"], r["slurm"]["restarts"]) for r in d["runs"]]')" "[('ok', 1)]"
contains "... the earlier attempt's record was kept aside" "$(ls ND/done)" ".r0"

# --- a killed slurmctld: reported, not waited on
printf 'name,command\nwait,sleep 30\n' > wait.csv
expect_exit "a task submitted" 0 $MBENCH suite wait.csv --slurm --no-wait --slurm-dir K -q
kill -9 "$(cat "$MBENCH_SLURM_DIR/slurmctld.pid")"
start=$(date +%s)
expect_exit "collect with slurmctld killed fails (exit 3)" 3 timeout 120 $MBENCH slurm collect K
contains "... saying the controller does not answer" "$LAST_ERR" "slurmctld does not answer"
one_line "... in one line" "$LAST_ERR"
[ $(( $(date +%s) - start )) -lt 60 ] && ok "... within a minute" || notok "... within a minute" "took $(( $(date +%s) - start )) s"
done_testing
