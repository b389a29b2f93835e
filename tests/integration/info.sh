#!/usr/bin/env bash
# info.sh - `mbench info`: its JSON against the same facts computed with the
# onnx Python package (tests/fixtures/model/expect_info.py) on generated
# fixtures and on models of ONNX's own test data; the readable report; and
# one clear line with the right exit code for every kind of bad input.
. "$(dirname "$0")/lib.sh"

M="$T_TMP/models"
if ! "$PY" "$FIX/model/make_models.py" "$M" 2>"$T_TMP/make.err"; then
    notok "the fixture models are generated" "$(tail -3 "$T_TMP/make.err")"
    done_testing
fi

# --- JSON matches an independent reading ----------------------------------
for m in mlp symbolic subgraph external external_missing inline inline_ext dtypes multi_input; do
    expect_exit "info --json on $m.onnx succeeds" 0 "$MBENCH" info "$M/$m.onnx" --json "$T_TMP/$m.json"
    if out=$("$PY" "$FIX/model/expect_info.py" "$M/$m.onnx" "$T_TMP/$m.json" 2>&1); then
        ok "info --json on $m.onnx agrees with onnx's python reading"
    else
        notok "info --json on $m.onnx agrees with onnx's python reading" "$out"
    fi
done

# Hand-known values, so the python reading itself is checked too.
jq_py() { "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
[ "$(jq_py "$T_TMP/mlp.json" "d['params'], d['param_bytes']")" = "676 2704" ] &&
    ok "the mlp has 16*32+32+32*4+4 = 676 float32 parameters" ||
    notok "the mlp has 16*32+32+32*4+4 = 676 float32 parameters" "$(jq_py "$T_TMP/mlp.json" "d['params'], d['param_bytes']")"
got=$(jq_py "$T_TMP/subgraph.json" "d['params'], d['initializers'], d['subgraphs']")
[ "$got" = "36 7 5" ] &&
    ok "initializers inside If and Loop bodies are counted (36 params, 7 tensors, 5 subgraphs)" ||
    notok "initializers inside If and Loop bodies are counted (36 params, 7 tensors, 5 subgraphs)" "got $got"
got=$(jq_py "$T_TMP/subgraph.json" "d['op_types'], d['subgraph_op_types']")
[ "$got" = "{'If': 1, 'Loop': 1} {'Add': 6, 'Identity': 1, 'If': 1}" ] &&
    ok "op types of If and Loop bodies are listed apart from the main graph's" ||
    notok "op types of If and Loop bodies are listed apart from the main graph's" "got $got"
expect_exit "info on a model with subgraphs" 0 "$MBENCH" info "$M/subgraph.onnx"
contains "info lists the subgraphs' op types, marked" "$LAST_OUT" "in subgraphs (If/Loop/Scan bodies, not in the counts above): Add 6, Identity 1, If 1"
got=$(jq_py "$T_TMP/symbolic.json" "d['inputs'][0]['shape'], d['inputs'][1]['shape']")
[ "$got" = "['batch', 3, 'height', 'width'] ['batch', None]" ] &&
    ok "symbolic dims are reported by name and unknown dims as null" ||
    notok "symbolic dims are reported by name and unknown dims as null" "got $got"
got=$(jq_py "$T_TMP/multi_input.json" "[i['name'] for i in d['inputs']]")
[ "$got" = "['input_ids', 'attention_mask', 'pixels', 'flag']" ] &&
    ok "an initializer listed among graph inputs is not reported as an input" ||
    notok "an initializer listed among graph inputs is not reported as an input" "got $got"
got=$(jq_py "$T_TMP/external.json" "d['external_data']['files'], d['external_data']['bytes'], d['param_bytes']")
[ "$got" = "['external.onnx.data'] 8192 8328" ] &&
    ok "external data is counted from its file" ||
    notok "external data is counted from its file" "got $got"
got=$(jq_py "$T_TMP/external_missing.json" "d['external_data']['missing']")
[ "$got" = "['gone.bin']" ] &&
    ok "a missing external data file is listed, not fatal" ||
    notok "a missing external data file is listed, not fatal" "got $got"
got=$(jq_py "$T_TMP/dtypes.json" "sorted(d['params_by_dtype'])")
[ "$got" = "['bool', 'float16', 'float32', 'float64', 'int64', 'int8']" ] &&
    ok "parameters are split by element type" ||
    notok "parameters are split by element type" "got $got"

# --- models from ONNX's test data (control flow, sequences, converted nets) --
TD=/usr/share/libonnx-testdata/data
if [ -d "$TD" ]; then
    pairs=() fails=()
    i=0
    for m in "$TD"/{pytorch-converted,pytorch-operator,simple}/*/model.onnx \
             "$TD"/node/test_{if,loop,scan,sequence_map,optional}*/model.onnx; do
        [ -f "$m" ] || continue
        i=$((i + 1))
        if "$MBENCH" info "$m" --json "$T_TMP/td$i.json" >/dev/null 2>"$T_TMP/td.err"; then
            pairs+=("$m" "$T_TMP/td$i.json")
        else
            fails+=("$m: $(cat "$T_TMP/td.err")")
        fi
    done
    [ ${#fails[@]} -eq 0 ] && ok "mbench info reads all $i libonnx-testdata models picked" ||
        notok "mbench info reads all $i libonnx-testdata models picked" "${fails[@]:0:5}"
    if out=$("$PY" "$FIX/model/expect_info.py" "${pairs[@]}" 2>&1); then
        ok "info --json agrees with onnx's python reading on those $i models"
    else
        notok "info --json agrees with onnx's python reading on those $i models" "$(echo "$out" | head -5)"
    fi
else
    skip "mbench info reads libonnx-testdata models" "libonnx-testdata is not installed (scripts/deps.sh test)"
fi

# --- the readable report ----------------------------------------------------
expect_exit "info prints a report" 0 "$MBENCH" info "$M/symbolic.onnx"
contains "the report names symbolic dims" "$LAST_OUT" "[batch, 3, height, width]"
contains "the report gives the opset" "$LAST_OUT" "ai.onnx 17"
contains "the report gives the op types" "$LAST_OUT" "Conv 1"
expect_exit "info on the mlp prints a report" 0 "$MBENCH" info "$M/mlp.onnx"
contains "the report gives the parameter count" "$LAST_OUT" "parameters 676 in 4 initializers"
contains "the report gives the producer" "$LAST_OUT" "produced by mbench-fixtures 1.0"
contains "the report gives the metadata" "$LAST_OUT" "author=mbench"
expect_exit "info on a model with a missing data file still succeeds" 0 "$MBENCH" info "$M/external_missing.onnx"
contains "the report flags the missing external file" "$LAST_OUT" "MISSING: gone.bin"
expect_exit "info --json - writes JSON to stdout" 0 "$MBENCH" info "$M/mlp.onnx" --json -
contains "the stdout JSON carries the schema" "$LAST_OUT" '"schema": "mbench.info/1"'

# --- bad input: one line, the right exit code --------------------------------
bad() { # name, code, needle, args...
    local n=$1 code=$2 needle=$3; shift 3
    expect_exit "$n exits $code" "$code" "$MBENCH" info "$@"
    one_line "$n gives one line" "$LAST_ERR"
    contains "$n says '$needle'" "$LAST_ERR" "$needle"
}
bad "a missing model" 3 "model $T_TMP/nope.onnx does not exist; check the path" "$T_TMP/nope.onnx"
: >"$T_TMP/empty.onnx"
bad "an empty model" 3 "empty" "$T_TMP/empty.onnx"
bad "a directory" 3 "is a directory" "$M"
size=$(stat -c %s "$M/mlp.onnx")
for cut in 1 40 $((size / 2)) $((size - 1)); do
    head -c "$cut" "$M/mlp.onnx" >"$T_TMP/cut$cut.onnx"
    bad "a model truncated to $cut of $size bytes" 3 "truncated" "$T_TMP/cut$cut.onnx"
done
printf 'this is a text file\nnot a model at all\n' >"$T_TMP/text.onnx"
bad "a text file" 3 "is not an ONNX model" "$T_TMP/text.onnx"
"$PY" - "$T_TMP/image.png" <<'EOF'
import struct, sys, zlib
def chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
raw = b"".join(b"\0" + bytes(range(12)) for _ in range(4))
png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0))
       + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
open(sys.argv[1], "wb").write(png)
EOF
bad "a PNG image" 3 "is not an ONNX model" "$T_TMP/image.png"
"$PY" -c "import random,sys; r=random.Random(5); open(sys.argv[1],'wb').write(bytes(r.randrange(256) for _ in range(4096)))" "$T_TMP/random.bin"
bad "random bytes" 3 "is not an ONNX model" "$T_TMP/random.bin"
# A valid protobuf that is not a model: a TensorProto.
"$PY" -c "import sys,numpy as np; from onnx import numpy_helper; open(sys.argv[1],'wb').write(numpy_helper.from_array(np.ones((2,2),np.float32),'t').SerializeToString())" "$T_TMP/tensor.pb"
bad "a TensorProto instead of a model" 3 "is not an ONNX model" "$T_TMP/tensor.pb"

# --- external data: ONNX Runtime's containment and bounds ---------------------
# One model per rule (tests/fixtures/model/make_external_rules.py).  The
# reference is ONNX Runtime itself: info refuses an entry exactly when ORT
# refuses to load the model, and a refused entry is neither read nor counted.
R="$T_TMP/rules"
if "$PY" "$FIX/model/make_external_rules.py" "$R" 2>"$T_TMP/rules.err"; then
    agree=1; detail=()
    for f in "$R"/*.onnx; do
        n=$(basename "$f" .onnx)
        "$MBENCH" run "$f" --processes 1 --iterations 2 --warmup 0 --quiet >/dev/null 2>"$T_TMP/ort.err" && ort=loads || ort=refused
        grep -qi "external data\|External initializer\|file size" "$T_TMP/ort.err" || [ $ort = loads ] || { ort="refused for another reason: $(head -c 200 "$T_TMP/ort.err")"; }
        "$MBENCH" info --json "$T_TMP/$n.info.json" "$f" >/dev/null 2>&1
        mine=$($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); e=d["external_data"]; print("refused" if e["refused"] else "loads", d["total_bytes"] == d["file_bytes"] if e["refused"] else "")' "$T_TMP/$n.info.json")
        want=$([[ $n == bad_* ]] && echo refused || echo loads)
        if [ "$ort" != "$want" ] || [ "${mine%% *}" != "$want" ] || { [ "$want" = refused ] && [ "${mine#* }" != True ]; }; then
            agree=0; detail+=("$n: ONNX Runtime $ort, info $mine, expected $want")
        fi
    done
    [ $agree = 1 ] && ok "info refuses exactly the external data ONNX Runtime refuses (11 models), counting none of it" \
        || notok "info refuses exactly the external data ONNX Runtime refuses (11 models), counting none of it" "${detail[@]}"
    expect_exit "info on a model whose data points outside its directory succeeds" 0 "$MBENCH" info "$R/bad_parent.onnx"
    contains "info says which entry it refused and why" "$LAST_OUT" "REFUSED (not read, not counted; ONNX Runtime will not load this model): ../../../../etc/passwd: outside the model's directory"
    expect_exit "info on a symlink to a file outside" 0 "$MBENCH" info "$R/bad_symlink_out.onnx"
    contains "the symlink is refused once resolved" "$LAST_OUT" "passwd.bin: outside the model's directory once symlinks are resolved"
    expect_exit "info on length=1e15 over 4 floats" 0 "$MBENCH" info "$R/bad_huge_length.onnx"
    contains "the length is refused against the dims" "$LAST_OUT" "its length 1000000000000000 is not the 16 bytes its dims need"
    contains "no 10^15 parameter bytes are reported" "$LAST_OUT" "parameters 4 in 1 initializers, 0 B (0 bytes)"
else
    skip "external data rules" "cannot make the models: $(tail -n 1 "$T_TMP/rules.err")"
fi

# --- model size includes external data ----------------------------------------
# inline.onnx holds its 256 KiB of weights; inline_ext.onnx is the same model
# saved with save_as_external_data.  Their sizes must agree, in mbench info
# and in a run document, up to the difference of the .onnx framing (< 1 KiB).
size_py() { "$PY" -c "import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); $1" "$2" "$3"; }
check "info: the external-data model's total size counts its data file" size_py "
assert b['file_bytes'] < 1024 and b['external_data']['file_bytes'] == 263168, b['external_data']
assert b['total_bytes'] == b['file_bytes'] + 263168, b['total_bytes']
assert a['total_bytes'] == a['file_bytes'], a
assert abs(a['total_bytes'] - b['total_bytes']) < 1024, (a['total_bytes'], b['total_bytes'])" "$T_TMP/inline.json" "$T_TMP/inline_ext.json"
expect_exit "info prints the size with the external data" 0 "$MBENCH" info "$M/inline_ext.onnx"
contains "info's file line gives the total with external data" "$LAST_OUT" "(263,401 bytes) with its external data"
for m in inline inline_ext; do
    expect_exit "run $m.onnx writes a result document" 0 "$MBENCH" run "$M/$m.onnx" --iterations 2 --warmup 0 --json "$T_TMP/run_$m.json"
done
contains "run's console gives the size with the external data" "$LAST_OUT" "size (with external data) 257 KiB"
expect_exit "report reads the external-data run" 0 "$MBENCH" report "$T_TMP/run_inline_ext.json" --html "$T_TMP/ext.html"
check "the report's size chart draws the total size, not the 233-byte .onnx" grep -q "inline_ext.onnx: 257 KiB" "$T_TMP/ext.html"
check "run documents: model.total_bytes includes the external data" size_py "
ma=a['runs'][0]['model']; mb=b['runs'][0]['model']
assert mb['external_data_bytes'] == 263168 and mb['external_data_files'] == ['inline_ext.bin'], mb
assert mb['total_bytes'] == mb['file_bytes'] + mb['external_data_bytes'], mb
assert ma['external_data_bytes'] == 0 and ma['total_bytes'] == ma['file_bytes'], ma
assert abs(ma['total_bytes'] - mb['total_bytes']) < 1024, (ma['total_bytes'], mb['total_bytes'])" "$T_TMP/run_inline.json" "$T_TMP/run_inline_ext.json"
check "run document and info agree on the total size" size_py "
assert a['runs'][0]['model']['total_bytes'] == b['total_bytes'], (a['runs'][0]['model'], b['total_bytes'])" "$T_TMP/run_inline_ext.json" "$T_TMP/inline_ext.json"

# --- usage errors -------------------------------------------------------------
bad "no model" 2 "missing MODEL"
bad "two models" 2 "extra argument" "$M/mlp.onnx" "$M/dtypes.onnx"
bad "an unknown flag" 2 "unknown option '--bogus'" --bogus "$M/mlp.onnx"
bad "--json without a value" 2 "needs a value" "$M/mlp.onnx" --json
expect_exit "info --help exits 0" 0 "$MBENCH" info --help
contains "info --help prints usage on stdout" "$LAST_OUT" "usage: mbench info MODEL"
# (a missing directory would be created: a regular file stands in the way)
echo file >"$T_TMP/afile"
bad "an unwritable --json path" 3 "$T_TMP/afile/x.json" "$M/mlp.onnx" --json "$T_TMP/afile/x.json"

done_testing
