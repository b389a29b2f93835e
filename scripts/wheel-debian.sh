#!/usr/bin/env bash
# Proves that the manylinux wheel (scripts/wheel-manylinux.sh) installs and
# runs on a bare Debian 12: a debootstrap root (variant minbase) gets only
# python3 and python3-venv from apt (no -dev or lib packages), then in a
# chroot: a venv, `pip install` of the wheel (numpy, its dependency, and
# pytest from PyPI), `mbench run` of an ONNX model, a numpy Python model
# (the bundled libpython), and the pytest gate of docs/FRAMEWORKS.md in
# both forms (an interleaved compare at 5%, a stored baseline at 20%).
#
#   scripts/wheel-debian.sh WHEEL [ROOT_DIR]   (default /var/tmp/mbench-wheel-root)
#
# Needs root, debootstrap (scripts/deps.sh wheel) and the network (a Debian
# mirror, PyPI).  REUSE=1 reuses a bootstrapped root (the apt step then
# still installs only python3 and python3-venv).  The output goes to
# ROOT_DIR.log (docs/logs/wheel-debian12.log is one such log).
set -euo pipefail
whl=$(readlink -f "${1:?usage: scripts/wheel-debian.sh WHEEL [ROOT_DIR]}")
root_dir=${2:-/var/tmp/mbench-wheel-root}
mirror=${MIRROR:-http://deb.debian.org/debian}
repo=$(cd "$(dirname "$0")/.." && pwd)
log=${LOG:-$root_dir.log}
[ "$(id -u)" -eq 0 ] || { echo "wheel-debian: needs root (debootstrap, chroot, mount)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "wheel-debian: debootstrap not found: scripts/deps.sh wheel" >&2; exit 2; }

say() { printf '[wheel-debian %s] %s\n' "$(date -u +%H:%M:%S)" "$*" | tee -a "$log" >&2; }
mounted=()
cleanup() {
    local i
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
bind() {
    mkdir -p "$2"
    mount "${@:3}" "$1" "$2"
    mounted+=("$2")
}
in_root() { # a command in the chroot, logged with its output
    say "\$ $*"
    chroot "$root_dir" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin \
        LANG=C.UTF-8 "$@" 2>&1 | tee -a "$log"
    return "${PIPESTATUS[0]}"
}

: >"$log"
if [ "${REUSE:-0}" = 1 ] && [ -x "$root_dir/usr/bin/apt-get" ]; then
    say "reusing the debootstrap root $root_dir"
else
    rm -rf --one-file-system "$root_dir"
    say "debootstrap --variant=minbase bookworm $root_dir $mirror"
    debootstrap --variant=minbase bookworm "$root_dir" "$mirror" >>"$log" 2>&1
fi
cat >"$root_dir/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb ${MIRROR_SECURITY:-http://deb.debian.org/debian-security} bookworm-security main
EOF
cp /etc/resolv.conf "$root_dir/etc/resolv.conf"
for crt in /usr/local/share/ca-certificates/*.crt; do  # a TLS proxy's CAs
    [ -f "$crt" ] || continue
    mkdir -p "$root_dir/usr/local/share/ca-certificates"
    cp "$crt" "$root_dir/usr/local/share/ca-certificates/"
done
bind proc "$root_dir/proc" -t proc
bind sysfs "$root_dir/sys" -t sysfs
bind /dev "$root_dir/dev" --rbind
bind tmpfs "$root_dir/tmp" -t tmpfs -o mode=1777

say "host: $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg); wheel $(basename "$whl") ($(stat -c %s "$whl") bytes), mbench commit $(git -C "$repo" rev-parse --short HEAD)"
in_root apt-get update -q
in_root apt-get install -y -q --no-install-recommends python3 python3-venv ca-certificates
[ -n "$(ls "$root_dir"/usr/local/share/ca-certificates/*.crt 2>/dev/null)" ] && in_root update-ca-certificates >/dev/null
say "-dev packages and shared libpython in the root: $(chroot "$root_dir" dpkg-query -W -f '${Package}\n' | grep -E -- '-dev$|^libpython3[.0-9]*$' | tr '\n' ' ')(none expected)"
in_root sh -c 'ldd --version | head -1'

w=$root_dir/root/w
rm -rf "$w" && mkdir -p "$w"
cp "$whl" "$w/"
cp "$repo/models/digits_fp32.onnx" "$w/digits.onnx"
cat >"$w/m.py" <<'EOF'
import numpy as np
def make():
    w = np.random.default_rng(0).standard_normal((64, 10)).astype(np.float32)
    def f(x):
        y = x @ w
        return y, {"score": y.max(axis=1)}
    return f
EOF
cat >"$w/test_gate.py" <<'EOF'
import mbench
MODEL = "/root/w/digits.onnx"

def test_paired(mbench_gate):
    mbench_gate.compare(MODEL, MODEL, max_regression="p50=5%", batch=8, threads=1,
                        processes=40)

def test_stored(mbench_gate):
    res = mbench.run(MODEL, batch_sizes=[8], threads=1, processes=40)
    mbench_gate(res, "baselines/digits.json", max_regression="p50=20%")
EOF
rc=0
rm -rf "$root_dir/root/venv" "$w/baselines"
in_root python3 -m venv /root/venv || rc=1
in_root /root/venv/bin/pip install -q --disable-pip-version-check "/root/w/$(basename "$whl")" pytest || rc=1
in_root /root/venv/bin/pip list --disable-pip-version-check || rc=1
in_root /root/venv/bin/mbench version || rc=1
in_root /root/venv/bin/mbench run /root/w/digits.onnx --batch 1,8 --threads 1 --processes 5 --min-time 0.3s || rc=1
in_root /root/venv/bin/mbench run /root/w/m.py:make --shape x=1,64 --threads 1 --processes 3 --min-time 0.2s || rc=1
in_root /root/venv/bin/python -c 'import mbench; r = mbench.run("/root/w/digits.onnx", processes=3, threads=1); print("mbench.run from Python:", r["runs"][0]["status"], r["runs"][0]["latency"]["median"], "ns")' || rc=1
# the gate: the stored form records its baseline first (skipped), then gates
for i in 1 2; do
    in_root sh -c "cd /root/w && /root/venv/bin/python -m pytest -q -rs test_gate.py" || rc=1
done
say "done: exit $rc"
exit $rc
