#!/usr/bin/env bash
# Runs every libFuzzer target in BUILD (default build/fuzz) for SECONDS
# (default 60) each, one after the other, from its seed corpus
# tests/fuzz/corpus/<target>/ (read only: new inputs go to
# BUILD/corpus/<target>/).  Prints one line per target with libFuzzer's
# execution count and coverage; exits 1 when a target crashed, leaked or
# hit undefined behaviour (the input is kept as BUILD/crash-<target>-*).
#   tests/fuzz/run.sh [BUILD] [SECONDS] [TARGET...]
set -uo pipefail
build=${1:-build/fuzz}
secs=${2:-60}
shift 2 2>/dev/null || shift $#
here=$(cd "$(dirname "$0")" && pwd)

# -max_len per format: large enough for every seed and for the
# structures the parser handles, small enough to keep executions fast.
# Parsers whose defects grow with the input (events: many names, deep
# nesting, long lines; csv and tasks: wide tables; onnx and npz: length
# fields) get 64 KiB (issue 37).
max_len() {
    case "$1" in
        events|csv|tasks|onnx|npz) echo 65536 ;;
        result|import|merge|trace|machine|site) echo 8192 ;;
        *) echo 4096 ;;
    esac
}

# The time one input may take: a parser that slows with its input (the
# events reader once did, quadratically) is a finding, not a slow run.
time_limit() {
    case "$1" in
        events|csv|tasks) echo 2 ;;
        *) echo 10 ;;
    esac
}

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    for f in "$here"/fuzz_*.c; do
        t=$(basename "$f" .c)
        targets+=("${t#fuzz_}")
    done
fi

fail=0
for t in "${targets[@]}"; do
    bin=$build/fuzz_$t
    [ -x "$bin" ] || { echo "FAIL fuzz $t: $bin is not built (make fuzz)"; fail=1; continue; }
    # The inputs that once crashed it, each run once: a regression test
    # that does not depend on the fuzzer finding them again.
    crashes=("$here"/corpus/"$t"/crash-*)
    if [ -e "${crashes[0]}" ] &&
       ! "$bin" "${crashes[@]}" >"$build/fuzz_$t.replay.log" 2>&1; then
        echo "FAIL fuzz $t: a kept crash input crashes again (see $build/fuzz_$t.replay.log)"
        grep -m3 -E 'ERROR|SUMMARY|runtime error' "$build/fuzz_$t.replay.log" | sed 's/^/     /'
        fail=1
        continue
    fi
    work=$build/corpus/$t
    mkdir -p "$work"
    seeds=$here/corpus/$t
    log=$build/fuzz_$t.log
    dict=()
    [ -f "$here/$t.dict" ] && dict=(-dict="$here/$t.dict")
    nice -n 10 "$bin" -max_total_time="$secs" -max_len="$(max_len "$t")" \
        -timeout="$(time_limit "$t")" -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1 \
        -artifact_prefix="$build/crash-$t-" \
        "${dict[@]}" "$work" "$seeds" >"$log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n1 | cut -d' ' -f2)
    if [ $rc -eq 0 ]; then
        echo "ok   fuzz $t: ${runs:-?} runs in ${secs}s, cov ${cov:-?}"
    else
        echo "FAIL fuzz $t (exit $rc): see $log and $build/crash-$t-*"
        grep -m3 -E 'ERROR|SUMMARY|runtime error' "$log" | sed 's/^/     /'
        fail=1
    fi
done
exit $fail
