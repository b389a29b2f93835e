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
# Runs apt-get (through sudo when not root), waiting for another apt or
# dpkg that holds the lock (LOCK_WAIT seconds, default 1200), one line of
# progress per step.  ONNX Runtime (scripts/fetch-ort.sh) is fetched first,
# for build, test and bench, when it is not there yet.  Prints nothing
# when all is there.
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
           python3-sklearn slurm-wlm munge dataset-fashion-mnist)
framework_pkgs=(python3 python3-venv python3-dev libpython3.11 python3-torch
                python3-torchvision ca-certificates)
wheel_pkgs=(python3 python3-pip python3-setuptools python3-wheel python3-venv debootstrap)
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
need_ort=1
if [ -n "${MBENCH_ORT_LIB:-}" ] && [ -f "$MBENCH_ORT_LIB" ]; then
    need_ort=0
elif "$root/scripts/fetch-ort.sh" --check "${ORT_DIR:-$root/build/ort}" 2>/dev/null; then
    need_ort=0
fi
[ "$kind" = frameworks ] && need_ort=0

missing_of() { # PKG...: those not installed
    local p
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || echo "$p"
    done
}

SUDO=
if [ "$(id -u)" -ne 0 ]; then
    SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
# Another apt or dpkg (a fresh cloud VM's unattended-upgrades, another
# terminal) may hold the locks: wait for it, up to LOCK_WAIT seconds
# (default 20 minutes), saying so, instead of failing at once.
lock_wait=${LOCK_WAIT:-1200}
lock_poll=${LOCK_POLL:-5}
apt_opts=(-o "DPkg::Lock::Timeout=$lock_wait" -o APT::Color=0)
updated=0
apt_install() { # PKG...: apt-get update (once) and install, with progress
    [ $# -gt 0 ] || return 0
    if [ -n "$SUDO" ] && ! command -v sudo >/dev/null; then
        echo "deps.sh: need root (or sudo) to install: $*" >&2
        exit 1
    fi
    echo "deps.sh: installing $* (apt-get; it waits up to ${lock_wait}s for another apt or dpkg to finish)" >&2
    if [ "$updated" = 0 ]; then
        apt_quiet update
        updated=1
    fi
    apt_quiet install -y --no-install-recommends "$@"
}
# apt-get with its progress shown as one line per step ("Get:", "Unpacking",
# "Setting up"), and its whole output when it fails.  apt-get waits for the
# dpkg lock by itself (DPkg::Lock::Timeout) but not for the package lists'
# or the archives' lock (apt-get update, downloads): while one of those is
# held it is run again every LOCK_POLL s (5), saying who holds it, up to
# LOCK_WAIT s.
apt_quiet() {
    local log rc waited=0 holder t0=$SECONDS
    log=$(mktemp "${TMPDIR:-/tmp}/mbench-deps.XXXXXX")
    while :; do
        set +e
        $SUDO apt-get "${apt_opts[@]}" "$@" 2>&1 | tee "$log" |
            grep --line-buffered -E '^(Get:[0-9]+|Unpacking|Setting up|Waiting for cache lock)' |
            sed -u -e 's/^/deps.sh:   /' -e 's/ \[[0-9.]* [kMG]B\]$//' | cut -c1-120 >&2
        rc=${PIPESTATUS[0]}
        set -e
        [ "$rc" -ne 0 ] && grep -q 'Could not get lock' "$log" && [ "$waited" -lt "$lock_wait" ] || break
        holder=$(grep -o 'held by process [0-9]* ([^)]*)' "$log" | head -n1)
        echo "deps.sh:   waiting for another apt or dpkg (${holder:-a lock is held}), ${waited}s of ${lock_wait}s" >&2
        sleep "$lock_poll"
        waited=$((SECONDS - t0))
    done
    if [ "$rc" -ne 0 ]; then
        echo "deps.sh: error: 'apt-get $*' failed (exit $rc); its output:" >&2
        tail -n 30 "$log" | sed -e 's/^/  apt: /' >&2
        if grep -q 'Could not get lock' "$log"; then
            echo "deps.sh: another apt or dpkg held the lock for over ${lock_wait}s; wait for it (ps -C apt-get,apt,dpkg,unattended-upgr) or set LOCK_WAIT" >&2
        fi
        rm -f "$log"
        exit 1
    fi
    rm -f "$log"
}

# ONNX Runtime first: fetching it is what most often fails (a proxy, TLS),
# so that it fails before minutes of other installs and a build.
if [ "$need_ort" = 1 ]; then
    if ! command -v npm >/dev/null 2>&1; then
        apt_install $(missing_of npm ca-certificates)
    fi
    "$root/scripts/fetch-ort.sh" "${ORT_DIR:-$root/build/ort}"
fi

mapfile -t missing < <(missing_of "${pkgs[@]}")
apt_install "${missing[@]}"
