#!/usr/bin/env bash
# bench/exec.sh - does `mbench exec` agree with hyperfine (Debian's) on the
# same commands?  Both run each command without a shell.  The runs are
# split into BLOCKS blocks; in each block each tool makes 3 warmup runs and
# RUNS/BLOCKS measured runs, the tools alternating (hyperfine first in even
# blocks, mbench first in odd ones) so that a machine whose load drifts
# hits both alike.  The samples of all blocks are pooled.  Prints a
# Markdown table: mean, median and minimum of each tool and the ratio of
# medians (mbench / hyperfine).
#   bench/exec.sh [BUILD_DIR] [RUNS] [BLOCKS]   (default build, 40 runs, 4 blocks)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
runs=${2:-40}
blocks=${3:-4}
per=$(( (runs + blocks - 1) / blocks ))
MBENCH="$root/$build/mbench"
command -v hyperfine >/dev/null || { echo "bench/exec.sh: hyperfine not installed (scripts/deps.sh bench)" >&2; exit 1; }
[ -x "$MBENCH" ] || { echo "bench/exec.sh: $MBENCH not built" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf 'int main(void) { volatile unsigned long s = 0; for (unsigned long i = 0; i < 20000000UL; i++) s += i; return 0; }\n' > "$tmp/spin.c"
cc -O1 -o "$tmp/spin" "$tmp/spin.c"

names=("sleep 0.05" "python3 -c pass" "C program (20M adds)" "true")
cmds=("sleep 0.05" "/usr/bin/python3 -c pass" "$tmp/spin" "true")

run_h() { hyperfine -N --warmup 3 --runs "$per" --export-json "$tmp/h.$2.json" "$1" >/dev/null 2>&1; }
# shellcheck disable=SC2086
run_m() { "$MBENCH" exec --warmup 3 --runs "$per" --json "$tmp/m.$2.json" -q -- $1 >/dev/null; }

echo "mbench exec vs hyperfine $(hyperfine --version | cut -d' ' -f2): $((per * blocks)) runs each ($blocks alternating blocks of $per after 3 warmups), no shell, $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
echo
echo "| command | hyperfine mean | hyperfine median | hyperfine min | mbench mean | mbench median | mbench min | median ratio mbench/hyperfine | load |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for i in "${!cmds[@]}"; do
    c=${cmds[$i]}
    rm -f "$tmp"/h.*.json "$tmp"/m.*.json
    l0=$(cut -d' ' -f1 /proc/loadavg)
    for ((b = 0; b < blocks; b++)); do
        if ((b % 2 == 0)); then run_h "$c" "$b"; run_m "$c" "$b"; else run_m "$c" "$b"; run_h "$c" "$b"; fi
    done
    /usr/bin/python3 - "$tmp" "${names[$i]}" "$l0-$(cut -d' ' -f1 /proc/loadavg)" <<'PY'
import glob, json, statistics, sys
tmp, name, load = sys.argv[1], sys.argv[2], sys.argv[3]
h = [t * 1e3 for f in sorted(glob.glob(tmp + "/h.*.json")) for t in json.load(open(f))["results"][0]["times"]]
m = [t / 1e6 for f in sorted(glob.glob(tmp + "/m.*.json")) for t in json.load(open(f))["runs"][0]["samples_ns"]]
hm, hmed, hmin = statistics.fmean(h), statistics.median(h), min(h)
mm, mmed, mmin = statistics.fmean(m), statistics.median(m), min(m)
print(f"| {name} | {hm:.3f} ms | {hmed:.3f} ms | {hmin:.3f} ms | {mm:.3f} ms | {mmed:.3f} ms | {mmin:.3f} ms | {mmed / hmed:.3f} | {load} |")
PY
done
