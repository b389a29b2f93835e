#!/usr/bin/python3
"""Writes an mbench store export (mbench.store-export/1) of synthetic but
complete result documents for bench/site.sh: COMMITS commits (three
quarters on main, then a feature branch forked from main's middle), two
machines, and per commit and machine five model documents (one model, two
variants, batch 1 and 8: 4 runs each) and one exec document of five
commands with phases and counters: 25 runs per commit and machine,
so 200 commits give 10,000 runs.  Model 0 steps up 30% at main's commit 100.  Seeded: the same
arguments give the same file.

  site_store.py OUT.json [--commits 200] [--seed 1]
"""
import argparse
import json
import random


def lat(med, rng):
    s = sorted(int(med * (1 + 0.03 * abs(rng.gauss(0, 1)))) for _ in range(12))
    return s, {"unit": "ns", "count": len(s), "min": s[0], "max": s[-1],
               "mean": sum(s) / len(s), "median": s[len(s) // 2],
               "p90": s[-2], "p95": s[-1], "p99": s[-1]}


def model_doc(m, k, env, created, rng, step):
    runs = []
    for var in ("fp32", "int8"):
        for batch in (1, 8):
            med = 1e6 * (1 + m) * batch ** 0.7 * (0.6 if var == "int8" else 1)
            med *= step * (1 + 0.01 * rng.gauss(0, 1))
            s, l = lat(med, rng)
            runs.append({"status": "ok", "variant": var, "backend": "ort",
                         "model": {"path": "/models/model%d.onnx" % m, "name": "model%d.onnx" % m,
                                   "sha256": ("%02x" % m) * 32, "file_bytes": 1000000 * (m + 1)},
                         "config": {"threads": 1}, "batch_size": batch, "iterations": len(s),
                         "stop_rule": "fixed_iterations", "latency": l,
                         "throughput": {"inferences_per_s": 1e9 / l["mean"],
                                        "samples_per_s": batch * 1e9 / l["mean"]},
                         "memory": {"rss_peak_bytes": 50 * 2**20 + 2**20 * m, "peak_method": "clear_refs"},
                         "samples_ns": s})
    return {"schema": "mbench.result/1", "kind": "run", "created_utc": created,
            "command_line": "mbench run model%d.onnx" % m, "environment": env, "runs": runs}


def exec_doc(k, env, created, rng):
    runs = []
    for c in range(5):
        med = 2e7 * (1 + c) * (1 + 0.01 * rng.gauss(0, 1))
        s, l = lat(med, rng)
        phases = {name: {"median_ns": int(med * f), "ci95": {"lo": int(med * f * 0.97), "hi": int(med * f * 1.03)}}
                  for name, f in (("init", 0.1), ("load", 0.2), ("train", 0.6))}
        runs.append({"status": "ok", "variant": "task%d" % c, "command": "./train --task %d" % c,
                     "backend": "exec", "iterations": len(s), "stop_rule": "fixed_iterations",
                     "latency": l, "samples_ns": s,
                     "exec": {"user_ns": int(med * 0.9), "sys_ns": int(med * 0.05), "phases": phases,
                              "counters": {"samples": {"median": 4096 * (c + 1)}, "batches": {"median": 64}}}})
    return {"schema": "mbench.result/1", "kind": "exec", "created_utc": created,
            "command_line": "mbench exec ...", "environment": env, "runs": runs}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--commits", type=int, default=200)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    rng = random.Random(a.seed)
    n_main = a.commits * 3 // 4
    envs = [{"cpu_model": cpu, "logical_cores": cores, "memory_bytes": mem, "arch": "x86_64", "hostname": host}
            for cpu, cores, mem, host in (("Bench CPU A", 8, 32 * 2**30, "ci-a"), ("Bench CPU B", 64, 256 * 2**30, "ci-b"))]
    docs = []
    for k in range(a.commits):
        on_main = k < n_main
        branch = "main" if on_main else "feature"
        sha = "%040x" % rng.getrandbits(160)
        day = k if on_main else n_main // 2 + (k - n_main)
        date = "2026-%02d-%02dT%02d:00:00Z" % (1 + day // 28 % 12, 1 + day % 28, k % 24)
        git = {"commit": sha, "branch": branch, "dirty": False, "commit_date": date}
        for env in envs:
            for m in range(5):
                step = 1.3 if (m == 0 and on_main and k >= 100) else 1.0
                docs.append({"git": git, "document": model_doc(m, k, env, date, rng, step)})
            docs.append({"git": git, "document": exec_doc(k, env, date, rng)})
    json.dump({"schema": "mbench.store-export/1", "exported_utc": "2026-12-01T00:00:00Z",
               "source_kind": "sqlite", "documents": docs}, open(a.out, "w"))


main()
