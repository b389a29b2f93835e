#!/usr/bin/env bash
# The folders of src/ and cli/ include each other only downwards: the
# folder-level include graph (scripts/layers.py) has no cycle, and every
# edge goes down the layer order written in the script and in
# docs/DESIGN.md.  The script itself is checked on made-up trees, so that
# a planted cycle or an upward include is seen to fail.
. "$(dirname "$0")/lib.sh"
L="$MBENCH_ROOT/scripts/layers.py"

out=$($PY "$L" "$MBENCH_ROOT" --edges --order 2>&1); rc=$?
if [ $rc -eq 0 ]; then ok "no include cycle between folders, every edge goes down"
else notok "no include cycle between folders, every edge goes down" "$(echo "$out" | grep -vE '^[a-z]+ -> [a-z]+ \([0-9]+\)$' | head -20)"; fi
contains "no cycle is reported" "$out" "no include cycle between folders"
contains "the edges are listed" "$out" "cli -> core"
contains "the public API's front end is on top" "$out" "api -> runner"
contains "the store reads the document layer" "$out" "store -> doc"
for e in "store -> report" "regress -> report" "doc -> report" "doc -> store"; do
    case "$out" in *"$e ("*) notok "no edge $e" "$(echo "$out" | grep -F "$e")";; *) ok "no edge $e";; esac
done
if echo "$out" | grep -qE '^(core|plan) -> (runner|accuracy|report|store|exec|api|doc)'; then
    notok "core and plan include nothing above them" "$(echo "$out" | grep -E '^(core|plan) ->')"
else ok "core and plan include nothing above them"; fi

# A made-up tree with a planted cycle a -> b -> a: found, named with the
# include that closes it, and fails; without the cycle it is clean.
t="$T_TMP/tree"; mkdir -p "$t/src/a" "$t/src/b" "$t/cli"
printf '#include "b/y.h"\n' > "$t/src/a/x.c"
printf '#include "a/x.h"\n' > "$t/src/b/y.c"
printf '#include "a/x.h"\n#include "mbench.h"\n' > "$t/cli/main.c"
out=$($PY "$L" "$t" 2>&1); rc=$?
[ $rc -eq 1 ] && ok "a planted cycle fails" || notok "a planted cycle fails" "exit $rc" "$out"
contains "the cycle is named" "$out" "cycle between folders: a b"
contains "the cycle is named with its include" "$out" "b -> a: src/b/y.c: a/x.h"
rm "$t/src/b/y.c"
out=$($PY "$L" "$t" 2>&1); rc=$?
[ $rc -eq 0 ] && ok "without the cycle it is clean" || notok "without the cycle it is clean" "exit $rc" "$out"

# The layer order: an include upwards fails without any cycle, and so
# does a folder the order does not place.
u="$T_TMP/up"; mkdir -p "$u/src/core" "$u/src/store" "$u/cli"
printf '#include "store/s.h"\n' > "$u/src/core/c.c"
printf '#include "core/c.h"\n' > "$u/cli/main.c"
out=$($PY "$L" "$u" --order 2>&1); rc=$?
[ $rc -eq 1 ] && ok "an include upwards fails" || notok "an include upwards fails" "exit $rc" "$out"
contains "the upward edge is named" "$out" "core -> store does not go down the layer order: src/core/c.c: store/s.h"
printf '#include "core/c.h"\n' > "$u/src/core/c.c"
mkdir -p "$u/src/newdir"; printf '#include "core/c.h"\n' > "$u/src/newdir/n.c"
out=$($PY "$L" "$u" --order 2>&1); rc=$?
[ $rc -eq 1 ] && ok "a folder out of the order fails" || notok "a folder out of the order fails" "exit $rc" "$out"
contains "the folder is named" "$out" "folder newdir is not in the layer order"
rm -r "$u/src/newdir"
out=$($PY "$L" "$u" --order 2>&1); rc=$?
[ $rc -eq 0 ] && ok "includes downwards pass the order" || notok "includes downwards pass the order" "exit $rc" "$out"
done_testing
