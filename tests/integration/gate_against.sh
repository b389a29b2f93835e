#!/usr/bin/env bash
# gate_against.sh - `gate --against REF` takes as baseline the newest
# commit on REF that has a run of the benchmark being gated, not merely
# the newest commit (which may hold runs of other models only).
. "$(dirname "$0")/lib.sh"
MK="$PY $FIX/store/make_doc.py"
cd "$T_TMP" || exit 1
G() { git -C repo -c user.email=t@t -c user.name=t "$@"; }
$MK base.json --seed 1
$MK slow.json --seed 3 --median-ns 2e6
$MK other.json --seed 5 --model other.onnx --sha "$(printf 'cd%.0s' $(seq 32))"
$MK third.json --seed 6 --model third.onnx --sha "$(printf 'ef%.0s' $(seq 32))"

mkdir repo && git -C repo init -q -b main && G commit -q --allow-empty -m one
c1=$(git -C repo rev-parse HEAD)
"$MBENCH" db import --db g.db --git-dir repo base.json >/dev/null
G commit -q --allow-empty -m two
c2=$(git -C repo rev-parse HEAD)
"$MBENCH" db import --db g.db --git-dir repo other.json >/dev/null
G checkout -q -b feature && G commit -q --allow-empty -m three

expect_exit "gate --against main finds the slowdown of m.onnx" 1 "$MBENCH" gate --db g.db --against main --current slow.json --git-dir repo --no-store
contains "the baseline is the older main commit with a run of m.onnx, not the newest" "$LAST_OUT" "sqlite@main (commit ${c1:0:12})"
if [[ "$LAST_OUT$LAST_ERR" == *"batch sizes none"* ]]; then notok "no 'batch sizes none' complaint" "$LAST_OUT"; else ok "no 'batch sizes none' complaint"; fi
expect_exit "gate --against main for other.onnx takes the newest commit" 0 "$MBENCH" gate --db g.db --against main --current other.json --git-dir repo --no-store --max-regression p50=20%
contains "that is the newest main commit" "$LAST_OUT" "sqlite@main (commit ${c2:0:12})"

expect_exit "a benchmark never stored on main is an error" 3 "$MBENCH" gate --db g.db --against main --current third.json --git-dir repo --no-store
one_line "the error is one line" "$LAST_ERR"
contains "it names the benchmark and the way out" "$LAST_ERR" "no stored run of this benchmark (model third.onnx) for branch 'main'"
expect_exit "a commit prefix without a run of the benchmark is an error too" 3 "$MBENCH" gate --db g.db --against "${c2:0:10}" --current slow.json --git-dir repo --no-store
contains "it names the commit" "$LAST_ERR" "for commit '${c2:0:10}'"
done_testing
