#!/usr/bin/env bash
# bench/replication.sh - are mbench's intervals and verdicts honest on a real
# model through ONNX Runtime on this machine?  Measures, with the documented
# workflows and default settings (docs/STATISTICS.md, docs/GATE.md quote the
# figures):
#   truth   the slow twin's true latency ratio: the mean of two long
#           interleaved compares (200 processes a side), at the start and
#           at the end;
#   A/A compare   `mbench compare a=M b=M`: how often a difference is claimed;
#   A/A gate      two `mbench run M --json` and `mbench gate`: false
#                 regressions (exit 1) and passes (exit 0);
#   A/A gate, interleaved   `mbench compare a=M b=M --json c.json` then
#                 `mbench gate --current c.json` (the recommended CI
#                 workflow: both sides measured in one job, paired);
#   planted       `mbench run M` vs `mbench run TWIN` (a ~10% slower twin
#                 with identical outputs, bench/models/make_slow_twin.py),
#                 gated on latency alone: catches (exit 1), and how often the
#                 reported 95% CI of the p50 ratio holds the true ratio;
#                 the same with the interleaved workflow;
#   coverage      the null backend with process effects, two modes and
#                 autocorrelated noise: how often the 95% CI of the median
#                 holds the true value (and, for contrast, with one process);
#   time          wall time of a default run and a default compare.
# A/A and planted pairs are interleaved so that they share the machine.
# Usage: bench/replication.sh BUILD_DIR [AA_COMPARES] [GATE_PAIRS] [PLANTED]
#        (the interleaved gate is run on max(AA_COMPARES, GATE_PAIRS) A/A
#        compares and PLANTED base/twin compares)
#        env: MODEL (models/digits_fp32.onnx), BATCH (8), OPTS (extra run
#        options for every measurement, e.g. "--threads 1"), TWIN_N (11),
#        SIMS (200)
set -u
build=${1:-build}
n_cmp=${2:-40}
n_gate=${3:-100}
n_slow=${4:-40}
root=$(cd "$(dirname "$0")/.." && pwd)
mbench="$root/$build/mbench"
model=${MODEL:-$root/models/digits_fp32.onnx}
batch=${BATCH:-8}
read -r -a opts <<<"${OPTS:-}"
twin_n=${TWIN_N:-11}
sims=${SIMS:-200}
py=/usr/bin/python3
[ -x "$mbench" ] || { echo "bench/replication.sh: $mbench not built" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mbench-repl-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# Same file name as the model, so that the gate pairs the runs by name.
mkdir -p "$tmp/twin"
twin="$tmp/twin/$(basename "$model")"
$py "$root/bench/models/make_slow_twin.py" "$model" "$twin" "$twin_n" || exit 3
common=(--batch "$batch" "${opts[@]}")
echo "model $(basename "$model") batch $batch options '${OPTS:-}' twin: $twin_n extra MatMuls"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- the true ratio ---------------------------------------------------
# A long interleaved compare (200 processes a side, 25 ms each: the budget
# per process of a default compare with --processes 40), at the
# start and again at the end: their mean is the true ratio, and their
# difference shows how much the machine moved it meanwhile.
truth_run() {
    "$mbench" compare base="$model" twin="$twin" "${common[@]}" --processes 200 \
        --min-time 5s --quiet --json "$1" || exit 3
    $py -c "import json,sys; v=json.load(open(sys.argv[1]))['comparison']['variants'][1]['speedup_median']; print(1/v['value'], 1/v['ci95'][1], 1/v['ci95'][0])" "$1"
}
read -r truth1 lo1 hi1 < <(truth_run "$tmp/truth1.json")
echo "true p50 ratio twin/base, start (200 interleaved processes each): $truth1 (95% CI $lo1..$hi1)"

# ---- A/A compares, A/A gates and planted slowdowns, interleaved --------
: >"$tmp/cmp.txt"; : >"$tmp/aa.txt"; : >"$tmp/ps.txt"; : >"$tmp/iaa.txt"; : >"$tmp/ips.txt"
n_icmp=$(( n_cmp > n_gate ? n_cmp : n_gate ))
p50of() { $py -c "import json,sys; m=[x for x in json.load(open(sys.argv[1]))['comparisons'][0]['metrics'] if x['metric']=='p50'][0]; print(m['ratio'], *(m['ci95'] or [0,0]))" "$1"; }
run() { "$mbench" run "$1" "${common[@]}" --quiet --json "$2" >/dev/null 2>&1; }
i=0
while [ $i -lt "$n_gate" ] || [ $i -lt "$n_slow" ] || [ $i -lt "$n_icmp" ]; do
    i=$((i + 1))
    if [ $i -le "$n_icmp" ]; then
        t0=$(date +%s.%N)
        "$mbench" compare a="$model" b="$model" "${common[@]}" --quiet --json "$tmp/c.json" >/dev/null 2>&1
        t1=$(date +%s.%N)
        $py -c "import json,sys; v=json.load(open(sys.argv[1]))['comparison']['variants'][1]; s=v['significance']; print(int(s['significant']), s['verdict'].replace(' ','_'), v['speedup_median']['value'], *v['speedup_median']['ci95'], $t1-$t0)" "$tmp/c.json" >>"$tmp/cmp.txt"
        "$mbench" gate --current "$tmp/c.json" --json "$tmp/gi.json" >/dev/null 2>&1
        echo "$? $(p50of "$tmp/gi.json")" >>"$tmp/iaa.txt"
    fi
    if [ $i -le "$n_gate" ]; then
        run "$model" "$tmp/a.json" && run "$model" "$tmp/b.json" || { echo "run failed" >&2; exit 3; }
        "$mbench" gate --baseline "$tmp/a.json" --current "$tmp/b.json" --json "$tmp/ga.json" >/dev/null 2>&1
        echo "$? $(p50of "$tmp/ga.json")" >>"$tmp/aa.txt"
    fi
    if [ $i -le "$n_slow" ]; then
        if [ "$n_gate" -gt 0 ]; then # the two-run workflow, when asked for
            run "$model" "$tmp/c.json" && run "$twin" "$tmp/d.json" || { echo "run failed" >&2; exit 3; }
            "$mbench" gate --baseline "$tmp/c.json" --current "$tmp/d.json" --max-regression size=off,memory=off --json "$tmp/gp.json" >/dev/null 2>&1
            echo "$? $(p50of "$tmp/gp.json")" >>"$tmp/ps.txt"
        fi
        "$mbench" compare base="$model" cur="$twin" "${common[@]}" --quiet --json "$tmp/ic.json" >/dev/null 2>&1
        "$mbench" gate --current "$tmp/ic.json" --max-regression size=off,memory=off --json "$tmp/gip.json" >/dev/null 2>&1
        echo "$? $(p50of "$tmp/gip.json")" >>"$tmp/ips.txt"
    fi
done
read -r truth2 lo2 hi2 < <(truth_run "$tmp/truth2.json")
echo "true p50 ratio twin/base, end (200 interleaved processes each): $truth2 (95% CI $lo2..$hi2)"
truth=$($py -c "print(($truth1 + $truth2) / 2)")
$py - "$tmp" "$truth" <<'PYEOF'
import sys
import numpy as np
tmp, truth = sys.argv[1], float(sys.argv[2])
def rows(name):
    return [l.split() for l in open(f"{tmp}/{name}") if l.strip()]
c = rows("cmp.txt")
if c:
    sig = sum(int(r[0]) for r in c)
    verdicts = {}
    for r in c:
        verdicts[r[1]] = verdicts.get(r[1], 0) + 1
    cover = sum(float(r[3]) <= 1 <= float(r[4]) for r in c)
    t = np.array([float(r[5]) for r in c])
    print(f"A/A compare: a difference claimed in {sig} of {len(c)} ({100*sig/len(c):.1f}%); "
          f"verdicts {verdicts}; 95% CI holds 1 in {cover} of {len(c)}; "
          f"wall time median {np.median(t):.1f} s, max {t.max():.1f} s")
a = rows("aa.txt")
if a:
    codes = [int(r[0]) for r in a]
    cover = sum(float(r[2]) <= 1 <= float(r[3]) for r in a)
    print(f"A/A gate: {codes.count(1)} false regressions of {len(a)} ({100*codes.count(1)/len(a):.1f}%), "
          f"{codes.count(0)} pass ({100*codes.count(0)/len(a):.1f}%), {codes.count(4)} inconclusive; "
          f"p50 CI holds 1 in {cover} of {len(a)}; p50 ratios {min(float(r[1]) for r in a):.3f}..{max(float(r[1]) for r in a):.3f}")
for name, label in (("iaa.txt", "A/A gate, interleaved (compare a=M b=M, then gate --current)"),):
    a = rows(name)
    if a:
        codes = [int(r[0]) for r in a]
        cover = sum(float(r[2]) <= 1 <= float(r[3]) for r in a)
        print(f"{label}: {codes.count(1)} false regressions of {len(a)} ({100*codes.count(1)/len(a):.1f}%), "
              f"{codes.count(0)} pass ({100*codes.count(0)/len(a):.1f}%), {codes.count(4)} inconclusive; "
              f"p50 CI holds 1 in {cover} of {len(a)}")
p = rows("ips.txt")
if p:
    codes = [int(r[0]) for r in p]
    cover = sum(float(r[2]) <= truth <= float(r[3]) for r in p)
    print(f"planted {100*(truth-1):.1f}% slowdown, interleaved (compare base=M cur=TWIN, then gate --current): "
          f"caught in {codes.count(1)} of {len(p)} ({100*codes.count(1)/len(p):.1f}%); "
          f"p50 CI holds the true ratio in {cover} of {len(p)} ({100*cover/len(p):.1f}%)")
p = rows("ps.txt")
if p:
    codes = [int(r[0]) for r in p]
    cover = sum(float(r[2]) <= truth <= float(r[3]) for r in p)
    print(f"planted {100*(truth-1):.1f}% slowdown: caught (exit 1) in {codes.count(1)} of {len(p)} "
          f"({100*codes.count(1)/len(p):.1f}%); exit codes {sorted(set(codes))}; "
          f"p50 CI holds the true ratio {truth:.4f} in {cover} of {len(p)} ({100*cover/len(p):.1f}%)")
PYEOF

# ---- coverage on the null backend -------------------------------------
delay=100000
sim() { # K OUT
    "$mbench" run sim --backend null --backend-opt delay=$delay \
        --backend-opt process_sd=0.05 --backend-opt modes=0.3:1.3 \
        --backend-opt ar=0.7 --backend-opt noise=0.05 --processes "$1" \
        --min-time 1.6s --quiet --json "$2" >/dev/null 2>&1
}
: >"$tmp/cov40.txt"; : >"$tmp/cov1.txt"
for i in $(seq 1 "$sims"); do
    sim 40 "$tmp/s.json" && $py -c "import json,sys; c=json.load(open(sys.argv[1]))['runs'][0]['latency']['median_ci95']; print(c['lo'], c['hi'])" "$tmp/s.json" >>"$tmp/cov40.txt"
    if [ $((i % 4)) -eq 0 ]; then
        sim 1 "$tmp/s.json" && $py -c "import json,sys; c=json.load(open(sys.argv[1]))['runs'][0]['latency']['median_ci95']; print(c['lo'], c['hi'])" "$tmp/s.json" >>"$tmp/cov1.txt"
    fi
done
$py - "$tmp" "$delay" <<'PYEOF'
import sys
import numpy as np
tmp, delay = sys.argv[1], float(sys.argv[2])
# The estimand: the geometric mean over processes of the process median,
# delay * exp(E[log level]) = delay * 1.3 ** 0.3 (process_sd is symmetric).
truth = delay * 1.3 ** 0.3
for k in ("40", "1"):
    r = np.array([[float(x) for x in l.split()] for l in open(f"{tmp}/cov{k}.txt") if l.strip()])
    if len(r) == 0:
        continue
    cov = np.mean((r[:, 0] <= truth) & (truth <= r[:, 1]))
    w = np.median((r[:, 1] - r[:, 0]) / 2 / truth)
    print(f"coverage, null backend with process effects (sd 5%, 30% of processes 1.3x, AR(1) 0.7): "
          f"{k} process(es): the 95% CI of the median holds the truth in {100*cov:.1f}% of {len(r)} runs "
          f"(median half-width {100*w:.1f}%)")
PYEOF

# ---- time of the defaults ---------------------------------------------
t0=$(date +%s.%N)
"$mbench" run "$model" "${common[@]}" --quiet >/dev/null 2>&1
t1=$(date +%s.%N)
"$mbench" compare a="$model" b="$twin" "${common[@]}" --quiet >/dev/null 2>&1
t2=$(date +%s.%N)
$py -c "print(f'wall time: default run {$t1-$t0:.1f} s, default compare of two variants {$t2-$t1:.1f} s')"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
