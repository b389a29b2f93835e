#!/usr/bin/env bash
# Renders an mbench HTML report to a PNG with headless Debian chromium
# (no network: file:// only, background networking off).
#   scripts/screenshot.sh REPORT.html OUT.png [WIDTHxHEIGHT] [light|dark]
# The default size is 1280x2000; the PNG is reduced to a 256-colour palette
# when python3-pil is installed, so it stays small enough for the README.
set -eu
html=${1:?usage: scripts/screenshot.sh REPORT.html OUT.png [WIDTHxHEIGHT] [light|dark]}
png=${2:?usage: scripts/screenshot.sh REPORT.html OUT.png [WIDTHxHEIGHT] [light|dark]}
size=${3:-1280x2000}
scheme=${4:-light}
chromium=${CHROMIUM:-/usr/bin/chromium}
[ -x "$chromium" ] || { echo "screenshot.sh: chromium not found at $chromium (apt-get install chromium)" >&2; exit 3; }
[ -f "$html" ] || { echo "screenshot.sh: no such file: $html" >&2; exit 2; }
prof=$(mktemp -d)
trap 'rm -rf "$prof"' EXIT
abs=$(cd "$(dirname "$html")" && pwd)/$(basename "$html")
out=$(cd "$(dirname "$png")" && pwd)/$(basename "$png")
extra=()
[ "$scheme" = dark ] && extra+=(--force-dark-mode --blink-settings=preferredColorScheme=0)
timeout 60 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --disable-extensions --hide-scrollbars --user-data-dir="$prof" \
    --window-size="${size/x/,}" "${extra[@]}" --screenshot="$out" "file://$abs" 2>/dev/null >/dev/null
[ -s "$out" ] || { echo "screenshot.sh: chromium wrote no PNG" >&2; exit 3; }
if /usr/bin/python3 -c 'import PIL' 2>/dev/null; then
    /usr/bin/python3 - "$out" <<'PY'
import sys
from PIL import Image
p = sys.argv[1]
Image.open(p).convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(p, optimize=True)
PY
fi
echo "$out: $(wc -c < "$out") bytes"
