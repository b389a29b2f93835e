#!/usr/bin/env bash
# The folders of src/ and cli/ include each other only downwards: the
# folder-level include graph (scripts/layers.py) may keep the cycles listed
# in tests/fixtures/layers/allowed.txt while they are being broken, and
# fails on any other.  The script itself is checked on a made-up tree.
. "$(dirname "$0")/lib.sh"
L="$MBENCH_ROOT/scripts/layers.py"

out=$($PY "$L" "$MBENCH_ROOT" --edges --allow "$FIX/layers/allowed.txt" 2>&1); rc=$?
if [ $rc -eq 0 ]; then ok "no include cycle between folders beyond the allowed list"
else notok "no include cycle between folders beyond the allowed list" "$(echo "$out" | grep -E 'NEW|cycle|edge' | head -20)"; fi
contains "the edges are listed" "$out" "cli -> core"
contains "the public API's front end is on top" "$out" "api -> runner"
if echo "$out" | grep -qE '^(core|plan) -> (runner|accuracy|report|store|exec|api)'; then
    notok "core and plan include nothing above them" "$(echo "$out" | grep -E '^(core|plan) ->')"
else ok "core and plan include nothing above them"; fi
case "$out" in *"cycle between folders:"*"api"*) notok "api is in no cycle" "$out";; *) ok "api is in no cycle";; esac

# A made-up tree: a -> b -> a is found, named with the include that closes
# it, and fails; with the edge allowed it passes; without the cycle it is
# clean.
t="$T_TMP/tree"; mkdir -p "$t/src/a" "$t/src/b" "$t/cli"
printf '#include "b/y.h"\n' > "$t/src/a/x.c"
printf '#include "a/x.h"\n' > "$t/src/b/y.c"
printf '#include "a/x.h"\n#include "mbench.h"\n' > "$t/cli/main.c"
out=$($PY "$L" "$t" 2>&1); rc=$?
[ $rc -eq 1 ] && ok "a cycle fails" || notok "a cycle fails" "exit $rc" "$out"
contains "the cycle is named with its include" "$out" "b -> a: src/b/y.c: a/x.h"
printf '# known\nb -> a\na -> b\n' > "$t/allowed.txt"
$PY "$L" "$t" --allow "$t/allowed.txt" >/dev/null 2>&1 && ok "an allowed cycle passes" || notok "an allowed cycle passes"
printf 'a -> b\n' > "$t/allowed.txt"
out=$($PY "$L" "$t" --allow "$t/allowed.txt" 2>&1); rc=$?
[ $rc -eq 1 ] && ok "an edge not on the list fails" || notok "an edge not on the list fails" "exit $rc"
contains "the new edge is marked" "$out" "NEW b -> a"
rm "$t/src/b/y.c"
printf 'b -> a\n' > "$t/allowed.txt"
out=$($PY "$L" "$t" --allow "$t/allowed.txt" 2>&1); rc=$?
[ $rc -eq 0 ] && ok "without the cycle it is clean" || notok "without the cycle it is clean" "exit $rc" "$out"
contains "a gone allowed edge is reported" "$out" "b -> a is gone"
done_testing
