#!/usr/bin/env bash
# Install the Debian packages mbench needs, only those that are missing.
#   scripts/deps.sh build   compiler and -dev libraries (make, make demo)
#   scripts/deps.sh test    build + what the tests use (python3-onnx, numpy,
#                           scikit-image, ONNX's test data, PostgreSQL,
#                           clang and its libFuzzer runtime, libtorch-dev
#                           and python3-torch for the torch plugin, pytest
#                           and venv for the Python package, python3-yaml and
#                           jq for the CI recipes, libbz2-dev for the static
#                           link of tests/integration/install.sh: libzip.pc
#                           names -lbz2 and libzip-dev does not pull it, ...)
#   scripts/deps.sh bench   build + what the benchmarks compare against
#   scripts/deps.sh frameworks  what scripts/frameworks.sh needs for the
#                           Python environments of framework variants
#                           (venv, Debian's torch/torchvision, libpython)
#   scripts/deps.sh wheel   build + what `make wheel` builds the wheel with,
#                           offline (Debian's pip, setuptools and wheel)
# Runs apt-get (through sudo when not root).  Prints nothing when all is there.
set -euo pipefail
kind=${1:-build}

build_pkgs=(gcc make pkg-config libc6-dev libjansson-dev nettle-dev libzip-dev
            libpng-dev zlib1g-dev libsqlite3-dev libpq-dev libopenblas-dev libgsl-dev
            libjpeg-dev ca-certificates)
test_pkgs=(python3 python3-onnx python3-numpy python3-scipy python3-skimage libonnx-testdata
           postgresql sqlite3 chromium hyperfine git clang libclang-rt-14-dev
           zsh clang-format libtorch-dev python3-torch python3-pytest python3-venv
           python3-setuptools python3-pandas g++ python3-yaml jq libbz2-dev
           python3-wheel python3-pip groff python3-torchvision python3-dev libpython3.11
           python3-sklearn slurm-wlm munge)
framework_pkgs=(python3 python3-venv python3-dev libpython3.11 python3-torch
                python3-torchvision ca-certificates)
wheel_pkgs=(python3 python3-pip python3-setuptools python3-wheel python3-venv)
bench_pkgs=(python3 python3-onnx python3-numpy python3-scipy python3-skimage hyperfine git time
            libtorch-dev python3-torch g++)

pkgs=("${build_pkgs[@]}")
case "$kind" in
    build) ;;
    test) pkgs+=("${test_pkgs[@]}") ;;
    bench) pkgs+=("${bench_pkgs[@]}") ;;
    frameworks) pkgs=("${framework_pkgs[@]}") ;;
    wheel) pkgs+=("${wheel_pkgs[@]}") ;;
    *) echo "deps.sh: unknown kind '$kind' (use build, test, bench, frameworks or wheel)" >&2; exit 2 ;;
esac
# npm fetches ONNX Runtime (scripts/fetch-ort.sh); any npm will do (Debian's
# or one already there).  Not needed, so not installed, when the runtime is
# already fetched (build/ort, or ORT_DIR) or MBENCH_ORT_LIB names one.
root=$(cd "$(dirname "$0")/.." && pwd)
need_npm=1
if [ -n "${MBENCH_ORT_LIB:-}" ] && [ -f "$MBENCH_ORT_LIB" ]; then
    need_npm=0
elif "$root/scripts/fetch-ort.sh" --check "${ORT_DIR:-$root/build/ort}" 2>/dev/null; then
    need_npm=0
fi
[ "$need_npm" = 1 ] && ! command -v npm >/dev/null 2>&1 && pkgs+=(npm)

missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "deps.sh: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
    SUDO=sudo
fi
echo "deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
