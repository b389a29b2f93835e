#!/usr/bin/env bash
# outputs.sh - output paths that must not lose a run or do harm: checked
# before anything is measured, "-" is stdout, symlinks stay links, devices
# and FIFOs are written through, one failing output does not cost the
# others, and no password reaches a document, report or store.  The null
# backend makes the runs fast; the model does not matter here.
. "$(dirname "$0")/lib.sh"
cd "$T_TMP" || exit 1

QUICK=(--backend null --iterations 20 --warmup 1 --quiet)
# A run that would measure for at least 30 s (1 ms per null inference):
# a failure "before measuring" comes well under half of that on any load.
LONG=(--backend null --backend-opt delay=1000000 --min-time 30s --max-time 60s
      --max-iterations 10000000 --quiet)
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# ---- checked before measuring ----------------------------------------------
echo "a file" >plain
t0=$(now_ms)
expect_exit "an output under a regular file fails at once (exit 3)" 3 \
    "$MBENCH" run none "${LONG[@]}" --json plain/r.json
t1=$(now_ms)
if [ $((t1 - t0)) -lt 15000 ]; then ok "the bad output is reported before measuring ($((t1 - t0)) ms of a 30 s run)"
else notok "the bad output is reported before measuring" "took $((t1 - t0)) ms"; fi
one_line "the error is one line" "$LAST_ERR"
contains "the error names the flag and the path" "$LAST_ERR" "--json: cannot write plain/r.json"

mkdir adir
expect_exit "a directory as --md fails at once" 3 "$MBENCH" run none "${LONG[@]}" --md adir
contains "the error says it is a directory and how to fix it" "$LAST_ERR" "adir: it is a directory (name a file"
expect_exit "a path in /proc fails at once" 3 "$MBENCH" run none "${LONG[@]}" --html /proc/mbench-no/r.html
contains "the error names --html" "$LAST_ERR" "--html: "
expect_exit "--save-optimized is checked too" 3 "$MBENCH" run none "${LONG[@]}" --save-optimized plain/o.onnx
expect_exit "an --db file that is not a store fails at once" 3 "$MBENCH" run none "${LONG[@]}" --db plain
contains "and names --db" "$LAST_ERR" "--db: "

# Missing directories are created before measuring: the directory is there
# while the 30 s measurement is still running.
"$MBENCH" run none "${LONG[@]}" --json new/deeper/r.json 2>/dev/null &
bg=$!
made=0
for _ in $(seq 50); do
    [ -d new/deeper ] && { made=1; break; }
    sleep 0.1
done
if [ $made = 1 ] && kill -0 $bg 2>/dev/null; then ok "missing parent directories are created before measuring"
else notok "missing parent directories are created before measuring" "made=$made"; fi
kill $bg 2>/dev/null; wait $bg 2>/dev/null

# Not root: a directory that is not ours is refused up front.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    ro=$(mktemp -d /tmp/mbench-ro.XXXXXX) && chmod 755 "$ro"
    expect_exit "an unwritable directory fails at once for a normal user" 3 \
        setpriv --reuid=65534 --regid=65534 --clear-groups \
        "$MBENCH" run none "${LONG[@]}" --json "$ro/r.json"
    contains "the error says the directory is not writable" "$LAST_ERR" "is not writable"
    rm -rf "$ro"
else
    skip "an unwritable directory fails at once for a normal user" "needs root and setpriv"
    skip "the error says the directory is not writable" "needs root and setpriv"
fi

for cmd in "profile none --backend null --folded plain/f.txt" \
           "validate a.onnx b.onnx --save-outputs plain/sub" \
           "diff a.npy b.npy --heatmap plain/h.png" \
           "report missing.json --html plain/r.html" \
           "machine --json plain/m.json"; do
    # shellcheck disable=SC2086
    expect_exit "mbench ${cmd%% *} checks its outputs before its inputs" 3 "$MBENCH" $cmd
    contains "mbench ${cmd%% *} names the path" "$LAST_ERR" "plain/"
done

# ---- "-" is stdout ---------------------------------------------------------
expect_exit "--json - runs" 0 "$MBENCH" run none --backend null --iterations 20 --warmup 1 --json -
if printf '%s' "$LAST_OUT" | $PY -c 'import json,sys; d=json.load(sys.stdin); assert d["schema"]=="mbench.result/1"'; then
    ok "--json - prints the document, alone, on stdout"
else notok "--json - prints the document, alone, on stdout" "$(printf '%s' "$LAST_OUT" | head -5)"; fi
contains "the console table moves to stderr" "$LAST_ERR" "p50"
expect_exit "two documents cannot both take stdout (exit 2)" 2 "$MBENCH" run none "${QUICK[@]}" --json - --md -

# ---- symlinks, devices, FIFOs -----------------------------------------------
echo old >target.json
ln -s target.json link.json
expect_exit "a run writes through a symlink" 0 "$MBENCH" run none "${QUICK[@]}" --json link.json
if [ -L link.json ] && grep -q '"mbench.result/1"' target.json; then ok "the symlink is kept and its target holds the document"
else notok "the symlink is kept and its target holds the document" "$(ls -l link.json target.json)"; fi

ln -s /dev/null null.json
expect_exit "a symlink to /dev/null is written through" 0 "$MBENCH" run none "${QUICK[@]}" --json null.json --md null.json
if [ -L null.json ] && [ -c /dev/null ]; then ok "the link and /dev/null are left as they were"
else notok "the link and /dev/null are left as they were" "$(ls -l null.json /dev/null)"; fi

# /dev/stdout is a link to /proc/self/fd/1: one of our own links stands in
# for it (replacing the real one would break this machine if it failed).
ln -s /proc/self/fd/1 my-stdout
expect_exit "a link to our own stdout is written through" 0 "$MBENCH" run none "${QUICK[@]}" --json my-stdout
contains "the document arrives on stdout" "$LAST_OUT" '"mbench.result/1"'
if [ -L my-stdout ]; then ok "the stdout link is still a link"; else notok "the stdout link is still a link" "$(ls -l my-stdout)"; fi

mkfifo pipe
timeout 20 cat pipe >from-pipe &  # gives up if the FIFO was replaced
reader=$!
expect_exit "a FIFO is written through" 0 "$MBENCH" run none "${QUICK[@]}" --json pipe
wait $reader
if [ -p pipe ] && grep -q '"mbench.result/1"' from-pipe; then ok "the reader got the document and the FIFO is still a FIFO"
else notok "the reader got the document and the FIFO is still a FIFO" "$(ls -l pipe from-pipe)"; fi

# ---- nothing lost, nothing clobbered ----------------------------------------
"$MBENCH" run none "${QUICK[@]}" --json private.json && chmod 600 private.json
expect_exit "a file is replaced" 0 "$MBENCH" run none "${QUICK[@]}" --json private.json --csv rows.csv
expect_exit "a second run appends to the CSV" 0 "$MBENCH" run none "${QUICK[@]}" --csv rows.csv
if [ "$(stat -c %a private.json)" = 600 ]; then ok "a replaced file keeps its mode (0600)"
else notok "a replaced file keeps its mode (0600)" "$(stat -c %a private.json)"; fi
if [ "$(grep -c '^framework,' rows.csv)" = 1 ] && [ "$(wc -l <rows.csv)" = 3 ]; then ok "the CSV has its header once and both rows"
else notok "the CSV has its header once and both rows" "$(cat rows.csv)"; fi

# A link to /dev/full (writes fail with ENOSPC), never /dev/full itself:
# a broken writer would replace the device for the whole machine.
ln -s /dev/full full.html
expect_exit "an output that fails while writing is an error (exit 3)" 3 \
    "$MBENCH" run none "${QUICK[@]}" --html full.html --json kept.json --md kept.md
contains "the failure names the output" "$LAST_ERR" "full.html: No space left"
if [ -s kept.json ] && [ -s kept.md ]; then ok "the other outputs are still written"
else notok "the other outputs are still written" "$(ls -l kept.*)"; fi

# ---- credentials -------------------------------------------------------------
t0=$(now_ms)
expect_exit "a PostgreSQL store that is not running fails at once" 3 \
    "$MBENCH" run none "${LONG[@]}" --json pg.json --db 'postgresql://u:s3cr3t@127.0.0.1:1/x'
t1=$(now_ms)
if [ $((t1 - t0)) -lt 15000 ]; then ok "the store is tried before measuring ($((t1 - t0)) ms)"
else notok "the store is tried before measuring" "took $((t1 - t0)) ms"; fi
contains "the error shows the URL with the password hidden" "$LAST_ERR" "postgresql://u:***@127.0.0.1:1/x"
if [[ "$LAST_ERR" != *s3cr3t* ]]; then ok "the password is not in the error"; else notok "the password is not in the error" "$LAST_ERR"; fi
expect_exit "a keyword password in a URL query is hidden too" 3 \
    "$MBENCH" run none "${LONG[@]}" --db 'postgresql://127.0.0.1:1/x?user=u&password=s3cr3t'
if [[ "$LAST_ERR" != *s3cr3t* && "$LAST_ERR" == *password=\*\*\** ]]; then ok "?password= is hidden in the error"
else notok "?password= is hidden in the error" "$LAST_ERR"; fi

# A run whose command line carries a URL with a password (--git-dir takes
# any text): the document, both reports and the store row hide it.
expect_exit "a run with a password on its command line" 0 \
    "$MBENCH" run none "${QUICK[@]}" --json cred.json --html cred.html --md cred.md \
    --db cred.sqlite --git-dir 'postgresql://u:s3cr3t@h/db'
contains "command_line keeps the URL with *** for the password" \
    "$($PY -c 'import json; print(json.load(open("cred.json"))["command_line"])')" "postgresql://u:***@h/db"
for f in cred.json cred.html cred.md; do
    if grep -q s3cr3t $f; then notok "no password in $f" "$(grep -o '.\{40\}s3cr3t.\{10\}' $f | head -2)"
    else ok "no password in $f"; fi
done
contains "the HTML report shows the redacted command line" "$(cat cred.html)" "u:***@h/db"
row=$(sqlite3 cred.sqlite "select command_line from documents")
contains "the store row has the redacted command line" "$row" "u:***@h/db"
if sqlite3 cred.sqlite .dump | grep -q s3cr3t; then notok "no password anywhere in the store" "$(sqlite3 cred.sqlite .dump | grep s3cr3t | head -2)"
else ok "no password anywhere in the store"; fi

# A document saved by an older mbench, with the password in it: import and
# reports hide it.
$PY - <<'PYEOF'
import json
d = json.load(open("cred.json"))
d["command_line"] = "mbench run m.onnx --db postgresql://u:s3cr3t@h/db"
json.dump(d, open("old.json", "w"))
PYEOF
expect_exit "an old document is imported" 0 "$MBENCH" db import --db old.sqlite old.json
if sqlite3 old.sqlite .dump | grep -q s3cr3t; then notok "an imported document's password is hidden in the store" "$(sqlite3 old.sqlite .dump | grep -o '.\{30\}s3cr3t' | head -2)"
else ok "an imported document's password is hidden in the store"; fi
expect_exit "the store exports" 0 "$MBENCH" db export --db old.sqlite --json exported.json
expect_exit "its export imports back" 0 "$MBENCH" db import --db old.sqlite exported.json
contains "as the same document (the sha is of the redacted document)" "$LAST_OUT" "(0 new, 1 already there)"
expect_exit "a report is built from the old document" 0 "$MBENCH" report old.json --html old.html --md old.md
if grep -q s3cr3t old.html old.md; then notok "reports of an old document hide its password" "$(grep -o '.\{30\}s3cr3t' old.html old.md | head -2)"
else ok "reports of an old document hide its password"; fi


# ---- --outdir: every format, timestamped, never overwriting -----------------
NAME_RE='^mbench-run-[0-9]{8}T[0-9]{6}Z\.(json|csv|md|html)$'
expect_exit "run --outdir writes into a new directory" 0 "$MBENCH" run none "${QUICK[@]}" --outdir od/new
files=$(ls od/new 2>/dev/null)
n=$(echo "$files" | grep -cE "$NAME_RE")
if [ "$n" = 4 ]; then ok "four files named mbench-run-<UTC time>.EXT"
else notok "four files named mbench-run-<UTC time>.EXT" "files: $files"; fi
stamp=$(echo "$files" | head -1 | sed -E 's/^mbench-run-([0-9T]+Z)\..*/\1/')
now=$(date -u +%s); then_=$(date -u -d "$(echo "$stamp" | sed -E 's/(....)(..)(..)T(..)(..)(..)Z/\1-\2-\3 \4:\5:\6 UTC/')" +%s 2>/dev/null || echo 0)
if [ $((now - then_)) -ge 0 ] && [ $((now - then_)) -lt 60 ]; then ok "the name is the UTC time of the run ($stamp)"
else notok "the name is the UTC time of the run" "stamp $stamp, now $(date -u +%Y%m%dT%H%M%SZ)"; fi
kind=$($PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["kind"])' od/new/mbench-run-$stamp.json 2>&1)
contains "the .json is the result document" "$kind" "run"
contains "the .csv has the header and a row" "$(head -1 od/new/mbench-run-$stamp.csv; wc -l <od/new/mbench-run-$stamp.csv)" "variant"
if [ "$(wc -l <od/new/mbench-run-$stamp.csv)" -ge 2 ]; then ok "the .csv has a data row"; else notok "the .csv has a data row" "$(cat od/new/mbench-run-$stamp.csv)"; fi
contains "the .md is the Markdown report" "$(head -3 od/new/mbench-run-$stamp.md)" "# "
contains "the .html is the HTML report" "$(head -c 200 od/new/mbench-run-$stamp.html)" "<!DOCTYPE html>"

# Names taken by anything (here one .md per second for the next 20 s) are
# never overwritten: the whole set moves to -2.
mkdir -p od/busy
t=$(date -u +%s)
for i in $(seq 0 20); do echo keep > "od/busy/mbench-run-$(date -u -d @$((t + i)) +%Y%m%dT%H%M%SZ).md"; done
expect_exit "run --outdir into a directory where the names are taken" 0 "$MBENCH" run none "${QUICK[@]}" --outdir od/busy
two=$(ls od/busy | grep -cE '^mbench-run-[0-9]{8}T[0-9]{6}Z-2\.(json|csv|md|html)$')
if [ "$two" = 4 ]; then ok "the four files take the suffix -2"; else notok "the four files take the suffix -2" "$(ls od/busy | grep -v '\.md$'; ls od/busy | grep -- -2)"; fi
kept=$(cat od/busy/*Z.md | sort -u)
if [ "$kept" = keep ]; then ok "the existing files are untouched"; else notok "the existing files are untouched" "$kept"; fi
expect_exit "a second run into the same directory" 0 "$MBENCH" run none "${QUICK[@]}" --outdir od/new
n=$(ls od/new | wc -l)
if [ "$n" = 8 ]; then ok "a second run adds four files and replaces none"; else notok "a second run adds four files and replaces none" "$(ls od/new)"; fi

# Checked before measuring, like the other output flags.
t0=$(now_ms)
expect_exit "an --outdir under a regular file fails at once (exit 3)" 3 "$MBENCH" run none "${LONG[@]}" --outdir plain/od
t1=$(now_ms)
if [ $((t1 - t0)) -lt 15000 ]; then ok "the bad --outdir is reported before measuring ($((t1 - t0)) ms of a 30 s run)"
else notok "the bad --outdir is reported before measuring" "took $((t1 - t0)) ms"; fi
one_line "the --outdir error is one line" "$LAST_ERR"
contains "the error names --outdir" "$LAST_ERR" "--outdir: "
expect_exit "an --outdir of a regular file fails at once" 3 "$MBENCH" run none "${LONG[@]}" --outdir plain

# Every command with the output flags: compare, validate, exec, profile.
expect_exit "compare --outdir" 0 "$MBENCH" compare a=none b=none --backend null --processes 2 --iterations 20 --warmup 1 --quiet --outdir od/cmp
n=$(ls od/cmp | grep -cE '^mbench-compare-[0-9]{8}T[0-9]{6}Z\.(json|csv|md|html)$')
if [ "$n" = 4 ]; then ok "compare writes mbench-compare-* in four formats"; else notok "compare writes mbench-compare-* in four formats" "$(ls od/cmp)"; fi
expect_exit "validate --outdir" 0 "$MBENCH" validate "$MBENCH_ROOT/models/digits_fp32.onnx" "$MBENCH_ROOT/models/digits_fp32.onnx" --outdir od/val
contains "validate's .md is the validation report" "$(cat od/val/mbench-validate-*.md 2>&1 | head -1)" "# mbench validate"
n=$(ls od/val | grep -cE '^mbench-validate-[0-9]{8}T[0-9]{6}Z\.(json|csv|md|html)$')
if [ "$n" = 4 ]; then ok "validate writes four formats"; else notok "validate writes four formats" "$(ls od/val)"; fi
expect_exit "exec --outdir" 0 "$MBENCH" exec --runs 2 --warmup 0 --outdir od/exec -- true
n=$(ls od/exec | grep -cE '^mbench-exec-[0-9]{8}T[0-9]{6}Z\.(json|csv|md|html)$')
if [ "$n" = 4 ]; then ok "exec writes four formats"; else notok "exec writes four formats" "$(ls od/exec)"; fi

# ---- parameter count in the compare outputs ----------------------------------
# Each variant's count is its ONNX initializers' element count (python3-onnx
# is the reference); the console table, the Markdown and the HTML show it.
MD="$MBENCH_ROOT/models"
expect_exit "a compare of fp32 and int8 runs" 0 "$MBENCH" compare \
    a="$MD/digits_fp32.onnx" b="$MD/digits_int8.onnx" --backend null \
    --processes 2 --iterations 20 --warmup 1 --json par.json --md par.md --html par.html
table=$LAST_OUT
for v in fp32 int8; do
    ref=$($PY -c 'import sys, onnx, numpy as np
g = onnx.load(sys.argv[1]).graph
print(sum(int(np.prod(i.dims)) for i in g.initializer))' "$MD/digits_$v.onnx")
    var=$([ $v = fp32 ] && echo a || echo b)
    got=$($PY -c 'import json, sys
d = json.load(open("par.json"))
print([r["model"]["params"] for r in d["runs"] if r["variant"] == sys.argv[1]][0])' $var)
    if [ -n "$ref" ] && [ "$got" = "$ref" ]; then ok "the $v document's params equal the ONNX initializer count ($ref)"
    else notok "the $v document's params equal the ONNX initializer count" "document: $got" "onnx: $ref"; fi
    row=$(echo "$table" | grep "^$var ")
    if echo "$row" | grep -qw -- "$ref"; then ok "the console row of $var shows $ref parameters"
    else notok "the console row of $var shows $ref parameters" "row: $row"; fi
    mrow=$(grep "^| $var | a | " par.md | head -1)  # the speedup table (baseline a)
    if [[ "$mrow" == *"| $ref |"* ]]; then ok "the Markdown speedup row of $var shows $ref parameters"
    else notok "the Markdown speedup row of $var shows $ref parameters" "row: $mrow"; fi
    if grep -q "data-v=\"$ref\">$ref</td>" par.html; then ok "the HTML speedup table shows $var's $ref parameters"
    else notok "the HTML speedup table shows $var's $ref parameters" "$(grep -o 'parameters</th>.\{0,80\}' par.html)"; fi
done
contains "the console header names the column" "$table" " params "

done_testing
