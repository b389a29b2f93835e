"""The `mbench` console script of an installed wheel: runs the bundled
binary (mbench/bin/mbench) with the same arguments, replacing this process
(exit code, signals and terminal are the binary's own).

The binary finds ONNX Runtime and the plugins from its own location
(mbench/lib/mbench/, the layout of `make install`), so no environment
variable is needed; docs/INSTALL.md describes the layout.
"""
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))


def bundled_cli():
    """The binary bundled into this package, else the source tree's
    build/mbench (`python -m mbench` with PYTHONPATH=python), else None.
    Never one found on PATH: that may be this very script."""
    for p in (os.path.join(_HERE, "bin", "mbench"),
              os.path.join(_HERE, "..", "..", "build", "mbench")):
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return os.path.realpath(p)
    return None


def main(argv=None):
    exe = bundled_cli()
    if exe is None:
        sys.stderr.write(
            "mbench: this installation of the Python package has no bundled "
            f"mbench binary ({os.path.join(_HERE, 'bin', 'mbench')}); "
            "reinstall it from a wheel: pip install --force-reinstall "
            "mbench-0.1.0-*.whl (from the source tree: make wheel)\n")
        return 3
    args = sys.argv[1:] if argv is None else list(argv)
    env = os.environ.copy()
    # Python models (the python backend) run in the venv the package is
    # installed in, unless MBENCH_PYTHON says otherwise (empty: the
    # backend's own choice, docs/FRAMEWORKS.md).  Outside a venv there is
    # none to name.
    if sys.prefix != sys.base_prefix:
        env.setdefault("MBENCH_PYTHON", sys.prefix)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(exe, ["mbench"] + args, env)
    return 3  # not reached


if __name__ == "__main__":
    sys.exit(main())
