#!/usr/bin/env bash
# Fetch ONNX Runtime 1.30.0 (the shared library only) from the npm package
# onnxruntime-node and verify its sha256.  Idempotent: does nothing when the
# verified file is already in place.  Leaves nothing in npm's cache.
#
# Usage: scripts/fetch-ort.sh [DEST_DIR]           (default: build/ort)
#        scripts/fetch-ort.sh --check [DEST_DIR]   exit 0 when the verified
#                                                  file is there, 1 if not
# When npm fails, its own error is shown, followed by what to check.
set -euo pipefail

VERSION=1.30.0
PKG=onnxruntime-node@$VERSION
MEMBER=package/bin/napi-v6/linux/x64/libonnxruntime.so.1
SHA256=ffb75a925ba05e47b235bb66e3e3911714a80b328a9c9425539feb204aa32a23
check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
DEST_DIR=${1:-build/ort}
DEST=$DEST_DIR/libonnxruntime.so.1

verify() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$SHA256" ]; }

if verify "$DEST"; then
    exit 0
fi
[ "$check" = 1 ] && exit 1
command -v npm >/dev/null || { echo "fetch-ort: npm not found; install it with 'apt-get install npm' (or run scripts/deps.sh)" >&2; exit 1; }

mkdir -p "$DEST_DIR"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mbench-ort.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

registry=$(npm config get registry 2>/dev/null || echo '?')
echo "fetch-ort: downloading $PKG from $registry" >&2
# A private, throw-away cache: the 100+ MB tarball must not stay in ~/.npm.
# npm's own messages go to the terminal only when it fails.
if ! npm pack "$PKG" --cache "$tmp/cache" --pack-destination "$tmp" \
        --loglevel=error >"$tmp/npm.out" 2>&1; then
    grep -vE '^npm (error|ERR!) +at |complete log of this run|/_logs/' "$tmp/npm.out" | sed -e 's/^/  npm: /' | tail -n 25 >&2
    if grep -qE 'UNABLE_TO_GET_ISSUER_CERT|SELF_SIGNED_CERT|UNABLE_TO_VERIFY_LEAF_SIGNATURE|CERT_[A-Z_]+|certificate' "$tmp/npm.out"; then
        site=$(cd /usr/local/share/ca-certificates 2>/dev/null && ls -- *.crt 2>/dev/null | tr '\n' ' ' || true)
        cat >&2 <<MSG
fetch-ort: error: npm does not trust the TLS certificate it was shown: this
  network intercepts TLS (a proxy with a certificate authority of its own).
  What works, for every node and npm version:
    cp THE-PROXY-CA.crt /usr/local/share/ca-certificates/ && update-ca-certificates
    export NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
  and the same command again (node reads NODE_EXTRA_CA_CERTS when it starts).
  NODE_EXTRA_CA_CERTS is ${NODE_EXTRA_CA_CERTS:-not set}; site CAs here: ${site:-none}.
  Or skip npm: put a libonnxruntime.so.1 ($VERSION, sha256 $SHA256)
  in $DEST_DIR/ by hand, or point MBENCH_ORT_LIB / --ort-lib at one.
MSG
        exit 1
    fi
    proxy=$(npm config get https-proxy 2>/dev/null || true)
    [ "$proxy" = null ] && proxy=
    cat >&2 <<MSG
fetch-ort: error: 'npm pack $PKG' failed (its output is above).  Check:
  - the registry: npm uses $registry (change it with
    'npm config set registry URL'); 'npm view $PKG version' must print $VERSION;
  - the proxy: npm uses https-proxy=${proxy:-none} (environment:
    HTTPS_PROXY=${HTTPS_PROXY:-${https_proxy:-unset}}); set it with 'npm config set https-proxy URL';
  - TLS: a proxy that intercepts TLS needs its CA trusted: put it in
    /usr/local/share/ca-certificates/, run update-ca-certificates and
    export NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt;
  - or skip npm: put a libonnxruntime.so.1 ($VERSION, sha256 $SHA256)
    in $DEST_DIR/ by hand, or point MBENCH_ORT_LIB / --ort-lib at one.
MSG
    exit 1
fi
tgz=$(ls "$tmp"/onnxruntime-node-*.tgz 2>/dev/null || true)
[ -n "$tgz" ] || { echo "fetch-ort: error: npm reported success but wrote no tarball into $tmp" >&2; exit 1; }
tar -xzf "$tgz" -C "$tmp" "$MEMBER" || {
    echo "fetch-ort: error: $(basename "$tgz") has no $MEMBER (a different package layout?)" >&2; exit 1; }
rm -f "$tgz"

if ! verify "$tmp/$MEMBER"; then
    echo "fetch-ort: error: sha256 of $MEMBER is $(sha256sum "$tmp/$MEMBER" | cut -d' ' -f1), expected $SHA256; refusing it (a mirror or proxy that serves a different file?)" >&2
    exit 1
fi
chmod 0644 "$tmp/$MEMBER"
mv -f "$tmp/$MEMBER" "$DEST.tmp.$$"
mv -f "$DEST.tmp.$$" "$DEST"
echo "fetch-ort: verified $DEST" >&2
