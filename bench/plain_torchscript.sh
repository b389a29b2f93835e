#!/usr/bin/env bash
# A plain torch.jit.trace file (no mbench.json) fed with --data against the
# same traced model with mbench.json: the plain one must take batches of
# samples from axis 0 of the data (it took the whole array as one sample,
# 0.7 samples/s for ~700), so its samples/s must match.  One compare,
# interleaved, 1000 samples, batch 8, 1 thread.  Goal: within 5%.
# Usage: bench/plain_torchscript.sh [BUILD_DIR]
set -u
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
mbench="$root/$build/mbench"
py=${MBENCH_FRAMEWORKS_DIR:-$root/build/frameworks}/torch/bin/python
[ -x "$py" ] || py=/usr/bin/python3
if [ ! -f "$root/$build/plugins/mbench_torch.so" ] || ! "$py" -c 'import torch' 2>/dev/null; then
    echo "plain_torchscript: no torch plugin or no torch (scripts/deps.sh test): skipped"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mbench-plain.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$py" - "$tmp" <<'PYEOF'
import json, sys, numpy as np, torch
d = sys.argv[1]
torch.manual_seed(0)
m = torch.nn.Sequential(
    torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.ReLU(),
    torch.nn.Conv2d(16, 32, 3, padding=1, stride=2), torch.nn.ReLU(),
    torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(32, 10)).eval()
ts = torch.jit.trace(m, torch.zeros(1, 3, 32, 32))
torch.jit.save(ts, d + "/plain.pt")
meta = {"inputs": [{"name": "x", "dtype": "float32", "shape": ["batch", 3, 32, 32]}]}
torch.jit.save(ts, d + "/meta.pt", _extra_files={"mbench.json": json.dumps(meta)})
np.save(d + "/x.npy", np.random.default_rng(0).random((1000, 3, 32, 32), dtype=np.float32))
PYEOF
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
"$mbench" compare meta="$tmp/meta.pt" plain="$tmp/plain.pt,input-name=x=input" --data "$tmp/x.npy" \
    --batch 8 --threads 1 --processes 10 --quiet --json "$tmp/c.json" || exit 1
/usr/bin/python3 - "$tmp/c.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
meta, plain = d["runs"]
sm, sp = meta["throughput"]["samples_per_s"], plain["throughput"]["samples_per_s"]
v = d["comparison"]["variants"][1]
print(f"plain_torchscript: batch 8 of --data (1000 samples of {plain['inputs'][0]['shape'][1:]}), 10 processes each")
for run in (meta, plain):
    assert run["batch_size"] == 8 and run["inputs"][0]["shape"][0] == 8, run["inputs"]
print(f"  samples/s as reported (iterations / sum of latencies, so the load's stalls are in it):")
print(f"    with mbench.json: {sm:.0f}; plain trace: {sp:.0f}; ratio {sp / sm:.3f}")
# samples/s at the median latency the CI is about (8 samples per call)
mm = meta["latency"]["median_ci95"]["estimate"]
mp = plain["latency"]["median_ci95"]["estimate"]
print(f"  samples/s at the median latency: with mbench.json {8e9 / mm:.0f}; plain {8e9 / mp:.0f}; "
      f"ratio {mm / mp:.3f}")
sc = v["speedup_median"]
lo, hi = sc["ci95"]
print(f"  compare: plain vs meta speedup {sc['value']:.3f} [95% CI {lo:.3f}, {hi:.3f}] "
      f"({v['significance']['verdict']})")
print(f"  goal (within 5%, at the median): {'met' if abs(mm / mp - 1) <= 0.05 else 'NOT met'}")
PYEOF
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
