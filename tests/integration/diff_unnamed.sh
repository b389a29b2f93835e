#!/usr/bin/env bash
# diff_unnamed.sh - mbench diff on old ONNX test sets whose output_N.pb
# store no tensor name: nothing names them, so they pair by position
# (output_N in N order) with the other side's tensors, with a note.
. "$(dirname "$0")/lib.sh"

"$PY" - "$T_TMP" <<'PYEOF'
import os, sys
import numpy as np
from onnx import numpy_helper
t = sys.argv[1]
rng = np.random.default_rng(3)
outs = [rng.standard_normal((2, 3)).astype(np.float32) for _ in range(11)]
outs[1] = rng.standard_normal(4).astype(np.float32)
def pb(path, arr, name=""):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(arr, name).SerializeToString())
# old test set, one output, no names
os.makedirs(f"{t}/old1"); pb(f"{t}/old1/input_0.pb", outs[2]); pb(f"{t}/old1/output_0.pb", outs[0])
os.makedirs(f"{t}/saved1"); np.save(f"{t}/saved1/logits.npy", outs[0])
# eleven outputs: output_10 sorts before output_2 by name, not by position
os.makedirs(f"{t}/old11"); os.makedirs(f"{t}/saved11")
for i, a in enumerate(outs):
    pb(f"{t}/old11/output_{i}.pb", a)
    np.save(f"{t}/saved11/out{i:02d}.npy", a)
# a candidate whose second output differs
os.makedirs(f"{t}/saved11_bad")
for i, a in enumerate(outs):
    np.save(f"{t}/saved11_bad/out{i:02d}.npy", a + (1.0 if i == 1 else 0.0))
PYEOF

expect_exit "diff pairs an unnamed output_0.pb with the only saved tensor" 0 "$MBENCH" diff "$T_TMP/old1" "$T_TMP/saved1" --gate 'max_abs<=0'
contains "diff says it paired by position" "$LAST_ERR" "paired by position: output_0=logits ("
expect_exit "the other way round too" 0 "$MBENCH" diff "$T_TMP/saved1" "$T_TMP/old1" --gate 'max_abs<=0'
expect_exit "eleven unnamed outputs pair in output_N order (not name order)" 0 "$MBENCH" diff "$T_TMP/old11" "$T_TMP/saved11" --gate 'max_abs<=0' --json "$T_TMP/d11.json"
check "all eleven are compared, output_10 with the eleventh" "$PY" -c "
import json,sys; d=json.load(open(sys.argv[1])); o=d['outputs']; assert len(o)==11, len(o)
assert all(x['max_abs'] == 0 for x in o), [x['max_abs'] for x in o]" "$T_TMP/d11.json"
expect_exit "a differing second output is found at its position" 1 "$MBENCH" diff "$T_TMP/old11" "$T_TMP/saved11_bad" --gate 'max_abs<=0' --json "$T_TMP/bad.json"
check "the failing output is output_1" "$PY" -c "
import json,sys; d=json.load(open(sys.argv[1]))
bad=[x['name'] for x in d['outputs'] if x['max_abs'] > 0]; assert bad == ['output_1'], bad" "$T_TMP/bad.json"
# counts that differ are still an error naming the tensor
rm "$T_TMP/saved11/out10.npy"
expect_exit "a missing tensor is still an error" 3 "$MBENCH" diff "$T_TMP/old11" "$T_TMP/saved11"
contains "the error names the unmatched tensor" "$LAST_ERR" "outputs do not pair: 'output_0', 'output_1'"
done_testing
