#!/usr/bin/env bash
# bench/params.sh - parameter counting on a large model without loading the
# weights.  Generates a ~350 MB ONNX model (embedded raw_data) and the same
# model with its weights as external data, in a temporary directory; runs
# `mbench info` on each under /usr/bin/time and prints wall time and max
# RSS against the file size.  For contrast it also times onnx.load (which
# reads every weight) on the embedded model.
#
# Usage: bench/params.sh [BUILD_DIR]   (default: build)
# Needs: /usr/bin/time, /usr/bin/python3 with onnx (scripts/deps.sh bench).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
mbench="$root/$build/mbench"
PY=/usr/bin/python3
[ -x "$mbench" ] || { echo "params.sh: $mbench not built (make BUILD=$build)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "params.sh: /usr/bin/time missing (scripts/deps.sh bench)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mbench-params.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The model: 48 MatMul layers of 1360x1360 float32 (7.4 MB each) = 355 MB,
# written field by field so generating it needs little memory.
"$PY" - "$tmp" <<'EOF'
import os, sys
import numpy as np
import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
N, D = 48, 1360

def varint(v):
    b = bytearray()
    while True:
        x = v & 0x7F
        v >>= 7
        b.append(x | (0x80 if v else 0))
        if not v:
            return bytes(b)

def field(num, wire, payload=b""):
    tag = varint(num << 3 | wire)
    if wire == 2:
        return tag + varint(len(payload)) + payload
    return tag + payload

# Everything but the initializers comes from onnx's own serializer.
nodes = [helper.make_node("MatMul", [f"h{i}", f"w{i}"], [f"h{i+1}"]) for i in range(N)]
g = helper.make_graph(nodes, "big",
                      [helper.make_tensor_value_info("h0", TensorProto.FLOAT, ["batch", D])],
                      [helper.make_tensor_value_info(f"h{N}", TensorProto.FLOAT, ["batch", D])])
graph_rest = g.SerializeToString()
m = helper.make_model(helper.make_graph([], "x", [], []), opset_imports=[helper.make_opsetid("", 17)])
m.ClearField("graph")
model_rest = m.SerializeToString()
weights = np.full((D, D), 0.01, dtype=np.float32).tobytes()

def tensor(i, external, offset):
    t = field(1, 0, varint(D)) + field(1, 0, varint(D)) + field(2, 0, varint(1))
    t += field(8, 2, f"w{i}".encode())
    if external:
        for k, v in (("location", "big.data"), ("offset", str(offset)), ("length", str(len(weights)))):
            t += field(13, 2, field(1, 2, k.encode()) + field(2, 2, v.encode()))
        t += field(14, 0, varint(1))
    else:
        t += field(9, 2, weights)
    return field(5, 2, t)

for name, external in (("big.onnx", False), ("big_ext.onnx", True)):
    inits = b"".join(tensor(i, external, i * len(weights)) for i in range(N))
    graph = graph_rest + inits
    with open(os.path.join(out, name), "wb") as f:
        f.write(model_rest + field(7, 2, graph))
with open(os.path.join(out, "big.data"), "wb") as f:
    for i in range(N):
        f.write(weights)
EOF

measure() { # label, command... -> "label  seconds  maxrss_kb"
    local label=$1; shift
    /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err" ||
        { echo "params.sh: $label failed: $(cat "$tmp/err")" >&2; exit 3; }
    read -r secs rss <"$tmp/time"
    echo "$secs $rss"
}

size=$(stat -c %s "$tmp/big.onnx")
ext_size=$(stat -c %s "$tmp/big.data")
"$mbench" info "$tmp/big.onnx" --json "$tmp/big.json" >/dev/null
params=$("$PY" -c "import json,sys; print(json.load(open(sys.argv[1]))['params'])" "$tmp/big.json")

# Warm the page cache first so every run sees the same (cached) file.
cat "$tmp/big.onnx" "$tmp/big.data" >/dev/null
read -r t_in rss_in < <(measure "mbench info (embedded)" "$mbench" info "$tmp/big.onnx")
read -r t_ext rss_ext < <(measure "mbench info (external)" "$mbench" info "$tmp/big_ext.onnx")
read -r t_ver rss_ver < <(measure "mbench version" "$mbench" version)
read -r t_py rss_py < <(measure "onnx.load" "$PY" -c "import onnx,sys; onnx.load(sys.argv[1])" "$tmp/big.onnx")

mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
echo "params.sh: parameter counting without loading weights"
echo "  model: $params float32 parameters, $(mib "$size") MiB file (embedded); external: $(mib "$ext_size") MiB data file"
printf '  %-38s %8s %12s %14s\n' "command" "wall s" "max RSS MiB" "RSS/file size"
row() { printf '  %-38s %8s %12s %13.2f%%\n' "$1" "$2" "$(mib $(($3 * 1024)))" \
        "$(awk -v r="$3" -v s="$size" 'BEGIN { print 100 * r * 1024 / s }')"; }
row "mbench info big.onnx (embedded)" "$t_in" "$rss_in"
row "mbench info big_ext.onnx (external)" "$t_ext" "$rss_ext"
row "mbench version (process baseline)" "$t_ver" "$rss_ver"
row "python3 onnx.load big.onnx" "$t_py" "$rss_py"
