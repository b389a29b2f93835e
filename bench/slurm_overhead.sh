#!/usr/bin/env bash
# slurm_overhead.sh BUILD [TASKS] [ROUNDS] - what Slurm costs per task.
# Runs a suite of TASKS (default 20) trivial command tasks (`true`) through
# `suite --slurm` on the one-node cluster of scripts/slurm-local.sh (started
# here unless SLURM_CONF is set) and locally, alternating, ROUNDS times
# (default 3), and prints per round: the wall time of each, the time from
# sbatch to the first task's start, and the slot time per task that is not
# spent inside a task: (makespan x CPUs - sum of task times) / TASKS, from
# the completion records (docs/SCALE.md).  Needs root (slurmd).
set -euo pipefail
build=${1:-build}; n=${2:-20}; rounds=${3:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
mb="$root/$build/mbench"
tmp=$(mktemp -d /tmp/mbench-slurm-bench.XXXXXX); chmod 755 "$tmp"
started=0
if [ -z "${SLURM_CONF:-}" ]; then
    export MBENCH_SLURM_DIR="$tmp/cluster" MBENCH_SLURM_PORT=${MBENCH_SLURM_PORT:-16937}
    "$root/scripts/slurm-local.sh" start >/dev/null
    export SLURM_CONF="$MBENCH_SLURM_DIR/slurm.conf"
    started=1
fi
trap '[ $started = 1 ] && "$root/scripts/slurm-local.sh" stop "$MBENCH_SLURM_DIR"; rm -rf "$tmp"' EXIT
cd "$tmp"
{ echo "name"; for i in $(seq 1 "$n"); do echo "t$i"; done; } > tasks.csv
cpus=$(sinfo -h -o '%c' | head -1)
now() { date +%s.%N; }
echo "tasks $n, CPUs $cpus, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$rounds"); do
    t0=$(now); "$mb" suite tasks.csv --command true -q -o local.json >/dev/null; t1=$(now)
    "$mb" suite tasks.csv --command true --slurm --share-nodes --slurm-dir "job$r" -q -o slurm.json >/dev/null 2>&1; t2=$(now)
    /usr/bin/python3 - "$tmp/job$r" "$n" "$cpus" "$t0" "$t1" "$t2" <<'EOF'
import json, sys, glob
d, n, cpus = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
t0, t1, t2 = map(float, sys.argv[4:7])
m = json.load(open(d + "/job.json"))
sub = m["jobs"][0]["submitted_unix"]
recs = [json.load(open(f)) for f in glob.glob(d + "/done/*.json")]
start = min(r["start_unix"] for r in recs); end = max(r["end_unix"] for r in recs)
inside = sum(r["end_unix"] - r["start_unix"] for r in recs)
span = end - sub
print(f"local {t1 - t0:6.2f} s   slurm {t2 - t1:6.2f} s   sbatch->first start {start - sub:5.2f} s   "
      f"makespan {span:6.2f} s   inside tasks {inside:5.2f} s   "
      f"overhead per task {(span * cpus - inside) / n * 1000:6.0f} ms of a CPU slot")
EOF
done
echo "load average $(cut -d' ' -f1-3 /proc/loadavg)"
