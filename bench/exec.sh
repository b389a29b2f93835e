#!/usr/bin/env bash
# bench/exec.sh - does `mbench exec` agree with hyperfine (Debian's) on the
# same commands?  Both run each command without a shell, with 3 warmup runs
# and the same number of measured runs, in one invocation of this script,
# alternating tool by tool.  Prints a Markdown table: mean and median of
# each tool and the ratio of medians (mbench / hyperfine).
#   bench/exec.sh [BUILD_DIR] [RUNS]        (default build, 40 runs)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
runs=${2:-40}
MBENCH="$root/$build/mbench"
command -v hyperfine >/dev/null || { echo "bench/exec.sh: hyperfine not installed (scripts/deps.sh bench)" >&2; exit 1; }
[ -x "$MBENCH" ] || { echo "bench/exec.sh: $MBENCH not built" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf 'int main(void) { volatile unsigned long s = 0; for (unsigned long i = 0; i < 20000000UL; i++) s += i; return 0; }\n' > "$tmp/spin.c"
cc -O1 -o "$tmp/spin" "$tmp/spin.c"

names=("sleep 0.05" "python3 -c pass" "C program (20M adds)" "true")
cmds=("sleep 0.05" "/usr/bin/python3 -c pass" "$tmp/spin" "true")

echo "mbench exec vs hyperfine $(hyperfine --version | cut -d' ' -f2): $runs runs after 3 warmups each, no shell, $(nproc) CPUs"
echo
echo "| command | hyperfine mean | hyperfine median | mbench mean | mbench median | median ratio mbench/hyperfine |"
echo "|---|---:|---:|---:|---:|---:|"
for i in "${!cmds[@]}"; do
    c=${cmds[$i]}
    hyperfine -N --warmup 3 --runs "$runs" --export-json "$tmp/h.json" "$c" >/dev/null 2>&1
    # shellcheck disable=SC2086
    "$MBENCH" exec --warmup 3 --runs "$runs" --json "$tmp/m.json" -q -- $c >/dev/null
    /usr/bin/python3 - "$tmp/h.json" "$tmp/m.json" "${names[$i]}" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))["results"][0]
m = json.load(open(sys.argv[2]))["runs"][0]["latency"]
hm, hmed = h["mean"] * 1e3, h["median"] * 1e3
mm, mmed = m["mean"] / 1e6, m["median"] / 1e6
print(f"| {sys.argv[3]} | {hm:.3f} ms | {hmed:.3f} ms | {mm:.3f} ms | {mmed:.3f} ms | {mmed / hmed:.3f} |")
PY
done
