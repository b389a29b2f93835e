#!/usr/bin/env bash
# help.sh - every command that `mbench __dump-options` describes (the list
# the man page and completion are made from) answers -h, --help and
# `mbench help CMD` the same way: exit 0, its own usage on stdout, nothing
# on stderr, every option it is documented with, and nothing after the
# help (no command goes on to run); the dump names the same commands as
# `mbench --help`, and its JSON form is what tools/optdoc reads.
. "$(dirname "$0")/lib.sh"

"$MBENCH" __dump-options list > "$T_TMP/list"
"$MBENCH" __dump-options json > "$T_TMP/options.json"
dumped=$(cut -d' ' -f1 "$T_TMP/list" | uniq)
listed=$("$MBENCH" --help | sed -n '/^commands:/,/^$/p' | awk 'NF>1 {print $1}')
if [ -n "$dumped" ] && [ "$dumped" = "$listed" ]; then
    ok "__dump-options list names the commands of mbench --help"
else
    notok "__dump-options list names the commands of mbench --help" "dump: $(echo $dumped)" "help: $(echo $listed)"
fi
# Per command: "last WORD" is the word its table help ends with (the
# footer's, else the last shown option's help); empty for a command still
# described by its own --help text.
$PY - "$T_TMP/options.json" > "$T_TMP/shape" <<'EOF'
import json, sys
for c in json.load(open(sys.argv[1])):
    shown = [o for o in c["options"] if not o.get("flags", {}).get("hidden")]
    last = "" if "help_text" in c else (c.get("footer") or shown[-1]["help"]).split()[-1]
    print(c["name"], len(shown), last)
EOF
check "__dump-options json is an array of commands with their options" test -s "$T_TMP/shape"
if [ "$(cut -d' ' -f1 "$T_TMP/shape")" = "$dumped" ]; then ok "the JSON and the list describe the same commands"
else notok "the JSON and the list describe the same commands" "$(cut -d' ' -f1 "$T_TMP/shape" | tr '\n' ' ')"; fi

while read -r c n last; do
    expect_exit "mbench $c -h exits 0" 0 "$MBENCH" "$c" -h
    h_out=$LAST_OUT h_err=$LAST_ERR
    expect_exit "mbench $c --help exits 0" 0 "$MBENCH" "$c" --help
    help_out=$LAST_OUT help_err=$LAST_ERR
    expect_exit "mbench help $c exits 0" 0 "$MBENCH" help "$c"
    if [ "$h_out" = "$help_out" ] && [ "$LAST_OUT" = "$help_out" ]; then
        ok "mbench $c -h, --help and help $c print the same"
    else
        notok "mbench $c -h, --help and help $c print the same" "$(diff <(echo "$h_out") <(echo "$LAST_OUT") | head -5)"
    fi
    if [ -z "$h_err$help_err$LAST_ERR" ]; then ok "mbench $c --help writes nothing on stderr"
    else notok "mbench $c --help writes nothing on stderr" "$h_err$help_err$LAST_ERR"; fi
    case "$help_out" in "usage: mbench $c"*) ok "mbench $c --help starts with its usage" ;;
        *) notok "mbench $c --help starts with its usage" "$(echo "$help_out" | head -2)" ;; esac
    missing=""
    while read -r _ opt _; do
        grep -qF -- "$opt" <<< "$help_out" || missing+=" $opt"
    done < <(grep "^$c " "$T_TMP/list")
    if [ -z "$missing" ] && [ "$n" -gt 0 ]; then ok "mbench $c --help shows its $n options"
    else notok "mbench $c --help shows its $n options" "missing:$missing"; fi
    if [ -n "$last" ]; then
        end=$(printf '%s\n' "$help_out" | tail -n 1)
        if [[ "$end" == *"$last" ]]; then ok "mbench $c --help ends with its help (nothing runs after it)"
        else notok "mbench $c --help ends with its help (nothing runs after it)" "last line: $end" "expected it to end with: $last"; fi
    fi
done < "$T_TMP/shape"

done_testing
