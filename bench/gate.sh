#!/usr/bin/env bash
# bench/gate.sh - measures the error rates of `mbench gate` instead of
# assuming them (docs/GATE.md quotes the figures):
#   A/A: two separate `mbench run` processes of the same null-backend model
#        and settings, PAIRS times; every exit 1 is a false regression
#        (must be <= 1%).
#   planted slowdown: baseline at delay D, current at D * (1 + 2 * 5%) (twice
#        the default p50 threshold); every exit 1 is a catch (must be >= 95%).
# Pairs of both kinds are interleaved so they share the machine's state.
# Usage: bench/gate.sh BUILD_DIR [PAIRS] [DELAY_NS] [ITERATIONS]
set -u
build=${1:-build}
pairs=${2:-200}
delay=${3:-100000}
iters=${4:-200}
root=$(cd "$(dirname "$0")/.." && pwd)
mbench="$root/$build/mbench"
[ -x "$mbench" ] || { echo "bench/gate.sh: $mbench not built" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mbench-gate-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
slow=$(( delay + delay / 10 ))   # D * (1 + 2 * 0.05)

run() { # OUT DELAY
    "$mbench" run --backend null --backend-opt "delay=$2" --iterations "$iters" \
        --warmup 10 --save-samples --json "$1" gate-bench-model >/dev/null 2>&1
}
declare -A aa=([0]=0 [1]=0 [4]=0 [other]=0) ps=([0]=0 [1]=0 [4]=0 [other]=0)
tally() { # ARRAY CODE
    local -n t=$1
    case $2 in 0|1|4) t[$2]=$(( ${t[$2]} + 1 ));; *) t[other]=$(( ${t[other]} + 1 ));; esac
}
start=$(date +%s)
for i in $(seq 1 "$pairs"); do
    run "$tmp/a.json" "$delay" && run "$tmp/b.json" "$delay" || { echo "mbench run failed" >&2; exit 3; }
    "$mbench" gate -q --seed "$i" --baseline "$tmp/a.json" --current "$tmp/b.json"
    tally aa $?
    run "$tmp/c.json" "$delay" && run "$tmp/d.json" "$slow" || { echo "mbench run failed" >&2; exit 3; }
    "$mbench" gate -q --seed "$i" --baseline "$tmp/c.json" --current "$tmp/d.json"
    tally ps $?
done
secs=$(( $(date +%s) - start ))
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f%%", 100 * a / b }'; }
echo "gate error rates: null backend, delay ${delay} ns, ${iters} iterations per run, ${pairs} pairs each (${secs}s)"
echo "  A/A:      false regression ${aa[1]}/${pairs} = $(pct "${aa[1]}" "$pairs") (limit 1%);" \
     "pass ${aa[0]}, inconclusive ${aa[4]}, other ${aa[other]}"
echo "  slowdown: +10% (2x the 5% p50 threshold) caught ${ps[1]}/${pairs} = $(pct "${ps[1]}" "$pairs") (limit 95%);" \
     "pass ${ps[0]}, inconclusive ${ps[4]}, other ${ps[other]}"
fail=0
[ $(( aa[1] * 100 )) -le "$pairs" ] || { echo "  FAIL: false regression rate above 1%"; fail=1; }
[ $(( ps[1] * 100 )) -ge $(( pairs * 95 )) ] || { echo "  FAIL: detection rate below 95%"; fail=1; }
exit $fail
