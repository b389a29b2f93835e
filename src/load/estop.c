/* estop.c - early-stopping bounds for tail percentiles (estop.h). */
#include "load/estop.h"

#include <gsl/gsl_cdf.h>
#include <math.h>

/* P(Binomial(n, p) <= k); GSL's counts are unsigned int. */
static double binom_cdf(int64_t k, double p, int64_t n)
{
    if (k < 0)
        return 0.0;
    if (k >= n)
        return 1.0;
    return gsl_cdf_binomial_P((unsigned)k, p, (unsigned)n);
}

int64_t mb__estop_min_n(double q, double c)
{
    if (!(q > 0 && q < 1 && c > 0 && c < 1))
        return -1;
    return (int64_t)ceil(log(1 - c) / log(q) - 1e-9);
}

int mb__estop_pass(int64_t n, int64_t k, double q, double c)
{
    if (n <= 0 || n > 4000000000LL || k < 0)
        return 0;
    return binom_cdf(k, 1 - q, n) <= 1 - c;
}

int64_t mb__estop_max_over(int64_t n, double q, double c)
{
    if (n <= 0 || !mb__estop_pass(n, 0, q, c))
        return -1;
    /* The cdf grows with k: the largest k that still passes. */
    int64_t lo = 0, hi = n; /* pass(lo) holds; find the last */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (mb__estop_pass(n, mid, q, c))
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

int64_t mb__estop_rank(int64_t n, double q, double c)
{
    int64_t k = mb__estop_max_over(n, q, c);
    /* x_(n-k) <= L  <=>  at most k requests exceed L. */
    return k < 0 ? 0 : n - k;
}
