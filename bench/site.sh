#!/usr/bin/env bash
# site.sh - mbench site on a store of 10,000 runs (bench/site_store.py:
# 200 commits on two branches, two machines, model and exec series, 240
# series in all): the first generation, a regeneration of the unchanged
# store, a regeneration after one more result (one new series), and
# whether two generations into separate directories are byte-identical.
# Wall and CPU seconds with the load average beside each (the figure the
# issue asks for: regenerating in at most 5 s).
# Usage: bench/site.sh [BUILD_DIR]
set -u
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
M="$root/$build/mbench"
tmp=$(mktemp -d "${MBENCH_BENCH_TMP:-${TMPDIR:-/tmp}}/site.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 "$root/bench/site_store.py" "$tmp/store.json" --commits 200 || exit 1
"$M" db import --db "$tmp/store.db" "$tmp/store.json" >/dev/null || exit 1
echo "store: $("$M" db info --db "$tmp/store.db" | grep -E '^(documents|runs):' | tr '\n' ' ')"
timed() { # LABEL ARGS...: one mbench site run, wall and CPU seconds, load average
    local label=$1; shift
    local t0 t1 line
    t0=$(date +%s.%N)
    line=$( { /usr/bin/time -f '%U %S' "$M" site "$@" >"$tmp/out" 2>"$tmp/time"; } 2>&1)
    t1=$(date +%s.%N)
    read -r u s < <(tail -1 "$tmp/time")
    printf '%-44s %6.2f s wall  %5.2f s CPU  loadavg %s  (%s)\n' "$label" \
        "$(echo "$t1 - $t0" | bc)" "$(echo "$u + $s" | bc)" "$(cut -d' ' -f1-3 /proc/loadavg)" \
        "$(sed -n 's/.*machine(s), \(.*\); points.*/\1/p' "$tmp/out")"
}
timed "first generation (10,000 runs)" --db "$tmp/store.db" --out "$tmp/site" --no-git
timed "regeneration, store unchanged" --db "$tmp/store.db" --out "$tmp/site" --no-git
cp "$tmp/store.db" "$tmp/more.db"
"$M" run none --backend null --batch 3 --iterations 20 -q --db "$tmp/more.db" >/dev/null 2>&1
timed "regeneration after one more result" --db "$tmp/more.db" --out "$tmp/site" --no-git
"$M" site --db "$tmp/store.db" --out "$tmp/a" --no-git -q
"$M" site --db "$tmp/store.db" --out "$tmp/b" --no-git -q
if diff -r "$tmp/a" "$tmp/b" >/dev/null; then
    echo "two generations of the same store: byte-identical ($(find "$tmp/a" -type f | wc -l) files)"
else
    echo "two generations of the same store: DIFFERENT"; diff -rq "$tmp/a" "$tmp/b" | head -3
fi
