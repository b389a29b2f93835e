#!/usr/bin/env bash
# The built-in models (mbench.models) in both frameworks: torchvision's
# resnet50 and vit_b_16 on PyTorch eager and their Flax twins on JAX/XLA,
# at 1 and 2 threads, batch 1 and 8: build, compile (XLA; none for eager
# PyTorch) and first-inference times, and the median latency over
# ROUNDS x ITERS iterations interleaved across batch sizes
# (bench/models_frameworks.py).  One fresh process per framework, model and
# thread count.  Threads: torch.set_num_threads(N); JAX has no run-time
# setting, so its process is pinned to N CPUs (taskset) and XLA's Eigen
# pool is told the same; the cpu/wall column shows what each really used.
# Needs the venvs of `make frameworks`; skipped without them.
# Usage: bench/models_frameworks.sh [BUILD_DIR] [ROUNDS] [ITERS]
#        (MODELS_THREADS="1 2" and MODELS="resnet50 vit_b_16" by default)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${2:-4}
iters=${3:-3}
FW=${MBENCH_FRAMEWORKS_DIR:-$root/build/frameworks}
for v in torch jax; do
    if [ ! -x "$FW/$v/bin/python" ]; then
        echo "models_frameworks: skipped, no $v venv (make frameworks)"
        exit 0
    fi
done
export PYTHONPATH="$root/python"
printf '%-6s %-9s %3s %5s %8s %9s %9s %10s %21s %8s %8s %s\n' framework model thr batch build_s compile_s first_s median_ms "IQR_ms" cpu/wall cpu_ms "load avg"
for model in ${MODELS:-resnet50 vit_b_16}; do
    for threads in ${MODELS_THREADS:-1 2}; do
        for fw in torch jax; do
            cpus=$((threads - 1))
            if [ "$fw" = torch ]; then
                line=$("$FW/torch/bin/python" "$root/bench/models_frameworks.py" torch "$model" "$threads" 1,8 "$rounds" "$iters")
            else
                line=$(XLA_FLAGS="--xla_cpu_multi_thread_eigen=$([ "$threads" = 1 ] && echo false || echo true) intra_op_parallelism_threads=$threads" \
                    taskset -c "0-$cpus" "$FW/jax/bin/python" "$root/bench/models_frameworks.py" jax "$model" "$threads" 1,8 "$rounds" "$iters")
            fi
            [ -n "$line" ] || { echo "$fw $model $threads: failed"; continue; }
            /usr/bin/python3 - "$line" <<'PYEOF'
import json, sys
r = json.loads(sys.argv[1])
for b, s in r["batches"].items():
    print(f'{r["framework"]:<6} {r["model"]:<9} {r["threads"]:>3} {b:>5} {r["build_s"]:8.1f} '
          f'{s["compile_s"]:9.2f} {s["first_s"]:9.2f} {s["median_ms"]:10.1f} '
          f'{s["q1_ms"]:10.1f}-{s["q3_ms"]:<10.1f} {s["cpu_per_wall"]:8.2f} {s["cpu_ms"]:8.1f} '
          f'{" ".join(f"{l:.1f}" for l in r["loadavg"])}')
PYEOF
        done
    done
done
