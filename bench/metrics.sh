#!/usr/bin/env bash
# metrics.sh - accuracy-metric speed, mbench against numpy/scikit-image on
# the same arrays in one run:
#   - every elementwise metric of 10^8 float32 pairs (GB/s of input, all
#     cores for mbench; numpy computes the same set in float64);
#   - SSIM of a 2048x2048 image and of a 64x512x512 volume (scikit-image's
#     structural_similarity, gaussian_weights=True, sigma=1.5,
#     use_sample_covariance=False, data_range given, float64).
# usage: bench/metrics.sh BUILD_DIR [N]   (N elements, default 100000000)
set -euo pipefail
build=${1:-build}
n=${2:-100000000}
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/$build/bench/metrics"
[ -x "$bin" ] || { echo "metrics.sh: build $bin first (make bench)" >&2; exit 2; }
PY=/usr/bin/python3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mbench-bench-metrics.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
$PY - "$tmp" "$n" <<'PY'
import sys, numpy as np
d, n = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(3)
a = rng.random(n, dtype=np.float32)
np.save(d + "/a.npy", a)
np.save(d + "/b.npy", a + rng.standard_normal(n, dtype=np.float32) * np.float32(1e-3))
del a
img = rng.random((2048, 2048), dtype=np.float32)
np.save(d + "/ia.npy", img)
np.save(d + "/ib.npy", img + rng.standard_normal(img.shape, dtype=np.float32) * np.float32(0.05))
vol = rng.random((64, 512, 512), dtype=np.float32)
np.save(d + "/va.npy", vol)
np.save(d + "/vb.npy", vol + rng.standard_normal(vol.shape, dtype=np.float32) * np.float32(0.05))
PY
echo "mbench ($(nproc) cores):"
"$bin" "$tmp/a.npy" "$tmp/b.npy" "$tmp/ia.npy" "$tmp/ib.npy" "$tmp/va.npy" "$tmp/vb.npy" 3 | tee "$tmp/mb.txt"
echo "numpy $($PY -c 'import numpy; print(numpy.__version__)') / scikit-image $($PY -c 'import skimage; print(skimage.__version__)'):"
$PY - "$tmp" <<'PY' | tee "$tmp/np.txt"
import sys, time, numpy as np
from skimage.metrics import structural_similarity
d = sys.argv[1]
def best(f, reps):
    t = 1e30
    for _ in range(reps):
        t0 = time.perf_counter(); v = f(); t = min(t, time.perf_counter() - t0)
    return t, v
a32, b32 = np.load(d + "/a.npy"), np.load(d + "/b.npy")
def elementwise():
    a = a32.astype(np.float64); b = b32.astype(np.float64)
    fa, fb = np.isfinite(a), np.isfinite(b); m = fa & fb
    x, y = a[m], b[m]; dd = y - x; ad = np.abs(dd)
    mae = ad.mean(); mse = (dd * dd).mean(); mx = ad.max(); ia = int(np.argmax(ad))
    na, nb = np.linalg.norm(x), np.linalg.norm(y)
    cos = np.dot(x, y) / (na * nb); rel = np.linalg.norm(dd) / na
    p = np.corrcoef(x, y)[0, 1]
    fail = int((~np.isclose(b, a)).sum())
    nans = (int(np.isnan(a).sum()), int(np.isnan(b).sum()), int(np.isinf(a).sum()), int(np.isinf(b).sum()))
    rng = x.max() - x.min(); psnr = 10 * np.log10(rng * rng / mse)
    return mae
t, v = best(elementwise, 1)
print("elementwise_%d seconds=%.4f gbps=%.3f value=%.9g" % (a32.size, t, (a32.nbytes + b32.nbytes) / 1e9 / t, v))
del a32, b32
for name, fa, fb in (("ssim_2d", "ia", "ib"), ("ssim_3d", "va", "vb")):
    x = np.load(d + "/%s.npy" % fa).astype(np.float64); y = np.load(d + "/%s.npy" % fb).astype(np.float64)
    R = float(x.max() - x.min())
    t, v = best(lambda: structural_similarity(x, y, gaussian_weights=True, sigma=1.5, use_sample_covariance=False, data_range=R), 1)
    print("%s seconds=%.4f gbps=%.3f value=%.9g" % (name, t, (x.size * 8) / 1e9 / t, v))
PY
echo "ratios (numpy or scikit-image time / mbench time; > 1 means mbench is faster):"
join <(sed 's/ .*seconds=/ /; s/ gbps.*//' "$tmp/mb.txt" | sort) \
     <(sed 's/ .*seconds=/ /; s/ gbps.*//' "$tmp/np.txt" | sort) |
    awk '{printf "  %-22s mbench %.3f s  reference %.3f s  ratio %.2fx\n", $1, $2, $3, $3/$2}'
