#!/usr/bin/env bash
# Loads generated HTML reports in headless Debian chromium and fails when
# the page reports a script error or a missing chart.  The page's own
# script checks that every chart it promised (body data-expect) is drawn,
# that the embedded JSON parses and that sorting works, then sets
# <html data-ok="1">; --dump-dom shows the DOM after that script ran.
# Skips (TAP # SKIP) when chromium is missing or cannot start.
. "$(dirname "$0")/lib.sh"
R="$FIX/report"
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}

browse() { # browse OUTFLAG URL: one headless chromium run, no network
    local prof; prof=$(mktemp -d "$T_TMP/prof.XXXXXX")
    timeout 25 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic \
        --no-first-run --disable-background-networking --disable-component-update \
        --disable-sync --disable-extensions --hide-scrollbars \
        --user-data-dir="$prof" --window-size=1280,2000 "$@" 2>/dev/null
}

if [ ! -x "$CHROMIUM" ]; then
    skip "reports load in a headless browser" "chromium not found at $CHROMIUM (apt-get install chromium)"
    done_testing
fi
"$MBENCH" report "$R/compare.json" --html "$T_TMP/compare.html" || notok "the compare report is generated"
"$MBENCH" report "$R/run_batches.json" --html "$T_TMP/run.html" || notok "the run report is generated"
"$MBENCH" report "$R/exec.json" --html "$T_TMP/exec.html" || notok "the exec report is generated"
"$MBENCH" report "$R/suite.json" --html "$T_TMP/suite.html" || notok "the suite report is generated"
# Pages that must FAIL the in-page check: a chart removed, a script error.
sed 's/<svg id="chart-ecdf"/<svg id="chart-gone"/' "$T_TMP/compare.html" > "$T_TMP/broken.html"
sed 's|</title>|</title><script>undefinedFunction();</script>|' "$T_TMP/run.html" > "$T_TMP/error.html"

# Every browser run at once (each takes a few seconds to start).
for p in compare run exec suite broken error; do
    browse --dump-dom "file://$T_TMP/$p.html" > "$T_TMP/$p.dom" &
done
browse --screenshot="$T_TMP/compare.png" "file://$T_TMP/compare.html" >/dev/null &
wait

# Chromium started when it dumped any page at all (each run costs 3-4 s
# of CPU: no separate probe page).
if ! cat "$T_TMP"/*.dom 2>/dev/null | grep -qi '<html'; then
    skip "reports load in a headless browser" "chromium at $CHROMIUM cannot start here"
    done_testing
fi

check_page() { # check_page NAME CHART_IDS...
    local name=$1; shift
    local dom; dom=$(cat "$T_TMP/$name.dom")
    if [[ "$dom" == *'data-ok="1"'* ]]; then
        ok "the $name report passes its in-page check in chromium"
    else
        notok "the $name report passes its in-page check in chromium" \
            "$(printf '%s' "$dom" | grep -o 'data-check="[^"]*"' | head -1)" "dom bytes: ${#dom}"
    fi
    local missing=""
    for id in "$@"; do [[ "$dom" == *"id=\"$id\""* ]] || missing="$missing $id"; done
    if [ -z "$missing" ]; then ok "the $name report shows every expected chart in the browser"
    else notok "the $name report shows every expected chart in the browser" "missing:$missing"; fi
    LAST_DOM=$dom
}

check_page compare chart-dist chart-ecdf chart-speedup chart-mem chart-size chart-acc chart-outputs
n=$(printf '%s' "$LAST_DOM" | grep -o '<script' | wc -l)
if [ "$n" -eq 3 ]; then ok "the hostile variant name created no script element in the browser"
else notok "the hostile variant name created no script element in the browser" "found $n script elements"; fi
contains "the hostile variant name is shown as text" "$LAST_DOM" '&lt;script&gt;alert(1)&lt;/script&gt;'
check_page run chart-dist chart-ecdf chart-batch-thr chart-batch-lat chart-mem chart-size
check_page exec chart-dist chart-phases
for id in requirements-table exec-speedup-table exec-phase-table exec-loop-table exec-value-table; do
    contains "the exec report has its $id in the browser" "$LAST_DOM" "id=\"$id\""
done
contains "the exec report shows the variant's HTML as text" "$LAST_DOM" 'slow &lt;i&gt;x&lt;/i&gt;'
[[ "$LAST_DOM" == *"batch -1"* ]] && notok "the exec report says no 'batch -1'" || ok "the exec report says no 'batch -1'"
check_page suite chart-dist chart-phases
for id in requirements-table exec-speedup-table exec-phase-table exec-value-table exec-git-table; do
    contains "the suite report has its $id in the browser" "$LAST_DOM" "id=\"$id\""
done

dom=$(cat "$T_TMP/broken.dom")
if [[ "$dom" == *'data-ok="0"'* && "$dom" == *'missing chart chart-ecdf'* ]]; then ok "a page with a missing chart is caught"
else notok "a page with a missing chart is caught" "$(printf '%s' "$dom" | grep -o 'data-check="[^"]*"')"; fi
dom=$(cat "$T_TMP/error.dom")
if [[ "$dom" == *'data-ok="0"'* && "$dom" == *'script error'* ]]; then ok "a page with a script error is caught"
else notok "a page with a script error is caught" "$(printf '%s' "$dom" | grep -o 'data-check="[^"]*"')"; fi

if [ -s "$T_TMP/compare.png" ] && [ "$(head -c 8 "$T_TMP/compare.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
    ok "chromium renders the report to a PNG screenshot"
else notok "chromium renders the report to a PNG screenshot" "no PNG at $T_TMP/compare.png"; fi
done_testing
