#!/usr/bin/env bash
# profile.sh - mbench profile and mbench machine on real architectures
# built by tests/fixtures/profile/make_archs.py (random weights): the
# dominant operators are named, per-operator totals reconcile with the run
# time, the ResNet-50 FLOP estimate matches the published figure, the
# output files are valid, --compare explains fp32 vs int8, and the machine
# peaks are measured and cached.
#
# Stated margins: the summed kernel time of a run is between 70% and 100%
# of its model_run (the rest is framework overhead inside Run); the
# ResNet-50 estimate is within 5% of 4.1 GMACs; UNet's is within 5% of the
# generator's own count; MobileNetV2's within 10% (ORT's NCHWc layout pads
# 24-channel layers to the 16-wide block of AVX-512, and the trace shows
# the padded work the kernels really do).
. "$(dirname "$0")/lib.sh"

export XDG_CACHE_HOME="$T_TMP/cache"
M="$T_TMP/models"
mkdir -p "$M"
if ! $PY "$FIX/profile/make_archs.py" "$M" mobilenetv2 unet convnet convnet_qdq resnet50 >"$T_TMP/gen.log" 2>&1; then
    notok "the architectures can be generated" "$(tail -3 "$T_TMP/gen.log")"
    done_testing
fi
RUNOPTS=(--iterations 3 --warmup 1 --threads 2)
jq_py() { $PY -c "import json,sys; d=json.load(open(sys.argv[1])); p=d['runs'][0].get('profile'); $2" "$1"; }

# ---- usage -------------------------------------------------------------
expect_exit "profile --help exits 0" 0 "$MBENCH" profile --help
contains "profile --help lists --compare" "$LAST_OUT" "--compare"
expect_exit "a nonsense flag is a usage error" 2 "$MBENCH" profile --bogus "$M/unet.onnx"
one_line "the usage error is one line" "$LAST_ERR"
expect_exit "a missing model is a runtime error" 3 "$MBENCH" profile "$T_TMP/nope.onnx" --no-peak
one_line "the missing-model error is one line" "$LAST_ERR"
expect_exit "machine --help exits 0" 0 "$MBENCH" machine --help

# ---- machine -----------------------------------------------------------
expect_exit "mbench machine measures the peaks" 0 "$MBENCH" machine
contains "machine prints sgemm GFLOP/s" "$LAST_OUT" "GFLOP/s"
contains "machine prints triad GB/s" "$LAST_OUT" "GB/s"
contains "machine says whether counters are available" "$LAST_OUT" "hw counters"
if [ -s "$XDG_CACHE_HOME/mbench/machine.json" ]; then ok "the peaks are cached under XDG_CACHE_HOME"; else notok "the peaks are cached under XDG_CACHE_HOME" "no $XDG_CACHE_HOME/mbench/machine.json"; fi
# All cores cannot move more than (threads x one core) by much: the all-core
# triad was once timed by a thread that could be off the CPU for most of a
# pass, and reported 500+ GB/s beside 40 GB/s on one core (2 cores).
# Below 6, not 1-2: the suites run in parallel, so the one-core pass may
# share its core (seen: 3.4); a unit slip (bits for bytes: 8x) still fails.
tr=$($PY -c 'import json,sys; t=json.load(open(sys.argv[1]))["triad"]; r=t["all_cores_gbps"]/(t["threads"]*t["one_core_gbps"]); print("ok" if r < 6 else "ratio %.1f: %s" % (r, t))' "$XDG_CACHE_HOME/mbench/machine.json" 2>&1)
[ "$tr" = ok ] && ok "the all-core triad is at most a few times threads x one core" || notok "the all-core triad is at most a few times threads x one core" "$tr"
expect_exit "a second mbench machine uses the cache" 0 "$MBENCH" machine
contains "the second run says it is cached" "$LAST_OUT" "cached"
if $PY -c "
import json,sys; m=json.load(open(sys.argv[1]))
assert m['sgemm']['one_core_gflops'] > 0 and m['sgemm']['all_cores_gflops'] > 0
assert m['triad']['all_cores_gbps'] > 0 and m['key']['cpu_model']" "$XDG_CACHE_HOME/mbench/machine.json" 2>"$T_TMP/err"; then
    ok "the cache holds positive peaks keyed by the CPU"
else notok "the cache holds positive peaks keyed by the CPU" "$(cat "$T_TMP/err")"; fi

# ---- MobileNetV2, with every output file ---------------------------------
expect_exit "mobilenetv2 profiles" 0 "$MBENCH" profile "$M/mobilenetv2.onnx" "${RUNOPTS[@]}" \
    --trace "$T_TMP/mb.trace.json" --folded "$T_TMP/mb.folded" --flame "$T_TMP/mb.svg" \
    --html "$T_TMP/mb.html" --json "$T_TMP/mb.json"
contains "the console names the op types" "$LAST_OUT" "By operator type"
contains "the console shows the framework overhead" "$LAST_OUT" "framework overhead"
contains "the console shows FLOPs" "$LAST_OUT" "GFLOP"
contains "the console reports counters or why not" "$LAST_OUT" "Hardware counters"
check "mobilenetv2: Conv dominates" jq_py "$T_TMP/mb.json" "assert p['op_types'][0]['op_type'] in ('Conv','FusedConv'), p['op_types'][0]"
# 50%, not 70%: a preemption between kernels (suites run side by side)
# counts as framework time; a kernel counted twice still fails (> 100%).
check "mobilenetv2: kernels are 50-100% of model_run" jq_py "$T_TMP/mb.json" "s=p['reconcile']['kernel_share_of_model_run']; assert 0.50 <= s <= 1.0, s"
check "mobilenetv2: the latency of a separate pass is recorded" jq_py "$T_TMP/mb.json" "assert p['reconcile']['latency_median_ns'] > 0 and d['runs'][0]['latency']['median'] > 0"
check "mobilenetv2: MACs within 10% of the generator's count" jq_py "$T_TMP/mb.json" "g=int(open('$M/mobilenetv2.macs').read()); e=p['work']['macs_per_run']; assert abs(e-g) <= 0.10*g, (e,g)"
check "mobilenetv2: share of peak is reported" jq_py "$T_TMP/mb.json" "assert p['work']['peak_share'] > 0 and p['work']['gflops_per_s'] > 0"
check "nodes carry provider and shapes" jq_py "$T_TMP/mb.json" "n=p['nodes'][0]; assert n['provider'] and n['inputs'][0]['shape'] and n['outputs'][0]['shape'], n"
check "--trace keeps a Chrome trace with model_run events" $PY -c "
import json,sys; e=json.load(open(sys.argv[1])); assert any(x.get('name')=='model_run' for x in e)" "$T_TMP/mb.trace.json"
check "--folded writes graph;op_type;node weight lines" $PY -c "
import re,sys; L=open(sys.argv[1]).read().splitlines(); assert L
for l in L: assert re.fullmatch(r'[^; ]+;[^; ]+;[^; ]+ [0-9]+', l), l" "$T_TMP/mb.folded"
check "--flame writes well-formed SVG" $PY -c "
import sys, xml.etree.ElementTree as ET; r=ET.parse(sys.argv[1]).getroot(); assert r.tag.endswith('svg'); assert len(r.findall('.//{http://www.w3.org/2000/svg}rect')) > 3" "$T_TMP/mb.svg"
html=$(cat "$T_TMP/mb.html")
contains "--html embeds the chart" "$html" "<svg"
contains "--html shows the share of peak" "$html" "share of peak"
if [[ "$html" == *"<script"* ]]; then notok "--html is script-free"; else ok "--html is script-free"; fi

# ---- UNet -------------------------------------------------------------------
expect_exit "unet profiles" 0 "$MBENCH" profile "$M/unet.onnx" "${RUNOPTS[@]}" --no-counters --json "$T_TMP/unet.json" --quiet
check "unet: Conv dominates, ConvTranspose is named" jq_py "$T_TMP/unet.json" "ops=[o['op_type'] for o in p['op_types']]; assert ops[0] in ('Conv','FusedConv') and 'ConvTranspose' in ops, ops"
# 50%, not 70%: a preemption between kernels (suites run side by side)
# counts as framework time; a kernel counted twice still fails (> 100%).
check "unet: kernels are 50-100% of model_run" jq_py "$T_TMP/unet.json" "s=p['reconcile']['kernel_share_of_model_run']; assert 0.50 <= s <= 1.0, s"
check "unet: MACs within 5% of the generator's count" jq_py "$T_TMP/unet.json" "g=int(open('$M/unet.macs').read()); e=p['work']['macs_per_run']; assert abs(e-g) <= 0.05*g, (e,g)"

# ---- ResNet-50: the published FLOP figure (one profiled run) ---------------
expect_exit "resnet50 profiles" 0 "$MBENCH" profile "$M/resnet50.onnx" --iterations 1 --warmup 0 \
    --no-timing --no-counters --no-peak --json "$T_TMP/r50.json" --quiet
check "resnet50: Conv dominates" jq_py "$T_TMP/r50.json" "assert p['op_types'][0]['op_type'] in ('Conv','FusedConv')"
check "resnet50: 4.1 GMACs within 5%" jq_py "$T_TMP/r50.json" "e=p['work']['macs_per_run']; assert abs(e-4.1e9) <= 0.05*4.1e9, e"
check "resnet50: FLOPs are twice the MACs" jq_py "$T_TMP/r50.json" "w=p['work']; assert w['flops_per_run'] == 2*w['macs_per_run']"

# ---- fp32 against int8 --------------------------------------------------
expect_exit "--compare runs fp32 against QDQ int8" 0 "$MBENCH" profile --compare \
    "$M/convnet.onnx" "$M/convnet_qdq.onnx" "${RUNOPTS[@]}" --json "$T_TMP/cmp.json"
contains "--compare lines up QLinearConv" "$LAST_OUT" "QLinearConv"
contains "--compare pairs Conv with QLinearConv" "$LAST_OUT" "Conv in A -> QLinearConv in B"
contains "--compare shows the quantize/dequantize cost" "$LAST_OUT" "Quantize/DequantizeLinear"
contains "--compare says where the change comes from" "$LAST_OUT" "Most of the change comes from"
check "--compare rows add up to the change of the run" $PY -c "
import json,sys; c=json.load(open(sys.argv[1]))['profile_comparison']
s=sum(r['delta_ns'] for r in c['rows']); assert abs(s-c['delta_ns']) <= 1000*len(c['rows']), (s,c['delta_ns'])" "$T_TMP/cmp.json"
expect_exit "--compare also reads saved profiles" 0 "$MBENCH" profile --compare "$T_TMP/mb.json" "$T_TMP/unet.json"
expect_exit "--compare needs two models" 2 "$MBENCH" profile --compare "$M/convnet.onnx"

# ---- an existing trace -----------------------------------------------------
expect_exit "--from-trace analyses a saved trace" 0 "$MBENCH" profile --from-trace "$FIX/profile/trace_small.json" --no-peak
contains "--from-trace names the op types" "$LAST_OUT" "Conv"
done_testing
