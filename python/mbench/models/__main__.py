"""python -m mbench.models export torchvision:NAME OUT.npz [--seed S] [--force]

Writes the state_dict of a torchvision classifier, randomly initialised from
seed S (default 0) the way torchvision_model() makes it, as a .npz of numpy
arrays: `weights=OUT.npz` then gives a torchvision: and (for resnet50 and
vit_b_16) a flax: variant the same weights.  Runs in the torch venv
(build/frameworks/torch).

Exit status: 0 written, 1 the model could not be built or written,
2 bad usage (unknown command or model, OUT exists without --force).
"""
import argparse
import sys


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m mbench.models",
                                 description="mbench's built-in models")
    sub = ap.add_subparsers(dest="cmd", required=True)
    ex = sub.add_parser("export", help="write a torchvision model's state_dict as .npz")
    ex.add_argument("spec", help="torchvision:NAME, e.g. torchvision:resnet50")
    ex.add_argument("out", help="the .npz to write")
    ex.add_argument("--seed", type=int, default=0, help="seed of the random weights (0)")
    ex.add_argument("--force", action="store_true", help="replace OUT if it exists")
    args = ap.parse_args(argv)

    from . import export
    from ._export import ExportError
    try:
        model = export(args.spec, args.out, seed=args.seed, force=args.force)
    except ModuleNotFoundError as e:
        print(f"mbench.models: {e.name} is not importable here; run export with the torch "
              "venv's python (make frameworks: build/frameworks/torch/bin/python)", file=sys.stderr)
        return 1
    except (ExportError, ValueError) as e:
        print(f"mbench.models: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"mbench.models: cannot write {args.out}: {e.strerror}", file=sys.stderr)
        return 1
    n = sum(p.numel() for p in model.parameters())
    print(f"{args.out}: {args.spec} seed {args.seed}, {len(model.state_dict())} arrays, {n} parameters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
