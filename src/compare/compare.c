/* compare.c - speedups, significance, ratios and recommendations. */
#include "compare/compare.h"

#include "core/alloc.h"
#include "core/rng.h"
#include "core/repstats.h"
#include "core/stats.h"
#include "compare/cmpverdict.h"
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

/* {value, ci95, unit, replicates} of a speedup (the inverse of the ratio
 * variant / baseline), or null when r could not be estimated. */
static json_t *speedup_json(const mb__ratio *r, const char *unit)
{
    return r->ok ? json_pack("{s:f,s:[f,f],s:s,s:I}", "value", 1 / r->ratio,
                             "ci95", 1 / r->hi, 1 / r->lo, "unit", unit,
                             "replicates", (json_int_t)r->ka)
                 : json_null();
}

/* Digits that tell a ratio from its neighbours: 3, or 4 when the CI is
 * narrower than 1%. */
static int ratio_digits(double lo, double hi)
{
    return hi - lo < 0.01 ? 4 : 3;
}

/* The paired ratio of two sets of per-replicate figures: over blocks of
 * consecutive rounds by process, else (one process each) over blocks of
 * samples, each block its own pair. */
static void pair_ratio(const double *fb, const double *fx, size_t n,
                       int by_process, mb__ratio *r)
{
    if (by_process)
        mb__ratio_paired_blocks(fb, fx, n, mb__round_blocks(n), 0.95, r);
    else
        mb__ratio_paired(fb, fx, n, 0.95, r);
}

/* The speed verdict of a ratio variant/baseline with its CI and test. */
static const char *speed_verdict(const mb__ratio *r, int by_process,
                                 const mb__cmp_opts *o, int *claim)
{
    double lo = 1 / r->hi, hi = 1 / r->lo;
    double band = 1 + o->threshold;
    *claim = 0;
    if (!by_process)
        return "not decided (one process per variant)";
    if (r->p < o->alpha && lo > band)
        return *claim = 1, "faster";
    if (r->p < o->alpha && hi < 1 / band)
        return *claim = 1, "slower";
    if (lo >= 1 / band && hi <= band)
        return "same";
    return "no significant difference";
}

/* "about N processes per variant would decide it" from the distance
 * between the estimate and the threshold it has to clear (beyond it for a
 * difference, within it for "same"), never fewer than were run; or why no
 * number of processes would. */
static void need_sentence(const mb__ratio *r, double threshold, size_t *need,
                          char *buf, size_t len)
{
    double dist = fabs(fabs(log(r->ratio)) - log(1 + threshold));
    char nb[200];
    *need = mb__rounds_needed(r, dist);
    if (*need == 0 && dist > 0)
        snprintf(buf, len,
                 "the drift of the ratio between blocks of rounds alone "
                 "(sd %.1f%%) keeps the CI wider than its distance to the "
                 "%.3g%% threshold: more processes would not decide it; "
                 "measure on a quieter machine",
                 r->sd_drift * 100, threshold * 100);
    else if (*need == 0)
        snprintf(buf, len,
                 "the estimate lies on the %.3g%% threshold: no number of "
                 "processes decides it; a different --threshold asks a "
                 "question that can be answered",
                 threshold * 100);
    else if (*need > MB_MAX_PROCESSES)
        snprintf(buf, len, "at this estimate and spread, %s per variant",
                 mb__need_text(*need, nb, sizeof nb));
    else /* an explicit count is never cut for slow starts */
        snprintf(buf, len,
                 "at this estimate and spread, %s per variant "
                 "(--processes %zu) would decide it",
                 mb__need_text(*need, nb, sizeof nb), *need);
}

/* Two modes among the speedups of the rounds (baseline median / variant
 * median of round i), when mb__replicate_modes finds them. */
typedef struct rmodes {
    int found;
    double lo, hi;
    size_t n_lo, n_hi;
} rmodes;

static void round_modes(const double *fb, const double *fx, size_t k, rmodes *m)
{
    double *s = mb__calloc(k, sizeof *s);
    if (!s)
        return;
    for (size_t i = 0; i < k; i++)
        s[i] = fx[i] > 0 ? fb[i] / fx[i] : 0;
    m->found = mb__replicate_modes(s, k, 1.15, &m->lo, &m->n_lo, &m->hi,
                                   &m->n_hi) == 2;
    free(s);
}

/* The sentences and JSON of what a speedup is made of: two modes of the
 * rounds, and a drift between blocks of rounds. */
static void speed_structure(json_t *sig, json_t *recs, const mb__ratio *r,
                            const rmodes *m)
{
    if (m->found) {
        json_object_set_new(sig, "round_modes",
                            json_pack("{s:{s:f,s:I},s:{s:f,s:I}}", "low",
                                      "speedup", m->lo, "rounds",
                                      (json_int_t)m->n_lo, "high", "speedup",
                                      m->hi, "rounds", (json_int_t)m->n_hi));
        rec(recs, 0,
            "the speedup is not uniform: %zu of %zu rounds at about "
            "%.3fx, %zu at about %.3fx (the estimate is the geometric mean "
            "over all rounds)",
            m->n_lo, m->n_lo + m->n_hi, m->lo, m->n_hi, m->hi);
    }
    if (r->drift_p < 0.05)
        rec(recs, 0,
            "the ratio drifted during the run: its blocks of rounds differ "
            "by more than their noise (drift sd %.1f%%, F test p = %.2g); "
            "the CI is over blocks and includes the drift",
            r->sd_drift * 100, r->drift_p);
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
    mb__ratio r50 = {0}, r99 = {0};
    rmodes modes = {0};
    size_t nb = 0, nx = 0;
    if (fb && fx) {
        nb = replicate_figures(b, 50, blocks, fb);
        nx = replicate_figures(x, 50, blocks, fx);
        if (nb >= 2 && nb == nx)
            pair_ratio(fb, fx, nb, by_process, &r50);
        if (by_process && nb >= 2 && nb == nx)
            round_modes(fb, fx, nb, &modes);
        size_t b99 = by_process ? 0 : n_min / 200 > 20 ? 20 : n_min / 200;
        nb = replicate_figures(b, 99, b99 >= 5 ? b99 : 0, fb);
        nx = replicate_figures(x, 99, b99 >= 5 ? b99 : 0, fx);
        if (nb >= 2 && nb == nx)
            pair_ratio(fb, fx, nb, by_process, &r99);
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
    int claim;
    const char *verdict = speed_verdict(&r50, by_process, o, &claim);
    size_t need = 0;
    char needbuf[400] = "";
    if (!strcmp(verdict, "no significant difference"))
        need_sentence(&r50, o->threshold, &need, needbuf, sizeof needbuf);
    json_t *sig = json_pack(
        "{s:s,s:f,s:f,s:f,s:b,s:s,s:f,s:s,s:I,s:o}", "test",
        by_process ? "paired t on log per-process medians, over blocks of "
                     "consecutive rounds"
                   : "paired t on log block medians (within-run noise only)",
        "p", r50.p, "t", isfinite(r50.t) ? r50.t : 0.0, "df", r50.df,
        "significant", claim, "verdict", verdict, "noise_threshold",
        o->threshold, "unit", unit, "replicates", (json_int_t)r50.ka,
        "processes_needed",
        need ? json_integer((json_int_t)need) : json_null());
    if (by_process)
        json_object_set_new(sig, "blocks", mb__ratio_blocks_json(&r50));
    json_object_set_new(e, "significance", sig);
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
            "%.*f-%.*f, p = %.2g, %zu processes each); %s",
            d, s, d, lo, d, hi, r50.p, r50.ka, needbuf);
    if (by_process)
        speed_structure(sig, recs, &r50, &modes);
}

/* A deep copy of v, or JSON null when v is NULL. */
static json_t *copy_or_null(const json_t *v)
{
    return v ? json_deep_copy(v) : json_null();
}

/* The "method" object: how speedups, intervals and significance are
 * computed. */
static json_t *method_json(const mb__cmp_opts *o)
{
    char sig_text[400];
    snprintf(sig_text, sizeof sig_text,
             "paired Student t test on the log ratio of per-process medians "
             "(process i of each variant ran in the same round), over "
             "blocks of consecutive rounds; a "
             "difference is claimed when p < %g AND the 95%% CI lies beyond "
             "the noise threshold (%.3g%%); 'same' when the CI lies within "
             "it",
             o->alpha, o->threshold * 100);
    return json_pack("{s:s,s:s,s:f,s:f,s:s,s:s}", "speedup",
                     "baseline median / variant median (> 1 is faster); the "
                     "median of each variant is the geometric mean of its "
                     "per-process medians",
                     "ci",
                     "Student t, 95%, over blocks of consecutive rounds of "
                     "processes (the mean log ratio of each block; every round "
                     "its own block up to 8 rounds, else 8 blocks), so that a "
                     "drift of the machine during the run widens it (with one "
                     "process per variant: over blocks of consecutive samples, "
                     "within-run noise only)",
                     "alpha", o->alpha, "noise_threshold", o->threshold, "unit",
                     "process", "significance", sig_text);
}

/* The speedups of x against the baseline b (1 for the baseline itself,
 * null when the baseline failed). */
static void add_speed(json_t *e, json_t *recs, const mb__cmp_variant *b,
                      const mb__cmp_variant *x, int is_base,
                      const mb__cmp_opts *o)
{
    if (!is_base && !b->error) {
        judge_speed(e, recs, b, x, o);
        return;
    }
    json_object_set_new(e, "speedup_median",
                        is_base ? ratio_json(1, 1, 1) : json_null());
    json_object_set_new(e, "speedup_p99",
                        is_base ? ratio_json(1, 1, 1) : json_null());
    json_object_set_new(e, "significance", json_null());
    if (!is_base)
        rec(recs, 0,
            "the baseline %s FAILED: no speedup, memory or "
            "agreement against it",
            b->name);
}

/* The memory and model size of x against the baseline b, with a
 * recommendation when they differ by more than the noise. */
static void add_memory(json_t *e, json_t *recs, const mb__cmp_variant *b,
                       const mb__cmp_variant *x, int is_base)
{
    double mb_ = jnum(b->run, "memory", "rss_peak_bytes"),
           mx = jnum(x->run, "memory", "rss_peak_bytes");
    /* Size with external data (total_bytes; older documents only have
     * file_bytes). */
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
                        isfinite(mx - mb_) ? json_real(mx - mb_) : json_null());
    json_object_set_new(e, "size_ratio",
                        sb > 0 && isfinite(sx) ? json_real(sx / sb)
                                               : json_null());
    char hb[32];
    if (!is_base && isfinite(mx - mb_)) {
        double d = mx - mb_, thr = fmax(1048576.0, 0.05 * mb_);
        human_bytes(d, hb, sizeof hb);
        if (d < -thr)
            rec(recs, 1, "%s less memory", hb);
        else if (d > thr)
            rec(recs, 0, "%s more memory", hb);
    }
    if (!is_base && sb > 0 && sx > 0) {
        if (sb / sx >= 1.1)
            rec(recs, 1, "%.1fx smaller model", sb / sx);
        else if (sx / sb >= 1.1)
            rec(recs, 0, "%.1fx larger model", sx / sb);
    }
}

/* The entry of variant k of "variants". */
static json_t *variant_json(const mb__cmp_variant *v, size_t k, size_t baseline,
                            double base_acc, const mb__cmp_opts *o)
{
    const mb__cmp_variant *x = &v[k], *b = &v[baseline];
    int is_base = k == baseline;
    json_t *e = json_object(), *recs = json_array();
    json_object_set_new(e, "name", json_string(x->name));
    json_object_set_new(e, "baseline", json_boolean(is_base));
    json_object_set_new(e, "status",
                        json_string(x->error         ? "failed"
                                    : o->interrupted ? "interrupted"
                                                     : "ok"));
    json_object_set_new(e, "error",
                        x->error ? json_string(x->error) : json_null());
    json_object_set_new(e, "accuracy", copy_or_null(x->accuracy));
    json_object_set_new(e, "agreement", copy_or_null(x->agreement));
    if (x->error) {
        rec(recs, 0, "FAILED: %s", x->error);
        json_object_set_new(e, "recommendations", recs);
        json_object_set_new(e, "headline",
                            json_sprintf("FAILED: %s", x->error));
        return e;
    }
    add_speed(e, recs, b, x, is_base, o);
    add_memory(e, recs, b, x, is_base);
    /* The verdict on every output and the labels. */
    if (!is_base)
        mb__cmp_judge_outputs(e, recs, x, base_acc, o);
    if (!is_base && o->random_inputs)
        rec(recs, 0,
            "output agreement rests on random inputs only: "
            "pass --data (and --labels) for an accuracy verdict");
    json_object_set_new(e, "recommendations", recs);
    char head[800];
    mb__cmp_headline(e, head, sizeof head);
    json_object_set_new(e, "headline", json_string(head));
    return e;
}

json_t *mb__compare_analyze(const mb__cmp_variant *v, size_t n, size_t baseline,
                            const mb__cmp_opts *o)
{
    json_t *cmp = json_object(), *vars = json_array();
    const mb__cmp_variant *b = &v[baseline];
    json_object_set_new(cmp, "baseline", json_string(b->name));
    json_object_set_new(cmp, "random_inputs_only",
                        json_boolean(o->random_inputs));
    json_object_set_new(cmp, "method", method_json(o));
    double base_acc = jnum(b->accuracy, "top1", NULL);
    for (size_t k = 0; k < n; k++)
        json_array_append_new(vars, variant_json(v, k, baseline, base_acc, o));
    json_object_set_new(cmp, "variants", vars);
    return cmp;
}
