#!/usr/bin/env bash
# Runs every test program (build/tests/test_*) and every integration script
# (tests/integration/*.sh), each speaking TAP, several at a time, and ends
# with the line "N passed, N failed".
# Usage: tests/run.sh BUILD_DIR [FILTER]
# MBENCH_TEST_JOBS: how many suites run at once (default: 2 per CPU, at
# least 4 - most suites wait on child processes and files, not on a CPU).
# MBENCH_BUILT=1: BUILD_DIR was just built (see below).
# MBENCH_SUITES=unit: only the C unit test programs (make unit).
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
# Traversable by others: some suites run mbench as nobody on files in
# their scratch directory (store.sh, badinput.sh).
chmod 755 "$MBENCH_TEST_TMP"
trap 'rm -rf "$MBENCH_TEST_TMP"' EXIT
log="$MBENCH_TEST_TMP/all.log"
# python3 through PATH, as the commands under test name it, is Debian's
# /usr/bin/python3, the one scripts/deps.sh installs the test packages for
# (and the only one a bare Debian 12 has).  Another python3 first in PATH
# (pyenv's: a bash shim, then an interpreter whose site imports certifi,
# 0.2 s a call, a hundred calls a run) is kept in MBENCH_PATH_PYTHON3 for
# python.sh, which installs the wheel into a venv of it too.
if [ -x /usr/bin/python3 ] && py3=$(command -v python3) && [ "$py3" != /usr/bin/python3 ]; then
    MBENCH_PATH_PYTHON3=$(cd / && python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
    export MBENCH_PATH_PYTHON3
    mkdir -p "$MBENCH_TEST_TMP/bin" && ln -s /usr/bin/python3 "$MBENCH_TEST_TMP/bin/python3" &&
        export PATH="$MBENCH_TEST_TMP/bin:$PATH"
fi
cpus=$(nproc 2>/dev/null || echo 2)
jobs=${MBENCH_TEST_JOBS:-$((cpus * 2 < 4 ? 4 : cpus * 2))}

# run_one INDEX NAME COMMAND...: runs one suite with its own scratch
# directory (suites must not share files) and writes "passed failed
# skipped wall-seconds CPU-seconds" to res.INDEX and its TAP to out.INDEX.
run_one() {
    local i=$1 name=$2; shift 2
    local out="$MBENCH_TEST_TMP/out.$i" start=$(date +%s)
    mkdir -p "$MBENCH_TEST_TMP/suite.$i"
    MBENCH_TEST_TMP="$MBENCH_TEST_TMP/suite.$i" "$@" >"$out" 2>&1 </dev/null
    local rc=$?
    local p f s
    p=$(grep -E '^ok [0-9]+' "$out" | grep -vc '# SKIP' || true)
    s=$(grep -E '^ok [0-9]+' "$out" | grep -c '# SKIP' || true)
    f=$(grep -cE '^not ok [0-9]+' "$out" || true)
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        f=1   # crashed or failed before reporting
        echo "not ok - $name exited with status $rc" >>"$out"
    fi
    # CPU seconds of the suite's processes: this subshell's children (the
    # builtin writes to a file: in a command substitution it would count
    # the substitution's own children).
    times >"$MBENCH_TEST_TMP/times.$i"
    local cpu
    cpu=$(awk 'NR == 2 { gsub(/[ms]/, " "); printf "%d", $1 * 60 + $2 + $3 * 60 + $4 }' "$MBENCH_TEST_TMP/times.$i")
    echo "$p $f $s $(( $(date +%s) - start )) $cpu" >"$MBENCH_TEST_TMP/res.$i"
}

# The suites, the longest first so that none of them starts last (slurm
# waits a minute for Slurm's shortest time limit; the others are busy).
# python.sh runs `make wheel` on the build directory.  When the build is
# up to date that only reads it, and it runs with the others; otherwise it
# would relink build/mbench while other suites run it, so it runs alone,
# after them.  MBENCH_BUILT=1 (make test, make check: they have just built
# it) says it is up to date; without it, `make -n` must show no compiler or
# linker (it always shows some: build_info.h is remade on every run, and a
# dry run cannot see that it comes out the same).  install.sh's `make
# install` works on a copy of the build directory.
names=() cmds=()
add() { names+=("$1"); shift; cmds+=("$*"); }
alone=" python "
if [ "${MBENCH_BUILT:-}" = 1 ] ||
    ! make -n -s -C "$root" --no-print-directory BUILD="$build" all 2>/dev/null |
    grep -qE '(^| )(cc|c\+\+|g\+\+|ar) '; then
    alone=" "
fi
# In the order of their wall time in make test here (tests/run.sh prints
# it): the ones that wait (slurm, require, install, test_load) overlap the
# busy ones, and what is left for the end is short.
slow="slurm python require python_models install torch options load models test_load
onnx_testdata profile_subgraph compare ci_recipes info store_pg report_browser run fashion
slow_models metrics_ref exec conventions profile store"
slow=$(echo $slow)   # one line: names are matched with a space either side
for n in $slow; do
    { [ -z "$filter" ] || [[ "$n" == *$filter* ]]; } || continue
    if [ -f "$root/tests/integration/$n.sh" ]; then
        [ "${MBENCH_SUITES:-}" = unit ] || add "$n" bash "$root/tests/integration/$n.sh"
    elif [ -x "$root/$build/tests/$n" ]; then add "$n" "$root/$build/tests/$n"; fi
done
# The programs of the sources there are now (a build directory may still
# hold one whose source was renamed).
for src in "$root"/tests/unit/test_*.c; do
    n=$(basename "$src" .c) t="$root/$build/tests/$(basename "$src" .c)"
    [ -x "$t" ] || continue
    [[ " $slow " == *" $n "* ]] && continue
    [ -n "$filter" ] && [[ "$n" != *$filter* ]] && continue
    add "$n" "$t"
done
for t in "$root"/tests/integration/*.sh; do
    [ "${MBENCH_SUITES:-}" = unit ] && break
    [ -f "$t" ] || continue
    n=$(basename "$t" .sh)
    [ "$n" = lib ] && continue   # sourced by the scripts, not a test
    [[ " $slow " == *" $n "* ]] && continue
    [ -n "$filter" ] && [[ "$n" != *$filter* ]] && continue
    add "$n" bash "$t"
done

running=0
for i in "${!names[@]}"; do
    [[ "$alone" == *" ${names[$i]} "* ]] && continue
    if [ "$running" -ge "$jobs" ]; then
        wait -n
        running=$((running - 1))
    fi
    # shellcheck disable=SC2086 # a command line of paths without spaces
    run_one "$i" "${names[$i]}" ${cmds[$i]} &
    running=$((running + 1))
done
wait
for i in "${!names[@]}"; do
    # shellcheck disable=SC2086
    [[ "$alone" == *" ${names[$i]} "* ]] && ( run_one "$i" "${names[$i]}" ${cmds[$i]} )
done

pass=0 fail=0 skip=0
failed_names=()
for i in "${!names[@]}"; do
    name=${names[$i]} out="$MBENCH_TEST_TMP/out.$i"
    read -r p f s secs cpu <"$MBENCH_TEST_TMP/res.$i" || { p=0 f=1 s=0 secs=0 cpu=0; }
    pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
    if [ "$f" -gt 0 ]; then
        failed_names+=("$name")
        printf 'FAIL %-40s %3d passed, %d failed (%ds, %ds CPU)\n' "$name" "$p" "$f" "$secs" "$cpu"
        sed -e 's/^/    /' "$out" | grep -E '^    (not ok|#)' | head -40
    else
        printf 'ok   %-40s %3d passed%s (%ds, %ds CPU)\n' "$name" "$p" "$([ "$s" -gt 0 ] && echo ", $s skipped")" "$secs" "$cpu"
    fi
    cat "$out" >>"$log"
done

echo
[ ${#failed_names[@]} -gt 0 ] && echo "failed: ${failed_names[*]}"
if [ "$skip" -gt 0 ]; then
    echo "$pass passed, $fail failed, $skip skipped"
else
    echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
