# lib.sh - TAP helpers for integration scripts (sourced, not run).
# Each check prints "ok N - name" or "not ok N - name" with the evidence.
T_N=0
T_FAILED=0
ok()   { T_N=$((T_N + 1)); echo "ok $T_N - $1"; }
notok() { T_N=$((T_N + 1)); T_FAILED=1; echo "not ok $T_N - $1"; shift; for l in "$@"; do echo "#   $l"; done; }
skip() { T_N=$((T_N + 1)); echo "ok $T_N - $1 # SKIP $2"; }
# nobody_can_run: as root, whether the unprivileged user nobody can run
# $MBENCH and load ONNX Runtime (not when the checkout is in a private
# directory such as root's mode-700 home).
nobody_can_run() {
    runuser -u nobody -- test -x "$MBENCH" -a -r "${MBENCH_ORT_LIB:-/nonexistent}" 2>/dev/null
}
# check NAME CMD...: passes when CMD exits 0.
check() { local n=$1; shift; local o; if o=$("$@" 2>&1); then ok "$n"; else notok "$n" "command: $*" "$(echo "$o" | tail -5)"; fi; }
# expect_exit NAME CODE CMD...: passes when CMD exits with CODE; keeps its
# stderr in $LAST_ERR and stdout in $LAST_OUT.
expect_exit() {
    local n=$1 code=$2; shift 2
    LAST_OUT=$("$@" 2>"$T_TMP/stderr"); local rc=$?
    LAST_ERR=$(cat "$T_TMP/stderr")
    if [ "$rc" -eq "$code" ]; then ok "$n"; else notok "$n" "command: $*" "exit $rc, expected $code" "stderr: $LAST_ERR"; fi
}
# contains NAME HAYSTACK NEEDLE
contains() { if [[ "$2" == *"$3"* ]]; then ok "$1"; else notok "$1" "expected to find: $3" "in: $(echo "$2" | head -20)"; fi; }
# one_line NAME TEXT: the text is exactly one line.
one_line() { if [ "$(printf '%s' "$2" | grep -c '')" -eq 1 ]; then ok "$1"; else notok "$1" "expected one line, got:" "$2"; fi; }
done_testing() { echo "1..$T_N"; exit $T_FAILED; }
# has_modules PYTHON MODULE...: PYTHON exists and can find every module,
# without importing them (importing torch or jax to learn that they are
# there costs seconds).  A module that is there but broken fails the
# checks that use it instead of skipping them.
has_modules() {
    local py=$1; shift
    [ -x "$py" ] && "$py" -c 'import importlib.util, sys
sys.exit(any(importlib.util.find_spec(m) is None for m in sys.argv[1:]))' "$@" 2>/dev/null
}
T_TMP=$(mktemp -d "${MBENCH_TEST_TMP:-/tmp}/it.XXXXXX")
FIX="$MBENCH_ROOT/tests/fixtures"
PY=/usr/bin/python3
