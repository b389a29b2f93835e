#!/usr/bin/env bash
# badinput.sh - the bad-input matrix: truncated, garbage and huge-dimension
# files of every format, symlinks, directories, /dev/zero, unwritable and
# missing output directories, hostile names, credentials in URLs.  Every
# case must end in a documented exit code with a one-line error on stderr
# (or succeed where that is right), never a crash or a sanitizer report
# (`make check` runs this under ASan + UBSan).
. "$(dirname "$0")/lib.sh"
MD="$MBENCH_ROOT/models"
M="$MD/digits_fp32.onnx"
D="$T_TMP"
FAST=(--processes 2 --iterations 20 --warmup 1 --quiet)

# ---- the files ------------------------------------------------------------
$PY - "$D" <<'PYEOF'
import os, struct, sys
import numpy as np
d = sys.argv[1]
good = open(os.environ["MBENCH_ROOT"] + "/models/digits_fp32.onnx", "rb").read()
open(f"{d}/trunc.onnx", "wb").write(good[: len(good) // 3])
open(f"{d}/garbage.onnx", "wb").write(os.urandom(4096))
open(f"{d}/empty.onnx", "wb").close()
open(f"{d}/text.onnx", "w").write("this is not a model\n")
# npy: good, truncated, garbage header, huge shape, wrong magic
np.save(f"{d}/good.npy", np.zeros((4, 1, 8, 8), np.float32))
raw = open(f"{d}/good.npy", "rb").read()
open(f"{d}/trunc.npy", "wb").write(raw[:100])
open(f"{d}/badhdr.npy", "wb").write(b"\x93NUMPY\x01\x00\x20\x00{'descr': '<f4', 'fortran_order': ZZZ}\n")
hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 8), }"
hdr += " " * (63 - (10 + len(hdr)) % 64) + "\n"
open(f"{d}/huge.npy", "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode())
open(f"{d}/magic.npy", "wb").write(b"PK\x03\x04" + os.urandom(64))
open(f"{d}/wrongdtype.npy", "wb").close()
np.save(f"{d}/wrongdtype.npy", np.zeros((4, 1, 8, 8), np.float64))
np.save(f"{d}/wrongshape.npy", np.zeros((4, 3, 8, 8), np.float32))
np.save(f"{d}/objects.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
# npz: truncated, garbage
np.savez(f"{d}/good.npz", image=np.zeros((4, 1, 8, 8), np.float32))
raw = open(f"{d}/good.npz", "rb").read()
open(f"{d}/trunc.npz", "wb").write(raw[: len(raw) // 2])
open(f"{d}/garbage.npz", "wb").write(b"PK\x03\x04" + os.urandom(300))
# TensorProto .pb: garbage, huge dims
open(f"{d}/garbage.pb", "wb").write(os.urandom(200))
# a valid TensorProto: dims [64], FLOAT, 256 bytes of raw_data
open(f"{d}/good.pb", "wb").write(bytes([0x08, 0x40, 0x10, 0x01, 0x4a, 0x80, 0x02]) + bytes(256))
open(f"{d}/hugedims.pb", "wb").write(bytes([0x08]) + bytes([0xff] * 9 + [0x01]) + bytes([0x10, 0x01]))
# labels
open(f"{d}/labels_text.txt", "w").write("1\n2\nthree\n")
np.save(f"{d}/labels_float.npy", np.array([0.5, 1.5]))
# CSV tasks, events, result documents
open(f"{d}/tasks.csv", "w").write('branch,experiment\n"unterminated,x\n')
open(f"{d}/doc_trunc.json", "w").write('{"schema": "mbench.result/1", "runs": [')
open(f"{d}/doc_wrong.json", "w").write('{"schema": "mbench.result/1", "runs": 7}')
open(f"{d}/doc_array.json", "w").write('[1, 2, 3]')
PYEOF
ln -s "$M" "$D/link.onnx"
ln -s "$D/nowhere.onnx" "$D/dangling.onnx"
ln -s "$D/loop2.onnx" "$D/loop1.onnx"; ln -s "$D/loop1.onnx" "$D/loop2.onnx"
mkdir -p "$D/adir"
: > "$D/afile"
HOSTILE="$D/<script>alert(1)<\/script>.onnx"
cp "$M" "$D/<img src=x onerror=alert(1)>.onnx" 2>/dev/null

# ---- the matrix: name, expected exit, command ------------------------------
sanitizer_clean() { ! grep -qE "AddressSanitizer|UndefinedBehaviorSanitizer|runtime error:|LeakSanitizer" <<<"$1"; }
case_() { # NAME CODE CMD...
    local n=$1 code=$2; shift 2
    expect_exit "$n (exit $code)" "$code" "$@"
    if [ "$code" -ne 0 ]; then
        if [ "$(printf '%s' "$LAST_ERR" | grep -c '')" -eq 1 ] && [[ "$LAST_ERR" == "mbench: error: "* ]]; then
            ok "$n: one line of error"
        else
            notok "$n: one line of error" "stderr: $LAST_ERR"
        fi
    fi
    if sanitizer_clean "$LAST_ERR$LAST_OUT"; then ok "$n: no sanitizer report"; else notok "$n: no sanitizer report" "$LAST_ERR"; fi
}

# models
case_ "a truncated ONNX file" 3 "$MBENCH" run "$D/trunc.onnx" "${FAST[@]}"
case_ "a garbage ONNX file" 3 "$MBENCH" run "$D/garbage.onnx" "${FAST[@]}"
case_ "an empty ONNX file" 3 "$MBENCH" run "$D/empty.onnx" "${FAST[@]}"
case_ "a text file as the model" 3 "$MBENCH" run "$D/text.onnx" "${FAST[@]}"
case_ "a directory as the model" 3 "$MBENCH" run "$D/adir" "${FAST[@]}"
case_ "/dev/zero as the model" 3 "$MBENCH" run /dev/zero "${FAST[@]}"
contains "/dev/zero is named a device, not an empty model" "$LAST_ERR" "is a character device, not a regular file"
case_ "a dangling symlink as the model" 3 "$MBENCH" run "$D/dangling.onnx" "${FAST[@]}"
case_ "a symlink loop as the model" 3 "$MBENCH" run "$D/loop1.onnx" "${FAST[@]}"
case_ "a symlink to a good model runs" 0 "$MBENCH" run "$D/link.onnx" "${FAST[@]}"
case_ "info on a truncated model" 3 "$MBENCH" info "$D/trunc.onnx"
case_ "info on garbage" 3 "$MBENCH" info "$D/garbage.onnx"
mkfifo "$D/fifo.onnx"
case_ "a FIFO as the model" 3 timeout 20 "$MBENCH" run "$D/fifo.onnx" "${FAST[@]}"
contains "the FIFO is named a FIFO, not an empty model" "$LAST_ERR" "fifo.onnx is a FIFO (named pipe), not a regular file"
case_ "info on a FIFO" 3 timeout 20 "$MBENCH" info "$D/fifo.onnx"
contains "info names the FIFO too" "$LAST_ERR" "is a FIFO (named pipe)"
case_ "info on /dev/zero" 3 "$MBENCH" info /dev/zero
case_ "info on a directory" 3 "$MBENCH" info "$D/adir"
case_ "profile of a truncated model" 3 "$MBENCH" profile "$D/trunc.onnx"
case_ "validate with a truncated candidate" 3 "$MBENCH" validate "$M" "$D/trunc.onnx"
case_ "compare with a garbage variant fails it" 3 "$MBENCH" compare a="$M" b="$D/garbage.onnx" "${FAST[@]}"
case_ "compare with a missing model fails before measuring the others" 3 "$MBENCH" compare a="$M" b="$D/missing.onnx" --processes 40 --min-time 30s
# data
case_ "a truncated .npy" 3 "$MBENCH" run "$M" --data "$D/trunc.npy" "${FAST[@]}"
case_ "a .npy with a garbage header" 3 "$MBENCH" run "$M" --data "$D/badhdr.npy" "${FAST[@]}"
case_ "a .npy with a huge shape" 3 "$MBENCH" run "$M" --data "$D/huge.npy" "${FAST[@]}"
case_ "a .npy with a wrong magic" 3 "$MBENCH" run "$M" --data "$D/magic.npy" "${FAST[@]}"
case_ "a .npy of the wrong dtype" 3 "$MBENCH" run "$M" --data "$D/wrongdtype.npy" "${FAST[@]}"
case_ "a .npy of the wrong shape" 3 "$MBENCH" run "$M" --data "$D/wrongshape.npy" "${FAST[@]}"
case_ "a .npy of Python objects" 3 "$MBENCH" run "$M" --data "$D/objects.npy" "${FAST[@]}"
case_ "a truncated .npz" 3 "$MBENCH" run "$M" --data "$D/trunc.npz" "${FAST[@]}"
case_ "a garbage .npz" 3 "$MBENCH" run "$M" --data "$D/garbage.npz" "${FAST[@]}"
case_ "a garbage .pb" 3 "$MBENCH" run "$M" --data "$D/garbage.pb" "${FAST[@]}"
case_ "a .pb with huge dims" 3 "$MBENCH" run "$M" --data "$D/hugedims.pb" "${FAST[@]}"
case_ "/dev/zero as data" 2 "$MBENCH" run "$M" --data /dev/zero "${FAST[@]}"
case_ "a directory of nothing as data" 3 "$MBENCH" run "$M" --data "$D/adir" "${FAST[@]}"
case_ "tensor-dump of a truncated .npy" 3 "$MBENCH" tensor-dump "$D/trunc.npy"
case_ "tensor-dump of a garbage .pb" 3 "$MBENCH" tensor-dump "$D/garbage.pb"
case_ "diff of a truncated and a good .npy" 3 "$MBENCH" diff "$D/trunc.npy" "$D/good.npy"
# labels
case_ "labels with a word in them" 3 "$MBENCH" compare a="$M" b="$M" --data "$MD/digits_test.npy" --labels "$D/labels_text.txt" "${FAST[@]}"
case_ "labels that are floats" 3 "$MBENCH" compare a="$M" b="$M" --data "$MD/digits_test.npy" --labels "$D/labels_float.npy" "${FAST[@]}"
case_ "labels from /dev/zero" 3 "$MBENCH" compare a="$M" b="$M" --labels /dev/zero "${FAST[@]}"
# result documents
case_ "gate on a truncated document" 3 "$MBENCH" gate --baseline "$D/doc_trunc.json" --current "$D/doc_trunc.json"
case_ "gate on a document whose runs are a number" 3 "$MBENCH" gate --baseline "$D/doc_wrong.json" --current "$D/doc_wrong.json"
case_ "report of a JSON array" 3 "$MBENCH" report "$D/doc_array.json" --md "$D/r.md"
case_ "report of /dev/zero" 3 "$MBENCH" report /dev/zero --md "$D/r2.md"
case_ "gate on a directory" 3 "$MBENCH" gate --baseline "$D/adir" --current "$D/doc_trunc.json"
# tasks
case_ "a CSV task file with an unterminated quote" 2 "$MBENCH" suite "$D/tasks.csv" --command "true"
# ---- resource limits: a decompression bomb, a tensor above the cap -------
# bomb.npz: 2 MB deflated, 2 GiB of float32 zeros (the issue's case); the
# old reader took > 120 s and 6.3 GB to diff it with itself.
$PY "$FIX/data/make_bomb.py" "$D/bomb.npz" 2
# The refusal takes milliseconds; MAXSECONDS is a hang guard (60 s, half
# the old reader's time), not a speed claim: a loaded machine may take a
# few seconds to start mbench.  The memory bound is the check.
timed() { # NAME CODE MAXSECONDS MAXMB CMD...: case_, and the time and peak RSS
    local n=$1 code=$2 secs=$3 mb=$4; shift 4
    local t0=$(date +%s%N)
    case_ "$n" "$code" /usr/bin/time -f "%M" -o "$D/rss" "$@"
    local ms=$(( ($(date +%s%N) - t0) / 1000000 )) kb=$(tail -n 1 "$D/rss")
    [ "$ms" -le $((secs * 1000)) ] && [ "$kb" -le $((mb * 1024)) ] && ok "$n: ${ms} ms, $((kb / 1024)) MB peak" \
        || notok "$n: within $secs s and $mb MB" "took $ms ms, $((kb / 1024)) MB peak"
}
if [ -x /usr/bin/time ]; then
    timed "diff of a 2 GiB decompression bomb with itself" 3 60 500 "$MBENCH" diff "$D/bomb.npz" "$D/bomb.npz"
    contains "the bomb is refused for its compression ratio" "$LAST_ERR" "unpack to 2 GiB (1011:1, above the 200:1 that --max-compression-ratio allows)"
    timed "tensor-dump of the bomb" 3 60 500 "$MBENCH" tensor-dump "$D/bomb.npz"
    timed "run --data of the bomb" 3 60 500 "$MBENCH" run "$M" --data "$D/bomb.npz" "${FAST[@]}"
    timed "diff of the bomb without a ratio cap stops at the size cap" 3 60 500 "$MBENCH" diff "$D/bomb.npz" "$D/bomb.npz" --max-compression-ratio 0 --max-tensor-bytes 1G
    contains "the size cap names the member and the flag" "$LAST_ERR" "bomb.npz member x.npy: a tensor of 2 GiB is larger than the 1 GiB that --max-tensor-bytes allows"
fi
case_ "an .npy above --max-tensor-bytes" 3 "$MBENCH" tensor-dump "$D/good.npy" --max-tensor-bytes 1000
contains "the cap is named with the size that would pass" "$LAST_ERR" "--max-tensor-bytes 1024) if the file is trusted"
expect_exit "the same .npy under a larger cap is read" 0 "$MBENCH" tensor-dump "$D/good.npy" --max-tensor-bytes 1M
case_ "a .pb above --max-tensor-bytes" 3 "$MBENCH" diff "$D/good.pb" "$D/good.pb" --max-tensor-bytes 100
# outputs
case_ "--json into a path under a regular file" 3 "$MBENCH" run "$M" "${FAST[@]}" --json "$D/afile/x.json"
case_ "--json that is a directory" 3 "$MBENCH" run "$M" "${FAST[@]}" --json "$D/adir"
case_ "--json into a missing directory is created" 0 "$MBENCH" run "$M" "${FAST[@]}" --json "$D/new/dir/x.json"
case_ "--html into /proc" 3 "$MBENCH" run "$M" "${FAST[@]}" --html /proc/nope/r.html
case_ "--csv into a path under a regular file" 3 "$MBENCH" run "$M" "${FAST[@]}" --csv "$D/afile/x.csv"
case_ "--db into a path under a regular file" 3 "$MBENCH" run "$M" "${FAST[@]}" --db "$D/afile/x.db"
case_ "--db of a garbage file" 3 "$MBENCH" run "$M" "${FAST[@]}" --db "$D/garbage.onnx"
case_ "--save-outputs under a regular file" 3 "$MBENCH" compare a="$M" b="$M" "${FAST[@]}" --save-outputs "$D/afile/out"
if command -v setpriv >/dev/null && [ "$(id -u)" -eq 0 ] && nobody_can_run; then
    mkdir -p "$D/ro"; chmod 555 "$D/ro"
    chmod o+rx "$D" "$(dirname "$D")" 2>/dev/null
    case_ "--json into an unwritable directory (as nobody)" 3 setpriv --reuid=nobody --regid=nogroup --clear-groups "$MBENCH" run none --backend null "${FAST[@]}" --json "$D/ro/x.json"
    cp "$M" "$D/unreadable.onnx"; chmod 000 "$D/unreadable.onnx"
    case_ "run of an unreadable model (as nobody)" 3 setpriv --reuid=nobody --regid=nogroup --clear-groups "$MBENCH" run "$D/unreadable.onnx" "${FAST[@]}"
    contains "run says Permission denied, not an invalid ONNX file" "$LAST_ERR" "unreadable.onnx cannot be read: Permission denied (check its permissions)"
    case_ "compare of an unreadable model (as nobody)" 3 setpriv --reuid=nobody --regid=nogroup --clear-groups "$MBENCH" compare a="$D/unreadable.onnx" b="$M" "${FAST[@]}"
    contains "compare names the variant and the reason" "$LAST_ERR" "variant a: model file $D/unreadable.onnx cannot be read: Permission denied"
else
    skip "unwritable and unreadable paths as nobody" "needs root, setpriv and a build nobody can run (not under a mode-700 home)"
fi
# hostile names: escaped in the HTML report
cp "$M" "$D/hostile.onnx"
case_ "a hostile variant name runs" 0 "$MBENCH" compare '<script>alert(1)</script>'="$M" 'b"onmouseover&x'="$D/hostile.onnx" "${FAST[@]}" --html "$D/h.html" --md "$D/h.md"
if grep -q '<script>alert(1)</script>' "$D/h.html"; then notok "the hostile name is escaped in the HTML" "raw script tag found"; else ok "the hostile name is escaped in the HTML"; fi
nl=$'two\nlines\e[31m'
case_ "a variant name with a newline and an escape runs" 0 "$MBENCH" compare "$nl=$M" b="$M" --processes 2 --iterations 20 --warmup 1
row=$(printf '%s\n' "$LAST_OUT" | grep -F 'two\nlines\e[31m *')
[[ "$row" == *" ok "* ]] && ! printf '%s' "$LAST_OUT" | grep -q $'\e' && ok "the console shows the name escaped on its table row, with no raw escape" \
    || notok "the console shows the name escaped on its table row, with no raw escape" "$(printf '%s' "$LAST_OUT" | head -5 | cat -A)"
case_ "an unknown backend option holding a newline" 2 "$MBENCH" run "$M" "${FAST[@]}" --backend-opt $'x\ny=1'
contains "the error shows the newline escaped" "$LAST_ERR" "no option 'x\\ny'"
# credentials
case_ "a --db URL with a password to a dead server" 3 "$MBENCH" run "$M" "${FAST[@]}" --db "postgresql://u:hunter2@127.0.0.1:1/db"
if [[ "$LAST_ERR" == *hunter2* ]]; then notok "the password is not echoed" "$LAST_ERR"; else ok "the password is not echoed"; fi
case_ "a run whose command line holds a password" 0 "$MBENCH" run "$M" "${FAST[@]}" --git-dir 'postgresql://u:hunter2@h/db' --json "$D/cred.json" --html "$D/cred.html"
if grep -q hunter2 "$D/cred.json" "$D/cred.html"; then notok "no password in the JSON or the HTML" "found hunter2"; else ok "no password in the JSON or the HTML"; fi
# bad values
case_ "--batch 0" 2 "$MBENCH" run "$M" --batch 0
case_ "--batch 1,,4" 2 "$MBENCH" run "$M" --batch 1,,4
case_ "--processes 0" 2 "$MBENCH" run "$M" --processes 0
case_ "--processes many" 2 "$MBENCH" run "$M" --processes many
case_ "--dim with a misspelt name" 2 "$MBENCH" run "$M" --dim bach=4 "${FAST[@]}"
case_ "--shape of a missing input" 2 "$MBENCH" run "$M" --shape imag=1,1,8,8 "${FAST[@]}"
case_ "--threshold of nothing" 2 "$MBENCH" compare a="$M" b="$M" --threshold ''
case_ "a huge --batch" 2 "$MBENCH" run "$M" --batch 1000000000000 "${FAST[@]}"

done_testing
