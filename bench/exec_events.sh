#!/usr/bin/env bash
# bench/exec_events.sh - does `mbench exec` slow a program that reports
# many distinct phase names (issue 37)?  tests/fixtures/exec/names.c
# writes a start and an end event for each of N names, one write(2) a
# line.  Measured together by `mbench exec` (rounds ABC..., so that a
# machine whose load drifts hits them alike):
#   alone   the lines written to /dev/null (the program's own time)
#   cat     the lines through a pipe that `cat` drains (a pipe's own cost)
#   mbench  the lines through mbench's events pipe (the case measured)
# Prints the medians and the ratio mbench / alone (the goal: <= 1.2) and
# mbench / cat, with the load average, then one run of 10^6 names: its
# time and the events the name cap dropped.
#   bench/exec_events.sh [BUILD_DIR] [N] [RUNS]    (default build, 40000, 20)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
n=${2:-40000}
runs=${3:-20}
MBENCH="$root/$build/mbench"
[ -x "$MBENCH" ] || { echo "bench/exec_events.sh: $MBENCH not built" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/names" "$root/tests/fixtures/exec/names.c"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
"$MBENCH" exec -q --runs "$runs" --warmup 2 --json "$tmp/r.json" \
    -n alone -c "$tmp/names $n null" \
    -n cat -c "sh -c 'MBENCH_EVENTS_FD=9 exec $tmp/names $n 9>&1 | cat >/dev/null'" \
    -n mbench -c "$tmp/names $n" >/dev/null
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 - "$tmp/r.json" "$n" <<'PY'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
med = {r["variant"]: statistics.median(r["samples_ns"]) / 1e6 for r in d["runs"]}
ev = [r for r in d["runs"] if r["variant"] == "mbench"][0]["exec"]
print(f"{sys.argv[2]} names, {len(d['runs'][0]['samples_ns'])} runs each")
print("| program | median |")
print("|---|---:|")
for k in ("alone", "cat", "mbench"):
    print(f"| {k} | {med[k]:.1f} ms |")
print(f"mbench / alone = {med['mbench'] / med['alone']:.2f} (goal <= 1.2); "
      f"mbench / cat = {med['mbench'] / med['cat']:.2f}; "
      f"phases kept {len(ev['phases'])}, events dropped {ev['events']['dropped_events']}")
PY
echo "10^6 names, one run (load $(cut -d' ' -f1 /proc/loadavg)):"
/usr/bin/time -f "  mbench exec: %e s wall, %M KiB peak RSS" \
    "$MBENCH" exec -q --runs 1 --json "$tmp/m.json" -- "$tmp/names" 1000000 >/dev/null
/usr/bin/python3 - "$tmp/m.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
e = r["exec"]["events"]
print(f"  the program's run: {r['samples_ns'][0] / 1e9:.2f} s; "
      f"names kept {len(r['exec']['phases'])} (cap {e['names_cap']}), "
      f"events dropped {e['dropped_events']}")
PY
