/* pairci.c - Tango's score interval for a paired difference (pairci.h). */
#include "core/pairci.h"

#include <gsl/gsl_cdf.h>
#include <math.h>

void mb__pair_count(const uint8_t *a, const uint8_t *b, size_t n,
                    mb__pair_counts *out)
{
    *out = (mb__pair_counts){.n = n};
    for (size_t i = 0; i < n; i++) {
        int x = a[i] != 0, y = b[i] != 0;
        if (x && y)
            out->both++;
        else if (x)
            out->a_only++;
        else if (y)
            out->b_only++;
        else
            out->neither++;
    }
}

/* With n12 = b_only, n21 = a_only (b right where a is wrong, and the
 * reverse), the restricted maximum-likelihood estimate of the probability
 * of the n21 cell under H0: delta = d0 is the positive root of
 * A q^2 + B q + C = 0 with A = 2n, B = -n12 - n21 + (2n - n12 + n21) d0,
 * C = -n21 d0 (1 - d0); then
 * T(d0) = (n12 - n21 - n d0) / sqrt(n (2 q + d0 (1 - d0))). */
double mb__tango_stat(const mb__pair_counts *t, double d0)
{
    double n = (double)t->n, n12 = (double)t->b_only, n21 = (double)t->a_only;
    double A = 2 * n, B = -n12 - n21 + (2 * n - n12 + n21) * d0,
           C = -n21 * d0 * (1 - d0);
    double disc = B * B - 4 * A * C;
    double q = (sqrt(disc > 0 ? disc : 0) - B) / (2 * A);
    double var = n * (2 * q + d0 * (1 - d0));
    double num = n12 - n21 - n * d0;
    if (!(var > 0)) /* only at the ends of [-1, 1]: the statistic's sign */
        return num > 0 ? INFINITY : num < 0 ? -INFINITY : 0;
    return num / sqrt(var);
}

/* The d0 in [lo, hi] where T(d0) = target, T decreasing in d0: bisection
 * to machine precision. */
static double solve(const mb__pair_counts *t, double target, double lo,
                    double hi)
{
    for (int i = 0; i < 200 && hi - lo > 1e-15; i++) {
        double mid = 0.5 * (lo + hi);
        if (mb__tango_stat(t, mid) > target)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

bool mb__tango_ci(const mb__pair_counts *t, double level, double *lo,
                  double *hi)
{
    *lo = *hi = NAN;
    if (!t->n || !(level > 0 && level < 1))
        return false;
    double n = (double)t->n;
    double est = ((double)t->b_only - (double)t->a_only) / n;
    double z = gsl_cdf_ugaussian_Pinv(0.5 + level / 2);
    const double eps = 1e-12;
    *lo = est <= -1 ? -1 : solve(t, z, -1 + eps, est);
    *hi = est >= 1 ? 1 : solve(t, -z, est, 1 - eps);
    return true;
}
