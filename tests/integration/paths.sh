#!/usr/bin/env bash
# Every file path named in a comment or a document exists
# (scripts/paths.py): comments of C, Python, shell and Makefiles, and the
# text of the Markdown docs and the man page.  The script itself is checked
# on a made-up tree, so that a planted stale path is seen to fail.
. "$(dirname "$0")/lib.sh"
P="$MBENCH_ROOT/scripts/paths.py"

out=$($PY "$P" "$MBENCH_ROOT" 2>&1); rc=$?
[ $rc -eq 0 ] && ok "every path named in comments and docs exists" \
    || notok "every path named in comments and docs exists" "$(echo "$out" | head -30)"

# A made-up tree: a comment and a doc naming files that moved, beside
# names that are no paths (a placeholder, a URL, a string in code, a path
# under build/, another project's file, ../ outside the tree).
t="$T_TMP/tree"; mkdir -p "$t/src/compare" "$t/src/plan" "$t/cli" "$t/docs"
: > "$t/src/plan/planopt.h"
cat > "$t/cli/cmd.c" <<'C'
/* the engine (src/runner/cmprun.c) and the options (plan/planopt.h) */
static const char *s = "src/runner/gone.c"; // and compare/variant.h
C
cat > "$t/docs/X.md" <<'MD'
See `cli/cmd_X.c`, https://example.org/src/plan/none.c, build/gen/options.inc,
onnxruntime/core/session.cc, ../shared/tools/steal-time.sh and docs/LATER.md.
MD
out=$($PY "$P" "$t" --files 2>&1); rc=$?
[ $rc -eq 1 ] && ok "stale paths fail" || notok "stale paths fail" "exit $rc" "$out"
contains "a moved file in a comment is named with its line" "$out" "cli/cmd.c:1: src/runner/cmprun.c"
contains "an include-style path in a // comment too" "$out" "cli/cmd.c:2: compare/variant.h"
contains "a missing file in a doc" "$out" "docs/X.md:2: docs/LATER.md"
contains "they are counted" "$out" "3 path(s) named in comments or docs do not exist"
case "$out" in *planopt.h*|*gone.c*|*cmd_X*|*none.c*|*options.inc*|*session.cc*|*steal-time*)
    notok "names that are no stale paths are not reported" "$out" ;;
*) ok "names that are no stale paths are not reported" ;; esac
mkdir -p "$t/src/runner" && : > "$t/src/runner/cmprun.c" && : > "$t/src/compare/variant.h" && : > "$t/docs/LATER.md"
out=$($PY "$P" "$t" --files 2>&1); rc=$?
[ $rc -eq 0 ] && ok "once the files exist the tree is clean" || notok "once the files exist the tree is clean" "exit $rc" "$out"
expect_exit "a directory that is no source tree is a usage error" 2 $PY "$P" "$T_TMP/nothing"
one_line "it says so in one line" "$LAST_ERR"
done_testing
