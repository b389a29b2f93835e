"""One process of bench/models_frameworks.sh: a built-in model in one
framework at one thread count, its compile time and its latency per batch
size.  Run by the framework's venv python with python/ on sys.path:

    models_frameworks.py torch|jax MODEL THREADS BATCHES ROUNDS ITERS

Per batch size: the compile time (jax: jit lower+compile; torch eager has
none) and the first inference apart; then ROUNDS rounds, each running every
batch size ITERS times in an order that rotates by round, so that slow
phases of a loaded machine fall on every size alike.  Each iteration is a
perf_counter_ns pair around the call, ending when the result is ready
(block_until_ready for JAX).  Prints one JSON line: per batch size the
median over all iterations, the quartiles, CPU seconds per wall second
during the timed calls (the threads actually used) and the median CPU time
of an iteration (process CPU time, all threads: on a loaded machine the
wall time of a 1-thread call stretches by the time others hold the CPU,
its CPU time much less, so it is the steadier figure of the work done).
"""
import json
import os
import statistics
import sys
import time

import numpy as np


def timed(call, iters):
    out = []
    for _ in range(iters):
        c0, t0 = time.process_time(), time.perf_counter_ns()
        call()
        out.append((time.perf_counter_ns() - t0, time.process_time() - c0))
    return out


def main(fw, model, threads, batches, rounds, iters):
    threads, rounds, iters = int(threads), int(rounds), int(iters)
    batches = [int(b) for b in batches.split(",")]
    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    res = {"framework": fw, "model": model, "threads": threads, "batches": {}}
    if fw == "torch":
        import torch
        from mbench.models import torchvision_model
        torch.set_num_threads(threads)
        m = torchvision_model(model)
        res["build_s"] = time.perf_counter() - t0
        calls = {}
        for b in batches:
            x = torch.from_numpy(rng.random((b, 3, 224, 224), dtype=np.float32))

            def call(x=x):
                with torch.inference_mode():
                    m(x)
            t = time.perf_counter()
            call()
            res["batches"][b] = {"compile_s": 0.0, "first_s": time.perf_counter() - t}
            calls[b] = call
        res["version"] = torch.__version__
    else:
        import jax
        from mbench.models import flax_model
        m = flax_model(model)
        res["build_s"] = time.perf_counter() - t0
        calls = {}
        for b in batches:
            x = jax.device_put(rng.random((b, 3, 224, 224), dtype=np.float32))
            t = time.perf_counter()
            f = jax.jit(m.apply).lower(m.variables, x).compile()
            tc = time.perf_counter()
            jax.block_until_ready(f(m.variables, x))
            res["batches"][b] = {"compile_s": tc - t, "first_s": time.perf_counter() - tc}
            calls[b] = lambda f=f, x=x: jax.block_until_ready(f(m.variables, x))
        res["version"] = jax.__version__
    samples = {b: [] for b in batches}
    for r in range(rounds):
        order = batches[r % len(batches):] + batches[:r % len(batches)]
        for b in order:
            samples[b] += timed(calls[b], iters)
    for b in batches:
        ns = sorted(s[0] for s in samples[b])
        q = statistics.quantiles(ns, n=4)
        cpu = sum(s[1] for s in samples[b]) / (sum(ns) / 1e9)
        res["batches"][b].update(median_ms=statistics.median(ns) / 1e6, q1_ms=q[0] / 1e6,
                                 q3_ms=q[2] / 1e6, n=len(ns), cpu_per_wall=cpu,
                                 cpu_ms=statistics.median(s[1] for s in samples[b]) * 1e3)
    res["loadavg"] = os.getloadavg()
    print(json.dumps(res), flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
