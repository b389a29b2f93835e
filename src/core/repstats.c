/* repstats.c - statistics whose unit is the replicate (see repstats.h). */
#include "core/repstats.h"

#include "core/alloc.h"
#include "core/stats.h"

#include <stdbool.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double mb__t_quantile(double p, double df)
{
    return gsl_cdf_tdist_Pinv(p, df);
}

double mb__t_p_two_sided(double t, double df)
{
    if (!isfinite(t))
        return isnan(t) ? NAN : 0.0;
    double p = 2.0 * gsl_cdf_tdist_Q(fabs(t), df);
    return p > 1.0 ? 1.0 : p;
}

double mb__z_p_two_sided(double z)
{
    if (isnan(z))
        return NAN;
    return erfc(fabs(z) / sqrt(2.0));
}

/* Mean and sample variance of log x; false when some x <= 0 or is not
 * finite. */
static bool log_moments(const double *x, size_t k, double *mean, double *var)
{
    double m = 0, s = 0;
    for (size_t i = 0; i < k; i++) {
        if (!(x[i] > 0) || !isfinite(x[i]))
            return false;
        double l = log(x[i]), d = l - m;
        m += d / (double)(i + 1);
        s += d * (l - m);
    }
    *mean = m;
    *var = k > 1 ? s / (double)(k - 1) : 0.0;
    return true;
}

bool mb__gm_ci(const double *x, size_t k, double level, mb_gm *out)
{
    memset(out, 0, sizeof *out);
    out->k = k;
    out->lo = out->hi = out->est = NAN;
    double m, v;
    if (k == 0 || !log_moments(x, k, &m, &v))
        return false;
    out->est = exp(m);
    if (k < 2)
        return false;
    out->sd_log = sqrt(v);
    out->df = (double)(k - 1);
    double h = mb__t_quantile(0.5 + level / 2, out->df) * out->sd_log /
               sqrt((double)k);
    out->lo = exp(m - h);
    out->hi = exp(m + h);
    out->ok = 1;
    return true;
}

static void ratio_from(mb_ratio *r, double d, double se, double df,
                       double level)
{
    r->ratio = exp(d);
    r->se_log = se;
    r->df = df;
    if (se > 0) {
        double h = mb__t_quantile(0.5 + level / 2, df) * se;
        r->lo = exp(d - h);
        r->hi = exp(d + h);
        r->t = d / se;
        r->p = mb__t_p_two_sided(r->t, df);
    } else { /* identical replicates: no spread to speak of */
        r->lo = r->hi = r->ratio;
        r->t = d == 0 ? 0 : copysign(INFINITY, d);
        r->p = d == 0 ? 1.0 : 0.0;
    }
    r->ok = 1;
}

bool mb__ratio_paired(const double *a, const double *b, size_t k, double level,
                      mb_ratio *out)
{
    memset(out, 0, sizeof *out);
    out->ka = out->kb = k;
    out->ratio = out->lo = out->hi = out->p = NAN;
    if (k < 2)
        return false;
    double *d = mb__calloc(k, sizeof *d);
    if (!d)
        return false;
    for (size_t i = 0; i < k; i++) {
        if (!(a[i] > 0) || !(b[i] > 0)) {
            free(d);
            return false;
        }
        d[i] = exp(log(b[i]) - log(a[i])); /* log moments of the ratios */
    }
    double m, v;
    bool ok = log_moments(d, k, &m, &v);
    free(d);
    if (!ok)
        return false;
    ratio_from(out, m, sqrt(v / (double)k), (double)(k - 1), level);
    return true;
}

bool mb__ratio_welch(const double *a, size_t ka, const double *b, size_t kb,
                     double level, mb_ratio *out)
{
    memset(out, 0, sizeof *out);
    out->ka = ka;
    out->kb = kb;
    out->ratio = out->lo = out->hi = out->p = NAN;
    double ma, va, mb, vb;
    if (ka < 2 || kb < 2 || !log_moments(a, ka, &ma, &va) ||
        !log_moments(b, kb, &mb, &vb))
        return false;
    double sa = va / (double)ka, sb = vb / (double)kb, se2 = sa + sb;
    double df = (double)(ka + kb - 2);
    if (se2 > 0) {
        double den = (ka > 1 ? sa * sa / (double)(ka - 1) : 0) +
                     (kb > 1 ? sb * sb / (double)(kb - 1) : 0);
        if (den > 0)
            df = se2 * se2 / den;
    }
    ratio_from(out, mb - ma, sqrt(se2), df, level);
    return true;
}

size_t mb__block_figures(const double *x, size_t n, size_t blocks, double q,
                         double *out)
{
    if (blocks == 0 || n < blocks)
        return 0;
    double *tmp = mb__calloc(n / blocks + 1, sizeof *tmp);
    if (!tmp)
        return 0;
    for (size_t b = 0; b < blocks; b++) {
        size_t from = n * b / blocks, to = n * (b + 1) / blocks;
        memcpy(tmp, x + from, (to - from) * sizeof *tmp);
        qsort(tmp, to - from, sizeof *tmp, mb__cmp_double);
        out[b] = mb__percentile_sorted(tmp, to - from, q);
    }
    free(tmp);
    return blocks;
}

size_t mb__blocks_for(size_t n)
{
    if (n < 250)
        return 0;
    size_t b = n / 50;
    return b > 20 ? 20 : b;
}

size_t mb__replicates_needed(double sd_log, double half, int paired)
{
    if (!(sd_log > 0) || !(half > 0))
        return 2;
    /* k = c (t(df(k)) sd / half)^2, solved by iteration from the normal
     * approximation; t decreases with k, so this settles in a few steps. */
    double c = paired ? 1.0 : 2.0, r = sd_log / half;
    double k = ceil(c * pow(1.96 * r, 2));
    for (int it = 0; it < 30; it++) {
        if (k < 2)
            k = 2;
        if (k > 1e6)
            break;
        double df = paired ? k - 1 : 2 * k - 2;
        double next = ceil(c * pow(mb__t_quantile(0.975, df) * r, 2));
        if (next == k)
            break;
        k = next;
    }
    if (k < 2)
        k = 2;
    return k > 1e6 ? 1000000 : (size_t)k;
}

const char *mb__need_text(size_t need, char *buf, size_t len)
{
    if (need > MB_MAX_PROCESSES)
        snprintf(buf, len,
                 "about %zu processes, more than --processes "
                 "allows (%d): the difference is too small to settle; a "
                 "larger --threshold asks an easier question",
                 need, MB_MAX_PROCESSES);
    else
        snprintf(buf, len, "about %zu processes", need);
    return buf;
}

int mb__replicate_modes(const double *x, size_t k, double gap, double *lo,
                        size_t *n_lo, double *hi, size_t *n_hi)
{
    if (k < 4)
        return 1;
    double *s = mb__calloc(k, sizeof *s);
    if (!s)
        return 1;
    memcpy(s, x, k * sizeof *s);
    qsort(s, k, sizeof *s, mb__cmp_double);
    size_t cut = 0;
    double best = 0;
    for (size_t i = 1; i < k; i++) {
        if (!(s[i - 1] > 0))
            continue;
        double r = s[i] / s[i - 1];
        if (r > best) {
            best = r;
            cut = i;
        }
    }
    size_t min_side = k / 5 > 2 ? k / 5 : 2;
    int modes = 1;
    if (best > gap && cut >= min_side && k - cut >= min_side) {
        modes = 2;
        *n_lo = cut;
        *n_hi = k - cut;
        *lo = mb__percentile_sorted(s, cut, 50);
        *hi = mb__percentile_sorted(s + cut, k - cut, 50);
    }
    free(s);
    return modes;
}
