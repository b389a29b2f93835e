/* changepoint.c - binary segmentation on medians with a robust noise
 * scale (see changepoint.h). */
#include "regress/changepoint.h"

#include "core/alloc.h"
#include "core/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of x[0..n) using scratch (n doubles). */
static double median(const double *x, size_t n, double *scratch)
{
    memcpy(scratch, x, n * sizeof *x);
    qsort(scratch, n, sizeof *scratch, cmp_d);
    return mb__percentile_sorted(scratch, n, 50);
}

typedef struct {
    const double *x;
    double *scratch, *left, *right; /* n doubles each */
    double sigma;
    size_t min_seg;
    double threshold, min_rel;
    mb__changepoint *found;
    size_t n_found, cap_found;
} seg_ctx;

/* The first position in sorted s[0..n) whose value is not below v. */
static size_t lower_bound(const double *s, size_t n, double v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The split of x[a..b) (each side at least L points) with the least L1
 * cost; *ml and *mr get its medians.  The two sides are kept sorted as
 * the split moves (one insertion and one removal per step), so each
 * median is read, not sorted for: the same medians and costs as sorting
 * each side anew. */
static size_t best_split(seg_ctx *c, size_t a, size_t b, double *ml_out,
                         double *mr_out)
{
    size_t L = c->min_seg, nl = L, nr = b - a - L;
    memcpy(c->left, c->x + a, nl * sizeof *c->left);
    qsort(c->left, nl, sizeof *c->left, cmp_d);
    memcpy(c->right, c->x + a + L, nr * sizeof *c->right);
    qsort(c->right, nr, sizeof *c->right, cmp_d);
    double best_cost = INFINITY;
    size_t best_k = 0;
    for (size_t k = a + L; k + L <= b; k++) {
        double ml = mb__percentile_sorted(c->left, nl, 50);
        double mr = mb__percentile_sorted(c->right, nr, 50);
        double cost = 0;
        for (size_t i = a; i < k; i++)
            cost += fabs(c->x[i] - ml);
        for (size_t i = k; i < b; i++)
            cost += fabs(c->x[i] - mr);
        if (cost < best_cost) {
            best_cost = cost;
            best_k = k;
            *ml_out = ml;
            *mr_out = mr;
        }
        /* x[k] moves from the right side to the left */
        size_t at = lower_bound(c->right, nr, c->x[k]);
        memmove(c->right + at, c->right + at + 1,
                (nr - at - 1) * sizeof *c->right);
        nr--;
        at = lower_bound(c->left, nl, c->x[k]);
        memmove(c->left + at + 1, c->left + at, (nl - at) * sizeof *c->left);
        c->left[at] = c->x[k];
        nl++;
    }
    return best_k;
}

static void segment(seg_ctx *c, size_t a, size_t b)
{
    size_t n = b - a, L = c->min_seg;
    if (n < 2 * L)
        return;
    /* The split is placed where the L1 cost (sum of absolute deviations
     * from each side's median) is least; its significance is then the
     * standardised difference of medians. */
    double bl = 0, br = 0;
    size_t best_k = best_split(c, a, b, &bl, &br);
    double best =
        fabs(br - bl) /
        (1.2533 * c->sigma *
         sqrt(1.0 / (double)(best_k - a) + 1.0 / (double)(b - best_k)));
    double scale = fabs(bl) > 0 ? fabs(bl) : 1.0;
    if (best <= c->threshold || fabs(br - bl) / scale <= c->min_rel)
        return;
    segment(c, a, best_k);
    if (c->n_found < c->cap_found)
        c->found[c->n_found] = (mb__changepoint){best_k, bl, br, best};
    c->n_found++;
    segment(c, best_k, b);
}

size_t mb__changepoints(const double *x, size_t n, size_t min_segment,
                        double threshold, double min_rel, mb__changepoint *out,
                        size_t cap)
{
    if (n < 2 * (min_segment ? min_segment : 1) || n < 3)
        return 0;
    double *scratch = mb__calloc(3 * n, sizeof *scratch);
    double *d = mb__calloc(n, sizeof *d);
    if (!scratch || !d) {
        free(scratch);
        free(d);
        return 0;
    }
    for (size_t i = 0; i + 1 < n; i++)
        d[i] = fabs(x[i + 1] - x[i]);
    double sigma = 1.4826 * median(d, n - 1, scratch) / sqrt(2.0);
    double level = fabs(median(x, n, scratch));
    if (sigma < 0.005 * level)
        sigma = 0.005 * level;
    if (sigma <= 0)
        sigma = 1e-12;
    seg_ctx c = {x,           scratch,
                 scratch + n, scratch + 2 * n,
                 sigma,       min_segment ? min_segment : 1,
                 threshold,   min_rel,
                 out,         0,
                 cap};
    /* The intervals are visited left to right, so points come in order. */
    segment(&c, 0, n);
    free(scratch);
    free(d);
    return c.n_found;
}
