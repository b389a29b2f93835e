#!/usr/bin/env bash
# The README's promise on a fresh machine whose apt is busy: in a fresh
# debootstrap root (scripts/fresh-debian.sh), after the README's first line,
# another process holds the root's dpkg and apt locks for LOCK_HOLD seconds
# (default 60; as unattended-upgrades does on a fresh cloud VM) from the
# moment `make demo` starts, and `make demo` on the fresh clone must still
# succeed: scripts/deps.sh waits for the locks and says so.  The host's own
# apt and dpkg locks are never touched.
#
#   scripts/lock-demo.sh [ROOT_DIR]     (default /var/tmp/mbench-lock-demo)
#
# Needs root, debootstrap and the network, like fresh-debian.sh; takes
# 15-40 minutes.  Exit 0 when make demo succeeded after waiting for the
# lock; the log is ROOT_DIR.log (its summary ROOT_DIR.log.summary).
set -euo pipefail
root_dir=${1:-/var/tmp/mbench-lock-demo}
hold=${LOCK_HOLD:-60}
here=$(cd "$(dirname "$0")" && pwd)
log=${LOG:-$root_dir.log}
set +e
LOCK_HOLD=$hold STOP_AFTER="make demo" LOG=$log "$here/fresh-debian.sh" "$root_dir"
rc=$?
set -e
fail() { echo "lock-demo: FAILED: $*" >&2; exit 1; }
[ "$rc" -eq 0 ] || fail "fresh-debian.sh exited $rc (see $log)"
grep -q "holds the dpkg and apt locks of the root for $hold s" "$log" || fail "the locks were not held (see $log)"
grep -q "^\[fresh-debian.*\\\$ make demo" "$log" || fail "make demo did not run (see $log)"
waits=$(grep -cE 'deps\.sh:   waiting for another apt|Waiting for cache lock' "$log" || true)
[ "$waits" -gt 0 ] || fail "make demo never waited for the lock: it did not meet it (see $log)"
secs=$(awk '/^\[fresh-debian.*\$ make demo$/ { on = 1; next }
            on && /^\[fresh-debian.*  exit 0 after [0-9]+ s/ { print $(NF - 1); exit }' "$log")
[ "${secs:-0}" -ge "$hold" ] || fail "make demo took ${secs:-?} s, less than the $hold s the lock was held"
echo "lock-demo: make demo succeeded in $secs s on a fresh clone while another process held the dpkg and apt locks for $hold s ($waits waiting lines; log $log)" | tee -a "$log.summary"
