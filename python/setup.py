"""Copies the built libmbench (and its plugins) into the package.

Everything else is in pyproject.toml.  `make` first: without
../build/libmbench.so.0 the package is built without a library and finds an
installed one at import time (MBENCH_LIB, ldconfig, /usr/local/lib).
"""
import glob
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.environ.get("MBENCH_BUILD_DIR", os.path.join(HERE, "..", "build"))


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        lib = os.path.join(BUILD, "libmbench.so.0")
        if not os.path.exists(lib):
            return
        dest = os.path.join(self.build_lib, "mbench", "lib")
        os.makedirs(os.path.join(dest, "plugins"), exist_ok=True)
        shutil.copy2(lib, dest)
        for p in glob.glob(os.path.join(BUILD, "plugins", "*.so")):
            shutil.copy2(p, os.path.join(dest, "plugins"))


setup(cmdclass={"build_py": BuildWithLibrary})
