#!/usr/bin/env bash
# mbench run on a real pretrained model no other test uses: Silero VAD v5
# from the npm package @ricky0123/vad-web (a stateful model with unnamed
# dynamic dims and an int64 scalar input).  The package is fetched once
# into build/cache; the test is skipped (not failed) when npm cannot fetch.
. "$(dirname "$0")/lib.sh"
cache="$MBENCH_ROOT/build/cache/vad"
vad="$cache/package/dist/silero_vad_v5.onnx"
if [ ! -s "$vad" ]; then
    mkdir -p "$cache"
    ( cd "$cache" && npm pack @ricky0123/vad-web@0.0.31 --silent --cache "$cache/npm" >/dev/null 2>&1 &&
      tar -xzf ricky0123-vad-web-*.tgz package/dist/silero_vad_v5.onnx && rm -rf "$cache/npm" ricky0123-vad-web-*.tgz ) || true
fi
if [ ! -s "$vad" ]; then
    skip "Silero VAD runs" "npm could not fetch @ricky0123/vad-web"
    done_testing
fi
expect_exit "unnamed dynamic dims are an error that names --shape" 3 "$MBENCH" run "$vad"
contains "the error names the input and --shape" "$LAST_ERR" "--shape input="
expect_exit "Silero VAD runs with --shape and an int64 scalar range" 0 \
    "$MBENCH" run "$vad" --processes 3 --shape input=1,512 --shape state=2,1,128 --input-range sr=16000:16000 \
    --input-range input=-1:1 --min-time 0.2s --max-time 2s --json "$T_TMP/vad.json" --quiet
check "the document records all three inputs, the scalar and the constants" $PY -c "
import json; r = json.load(open('$T_TMP/vad.json'))['runs'][0]
ins = {i['name']: i for i in r['inputs']}
assert ins['input']['shape'] == [1, 512] and ins['state']['shape'] == [2, 1, 128], ins
assert ins['sr']['shape'] == [] and ins['sr']['dtype'] == 'int64' and ins['sr']['range'] == [16000, 16000], ins['sr']
assert r['model']['constants']['values'] == 545601, r['model']
assert r['model']['params'] == 545601, r['model']  # weights kept in Constant nodes count (issue 23)
assert r['status'] == 'ok' and r['latency']['median'] > 0"
expect_exit "info reads Silero VAD" 0 "$MBENCH" info "$vad"
contains "... and counts its 545,601 weights in Constant nodes as parameters" "$LAST_OUT" \
    "parameters 545,601 (545.6K), 2.1 MiB (2,183,656 bytes): 0 in 0 initializers, 545,601 in 345 constants"
expect_exit "a --shape of the wrong rank is a usage error" 2 \
    "$MBENCH" run "$vad" --shape input=512 --shape state=2,1,128 --iterations 5
contains "the rank error names both shapes" "$LAST_ERR" "rank"
expect_exit "a --shape that changes a fixed dim is a usage error" 2 \
    "$MBENCH" run "$vad" --shape input=1,512 --shape state=3,1,128 --iterations 5
expect_exit "a malformed --shape is a usage error" 2 "$MBENCH" run "$vad" --shape input
done_testing
