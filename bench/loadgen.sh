#!/usr/bin/env bash
# bench/loadgen.sh - mbench load beside MLPerf LoadGen (mlcommons-loadgen,
# the peers venv of `make frameworks`) in one run (docs/LOAD.md, "Beside
# MLPerf LoadGen"):
#  1. the null SUT (a query completes the moment it is issued; mbench's null
#     backend) in the Server scenario (Poisson arrivals at RATE/s, one
#     server) and Offline (every query at once);
#  2. the Fashion-MNIST CNN (bench/models/make_fashion.py; onnxruntime's
#     Python API for LoadGen, mbench's ONNX Runtime backend, one intra-op
#     thread and one serving thread each) in Server at MODEL_RATE/s and
#     Offline; mbench also with the other --realtime mode than its default
#     (Server: none; Offline: serve), as LoadGen's threads run at normal
#     priority;
#  3. each harness's issue rate: the null SUT at a rate neither can keep
#     (Server) and all at once (Offline).
# mbench and LoadGen alternate, ROUNDS times; every row is one run, with
# the command that produced it.  Achieved rate and latency percentiles come
# from each tool's own report (LoadGen's mlperf_log_summary.txt: latency
# from each query's scheduled time, as mbench's).
# Usage: bench/loadgen.sh [BUILD_DIR] [ROUNDS] [RATE] [MODEL_RATE]
# Needs build/frameworks/peers (make frameworks) or MBENCH_PEERS_PY.
set -u
build=${1:-build}
rounds=${2:-2}
rate=${3:-1000}
model_rate=${4:-1000}
root=$(cd "$(dirname "$0")/.." && pwd)
mbench="$root/$build/mbench"
[ -x "$mbench" ] || { echo "bench/loadgen.sh: $mbench not built" >&2; exit 2; }
export MBENCH_ORT_LIB=${MBENCH_ORT_LIB:-$root/build/ort/libonnxruntime.so.1}
peers=${MBENCH_PEERS_PY:-$root/build/frameworks/peers/bin/python}
if ! [ -x "$peers" ] || ! "$peers" -c 'import mlperf_loadgen, onnxruntime' 2>/dev/null; then
    echo "(skipped: no MLPerf LoadGen in $peers; run 'make frameworks' or set MBENCH_PEERS_PY)"
    exit 0
fi
py=/usr/bin/python3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mbench-loadgen.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
models="$root/$build/bench/models"
if ! [ -f "$models/fashion_cnn.onnx" ]; then
    mkdir -p "$models"
    $py "$root/bench/models/make_fashion.py" "$models" >/dev/null
    rc=$?
    [ $rc -eq 77 ] && { echo "(skipped: no Fashion-MNIST: apt-get install dataset-fashion-mnist)"; exit 0; }
    [ $rc -ne 0 ] && { echo "bench/loadgen.sh: the Fashion-MNIST CNN could not be built" >&2; exit 1; }
fi
model="$models/fashion_cnn.onnx"
steal() { head -1 /proc/stat | awk '{print $9, $2+$3+$4+$5+$6+$7+$8+$9}'; }
steal0=$(steal)
lgv=$("$peers" -c 'from importlib.metadata import version; print(version("mlcommons-loadgen"))')
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs; mlcommons-loadgen $lgv"

rows="$tmp/rows.jsonl"
: >"$rows"
# mb NAME SCENARIO TARGET ARGS...: one mbench load run, its last step as a row.
mb() {
    local name=$1 scen=$2 target=$3; shift 3
    local out="$tmp/mb.json"
    "$mbench" load "$@" --records 0 --quiet --json "$out" >/dev/null 2>&1 || { echo "(mbench $* failed)"; return; }
    $py - "$out" "$name" "$scen" "$target" "mbench load $*" >>"$rows" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1])); st = d["load"]["steps"][-1]
lat = st["latency"]
print(json.dumps({"workload": sys.argv[2], "scenario": sys.argv[3], "tool": "mbench",
                  "target": float(sys.argv[4]), "achieved": st["achieved_qps"],
                  "p50": lat.get("median"), "p90": lat.get("p90"), "p99": lat.get("p99"),
                  "cmd": sys.argv[5], "realtime": d["load"]["rules"].get("realtime"),
                  "dropped": st["requests"]["dropped"]}))
PYEOF
}
# lg NAME SCENARIO TARGET ARGS...: one LoadGen run.
lg() {
    local name=$1 scen=$2 target=$3; shift 3
    local dir="$tmp/lg.$RANDOM"
    "$peers" "$root/bench/loadgen_peer.py" "$@" --outdir "$dir" >"$tmp/lg.json" 2>"$tmp/lg.err" || {
        echo "(loadgen_peer.py $* failed: $(tail -1 "$tmp/lg.err"))"; return; }
    $py - "$tmp/lg.json" "$name" "$scen" "$target" "loadgen_peer.py $*" >>"$rows" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
ach = r.get("completed_qps", r.get("offline_qps"))
print(json.dumps({"workload": sys.argv[2], "scenario": sys.argv[3], "tool": "LoadGen",
                  "target": float(sys.argv[4]), "achieved": ach, "p50": r.get("p50_ns"),
                  "p90": r.get("p90_ns"), "p99": r.get("p99_ns"), "cmd": sys.argv[5],
                  "valid": r.get("result")}))
PYEOF
}

n_off=200000
for r in $(seq 1 "$rounds"); do
    echo "round $r of $rounds: load average $(cut -d' ' -f1-3 /proc/loadavg)"
    mb null Server "$rate" x --backend null --qps "$rate" --concurrency 1 --min-time 2s
    lg null Server "$rate" --sut null --scenario server --qps "$rate" --duration-ms 2000
    mb null Offline 0 x --backend null --offline --requests "$n_off" --concurrency 1
    lg null Offline 0 --sut null --scenario offline --qps "$n_off" --duration-ms 1000 --min-queries "$n_off"
    mb fashion Server "$model_rate" "$model" --qps "$model_rate" --concurrency 1 --threads 1 --min-time 2s
    mb fashion Server "$model_rate" "$model" --qps "$model_rate" --concurrency 1 --threads 1 --min-time 2s --realtime none
    lg fashion Server "$model_rate" --sut onnx --model "$model" --scenario server --qps "$model_rate" --duration-ms 2000
    mb fashion Offline 0 "$model" --offline --requests 20000 --concurrency 1 --threads 1
    mb fashion Offline 0 "$model" --offline --requests 20000 --concurrency 1 --threads 1 --realtime serve
    lg fashion Offline 0 --sut onnx --model "$model" --scenario offline --qps 20000 --duration-ms 1000 --min-queries 20000
    mb issue-rate Server 200000 x --backend null --qps 200000 --concurrency 1 --min-time 1s
    lg issue-rate Server 200000 --sut null --scenario server --qps 200000 --duration-ms 1000 --min-queries 100000
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg); CPU time stolen by the host during the run: $(echo "$steal0 $(steal)" | awk '{printf "%.2f%%", ($3-$1)/($4-$2)*100}')"
echo
$py - "$rows" "$root/" <<'PYEOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
for r in rows:
    r["cmd"] = r["cmd"].replace(sys.argv[2], "")
ms = lambda v: "-" if v is None else ("%.3f" % (v / 1e6))
print("| workload | scenario | tool | target/s | achieved/s | p50 ms | p90 ms | p99 ms | command |")
print("|---|---|---|---:|---:|---:|---:|---:|---|")
for r in rows:
    tgt = "all at once" if r["target"] == 0 else "%.0f" % r["target"]
    note = ""
    if r["tool"] == "mbench" and r.get("realtime"):
        note = " (realtime %s%s)" % (r["realtime"], ", %d dropped" % r["dropped"] if r.get("dropped") else "")
    if r["tool"] == "LoadGen" and r.get("valid"):
        note = " (%s)" % r["valid"]
    print("| %s | %s | %s%s | %s | %.0f | %s | %s | %s | `%s` |" % (
        r["workload"], r["scenario"], r["tool"], note, tgt, r["achieved"] or 0,
        ms(r["p50"]), ms(r["p90"]), ms(r["p99"]), r["cmd"].replace("|", "\\|")))
PYEOF
