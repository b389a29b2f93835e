#!/usr/bin/env bash
# exec_path.sh - mbench exec finds a command in PATH the way a shell does:
# a directory it may not search is skipped, a file that is not executable
# is passed over for a later executable one, and only when nothing is
# found is it "command not found" (a file found but not executable:
# "Permission denied").  Run as a user for whom the locked directory is
# really unreadable: as root, through setpriv as nobody.
. "$(dirname "$0")/lib.sh"
as_user=()
if [ "$(id -u)" -eq 0 ]; then
    if ! command -v setpriv >/dev/null; then skip "PATH search as a non-root user" "no setpriv"; done_testing; fi
    as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
fi
# The test runs' own temporary directory is private (0700): a shared one.
W=$(mktemp -d /tmp/mbench-exec-path.XXXXXX)
trap 'chmod -R u+rwx "$W" 2>/dev/null; rm -rf "$W"' EXIT
chmod 0777 "$W"
# A copy of the binary that nobody can reach (the tree may be under /root).
cp "$MBENCH" "$W/mbench" && chmod 0755 "$W/mbench"
MBENCH="$W/mbench"
if ! "${as_user[@]}" test -x "$MBENCH"; then skip "PATH search as a non-root user" "$MBENCH is not reachable for nobody"; done_testing; fi

P="$W/path"
mkdir -p "$P/locked" "$P/noexec" "$P/bin"
printf '#!/bin/sh\necho from-locked\n' >"$P/locked/mbench-probe"
chmod 0755 "$P/locked/mbench-probe"
printf '#!/bin/sh\necho from-noexec\n' >"$P/noexec/mbench-probe"
chmod 0644 "$P/noexec/mbench-probe"
printf '#!/bin/sh\necho from-bin >"$1"\n' >"$P/bin/mbench-probe"
chmod 0755 "$P/bin/mbench-probe"
cp "$P/noexec/mbench-probe" "$P/noexec/mbench-only-noexec"
chmod 0 "$P/locked"

if "${as_user[@]}" test -r "$P/locked"; then notok "the locked directory is unreadable for the test user" "$(id)"; fi
U() { "${as_user[@]}" env PATH="$P/locked:$P/noexec:$P/bin:/usr/bin:/bin" "$@"; }

# What a shell does, as the reference.
U sh -c 'mbench-probe '"$W/sh.mark"; rc=$?
contains "a shell runs the executable after the unreadable and non-executable entries" "$rc $(cat "$W/sh.mark" 2>/dev/null)" "0 from-bin"
expect_exit "exec runs the same program" 0 U "$MBENCH" exec --runs 1 -- mbench-probe "$W/mb.mark"
contains "it is the executable one" "$(cat "$W/mb.mark" 2>/dev/null)" "from-bin"
expect_exit "exec runs true past the unreadable directory" 0 U "$MBENCH" exec --runs 1 -- true

U sh -c 'no-such-program-mbench' 2>/dev/null; shrc=$?
expect_exit "a missing command is an error" 3 U "$MBENCH" exec --runs 1 -- no-such-program-mbench
contains "a missing command is 'command not found', as the shell's exit $shrc says" "$LAST_ERR" "command not found: 'no-such-program-mbench'"
one_line "command not found is one line" "$LAST_ERR"

U sh -c 'mbench-only-noexec' 2>/dev/null; shrc=$?
expect_exit "a command found only without execute permission is an error" 3 U "$MBENCH" exec --runs 1 -- mbench-only-noexec
contains "it is 'Permission denied', as the shell's exit $shrc says" "$LAST_ERR" "Permission denied"
one_line "permission denied is one line" "$LAST_ERR"
chmod 0755 "$P/locked"
done_testing
