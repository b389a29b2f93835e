#!/usr/bin/env bash
# bench/replication.sh - do mbench's intervals hold on a real model through
# ONNX Runtime on this shared machine, loaded half of the time?  Measures,
# with the documented workflows and default settings (docs/STATISTICS.md
# and docs/GATE.md quote the figures):
#   reference  the slow twin's latency ratio from long interleaved compares
#              (REF_PROCESSES processes a side, the per-process budget of a
#              default compare), at the start and at the end;
#   planted    COMPARES `mbench compare base=M twin=TWIN` (TWIN: ~11% slower,
#              identical outputs, bench/models/make_slow_twin.py), each then
#              `mbench gate --current` (p50, 5%): how often the 95% CI of the
#              ratio holds the reference, how often the slowdown is caught;
#   A/A        COMPARES `mbench compare a=M b=M` and `gate --current`,
#              interleaved with the planted ones: false claims and false
#              regressions;
#   two runs   PAIRS pairs of separate `mbench run M` gated with
#              `gate --baseline A --current B`: how often the CI holds 1,
#              with the default between-run term and with the term from a
#              store that every earlier run was imported into.
# During the compares a controlled load generator (bench/loadgen.py) loads
# the machine half of the time, in phases of random length (mean LOAD_MEAN
# seconds); the two-run pairs meet whatever the machine does then.  Every
# compare records the load average, the generator's share of its time and
# the machine's CPU-busy share per round.  It runs unattended: rows go to
# OUT (default BUILD/bench/replication), the summary to stdout.
# Usage: bench/replication.sh BUILD_DIR [COMPARES] [PAIRS]
#        env: MODEL (models/digits_fp32.onnx), BATCH (8), OPTS ("--threads
#        1"), TWIN_N (11), LOAD_MEAN (6), REF_PROCESSES (200), OUT,
#        PHASES ("compares pairs": "pairs" alone measures only the two-run
#        pairs)
set -u
build=${1:-build}
n_cmp=${2:-40}
n_pairs=${3:-24}
root=$(cd "$(dirname "$0")/.." && pwd)
src_mbench="$root/$build/mbench"
model=${MODEL:-$root/models/digits_fp32.onnx}
batch=${BATCH:-8}
read -r -a opts <<<"${OPTS:---threads 1}"
twin_n=${TWIN_N:-11}
load_mean=${LOAD_MEAN:-6}
ref_k=${REF_PROCESSES:-200}
out=${OUT:-$root/$build/bench/replication}
phases=" ${PHASES:-compares pairs} "
case "$phases" in *" compares "*) ;; *) n_cmp=0 ;; esac
case "$phases" in *" pairs "*) ;; *) n_pairs=0 ;; esac
py=/usr/bin/python3
[ -x "$src_mbench" ] || { echo "bench/replication.sh: $src_mbench not built" >&2; exit 2; }
export MBENCH_ORT_LIB=${MBENCH_ORT_LIB:-$root/build/ort/libonnxruntime.so.1}
rm -rf "$out" && mkdir -p "$out/twin" "$out/docs" || exit 3
# A copy of the binary, so that a rebuild meanwhile does not change it.
cp "$src_mbench" "$out/mbench" && mbench="$out/mbench"
twin="$out/twin/$(basename "$model")" # same name: the gate pairs by name
$py "$root/bench/models/make_slow_twin.py" "$model" "$twin" "$twin_n" || exit 3
common=(--batch "$batch" "${opts[@]}")
lg=
cleanup() { [ -n "$lg" ] && kill "$lg" 2>/dev/null && wait "$lg" 2>/dev/null; }
trap cleanup EXIT
echo "model $(basename "$model") batch $batch options '${opts[*]}', twin: $twin_n extra MatMuls; $(nproc) CPUs"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); rows in $out"

# One measurement: its command line, then a row "NAME T0 T1 LOAD0 LOAD1 RC".
stamp() { echo "$(date +%s.%N) $(cut -d' ' -f1 /proc/loadavg)"; }
measure() { # NAME COMMAND...
    local name=$1 a b rc
    shift
    a=$(stamp)
    "$@" >"$out/docs/$name.out" 2>&1
    rc=$?
    b=$(stamp)
    echo "$name $a $b $rc" >>"$out/times.txt"
}
: >"$out/times.txt"
[ "$n_cmp" -gt 0 ] && { $py "$root/bench/loadgen.py" "$out/load.log" 100000 "$load_mean" 2 24 & lg=$!; }

reference() { # NAME
    measure "$1" "$mbench" compare base="$model" twin="$twin" "${common[@]}" \
        --processes "$ref_k" --min-time "$((ref_k / 40))s" --quiet --json "$out/docs/$1.json"
}
[ "$n_cmp" -gt 0 ] && reference ref1
for i in $(seq 1 "$n_cmp"); do
    for what in $([ $((i % 2)) = 1 ] && echo "pl aa" || echo "aa pl"); do
        if [ "$what" = pl ]; then v=(base="$model" twin="$twin"); else v=(a="$model" b="$model"); fi
        measure "$what$i" "$mbench" compare "${v[@]}" "${common[@]}" --quiet --json "$out/docs/$what$i.json"
        measure "$what$i-gate" "$mbench" gate --current "$out/docs/$what$i.json" \
            --max-regression size=off,memory=off --json "$out/docs/$what$i-gate.json"
    done
done
[ "$n_cmp" -gt 0 ] && reference ref2
cleanup
lg=

# Two separate runs, gated; the store holds every earlier run (history).
store="$out/docs/history.db"
for i in $(seq 1 "$n_pairs"); do
    measure "run${i}a" "$mbench" run "$model" "${common[@]}" --quiet --json "$out/docs/run${i}a.json"
    measure "run${i}b" "$mbench" run "$model" "${common[@]}" --quiet --json "$out/docs/run${i}b.json"
    measure "two$i" "$mbench" gate --baseline "$out/docs/run${i}a.json" --current "$out/docs/run${i}b.json" \
        --max-regression size=off,memory=off --json "$out/docs/two$i.json"
    measure "twohist$i" "$mbench" gate --db "$store" --no-store --baseline "$out/docs/run${i}a.json" \
        --current "$out/docs/run${i}b.json" --max-regression size=off,memory=off --json "$out/docs/twohist$i.json"
    "$mbench" db import --db "$store" "$out/docs/run${i}a.json" "$out/docs/run${i}b.json" >/dev/null 2>&1
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
$py "$root/bench/replication_summary.py" "$out" "$n_cmp" "$n_pairs"
