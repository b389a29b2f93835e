#!/usr/bin/env bash
# Fetch ONNX Runtime 1.30.0 (the shared library only) from the npm package
# onnxruntime-node and verify its sha256.  Idempotent: does nothing when the
# verified file is already in place.  Leaves nothing in npm's cache.
#
# Usage: scripts/fetch-ort.sh [DEST_DIR]   (default: build/ort)
set -euo pipefail

VERSION=1.30.0
MEMBER=package/bin/napi-v6/linux/x64/libonnxruntime.so.1
SHA256=ffb75a925ba05e47b235bb66e3e3911714a80b328a9c9425539feb204aa32a23
DEST_DIR=${1:-build/ort}
DEST=$DEST_DIR/libonnxruntime.so.1

verify() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$SHA256" ]; }

if verify "$DEST"; then
    exit 0
fi
command -v npm >/dev/null || { echo "fetch-ort: npm not found; install it with 'apt-get install npm'" >&2; exit 1; }

mkdir -p "$DEST_DIR"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mbench-ort.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "fetch-ort: downloading onnxruntime-node@$VERSION from npm" >&2
# A private, throw-away cache: the 100+ MB tarball must not stay in ~/.npm.
npm pack "onnxruntime-node@$VERSION" --silent --cache "$tmp/cache" \
    --pack-destination "$tmp" >/dev/null
tgz=$(ls "$tmp"/onnxruntime-node-*.tgz)
tar -xzf "$tgz" -C "$tmp" "$MEMBER"
rm -f "$tgz"

if ! verify "$tmp/$MEMBER"; then
    echo "fetch-ort: sha256 of $MEMBER is $(sha256sum "$tmp/$MEMBER" | cut -d' ' -f1), expected $SHA256; refusing it" >&2
    exit 1
fi
chmod 0644 "$tmp/$MEMBER"
mv -f "$tmp/$MEMBER" "$DEST.tmp.$$"
mv -f "$DEST.tmp.$$" "$DEST"
echo "fetch-ort: verified $DEST" >&2
