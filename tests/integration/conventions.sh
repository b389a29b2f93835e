#!/usr/bin/env bash
# conventions.sh - the command-line conventions every command keeps: -q keeps the
# warnings, an interrupted compare says so and gate refuses it, SIGTERM
# exits 143, --color=auto|always|never with NO_COLOR and FORCE_COLOR,
# -V, exit codes 6 and 143 in --help, '-' for standard input in report
# and info.  The null backend keeps it fast.
. "$(dirname "$0")/lib.sh"
cd "$T_TMP" || exit 1
NULLV=(a=none,backend=null,backend-opt=delay=20000 b=none,backend=null,backend-opt=delay=20000)

# ---- -q keeps the warnings ------------------------------------------------
expect_exit "compare -q runs" 0 "$MBENCH" compare "${NULLV[@]}" --processes 3 --iterations 60 -q --json q.json
[ -z "$LAST_OUT" ] && ok "compare -q prints no table" || notok "compare -q prints no table" "$LAST_OUT"
contains "but its warnings, on stderr" "$LAST_ERR" "mbench: warning: RANDOM INPUTS ONLY"
expect_exit "run -q runs" 0 "$MBENCH" run "$MBENCH_ROOT/models/digits_fp32.onnx" --processes 2 --iterations 20 -q
contains "run -q keeps its warnings too" "$LAST_ERR" "mbench: warning: inputs are random"

# ---- an interrupted compare -------------------------------------------------
# SIGTERM once the first round has finished (the second round's two
# worker processes have started: a round runs one per variant, side by
# side) and long before the thousandth.  Not after a fixed time: at 3 s, then at 10 s
# under steal-time.sh at load 20, a loaded machine had finished no round,
# so there was no document to write.  The 120 s is a hang guard.
"$MBENCH" compare "${NULLV[@]}" --processes 1000 --min-time 100s --max-time 200s --json int.json >int.out 2>int.err &
cp=$!
seen=" "
for _ in $(seq 1 1200); do
    for w in $(ps -o pid= --ppid "$cp" 2>/dev/null); do [[ "$seen" == *" $w "* ]] || seen+="$w "; done
    [ "$(echo $seen | wc -w)" -ge 4 ] && break
    read -r -t 0.1 <> <(:) || true
done
kill -TERM "$cp"
wait "$cp"
rc=$?
[ "$rc" = 143 ] && ok "SIGTERM exits 143 (128 + 15)" || notok "SIGTERM exits 143 (128 + 15)" "exit $rc" "$(tail -3 int.err)"
check "the interrupted compare is written, and every run and variant says interrupted" $PY -c "
import json; d = json.load(open('int.json'))
assert d['interrupted'] is True, d['interrupted']
assert all(r['status'] == 'interrupted' for r in d['runs']), [r['status'] for r in d['runs']]
assert all(v['status'] == 'interrupted' for v in d['comparison']['variants']), d['comparison']['variants']
assert any(w.startswith('INTERRUPTED after ') for w in d['warnings']), d['warnings']"
contains "the console says it was interrupted" "$(cat int.out)" "INTERRUPTED after"
expect_exit "gate refuses an interrupted document" 3 "$MBENCH" gate --current int.json
contains "in one line that says why" "$LAST_ERR" "was interrupted (\"interrupted\": true): its figures cover only the rounds that finished"
one_line "the refusal is one line" "$LAST_ERR"
contains "report says it too" "$("$MBENCH" report int.json 2>&1)" "**interrupted**: no verdict"

# ---- colour ------------------------------------------------------------------
esc=$(printf '\033[')
for c in "--color=always:yes" "--color=never:no" "--color=auto:no"; do
    out=$("$MBENCH" compare "${NULLV[@]}" --processes 2 --iterations 20 "${c%%:*}" 2>&1)
    case "$out" in *"$esc"*) got=yes ;; *) got=no ;; esac
    [ "$got" = "${c##*:}" ] && ok "compare ${c%%:*} into a pipe: colour ${c##*:}" || notok "compare ${c%%:*} into a pipe: colour ${c##*:}" "got $got"
done
out=$(FORCE_COLOR=1 "$MBENCH" compare "${NULLV[@]}" --processes 2 --iterations 20 2>&1)
[[ "$out" == *"$esc"* ]] && ok "FORCE_COLOR colours a pipe" || notok "FORCE_COLOR colours a pipe"
out=$(NO_COLOR=1 FORCE_COLOR=1 "$MBENCH" compare "${NULLV[@]}" --processes 2 --iterations 20 2>&1)
[[ "$out" != *"$esc"* ]] && ok "NO_COLOR wins over FORCE_COLOR" || notok "NO_COLOR wins over FORCE_COLOR"
out=$(NO_COLOR=1 "$MBENCH" compare "${NULLV[@]}" --processes 2 --iterations 20 --color=always 2>&1)
[[ "$out" == *"$esc"* ]] && ok "--color=always wins over NO_COLOR" || notok "--color=always wins over NO_COLOR"
expect_exit "a bad --color is a usage error" 2 "$MBENCH" run none --backend null --color=sometimes
contains "naming the choices" "$LAST_ERR" "auto, always or never"

# ---- -V, exit codes in --help ---------------------------------------------------
expect_exit "mbench -V prints the version" 0 "$MBENCH" -V
contains "as --version does" "$LAST_OUT" "$("$MBENCH" --version)"
expect_exit "mbench --help" 0 "$MBENCH" --help
contains "--help lists exit 6" "$LAST_OUT" "6 a --require requirement not met"
contains "--help lists exit 143" "$LAST_OUT" "143 terminated (SIGTERM)"

# ---- '-' for standard input ------------------------------------------------------
expect_exit "report - reads a document from standard input" 0 sh -c "\"$MBENCH\" report - < q.json"
contains "and writes its Markdown" "$LAST_OUT" "## mbench compare"
expect_exit "report - on something else is a one-line error" 3 sh -c "echo '{' | \"$MBENCH\" report -"
contains "that names standard input" "$LAST_ERR" "standard input"
expect_exit "info - reads a model from standard input" 0 sh -c "\"$MBENCH\" info - --json - < \"$MBENCH_ROOT/models/digits_fp32.onnx\""
check "and describes it as '-', not as a temporary file" $PY -c "
import json, sys; o = json.loads(sys.argv[1]); assert o['path'] == '-' and o['inputs'], o" "$LAST_OUT"
left=$(ls "${TMPDIR:-/tmp}" | grep -c '^mbench-info-stdin' || true)
[ "$left" = 0 ] && ok "info - leaves no temporary file" || notok "info - leaves no temporary file" "$left left"
done_testing
