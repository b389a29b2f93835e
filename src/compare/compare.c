/* compare.c - speedups, significance, ratios and recommendations. */
#include "compare/compare.h"

#include "core/alloc.h"
#include "core/rng.h"
#include "core/repstats.h"
#include "core/stats.h"
#include "runner/replicate.h"

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

/* Per-replicate medians (q = 50) or p99 of a variant: per process with two
 * or more processes, else per block of consecutive samples (blocks blocks).
 * Returns the count written to out (caller gives room for max(k, 20)). */
static size_t replicate_figures(const mb__cmp_variant *x, double q,
                                size_t blocks, double *out)
{
    if (x->k >= 2) {
        size_t got = mb__arm_proc_figures(x->samples, x->proc_n, x->k, q, out);
        return got == x->k ? got : 0;
    }
    double *d = mb__calloc(x->n ? x->n : 1, sizeof *d);
    if (!d)
        return 0;
    for (size_t i = 0; i < x->n; i++)
        d[i] = (double)x->samples[i];
    size_t got = mb__block_figures(d, x->n, blocks, q, out);
    free(d);
    return got;
}

/* Digits that tell a ratio from its neighbours: 3, or 4 when the CI is
 * narrower than 1%. */
/* {value, ci95, unit, replicates} of a speedup (the inverse of the ratio
 * variant / baseline), or null when r could not be estimated. */
static json_t *speedup_json(const mb_ratio *r, const char *unit)
{
    return r->ok ? json_pack("{s:f,s:[f,f],s:s,s:I}", "value", 1 / r->ratio,
                             "ci95", 1 / r->hi, 1 / r->lo, "unit", unit,
                             "replicates", (json_int_t)r->ka)
                 : json_null();
}

static int ratio_digits(double lo, double hi)
{
    return hi - lo < 0.01 ? 4 : 3;
}

/* Speedup of x against b, its CI, the test and the verdict. */
static void judge_speed(json_t *e, json_t *recs, const mb__cmp_variant *b,
                        const mb__cmp_variant *x, const mb__cmp_opts *o)
{
    int by_process = b->k >= 2 && x->k == b->k;
    size_t n_min = b->n < x->n ? b->n : x->n;
    size_t blocks = by_process ? 0 : mb__blocks_for(n_min);
    size_t cap = (b->k > x->k ? b->k : x->k) + 20;
    double *fb = mb__calloc(cap, sizeof *fb), *fx = mb__calloc(cap, sizeof *fx);
    mb_ratio r50 = {0}, r99 = {0};
    size_t nb = 0, nx = 0;
    if (fb && fx) {
        nb = replicate_figures(b, 50, blocks, fb);
        nx = replicate_figures(x, 50, blocks, fx);
        if (nb >= 2 && nb == nx)
            mb__ratio_paired(fb, fx, nb, 0.95, &r50);
        size_t b99 = by_process ? 0 : n_min / 200 > 20 ? 20 : n_min / 200;
        nb = replicate_figures(b, 99, b99 >= 5 ? b99 : 0, fb);
        nx = replicate_figures(x, 99, b99 >= 5 ? b99 : 0, fx);
        if (nb >= 2 && nb == nx)
            mb__ratio_paired(fb, fx, nb, 0.95, &r99);
    }
    free(fb);
    free(fx);
    const char *unit = by_process ? "process" : "block";
    /* ratio = variant / baseline; speedup = its inverse */
    json_object_set_new(e, "speedup_median", speedup_json(&r50, unit));
    json_object_set_new(e, "speedup_p99", speedup_json(&r99, unit));
    if (!r50.ok) {
        json_object_set_new(e, "significance", json_null());
        rec(recs, 0, "too few samples or processes to estimate a speedup");
        return;
    }
    double s = 1 / r50.ratio, lo = 1 / r50.hi, hi = 1 / r50.lo;
    double band = 1 + o->threshold;
    const char *verdict;
    int claim = 0;
    size_t need = 0;
    char needbuf[200];
    if (!by_process) {
        verdict = "not decided (one process per variant)";
    } else if (r50.p < o->alpha && lo > band) {
        verdict = "faster";
        claim = 1;
    } else if (r50.p < o->alpha && hi < 1 / band) {
        verdict = "slower";
        claim = 1;
    } else if (lo >= 1 / band && hi <= band) {
        verdict = "same";
    } else {
        verdict = "no significant difference";
        double eff = fabs(log(s)), thr = log(band);
        double half = eff > 2 * thr ? eff - thr : thr;
        need =
            mb__replicates_needed(r50.se_log * sqrt((double)r50.ka), half, 1);
    }
    json_object_set_new(
        e, "significance",
        json_pack("{s:s,s:f,s:f,s:f,s:b,s:s,s:f,s:s,s:I,s:o}", "test",
                  by_process ? "paired t on log per-process medians"
                             : "paired t on log block medians (within-run "
                               "noise only)",
                  "p", r50.p, "t", isfinite(r50.t) ? r50.t : 0.0, "df", r50.df,
                  "significant", claim, "verdict", verdict, "noise_threshold",
                  o->threshold, "unit", unit, "replicates", (json_int_t)r50.ka,
                  "processes_needed",
                  need ? json_integer((json_int_t)need) : json_null()));
    int d = ratio_digits(lo, hi);
    if (!by_process)
        rec(recs, 0,
            "one process per variant: %.*fx (95%% CI %.*f-%.*f) "
            "covers within-run noise only; no difference is claimed (use "
            "--processes 40)",
            d, s, d, lo, d, hi);
    else if (!strcmp(verdict, "faster"))
        rec(recs, 1,
            "%.*fx faster than baseline (95%% CI %.*f-%.*f, %zu "
            "processes each)",
            d, s, d, lo, d, hi, r50.ka);
    else if (!strcmp(verdict, "slower"))
        rec(recs, 0,
            "%.*fx slower than baseline (95%% CI %.*f-%.*f, %zu "
            "processes each)",
            d, 1 / s, d, 1 / hi, d, 1 / lo, r50.ka);
    else if (!strcmp(verdict, "same"))
        rec(recs, 1,
            "same speed: %.*fx (95%% CI %.*f-%.*f lies within the "
            "%.3g%% noise threshold)",
            d, s, d, lo, d, hi, o->threshold * 100);
    else
        rec(recs, 1,
            "no significant latency difference: %.*fx (95%% CI "
            "%.*f-%.*f, p = %.2g); %s per variant would decide it",
            d, s, d, lo, d, hi, r50.p,
            mb__need_text(need, needbuf, sizeof needbuf));
}

/* A deep copy of v, or JSON null when v is NULL. */
static json_t *copy_or_null(const json_t *v)
{
    return v ? json_deep_copy(v) : json_null();
}

json_t *mb__compare_analyze(const mb__cmp_variant *v, size_t n, size_t baseline,
                            const mb__cmp_opts *o)
{
    json_t *cmp = json_object(), *vars = json_array();
    const mb__cmp_variant *b = &v[baseline];
    json_object_set_new(cmp, "baseline", json_string(b->name));
    json_object_set_new(cmp, "random_inputs_only",
                        json_boolean(o->random_inputs));
    char sig_text[320];
    snprintf(sig_text, sizeof sig_text,
             "paired Student t test on the log ratio of per-process medians "
             "(process i of each variant ran in the same round); a "
             "difference is claimed when p < %g AND the 95%% CI lies beyond "
             "the noise threshold (%.3g%%); 'same' when the CI lies within "
             "it",
             o->alpha, o->threshold * 100);
    json_object_set_new(
        cmp, "method",
        json_pack("{s:s,s:s,s:f,s:f,s:s,s:s}", "speedup",
                  "baseline median / variant median (> 1 is faster); the "
                  "median of each variant is the geometric mean of its "
                  "per-process medians",
                  "ci",
                  "Student t, 95%, over rounds of processes (with one "
                  "process per variant: over blocks of consecutive samples, "
                  "within-run noise only)",
                  "alpha", o->alpha, "noise_threshold", o->threshold, "unit",
                  "process", "significance", sig_text));
    double base_acc = jnum(b->accuracy, "top1", NULL);
    for (size_t k = 0; k < n; k++) {
        const mb__cmp_variant *x = &v[k];
        json_t *e = json_object(), *recs = json_array();
        json_object_set_new(e, "name", json_string(x->name));
        json_object_set_new(e, "baseline", json_boolean(k == baseline));
        json_object_set_new(e, "status",
                            json_string(x->error ? "failed" : "ok"));
        json_object_set_new(e, "error",
                            x->error ? json_string(x->error) : json_null());
        json_object_set_new(e, "accuracy", copy_or_null(x->accuracy));
        json_object_set_new(e, "agreement", copy_or_null(x->agreement));
        if (x->error) {
            rec(recs, 0, "FAILED: %s", x->error);
            json_object_set_new(e, "recommendations", recs);
            json_array_append_new(vars, e);
            continue;
        }
        /* Latency. */
        if (k != baseline && !b->error)
            judge_speed(e, recs, b, x, o);
        else if (k == baseline) {
            json_object_set_new(e, "speedup_median", ratio_json(1, 1, 1));
            json_object_set_new(e, "speedup_p99", ratio_json(1, 1, 1));
            json_object_set_new(e, "significance", json_null());
        } else {
            json_object_set_new(e, "speedup_median", json_null());
            json_object_set_new(e, "speedup_p99", json_null());
            json_object_set_new(e, "significance", json_null());
            rec(recs, 0,
                "the baseline %s FAILED: no speedup, memory or "
                "agreement against it",
                b->name);
        }
        /* Memory and size. */
        double mb_ = jnum(b->run, "memory", "rss_peak_bytes"),
               mx = jnum(x->run, "memory", "rss_peak_bytes");
        /* Size with external data (total_bytes; older documents only
         * have file_bytes). */
        double sb = jnum(json_object_get(b->run, "model"), "total_bytes", NULL),
               sx = jnum(json_object_get(x->run, "model"), "total_bytes", NULL);
        if (!isfinite(sb) || !isfinite(sx)) {
            sb = jnum(json_object_get(b->run, "model"), "file_bytes", NULL);
            sx = jnum(json_object_get(x->run, "model"), "file_bytes", NULL);
        }
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
            rec(recs, 0,
                "output agreement rests on random inputs only: "
                "pass --data (and --labels) for an accuracy verdict");
        json_object_set_new(e, "recommendations", recs);
        json_array_append_new(vars, e);
    }
    json_object_set_new(cmp, "variants", vars);
    return cmp;
}
