"""The benchmark runner our users call today, with its flags, on mbench:

    python -m mbench.runner --framework pytorch --model resnet50 --batch-sizes 1 4
    python -m mbench.runner --framework both --model both --iterations 200 --warmup 20 \\
        --output-dir results/raw/production

and its Python names (`from mbench.runner import BenchmarkConfig,
run_inference_benchmark, run_benchmark_suite`, the same objects as
mbench's).  Each (framework, model) is one run_inference_benchmark
(docs/FRAMEWORKS.md, "The runner API"); all rows go to one CSV,
benchmark_results_YYYYmmdd_HHMMSS.csv in --output-dir, with each result
document beside it.

Exit codes: 0 done; 2 a bad flag or a configuration mbench cannot honour
(one line on stderr); otherwise the mbench command's own (docs/CLI.md:
3 a runtime error, ...).
"""
import argparse
import sys

from ._lib import MbenchError
from ._seed import (BenchmarkConfig, SEED_COLUMNS, run_benchmark_suite,
                    run_inference_benchmark)

__all__ = ["BenchmarkConfig", "run_inference_benchmark",
           "run_benchmark_suite", "SEED_COLUMNS", "main"]

# The seed's "both": its two models, its two frameworks.
BOTH_MODELS = ["resnet50", "vit_b_16"]
BOTH_FRAMEWORKS = ["pytorch", "jax"]


def _parser():
    p = argparse.ArgumentParser(
        prog="python -m mbench.runner",
        description="Benchmark PyTorch (torchvision:) and JAX (flax:) models "
                    "at several batch sizes with mbench's measurement; the "
                    "flags of the runner it replaces.")
    p.add_argument("--framework", default="both",
                   help="pytorch, jax, onnxruntime or both (pytorch and jax); "
                        "default both")
    p.add_argument("--model", default="both",
                   help="resnet50, vit_b_16, both, any torchvision classifier "
                        "name (pytorch) or an .onnx path (onnxruntime); "
                        "default both")
    p.add_argument("--batch-sizes", type=int, nargs="+", default=[1, 8, 32, 128],
                   metavar="N", help="default 1 8 32 128")
    p.add_argument("--iterations", type=int, default=50,
                   help="timed iterations at least, over all processes "
                        "(default 50)")
    p.add_argument("--warmup", type=int, default=10,
                   help="warmup iterations in every measured process "
                        "(default 10)")
    p.add_argument("--output-dir", default="results/raw",
                   help="where the CSV and the result documents go "
                        "(default results/raw)")
    p.add_argument("--device", default=None,
                   help="preferred device (cuda, ...); the CPU when it is "
                        "not there")
    p.add_argument("--data", default=None,
                   help="real inputs (.npy, .npz, .pb or a directory); "
                        "default synthetic")
    p.add_argument("--processes", type=int, default=None,
                   help="measured processes per batch size (mbench's "
                        "default: 40, fewer for slow starters)")
    p.add_argument("--threads", type=int, default=None,
                   help="intra-op threads of the framework")
    return p


def _names(value, both):
    return list(both) if value == "both" else [value]


def main(argv=None):
    args = _parser().parse_args(argv)
    for flag, v in (("--iterations", args.iterations), ("--warmup", args.warmup)):
        if v < 0:
            print(f"mbench.runner: error: {flag} {v}: give a count >= 0",
                  file=sys.stderr)
            return 2
    if any(b < 1 for b in args.batch_sizes):
        print(f"mbench.runner: error: --batch-sizes {args.batch_sizes}: every "
              f"batch size must be >= 1", file=sys.stderr)
        return 2
    try:
        rows = run_benchmark_suite(
            _names(args.model, BOTH_MODELS),
            _names(args.framework, BOTH_FRAMEWORKS),
            batch_sizes=args.batch_sizes,
            warmup_iterations=args.warmup,
            measurement_iterations=args.iterations,
            csv_output_dir=args.output_dir,
            device_prefer=args.device,
            data_source=args.data or "synthetic",
            processes=args.processes, threads=args.threads,
            verbose=True)
    except ValueError as e:
        print(f"mbench.runner: error: {e}", file=sys.stderr)
        return 2
    except MbenchError as e:
        print(f"mbench.runner: error: {e}", file=sys.stderr)
        return e.code if isinstance(e.code, int) and e.code > 0 else 3
    except KeyboardInterrupt:
        return 130
    return 0 if rows else 3


if __name__ == "__main__":
    sys.exit(main())
