#!/usr/bin/env bash
# orphans.sh - nothing mbench starts outlives it, even after kill -9
# (issue 37, src/exec/guard.c), and the next run removes what a killed
# one left: the worktrees of a suite (src/exec/wtstale.c) and the temp
# files of an output being written (src/core/fileio.c).  The waits are
# hang guards (10 s), not timings.
. "$(dirname "$0")/lib.sh"
export TMPDIR="$T_TMP/tmp"; mkdir -p "$TMPDIR"
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
# sleep durations no other test uses: the processes to look for
A="1001.$$"; B="1002.$$"; C="1003.$$"
alive() { pgrep -f "^sleep ($1)\$" >/dev/null; }
# wait_for COND...: polls COND for up to 10 s; its status at the end
wait_for() { local i; for i in $(seq 100); do "$@" && return 0; sleep 0.1; done; "$@"; }
gone() { ! alive "$1"; }

$MBENCH exec --runs 1 -q -- sh -c "sleep $A & sleep $B; wait" >/dev/null 2>&1 &
m=$!
if wait_for alive "$A" && wait_for alive "$B"; then ok "exec started sh and its two sleeps"; else notok "exec started sh and its two sleeps" "$(ps -eo pid,pgid,args | grep sleep)"; fi
g=$(pgrep -P $m -x mbench-guard)
if [ -n "$g" ]; then ok "exec has a guardian (mbench-guard)"; else notok "exec has a guardian (mbench-guard)" "$(ps -eo pid,ppid,comm | grep " $m ")"; fi
kill -9 $m; wait $m 2>/dev/null
if wait_for gone "$A|$B"; then ok "after kill -9 of exec, the command and its background child are gone"; else notok "after kill -9 of exec, the command and its background child are gone" "$(pgrep -af "sleep ($A|$B)")"; fi
guard_gone() { [ -z "$g" ] || [ ! -e /proc/$g ] || grep -q '^State:.*Z' /proc/$g/status; }
if wait_for guard_gone; then ok "the guardian is gone too"; else notok "the guardian is gone too" "$(ps -o pid,stat,args -p $g)"; fi

# A suite with a branch column: its task and its worktree.
R="$T_TMP/repo"
git init -q -b main "$R"
echo x > "$R/f" && git -C "$R" add f && git -C "$R" commit -qm one
git -C "$R" branch other
printf 'branch,what\nother,slow\n' > "$T_TMP/slow.csv"
(cd "$R" && exec $MBENCH suite "$T_TMP/slow.csv" --command "sleep $C" --runs 1 -q -o "$T_TMP/slow.json") >/dev/null 2>&1 &
m=$!
if wait_for alive "$C"; then ok "the suite runs its task in a worktree"; else notok "the suite runs its task in a worktree" "$(cat "$T_TMP/slow.json" 2>/dev/null)"; fi
stale=$(git -C "$R" worktree list --porcelain | sed -n "s/^worktree \(.*mbench-worktrees\.$m\..*\)/\1/p")
kill -9 $m; wait $m 2>/dev/null
if wait_for gone "$C"; then ok "after kill -9 of the suite, its task is gone"; else notok "after kill -9 of the suite, its task is gone" "$(pgrep -af "sleep $C")"; fi
if [ -n "$stale" ] && [ -d "$stale" ]; then ok "the killed suite left its worktree registered and on disk"; else notok "the killed suite left its worktree registered and on disk" "worktree: '$stale'" "$(git -C "$R" worktree list)"; fi
printf 'branch,what\nother,quick\n' > "$T_TMP/quick.csv"
(cd "$R" && exec $MBENCH suite "$T_TMP/quick.csv" --command true --runs 1 -q -o "$T_TMP/quick.json") >"$T_TMP/quick.out" 2>&1
rc=$?
if [ $rc -eq 0 ]; then ok "the next suite runs"; else notok "the next suite runs" "exit $rc" "$(cat "$T_TMP/quick.out")"; fi
if ! git -C "$R" worktree list --porcelain | grep -q "mbench-worktrees\.$m\." && [ ! -e "$stale" ] && [ ! -e "$(dirname "$stale")" ]; then
    ok "the next suite removed the stale worktree and its directory"
else
    notok "the next suite removed the stale worktree and its directory" "$(git -C "$R" worktree list)" "$(ls -la "$(dirname "$stale")" 2>&1)"
fi
if [ "$(git -C "$R" worktree list | wc -l)" = 1 ]; then ok "only the main worktree is left"; else notok "only the main worktree is left" "$(git -C "$R" worktree list)"; fi

# Temp files of a killed writer: this host's tag, a dead pid.
tag=$($PY -c "
import socket
x = 2166136261
for c in socket.gethostname().encode(): x = ((x ^ c) * 16777619) & 0xffffffff
print('%08x' % x)")
sh -c 'exit 0' & dead=$!; wait $dead
O="$T_TMP/out"; mkdir -p "$O"
head -c 100000 /dev/zero > "$O/.mbench-$dead-$tag-1234500.tmp"
head -c 10 /dev/zero > "$O/.mbench-$$-$tag-1234500.tmp"          # a live writer
head -c 10 /dev/zero > "$O/.mbench-$dead-0badf00d-1234500.tmp"   # another host
expect_exit "exec writes its JSON beside a killed writer's temp file" 0 $MBENCH exec --runs 1 -q --json "$O/r.json" -- true
if [ ! -e "$O/.mbench-$dead-$tag-1234500.tmp" ]; then ok "the dead writer's temp file is removed"; else notok "the dead writer's temp file is removed" "$(ls -a "$O")"; fi
if [ -e "$O/.mbench-$$-$tag-1234500.tmp" ] && [ -e "$O/.mbench-$dead-0badf00d-1234500.tmp" ]; then ok "a live writer's and another host's are kept"; else notok "a live writer's and another host's are kept" "$(ls -a "$O")"; fi
done_testing
