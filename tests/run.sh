#!/usr/bin/env bash
# Runs every test program (build/tests/test_*) and every integration script
# (tests/integration/*.sh), each speaking TAP, and ends with the line
# "N passed, N failed".  Usage: tests/run.sh BUILD_DIR [FILTER]
set -u
build=${1:-build}
filter=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
export MBENCH="$root/$build/mbench"
export MBENCH_BUILD="$root/$build"
export MBENCH_ROOT="$root"
# The runtime fetched by scripts/fetch-ort.sh, unless MBENCH_ORT_LIB names
# another one.
export MBENCH_ORT_LIB="${MBENCH_ORT_LIB:-$root/build/ort/libonnxruntime.so.1}"
export MBENCH_TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/mbench-test.XXXXXX")
trap 'rm -rf "$MBENCH_TEST_TMP"' EXIT
log="$MBENCH_TEST_TMP/all.log"

pass=0 fail=0 skip=0
failed_names=()
run_one() { # name, command...
    local name=$1; shift
    local out="$MBENCH_TEST_TMP/out.$$" start=$(date +%s)
    "$@" >"$out" 2>&1
    local rc=$?
    local p f s
    p=$(grep -E '^ok [0-9]+' "$out" | grep -vc '# SKIP' || true)
    s=$(grep -E '^ok [0-9]+' "$out" | grep -c '# SKIP' || true)
    f=$(grep -cE '^not ok [0-9]+' "$out" || true)
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        f=1   # crashed or failed before reporting
        echo "not ok - $name exited with status $rc" >>"$out"
    fi
    pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
    local secs=$(( $(date +%s) - start ))
    if [ "$f" -gt 0 ]; then
        failed_names+=("$name")
        printf 'FAIL %-40s %3d passed, %d failed (%ds)\n' "$name" "$p" "$f" "$secs"
        sed -e 's/^/    /' "$out" | grep -E '^    (not ok|#)' | head -40
    else
        printf 'ok   %-40s %3d passed%s (%ds)\n' "$name" "$p" "$([ "$s" -gt 0 ] && echo ", $s skipped")" "$secs"
    fi
    cat "$out" >>"$log"
    rm -f "$out"
}

for t in "$root/$build"/tests/test_*; do
    [ -x "$t" ] || continue
    n=$(basename "$t")
    [ -n "$filter" ] && [[ "$n" != *$filter* ]] && continue
    run_one "$n" "$t"
done
for t in "$root"/tests/integration/*.sh; do
    [ -f "$t" ] || continue
    n=$(basename "$t" .sh)
    [ "$n" = lib ] && continue   # sourced by the scripts, not a test
    [ -n "$filter" ] && [[ "$n" != *$filter* ]] && continue
    run_one "$n" bash "$t"
done

echo
[ ${#failed_names[@]} -gt 0 ] && echo "failed: ${failed_names[*]}"
if [ "$skip" -gt 0 ]; then
    echo "$pass passed, $fail failed, $skip skipped"
else
    echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
