#!/usr/bin/python3
"""Coverage of mbench's paired accuracy-difference interval on real model
pairs (docs/STATISTICS.md, "Paired accuracy difference").

  pairci_real.py BUILD WORKDIR [REPS]

The 10000 Fashion-MNIST test images are the population.  mbench validate
runs the fashion CNN (fp32) against its int8 QDQ export and against a
copy with half its weights pruned, on all of them, and saves the outputs;
the per-sample top-1 correctness of each model gives the population's
true accuracy difference.  Then REPS (default 2000) times, n samples are
drawn with replacement (i.i.d. from the population: the interval's
assumption), their paired table goes through mbench's own interval
(BUILD/bench/pairci, core/pairci.c), and the share of intervals holding
the true difference is the coverage.  Seeded; prints one line per pair
and sample size.
"""
import os
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIX = os.path.join(ROOT, "tests", "fixtures", "fashion")


def run(*cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def main():
    build, work = sys.argv[1], sys.argv[2]
    reps = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
    mb = os.path.join(ROOT, build, "mbench")
    os.makedirs(work, exist_ok=True)
    py = "/usr/bin/python3"
    if not os.path.exists(os.path.join(work, "images.npy")):
        run(py, os.path.join(FIX, "make_fashion.py"), "data", work, "10000")
    run(py, os.path.join(FIX, "make_fashion.py"), "pruned", work)
    base = os.path.join(FIX, "fashion_fp32.onnx")
    labels = np.load(os.path.join(work, "labels.npy"))
    right = {}
    for name, model in (("int8", os.path.join(FIX, "fashion_int8.onnx")),
                        ("pruned", os.path.join(work, "fashion_pruned.onnx"))):
        out = os.path.join(work, "out_" + name)
        subprocess.run([mb, "validate", base, model, "--data",
                        os.path.join(work, "images.npy"), "--batch", "100",
                        "--save-outputs", out, "-q"],
                       stdout=subprocess.DEVNULL)
        right["fp32"] = np.load(os.path.join(out, "baseline", "logits.npy")).argmax(1) == labels
        right[name] = np.load(os.path.join(out, "candidate", "logits.npy")).argmax(1) == labels
    rng = np.random.default_rng(2026)
    pairci = os.path.join(ROOT, build, "bench", "pairci")
    print("%-12s %6s %10s %9s %10s" % ("pair", "n", "true diff", "coverage", "mean width"))
    for name in ("int8", "pruned"):
        a, b = right["fp32"], right[name]
        truth = b.mean() - a.mean()
        for n in (200, 1000):
            idx = rng.integers(0, len(a), (reps, n))
            bo = (b[idx] & ~a[idx]).sum(1)
            ao = (a[idx] & ~b[idx]).sum(1)
            lines = "".join("%d %d %d\n" % (x, y, n) for x, y in zip(bo, ao))
            res = subprocess.run([pairci], input=lines, capture_output=True,
                                 text=True, check=True).stdout.split()
            ci = np.array(res, float).reshape(-1, 2)
            cov = np.mean((ci[:, 0] <= truth + 1e-12) & (truth - 1e-12 <= ci[:, 1]))
            print("%-12s %6d %+10.4f %9.4f %10.4f" % ("fp32/" + name, n, truth, cov,
                                                    (ci[:, 1] - ci[:, 0]).mean()))


if __name__ == "__main__":
    main()
