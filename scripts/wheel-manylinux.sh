#!/usr/bin/env bash
# make wheel-manylinux: the wheel of `make wheel` made to install on other
# Linux machines: auditwheel (PyPI, in the tools venv BUILD/wheel-tools;
# patchelf from Debian: scripts/deps.sh wheel) copies every shared library
# the CLI, libmbench and the plugins need (jansson, nettle, libzip,
# libpng, sqlite3, libpq and its Kerberos/LDAP/TLS chain, gsl, OpenBLAS,
# ...) into mbench.libs/ inside the wheel, points their RPATHs there and
# tags the wheel manylinux_2_X for the newest glibc symbol it uses
# (patchelf too comes from PyPI: auditwheel 6 needs 0.14.5, Debian 12 has
# 0.14.3).
# libpython3.11 (which auditwheel never bundles) is bundled the same way
# for the python backend, so that a machine whose python3 has no shared
# libpython (Debian's python3 without libpython3.11) runs Python models too.
# The LibTorch plugin is left out: it links Debian's libtorch (hundreds
# of MiB), and PyPI's torch is another build; TorchScript files need a
# source build (docs/FRAMEWORKS.md).
#
#   scripts/wheel-manylinux.sh [BUILD]     (default build)
#
# Writes BUILD/dist/manylinux/mbench-0.1.0-py3-none-manylinux_*.whl and
# prints its path.  Needs the network once (auditwheel from PyPI).
set -euo pipefail
build=${1:-build}
src=$(ls "$build"/dist/mbench-0.1.0-py3-none-linux_x86_64.whl 2>/dev/null | head -1)
[ -n "$src" ] || { echo "wheel-manylinux: no $build/dist/mbench-0.1.0-py3-none-linux_x86_64.whl: run make wheel" >&2; exit 2; }
tools=$build/wheel-tools
if [ ! -x "$tools/bin/auditwheel" ] || [ ! -x "$tools/bin/patchelf" ]; then
    # auditwheel 6 needs patchelf >= 0.14.5 (Debian 12 has 0.14.3): both from PyPI
    /usr/bin/python3 -m venv "$tools"
    "$tools/bin/pip" install -q --disable-pip-version-check "auditwheel==6.8.2" "patchelf==0.17.2.4"
fi
export PATH="$(cd "$tools/bin" && pwd):$PATH"
work=$build/wheel-ml
rm -rf "$work" && mkdir -p "$work/in" "$build/dist/manylinux"
/usr/bin/python3 -m wheel unpack -d "$work/in" "$src" >/dev/null
pkg=$(ls -d "$work"/in/mbench-0.1.0)
rm -f "$pkg/mbench/lib/mbench/plugins/mbench_torch.so"
# Debian's `wheel unpack` (0.38) drops the modes: the command and the
# libraries are executable again, as make wheel made them.
chmod 0755 "$pkg/mbench/bin/mbench" "$pkg"/mbench/lib/*.so* "$pkg"/mbench/lib/mbench/*.so* \
    "$pkg"/mbench/lib/mbench/plugins/*.so
# libpython beside the python backend (its RUNPATH then finds it there).
plugin=$pkg/mbench/lib/mbench/plugins/mbench_python.so
if [ -f "$plugin" ]; then
    libpy=$(ldd "$plugin" | awk '/libpython3/ {print $3; exit}')
    if [ -n "$libpy" ]; then
        cp -L "$libpy" "$pkg/mbench/lib/mbench/plugins/"
        patchelf --set-rpath '$ORIGIN' "$plugin"
    fi
fi
/usr/bin/python3 -m wheel pack -d "$work" "$pkg" >/dev/null
rm -f "$build"/dist/manylinux/mbench-0.1.0-*.whl
"$tools/bin/auditwheel" repair --plat auto -w "$build/dist/manylinux" \
    --exclude 'libpython3.11.so.1.0' "$work"/mbench-0.1.0-*.whl
rm -rf "$work"
out=$(ls "$build"/dist/manylinux/mbench-0.1.0-*.whl)
/usr/bin/python3 - "$out" <<'PY'
import sys, zipfile
modes = {i.filename: i.external_attr >> 16 for i in zipfile.ZipFile(sys.argv[1]).infolist()}
if not modes.get("mbench/bin/mbench", 0) & 0o111:
    sys.exit("wheel-manylinux: mbench/bin/mbench lost its executable bit")
PY
echo "$out"
