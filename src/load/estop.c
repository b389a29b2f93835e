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

static int valid_args(double q, double c)
{
    return q > 0 && q < 1 && c > 0 && c < 1;
}

int mb__estop_pass(int64_t n, int64_t k, double q, double c,
                   mb__estop_rule rule)
{
    if (n <= 0 || n > 4000000000LL || k < 0 || !valid_args(q, c))
        return 0;
    double p = binom_cdf(k, 1 - q, n);
    return rule == MB_ESTOP_LOADGEN ? p < 1 - c : p <= 1 - c;
}

int64_t mb__estop_max_over(int64_t n, double q, double c, mb__estop_rule rule)
{
    if (n <= 0 || !mb__estop_pass(n, 0, q, c, rule))
        return -1;
    /* The cdf grows with k: the largest k that still passes. */
    int64_t lo = 0, hi = n; /* pass(lo) holds; find the last */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (mb__estop_pass(n, mid, q, c, rule))
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

int64_t mb__estop_rank(int64_t n, double q, double c, mb__estop_rule rule)
{
    int64_t k = mb__estop_max_over(n, q, c, rule);
    if (rule == MB_ESTOP_LOADGEN) /* x_(n-t+1), and only when t >= 1 */
        return k < 1 ? 0 : n - k + 1;
    /* x_(n-k) <= L  <=>  at most k requests exceed L. */
    return k < 0 ? 0 : n - k;
}

int64_t mb__estop_min_n(double q, double c, mb__estop_rule rule)
{
    if (!valid_args(q, c))
        return -1;
    int64_t n0 = (int64_t)ceil(log(1 - c) / log(q) - 1e-9);
    if (rule != MB_ESTOP_LOADGEN)
        return n0;
    /* The smallest n whose rank exists (t >= 1): the cdf at 1 falls as n
     * grows, so bisect between n0 and a size where it surely holds. */
    int64_t lo = n0, hi = n0;
    while (!mb__estop_pass(hi, 1, q, c, rule) && hi < 2000000000LL)
        hi *= 2;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (mb__estop_pass(mid, 1, q, c, rule))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}
