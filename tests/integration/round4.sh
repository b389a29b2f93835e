#!/usr/bin/env bash
# round4.sh - the smaller cases of issue 37: CSV cells that a spreadsheet
# would run as formulas, a variant name that would write --save-outputs
# outside its folder, a suite table of 200,000 columns (read in linear
# time: the guard is a hang guard), `history --model %` (a LIKE wildcard),
# an initializer declaring 2^40 elements with 16 bytes of data.
. "$(dirname "$0")/lib.sh"
J() { $PY -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
cd "$T_TMP"

expect_exit "exec measures commands named like formulas" 0 $MBENCH exec --runs 1 --csv f.csv -n '=HYPERLINK("http://x","y")' -c true -n '@SUM(1)' -c true -n '-2+3' -c true -n '+1' -c true
csvcells=$($PY -c 'import csv; print([r["variant"] for r in csv.DictReader(open("f.csv"))])')
contains "each such cell starts with a quote (OWASP)" "$csvcells" "['\\'=HYPERLINK(\"http://x\",\"y\")', \"'@SUM(1)\", \"'-2+3\", \"'+1\"]"

if [ -f "$MBENCH_ORT_LIB" ]; then
    M="$MBENCH_ROOT/models/digits_fp32.onnx"
    mkdir -p out/deep
    expect_exit "compare with a variant named ../../../escape_out saves outputs" 0 $MBENCH compare "../../../escape_out=$M" "b=$M" --iterations 5 --warmup 1 --processes 1 --save-outputs out/deep -q
    if [ ! -e escape_out ] && [ ! -e ../escape_out ] && [ ! -e ../../escape_out ] && [ -d "out/deep/_.._.._.._escape_out" ]; then
        ok "... inside its folder, under a safe name"
    else
        notok "... inside its folder, under a safe name" "$(find "$T_TMP" -maxdepth 3 -name '*escape_out*')"
    fi
else
    skip "--save-outputs keeps to its folder" "no ONNX Runtime"
fi

$PY -c "
print(','.join(['branch'] + ['c%d' % i for i in range(199999)]))
print(','.join(['main'] + ['v'] * 199999))" > wide.csv
git init -q -b main repo && (cd repo && git -c user.name=t -c user.email=t@e commit -q --allow-empty -m x)
(cd repo && timeout 120 $MBENCH suite ../wide.csv --command true --runs 1 -q -o ../wide.json) >wide.out 2>&1
rc=$?
if [ $rc -eq 0 ]; then ok "a suite table of 200,000 columns is read (hang guard 120 s)"; else notok "a suite table of 200,000 columns is read (hang guard 120 s)" "exit $rc" "$(tail -3 wide.out)"; fi

if [ -f "$MBENCH_ORT_LIB" ]; then
    expect_exit "a model run is stored" 0 $MBENCH run "$MBENCH_ROOT/models/digits_fp32.onnx" --processes 1 --min-time 0.05s --max-time 0.2s -q --db h.db
    expect_exit "history --model %" 0 $MBENCH history --db h.db --model %
    contains "... matches no model: % is no wildcard" "$LAST_OUT$LAST_ERR" "no stored results match"
    expect_exit "history --model _igits_fp32.onnx" 0 $MBENCH history --db h.db --model _igits_fp32.onnx
    contains "... nor is _" "$LAST_OUT$LAST_ERR" "no stored results match"
    sha=$(sqlite3 h.db 'select model_sha256 from runs limit 1' 2>/dev/null || $PY -c "import sqlite3; print(sqlite3.connect('h.db').execute('select model_sha256 from runs').fetchone()[0])")
    expect_exit "history --model with a sha256 prefix still finds it" 0 $MBENCH history --db h.db --model "${sha:0:12}"
    if [[ "$LAST_OUT$LAST_ERR" != *"no stored results match"* ]]; then ok "... (a prefix is still a prefix)"; else notok "... (a prefix is still a prefix)" "$LAST_OUT$LAST_ERR"; fi
else
    skip "history --model escapes LIKE wildcards" "no ONNX Runtime"
fi

if $PY -c 'import onnx' 2>/dev/null; then
    $PY -c "
import onnx
from onnx import helper, TensorProto
x = helper.make_tensor_value_info('x', TensorProto.FLOAT, [2])
y = helper.make_tensor_value_info('y', TensorProto.FLOAT, [2])
w = onnx.TensorProto(); w.name = 'w'; w.data_type = TensorProto.FLOAT; w.dims.extend([1 << 40]); w.raw_data = bytes(16)
g = helper.make_graph([helper.make_node('Identity', ['x'], ['y'])], 'g', [x], [y], [w])
m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)]); m.ir_version = 8
open('imp.onnx', 'wb').write(m.SerializeToString())"
    expect_exit "info on a [2^40] initializer with 16 bytes" 0 $MBENCH info imp.onnx --json imp.json
    contains "... flags it and counts no parameters" "$(J imp.json 'd["params"], d["impossible_tensors"]["count"], d["impossible_tensors"]["first"]["name"], d["impossible_tensors"]["first"]["declared_elements"]')" "(0, 1, 'w', 1099511627776)"
    contains "... on the console too" "$LAST_OUT" "IMPOSSIBLE 1 tensor(s) whose data cannot hold what their dims declare"
else
    skip "impossible initializers" "no python3-onnx"
fi
done_testing
