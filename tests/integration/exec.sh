#!/usr/bin/env bash
# exec.sh - mbench exec on small real commands: rusage, exit codes,
# failures, timeouts that kill the process group, floods, phase events.
. "$(dirname "$0")/lib.sh"
J() { $PY -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
TRAIN="$FIX/exec/train.py"

expect_exit "exec runs true a fixed number of times" 0 $MBENCH exec --runs 3 --json "$T_TMP/true.json" -- true
contains "the document is of kind exec with three runs" "$(J "$T_TMP/true.json" 'd["kind"], d["runs"][0]["iterations"], d["runs"][0]["exec"]["exit_codes"]')" "('exec', 3, {'0': 3})"
contains "peak RSS and user time are recorded" "$(J "$T_TMP/true.json" 'd["runs"][0]["exec"]["peak_rss_bytes"] > 0, d["runs"][0]["exec"]["user_ns"] >= 0')" "(True, True)"

expect_exit "a 64 MiB allocation is measured" 0 $MBENCH exec --runs 2 --json "$T_TMP/big.json" -- $PY -c 'x = bytearray(64 << 20); x[::4096] = b"x" * len(x[::4096])'
contains "its peak RSS covers the allocation and is stored as memory" "$(J "$T_TMP/big.json" 'd["runs"][0]["exec"]["peak_rss_bytes"] >= 64 << 20, d["runs"][0]["memory"]["rss_peak_bytes"] == d["runs"][0]["exec"]["peak_rss_bytes"]')" "(True, True)"
contains "a peak at mbench's own size is only a bound, kept out of memory" "$(J "$T_TMP/true.json" 'd["runs"][0]["exec"]["peak_rss_bytes"] <= d["runs"][0]["exec"]["rss_floor_bytes"], "memory" in d["runs"][0]')" "(True, False)"

expect_exit "exec writes every output and stores its runs with --db" 0 $MBENCH exec --runs 3 --json "$T_TMP/o.json" --csv "$T_TMP/o.csv" --md "$T_TMP/o.md" --db "$T_TMP/o.db" --git-dir "$T_TMP" -n fast -c true -n slow -c 'sleep 0.01'
contains "the CSV has one row per command" "$(cut -d, -f3 "$T_TMP/o.csv" | tr '\n' ' ')" "variant fast slow "
contains "the Markdown report names both commands" "$(cat "$T_TMP/o.md")" "slow"
expect_exit "the stored exec runs are in the history" 0 $MBENCH history --db "$T_TMP/o.db" --variant slow
contains "history lists the stored command" "$LAST_OUT" "slow"
# the same document on both sides: a pass, or inconclusive when 3 runs are
# too few for the 5% threshold; never a regression
LAST_OUT=$($MBENCH gate --current "$T_TMP/o.json" --baseline "$T_TMP/o.json" 2>&1); rc=$?
if [ $rc -eq 0 ] || [ $rc -eq 4 ]; then ok "an exec document gates against another"; else notok "an exec document gates against another" "exit $rc" "$LAST_OUT"; fi
contains "the gate pairs runs by command name" "$LAST_OUT" "slow"
# (a missing directory would be created: a regular file stands in the way)
echo file >"$T_TMP/afile"
expect_exit "an unwritable --db is an error before measuring" 3 $MBENCH exec --runs 1 --db "$T_TMP/afile/x.db" -- true
one_line "the store error is one line" "$LAST_ERR"

expect_exit "exec measures sleep 0.01 until its stopping rule" 0 $MBENCH exec --min-runs 5 --min-time 0 --max-time 5s --json "$T_TMP/sleep.json" -- sleep 0.01
contains "every wall time covers the 10 ms sleep" "$(J "$T_TMP/sleep.json" 'min(d["runs"][0]["samples_ns"]) >= 10_000_000, d["runs"][0]["iterations"] >= 5')" "(True, True)"

expect_exit "a python script runs as a benchmark" 0 $MBENCH exec --runs 2 -- $PY -c 'print(sum(range(10000)))'

expect_exit "a failing command is an error without --ignore-failure" 3 $MBENCH exec --runs 2 -- false
one_line "the failure is one line" "$LAST_ERR"
contains "the failure names the exit status and the way out" "$LAST_ERR" "exit 1); pass --ignore-failure"

expect_exit "--ignore-failure measures failing runs" 0 $MBENCH exec --runs 2 --ignore-failure --json "$T_TMP/fail.json" -- sh -c 'exit 3'
contains "exit codes are counted" "$(J "$T_TMP/fail.json" 'd["runs"][0]["exec"]["exit_codes"], d["runs"][0]["exec"]["failures"]')" "({'3': 2}, 2)"

expect_exit "a command that is not found is an error" 3 $MBENCH exec --runs 1 -- no-such-program-mbench
one_line "command not found is one line" "$LAST_ERR"
contains "command not found names the command" "$LAST_ERR" "command not found: 'no-such-program-mbench'"

# A child that never exits, ignores SIGTERM and leaves a grandchild that
# ignores SIGTERM too: the whole process group must go.
mark=$((41000 + RANDOM % 9000))
expect_exit "a never-exiting child is killed at --timeout" 0 $MBENCH exec --runs 1 --ignore-failure --timeout 300ms --json "$T_TMP/timeout.json" -- \
    $PY -c "import signal,subprocess,time; signal.signal(signal.SIGTERM, signal.SIG_IGN); subprocess.Popen(['sh','-c','trap \"\" TERM; sleep $mark; :']); time.sleep(3600)"
contains "the run is marked timed out" "$(J "$T_TMP/timeout.json" 'd["runs"][0]["exec"]["runs"][0]["timed_out"], d["runs"][0]["exec"]["timeouts"]')" "(True, 1)"
sleep 0.2
if pgrep -f "sleep $mark" >/dev/null; then notok "no process of the timed-out group remains" "$(pgrep -af "sleep $mark")"; pkill -KILL -f "sleep $mark"; else ok "no process of the timed-out group remains"; fi
expect_exit "a timeout without --ignore-failure is an error" 3 $MBENCH exec --runs 1 --timeout 200ms -- sleep 30
contains "the timeout error says so" "$LAST_ERR" "timed out"

# A child that floods stdout and stderr: drained, never kept whole.
maxrss() { $PY -c "import resource,subprocess,sys; r=subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL); print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)" "$@"; }
out=$(maxrss $MBENCH exec --runs 1 --output pipe --shell -- 'head -c 300000000 /dev/zero; head -c 300000000 /dev/zero >&2')
rc=${out% *}; kb=${out#* }
if [ "$rc" = 0 ] && [ "$kb" -lt 102400 ]; then ok "a flood of 600 MB of output is drained in bounded memory"; else notok "a flood of 600 MB of output is drained in bounded memory" "exit $rc, max RSS $kb KiB"; fi

# Events: malformed lines are counted, never fatal.
expect_exit "malformed event lines are not fatal" 0 $MBENCH exec --runs 2 --json "$T_TMP/bad.json" -- $PY -c '
import os; fd = int(os.environ["MBENCH_EVENTS_FD"])
for l in ["{bad json", "{\"event\":\"end\",\"phase\":\"never\"}", "{\"event\":\"start\",\"phase\":\"ok\"}", "[1,2]", "{\"event\":\"end\",\"phase\":\"ok\"}"]:
    os.write(fd, (l + "\n").encode())'
contains "malformed lines are counted with the first reason" "$(J "$T_TMP/bad.json" 'd["runs"][0]["exec"]["events"]["malformed"], d["runs"][0]["exec"]["events"]["first_malformed"]')" "(6, "
contains "the first malformed line's reason is kept" "$(J "$T_TMP/bad.json" 'd["runs"][0]["exec"]["events"]["first_malformed"]')" "event line 1: not a JSON object"
contains "the valid phase between them is kept" "$(J "$T_TMP/bad.json" 'd["runs"][0]["exec"]["phases"]["ok"]["count"]')" "2"
expect_exit "the console reports malformed lines" 0 $MBENCH exec --runs 1 -- $PY -c 'import os; os.write(int(os.environ["MBENCH_EVENTS_FD"]), b"nope\n")'
contains "the console line names them" "$LAST_OUT" "malformed event lines: 1"

# Phases of the python training fixture.
expect_exit "train.py runs under exec" 0 $MBENCH exec --runs 3 --json "$T_TMP/train.json" -- $PY "$TRAIN" --epochs 2 --samples 64
contains "train.py phases are aggregated" "$(J "$T_TMP/train.json" 'list(d["runs"][0]["exec"]["phases"])')" "['init', 'data_setup', 'epoch', 'first_batch_load', 'forward']"
contains "epoch happens twice per run, first_batch_load inside it" "$(J "$T_TMP/train.json" 'd["runs"][0]["exec"]["phases"]["epoch"]["occurrences_per_run"], d["runs"][0]["exec"]["phases"]["first_batch_load"]["parent"], d["runs"][0]["exec"]["phases"]["init"]["count"]')" "(2.0, 'epoch', 3)"
contains "counters and final metrics are kept" "$(J "$T_TMP/train.json" 'd["runs"][0]["exec"]["counters"]["samples"]["median"], sorted(d["runs"][0]["exec"]["metrics"])')" "(128.0, ['accuracy', 'loss'])"
contains "the console shows the phase table" "$LAST_OUT" "first_batch_load"
check "train.py runs alone (the helper is a no-op without mbench)" $PY "$TRAIN" --epochs 1 --samples 16

# Phases of the C example.
if cc -std=c11 -Wall -Wextra -Wpedantic -Werror -D_POSIX_C_SOURCE=200809L -I"$MBENCH_ROOT/include" "$FIX/exec/example.c" -o "$T_TMP/example" 2>"$T_TMP/cc.err"; then
    ok "the C example builds with mbench_events.h and strict warnings"
    expect_exit "the C example runs under exec" 0 $MBENCH exec --runs 2 --json "$T_TMP/c.json" -- "$T_TMP/example" 32 3
    contains "C phases, counters and metrics are aggregated" "$(J "$T_TMP/c.json" 'list(d["runs"][0]["exec"]["phases"]), d["runs"][0]["exec"]["phases"]["multiply"]["occurrences_per_run"], d["runs"][0]["exec"]["counters"]["flops"]["median"]')" "(['setup', 'multiply', 'checksum'], 3.0, 196608.0)"
    contains "the C helper's iterations become loop row" "$(J "$T_TMP/c.json" 'd["runs"][0]["exec"]["loops"]["row"]["iterations"], d["runs"][0]["exec"]["loops"]["row"]["iterations_per_run"], d["runs"][0]["exec"]["loops"]["row"]["items"]')" "(64, [32, 32], 2048.0)"
else
    notok "the C example builds with mbench_events.h and strict warnings" "$(cat "$T_TMP/cc.err")"
fi

# Many distinct names (issue 37): found through hash tables, the pipe
# read on while mbench parses, a cap on names, SIGTERM heard at any rate.
if cc -O2 -o "$T_TMP/names" "$FIX/exec/names.c" 2>"$T_TMP/cc.err"; then
    expect_exit "70000 distinct phase names are measured" 0 $MBENCH exec --runs 1 --json "$T_TMP/names.json" -- "$T_TMP/names" 70000
    contains "65536 names are kept, the events of the others counted dropped" "$(J "$T_TMP/names.json" 'len(d["runs"][0]["exec"]["phases"]), d["runs"][0]["exec"]["events"]["names_cap"], d["runs"][0]["exec"]["events"]["dropped_events"], d["runs"][0]["exec"]["events"]["malformed"]')" "(65536, 65536, 8928, 0)"
    contains "the console says what the cap dropped" "$LAST_OUT" "events not kept (naming more than 65536 distinct phases, counters, metrics and loops in a run): 8928"
    contains "the console prints 50 phases and says how many more" "$LAST_OUT" "... 65486 more phases (in the JSON document)"
    # A program that never stops writing names: SIGTERM ends mbench (the
    # guard is only against a hang).
    $MBENCH exec --runs 1 -q -- "$T_TMP/names" 200000 forever >/dev/null 2>"$T_TMP/term.err" &
    mpid=$!
    sleep 1
    kill -TERM $mpid
    guard=0
    while kill -0 $mpid 2>/dev/null && [ $guard -lt 300 ]; do sleep 0.1; guard=$((guard + 1)); done
    if kill -0 $mpid 2>/dev/null; then
        notok "SIGTERM ends exec while the program floods the events pipe" "still running 30 s after SIGTERM"
        kill -KILL $mpid
    else
        wait $mpid; rc=$?
        if [ $rc -eq 143 ]; then ok "SIGTERM ends exec while the program floods the events pipe"; else notok "SIGTERM ends exec while the program floods the events pipe" "exit $rc" "$(cat "$T_TMP/term.err")"; fi
    fi
    if pgrep -f "$T_TMP/names" >/dev/null; then notok "the flooding program is gone with it" "$(pgrep -af "$T_TMP/names")"; else ok "the flooding program is gone with it"; fi
else
    notok "the names program builds" "$(cat "$T_TMP/cc.err")"
fi

# Several commands, parameters, prepare/cleanup.
expect_exit "two commands are compared" 0 $MBENCH exec --runs 6 --json "$T_TMP/cmp.json" -n fast -c 'true' -n slow -c 'sleep 0.02'
contains "the comparison has a ratio, a CI and a p-value" "$(J "$T_TMP/cmp.json" '(d["comparison"]["baseline"], d["comparison"]["entries"][0]["variant"], d["comparison"]["entries"][0]["ratio"] > 1, sorted(d["comparison"]["entries"][0]["ratio_ci95"]), 0 <= d["comparison"]["entries"][0]["p_value"] <= 1)')" "('fast', 'slow', True, ['hi', 'lo'], True)"
contains "the console prints the speedup" "$LAST_OUT" "slower"
expect_exit "a --param scan runs each value" 0 $MBENCH exec --runs 1 --json "$T_TMP/param.json" --param N=1,2,3 -c 'sh -c "exit 0" {N}'
contains "each value is its own variant" "$(J "$T_TMP/param.json" '[r["variant"] for r in d["runs"]], d["runs"][2]["params"]')" "(['sh -c \"exit 0\" 1', 'sh -c \"exit 0\" 2', 'sh -c \"exit 0\" 3'], {'N': '3'})"
expect_exit "--param that no command uses is a usage error" 2 $MBENCH exec --param X=1 -- true
contains "the error names the placeholder" "$LAST_ERR" "{X}"
expect_exit "--prepare and --cleanup run around every run" 0 $MBENCH exec --runs 3 --warmup 1 --prepare "echo p >> $T_TMP/pc.log" --cleanup "echo c >> $T_TMP/pc.log" -- true
contains "four prepares and four cleanups ran" "$(sort "$T_TMP/pc.log" | uniq -c | tr -s ' \n' '  ')" " 4 c 4 p"
expect_exit "a failing --prepare stops the benchmark" 3 $MBENCH exec --runs 1 --prepare 'exit 7' -- true
contains "the error names --prepare" "$LAST_ERR" "--prepare"
expect_exit "--shell runs shell syntax" 0 $MBENCH exec --runs 1 --shell -- 'true && true | cat'
expect_exit "an unterminated quote is a usage error" 2 $MBENCH exec --runs 1 -c "echo 'oops"
expect_exit "a nonsense flag is a usage error" 2 $MBENCH exec --frobnicate -- true
one_line "the usage error is one line" "$LAST_ERR"
expect_exit "exec --help prints usage" 0 $MBENCH exec --help
expect_exit "--gpu-memory without NVML says it is not available" 0 $MBENCH exec --runs 1 --gpu-memory -- true
if [ -e /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1 ]; then skip "GPU memory message" "NVML present"; else contains "the GPU message is printed" "$LAST_OUT" "GPU memory: not available (libnvidia-ml.so.1 not found)"; fi

# gate on two exec documents: each run is a process, so the run times are
# the replicates (not "measured in 1 process").
$MBENCH exec --runs 5 --json "$T_TMP/ga.json" -q -- sleep 0.02 >/dev/null 2>&1
$MBENCH exec --runs 5 --json "$T_TMP/gb.json" -q -- sleep 0.02 >/dev/null 2>&1
LAST_OUT=$($MBENCH gate --baseline "$T_TMP/ga.json" --current "$T_TMP/gb.json" --max-regression p50=50% 2>&1); rc=$?
# pass, or inconclusive when this loaded machine made 5 runs too noisy; never a regression or an error
if [ $rc -eq 0 ] || [ $rc -eq 4 ]; then ok "gate judges two exec documents run by run"; else notok "gate judges two exec documents run by run" "exit $rc" "$LAST_OUT"; fi
contains "the p50 row has a CI over runs" "$LAST_OUT" "%.."
if [[ "$LAST_OUT" == *"1 process(es)"* ]]; then notok "exec runs are not one process" "$LAST_OUT"; else ok "exec runs are not one process"; fi
$PY -c '
import json, sys
d = json.load(open(sys.argv[1])); e = d["environment"]
e["loadavg_1m"] = e.get("loadavg_1m", 0) + 2 * e["logical_cores"]
json.dump(d, open(sys.argv[2], "w"))' "$T_TMP/gb.json" "$T_TMP/gc.json"
$MBENCH gate --baseline "$T_TMP/ga.json" --current "$T_TMP/gc.json" --max-regression p50=50% --json "$T_TMP/gcv.json" >/dev/null 2>&1
contains "gate warns when the two runs saw different machine loads" "$(cat "$T_TMP/gcv.json")" "the machine's load differed"

# Ctrl-C: the child's group goes, the runs so far are written.
$MBENCH exec --min-runs 1000 --max-time 60s --json "$T_TMP/int.json" -- sleep 0.05 >/dev/null 2>&1 &
pid=$!; sleep 1; kill -INT $pid; wait $pid; rc=$?
if [ $rc -eq 130 ]; then ok "Ctrl-C exits 130"; else notok "Ctrl-C exits 130" "exit $rc"; fi
contains "the interrupted document is written" "$(J "$T_TMP/int.json" 'd["interrupted"], d["runs"][0]["iterations"] > 0')" "(True, True)"

# ---- processes a run leaves in its process group -----------------------------
# `sleep 600 &` outlives each run: reported and ended by default (it would
# run on into the next runs), kept with --keep-leftovers.
expect_exit "a command that leaves a background child runs" 0 $MBENCH exec --shell --runs 2 --json "$T_TMP/left.json" \
    -c "sleep 600 & echo \$! >> $T_TMP/left.pids"
# The name is the kernel's at that moment: the background child may not
# have exec'd sleep yet when the shell exits (seen under load), so it is
# still called sh.
[[ "$LAST_OUT" =~ "left processes running in its process group after it exited, in 2 runs (up to 1; first: "(sleep|sh)" (pid" ]] \
    && ok "the leftover is reported with its name" || notok "the leftover is reported with its name" "$LAST_OUT"
alive=""; for p in $(cat "$T_TMP/left.pids"); do [ -d /proc/$p ] && [ "$(awk '{print $3}' /proc/$p/stat 2>/dev/null)" != Z ] && alive+="$p "; done
[ -s "$T_TMP/left.pids" ] && [ -z "$alive" ] && ok "the leftover background children were ended" || notok "the leftover background children were ended" "alive: $alive"
check "the document records the leftovers and that they were ended" $PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
lp = d["runs"][0]["exec"]["leftover_processes"]
assert lp["runs"] == 2 and lp["max"] == 1 and lp["ended"] is True and lp["first"].startswith(("sleep (pid", "sh (pid")), lp
assert any("left processes running" in w for w in d["warnings"]), d["warnings"]' "$T_TMP/left.json"
expect_exit "--keep-leftovers leaves them running" 0 $MBENCH exec --shell --runs 1 --keep-leftovers \
    -c "sleep 600 & echo \$! > $T_TMP/kept.pid"
kept=$(cat "$T_TMP/kept.pid")
[ -n "$kept" ] && [ -d "/proc/$kept" ] && ok "the kept child is still alive" || notok "the kept child is still alive" "pid $kept"
contains "keeping is reported too" "$LAST_OUT" "kept running (--keep-leftovers)"
[ -n "$kept" ] && kill "$kept" 2>/dev/null
expect_exit "a command that waits for its children leaves nothing" 0 $MBENCH exec --shell --runs 1 --json "$T_TMP/clean.json" -c "sleep 0.01 & wait"
check "nothing is reported for a command that waits" $PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["runs"][0]["exec"]["leftover_processes"]["runs"] == 0 and not d["warnings"], d["warnings"]' "$T_TMP/clean.json"


rm -rf "$T_TMP"
done_testing
