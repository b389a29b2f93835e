/* stats.h - statistics over raw timing samples.
 *
 * Definitions (also in docs/STATISTICS.md):
 *  - percentile q: linear interpolation between order statistics at rank
 *    (n-1)*q/100, numpy's default ("linear") method;
 *  - a percentile is "supported" when at least one sample lies on each side
 *    of it: n*q/100 >= 1 and n*(1-q/100) >= 1; otherwise it is reported as
 *    unsupported rather than as the min or max;
 *  - median CI: distribution-free, from binomial order statistics (exact
 *    binomial tail for the ranks), 95% two-sided; needs n >= 6;
 *  - outliers: |x - median| > max(3.5 * 1.4826 * MAD, 5% of the median),
 *    counted, never dropped (when MAD is 0, 1.2533 * mean absolute
 *    deviation stands in for 1.4826 * MAD);
 *  - std: sample standard deviation (n-1);
 *  - Mann-Whitney U: two-sided, normal approximation with tie correction
 *    and continuity correction;
 *  - bootstrap: percentile bootstrap of a ratio of percentiles, seeded.
 */
#ifndef MB_CORE_STATS_H
#define MB_CORE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rng.h"

/* Outliers must also lie this far from the median, relative to it. */
#define MB_OUTLIER_REL_FLOOR 0.05

typedef struct mb__summary {
    size_t n;
    double min, max, mean, std, cv; /* cv = std / mean */
    double median, p90, p95, p99, p999;
    int p90_ok, p95_ok, p99_ok, p999_ok; /* supported by n? */
    double median_ci_lo, median_ci_hi;
    int median_ci_ok; /* 0 when n < 6 */
    double mad;       /* raw median absolute deviation */
    size_t outliers_low, outliers_high;
} mb__summary;

/* Summarises n samples (any order; not modified).  Returns 0 on success,
 * -1 when n == 0 or memory runs out. */
bool mb__summarize(const double *x, size_t n, mb__summary *out);
bool mb__summarize_ns(const int64_t *x, size_t n, mb__summary *out);

/* Percentile q in [0,100] of sorted data (numpy linear). */
double mb__percentile_sorted(const double *sorted, size_t n, double q);
bool mb__percentile_supported(size_t n, double q);
/* Ranks (0-based, inclusive) of the order statistics bounding a 95% CI
 * for the median; returns 0 when n is too small. */
int mb__median_ci_ranks(size_t n, size_t *lo, size_t *hi);
/* Relative half-width of the median CI of n samples: (hi-lo)/2/median. */
double mb__median_ci_rel(const double *x, size_t n);
/* The same, reordering x in place by selection: allocates nothing (qsort
 * may allocate a temporary the size of the data, which would show up as
 * heap growth in a leak check). */
double mb__median_ci_rel_inplace(double *x, size_t n);

typedef struct mb__mwu {
    double u; /* U statistic of the first sample */
    double z; /* normal deviate (with tie and continuity correction) */
    double p; /* two-sided p-value */
    double prob_superiority; /* P(a > b) + P(a = b)/2 = U / (na*nb) */
} mb__mwu;
bool mb__mann_whitney(const double *a, size_t na, const double *b, size_t nb,
                      mb__mwu *out);

/* Percentile-bootstrap 95% CI (and point estimate) of
 * percentile_q(b) / percentile_q(a) with `iters` resamples. */
bool mb__bootstrap_ratio(const double *a, size_t na, const double *b, size_t nb,
                         double q, int iters, mb__rng *rng, double *est,
                         double *lo, double *hi);

/* Least-squares slope of y against x. */
double mb__slope(const double *x, const double *y, size_t n);

/* qsort comparator for doubles (ascending). */
int mb__cmp_double(const void *a, const void *b);

/* Standard normal CDF. */
double mb__norm_cdf(double z);

#endif
