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
 *         C1 = (0.01 R)^2, C2 = (0.03 R)^2;
 *   SSIM = mean of S over the pixels at least 5 from every border.
 * Those pixels' windows lie wholly inside the image, so the border mode of
 * the filter (scikit-image reflects) never reaches the mean: only the
 * valid interior is computed here.
 *
 * Work items are (image, band of output rows) for 2-D and (volume, output
 * slice) for 3-D; their compensated sums merge in order per image. */
#include "accuracy/metrics.h"

#include "accuracy/ksum.h"
#include "accuracy/par.h"
#include "core/alloc.h"
#include "core/err.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W_ MB_SSIM_WIN
#define R_ (MB_SSIM_WIN / 2)
#define BAND ((size_t)32)

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
    size_t D, H, W;       /* image dims (D = 1 for 2-D) */
    size_t items_per_img; /* bands (2-D) or output slices (3-D) */
    double g[W_], c1, c2;
    double **scratch;
    mb_ksum *sums; /* one per item */
} ssim_job;

/* Scratch layout per worker (doubles): xa, xb (rows_in * W each), five
 * planes (rows_in * W each), five horizontally filtered planes
 * (rows_in * Wo each), five output rows (Wo each). */
static size_t scratch_len(size_t rows_in, size_t W)
{
    size_t wo = W - (W_ - 1);
    return 7 * rows_in * W + 5 * rows_in * wo + 5 * wo;
}

/* Filters five planes of rows_in x W (x, y, xx, yy, xy) along rows and
 * then columns and adds S of every valid output pixel to *sum. */
static void plane_ssim(const ssim_job *j, double *const pl[5], size_t rows_in,
                       double *hbuf, double *obuf, mb_ksum *sum)
{
    size_t W = j->W, wo = W - (W_ - 1), ro = rows_in - (W_ - 1);
    const double *g = j->g;
    for (int q = 0; q < 5; q++) {
        double *h = hbuf + (size_t)q * rows_in * wo;
        for (size_t r = 0; r < rows_in; r++) {
            const double *src = pl[q] + r * W;
            double *dst = h + r * wo;
            for (size_t c = 0; c < wo; c++)
                dst[c] = 0;
            for (int k = 0; k < W_; k++) {
                double gk = g[k];
                const double *s = src + k;
                for (size_t c = 0; c < wo; c++)
                    dst[c] += gk * s[c];
            }
        }
    }
    for (size_t r = 0; r < ro; r++) {
        for (int q = 0; q < 5; q++) {
            const double *h = hbuf + (size_t)q * rows_in * wo;
            double *o = obuf + (size_t)q * wo;
            for (size_t c = 0; c < wo; c++)
                o[c] = 0;
            for (int k = 0; k < W_; k++) {
                double gk = g[k];
                const double *s = h + (r + (size_t)k) * wo;
                for (size_t c = 0; c < wo; c++)
                    o[c] += gk * s[c];
            }
        }
        const double *ux = obuf, *uy = obuf + wo, *uxx = obuf + 2 * wo;
        const double *uyy = obuf + 3 * wo, *uxy = obuf + 4 * wo;
        for (size_t c = 0; c < wo; c++) {
            double vx = uxx[c] - ux[c] * ux[c];
            double vy = uyy[c] - uy[c] * uy[c];
            double vxy = uxy[c] - ux[c] * uy[c];
            double a1 = 2 * ux[c] * uy[c] + j->c1, a2 = 2 * vxy + j->c2;
            double b1 = ux[c] * ux[c] + uy[c] * uy[c] + j->c1;
            double b2 = vx + vy + j->c2;
            mb__ksum_add(sum, (a1 * a2) / (b1 * b2));
        }
    }
}

static void ssim_item(void *user, size_t item, int worker)
{
    ssim_job *j = user;
    size_t img = item / j->items_per_img, part = item % j->items_per_img;
    size_t W = j->W, plane = j->H * W, imsz = j->D * plane;
    size_t base = img * imsz;
    double *s = j->scratch[worker];
    size_t rows_in;
    if (!j->volume) {
        size_t ro = j->H - (W_ - 1);
        size_t r0 = part * BAND, r1 = r0 + BAND;
        if (r1 > ro)
            r1 = ro;
        rows_in = r1 - r0 + (W_ - 1);
        size_t n = rows_in * W;
        double *xa = s, *xb = s + n, *p = s + 2 * n;
        mb__tensor_load_f64(j->a, base + r0 * W, n, xa);
        mb__tensor_load_f64(j->b, base + r0 * W, n, xb);
        double *pl[5] = {xa, xb, p, p + n, p + 2 * n};
        for (size_t i = 0; i < n; i++) {
            pl[2][i] = xa[i] * xa[i];
            pl[3][i] = xb[i] * xb[i];
            pl[4][i] = xa[i] * xb[i];
        }
        double *hbuf = p + 5 * n;
        double *obuf = hbuf + 5 * rows_in * (W - (W_ - 1));
        plane_ssim(j, pl, rows_in, hbuf, obuf, &j->sums[item]);
        return;
    }
    /* 3-D: filter along depth first, output slice `part`. */
    rows_in = j->H;
    size_t n = plane;
    double *xa = s, *xb = s + n, *p = s + 2 * n;
    double *pl[5] = {p, p + n, p + 2 * n, p + 3 * n, p + 4 * n};
    memset(p, 0, 5 * n * sizeof *p);
    for (int k = 0; k < W_; k++) {
        size_t off = base + (part + (size_t)k) * plane;
        mb__tensor_load_f64(j->a, off, n, xa);
        mb__tensor_load_f64(j->b, off, n, xb);
        double gk = j->g[k];
        for (size_t i = 0; i < n; i++) {
            double x = xa[i], y = xb[i];
            pl[0][i] += gk * x;
            pl[1][i] += gk * y;
            pl[2][i] += gk * (x * x);
            pl[3][i] += gk * (y * y);
            pl[4][i] += gk * (x * y);
        }
    }
    double *hbuf = p + 5 * n;
    double *obuf = hbuf + 5 * rows_in * (W - (W_ - 1));
    plane_ssim(j, pl, rows_in, hbuf, obuf, &j->sums[item]);
}

mb_status mb__ssim_images(const mb_tensor *a, const mb_tensor *b, int volume,
                          double data_range, int threads, double *per_image,
                          size_t n_images, mb_err *err)
{
    size_t n_img = 0;
    if (!mb__ssim_applicable(a, volume, &n_img) ||
        !mb__ssim_applicable(b, volume, &n_img))
        return mb__fail(err, MB_EUNSUPPORTED,
                        "SSIM needs %s of at least %d in every dimension",
                        volume ? "3-D volumes" : "2-D images", W_);
    if (n_img != n_images)
        return mb__fail(err, MB_EINVAL, "SSIM: %zu images, room for %zu", n_img,
                        n_images);
    ssim_job j;
    memset(&j, 0, sizeof j);
    j.a = a;
    j.b = b;
    j.volume = volume;
    int r = a->rank;
    j.W = (size_t)a->dims[r - 1];
    j.H = (size_t)a->dims[r - 2];
    j.D = volume ? (size_t)a->dims[r - 3] : 1;
    gauss_weights(j.g);
    j.c1 = (MB_SSIM_K1 * data_range) * (MB_SSIM_K1 * data_range);
    j.c2 = (MB_SSIM_K2 * data_range) * (MB_SSIM_K2 * data_range);
    size_t ro = j.H - (W_ - 1);
    j.items_per_img = volume ? j.D - (W_ - 1) : (ro + BAND - 1) / BAND;
    size_t n_items = n_img * j.items_per_img;
    if (threads <= 0)
        threads = mb__par_cpus();
    if ((size_t)threads > n_items)
        threads = (int)n_items;
    size_t rows_in = volume ? j.H : (BAND < ro ? BAND : ro) + (W_ - 1);
    size_t each = scratch_len(rows_in, j.W);
    j.scratch = mb__calloc((size_t)threads, sizeof *j.scratch);
    j.sums = mb__calloc(n_items, sizeof *j.sums);
    int ok = j.scratch && j.sums;
    for (int t = 0; ok && t < threads; t++)
        ok = (j.scratch[t] = mb__calloc(each, sizeof(double))) != NULL;
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
    double pixels = (double)(volume ? (j.D - (W_ - 1)) : 1) * (double)ro *
                    (double)(j.W - (W_ - 1));
    for (size_t i = 0; i < n_img; i++) {
        mb_ksum s = {0, 0};
        for (size_t k = 0; k < j.items_per_img; k++)
            mb__ksum_merge(&s, &j.sums[i * j.items_per_img + k]);
        per_image[i] = mb__ksum_get(&s) / pixels;
    }
    free(j.sums);
    return MB_OK;
}
