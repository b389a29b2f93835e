#!/usr/bin/env bash
# mbench report: Markdown and HTML from saved result documents, escaping of
# hostile names (HTML text, attributes, SVG and the embedded JSON), no
# network references, merging, and clear errors for foreign or corrupt
# documents.  Fixtures: tests/fixtures/report (make_fixtures.py).
. "$(dirname "$0")/lib.sh"
R="$FIX/report"
EVIL='<script>alert(1)</script>'

expect_exit "report prints Markdown to stdout when no output flag is given" 0 "$MBENCH" report "$R/compare.json"
contains "the Markdown has a summary table" "$LAST_OUT" "| variant | model | batch |"
contains "the Markdown has the speedups with their confidence intervals" "$LAST_OUT" "2.10x [1.90, 2.30]"
contains "the Markdown escapes pipes and emphasis in variant names" "$LAST_OUT" 'int4\|\*bold\*\_x\_'
if [[ "$LAST_OUT" == *"$EVIL"* ]]; then notok "the Markdown never holds the raw script tag" "found $EVIL"; else ok "the Markdown never holds the raw script tag"; fi

expect_exit "report writes --html and --md files" 0 "$MBENCH" report "$R/compare.json" --html "$T_TMP/c.html" --md "$T_TMP/c.md"
check "the HTML file is not empty" test -s "$T_TMP/c.html"
check "the Markdown file is not empty" test -s "$T_TMP/c.md"
html=$(cat "$T_TMP/c.html")
if grep -qF "$EVIL" "$T_TMP/c.html"; then
    notok "the raw string <script>alert(1)</script> never appears in the HTML" "$(grep -nF "$EVIL" "$T_TMP/c.html" | head -3)"
else ok "the raw string <script>alert(1)</script> never appears in the HTML"; fi
contains "the hostile variant name shows as escaped text" "$html" '&lt;script&gt;alert(1)&lt;/script&gt;'
if grep -qF '"quotes" & <tags>' "$T_TMP/c.html"; then notok "a model path with quotes, & and tags is escaped" "found raw"; else ok "a model path with quotes, & and tags is escaped"; fi
contains "the escaped path is in the page" "$html" '&quot;quotes&quot; &amp; &lt;tags&gt;'
n_scripts=$(grep -o '<script' "$T_TMP/c.html" | wc -l)
if [ "$n_scripts" -eq 3 ]; then ok "the page holds exactly its own three script elements"; else notok "the page holds exactly its own three script elements" "found $n_scripts"; fi
# The embedded JSON: no "</" inside, and it parses back to the same document.
out=$($PY - "$T_TMP/c.html" "$R/compare.json" <<'PY' 2>&1
import json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<script type="application/json" id="mbench-data">(.*?)</script>', page, re.S)
assert m, "no embedded JSON block"
block = m.group(1)
assert "</" not in block and "<" not in block, "unescaped < in the embedded JSON"
assert json.loads(block) == json.load(open(sys.argv[2])), "embedded JSON differs from the document"
names = [r["variant"] for r in json.loads(block)["runs"]]
assert "<script>alert(1)</script>" in names, names
print("ok")
PY
)
if [ "$out" = ok ]; then ok "the embedded JSON is escaped and parses back to the same document"; else notok "the embedded JSON is escaped and parses back to the same document" "$out"; fi
if grep -qiE 'https?://' "$T_TMP/c.html"; then
    notok "the HTML holds no http:// or https:// reference at all" "$(grep -oiE '.{30}https?://.{30}' "$T_TMP/c.html" | head -3)"
else ok "the HTML holds no http:// or https:// reference at all"; fi
contains "the HTML forbids every network request (Content-Security-Policy)" "$html" "default-src 'none'"
contains "the HTML has a dark mode" "$html" "prefers-color-scheme:dark"
contains "the HTML has a print style" "$html" "@media print"
for id in chart-dist chart-ecdf chart-speedup chart-mem chart-size chart-acc chart-outputs; do
    contains "the compare report draws $id" "$html" "<svg id=\"$id\""
done

expect_exit "a batch sweep renders" 0 "$MBENCH" report "$R/run_batches.json" --html "$T_TMP/r.html"
rhtml=$(cat "$T_TMP/r.html")
contains "a batch sweep draws throughput against batch size" "$rhtml" '<svg id="chart-batch-thr"'
contains "a batch sweep draws latency against batch size" "$rhtml" '<svg id="chart-batch-lat"'
contains "a leak suspicion is a warning" "$rhtml" "leak suspected"
expect_exit "a document without samples renders" 0 "$MBENCH" report "$R/no_samples.json" --html "$T_TMP/n.html"
contains "without samples the charts say they come from percentiles" "$(cat "$T_TMP/n.html")" "drawn from their percentiles"

"$MBENCH" report "$R/compare.json" --html "$T_TMP/c2.html" >/dev/null 2>&1
check "the same document gives byte-identical HTML" cmp -s "$T_TMP/c.html" "$T_TMP/c2.html"

expect_exit "several documents merge" 0 "$MBENCH" report "$R/run_batches.json" "$R/compare.json" --json "$T_TMP/m.json" --html "$T_TMP/m.html"
out=$($PY -c "
import json,sys; d=json.load(open('$T_TMP/m.json'))
print(d['kind'], len(d['runs']), len(d['merged_from']))" 2>&1)
if [ "$out" = "run 5 2" ]; then ok "the merged JSON keeps the first kind, all runs and merged_from"; else notok "the merged JSON keeps the first kind, all runs and merged_from" "$out"; fi
expect_exit "the merged JSON is itself a valid input" 0 "$MBENCH" report "$T_TMP/m.json"
contains "the merged Markdown lists runs of both documents" "$LAST_OUT" "mobilenet"

expect_exit "a document of another schema is refused" 3 "$MBENCH" report "$R/wrong_schema.json"
one_line "the schema error is one line" "$LAST_ERR"
contains "the schema error names the file" "$LAST_ERR" "wrong_schema.json"
contains "the schema error names the schema found" "$LAST_ERR" '"mbench.result/9"'
expect_exit "a corrupt JSON file is refused" 3 "$MBENCH" report "$R/corrupt.json"
contains "the JSON error names the file, line and column" "$LAST_ERR" "corrupt.json:3:16:"
expect_exit "a missing file is refused" 3 "$MBENCH" report "$T_TMP/nope.json"
contains "the missing-file error names the file" "$LAST_ERR" "nope.json"
expect_exit "a nonsense flag is a usage error" 2 "$MBENCH" report "$R/compare.json" --bogus
one_line "the usage error is one line" "$LAST_ERR"
expect_exit "no document is a usage error" 2 "$MBENCH" report
expect_exit "--help exits 0" 0 "$MBENCH" report --help
contains "--help lists --html" "$LAST_OUT" "--html FILE"
# (a missing directory would be created: a regular file stands in the way)
echo file >"$T_TMP/afile"
expect_exit "an unwritable output is a runtime error" 3 "$MBENCH" report "$R/compare.json" --html "$T_TMP/afile/x.html" --md "$T_TMP/r.md"
check "the other outputs are not written when one is bad from the start" test ! -e "$T_TMP/r.md"
expect_exit "a missing output directory is created" 0 "$MBENCH" report "$R/compare.json" --html "$T_TMP/new/dir/x.html"
check "the report is in it" test -s "$T_TMP/new/dir/x.html"

if [ -f "$MBENCH_ROOT/src/report/csv.h" ] && "$MBENCH" report "$R/compare.json" --csv "$T_TMP/c.csv" 2>/dev/null; then
    rows=$(wc -l < "$T_TMP/c.csv")
    if [ "$rows" -eq 4 ]; then ok "--csv writes a header and one row per run"; else notok "--csv writes a header and one row per run" "got $rows lines"; fi
else
    skip "--csv writes a header and one row per run" "the CSV writer (src/report/csv.h) is not in this build yet"
fi
done_testing
