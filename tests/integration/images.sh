#!/usr/bin/env bash
# images.sh - `--data` of PNG/JPEG images (issue 23): an ImageFolder of
# mixed images (RGB, gray, RGBA, palette PNGs; baseline and progressive
# JPEGs; a nested folder) fed to identity models, whose outputs are the
# inputs mbench prepared, checked against torchvision's ImageFolder with
# Resize, CenterCrop, ToTensor and Normalize (tests/fixtures/images); then
# layouts, channel orders, uint8 inputs and bad input.  Skips without
# Pillow, torchvision or python3-onnx.
. "$(dirname "$0")/lib.sh"
D="$T_TMP/im"
if [ ! -f "$MBENCH_ORT_LIB" ]; then
    skip "images feed models" "no ONNX Runtime at $MBENCH_ORT_LIB"
    done_testing
fi
if ! $PY "$FIX/images/make_images.py" "$D" >"$T_TMP/py.err" 2>&1; then
    skip "the image fixtures are generated" "Pillow, torchvision or onnx missing: $(tail -1 "$T_TMP/py.err")"
    done_testing
fi
V() { local m=$1; shift; "$MBENCH" validate "$D/$m" "$D/$m" --data "$D/rgb" "$@"; }
NORM=(--mean 0.485,0.456,0.406 --std 0.229,0.224,0.225)
# same NAME SAVED EXPR: the saved input equals the numpy expression of e
same() {
    check "$1" $PY -c "
import numpy as np
e = np.load('$D/expected.npz'); a = np.load('$2/baseline/pixels.npy'); b = $3
assert a.shape == b.shape and (a == b).all(), (a.shape, b.shape, np.abs(a.astype(float) - b).max())"
}

expect_exit "Resize(72), CenterCrop(64), Normalize: runs" 0 \
    V ident_rgb.onnx --resize 72 --center-crop 64 "${NORM[@]}" --save-outputs "$T_TMP/o1" --json "$T_TMP/o1.json"
same "... equals torchvision's ImageFolder pipeline bit for bit" "$T_TMP/o1" "e['x']"
contains "the data set is described" "$LAST_OUT" "rgb: 9 samples (images in 2 class folders"
check "the class folders are the labels, in ImageFolder's order" $PY -c "
import json; v = json.load(open('$T_TMP/o1.json'))['validation']
assert v['labels'].endswith('(the 2 class folders, in sorted order)'), v['labels']
assert v['accuracy'] is None and v['rule'] == 'gates', v['rule']  # no class scores: labels unused"
expect_exit "Resize((64, 64)) and ToTensor alone" 0 \
    V ident_rgb.onnx --resize 64x64 --save-outputs "$T_TMP/o2"
same "... equals torchvision's" "$T_TMP/o2" "e['x_plain']"
expect_exit "a channels-last model gets NHWC, --channel-order bgr reverses" 0 \
    V ident_nhwc.onnx --resize 64x64 --channel-order bgr --save-outputs "$T_TMP/o3"
same "... equals torchvision's, transposed and reversed" "$T_TMP/o3" "e['x_plain'].transpose(0, 2, 3, 1)[..., ::-1]"
expect_exit "a uint8 model gets the resized pixels as they are" 0 \
    V ident_u8.onnx --resize 64x64 --save-outputs "$T_TMP/o4"
same "... equal to Pillow's resize" "$T_TMP/o4" "e['x_u8']"
expect_exit "--layout nhwc on an NCHW-shaped input is refused" 3 V ident_rgb.onnx --resize 64x64 --layout nhwc
contains "... saying it is no image input" "$LAST_ERR" "is not an image input"
expect_exit "one image file is one sample" 0 \
    "$MBENCH" run "$D/ident_rgb.onnx" --data "$D/rgb/cat/a.png" --resize 64x64 --processes 1 --min-time 0.1s --max-time 0.2s

# ---- bad input: one line, naming the file and the fix ----
expect_exit "images of another size without --resize: a runtime error" 3 V ident_rgb.onnx
contains "... naming the image, both sizes and the flags" "$LAST_ERR" \
    "image $D/rgb/cat/a.png is 90x70 (HxW) but the model takes 64x64; give --resize 64x64, or --resize N --center-crop 64x64"
one_line "... in one line" "$LAST_ERR"
expect_exit "--mean with two values is a usage error" 2 V ident_rgb.onnx --resize 64x64 --mean 0.5,0.5
expect_exit "--resize 0 is a usage error" 2 V ident_rgb.onnx --resize 0
expect_exit "--std 0 is a usage error" 2 V ident_rgb.onnx --resize 64x64 --std 0
mkdir -p "$T_TMP/bad/a" "$T_TMP/bad/b" "$T_TMP/empty/a" "$T_TMP/empty/b" "$T_TMP/mixed/a" "$T_TMP/huge"
cp "$D/rgb/cat/a.png" "$T_TMP/bad/a/"; cp "$D/rgb/cat/a.png" "$T_TMP/empty/a/"
cp "$D/rgb/cat/a.png" "$T_TMP/mixed/a/"; cp "$D/rgb/cat/a.png" "$T_TMP/mixed/"
head -c 300 "$D/rgb/cat/a.png" > "$T_TMP/bad/b/cut.png"
expect_exit "a truncated PNG is a runtime error" 3 \
    "$MBENCH" validate "$D/ident_rgb.onnx" "$D/ident_rgb.onnx" --data "$T_TMP/bad" --resize 64x64
contains "... naming it" "$LAST_ERR" "image $T_TMP/bad/b/cut.png is not a readable PNG"
one_line "... in one line" "$LAST_ERR"
rm "$T_TMP/bad/b/cut.png"; head -c 500 "$D/rgb/cat/b.jpg" > "$T_TMP/bad/b/cut.jpg"
expect_exit "a truncated JPEG is a runtime error" 3 \
    "$MBENCH" validate "$D/ident_rgb.onnx" "$D/ident_rgb.onnx" --data "$T_TMP/bad" --resize 64x64
rm "$T_TMP/bad/b/cut.jpg"
# issue 37: the first half of a 64x64 JPEG (libjpeg only warns, and fills
# the rest with grey), and a 4 KB JPEG whose header declares 8192x8192
$PY -c "
from PIL import Image
import io, random
random.seed(1)
im = Image.frombytes('RGB', (64, 64), bytes(random.randrange(256) for _ in range(64 * 64 * 3)))
b = io.BytesIO(); im.save(b, 'JPEG', quality=90); d = b.getvalue()
open('$T_TMP/bad/b/half.jpg', 'wb').write(d[:len(d) // 2])
i = d.index(b'\xff\xc0'); big = bytearray(d); big[i + 5:i + 9] = (8192).to_bytes(2, 'big') * 2
open('$T_TMP/big.jpg', 'wb').write(bytes(big))"
expect_exit "the first half of a JPEG is refused" 3 \
    "$MBENCH" validate "$D/ident_rgb.onnx" "$D/ident_rgb.onnx" --data "$T_TMP/bad" --resize 64x64
contains "... naming it and libjpeg's warning" "$LAST_ERR" "image $T_TMP/bad/b/half.jpg is not a readable JPEG: Premature end of JPEG file"
one_line "... in one line" "$LAST_ERR"
rm "$T_TMP/bad/b/half.jpg"; cp "$T_TMP/big.jpg" "$T_TMP/bad/b/"
out=$($PY -c "import resource,subprocess,sys; r=subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=open('$T_TMP/big.err', 'w')); print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)" \
    "$MBENCH" validate "$D/ident_rgb.onnx" "$D/ident_rgb.onnx" --data "$T_TMP/bad" --resize 64x64)
rc=${out% *}; kb=${out#* }
# 64 MB; ASan's shadow memory and quarantine (make check) take about 100 MB
# more by themselves - still an order below the 1.6 GB of a decode
cap=65536; [ "${MBENCH_SANITIZED:-0}" = 1 ] && cap=262144
if [ "$rc" = 3 ] && [ "$kb" -lt "$cap" ]; then ok "a 4 KB JPEG declaring 8192x8192 is refused within $((cap / 1024)) MB"; else notok "a 4 KB JPEG declaring 8192x8192 is refused within $((cap / 1024)) MB" "exit $rc, max RSS $kb KiB" "$(cat "$T_TMP/big.err")"; fi
contains "... as truncated, before decoding" "$(cat "$T_TMP/big.err")" "big.jpg is not a readable JPEG: its header declares 8192x8192 pixels, which take at least 131072 bytes, but the file has"
rm "$T_TMP/bad/b/big.jpg"; cp "$D/rgb/cat/a.png" "$T_TMP/bad/b/"
expect_exit "an image beyond --max-tensor-bytes is refused from its header" 3 \
    "$MBENCH" validate "$D/ident_rgb.onnx" "$D/ident_rgb.onnx" --data "$T_TMP/bad" --resize 64x64 --max-tensor-bytes 1K
contains "... naming the image and the flag" "$LAST_ERR" "a.png ("
contains "... and the flag" "$LAST_ERR" "--max-tensor-bytes allows"
rm "$T_TMP/bad/b/a.png"; printf 'BM' > "$T_TMP/bad/b/x.bmp"
expect_exit "a BMP in the folder is refused by name" 3 \
    "$MBENCH" validate "$D/ident_rgb.onnx" "$D/ident_rgb.onnx" --data "$T_TMP/bad" --resize 64x64
contains "... with the fix" "$LAST_ERR" "x.bmp: mbench reads PNG and JPEG images only; convert it"
expect_exit "an empty class folder is refused (its id would shift the others)" 3 \
    "$MBENCH" validate "$D/ident_rgb.onnx" "$D/ident_rgb.onnx" --data "$T_TMP/empty" --resize 64x64
contains "... naming it" "$LAST_ERR" "class folder $T_TMP/empty/b holds no PNG or JPEG image"
expect_exit "images beside class folders are refused" 3 \
    "$MBENCH" validate "$D/ident_rgb.onnx" "$D/ident_rgb.onnx" --data "$T_TMP/mixed" --resize 64x64
mkdir -p "$T_TMP/loop/a"; cp "$D/rgb/cat/a.png" "$T_TMP/loop/a/"; ln -s .. "$T_TMP/loop/a/up"
expect_exit "a symbolic link back up the folder tree is refused, not followed forever" 3 \
    "$MBENCH" validate "$D/ident_rgb.onnx" "$D/ident_rgb.onnx" --data "$T_TMP/loop" --resize 64x64
contains "... naming the cycle" "$LAST_ERR" "links back to a folder above it"
# a PNG header that announces 100000 x 100000 pixels: refused before allocating
$PY -c "
import struct, zlib
def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
open('$T_TMP/huge/h.png', 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 100000, 100000, 8, 2, 0, 0, 0)) + chunk(b'IEND', b''))"
expect_exit "a PNG announcing 10^10 pixels is refused" 3 \
    "$MBENCH" validate "$D/ident_rgb.onnx" "$D/ident_rgb.onnx" --data "$T_TMP/huge" --resize 64x64
contains "... by its size" "$LAST_ERR" "not a readable PNG"

# ---- the class map and the files behind the worst samples (issue 35) ----
expect_exit "a candidate with another crop fails against the folder" 1 \
    V ident_rgb.onnx --resize 64x64 --candidate-opt resize=72 --candidate-opt center-crop=64x64 --json "$T_TMP/wf.json"
contains "validate prints the folder -> class-id map" "$LAST_OUT" \
    "image folder $D/rgb: 9 images; class folder -> class id: cat -> 0 (4), dog -> 1 (5)"
contains "the worst sample is named by its file" "$LAST_OUT" "rel_l2 #7 dog/h.png (0.24351)"
check "the JSON stores the class map and the worst samples' files" $PY - "$T_TMP/wf.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))["validation"]
f = v["image_folder"]
assert f["images"] == 9 and f["classes"] == [{"folder": "cat", "id": 0, "images": 4}, {"folder": "dog", "id": 1, "images": 5}], f
assert "files" not in f, f
w = v["outputs"][0]["worst"]["rel_l2"]
assert w["sample"] == 7 and w["file"] == "dog/h.png", w
PY
expect_exit "compare on the folder runs" 0 "$MBENCH" compare a="$D/ident_rgb.onnx" \
    b="$D/ident_rgb.onnx,resize=72,center-crop=64x64" --data "$D/rgb" --resize 64x64 \
    --processes 1 --min-time 0.05s --max-time 0.1s --min-iterations 3 --warmup 1 --json "$T_TMP/cf.json"
contains "compare prints the folder -> class-id map" "$LAST_OUT" "class folder -> class id: cat -> 0 (4), dog -> 1 (5)"
check "compare's JSON stores the class map and the worst samples' files" $PY - "$T_TMP/cf.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert [c["folder"] for c in d["image_folder"]["classes"]] == ["cat", "dog"], d["image_folder"]
w = d["comparison"]["variants"][1]["agreement"]["outputs"][0]["worst"]["rel_l2"]
assert w["sample"] == 7 and w["file"] == "dog/h.png", w
PY
done_testing
