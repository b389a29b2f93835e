"""Bundles the built mbench into the package, as a small installation prefix.

Everything else is in pyproject.toml.  `make` first (or `make wheel`, which
builds and then runs this): with ../build/libmbench.so.0 the package gets

    mbench/bin/mbench                           the CLI (the `mbench` console script runs it)
    mbench/lib/libmbench.so.0                   the library that `import mbench` loads (ctypes)
    mbench/lib/mbench/libonnxruntime.so.1       ONNX Runtime, where both look beside themselves
    mbench/lib/mbench/plugins/mbench_*.so       the backend plugins that were built

- the layout of `make install`'s <prefix>, so the library and the binary find
ONNX Runtime and the plugins from their own location (docs/BACKENDS.md) and
the installed package needs no build tree.  The wheel is then a platform
wheel (py3-none-linux_x86_64: ctypes, so any CPython 3 ABI) for machines with
the Debian runtime libraries libmbench links (scripts/deps.sh build).

Without a built library the package is built pure (py3-none-any) and finds
an installed libmbench at import time (MBENCH_LIB, ldconfig, /usr/local/lib).

Environment: MBENCH_BUILD_DIR (default ../build), MBENCH_ORT (default
<build>/ort/libonnxruntime.so.1, else ../build/ort/...).
"""
import glob
import os
import shutil
import sysconfig

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

try:  # setuptools >= 70.1 has it; Debian 12's 66 takes it from python3-wheel
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:
    try:
        from wheel.bdist_wheel import bdist_wheel
    except ImportError:
        bdist_wheel = None

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.environ.get("MBENCH_BUILD_DIR", os.path.join(HERE, "..", "build"))


def _ort():
    env = os.environ.get("MBENCH_ORT")
    if env:
        return env
    for p in (os.path.join(BUILD, "ort", "libonnxruntime.so.1"),
              os.path.join(HERE, "..", "build", "ort", "libonnxruntime.so.1")):
        if os.path.exists(p):
            return p
    return None


def _bundle():
    """(source, destination inside the package) of every file to bundle;
    empty without a built libmbench."""
    lib = os.path.join(BUILD, "libmbench.so.0")
    if not os.path.exists(lib):
        return []
    out = [(lib, "lib/libmbench.so.0")]
    cli = os.path.join(BUILD, "mbench")
    if os.path.exists(cli):
        out.append((cli, "bin/mbench"))
    ort = _ort()
    if ort and os.path.exists(ort):
        out.append((ort, "lib/mbench/libonnxruntime.so.1"))
    for p in sorted(glob.glob(os.path.join(BUILD, "plugins", "*.so"))):
        out.append((p, "lib/mbench/plugins/" + os.path.basename(p)))
    return out


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        for src, rel in _bundle():
            dest = os.path.join(self.build_lib, "mbench", rel)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            shutil.copy2(src, dest)  # keeps the executable bits


class BinaryDistribution(Distribution):
    """Native code inside: installed to platlib, a platform wheel."""

    def has_ext_modules(self):
        return bool(_bundle())


cmdclass = {"build_py": BuildWithLibrary}

if bdist_wheel is not None:
    class PlatformWheel(bdist_wheel):
        """The package holds ELF files for this machine's platform but no
        CPython extension, so any Python 3 can load them: tagged
        py3-none-<platform>, not cpXY-cpXY-<platform>."""

        def get_tag(self):
            if not _bundle():
                return super().get_tag()
            plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
            return "py3", "none", plat

    cmdclass["bdist_wheel"] = PlatformWheel

setup(cmdclass=cmdclass, distclass=BinaryDistribution)
