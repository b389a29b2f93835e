#!/usr/bin/env bash
# bombs.sh - allocations sized by untrusted data are capped (issue 37): an
# ONNX string field of 4 GiB in a sparse file, the total of an .npz's
# members, a synthetic input of a declared shape.  Refused fast, in
# bounded memory, naming the cap.
. "$(dirname "$0")/lib.sh"
maxrss() { $PY -c "import resource,subprocess,sys; r=subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=open('$T_TMP/err', 'w')); print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)" "$@"; }
$PY - "$T_TMP" <<'PY'
import sys, os
d = sys.argv[1]
def varint(n):
    out = b''
    while True:
        b, n = n & 0x7f, n >> 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])
L = 4 << 30  # producer_name (field 2) of 4 GiB, the file sparse
with open(os.path.join(d, 'bomb.onnx'), 'wb') as f:
    f.write(b'\x08\x07\x12' + varint(L))
    f.seek(L - 1, 1)
    f.write(b'x')
PY
out=$(maxrss $MBENCH info "$T_TMP/bomb.onnx"); rc=${out% *}; kb=${out#* }
if [ "$rc" = 3 ] && [ "$kb" -lt 102400 ]; then ok "info on a 4 GiB producer_name (sparse file) fails within 100 MB"; else notok "info on a 4 GiB producer_name (sparse file) fails within 100 MB" "exit $rc, max RSS $kb KiB" "$(cat "$T_TMP/err")"; fi
contains "... naming the field and the cap" "$(cat "$T_TMP/err")" "its producer_name is 4294967296 bytes long, beyond the 16777216 bytes"

if $PY -c 'import numpy' 2>/dev/null; then
    $PY - "$T_TMP" <<'PY'
import sys, zipfile, io, numpy as np
d = sys.argv[1]
buf = io.BytesIO(); np.save(buf, np.zeros(16 << 20, dtype=np.float32))  # 64 MiB each
with zipfile.ZipFile(d + '/six.npz', 'w', zipfile.ZIP_DEFLATED) as z:
    for i in range(6):
        z.writestr('m%d.npy' % i, buf.getvalue())
PY
    out=$(maxrss $MBENCH tensor-dump "$T_TMP/six.npz" --max-tensor-bytes 300M --max-compression-ratio 0); rc=${out% *}; kb=${out#* }
    if [ "$rc" = 3 ] && [ "$kb" -lt 102400 ]; then ok "6 members of 64 MiB under a 300M cap are refused by their total"; else notok "6 members of 64 MiB under a 300M cap are refused by their total" "exit $rc, max RSS $kb KiB" "$(cat "$T_TMP/err")"; fi
    contains "... naming the archive as a whole" "$(cat "$T_TMP/err")" "six.npz (all .npy members together): a tensor of 384 MiB is larger than the 300 MiB"
    expect_exit "the same archive passes a cap above its total" 0 $MBENCH tensor-dump "$T_TMP/six.npz" --max-tensor-bytes 400M --max-compression-ratio 0
else
    skip "the .npz total cap" "no numpy"
fi

if [ -f "$MBENCH_ORT_LIB" ] && $PY -c 'import onnx' 2>/dev/null; then
    $PY - "$T_TMP" <<'PY'
import sys, onnx
from onnx import helper, TensorProto
x = helper.make_tensor_value_info('x', TensorProto.FLOAT, [805306368])
y = helper.make_tensor_value_info('y', TensorProto.FLOAT, [805306368])
g = helper.make_graph([helper.make_node('Identity', ['x'], ['y'])], 'g', [x], [y])
m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)]); m.ir_version = 8
onnx.save(m, sys.argv[1] + '/bigin.onnx')
PY
    out=$(maxrss $MBENCH run "$T_TMP/bigin.onnx" --max-tensor-bytes 1G --processes 1 --min-time 0.1s --max-time 0.2s); rc=${out% *}; kb=${out#* }
    if [ "$rc" = 3 ] && [ "$kb" -lt 204800 ]; then ok "a synthetic input of 3 GiB is refused under --max-tensor-bytes 1G"; else notok "a synthetic input of 3 GiB is refused under --max-tensor-bytes 1G" "exit $rc, max RSS $kb KiB" "$(cat "$T_TMP/err")"; fi
    contains "... naming the input and the flag" "$(cat "$T_TMP/err")" "synthetic input 'x': a tensor of 3 GiB is larger than the 1 GiB that --max-tensor-bytes allows"
else
    skip "the synthetic input cap" "no ONNX Runtime or python3-onnx"
fi
done_testing
