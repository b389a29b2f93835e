#!/usr/bin/env bash
# Python environments for framework variants and peer tools, one venv each:
#   scripts/frameworks.sh [NAME...]      (make frameworks: all of them)
#
#   torch     Debian's python3-torch 1.13 and python3-torchvision 0.14 (with
#             Debian's numpy 1): a venv of /usr/bin/python3 with the system
#             site-packages, nothing from PyPI.
#   jax       jax, jaxlib (CPU) and flax from PyPI (numpy 2): a plain venv of
#             /usr/bin/python3, so numpy 2 never meets Debian's torch.
#   openvino  openvino from PyPI (its C library, benchmark_app).
#   peers     the tools mbench is measured against (make bench-peers):
#             onnxruntime (Python), pyperf, pytest-benchmark, mlcommons-loadgen,
#             scikit-image, numpy.
#
# Each venv lives in $MBENCH_FRAMEWORKS_DIR/NAME (default build/frameworks/
# NAME), is made once (a stamp file records the pinned requirements it was
# made from; a changed pin remakes it) and needs no network afterwards.
# Every venv uses Debian's /usr/bin/python3 (3.11): the one interpreter a
# bare Debian 12 has, whose libpython3.11 the python backend embeds.
# scripts/deps.sh frameworks installs the Debian packages this needs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${MBENCH_FRAMEWORKS_DIR:-$root/build/frameworks}
py=${MBENCH_BASE_PYTHON:-/usr/bin/python3}
all=(torch jax openvino peers)
[ $# -eq 0 ] && set -- "${all[@]}"

# Pinned so that a result names what produced it; change a pin here and the
# venv is made again.
reqs_jax=(jax==0.10.2 jaxlib==0.10.2 flax==0.12.8 numpy==2.4.6)
reqs_openvino=(openvino==2026.4.1 numpy==2.4.6)
reqs_peers=(onnxruntime==1.32.0 pyperf==2.11.0 pytest==9.2.0 pytest-benchmark==5.3.1
            mlcommons-loadgen==6.0.17 scikit-image==0.26.0 numpy==2.4.6)

"$root/scripts/deps.sh" frameworks

make_env() { # name, system-site-packages (0/1), requirements...
    local name=$1 sys=$2; shift 2
    local env="$dir/$name" stamp want
    stamp="$env/.mbench-stamp"
    want="$(printf '%s\n' "python=$("$py" -c 'import sys; print(sys.version.split()[0])')" "system=$sys" "$@")"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$env/bin/python" ]; then
        echo "frameworks: $name ready ($env)"
        return 0
    fi
    echo "frameworks: making $name in $env" >&2
    rm -rf "$env"
    mkdir -p "$dir"
    local flags=()
    [ "$sys" = 1 ] && flags+=(--system-site-packages)
    "$py" -m venv "${flags[@]}" "$env"
    if [ $# -gt 0 ]; then
        "$env/bin/python" -m pip install --disable-pip-version-check --progress-bar off -q "$@" || {
            echo "frameworks: pip could not install $* into $env; is PyPI reachable (proxy, certificates)?" >&2
            return 1
        }
    fi
    printf '%s\n' "$want" >"$stamp"
    echo "frameworks: $name ready ($env)"
}

for name in "$@"; do
    case "$name" in
        torch)
            make_env torch 1
            "$dir/torch/bin/python" -c 'import torch, torchvision' || {
                echo "frameworks: torch/torchvision do not import in $dir/torch (scripts/deps.sh frameworks installs python3-torch python3-torchvision)" >&2
                exit 1
            } ;;
        jax) make_env jax 0 "${reqs_jax[@]}" ;;
        openvino) make_env openvino 0 "${reqs_openvino[@]}" ;;
        peers) make_env peers 0 "${reqs_peers[@]}" ;;
        *) echo "frameworks.sh: unknown environment '$name' (use: ${all[*]})" >&2; exit 2 ;;
    esac
done
