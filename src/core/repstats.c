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

bool mb__gm_ci(const double *x, size_t k, double level, mb__gm *out)
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

static void ratio_from(mb__ratio *r, double d, double se, double df,
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
                      mb__ratio *out)
{
    memset(out, 0, sizeof *out);
    out->ka = out->kb = k;
    out->ratio = out->lo = out->hi = out->p = out->drift_p = NAN;
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
                     double level, mb__ratio *out)
{
    memset(out, 0, sizeof *out);
    out->ka = ka;
    out->kb = kb;
    out->ratio = out->lo = out->hi = out->p = out->drift_p = NAN;
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

size_t mb__round_blocks(size_t k)
{
    return k < 2 * MB_ROUND_BLOCKS ? k : MB_ROUND_BLOCKS;
}

/* The one-way ANOVA of the rounds' log ratios d by block (block means bm,
 * within sum of squares ss_w on df_w df, var the variance of bm): the
 * within-block sd of a round, the drift sd between blocks (the variance
 * component (MSB - MSW) / n0, n0 = (k - sum n_j^2 / k) / (blocks - 1), at
 * least 0) and the F test of "no drift" (scipy's f_oneway). */
static void drift_anova(const double *d, size_t k, size_t blocks,
                        const double *bm, double ss_w, size_t df_w, double var,
                        mb__ratio *out)
{
    if (!df_w) { /* every round its own block: not separable */
        out->sd_within = sqrt(var);
        return;
    }
    double grand = 0, ss_b = 0, sum_n2 = 0;
    for (size_t i = 0; i < k; i++)
        grand += d[i];
    grand /= (double)k;
    for (size_t j = 0; j < blocks; j++) {
        double n = (double)(k * (j + 1) / blocks - k * j / blocks);
        ss_b += n * (bm[j] - grand) * (bm[j] - grand);
        sum_n2 += n * n;
    }
    double msw = ss_w / (double)df_w, msb = ss_b / (double)(blocks - 1);
    double n0 = ((double)k - sum_n2 / (double)k) / (double)(blocks - 1);
    out->sd_within = sqrt(msw);
    out->sd_drift = msb > msw ? sqrt((msb - msw) / n0) : 0;
    out->drift_p =
        msw > 0 ? gsl_cdf_fdist_Q(msb / msw, (double)(blocks - 1), (double)df_w)
                : NAN;
}

bool mb__ratio_paired_blocks(const double *a, const double *b, size_t k,
                             size_t blocks, double level, mb__ratio *out)
{
    memset(out, 0, sizeof *out);
    out->ka = out->kb = k;
    out->ratio = out->lo = out->hi = out->p = out->drift_p = NAN;
    if (blocks < 2 || k < blocks)
        return false;
    double *d = mb__calloc(k, sizeof *d), *bm = mb__calloc(blocks, sizeof *bm);
    bool ok = d && bm;
    for (size_t i = 0; ok && i < k; i++) {
        ok = a[i] > 0 && b[i] > 0 && isfinite(a[i]) && isfinite(b[i]);
        if (ok)
            d[i] = log(b[i]) - log(a[i]);
    }
    /* Block means, and the squares within blocks for the ANOVA split. */
    double ss_w = 0;
    size_t df_w = 0;
    for (size_t j = 0; ok && j < blocks; j++) {
        size_t from = k * j / blocks, to = k * (j + 1) / blocks;
        double m = 0;
        for (size_t i = from; i < to; i++)
            m += d[i];
        m /= (double)(to - from);
        bm[j] = m;
        for (size_t i = from; i < to; i++)
            ss_w += (d[i] - m) * (d[i] - m);
        df_w += to - from - 1;
    }
    double mean = 0, var = 0;
    if (ok) {
        for (size_t j = 0; j < blocks; j++) { /* Welford, as log_moments */
            double x = bm[j], dd = x - mean;
            mean += dd / (double)(j + 1);
            var += dd * (x - mean);
        }
        var /= (double)(blocks - 1);
        ratio_from(out, mean, sqrt(var / (double)blocks), (double)(blocks - 1),
                   level);
        out->blocks = blocks;
        /* Within-block variance of one round, and what the block means
         * vary beyond it: var(block mean) = sw2 / m + drift2. */
        drift_anova(d, k, blocks, bm, ss_w, df_w, var, out);
    }
    free(d);
    free(bm);
    return ok;
}

json_t *mb__ratio_blocks_json(const mb__ratio *r)
{
    return json_pack(
        "{s:I,s:f,s:f,s:o}", "count", (json_int_t)r->blocks, "sd_within",
        r->sd_within, "sd_drift", r->sd_drift, "drift_p",
        isfinite(r->drift_p) ? json_real(r->drift_p) : json_null());
}

/* Half-width of a blocked paired interval over K rounds with within-block
 * variance sw2 and drift variance drift2 (log scale, 95%). */
static double blocked_half(size_t K, double sw2, double drift2)
{
    size_t B = mb__round_blocks(K);
    if (B < 2)
        return INFINITY;
    double m = (double)K / (double)B;
    return mb__t_quantile(0.975, (double)(B - 1)) *
           sqrt((sw2 / m + (B == K ? 0 : drift2)) / (double)B);
}

/* The smallest K in (from, 1e6] with half(K) <= dist, for a half-width
 * that falls with K; 1e6 when none. */
static size_t search_k(size_t from, double dist, double (*half)(size_t, void *),
                       void *ctx)
{
    size_t lo = from, hi = 1000000;
    if (half(hi, ctx) > dist)
        return hi;
    while (hi - lo > 1) { /* half(lo) > dist >= half(hi), lo excluded */
        size_t mid = lo + (hi - lo) / 2;
        if (half(mid, ctx) <= dist)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

typedef struct spread {
    double sw2, drift2;
} spread;

static double blocked_half_of(size_t K, void *ctx)
{
    const spread *s = ctx;
    return blocked_half(K, s->sw2, s->drift2);
}

size_t mb__rounds_needed(const mb__ratio *r, double dist)
{
    if (!r->ok || !(dist > 0))
        return 0;
    spread s = {r->se_log * r->se_log * (double)r->ka, 0};
    if (r->drift_p < 0.05) {
        /* An established drift between blocks does not shrink with more
         * rounds. */
        s = (spread){r->sd_within * r->sd_within, r->sd_drift * r->sd_drift};
        double floor_half = mb__t_quantile(0.975, MB_ROUND_BLOCKS - 1) *
                            r->sd_drift / sqrt((double)MB_ROUND_BLOCKS);
        if (floor_half >= dist)
            return 0;
    }
    return search_k(r->ka, dist, blocked_half_of, &s);
}

bool mb__ratio_welch_drift(const double *a, size_t ka, const double *b,
                           size_t kb, double tau, size_t tau_runs, double level,
                           mb__ratio *out)
{
    memset(out, 0, sizeof *out);
    out->ka = ka;
    out->kb = kb;
    out->ratio = out->lo = out->hi = out->p = out->drift_p = NAN;
    double ma, va, mb, vb;
    if (ka < 2 || kb < 2 || !(tau >= 0) || !log_moments(a, ka, &ma, &va) ||
        !log_moments(b, kb, &mb, &vb))
        return false;
    double sa = va / (double)ka, sb = vb / (double)kb, st = 2 * tau * tau;
    double se2 = sa + sb + st, df = (double)(ka + kb - 2);
    if (se2 > 0) {
        double den = sa * sa / (double)(ka - 1) + sb * sb / (double)(kb - 1) +
                     (tau_runs > 1 ? st * st / (double)(tau_runs - 1) : 0);
        if (den > 0)
            df = se2 * se2 / den;
    }
    ratio_from(out, mb - ma, sqrt(se2), df, level);
    out->sd_within = sqrt((va + vb) / 2);
    out->tau = tau;
    out->tau_runs = tau_runs;
    return true;
}

static double runs_half_of(size_t K, void *ctx)
{
    const mb__ratio *r = ctx;
    double k = (double)K, sw2 = r->sd_within * r->sd_within;
    double se2 = 2 * sw2 / k, st = 2 * r->tau * r->tau;
    double den = 2 * (sw2 / k) * (sw2 / k) / (k - 1) +
                 (r->tau_runs > 1 ? st * st / (double)(r->tau_runs - 1) : 0);
    double df = den > 0 ? (se2 + st) * (se2 + st) / den : 2 * k - 2;
    return mb__t_quantile(0.975, df) * sqrt(se2 + st);
}

size_t mb__runs_processes_needed(const mb__ratio *r, double dist)
{
    if (!r->ok || !(dist > 0))
        return 0;
    if (1.959964 * sqrt(2.0) * r->tau >= dist)
        return 0;
    size_t from = r->ka > r->kb ? r->ka : r->kb;
    return search_k(from < 2 ? 2 : from, dist, runs_half_of, (void *)r);
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
