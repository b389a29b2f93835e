#!/usr/bin/env bash
# suite.sh - mbench suite on a real git repository with two branches whose
# train.py differ (one slower), malformed task files, shards and merge.
. "$(dirname "$0")/lib.sh"
J() { $PY -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
export TMPDIR="$T_TMP/tmp"; mkdir -p "$TMPDIR"
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com

R="$T_TMP/repo"
git init -q -b main "$R"
cp "$FIX/exec/train.py" "$MBENCH_ROOT/tools/mbench_events.py" "$R/"
git -C "$R" add . && git -C "$R" commit -qm "train.py"
git -C "$R" checkout -qb slow
sed -i 's/"--extra-work", type=int, default=0,/"--extra-work", type=int, default=400,/' "$R/train.py"
git -C "$R" commit -qam "slower forward"
git -C "$R" checkout -q main
# The user's working tree has uncommitted work that must survive untouched.
echo "# local edit" >> "$R/train.py"
before_status=$(git -C "$R" status --porcelain); before_sum=$(sha256sum "$R/train.py")

cat > "$T_TMP/train.csv" <<'CSV'
branch,experiment,trainer,max_epochs,batch_size,overrides
main,toy,cpu,2,16,
slow,toy,cpu,2,16,
main,"small, fast",cpu,1,8,--samples=32
slow,"small, fast",cpu,1,8,--samples=32
CSV
CMD="$PY train.py --experiment {experiment} --epochs {max_epochs} --batch-size {batch_size} --samples 64 {overrides}"

cd "$R"
expect_exit "a suite runs python train.py on two branches" 0 $MBENCH suite "$T_TMP/train.csv" --command "$CMD" --runs 3 --compare -o "$T_TMP/all.json"
contains "a dirty repository is a warning" "$LAST_ERR" "uncommitted changes"
contains "the console shows phase breakdowns" "$LAST_OUT" "first_batch_load"
contains "the console shows peak memory" "$LAST_OUT" "peak RSS"
contains "the console shows a speedup table" "$LAST_OUT" "Speedup of each branch against the first"
contains "every task succeeded with its branch, commit and commit date" "$(J "$T_TMP/all.json" '[(r["status"], r["branch"], len(r["git"]["commit"]), r["git"]["commit_date"][-1]) for r in d["runs"]]')" "[('ok', 'main', 40, 'Z'), ('ok', 'slow', 40, 'Z'), ('ok', 'main', 40, 'Z'), ('ok', 'slow', 40, 'Z')]"
contains "the two branches run different commits" "$(J "$T_TMP/all.json" 'd["runs"][0]["git"]["commit"] != d["runs"][1]["git"]["commit"]')" "True"
contains "each task has phases and peak memory" "$(J "$T_TMP/all.json" 'all("epoch" in r["exec"]["phases"] and r["exec"]["peak_rss_bytes"] > 0 for r in d["runs"])')" "True"
contains "the comparison has one group per experiment" "$(J "$T_TMP/all.json" '[(g["group"], g["baseline_branch"], [e["branch"] for e in g["entries"]]) for g in d["comparison"]["groups"]]')" "[('toy', 'main', ['slow']), ('small, fast', 'main', ['slow'])]"
contains "the comparison has total and per-phase speedups" "$(J "$T_TMP/all.json" '(d["comparison"]["groups"][0]["entries"][0]["speedup"] > 0, "forward" in d["comparison"]["groups"][0]["entries"][0]["phases"])')" "(True, True)"
contains "a quoted experiment with a comma reached the program as one word" "$(J "$T_TMP/all.json" 'd["runs"][2]["command"]')" "'small, fast'"
contains "no worktree is left registered" "$(git -C "$R" worktree list | wc -l)" "1"
contains "no worktree directory is left behind" "$(ls "$TMPDIR" | wc -l)" "0"
if [ "$(git -C "$R" status --porcelain)" = "$before_status" ] && [ "$(sha256sum "$R/train.py")" = "$before_sum" ] && [ "$(git -C "$R" branch --show-current)" = main ]; then
    ok "the user's working tree is untouched"; else notok "the user's working tree is untouched" "$(git -C "$R" status)"; fi

# Failing tasks.
printf 'branch,experiment,trainer,max_epochs,batch_size,overrides\nnope,toy,cpu,1,8,\nmain,toy,cpu,1,8,\n' > "$T_TMP/missing.csv"
expect_exit "a missing branch fails the suite" 3 $MBENCH suite "$T_TMP/missing.csv" --command "$CMD" -o "$T_TMP/missing.json"
contains "the error names the branch" "$LAST_ERR" "branch 'nope' not found"
contains "the failed task is written" "$(J "$T_TMP/missing.json" '[r["status"] for r in d["runs"]]')" "['failed']"
expect_exit "--skip-failed goes on past a missing branch" 0 $MBENCH suite "$T_TMP/missing.csv" --command "$CMD" --skip-failed -o "$T_TMP/skip.json"
contains "the failure is recorded and the next task ran" "$(J "$T_TMP/skip.json" '[r["status"] for r in d["runs"]], "not found" in d["runs"][0]["error"]')" "(['failed', 'ok'], True)"
contains "the console marks it FAILED" "$LAST_OUT" "FAILED"
expect_exit "a command that is not found is a FAILED task" 0 $MBENCH suite "$T_TMP/missing.csv" --command "no-such-trainer {experiment}" --skip-failed -o "$T_TMP/nf.json"
contains "its error says command not found" "$(J "$T_TMP/nf.json" 'd["runs"][1]["error"]')" "command not found: 'no-such-trainer'"
expect_exit "a task that exceeds --timeout is killed and FAILED" 0 $MBENCH suite "$T_TMP/missing.csv" --command "sh -c 'sleep 30' {experiment}" --timeout 200ms --skip-failed -o "$T_TMP/to.json"
contains "its error says timed out" "$(J "$T_TMP/to.json" 'd["runs"][1]["error"]')" "timed out"

# Malformed task files.
printf 'branch,experiment,trainer,max_epochs,batch_size,overrides\nmain,toy,cpu,1,8,\nmain,"toy,cpu,1,8,\n' > "$T_TMP/quote.csv"
expect_exit "an unbalanced quote is an error" 2 $MBENCH suite "$T_TMP/quote.csv" --command "$CMD"
contains "the error names the line that opened the quote" "$LAST_ERR" "quote opened on line 3 is never closed"
printf 'branch,experiment,trainer,max_epochs,overrides\nmain,toy,cpu,1,\n' > "$T_TMP/cols.csv"
expect_exit "a training table without batch_size is an error" 2 $MBENCH suite "$T_TMP/cols.csv" --command "$CMD"
contains "the error names the missing column" "$LAST_ERR" "lacks column(s) batch_size"
printf 'branch,experiment,trainer,max_epochs,batch_size,overrides\nmain,toy,cpu,1\n' > "$T_TMP/short.csv"
expect_exit "a row with missing fields is an error" 2 $MBENCH suite "$T_TMP/short.csv" --command "$CMD"
contains "the error names the line" "$LAST_ERR" "line 2: 4 fields, but the header has 6"
expect_exit "an unknown placeholder is an error" 2 $MBENCH suite "$T_TMP/train.csv" --command "python train.py {epochs}"
contains "the error names the placeholder" "$LAST_ERR" "unknown placeholder {epochs}"
one_line "the error is one line" "$LAST_ERR"
expect_exit "a table without a command is an error" 2 $MBENCH suite "$T_TMP/train.csv"
expect_exit "a bad --shard is a usage error" 2 $MBENCH suite "$T_TMP/train.csv" --command "$CMD" --shard 3/3

# Shards as separate processes, merged, equal the unsharded run.
for i in 0 1 2; do
    $MBENCH suite "$T_TMP/train.csv" --command "$CMD" --runs 1 --shard $i/3 -q -o "$T_TMP/shard$i.json" >/dev/null 2>&1 &
done
wait
$MBENCH suite "$T_TMP/train.csv" --command "$CMD" --runs 1 -q -o "$T_TMP/whole.json" >/dev/null 2>&1
expect_exit "the shards merge" 0 $MBENCH merge "$T_TMP/shard2.json" "$T_TMP/shard0.json" "$T_TMP/shard1.json" --output "$T_TMP/merged.json"
expect_exit "merge --compare prints the speedup table" 0 $MBENCH merge "$T_TMP/shard0.json" "$T_TMP/shard1.json" "$T_TMP/shard2.json" --output "$T_TMP/merged_cmp.json" --compare
contains "merge --compare prints the table of suite --compare" "$LAST_OUT" "(speedup > 1: faster than the baseline)"
key='[(r["task"]["index"], r["task"]["row"], r["variant"], r["command"], r["status"], r["branch"], r["git"]["commit"], sorted(r["exec"]["phases"]), sorted(r["exec"]["metrics"]), r["exec"]["counters"]["samples"]["median"]) for r in d["runs"]], d["suite"]["tasks_total"], d["suite"]["shard"]'
a=$(J "$T_TMP/merged.json" "$key"); b=$(J "$T_TMP/whole.json" "$key")
if [ -n "$a" ] && [ "$a" = "$b" ]; then ok "the merged shards equal the unsharded run"; else notok "the merged shards equal the unsharded run" "merged: $a" "whole:  $b"; fi
expect_exit "a repeated shard is refused" 2 $MBENCH merge "$T_TMP/shard0.json" "$T_TMP/shard0.json" --output "$T_TMP/bad.json"
expect_exit "a missing shard merges with a warning" 0 $MBENCH merge "$T_TMP/shard0.json" "$T_TMP/shard1.json" --output "$T_TMP/part.json"
contains "the warning names the missing shard" "$LAST_ERR" "shard 2/3 is missing"
contains "the partial merge is marked incomplete" "$(J "$T_TMP/part.json" 'd["incomplete"]')" "True"

# Model tasks go through the runner.
relu=/usr/share/libonnx-testdata/data/node/test_relu/model.onnx
if [ -f "$relu" ]; then
    printf 'model,backend,batch_size,options\n%s,null,1,\n,null,1,\n' "$relu" > "$T_TMP/models.csv"
    expect_exit "model tasks run through the runner" 0 $MBENCH suite "$T_TMP/models.csv" --skip-failed -o "$T_TMP/models.json"
    contains "the model task is measured and the empty one FAILED" "$(J "$T_TMP/models.json" '[(r["status"], r["task"]["kind"]) for r in d["runs"]], d["runs"][0]["iterations"] > 0')" "([('ok', 'model'), ('failed', 'model')], True)"
else
    skip "model tasks run through the runner" "libonnx-testdata missing"
fi

# Ctrl-C writes the finished tasks, marked interrupted, and removes worktrees.
printf 'branch,experiment,trainer,max_epochs,batch_size,overrides\nmain,a,cpu,1,8,\nslow,b,cpu,1,8,\n' > "$T_TMP/int.csv"
$MBENCH suite "$T_TMP/int.csv" --command "sh -c 'case {experiment} in a) exit 0;; *) sleep 30;; esac'" -o "$T_TMP/int.json" >/dev/null 2>&1 &
pid=$!; sleep 1.5; kill -INT $pid; wait $pid; rc=$?
if [ $rc -eq 130 ]; then ok "Ctrl-C stops the suite with 130"; else notok "Ctrl-C stops the suite with 130" "exit $rc"; fi
contains "the finished task is written, marked interrupted" "$(J "$T_TMP/int.json" 'd["interrupted"], [r["status"] for r in d["runs"]]')" "(True, ['ok', 'interrupted'])"
contains "no worktree survives Ctrl-C" "$(git -C "$R" worktree list | wc -l) $(ls "$TMPDIR" | wc -l)" "1 0"

cd /
rm -rf "$T_TMP"
done_testing
