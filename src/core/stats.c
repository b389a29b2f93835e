/* stats.c - summaries, percentiles, median CI, U test, bootstrap. */
#include "stats.h"

#include "alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int mb__cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double mb__percentile_sorted(const double *s, size_t n, double q)
{
    if (n == 0)
        return NAN;
    if (q <= 0)
        return s[0];
    if (q >= 100)
        return s[n - 1];
    double rank = (double)(n - 1) * q / 100.0;
    size_t lo = (size_t)floor(rank);
    double frac = rank - (double)lo;
    if (lo + 1 >= n)
        return s[n - 1];
    return s[lo] + (s[lo + 1] - s[lo]) * frac;
}

bool mb__percentile_supported(size_t n, double q)
{
    double dn = (double)n;
    return dn * q / 100.0 >= 1.0 - 1e-9 && dn * (1.0 - q / 100.0) >= 1.0 - 1e-9;
}

/* log of the binomial pmf term C(n,k)/2^n */
static double log_binom_half(size_t n, size_t k)
{
    return lgamma((double)n + 1) - lgamma((double)k + 1) -
           lgamma((double)(n - k) + 1) - (double)n * log(2.0);
}

int mb__median_ci_ranks(size_t n, size_t *lo, size_t *hi)
{
    if (n < 6)
        return 0;
    /* Largest k with P(B <= k-1) <= 0.025 for B ~ Bin(n, 1/2): the CI is
     * [x_(k), x_(n-k+1)] in 1-based ranks; its coverage is >= 95%. */
    double cum = 0.0;
    size_t k = 0;
    for (size_t j = 0; j <= n / 2; j++) {
        double next = cum + exp(log_binom_half(n, j));
        if (next > 0.025)
            break;
        cum = next;
        k = j + 1;
    }
    if (k == 0)
        return 0;
    *lo = k - 1; /* 0-based rank of x_(k) */
    *hi = n - k; /* 0-based rank of x_(n-k+1) */
    return 1;
}

bool mb__summarize(const double *x, size_t n, mb__summary *o)
{
    memset(o, 0, sizeof *o);
    if (n == 0)
        return false;
    double *s = mb__calloc(n, sizeof *s);
    if (!s)
        return false;
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, mb__cmp_double);
    o->n = n;
    o->min = s[0];
    o->max = s[n - 1];
    /* Mean and variance by Welford's method: stable for ns-sized values. */
    double mean = 0, m2 = 0;
    for (size_t i = 0; i < n; i++) {
        double d = s[i] - mean;
        mean += d / (double)(i + 1);
        m2 += d * (s[i] - mean);
    }
    o->mean = mean;
    o->std = n > 1 ? sqrt(m2 / (double)(n - 1)) : 0.0;
    o->cv = mean != 0 ? o->std / mean : 0.0;
    o->median = mb__percentile_sorted(s, n, 50);
    o->p90 = mb__percentile_sorted(s, n, 90);
    o->p95 = mb__percentile_sorted(s, n, 95);
    o->p99 = mb__percentile_sorted(s, n, 99);
    o->p999 = mb__percentile_sorted(s, n, 99.9);
    o->p90_ok = mb__percentile_supported(n, 90);
    o->p95_ok = mb__percentile_supported(n, 95);
    o->p99_ok = mb__percentile_supported(n, 99);
    o->p999_ok = mb__percentile_supported(n, 99.9);
    size_t lo, hi;
    if (mb__median_ci_ranks(n, &lo, &hi)) {
        o->median_ci_ok = 1;
        o->median_ci_lo = s[lo];
        o->median_ci_hi = s[hi];
    }
    double *dev = mb__calloc(n, sizeof *dev);
    if (dev) {
        for (size_t i = 0; i < n; i++)
            dev[i] = fabs(s[i] - o->median);
        qsort(dev, n, sizeof *dev, mb__cmp_double);
        o->mad = mb__percentile_sorted(dev, n, 50);
        double scale = 1.4826 * o->mad;
        if (scale == 0) {
            /* More than half the samples are equal (a coarse timer): fall
             * back to the mean absolute deviation, scaled to match the
             * standard deviation of a normal distribution. */
            double sum = 0;
            for (size_t i = 0; i < n; i++)
                sum += dev[i];
            scale = 1.2533 * sum / (double)n;
        }
        free(dev);
        /* A relative floor: with a tight distribution (MAD of a few ns) a
         * 52 ns deviation is not an outlier of any practical meaning. */
        double cut = 3.5 * scale;
        if (cut < MB_OUTLIER_REL_FLOOR * o->median)
            cut = MB_OUTLIER_REL_FLOOR * o->median;
        for (size_t i = 0; i < n && cut > 0; i++) {
            double d = s[i] - o->median;
            if (d > cut)
                o->outliers_high++;
            else if (d < -cut)
                o->outliers_low++;
        }
    }
    free(s);
    return true;
}

bool mb__summarize_ns(const int64_t *x, size_t n, mb__summary *out)
{
    double *d = mb__calloc(n ? n : 1, sizeof *d);
    if (!d)
        return false;
    for (size_t i = 0; i < n; i++)
        d[i] = (double)x[i];
    bool r = mb__summarize(d, n, out);
    free(d);
    return r;
}

double mb__median_ci_rel(const double *x, size_t n)
{
    mb__summary s;
    if (!mb__summarize(x, n, &s) || !s.median_ci_ok || s.median <= 0)
        return INFINITY;
    return (s.median_ci_hi - s.median_ci_lo) / 2.0 / s.median;
}

double mb__norm_cdf(double z)
{
    return 0.5 * erfc(-z / sqrt(2.0));
}

typedef struct {
    double v;
    int group;
} tagged;

static int cmp_tagged(const void *a, const void *b)
{
    return mb__cmp_double(&((const tagged *)a)->v, &((const tagged *)b)->v);
}

bool mb__mann_whitney(const double *a, size_t na, const double *b, size_t nb,
                      mb__mwu *out)
{
    memset(out, 0, sizeof *out);
    out->p = 1.0;
    if (na == 0 || nb == 0)
        return false;
    size_t n = na + nb;
    tagged *t = mb__calloc(n, sizeof *t);
    if (!t)
        return false;
    for (size_t i = 0; i < na; i++)
        t[i] = (tagged){a[i], 0};
    for (size_t i = 0; i < nb; i++)
        t[na + i] = (tagged){b[i], 1};
    qsort(t, n, sizeof *t, cmp_tagged);
    double rank_sum_a = 0, tie_term = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && t[j + 1].v == t[i].v)
            j++;
        double avg = ((double)i + (double)j) / 2.0 + 1.0,
               cnt = (double)(j - i + 1);
        for (size_t k = i; k <= j; k++)
            if (t[k].group == 0)
                rank_sum_a += avg;
        tie_term += cnt * cnt * cnt - cnt;
        i = j + 1;
    }
    free(t);
    double dna = (double)na, dnb = (double)nb, dn = (double)n;
    double u = rank_sum_a - dna * (dna + 1) / 2.0;
    double mu = dna * dnb / 2.0;
    double var = dna * dnb / 12.0 * ((dn + 1) - tie_term / (dn * (dn - 1)));
    out->u = u;
    out->prob_superiority = u / (dna * dnb);
    if (var <= 0) {
        out->z = 0;
        out->p = 1.0;
        return true;
    }
    double diff = fabs(u - mu) - 0.5;
    if (diff < 0)
        diff = 0;
    double z = diff / sqrt(var);
    out->z = u >= mu ? z : -z;
    /* erfc keeps its precision in the tail: 2 * (1 - Phi(z)) is 0 from
     * z = 8.3 on, erfc only from z = 38.5. */
    out->p = erfc(z / sqrt(2.0));
    if (out->p > 1.0)
        out->p = 1.0;
    return true;
}

/* k-th smallest of x[0..n) (destroys order): Hoare's selection. */
static double select_kth(double *x, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = x[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (x[i] < pivot)
                i++;
            while (x[j] > pivot)
                j--;
            if (i <= j) {
                double tmp = x[i];
                x[i] = x[j];
                x[j] = tmp;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return x[k];
    }
    return x[k];
}

static double pct_unsorted(double *x, size_t n, double q)
{
    double rank = (double)(n - 1) * q / 100.0;
    size_t lo = (size_t)floor(rank);
    double frac = rank - (double)lo;
    double vlo = select_kth(x, n, lo);
    if (frac == 0 || lo + 1 >= n)
        return vlo;
    /* the next order statistic is the minimum of the upper part */
    double vhi = INFINITY;
    for (size_t i = lo + 1; i < n; i++)
        if (x[i] < vhi)
            vhi = x[i];
    return vlo + (vhi - vlo) * frac;
}

bool mb__bootstrap_ratio(const double *a, size_t na, const double *b, size_t nb,
                         double q, int iters, mb__rng *rng, double *est,
                         double *lo, double *hi)
{
    if (na == 0 || nb == 0 || iters < 10)
        return false;
    double *ra = mb__calloc(na, sizeof *ra), *rb = mb__calloc(nb, sizeof *rb);
    double *ratios = mb__calloc((size_t)iters, sizeof *ratios);
    if (!ra || !rb || !ratios) {
        free(ra);
        free(rb);
        free(ratios);
        return false;
    }
    memcpy(ra, a, na * sizeof *ra);
    memcpy(rb, b, nb * sizeof *rb);
    double pa = pct_unsorted(ra, na, q), pb = pct_unsorted(rb, nb, q);
    *est = pa > 0 ? pb / pa : NAN;
    for (int it = 0; it < iters; it++) {
        for (size_t i = 0; i < na; i++)
            ra[i] = a[mb__rng_below(rng, na)];
        for (size_t i = 0; i < nb; i++)
            rb[i] = b[mb__rng_below(rng, nb)];
        double xa = pct_unsorted(ra, na, q), xb = pct_unsorted(rb, nb, q);
        ratios[it] = xa > 0 ? xb / xa : INFINITY;
    }
    qsort(ratios, (size_t)iters, sizeof *ratios, mb__cmp_double);
    *lo = mb__percentile_sorted(ratios, (size_t)iters, 2.5);
    *hi = mb__percentile_sorted(ratios, (size_t)iters, 97.5);
    free(ra);
    free(rb);
    free(ratios);
    return true;
}

double mb__slope(const double *x, const double *y, size_t n)
{
    if (n < 2)
        return 0;
    double mx = 0, my = 0;
    for (size_t i = 0; i < n; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= (double)n;
    my /= (double)n;
    double sxy = 0, sxx = 0;
    for (size_t i = 0; i < n; i++) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
    }
    return sxx > 0 ? sxy / sxx : 0;
}

double mb__median_ci_rel_inplace(double *x, size_t n)
{
    size_t lo, hi;
    if (!mb__median_ci_ranks(n, &lo, &hi))
        return INFINITY;
    double med = pct_unsorted(x, n, 50);
    double a = select_kth(x, n, lo), b = select_kth(x, n, hi);
    if (!(med > 0))
        return INFINITY;
    return (b - a) / 2.0 / med;
}
