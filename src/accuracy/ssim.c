/* ssim.c - structural similarity (Wang et al. 2004) per image or volume.
 *
 * Definition (the one scikit-image's structural_similarity computes with
 * gaussian_weights=True, sigma=1.5, use_sample_covariance=False and
 * data_range R; see docs/ACCURACY.md):
 *   g   = 11-tap Gaussian, g[k] ~ exp(-(k-5)^2 / (2 * 1.5^2)), sum 1;
 *   ux  = G*x, uy = G*y, uxx = G*(x*x), uyy = G*(y*y), uxy = G*(x*y),
 *         with G the separable filter g along every image axis;
 *   vx  = uxx - ux^2, vy = uyy - uy^2, vxy = uxy - ux*uy;
 *   S   = (2 ux uy + C1)(2 vxy + C2) / ((ux^2 + uy^2 + C1)(vx + vy + C2)),
 *         where only vx + vy enters, so uxx + uyy = G*(x*x + y*y) is one
 *         plane: four filtered planes, not five;
 *         C1 = (0.01 R)^2, C2 = (0.03 R)^2;
 *   SSIM = mean of S over the pixels at least 5 from every border.
 * Those pixels' windows lie wholly inside the image, so the border mode of
 * the filter (scikit-image reflects) never reaches the mean: only the
 * valid interior is computed here.
 *
 * 2-D work items are tiles of (image, band of BAND output rows, TILE_W
 * output columns).  A tile streams its input rows once: each row is
 * filtered horizontally into a ring of the last 11 rows of the four
 * planes, and every new row completes one output row, filtered vertically
 * from the ring.  Four planes (x, y, x^2 + y^2, x y) are filtered, in
 * double, with fused multiply-adds on machines that have them.  The filter
 * folds the symmetric taps (6 multiplies for 11), and the inner loops keep
 * fixed lanes so that they vectorise without reassociation.  Memory per thread
 * is the ring (11 x 4 x TILE_W doubles) whatever the image size.  3-D items are
 * (volume, output slice): the depth filter first, then the same plane filter.
 * Each item's sum is compensated; items merge in order per image. */
#include "accuracy/ssim.h"

#include "accuracy/ksum.h"
#include "accuracy/par.h"
#include "core/alloc.h"
#include "core/err.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W_ MB_SSIM_WIN
#define R_ (MB_SSIM_WIN / 2)
#define BAND ((size_t)256) /* output rows per tile */
/* Output columns per tile: the ring of 11 rows of four planes (44 KiB)
 * stays near the core (512 columns, 176 KiB, was 1.3x slower). */
#define TILE_W ((size_t)128)
#define LANES 8
#define PLANES 4

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3", "fp-contract=fast")
#endif
/* A 4-wide copy of the filters for AVX2 + FMA machines (x86-64-v3); the
 * rounding of a fused multiply-add moves the result by ~1e-16. */
#if defined(__x86_64__) && defined(__GNUC__) &&                                \
    (!defined(__clang__) || __clang_major__ >= 14) &&                          \
    !defined(__SANITIZE_ADDRESS__)
#define SSIM_CLONES                                                            \
    __attribute__((                                                            \
        target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define SSIM_CLONES
#endif

/* A 2-D tensor much wider than tall (or taller than wide) is rows of
 * scores, such as large-vocabulary logits, not a picture. */
#define MAX_ASPECT 64

bool mb__ssim_applicable(const mb_tensor *t, int volume, size_t *n_images)
{
    int k = volume ? 3 : 2;
    *n_images = 0;
    if (t->rank < k)
        return false;
    size_t img = 1;
    for (int i = t->rank - k; i < t->rank; i++) {
        if (t->dims[i] < W_)
            return false;
        img *= (size_t)t->dims[i];
    }
    if (t->rank == 2 && !volume &&
        (t->dims[1] > MAX_ASPECT * t->dims[0] ||
         t->dims[0] > MAX_ASPECT * t->dims[1]))
        return false;
    size_t count = mb_tensor_count(t);
    if (count == 0)
        return false;
    *n_images = count / img;
    return true;
}

static void gauss_weights(double g[W_])
{
    double s = 0;
    for (int k = 0; k < W_; k++) {
        double x = k - R_;
        g[k] = exp(-0.5 * x * x / (MB_SSIM_SIGMA * MB_SSIM_SIGMA));
        s += g[k];
    }
    for (int k = 0; k < W_; k++)
        g[k] /= s;
}

typedef struct ssim_job {
    const mb_tensor *a, *b;
    int volume;
    size_t D, H, W;    /* image dims (D = 1 for 2-D) */
    size_t Do, Ho, Wo; /* valid output dims (Do = 1 for 2-D) */
    size_t bands, tiles, items_per_img;
    size_t first; /* first image of this call */
    double g[W_], c1, c2;
    double **scratch;
    mb__ksum *sums; /* one per item */
} ssim_job;

/* Scratch per worker (doubles): x, y rows and four plane rows (TILE_W +
 * 10 each), the ring of 11 filtered rows of four planes and four output
 * rows (TILE_W each). */
#define SCRATCH ((2 + PLANES) * (TILE_W + W_) + (W_ * PLANES + PLANES) * TILE_W)

/* out[c] = sum_k g[k] p[c + k], the symmetric taps folded. */
SSIM_CLONES
static void hfilter(const double *g, const double *restrict p, size_t n,
                    double *restrict out)
{
    for (size_t c = 0; c < n; c++)
        out[c] = g[5] * p[c + 5] + g[0] * (p[c] + p[c + 10]) +
                 g[1] * (p[c + 1] + p[c + 9]) + g[2] * (p[c + 2] + p[c + 8]) +
                 g[3] * (p[c + 3] + p[c + 7]) + g[4] * (p[c + 4] + p[c + 6]);
}

/* out[c] = sum_k g[k] r[k][c] over 11 rows. */
SSIM_CLONES
static void vfilter(const double *g, const double *const r[W_], size_t n,
                    double *restrict out)
{
    for (size_t c = 0; c < n; c++)
        out[c] = g[5] * r[5][c] + g[0] * (r[0][c] + r[10][c]) +
                 g[1] * (r[1][c] + r[9][c]) + g[2] * (r[2][c] + r[8][c]) +
                 g[3] * (r[3][c] + r[7][c]) + g[4] * (r[4][c] + r[6][c]);
}

/* Sum of S over n output pixels from the four filtered planes: with
 * m = ux^2 + uy^2, vx + vy = G*(x^2 + y^2) - m. */
SSIM_CLONES
static double ssim_row(const double *restrict u, size_t n, size_t stride,
                       double c1, double c2)
{
    const double *ux = u, *uy = u + stride, *usq = u + 2 * stride;
    const double *uxy = u + 3 * stride;
    double acc[LANES] = {0};
    size_t full = n / LANES * LANES;
    for (size_t c = 0; c < full; c += LANES)
        for (int k = 0; k < LANES; k++) {
            size_t i = c + (size_t)k;
            double mx = ux[i], my = uy[i], m = mx * mx + my * my;
            double vxy = uxy[i] - mx * my;
            acc[k] += ((2 * mx * my + c1) * (2 * vxy + c2)) /
                      ((m + c1) * (usq[i] - m + c2));
        }
    for (size_t i = full; i < n; i++) {
        double mx = ux[i], my = uy[i], m = mx * mx + my * my;
        double vxy = uxy[i] - mx * my;
        acc[i - full] += ((2 * mx * my + c1) * (2 * vxy + c2)) /
                         ((m + c1) * (usq[i] - m + c2));
    }
    double s = 0;
    for (int k = 0; k < LANES; k++)
        s += acc[k];
    return s;
}

/* The four planes of input row `row` (of slice z0 for 3-D: the depth
 * filter over slices z0..z0+10) over columns [c0, c0 + n) into p (four
 * rows of stride TILE_W + 10); x and y are scratch. */
static void plane_rows(const ssim_job *j, size_t img, size_t z0, size_t row,
                       size_t c0, size_t n, double *x, double *y, double *p)
{
    size_t st = TILE_W + W_, plane = j->H * j->W;
    size_t base = (j->first + img) * j->D * plane;
    double *p0 = p, *p1 = p + st, *p2 = p + 2 * st, *p3 = p + 3 * st;
    if (!j->volume) {
        size_t off = base + row * j->W + c0;
        mb__tensor_load_f64(j->a, off, n, p0);
        mb__tensor_load_f64(j->b, off, n, p1);
        for (size_t c = 0; c < n; c++) {
            p2[c] = p0[c] * p0[c] + p1[c] * p1[c];
            p3[c] = p0[c] * p1[c];
        }
        return;
    }
    memset(p, 0, PLANES * st * sizeof *p);
    for (int k = 0; k < W_; k++) {
        size_t off = base + (z0 + (size_t)k) * plane + row * j->W + c0;
        mb__tensor_load_f64(j->a, off, n, x);
        mb__tensor_load_f64(j->b, off, n, y);
        double gk = j->g[k];
        for (size_t c = 0; c < n; c++) {
            p0[c] += gk * x[c];
            p1[c] += gk * y[c];
            p2[c] += gk * (x[c] * x[c] + y[c] * y[c]);
            p3[c] += gk * (x[c] * y[c]);
        }
    }
}

static void ssim_item(void *user, size_t item, int worker)
{
    ssim_job *j = user;
    size_t img = item / j->items_per_img, rest = item % j->items_per_img;
    size_t z = rest / (j->bands * j->tiles);
    rest %= j->bands * j->tiles;
    size_t band = rest / j->tiles, tile = rest % j->tiles;
    size_t r0 = band * BAND, r1 = r0 + BAND < j->Ho ? r0 + BAND : j->Ho;
    size_t c0 = tile * TILE_W, wo = j->Wo - c0 < TILE_W ? j->Wo - c0 : TILE_W;
    size_t st = TILE_W + W_;
    double *x = j->scratch[worker], *y = x + st, *p = y + st;
    double *ring = p + PLANES * st, *u = ring + (size_t)W_ * PLANES * TILE_W;
    mb__ksum sum = {0, 0};
    for (size_t r = r0; r < r1 + (W_ - 1); r++) {
        plane_rows(j, img, z, r, c0, wo + (W_ - 1), x, y, p);
        size_t slot = (r - r0) % W_;
        for (int q = 0; q < PLANES; q++)
            hfilter(j->g, p + (size_t)q * st, wo,
                    ring + (slot * PLANES + (size_t)q) * TILE_W);
        if (r - r0 < (size_t)(W_ - 1))
            continue;
        /* output row r - 10: ring rows in input order */
        for (int q = 0; q < PLANES; q++) {
            const double *rows[W_];
            for (int k = 0; k < W_; k++) {
                size_t sl = (r - r0 + 1 + (size_t)k) % W_;
                rows[k] = ring + (sl * PLANES + (size_t)q) * TILE_W;
            }
            vfilter(j->g, rows, wo, u + (size_t)q * TILE_W);
        }
        mb__ksum_add(&sum, ssim_row(u, wo, TILE_W, j->c1, j->c2));
    }
    j->sums[item] = sum;
}

mb_status mb__ssim_images(const mb_tensor *a, const mb_tensor *b, int volume,
                          double data_range, int threads, size_t first,
                          double *per_image, size_t n_images, mb_err *err)
{
    size_t n_img = 0;
    if (!mb__ssim_applicable(a, volume, &n_img) ||
        !mb__ssim_applicable(b, volume, &n_img))
        return mb__fail(err, MB_EUNSUPPORTED,
                        "SSIM needs %s of at least %d in every dimension",
                        volume ? "3-D volumes" : "2-D images", W_);
    if (first > n_img || n_images > n_img - first)
        return mb__fail(err, MB_EINVAL, "SSIM: images %zu..%zu of %zu", first,
                        first + n_images, n_img);
    if (n_images == 0)
        return MB_OK;
    ssim_job j;
    memset(&j, 0, sizeof j);
    j.a = a;
    j.b = b;
    j.volume = volume;
    j.first = first;
    int r = a->rank;
    j.W = (size_t)a->dims[r - 1];
    j.H = (size_t)a->dims[r - 2];
    j.D = volume ? (size_t)a->dims[r - 3] : 1;
    j.Wo = j.W - (W_ - 1);
    j.Ho = j.H - (W_ - 1);
    j.Do = volume ? j.D - (W_ - 1) : 1;
    j.bands = (j.Ho + BAND - 1) / BAND;
    j.tiles = (j.Wo + TILE_W - 1) / TILE_W;
    j.items_per_img = j.Do * j.bands * j.tiles;
    gauss_weights(j.g);
    j.c1 = (MB_SSIM_K1 * data_range) * (MB_SSIM_K1 * data_range);
    j.c2 = (MB_SSIM_K2 * data_range) * (MB_SSIM_K2 * data_range);
    size_t n_items = n_images * j.items_per_img;
    if (threads <= 0)
        threads = mb__par_cpus();
    if ((size_t)threads > n_items)
        threads = (int)n_items;
    j.scratch = mb__calloc((size_t)threads, sizeof *j.scratch);
    j.sums = mb__calloc(n_items, sizeof *j.sums);
    int ok = j.scratch && j.sums;
    for (int t = 0; ok && t < threads; t++)
        ok = (j.scratch[t] = mb__calloc(SCRATCH, sizeof(double))) != NULL;
    if (ok)
        mb__par_for(n_items, threads, ssim_item, &j);
    if (j.scratch)
        for (int t = 0; t < threads; t++)
            free(j.scratch[t]);
    free(j.scratch);
    if (!ok) {
        free(j.sums);
        return mb__fail(err, MB_ENOMEM, "out of memory for SSIM scratch");
    }
    double pixels = (double)j.Do * (double)j.Ho * (double)j.Wo;
    for (size_t i = 0; i < n_images; i++) {
        mb__ksum s = {0, 0};
        for (size_t k = 0; k < j.items_per_img; k++)
            mb__ksum_merge(&s, &j.sums[i * j.items_per_img + k]);
        per_image[i] = mb__ksum_get(&s) / pixels;
    }
    free(j.sums);
    return MB_OK;
}
