/* compare.c - speedups, significance, ratios and recommendations. */
#include "runner/compare.h"

#include "core/alloc.h"
#include "core/rng.h"
#include "core/stats.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double jnum(const json_t *o, const char *a, const char *b)
{
    const json_t *v = json_object_get(o, a);
    if (b)
        v = json_object_get(v, b);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static void human_bytes(double b, char *buf, size_t len)
{
    double a = fabs(b);
    if (a >= 1073741824.0)
        snprintf(buf, len, "%.2f GiB", a / 1073741824.0);
    else if (a >= 1048576.0)
        snprintf(buf, len, "%.1f MiB", a / 1048576.0);
    else
        snprintf(buf, len, "%.0f KiB", a / 1024.0);
}

static void rec(json_t *list, int ok, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void rec(json_t *list, int ok, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    json_array_append_new(list, json_pack("{s:b,s:s}", "ok", ok, "text", text));
}

static json_t *ratio_json(double v, double lo, double hi)
{
    if (!isfinite(v))
        return json_null();
    return json_pack("{s:f,s:[f,f]}", "value", v, "ci95", lo, hi);
}

json_t *mb__compare_analyze(const mb__cmp_variant *v, size_t n,
                            size_t baseline, const mb__cmp_opts *o)
{
    json_t *cmp = json_object(), *vars = json_array();
    const mb__cmp_variant *b = &v[baseline];
    json_object_set_new(cmp, "baseline", json_string(b->name));
    json_object_set_new(cmp, "random_inputs_only",
                        json_boolean(o->random_inputs));
    json_object_set_new(
        cmp, "method",
        json_pack("{s:s,s:s,s:f,s:i,s:s}", "speedup",
                  "baseline median / variant median (> 1 is faster)", "ci",
                  "percentile bootstrap, 95%", "alpha", o->alpha,
                  "bootstrap_resamples", o->bootstrap_iters, "significance",
                  "two-sided Mann-Whitney U (normal approximation, tie "
                  "corrected); significant when p < alpha and the CI "
                  "excludes 1"));
    double *bs = NULL;
    if (!b->error && b->n) {
        bs = mb__calloc(b->n, sizeof *bs);
        for (size_t i = 0; bs && i < b->n; i++)
            bs[i] = (double)b->samples[i];
    }
    mb_rng rng;
    mb__rng_seed(&rng, o->seed);
    double base_acc = jnum(b->accuracy, "top1", NULL);
    for (size_t k = 0; k < n; k++) {
        const mb__cmp_variant *x = &v[k];
        json_t *e = json_object(), *recs = json_array();
        json_object_set_new(e, "name", json_string(x->name));
        json_object_set_new(e, "baseline", json_boolean(k == baseline));
        json_object_set_new(e, "status", json_string(x->error ? "failed"
                                                              : "ok"));
        json_object_set_new(e, "error", x->error ? json_string(x->error)
                                                 : json_null());
        json_object_set_new(e, "accuracy", x->accuracy
                                               ? json_deep_copy(x->accuracy)
                                               : json_null());
        json_object_set_new(e, "agreement",
                            x->agreement ? json_deep_copy(x->agreement)
                                         : json_null());
        if (x->error) {
            rec(recs, 0, "FAILED: %s", x->error);
            json_object_set_new(e, "recommendations", recs);
            json_array_append_new(vars, e);
            continue;
        }
        double *xs = mb__calloc(x->n ? x->n : 1, sizeof *xs);
        for (size_t i = 0; xs && i < x->n; i++)
            xs[i] = (double)x->samples[i];
        /* Latency. */
        if (bs && xs && x->n && k != baseline) {
            double m, lo, hi, m99, lo99, hi99;
            mb__bootstrap_ratio(xs, x->n, bs, b->n, 50, o->bootstrap_iters,
                                &rng, &m, &lo, &hi);
            mb__bootstrap_ratio(xs, x->n, bs, b->n, 99, o->bootstrap_iters,
                                &rng, &m99, &lo99, &hi99);
            mb_mwu u;
            mb__mann_whitney(xs, x->n, bs, b->n, &u);
            int sig = u.p < o->alpha && (lo > 1.0 || hi < 1.0);
            const char *verdict = !sig ? "no significant difference"
                                  : m > 1 ? "faster"
                                          : "slower";
            json_object_set_new(e, "speedup_median", ratio_json(m, lo, hi));
            json_object_set_new(e, "speedup_p99", ratio_json(m99, lo99, hi99));
            json_object_set_new(e, "significance",
                                json_pack("{s:s,s:f,s:f,s:b,s:s}", "test",
                                          "mann-whitney-u", "p", u.p, "u",
                                          u.u, "significant", sig, "verdict",
                                          verdict));
            if (sig && m > 1)
                rec(recs, 1, "%.2fx faster than baseline (95%% CI %.3f-%.3f)",
                    m, lo, hi);
            else if (sig)
                rec(recs, 0, "%.2fx slower than baseline (95%% CI %.3f-%.3f)",
                    1 / m, 1 / hi, 1 / lo);
            else if (lo > 1.0 || hi < 1.0)
                rec(recs, 1, "no significant latency difference: the median "
                    "ratio is %.3fx (95%% CI %.3f-%.3f) but the U test does "
                    "not find the distributions different (p = %.2g)",
                    m, lo, hi, u.p);
            else
                rec(recs, 1, "no significant latency difference (%.3fx, 95%% "
                    "CI %.3f-%.3f includes 1, p = %.2g)", m, lo, hi, u.p);
        } else if (k == baseline) {
            json_object_set_new(e, "speedup_median", ratio_json(1, 1, 1));
            json_object_set_new(e, "speedup_p99", ratio_json(1, 1, 1));
            json_object_set_new(e, "significance", json_null());
        }
        free(xs);
        /* Memory and size. */
        double mb_ = jnum(b->run, "memory", "rss_peak_bytes"),
               mx = jnum(x->run, "memory", "rss_peak_bytes");
        double sb = jnum(json_object_get(b->run, "model"), "file_bytes", NULL),
               sx = jnum(json_object_get(x->run, "model"), "file_bytes", NULL);
        json_object_set_new(e, "memory_ratio",
                            isfinite(mb_ / mx) && mb_ > 0 ? json_real(mx / mb_)
                                                          : json_null());
        json_object_set_new(e, "memory_delta_bytes",
                            isfinite(mx - mb_) ? json_real(mx - mb_)
                                               : json_null());
        json_object_set_new(e, "size_ratio",
                            sb > 0 && isfinite(sx) ? json_real(sx / sb)
                                                   : json_null());
        char hb[32];
        if (k != baseline && isfinite(mx - mb_)) {
            double d = mx - mb_, thr = fmax(1048576.0, 0.05 * mb_);
            human_bytes(d, hb, sizeof hb);
            if (d < -thr)
                rec(recs, 1, "%s less memory", hb);
            else if (d > thr)
                rec(recs, 0, "%s more memory", hb);
        }
        if (k != baseline && sb > 0 && sx > 0) {
            if (sb / sx >= 1.1)
                rec(recs, 1, "%.1fx smaller model", sb / sx);
            else if (sx / sb >= 1.1)
                rec(recs, 0, "%.1fx larger model", sx / sb);
        }
        /* Accuracy against labels, else agreement with the baseline. */
        double acc = jnum(x->accuracy, "top1", NULL);
        if (k != baseline && isfinite(acc) && isfinite(base_acc)) {
            double d = acc - base_acc;
            json_object_set_new(json_object_get(e, "accuracy"), "delta_top1",
                                json_real(d));
            if (d >= -o->tolerance)
                rec(recs, 1, "accuracy maintained (%+.4f)", d);
            else
                rec(recs, 0, "accuracy loss: %+.4f (tolerance %.4f)", d,
                    o->tolerance);
        } else if (k != baseline && x->agreement_pass >= 0) {
            if (x->agreement_pass)
                rec(recs, 1, "outputs agree with the baseline (%s)",
                    x->agreement_note ? x->agreement_note : "");
            else
                rec(recs, 0, "outputs differ from the baseline (%s)",
                    x->agreement_note ? x->agreement_note : "");
        }
        if (k != baseline && o->random_inputs)
            rec(recs, 0, "output agreement rests on random inputs only: "
                "pass --data (and --labels) for an accuracy verdict");
        json_object_set_new(e, "recommendations", recs);
        json_array_append_new(vars, e);
    }
    free(bs);
    json_object_set_new(cmp, "variants", vars);
    return cmp;
}
