#!/usr/bin/env bash
# fetch_ort.sh - scripts/fetch-ort.sh: --check tells whether the verified
# library is in place; a failing npm shows npm's own error and what to
# check (registry, proxy, TLS, sha256) instead of a bare "Error 1"; and
# scripts/deps.sh asks for npm only when ONNX Runtime must be fetched.
. "$(dirname "$0")/lib.sh"
F="$MBENCH_ROOT/scripts/fetch-ort.sh"
ORT_DIR="$MBENCH_ROOT/build/ort"
if [ -f "$ORT_DIR/libonnxruntime.so.1" ]; then
    expect_exit "--check passes for the verified library in build/ort" 0 "$F" --check "$ORT_DIR"
else skip "--check passes for the verified library" "no build/ort"; fi
expect_exit "--check fails for an empty directory" 1 "$F" --check "$T_TMP/empty"
echo "not a library" >"$T_TMP/libonnxruntime.so.1"
expect_exit "--check fails for a file with another sha256" 1 "$F" --check "$T_TMP"
if command -v npm >/dev/null; then
    # A registry that refuses connections: fails at once, no network used.
    expect_exit "a failing npm is an error" 1 env npm_config_registry=http://127.0.0.1:9/ npm_config_fetch_retries=0 "$F" "$T_TMP/dest"
    contains "npm's own error is shown" "$LAST_ERR" "npm: npm"
    contains "npm's error names the refused connection" "$LAST_ERR" "ECONNREFUSED"
    contains "it names the registry it used" "$LAST_ERR" "npm uses http://127.0.0.1:9/"
    contains "it says what to check about a proxy" "$LAST_ERR" "the proxy: npm uses https-proxy="
    contains "and how to do without npm" "$LAST_ERR" "sha256 ffb75a925ba05e47b235bb66e3e3911714a80b328a9c9425539feb204aa32a23"
    [ ! -e "$T_TMP/dest/libonnxruntime.so.1" ] && ok "nothing is left in the destination" || notok "nothing is left in the destination"
else skip "a failing npm shows its error" "npm is not installed"; fi

# deps.sh: with every package installed (a stand-in dpkg-query says so) and
# the runtime already there, nothing is installed and npm is not asked for,
# even when npm is missing from PATH.
mkdir -p "$T_TMP/fake"
printf '#!/bin/sh\n[ "$3" = npm ] && exit 1\nprintf "install ok installed"\n' >"$T_TMP/fake/dpkg-query"
printf '#!/bin/sh\necho "apt-get $*" >>"%s/apt.log"\n' "$T_TMP" >"$T_TMP/fake/apt-get"
chmod +x "$T_TMP/fake/dpkg-query" "$T_TMP/fake/apt-get"
# A PATH without npm: the tools deps.sh itself uses, linked one by one.
mkdir -p "$T_TMP/nonpm"
for t in bash sh env dirname cut sha256sum grep id cat mktemp tee sed sleep head tail rm; do ln -sf "$(command -v $t)" "$T_TMP/nonpm/$t"; done
D() { env -i PATH="$T_TMP/fake:$T_TMP/nonpm" HOME="$T_TMP" "$@" bash "$MBENCH_ROOT/scripts/deps.sh" build; }
if [ "$(id -u)" -eq 0 ]; then
    echo "x" >"$T_TMP/ort.so"
    expect_exit "deps.sh with MBENCH_ORT_LIB set installs nothing" 0 D MBENCH_ORT_LIB="$T_TMP/ort.so"
    [ ! -s "$T_TMP/apt.log" ] && ok "npm is not installed when MBENCH_ORT_LIB names a library" || notok "npm is not installed when MBENCH_ORT_LIB names a library" "$(cat "$T_TMP/apt.log")"
    if [ -f "$ORT_DIR/libonnxruntime.so.1" ]; then
        expect_exit "deps.sh with ONNX Runtime fetched installs nothing" 0 D
        [ ! -s "$T_TMP/apt.log" ] && ok "npm is not installed when build/ort is in place" || notok "npm is not installed when build/ort is in place" "$(cat "$T_TMP/apt.log")"
    fi
    # ONNX Runtime first: npm is installed and the runtime fetched before
    # anything else; when that fails (here: the stand-in apt-get installs
    # no npm), nothing else is installed.
    printf '#!/bin/sh\ncase "$3" in npm|gcc) exit 1 ;; esac\nprintf "install ok installed"\n' >"$T_TMP/fake/dpkg-query"
    : >"$T_TMP/apt.log"
    expect_exit "deps.sh without ONNX Runtime fetches it first and fails fast" 1 D ORT_DIR="$T_TMP/empty"
    contains "npm is installed when ONNX Runtime must be fetched" "$(cat "$T_TMP/apt.log" 2>/dev/null)" "install -y --no-install-recommends npm"
    if grep -q gcc "$T_TMP/apt.log"; then notok "nothing else is installed before ONNX Runtime is there" "$(cat "$T_TMP/apt.log")"; else ok "nothing else is installed before ONNX Runtime is there"; fi
    contains "the failure is fetch-ort's" "$LAST_ERR" "fetch-ort: npm not found"
    # Another apt holds the lists lock twice, then lets go: deps.sh waits
    # and says who holds it.
    printf '#!/bin/sh\necho "apt-get $*" >>"%s/apt.log"\nn=$(cat "%s/locked" 2>/dev/null || echo 0)\nif [ "$n" -lt 2 ]; then echo $((n + 1)) >"%s/locked"; echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 42 (unattended-upgr)"; exit 100; fi\n' "$T_TMP" "$T_TMP" "$T_TMP" >"$T_TMP/fake/apt-get"
    : >"$T_TMP/apt.log"
    expect_exit "deps.sh waits while another apt holds the lock" 0 D MBENCH_ORT_LIB="$T_TMP/ort.so" LOCK_POLL=0.1
    contains "it says who holds it" "$LAST_ERR" "waiting for another apt or dpkg (held by process 42 (unattended-upgr))"
    [ "$(grep -c update "$T_TMP/apt.log")" = 3 ] && ok "and tries again until the lock is free" || notok "and tries again until the lock is free" "$(cat "$T_TMP/apt.log")"
    contains "apt-get waits for the dpkg lock itself" "$(cat "$T_TMP/apt.log")" "DPkg::Lock::Timeout=1200"
    echo -1000 >"$T_TMP/locked" # held for the next thousand tries
    expect_exit "a lock held longer than LOCK_WAIT is an error" 1 D MBENCH_ORT_LIB="$T_TMP/ort.so" LOCK_POLL=0.1 LOCK_WAIT=1
    contains "that names the fix" "$LAST_ERR" "held the lock for over 1s"
else skip "deps.sh decides about npm" "apt-get needs root here"; fi
done_testing
