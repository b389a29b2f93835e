#!/usr/bin/env bash
# profile_subgraph.sh - mbench profile on models with control flow
# (tests/fixtures/profile/make_if.py), profiled through ONNX Runtime.
# ORT's profiler writes an event for an If/Loop/Scan node AND for every
# kernel of its subgraph, nested inside it in time; each must be counted
# once: the kernel sum stays within model_run, the framework overhead is
# not negative, the If row holds its own (exclusive) time and the subgraph
# kernels are rows of their own that name the If they ran in.
. "$(dirname "$0")/lib.sh"

export XDG_CACHE_HOME="$T_TMP/cache"
M="$T_TMP/models"
if ! $PY "$FIX/profile/make_if.py" "$M" >"$T_TMP/gen.log" 2>&1; then
    notok "the control-flow models can be generated" "$(tail -3 "$T_TMP/gen.log")"
    done_testing
fi
RUNOPTS=(--iterations 5 --warmup 1 --threads 1 --no-counters --no-peak)
jq_py() { $PY -c "import json,sys; d=json.load(open(sys.argv[1])); p=d['runs'][0].get('profile'); $2" "$1"; }

# ---- If with then/else subgraphs -------------------------------------------
# More iterations than the other models: the If's own time and the
# op-type order are medians of short kernels, which one preempted
# iteration of five could reorder while other suites run beside this one.
expect_exit "a model with an If node profiles" 0 "$MBENCH" profile "$M/if.onnx" --iterations 21 --warmup 2 --threads 1 --no-counters --no-peak \
    --json "$T_TMP/if.json" --folded "$T_TMP/if.folded" --trace "$T_TMP/if.trace.json"
out=$LAST_OUT
check "if: the trace really nests the subgraph's kernels inside the If" $PY -c "
import json,sys; e=json.load(open(sys.argv[1]))
ifs=[x for x in e if x.get('cat')=='Node' and x.get('args',{}).get('op_name')=='If']
convs=[x for x in e if x.get('cat')=='Node' and x.get('args',{}).get('op_name')=='Conv']
assert ifs and convs
assert any(i['ts'] <= c['ts'] and c['ts']+c['dur'] <= i['ts']+i['dur']+1 for i in ifs for c in convs)" "$T_TMP/if.trace.json"
check "if: kernels are at most 100% of model_run (nothing counted twice)" jq_py "$T_TMP/if.json" "
r=p['reconcile']; s=r['kernel_share_of_model_run']; assert 0.5 <= s <= 1.0, s
assert r['kernel_sum_median_ns'] <= r['model_run_median_ns'], r"
check "if: the framework overhead is not negative" jq_py "$T_TMP/if.json" "
r=p['reconcile']; assert r['framework_overhead_median_ns'] >= 0 and r['framework_overhead_mean_ns'] >= 0, r"
check "if: the If row holds its own time, its subgraph apart" jq_py "$T_TMP/if.json" "
n={x['name']:x for x in p['nodes']}; i=n['the_if']
assert i['total_ns'] + i['subgraph_ns'] == i['inclusive_ns'], i
assert i['subgraph_ns'] > i['total_ns'], i"
check "if: the then branch's convolutions name the If they ran in" jq_py "$T_TMP/if.json" "
conv=[x for x in p['nodes'] if x['op_type']=='Conv']; assert conv
for c in conv: assert c.get('parent')=='the_if' and c.get('parent_op_type')=='If', c
assert all('parent' not in x for x in p['nodes'] if x['name'] in ('sum','gt','relu'))"
# The If's subgraph time is exactly its subgraph's rows (an identity);
# which op type has the most total time is a figure of the machine: one
# descheduling of a few ms inside a short kernel reorders the totals (a
# busy machine put ReduceSum above Conv), so the ordering is of the median
# per call, ms against us.
check "if: the If is not counted with its subgraph, Conv outweighs it" jq_py "$T_TMP/if.json" "
o=p['op_types']; n={x['name']:x for x in p['nodes']}
sub=[x for x in p['nodes'] if x.get('parent')=='the_if']
assert n['the_if']['subgraph_ns'] == sum(x['total_ns'] for x in sub), (n['the_if'], sub)
conv=[x for x in p['nodes'] if x['op_type']=='Conv']
assert conv and all(c['median_ns'] > n['the_if']['median_ns'] for c in conv), (conv, n['the_if'])
t=sum(x['total_ns'] for x in o); assert t == sum(x['total_ns'] for x in p['nodes'])
assert sum(x['share'] for x in o) <= 1.0 + 1e-9, [x['share'] for x in o]"
check "if: the subgraph kernel time is reported" jq_py "$T_TMP/if.json" "
r=p['reconcile']; assert 0 < r['subgraph_kernel_median_ns'] <= r['kernel_sum_median_ns'], r"
check "if: the FLOPs of the subgraph's convolutions are counted once" jq_py "$T_TMP/if.json" "
assert p['work']['macs_per_run'] == 2*32*32*9*56*56, p['work']['macs_per_run']"
contains "if: the console says the If/Loop/Scan bodies are counted once" "$out" "in If/Loop/Scan bodies"
contains "if: the console marks the subgraph's nodes" "$out" "(in If the_if)"
check "if: folded stacks put the subgraph's nodes under the If" grep -q ';If;the_if;Conv;' "$T_TMP/if.folded"
check "if: folded stacks give the If its own time" grep -Eq ';If;the_if [0-9]+$' "$T_TMP/if.folded"

# ---- Loop and Scan ------------------------------------------------------------
expect_exit "a model with Loop and Scan profiles" 0 "$MBENCH" profile "$M/loop.onnx" "${RUNOPTS[@]}" \
    --json "$T_TMP/loop.json"
check "loop: kernels are at most 100% of model_run" jq_py "$T_TMP/loop.json" "
r=p['reconcile']; assert r['kernel_sum_median_ns'] <= r['model_run_median_ns'] and r['framework_overhead_median_ns'] >= 0, r"
check "loop: the Loop body and Scan body kernels name their parents" jq_py "$T_TMP/loop.json" "
n={x['name']:x for x in p['nodes']}
assert n['body_mm']['parent']=='the_loop' and n['scan_add']['parent']=='the_scan', (n['body_mm'], n['scan_add'])
assert n['body_mm']['calls_per_run'] == 4 and n['scan_add']['calls_per_run'] == 64"

# ---- a saved trace gives the same attribution -------------------------------
expect_exit "--from-trace reads the If trace" 0 "$MBENCH" profile --from-trace "$T_TMP/if.trace.json" --no-peak --json "$T_TMP/if2.json"
check "--from-trace: kernels at most model_run" jq_py "$T_TMP/if2.json" "
r=p['reconcile']; assert r['kernel_sum_mean_ns'] <= r['model_run_mean_ns'], r"
done_testing
