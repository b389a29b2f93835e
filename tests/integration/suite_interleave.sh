#!/usr/bin/env bash
# suite_interleave.sh - suite --compare measures the branches of one
# comparison together, in rounds (main slow main slow ...), each in its own
# worktree, locally; a shard takes whole comparisons; a failing branch
# leaves its group's other runs standing; a comparison whose shards ran on
# different CPU models or nodes warns in the console and the JSON.  The
# Slurm side (one array task per comparison) is in slurm.sh.
. "$(dirname "$0")/lib.sh"
J() { $PY -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
cd "$T_TMP" || exit 1

# a repository whose two branches write their name into a shared log
R="$T_TMP/repo"; LOG="$T_TMP/order"
git init -q -b main "$R"
printf '#!/bin/sh\necho main-$1 >> "$2"\n' > "$R/step.sh"
git -C "$R" add . && git -C "$R" -c user.email=t@t -c user.name=t commit -qm main
git -C "$R" checkout -qb slow
printf '#!/bin/sh\necho slow-$1 >> "$2"\nsleep 0.02\n' > "$R/step.sh"
git -C "$R" -c user.email=t@t -c user.name=t commit -qam slow
git -C "$R" checkout -q main
cat > t.csv <<'CSV'
branch,experiment
main,e1
slow,e1
main,e2
slow,e2
CSV
CMD="sh step.sh {experiment} $LOG"

expect_exit "suite --compare over two branches, two experiments" 0 $MBENCH suite t.csv --repo "$R" --command "$CMD" --runs 3 --compare -o c.json
contains "... each experiment's branches ran in rounds, one experiment after the other" "$(tr '\n' ' ' < "$LOG")" "main-e1 slow-e1 main-e1 slow-e1 main-e1 slow-e1 main-e2 slow-e2 main-e2 slow-e2 main-e2 slow-e2"
contains "... every run says what it was interleaved with" "$(J c.json '[(r["branch"], r["interleaved"]) for r in d["runs"]]')" "[('main', {'tasks': [0, 1], 'rounds': 3}), ('slow', {'tasks': [0, 1], 'rounds': 3}), ('main', {'tasks': [2, 3], 'rounds': 3}), ('slow', {'tasks': [2, 3], 'rounds': 3})]"
contains "... the comparison says each pair was interleaved" "$(J c.json '[[e["interleaved"] for e in g["entries"]] for g in d["comparison"]["groups"]]')" "[[True], [True]]"
contains "... and gives the speedup from the pairs of rounds" "$(J c.json '[[(e["paired"]["rounds"], e["paired"]["blocks"], 0 < e["paired"]["speedup_ci95"]["lo"] <= e["paired"]["speedup"] <= e["paired"]["speedup_ci95"]["hi"]) for e in g["entries"]] for g in d["comparison"]["groups"]]')" "[[(3, 3, True)], [(3, 3, True)]]"
contains "... printed beside the ratio of medians" "$LAST_OUT" "paired by round"
contains "... and that it ran on one machine (no warning)" "$(J c.json '[(len(g["cpu_models"]), "warning" in g) for g in d["comparison"]["groups"]]')" "[(0, False), (0, False)]"
contains "... the suite says it interleaved" "$(J c.json 'd["suite"]["interleaved"]')" "True"
rm -f "$LOG"
expect_exit "without --compare the tasks run one after another" 0 $MBENCH suite t.csv --repo "$R" --command "$CMD" --runs 2 -q -o n.json
contains "... task by task" "$(tr '\n' ' ' < "$LOG")" "main-e1 main-e1 slow-e1 slow-e1 main-e2"
rm -f "$LOG"
expect_exit "--interleave alone interleaves (what a Slurm task of a --compare job runs)" 0 $MBENCH suite t.csv --repo "$R" --command "$CMD" --runs 2 --interleave -q -o i.json
contains "... in rounds" "$(tr '\n' ' ' < "$LOG")" "main-e1 slow-e1 main-e1 slow-e1"

# --- shards take whole comparisons
expect_exit "suite --compare --shard 1/2" 0 $MBENCH suite t.csv --repo "$R" --command "$CMD" --runs 2 --compare --shard 1/2 -q -o s1.json
contains "... holds the second experiment's two branches" "$(J s1.json '[(r["task"]["index"], r["branch"]) for r in d["runs"]]')" "[(2, 'main'), (3, 'slow')]"
expect_exit "suite --compare --shard 0/2" 0 $MBENCH suite t.csv --repo "$R" --command "$CMD" --runs 2 --compare --shard 0/2 -q -o s0.json
expect_exit "merge --compare of the shards" 0 $MBENCH merge s0.json s1.json --compare -o m.json
if echo "$LAST_OUT$LAST_ERR" | grep -q "warning: its tasks"; then notok "... from one machine: no warning" "$LAST_OUT"; else ok "... from one machine: no warning"; fi
contains "... each run stamped with its shard's machine" "$(J m.json 'all(r["machine"]["cpu_model"] and r["machine"]["hostname"] for r in d["runs"])')" "True"

# --- a shard edited to another node and CPU model: the comparison warns
printf 'branch,experiment\nmain,e1\nslow,e1\n' > one.csv
expect_exit "the two branches of one experiment as two plain shards" 0 $MBENCH suite one.csv --repo "$R" --command "$CMD" --runs 3 --shard 0/2 -q -o p0.json
$MBENCH suite one.csv --repo "$R" --command "$CMD" --runs 3 --shard 1/2 -q -o p1.json >/dev/null 2>&1
$PY -c 'import json,sys; d=json.load(open(sys.argv[1])); d["environment"]["cpu_model"]="Other CPU 9000"; d["environment"]["hostname"]="node9"; json.dump(d, open(sys.argv[1], "w"))' p1.json
expect_exit "merge --compare of shards from two CPU models" 0 $MBENCH merge p0.json p1.json --compare -o pm.json
contains "... warns in the console, naming the CPU models" "$LAST_OUT$LAST_ERR" "warning: its tasks ran on different CPU models"
contains "... naming the other one" "$LAST_OUT$LAST_ERR" "'Other CPU 9000'"
contains "... and in the JSON" "$(J pm.json 'd["comparison"]["groups"][0].get("warning", "")')" "different CPU models"
contains "... which also lists the nodes" "$(J pm.json 'd["comparison"]["groups"][0]["nodes"]')" "node9"
contains "... and says the pair was not interleaved, so not paired" "$(J pm.json '(d["comparison"]["groups"][0]["entries"][0]["interleaved"], d["comparison"]["groups"][0]["entries"][0]["paired"])')" "(False, None)"
$PY -c 'import json,sys; d=json.load(open(sys.argv[1])); d["environment"]["cpu_model"]=json.load(open(sys.argv[2]))["environment"]["cpu_model"]; json.dump(d, open(sys.argv[1], "w"))' p1.json p0.json
expect_exit "the same CPU model on another node" 0 $MBENCH merge p0.json p1.json --compare -o pn.json
contains "... warns naming the nodes" "$LAST_OUT$LAST_ERR" "warning: its tasks ran on different nodes"

# --- a failing branch in a group
printf 'experiment,variant,command\ne1,a,true\ne1,b,false\ne2,c,true\ne2,d,true\n' > f.csv
expect_exit "a group with a failing task stops the suite (exit 3)" 3 $MBENCH suite f.csv --compare --runs 3 -q -o f.json
contains "... naming the failing task" "$LAST_ERR" "task 1 (f.csv line 3) failed"
contains "... its partner's run until then stands" "$(J f.json '[(r["variant"], r["status"]) for r in d["runs"]]')" "[('e1 variant=a', 'ok'), ('e1 variant=b', 'failed')]"
expect_exit "--skip-failed goes on with the next group" 0 $MBENCH suite f.csv --compare --runs 3 --skip-failed -q -o f2.json
contains "... which runs whole" "$(J f2.json '[(r["variant"], r["status"], r["iterations"]) for r in d["runs"]][2:]')" "[('e2 variant=c', 'ok', 3), ('e2 variant=d', 'ok', 3)]"
done_testing
