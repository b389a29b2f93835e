#!/usr/bin/env bash
# --require on exec, suite, compare and gate: Python programs (training with
# phases and counters, inference with per-iteration events, a cache with a
# hit-rate metric) in a real two-branch git repository; every requirement
# passing and failing with the documented exit codes (0 met, 6 not met, 2 a
# bad expression or a figure the document lacks); the loop statistics
# recomputed with numpy/scipy; a remote-only branch from a fresh clone
# (origin/NAME, and --fetch in a single-branch clone); {root} for files
# that are not committed; CSV git_commit of the measured project.
. "$(dirname "$0")/lib.sh"
R="$FIX/exec/req"
export MBENCH_TOOLS="$MBENCH_ROOT/tools"
E=("$MBENCH" exec -q)

# ---- exec: a training program, slow and fast ----------------------------
# The slow one sleeps 3 x 600 ms, so that the speedup's CI stays above 1.2
# however long python3's start takes beside the other suites.
expect_exit "exec: requirements that hold exit 0" 0 \
    "${E[@]}" -r 5 -n slow -c "python3 $R/train.py --epoch-ms 600" -n fast -c "python3 $R/train.py --epoch-ms 10" \
    --require 'speedup>=1.2' --require 'fast:phase.epoch<=200ms' --require 'throughput>=20' \
    --require 'fast:time_per_batch<=1s' --require 'rss_peak<2GiB' --require 'metric.accuracy>=0.9' \
    --json "$T_TMP/e1.json" --md "$T_TMP/e1.md" --html "$T_TMP/e1.html" --csv "$T_TMP/e1.csv"
contains "the verdict says the whole CI supports the speedup" "$LAST_OUT" "PASS speedup>=1.2 [fast]"
contains "... and names the CI" "$LAST_OUT" "the whole CI is >= 1.2"
contains "the console counts the requirements met" "$LAST_OUT" "Requirements (6 of 6 met)"
check "the document records every requirement and verdict" $PY - "$T_TMP/e1.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
rq = d["requirements"]
assert [r["requirement"] for r in rq][:2] == ["speedup>=1.2", "fast:phase.epoch<=200ms"], rq
assert all(r["passed"] for r in rq), rq
sp = rq[0]["results"][0]
e = d["comparison"]["entries"][0]
assert abs(sp["value"] - e["speedup"]) < 1e-12
assert abs(sp["ci95"][0] - 1 / e["ratio_ci95"]["hi"]) < 1e-9 and sp["ci95"][0] >= 1.2, sp
# throughput derived from the counters: samples / wall time per run, geometric mean
import math
for run in d["runs"]:
    w = [r["wall_ns"] for r in run["exec"]["runs"]]
    gm = math.exp(sum(math.log(192 / x * 1e9) for x in w) / len(w))
    dv = run["exec"]["derived"]
    assert abs(dv["samples_per_s"] - gm) / gm < 1e-9, (dv, gm)
    assert abs(dv["time_per_batch_ns"] - 1e9 / (gm / 16)) / dv["time_per_batch_ns"] < 1e-9
PYEOF
expect_exit "exec: a speedup the data do not support exits 6" 6 \
    "${E[@]}" -r 3 -n slow -c "python3 $R/train.py --epoch-ms 20" -n fast -c "python3 $R/train.py --epoch-ms 10" \
    --require 'speedup>=10' --require 'rss_peak<2GiB' --json "$T_TMP/e2.json"
contains "the failing requirement has a FAIL line" "$LAST_OUT" "FAIL speedup>=10 [fast]"
contains "the met one still has its PASS line" "$LAST_OUT" "PASS rss_peak<2GiB [slow]"
contains "the exit code is named" "$LAST_OUT" "1 requirement(s) not met (exit 6)"
check "the unmet requirement is recorded as not passed" $PY -c "
import json; d = json.load(open('$T_TMP/e2.json'))
assert [r['passed'] for r in d['requirements']] == [False, True], d['requirements']"

# ---- exec: per-iteration events ------------------------------------------
expect_exit "exec: a loop requirement with a misspelt statistic is a usage error" 2 \
    "${E[@]}" -r 1 --require 'loop.infer.p42<3ms' -- python3 "$R/infer.py"
# An iteration of "new" sleeps 1 ms: p50 <= 20 ms and 200 items/s hold
# with the late wake-ups of a loaded machine (the figures themselves are
# checked against numpy below).
expect_exit "exec: loop and PSNR requirements that hold exit 0" 0 \
    "${E[@]}" -r 5 -n ref -c "python3 $R/infer.py --iter-ms 4 --psnr 32" -n new -c "python3 $R/infer.py --iter-ms 1 --psnr 31.5" \
    --require 'psnr_delta>-1' --require 'new:loop.infer.p50<=20ms' --require 'new:loop.infer.throughput>=200' \
    --json "$T_TMP/i1.json"
contains "the PSNR drop is judged against the baseline" "$LAST_OUT" "PASS psnr_delta>-1 [new]: -0.5"
contains "the console shows the loop" "$LAST_OUT" "infer"
check "loop percentiles, run-level CI and items/s agree with numpy/scipy" $PY - "$T_TMP/i1.json" <<'PYEOF'
import json, sys
import numpy as np
from scipy import stats
d = json.load(open(sys.argv[1]))
for run in d["runs"]:
    lp = run["exec"]["loops"]["infer"]
    s = np.array(lp["samples_ns"], float)
    assert lp["iterations"] == 200 == len(s) and lp["runs"] == 5, lp["iterations"]
    assert lp["iterations_per_run"] == [40] * 5
    lat = lp["latency"]
    assert abs(lat["median"] - np.percentile(s, 50)) < 1e-6 * lat["median"]
    assert abs(lat["p95"] - np.percentile(s, 95)) < 1e-6 * lat["p95"]
    med = np.array([np.median(x) for x in np.split(s, 5)])
    lm = np.log(med)
    h = stats.t.ppf(0.975, 4) * lm.std(ddof=1) / np.sqrt(5)
    ci = lat["median_ci95"]
    assert ci["unit"] == "process" and ci["replicates"] == 5, ci
    assert abs(ci["estimate"] - np.exp(lm.mean())) < 1e-6 * ci["estimate"]
    assert abs(ci["lo"] - np.exp(lm.mean() - h)) < 1e-6 * ci["lo"], (ci, np.exp(lm.mean() - h))
    assert abs(ci["hi"] - np.exp(lm.mean() + h)) < 1e-6 * ci["hi"]
    assert abs(lp["items_per_s"] - 8 * 200 / s.sum() * 1e9) < 1e-6 * lp["items_per_s"]
    rate = np.array([8 * 40 / x.sum() * 1e9 for x in np.split(s, 5)])
    g = lp["items_per_s_ci95"]
    hl = stats.t.ppf(0.975, 4) * np.log(rate).std(ddof=1) / np.sqrt(5)
    assert abs(g["lo"] - np.exp(np.log(rate).mean() - hl)) < 1e-6 * g["lo"], g
ref, new = d["runs"]
assert new["exec"]["loops"]["infer"]["latency"]["median"] < ref["exec"]["loops"]["infer"]["latency"]["median"]
# the loop's speedup: Welch t on the log per-run medians, as scipy has it
la = np.log([np.median(x) for x in np.split(np.array(ref["exec"]["loops"]["infer"]["samples_ns"], float), 5)])
lb = np.log([np.median(x) for x in np.split(np.array(new["exec"]["loops"]["infer"]["samples_ns"], float), 5)])
va, vb = la.var(ddof=1) / 5, lb.var(ddof=1) / 5
df = (va + vb) ** 2 / (va ** 2 / 4 + vb ** 2 / 4)
h = stats.t.ppf(0.975, df) * np.sqrt(va + vb)
dd = lb.mean() - la.mean()
sp = d["comparison"]["entries"][0]["loops"]["infer"]
assert abs(sp["speedup"] - np.exp(-dd)) < 1e-9 * sp["speedup"], sp
assert abs(sp["speedup_ci95"]["lo"] - np.exp(-dd - h)) < 1e-6 * sp["speedup"], (sp, np.exp(-dd - h))
assert abs(sp["speedup_ci95"]["hi"] - np.exp(-dd + h)) < 1e-6 * sp["speedup"]
assert abs(sp["p_value"] - stats.ttest_ind(lb, la, equal_var=False).pvalue) < 1e-9
PYEOF
expect_exit "exec: a PSNR drop beyond the limit exits 6" 6 \
    "${E[@]}" -r 2 -n ref -c "python3 $R/infer.py --iter-ms 1 --psnr 32" -n new -c "python3 $R/infer.py --iter-ms 1 --psnr 30" \
    --require 'psnr_delta>-1'
contains "the PSNR verdict is a FAIL line" "$LAST_OUT" "FAIL psnr_delta>-1 [new]: -2"

check "outside mbench the helpers do nothing and the program runs unchanged" \
    env -u MBENCH_EVENTS_FD python3 "$R/infer.py" --iter-ms 0.1

# ---- exec: a cache with a hit-rate metric ---------------------------------
expect_exit "exec: a hit rate below 80% in one variant exits 6" 6 \
    "${E[@]}" -r 2 -n big -c "python3 $R/cache.py --size 120" -n small -c "python3 $R/cache.py --size 20" \
    --require 'metric.cache_hit_rate>=0.8'
contains "the big cache passes" "$LAST_OUT" "PASS metric.cache_hit_rate>=0.8 [big]: 0.95"
contains "the small cache fails" "$LAST_OUT" "FAIL metric.cache_hit_rate>=0.8 [small]"
expect_exit "exec: the hit rate as a bare name in percent, scoped to one variant, exits 0" 0 \
    "${E[@]}" -r 2 -n big -c "python3 $R/cache.py --size 120" -n small -c "python3 $R/cache.py --size 20" \
    --require 'big:cache_hit_rate>=80%' --require 'big:counter.misses<=1000'

# ---- bad requirements -------------------------------------------------------
expect_exit "a unit that does not fit the figure is a usage error before anything runs" 2 \
    "${E[@]}" -r 1 --require 'rss_peak<2ms' -- touch "$T_TMP/ran"
one_line "... in one line" "$LAST_ERR"
contains "... naming the units the figure takes" "$LAST_ERR" "rss_peak, which takes no unit (bytes) or B, KB"
[ -e "$T_TMP/ran" ] && notok "nothing ran" || ok "nothing ran"
expect_exit "a figure the document lacks is a usage error naming those it has" 2 \
    "${E[@]}" -r 1 --require 'leak=no' -- python3 "$R/cache.py"
contains "... with the fix" "$LAST_ERR" "no figure 'leak' (measure with --leak-check); it has: p50"
contains "... listing the program's metrics" "$LAST_ERR" "metric.cache_hit_rate"

# ---- a two-branch repository ----------------------------------------------
P="$T_TMP/proj"
mkdir -p "$P"
cp "$R/train.py" "$R/infer.py" "$R/cache.py" "$MBENCH_ROOT/tools/mbench_events.py" "$P/"
G=(git -C "$P" -c user.name=t -c user.email=t@t -c commit.gpgsign=false)
git init -q -b main "$P"
# main's epochs take 600 ms, fast's 10 ms: the speedup's CI stays above 1.2
# however long python3's start takes beside the other suites.
echo "EPOCH_MS = 600.0" > "$P/settings.py"
"${G[@]}" add -A && "${G[@]}" commit -qm "slow epochs"
"${G[@]}" checkout -qb fast
echo "EPOCH_MS = 10.0" > "$P/settings.py"
"${G[@]}" commit -qam "fast epochs"
"${G[@]}" checkout -q main
head_main=$(git -C "$P" rev-parse main)
head_fast=$(git -C "$P" rev-parse fast)
printf 'branch,experiment,command\nmain,train,python3 train.py\nfast,train,python3 train.py\nmain,cache,python3 cache.py --size 120\nfast,cache,python3 cache.py --size 120\n' > "$T_TMP/tasks.csv"

S=("$MBENCH" suite "$T_TMP/tasks.csv" --repo "$P" --runs 5 --compare -q)
expect_exit "suite: requirements that hold on the branches exit 0" 0 \
    "${S[@]}" --require '*train:speedup>=1.2' --require 'fast*:phase.epoch.speedup>=2' \
    --require 'metric.cache_hit_rate>=0.8' --require 'rss_peak<2GiB' \
    -o "$T_TMP/s1.json" --md "$T_TMP/s1.md" --html "$T_TMP/s1.html" --csv "$T_TMP/s1.csv"
contains "the branch speedup passes" "$LAST_OUT" "PASS *train:speedup>=1.2 [fast train]"
contains "the phase speedup passes" "$LAST_OUT" "PASS fast*:phase.epoch.speedup>=2 [fast train]"
contains "tasks without the metric are not judged on it" "$LAST_OUT" "n/a  metric.cache_hit_rate>=0.8 [main train]"
expect_exit "suite: a speedup beyond what the branches give exits 6" 6 \
    "$MBENCH" suite "$T_TMP/tasks.csv" --repo "$P" --runs 3 --compare -q --require '*train:speedup>=20'
contains "... with its FAIL line" "$LAST_OUT" "FAIL *train:speedup>=20 [fast train]"
check "suite CSV rows carry each branch's commit and framework exec" $PY - "$T_TMP/s1.csv" "$head_main" "$head_fast" <<'PYEOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["git_commit"] for r in rows] == [sys.argv[2], sys.argv[3]] * 2, [r["git_commit"] for r in rows]
assert all(r["framework"] == "exec" for r in rows), rows[0]
assert rows[0]["model"] == "python3 train.py", rows[0]["model"]
PYEOF
check "the exec CSV has the project's commit, not mbench's" $PY -c "
import csv, json
rows = list(csv.DictReader(open('$T_TMP/e1.csv')))
d = json.load(open('$T_TMP/e1.json'))
want = (d.get('git') or {}).get('commit') or ''
assert all(r['git_commit'] == want for r in rows), (rows[0]['git_commit'], want)
assert want != d['mbench']['commit'] or want == ''"
for f in s1.md e1.md; do
    md=$(cat "$T_TMP/$f")
    contains "$f: requirements section" "$md" "### Requirements:"
    contains "$f: phases table" "$md" "### Phases"
    [[ "$md" == *"batch -1"* ]] && notok "$f has no 'batch -1'" || ok "$f has no 'batch -1'"
done
md=$(cat "$T_TMP/s1.md")
contains "suite Markdown: speedups of the branches" "$md" "### Speedups of programs"
contains "suite Markdown: git facts per branch" "$md" "${head_fast:0:12}"
contains "suite Markdown: counters and metrics" "$md" "cache\\_hit\\_rate"

# ---- fresh clones: remote-only branches -----------------------------------
git clone -q --bare "$P" "$T_TMP/proj.git"
git clone -q "$T_TMP/proj.git" "$T_TMP/fresh"
printf 'branch,experiment,command\nmain,train,python3 train.py\nfast,train,python3 train.py\norigin/fast,train2,python3 train.py\n' > "$T_TMP/t2.csv"
expect_exit "suite: a branch that exists only as origin/fast in a fresh clone runs" 0 \
    "$MBENCH" suite "$T_TMP/t2.csv" --repo "$T_TMP/fresh" --runs 1 -q -o "$T_TMP/fresh.json"
check "... from the remote-tracking ref, at the branch's commit" $PY -c "
import json; d = json.load(open('$T_TMP/fresh.json'))
g = [r['git'] for r in d['runs']]
assert g[1]['ref'] == 'refs/remotes/origin/fast' and g[1]['commit'] == '$head_fast', g[1]
assert g[2]['commit'] == '$head_fast' and g[0]['commit'] == '$head_main', g"
git clone -q --single-branch --branch main "$T_TMP/proj.git" "$T_TMP/single"
expect_exit "suite: a branch missing from a single-branch clone fails with the fix" 3 \
    "$MBENCH" suite "$T_TMP/t2.csv" --repo "$T_TMP/single" --runs 1 -q
contains "... which is --fetch" "$LAST_ERR" "pass --fetch to fetch it from the remote"
expect_exit "suite --fetch: the branch is fetched and runs" 0 \
    "$MBENCH" suite "$T_TMP/t2.csv" --repo "$T_TMP/single" --runs 1 -q --fetch -o "$T_TMP/single.json"
check "... at the remote branch's commit" $PY -c "
import json; d = json.load(open('$T_TMP/single.json'))
assert d['runs'][1]['git']['commit'] == '$head_fast', d['runs'][1]['git']"
printf 'branch,experiment,command\nnosuch,train,python3 train.py\n' > "$T_TMP/t3.csv"
expect_exit "suite --fetch: a branch that is nowhere fails clearly" 3 \
    "$MBENCH" suite "$T_TMP/t3.csv" --repo "$T_TMP/single" --runs 1 -q --fetch
contains "... naming git fetch" "$LAST_ERR" "git fetch origin nosuch"

# ---- {root}: files that are not committed ---------------------------------
echo weights > "$P/ckpt.bin"
IH='branch,experiment,checkpoint_path,data_path,trainer,batch_size,overrides'
IC=(--command 'python3 train.py --checkpoint {checkpoint_path} --epoch-ms 1')
printf '%s\nfast,train,ckpt.bin,/dev/null,cpu,8,\n' "$IH" > "$T_TMP/t4.csv"
expect_exit "suite: an uncommitted checkpoint is not in the worktree: a clear error" 3 \
    "$MBENCH" suite "$T_TMP/t4.csv" --repo "$P" --runs 1 -q "${IC[@]}"
contains "... that says to write {root}/" "$LAST_ERR" "not in the worktree of branch 'fast'"
contains "... and how" "$LAST_ERR" "write {root}/ before it"
printf '%s\nfast,train,{root}/ckpt.bin,/dev/null,cpu,8,\n' "$IH" > "$T_TMP/t5.csv"
expect_exit "suite: {root}/ckpt.bin reads the repository root's file" 0 \
    "$MBENCH" suite "$T_TMP/t5.csv" --repo "$P" --runs 1 -q "${IC[@]}" -o "$T_TMP/root.json"
check "... with the root in the command" $PY -c "
import json; d = json.load(open('$T_TMP/root.json'))
assert d['runs'][0]['command'] == 'python3 train.py --checkpoint $P/ckpt.bin --epoch-ms 1', d['runs'][0]['command']"

# ---- compare and gate -------------------------------------------------------
MD="$MBENCH_ROOT/models"
expect_exit "compare: size and accuracy requirements hold, an impossible speedup exits 6" 6 \
    "$MBENCH" compare fp32="$MD/digits_fp32.onnx" int8="$MD/digits_int8.onnx" --data "$MD/digits_test.npy" \
    --labels "$MD/digits_labels.npy" --batch 8 --processes 4 --min-time 0.1s --max-time 1s --min-iterations 20 \
    --warmup 2 --require 'size_ratio<=0.5' --require 'top1_delta>=-0.03' --require 'speedup>=3' \
    --require 'top1_delta>=-0.01' --json "$T_TMP/c.json"
check "compare: the document holds the four verdicts" $PY -c "
import json, sys; d = json.load(open('$T_TMP/c.json'))
r = d['requirements']
assert [x['passed'] for x in r] == [True, True, False, False], r
v = [x for x in d['comparison']['variants'] if x['name'] == 'int8'][0]
assert abs(r[0]['results'][0]['value'] - v['size_ratio']) < 1e-12
# int8 flips at most a couple of the 360 digits: the paired CI of the
# top-1 difference is at least +-z^2/(n+z^2) = 1.06% wide, so -0.03 is
# shown and -0.01 is not (the CI's lower bound decides); the CI is Tango's
sys.path.insert(0, '$FIX/stats')
from tango_ref import tango
a = v['accuracy']
lo, hi = a['delta_top1_ci95']
want = tango(a['paired']['candidate_only'], a['paired']['baseline_only'], 360)
assert abs(lo - want[0]) < 1e-9 and abs(hi - want[1]) < 1e-9 and lo < -0.0105, (a, want)
assert r[1]['results'][0]['ci95'] == [lo, hi] and 'do not support it' in r[3]['results'][0]['verdict'], r"
# (ASan's allocator grows RSS by itself, so the leak check's verdict is
# only meaningful in the plain build; make check skips these four)
if [ -n "${MBENCH_SANITIZED:-}" ]; then
    for n in "gate: leak=no on a leak-checked run passes" "gate prints the leak verdict" \
             "gate prints the memory verdict" "gate records the requirements in its document"; do
        skip "$n" "sanitized build: RSS growth is the allocator's"
    done
else
"$MBENCH" run "$MD/digits_fp32.onnx" --leak-check --min-time 0.2s --max-time 1s --json "$T_TMP/leak.json" >/dev/null 2>&1
expect_exit "gate: leak=no on a leak-checked run passes (the gate's own verdict, inconclusive, is the exit)" 4 \
    "$MBENCH" gate --baseline "$T_TMP/leak.json" --current "$T_TMP/leak.json" --no-store \
    --require 'leak=no' --require 'rss_peak<1MiB' --json "$T_TMP/g.json"
contains "gate prints the leak verdict" "$LAST_OUT" "PASS leak=no"
contains "gate prints the memory verdict" "$LAST_OUT" "FAIL rss_peak<1MiB"
check "gate records the requirements in its document" $PY -c "
import json; g = json.load(open('$T_TMP/g.json'))
assert [x['passed'] for x in g['requirements']] == [True, False], g['requirements']"
fi

# exec and suite HTML pages are checked in chromium by report_browser.sh,
# from the documents this script would make (tests/fixtures/report).
done_testing
