# data.sh - what mbench reads from numpy- and onnx-made files agrees with
# numpy exactly (sha256 of the C-order little-endian bytes), and bad files
# and mismatched data give one-line errors naming the problem.
source "$(dirname "$0")/lib.sh"

D="$T_TMP/data"
if ! "$PY" "$FIX/data/make_data.py" "$D" 2>"$T_TMP/make.err"; then
    notok "the data fixtures can be generated" "$(tail -3 "$T_TMP/make.err")"
    done_testing
fi

# Every tensor file reads as numpy reads it: dtype, shape and bytes.
bad=()
n=0
while IFS=$'\t' read -r file want; do
    n=$((n + 1))
    got=$(cd "$D" && "$MBENCH" tensor-dump "$file" 2>&1 | grep -F -- "${want%% *} ")
    [ "$got" = "$want" ] || bad+=("$file: got '$got'" "  want '$want'")
done <"$D/expected.txt"
if [ ${#bad[@]} -eq 0 ] && [ "$n" -gt 60 ]; then
    ok "all $n tensors of every dtype, byte order, memory order and header version match numpy"
else
    notok "every tensor file matches numpy ($n checked)" "${bad[@]:0:10}"
fi

# Each --data layout yields the batch numpy computes for it.
while IFS=$'\t' read -r id data first batch specs lines; do
    args=()
    IFS=';' read -ra sp <<<"$specs"
    for s in "${sp[@]}"; do args+=(--input "$s"); done
    got=$(cd "$D" && "$MBENCH" tensor-dump --data "$data" --first "$first" \
        --batch "$batch" "${args[@]}" 2>&1 | grep -v '^#' | paste -sd';')
    if [ "$got" = "$lines" ]; then
        ok "data layout '$id' gives numpy's batch of $batch from sample $first"
    else
        notok "data layout '$id' gives numpy's batch" "got:  $got" "want: $lines"
    fi
done <"$D/expected_data.txt"

# Bad files: exit 3 and one line naming the file and the defect.
bad_file() { # name file needle
    expect_exit "$1" 3 "$MBENCH" tensor-dump "$D/$2"
    contains "$1: the message names the defect" "$LAST_ERR" "$3"
    one_line "$1: the message is one line" "$LAST_ERR"
}
bad_file "a truncated .npy is refused" bad/truncated.npy "truncated.npy is truncated"
bad_file "a .npy cut inside its header is refused" bad/truncated_header.npy "header claims"
bad_file "a .npy with corrupt magic is refused" bad/bad_magic.npy "is not a .npy file"
bad_file "a .npy of an unknown format version is refused" bad/bad_version.npy "version 9.0 is not supported"
bad_file "a .npy with a garbled header is refused" bad/bad_header.npy "corrupt .npy header"
bad_file "a .npy with bytes after its data is refused" bad/extra_bytes.npy "3 unexpected bytes"
bad_file "a .npy of strings is refused as unsupported" bad/strings.npy "'<U2' is not supported"
bad_file "a .npy of records is refused as unsupported" bad/record.npy "structured (record) dtypes"
bad_file "a truncated .npz is refused" bad/truncated.npz "truncated.npz is not a readable .npz"
bad_file "an .npz member with damaged data is refused" bad/corrupt_member.npz "member x.npy is corrupt"
bad_file "an .npz member that is not .npy is refused" bad/not_npy_member.npz "'readme.txt' is not a .npy"
if [ -f "$D/bad/truncated.pb" ]; then
    bad_file "a truncated .pb is refused" bad/truncated.pb "truncated.pb"
else
    skip "a truncated .pb is refused" "python3-onnx is not installed"
fi

# Data that does not fit the model.
expect_exit "float64 data for a float32 input is refused" 3 \
    "$MBENCH" tensor-dump --data "$D/sets/digits64.npy" --input x:float32:N,1,8,8
contains "the mismatch names input, expected and found" "$LAST_ERR" \
    "input 'x': expected float32 [N,1,8,8], found float64 [10,64] in digits64.npy"
expect_exit "data with a wrong fixed dimension is refused" 3 \
    "$MBENCH" tensor-dump --data "$D/sets/digits.npy" --input x:float32:N,1,8,9
contains "the shape mismatch names the shapes" "$LAST_ERR" "expected float32 [N,1,8,9], found float32 [10,1,8,8]"
expect_exit "inputs with different sample counts are refused" 3 \
    "$MBENCH" tensor-dump --data "a=$D/sets/a.npy,b=$D/sets/b5.npy" --input a:float32:N,3 --input b:int64:N
contains "the count mismatch names both inputs" "$LAST_ERR" "input 'b' has 5 samples but input 'a' has 6"
expect_exit "an npz without a member for an input is refused" 3 \
    "$MBENCH" tensor-dump --data "$D/sets/multi.npz" --input a:float32:N,3 --input c:int64:N
contains "the missing member is named with the members found" "$LAST_ERR" "input 'c' has no member in"

# Labels.
expect_exit "labels from a text file with comments are read" 0 \
    "$MBENCH" tensor-dump --labels "$D/labels/labels.txt"
contains "text labels equal numpy's" "$LAST_OUT" "labels 10: $(cat "$D/labels/expected.txt")"
expect_exit "labels from an int64 .npy are read" 0 "$MBENCH" tensor-dump --labels "$D/labels/labels.npy"
contains "npy labels equal numpy's" "$LAST_OUT" "labels 10: $(cat "$D/labels/expected.txt")"
expect_exit "labels from a uint8 [N,1] .npy are read" 0 "$MBENCH" tensor-dump --labels "$D/labels/labels_u8.npy"
contains "uint8 labels equal numpy's" "$LAST_OUT" "labels 10: $(cat "$D/labels/expected.txt")"
expect_exit "a label file with a bad line is refused" 3 "$MBENCH" tensor-dump --labels "$D/labels/bad_line.txt"
contains "the bad label line is named by number" "$LAST_ERR" "line 4: 'three' is not an integer"
expect_exit "float labels are refused" 3 "$MBENCH" tensor-dump --labels "$D/labels/labels_float.npy"
expect_exit "2-D labels are refused" 3 "$MBENCH" tensor-dump --labels "$D/labels/labels_2d.npy"

# What mbench writes (.npy and .npz) numpy reads back bit for bit.
mkdir -p "$T_TMP/saved"
wrote=0
for f in "$D"/dtypes/*.npy "$D"/headers/*.npy; do
    "$MBENCH" tensor-dump "$f" --save "$T_TMP/saved/$(basename "$f")" >/dev/null 2>&1 && wrote=$((wrote + 1))
done
"$MBENCH" tensor-dump "$D/npz/deflated.npz" --save "$T_TMP/saved/all.npz" >/dev/null 2>&1
check "every .npy mbench wrote ($wrote) equals numpy's original bit for bit, little-endian C order" \
    "$PY" - "$D" "$T_TMP/saved" <<'PYEOF'
import glob, os, sys
import numpy as np
src, saved = sys.argv[1], sys.argv[2]
files = glob.glob(src + '/dtypes/*.npy') + glob.glob(src + '/headers/*.npy')
for f in files:
    a = np.load(f)
    s = saved + '/' + os.path.basename(f)
    b = np.load(s)
    with open(s, 'rb') as fh:
        version = fh.read(8)[6]
    hdr = open(s, 'rb').read(128).decode('latin1')
    assert version == 1, (s, version)
    assert "'fortran_order': False" in hdr, s
    assert b.dtype.byteorder in '<|=', (s, b.dtype)
    assert a.shape == b.shape and a.dtype.newbyteorder('<') == b.dtype.newbyteorder('<'), s
    assert np.ascontiguousarray(a).astype(a.dtype.newbyteorder('<')).tobytes() == b.tobytes(), s
z, o = np.load(src + '/npz/deflated.npz'), np.load(saved + '/all.npz')
assert z.files == o.files, (z.files, o.files)
for k in z.files:
    assert z[k].tobytes() == o[k].tobytes(), k
assert len(files) > 50
PYEOF
expect_exit "tensor-dump rejects an unknown flag" 2 "$MBENCH" tensor-dump --bogus
expect_exit "tensor-dump --help exits 0" 0 "$MBENCH" tensor-dump --help

rm -rf "$T_TMP"
done_testing
