#!/usr/bin/env bash
# No two files of src/ and cli/ call into each other: the file-level call
# graph (scripts/circles.py, read from the build's object files) has no
# circle.  The script itself is checked on made-up objects, so that a
# planted circle is seen to fail.
. "$(dirname "$0")/lib.sh"
C="$MBENCH_ROOT/scripts/circles.py"

out=$($PY "$C" "$MBENCH_BUILD/obj" 2>&1); rc=$?
if [ $rc -eq 0 ]; then ok "no two files of src/ and cli/ call into each other"
else notok "no two files of src/ and cli/ call into each other" "$(echo "$out" | head -30)"; fi
contains "the files and calls are counted" "$out" "files,"

# Made-up objects: a.c calls b.c and b.c calls back (a circle); c.c only
# reads a table of d.c (data, not a call: no edge).
t="$T_TMP/objs"; mkdir -p "$t"
printf 'int b(void);\nint a(void) { return b(); }\n' > "$t/a.c"
printf 'int a(void);\nint b(void) { return a() + 1; }\n' > "$t/b.c"
printf 'extern const int table[];\nint c(void) { return table[0]; }\n' > "$t/c.c"
printf 'int c(void);\nconst int table[] = {1};\nint d(void) { return c(); }\n' > "$t/d.c"
for f in a b c d; do cc -c -o "$t/$f.o" "$t/$f.c" || notok "compile $f.c"; done
out=$($PY "$C" "$t" 2>&1); rc=$?
[ $rc -eq 1 ] && ok "a planted circle fails" || notok "a planted circle fails" "exit $rc" "$out"
contains "the circle is named" "$out" "circle of files: a.c b.c"
contains "the circle is named with its calls" "$out" "b.c -> a.c: a"
case "$out" in *"c.c d.c"*) notok "a table read is not a call" "$out";; *) ok "a table read is not a call";; esac
rm "$t/b.o"
out=$($PY "$C" "$t" 2>&1); rc=$?
[ $rc -eq 0 ] && ok "without the circle it is clean" || notok "without the circle it is clean" "exit $rc" "$out"
expect_exit "an empty folder is a usage error" 2 $PY "$C" "$T_TMP/none-here"
done_testing
