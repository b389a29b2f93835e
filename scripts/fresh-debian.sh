#!/usr/bin/env bash
# Proves the README's promise on a bare machine: builds a minimal Debian 12
# root filesystem with debootstrap (variant minbase: no make, no git, no
# compiler, empty apt lists), puts a clone of this repository in it and runs
# the commands of the README's first code block, in order, in a chroot,
# as a new user would type them.  The last one must end with a passing
# `make test` ("N passed, 0 failed").
#
#   scripts/fresh-debian.sh [ROOT_DIR]      (default /var/tmp/mbench-debian12)
#
# Needs root and debootstrap (apt-get install debootstrap) and the network
# (a Debian mirror, MIRROR=..., and the npm registry for ONNX Runtime).
# Takes 20-40 minutes; not part of `make test`.  The full output goes to
# ROOT_DIR.log, its essential lines to ROOT_DIR.log.summary; KEEP_ROOT=1
# keeps the root filesystem afterwards, REUSE=1 reuses a previously
# bootstrapped one (only the debootstrap step is skipped: the repository is
# cloned afresh).  LOCK_HOLD=SECONDS makes another process hold the dpkg
# and apt locks of the root (as a fresh VM's unattended-upgrades does) for
# that long from the start of the first `make` command; STOP_AFTER=CMD
# stops after the README command CMD (scripts/lock-demo.sh uses both).
# The log names the commit.  Exit status: that of the first failing README
# command, 0 when all passed.
set -euo pipefail
root_dir=${1:-/var/tmp/mbench-debian12}
mirror=${MIRROR:-http://deb.debian.org/debian}
repo=$(cd "$(dirname "$0")/.." && pwd)
log=${LOG:-$root_dir.log}

[ "$(id -u)" -eq 0 ] || { echo "fresh-debian: needs root (debootstrap, chroot, mount)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "fresh-debian: debootstrap not found: apt-get install debootstrap" >&2; exit 2; }
command -v git >/dev/null || { echo "fresh-debian: git not found (used to clone the repository)" >&2; exit 2; }

say() { printf '[fresh-debian %s] %s\n' "$(date -u +%H:%M:%S)" "$*" | tee -a "$log" >&2; }

mounted=()
cleanup() {
    local i
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null || true; done
    if [ "${KEEP_ROOT:-0}" != 1 ] && [ -d "$root_dir" ]; then rm -rf --one-file-system "$root_dir"; fi
}
trap cleanup EXIT
bind() { # src dst [options...]: mount, remembered for cleanup
    local dst=$2
    mkdir -p "$dst"
    mount "${@:3}" "$1" "$dst"
    mounted+=("$dst")
}

: >"$log"
fresh=1
if [ "${REUSE:-0}" = 1 ] && [ -x "$root_dir/usr/bin/apt-get" ]; then
    say "reusing $root_dir (not a bare machine any more)"
    fresh=0
else
    # Nothing may still be mounted there (an interrupted earlier run).
    { findmnt -R -n -o TARGET "$root_dir" 2>/dev/null || true; } | sort -r | xargs -r -n1 umount -l
    rm -rf --one-file-system "$root_dir"
    say "debootstrap --variant=minbase bookworm $root_dir $mirror"
    debootstrap --variant=minbase bookworm "$root_dir" "$mirror" >>"$log" 2>&1
fi
# What a Debian 12 machine has: the release and security suites.
cat >"$root_dir/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb ${MIRROR_SECURITY:-http://deb.debian.org/debian-security} bookworm-security main
EOF
cp /etc/resolv.conf "$root_dir/etc/resolv.conf"
# A bare machine: no toolchain, no git, no npm.
for t in make git gcc cc npm; do
    [ "$fresh" = 1 ] || break
    if chroot "$root_dir" /usr/bin/env PATH=/usr/sbin:/usr/bin:/sbin:/bin sh -c "command -v $t" >/dev/null 2>&1; then
        say "unexpected: $t is already in the root filesystem"; exit 2
    fi
done

# This network's own certificate authorities (a TLS-intercepting proxy):
# a machine on it has them too, so they are copied in (and become part of
# /etc/ssl/certs when the README's apt-get installs ca-certificates), and
# node is told to trust that bundle as the host's npm does.  Without site
# CAs on the host nothing is copied and nothing is set.
site_ca=()
for crt in /usr/local/share/ca-certificates/*.crt; do
    [ -f "$crt" ] || continue
    mkdir -p "$root_dir/usr/local/share/ca-certificates"
    cp "$crt" "$root_dir/usr/local/share/ca-certificates/"
    site_ca=(NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt)
done
[ ${#site_ca[@]} -eq 0 ] || say "site CAs copied in: $(cd /usr/local/share/ca-certificates && ls -- *.crt | tr '\n' ' ')(${site_ca[*]})"

# The root a mount point of its own, private, as in a container: tests that
# make a private mount namespace (tests/integration/install.sh) need "/" to
# be a mount point, and nothing mounted inside may propagate out.
bind "$root_dir" "$root_dir" --bind
mount --make-private "$root_dir"
bind proc "$root_dir/proc" -t proc
bind sysfs "$root_dir/sys" -t sysfs
bind /dev "$root_dir/dev" --rbind
bind tmpfs "$root_dir/dev/shm" -t tmpfs
bind tmpfs "$root_dir/tmp" -t tmpfs -o mode=1777

# The repository as a user gets it: a clone (only committed files).
rm -rf "$root_dir/root/mbench"
git clone -q --no-local "$repo" "$root_dir/root/mbench"
dirty=$(git -C "$repo" status --porcelain --untracked-files=no | head -c1)
say "cloned commit $(git -C "$repo" rev-parse HEAD) ($(git -C "$repo" log -1 --format='%cd, %s' --date=short | cut -c1-80)) into /root/mbench${dirty:+; the repository has uncommitted changes, which are not in the clone}"

# The README's first code block, one command per line, comments stripped.
mapfile -t cmds < <(awk '/^```sh$/ && !seen { inblk = 1; seen = 1; next }
                         inblk && /^```/ { exit }
                         inblk { sub(/[ \t]+#.*$/, ""); if ($0 != "") print }' "$repo/README.md")
[ ${#cmds[@]} -gt 0 ] || { say "no sh code block at the top of README.md"; exit 2; }

# Another process holding the locks of the root's dpkg and apt: POSIX
# locks (as apt and dpkg take them) on the root's lock files, from the
# host.  Returns once they are held; the holder lets go after $1 seconds.
hold_locks() {
    exec {lockfd}< <(/usr/bin/python3 - "$root_dir" "$1" <<'PY'
import fcntl, os, sys, time
root, secs = sys.argv[1], float(sys.argv[2])
fds = []
for p in ("var/lib/dpkg/lock-frontend", "var/lib/dpkg/lock",
          "var/lib/apt/lists/lock", "var/cache/apt/archives/lock"):
    path = os.path.join(root, p)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o640)
    fcntl.lockf(fd, fcntl.LOCK_EX)
    fds.append(fd)
print(os.getpid(), flush=True)
time.sleep(secs)
PY
)
    read -r lock_pid <&"$lockfd"
    say "process $lock_pid (python3) holds the dpkg and apt locks of the root for $1 s"
}

rc=0
held=0
for c in "${cmds[@]}"; do
    if [ -n "${LOCK_HOLD:-}" ] && [ "$held" = 0 ] && [[ "$c" == make* ]]; then
        hold_locks "$LOCK_HOLD"
        held=1
    fi
    say "\$ $c"
    start=$(date +%s)
    set +e
    chroot "$root_dir" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 "${site_ca[@]}" \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        /bin/bash -c "cd /root/mbench && $c" >>"$log" 2>&1
    rc=$?
    set -e
    say "  exit $rc after $(( $(date +%s) - start )) s"
    [ "$rc" -eq 0 ] || break
    if [ -n "${STOP_AFTER:-}" ] && [ "$c" = "$STOP_AFTER" ]; then
        stopped=$c
        break
    fi
done
if [ "$rc" -eq 0 ] && [ -n "${stopped:-}" ]; then
    say "the README commands up to '$stopped' passed (STOP_AFTER: the rest not run)"
elif [ "$rc" -eq 0 ]; then
    summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n1)
    say "all README commands passed; make test: ${summary:-no summary line}"
else
    say "FAILED (exit $rc); the full output is in $log"
fi
# The essential lines (docs/logs/fresh-debian12.log is such a summary).
grep -E '^\[fresh-debian|^deps\.sh:( installing|   waiting| error)|^fetch-ort:|^  npm:|^(ok|FAIL) +[a-z_0-9]+ +[0-9]+ passed|^    (not ok|#)|^[0-9]+ passed, [0-9]+ failed|^failed:|^make(\[[0-9]\])?: \*\*\*|^Reports:' \
    "$log" | cut -c1-240 >"$log.summary" || true
exit "$rc"
