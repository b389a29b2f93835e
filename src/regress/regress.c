/* regress.c - verdicts of the regression gate (see regress.h and docs/GATE.md).
 */
#include "regress/regress.h"

#include "accuracy/gate.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/clock.h"
#include "core/err.h"
#include "core/repstats.h"
#include "core/stats.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const metric_names[MB_GM_COUNT] = {
    "p50", "p90", "p95", "p99", "mean", "throughput", "memory", "size"};

const char *mb__regress_metric_name(int m)
{
    return m >= 0 && m < MB_GM_COUNT ? metric_names[m] : "?";
}

static const char *const verdict_names[] = {
    [MB_VERDICT_PASS] = "pass",
    [MB_VERDICT_REGRESSION] = "regression",
    [MB_VERDICT_IMPROVEMENT] = "improvement",
    [MB_VERDICT_INCONCLUSIVE] = "inconclusive",
    [MB_VERDICT_SKIPPED] = "skipped"};

const char *mb__verdict_name(mb__verdict v)
{
    return (size_t)v < sizeof verdict_names / sizeof verdict_names[0]
               ? verdict_names[v]
               : "skipped";
}

void mb__regress_defaults(mb__regress_opts *o)
{
    memset(o, 0, sizeof *o);
    for (int m = 0; m < MB_GM_COUNT; m++)
        o->threshold[m] = -1;
    /* p99 and throughput (the mean) are off by default: on a shared
     * machine they follow the scheduler's stalls, not the model (measured:
     * A/A p99 ratios up to 15x between two runs a few seconds apart; docs/
     * GATE.md).  Turn them on with --max-regression p99=10%,throughput=5%. */
    o->threshold[MB_GM_P50] = 0.05;
    o->threshold[MB_GM_MEMORY] = 0.10;
    o->threshold[MB_GM_SIZE] = 0.01;
    o->alpha = MB_REGRESS_ALPHA;
    o->seed = 1;
}

mb_status mb__regress_parse_thresholds(const char *spec, mb__regress_opts *o,
                                       mb_err *err)
{
    if (!spec || !*spec)
        return mb__fail(err, MB_EINVAL,
                        "--max-regression is empty: give e.g. "
                        "p50=5%%,p99=10%%");
    char *copy = mb__strdup(spec), *save = NULL;
    if (!copy)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    mb_status st = MB_OK;
    for (char *item = strtok_r(copy, ",", &save); item && !st;
         item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        int m = -1;
        if (eq) {
            *eq = '\0';
            for (int k = 0; k < MB_GM_COUNT; k++)
                if (strcmp(item, metric_names[k]) == 0)
                    m = k;
        }
        if (m < 0) {
            st = mb__fail(err, MB_EINVAL,
                          "--max-regression item '%s' is not METRIC=N%%: "
                          "metrics are p50, p90, p95, p99, mean, throughput, "
                          "memory, size",
                          item);
            break;
        }
        const char *v = eq + 1;
        if (strcmp(v, "off") == 0) {
            o->threshold[m] = -1;
            continue;
        }
        char *end;
        errno = 0;
        double x = strtod(v, &end);
        if (errno || end == v || strcmp(end, "%") != 0 || !isfinite(x) ||
            x < 0 || x > 1000) {
            st = mb__fail(err, MB_EINVAL,
                          "--max-regression %s=%s: expected a percentage "
                          "such as %s=5%% (or %s=off)",
                          item, v, item, item);
            break;
        }
        o->threshold[m] = x / 100.0;
    }
    free(copy);
    return st;
}

/* ---- the statistical rule --------------------------------------------- */

static double mean_of(const double *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    return n ? s / (double)n : NAN;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Percentile bootstrap 95% CI of mean(cur)/mean(base). */
static double pct(const double *x, size_t n, double q)
{
    double *s = mb__calloc(n, sizeof *s);
    if (!s)
        return NAN;
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_d);
    double v = mb__percentile_sorted(s, n, q);
    free(s);
    return v;
}

static json_t *num_or_null(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

/* Signed percentage of a ratio, "+12.3%". */
static void pct_str(char *b, size_t len, double ratio)
{
    snprintf(b, len, "%+.1f%%", (ratio - 1.0) * 100.0);
}

/* The between-run term of a two-run gate: the sd of one run's level on
 * the log scale, how many stored runs estimated it (0: the default) and
 * where it came from. */
typedef struct drift {
    double tau;
    size_t runs;
    const char *source; /* "history" or "default" */
} drift;

static mb__verdict judge_replicates(const char *metric, const double *fb,
                                    size_t kb, const double *fc, size_t kc,
                                    double threshold, int higher_is_better,
                                    int paired, const drift *dr,
                                    const mb__regress_opts *o, json_t **out);

mb__verdict mb__regress_replicates(const char *metric, const double *fb,
                                   size_t kb, const double *fc, size_t kc,
                                   double threshold, int higher_is_better,
                                   const mb__regress_opts *o, json_t **out)
{
    return judge_replicates(metric, fb, kb, fc, kc, threshold, higher_is_better,
                            0, NULL, o, out);
}

/* The ratio of the two sides: paired over blocks of rounds, or two runs
 * with the between-run term dr (none when NULL). */
static bool side_ratio(const double *b, size_t kb, const double *c, size_t kc,
                       int paired, const drift *dr, mb__ratio *r)
{
    if (paired)
        return mb__ratio_paired_blocks(b, c, kb, mb__round_blocks(kb), 0.95, r);
    return mb__ratio_welch_drift(b, kb, c, kc, dr ? dr->tau : 0,
                                 dr ? dr->runs : 0, 0.95, r);
}

/* "N per side would decide it", from the distance between the estimate
 * and the limit it has to clear; or why no count would. */
static void need_text(const mb__ratio *r, int paired, double dist,
                      const drift *dr, size_t *need, char *buf, size_t len)
{
    char nb[200];
    *need = paired ? mb__rounds_needed(r, dist)
                   : mb__runs_processes_needed(r, dist);
    if (*need)
        snprintf(buf, len,
                 "at this estimate and spread, %s per side would "
                 "decide it",
                 mb__need_text(*need, nb, sizeof nb));
    else if (!(dist > 0))
        snprintf(buf, len,
                 "the estimate lies on the threshold: no number of "
                 "processes decides it");
    else if (paired)
        snprintf(buf, len,
                 "the drift of the ratio between blocks of rounds (sd "
                 "%.1f%%) alone keeps the CI this wide: more processes "
                 "would not decide it; measure on a quieter machine",
                 r->sd_drift * 100);
    else
        snprintf(buf, len,
                 "the drift between two runs (sd %.1f%% of a run's level, "
                 "%s) alone keeps the CI this wide: no number of processes "
                 "decides it; measure both sides in one compare and gate "
                 "it with --current",
                 r->tau * 100,
                 dr && dr->runs ? "from the stored history"
                                : "the default for two runs");
}

/* The ratio, its CI and test, and what the interval is made of. */
static void describe_test(json_t *j, const mb__ratio *r, int paired,
                          const drift *dr)
{
    json_object_set_new(j, "ratio", json_real(r->ratio));
    json_object_set_new(j, "ci95", json_pack("[f,f]", r->lo, r->hi));
    json_object_set_new(j, "p_value", json_real(r->p));
    json_object_set_new(
        j, "test",
        json_string(paired ? "paired t on log per-process figures (round by "
                             "round), over blocks of consecutive rounds"
                    : dr   ? "Welch t on log per-process figures, with a "
                             "between-run term"
                           : "Welch t on log per-process figures"));
    json_object_set_new(j, "df", json_real(r->df));
    if (paired)
        json_object_set_new(j, "blocks", mb__ratio_blocks_json(r));
    else if (dr)
        json_object_set_new(j, "between_run",
                            json_pack("{s:f,s:I,s:s}", "sd_log", dr->tau,
                                      "runs", (json_int_t)dr->runs, "source",
                                      dr->source));
}

/* The verdict rule of GATE.md on a ratio current/baseline (throughput:
 * judged on its inverse, shown as its own), the reason into why and the
 * processes that would decide an inconclusive case into *need. */
static mb__verdict rule(const char *metric, const mb__ratio *r,
                        double threshold, int higher_is_better, int paired,
                        const drift *dr, const mb__regress_opts *o,
                        size_t *need, char *why, size_t len)
{
    /* Judged as badness (> 1 is worse). */
    double bad = higher_is_better ? 1 / r->ratio : r->ratio;
    double bad_lo = higher_is_better ? 1 / r->hi : r->lo;
    double bad_hi = higher_is_better ? 1 / r->lo : r->hi;
    double worse = 1.0 + threshold, better = 1.0 / (1.0 + threshold);
    char c_est[24], c_lo[24], c_hi[24], c_thr[24], needbuf[400];
    pct_str(c_est, sizeof c_est, r->ratio);
    pct_str(c_lo, sizeof c_lo, r->lo);
    pct_str(c_hi, sizeof c_hi, r->hi);
    snprintf(c_thr, sizeof c_thr, "%s%.1f%%", higher_is_better ? "-" : "+",
             threshold * 100.0);
    int sig = r->p < o->alpha;
    char ps[32]; /* "=1.2e-05", or "<1e-300" where the tail underflows */
    if (r->p < 1e-300)
        snprintf(ps, sizeof ps, "<1e-300");
    else
        snprintf(ps, sizeof ps, "=%.2g", r->p);
    *need = 0;
    if (sig && bad_lo > worse) {
        snprintf(why, len,
                 "%s %s (95%% CI %s..%s over %zu+%zu processes) beyond %s, "
                 "p%s < %g",
                 metric, c_est, c_lo, c_hi, r->ka, r->kb, c_thr, ps, o->alpha);
        return MB_VERDICT_REGRESSION;
    }
    if (sig && bad_hi < better) {
        snprintf(why, len, "%s %s (95%% CI %s..%s), p%s < %g", metric, c_est,
                 c_lo, c_hi, ps, o->alpha);
        return MB_VERDICT_IMPROVEMENT;
    }
    if (bad_hi <= worse) {
        snprintf(why, len, "%s %s (95%% CI %s..%s) within %s", metric, c_est,
                 c_lo, c_hi, c_thr);
        return MB_VERDICT_PASS;
    }
    if (bad_lo > worse) {
        /* Beyond the threshold but p >= alpha: the interval at 1 - alpha
         * has to clear 1; its half-width scales by the z ratio. */
        double dist =
            fabs(log(bad)) * 1.959964 / mb__t_quantile(1 - o->alpha / 2, 1e6);
        need_text(r, paired, dist, dr, need, needbuf, sizeof needbuf);
        snprintf(why, len,
                 "%s %s (95%% CI %s..%s) beyond %s but not significant "
                 "(p%s >= %g); %s",
                 metric, c_est, c_lo, c_hi, c_thr, ps, o->alpha, needbuf);
    } else {
        need_text(r, paired, fabs(log(bad) - log(worse)), dr, need, needbuf,
                  sizeof needbuf);
        snprintf(why, len,
                 "%s %s: 95%% CI %s..%s straddles the %s threshold; %s", metric,
                 c_est, c_lo, c_hi, c_thr, needbuf);
    }
    return MB_VERDICT_INCONCLUSIVE;
}

/* paired: replicate i of both sides ran side by side (a compare's round
 * i): a paired t on the log ratios over blocks of rounds instead of
 * Welch.  Otherwise dr (may be NULL) is the between-run term. */
static mb__verdict judge_replicates(const char *metric, const double *fb,
                                    size_t kb, const double *fc, size_t kc,
                                    double threshold, int higher_is_better,
                                    int paired, const drift *dr,
                                    const mb__regress_opts *o, json_t **out)
{
    json_t *j = json_object();
    *out = j;
    json_object_set_new(j, "metric", json_string(metric));
    json_object_set_new(j, "threshold", json_real(threshold));
    json_object_set_new(j, "unit", json_string("process"));
    json_object_set_new(j, "processes_baseline", json_integer((json_int_t)kb));
    json_object_set_new(j, "processes_current", json_integer((json_int_t)kc));
    char why[640];
    mb__verdict v = MB_VERDICT_INCONCLUSIVE;
    /* Throughput is 1e9 / mean latency; its ratio is the inverse. */
    double *b = mb__calloc(kb + 1, sizeof *b),
           *c = mb__calloc(kc + 1, sizeof *c);
    for (size_t i = 0; b && i < kb; i++)
        b[i] = higher_is_better ? 1e9 / fb[i] : fb[i];
    for (size_t i = 0; c && i < kc; i++)
        c[i] = higher_is_better ? 1e9 / fc[i] : fc[i];
    mb__gm gb, gc;
    mb__gm_ci(b ? b : fb, kb, 0.95, &gb);
    mb__gm_ci(c ? c : fc, kc, 0.95, &gc);
    json_object_set_new(j, "baseline", num_or_null(gb.est));
    json_object_set_new(j, "current", num_or_null(gc.est));
    mb__ratio r;
    if (kb < 2 || kc < 2) {
        snprintf(why, sizeof why,
                 "cannot decide: %s measured in %zu process(es) on the "
                 "baseline side and %zu on the current side; one process "
                 "measures within-run noise only and cannot tell a "
                 "regression from a process that settled differently: run "
                 "both sides with --processes 40 (the default)",
                 metric, kb, kc);
        json_object_set_new(j, "ratio",
                            num_or_null(gb.est > 0 ? gc.est / gb.est : NAN));
        json_object_set_new(j, "ci95", json_null());
        json_object_set_new(j, "p_value", json_null());
        goto done;
    }
    if (paired && kb != kc) {
        snprintf(why, sizeof why,
                 "%s: %zu and %zu processes cannot be "
                 "paired round by round",
                 metric, kb, kc);
        json_object_set_new(j, "ratio", json_null());
        json_object_set_new(j, "ci95", json_null());
        json_object_set_new(j, "p_value", json_null());
        goto done;
    }
    if (!b || !c || !side_ratio(b, kb, c, kc, paired, dr, &r)) {
        snprintf(why, sizeof why, "%s: a figure is not positive", metric);
        json_object_set_new(j, "ratio", json_null());
        json_object_set_new(j, "ci95", json_null());
        json_object_set_new(j, "p_value", json_null());
        goto done;
    }
    describe_test(j, &r, paired, dr);
    size_t need = 0;
    v = rule(metric, &r, threshold, higher_is_better, paired, dr, o, &need, why,
             sizeof why);
    json_object_set_new(j, "processes_needed",
                        need ? json_integer((json_int_t)need) : json_null());
done:
    free(b);
    free(c);
    json_object_set_new(j, "verdict", json_string(mb__verdict_name(v)));
    json_object_set_new(j, "reason", json_string(why));
    return v;
}

/* Raw samples of a run as doubles (caller frees); *n = 0 when absent. */
static double *samples_of(const json_t *run, size_t *n)
{
    const json_t *a = json_object_get(run, "samples_ns");
    *n = 0;
    size_t len = json_array_size(a);
    if (len == 0)
        return NULL;
    double *x = mb__calloc(len, sizeof *x);
    if (!x)
        return NULL;
    size_t k = 0, i;
    const json_t *v;
    json_array_foreach(a, i, v)
    {
        if (json_is_number(v))
            x[k++] = json_number_value(v);
    }
    *n = k;
    return x;
}

/* Per-process figures of a run: from "replication.per_process" (median,
 * p99, mean), else recomputed from samples_ns and samples_per_process
 * (any percentile); a run without either has one "process" whose figure
 * comes from its samples or its latency summary.  Caller frees; *k = 0
 * when nothing is known. */
static double *replicate_figures(const json_t *run, double q, size_t *k)
{
    *k = 0;
    const char *key = q == 50   ? "median"
                      : q == 99 ? "p99"
                      : q < 0   ? "mean"
                                : NULL;
    const json_t *pp = json_object_get(
        json_object_get(json_object_get(run, "replication"), "per_process"),
        key ? key : "");
    const json_t *pn = json_object_get(run, "samples_per_process");
    const json_t *sa = json_object_get(run, "samples_ns");
    size_t cap = json_array_size(pp) + json_array_size(pn) + 1;
    double *x = mb__calloc(cap, sizeof *x);
    if (!x)
        return NULL;
    size_t i;
    const json_t *v;
    /* A program's run (exec, suite) is one process: each of its samples
     * is the wall time of a fresh process, so the samples are the
     * per-process figures of the central metrics. */
    if (json_is_object(json_object_get(run, "exec")) && (q == 50 || q < 0) &&
        json_array_size(sa) >= 2) {
        free(x);
        x = mb__calloc(json_array_size(sa), sizeof *x);
        if (!x)
            return NULL;
        json_array_foreach(sa, i,
                           v) if (json_is_number(v) && json_number_value(v) > 0)
            x[(*k)++] = json_number_value(v);
        return x;
    }
    if (json_array_size(pp)) {
        json_array_foreach(pp, i,
                           v) if (json_is_number(v) && json_number_value(v) > 0)
            x[(*k)++] = json_number_value(v);
        return x;
    }
    size_t np = json_array_size(pn), off = 0;
    if (np && json_array_size(sa)) {
        json_array_foreach(pn, i, v)
        {
            size_t m = (size_t)json_integer_value(v);
            double *d = mb__calloc(m ? m : 1, sizeof *d);
            for (size_t t = 0; d && t < m; t++)
                d[t] = json_number_value(json_array_get(sa, off + t));
            off += m;
            if (!d || m == 0 ||
                (q >= 0 && q != 50 && !mb__percentile_supported(m, q))) {
                free(d);
                continue;
            }
            x[(*k)++] = q < 0 ? mean_of(d, m) : pct(d, m, q);
            free(d);
        }
        return x;
    }
    /* One process: its figure, so that the message can show it. */
    size_t n;
    double *s = samples_of(run, &n);
    if (s && n) {
        x[0] = q < 0 ? mean_of(s, n) : pct(s, n, q);
        *k = 1;
    } else {
        const json_t *lat = json_object_get(run, "latency");
        const json_t *f = json_object_get(lat, q == 50   ? "median"
                                               : q == 99 ? "p99"
                                               : q == 90 ? "p90"
                                               : q == 95 ? "p95"
                                                         : "mean");
        if (json_is_number(f)) {
            x[0] = json_number_value(f);
            *k = 1;
        }
    }
    free(s);
    return x;
}

/* A single figure (memory, size): larger is worse; plain threshold, with
 * an absolute floor below which a change is noise. */
static mb__verdict gate_figure(const char *metric, const json_t *jb,
                               const json_t *jc, double threshold,
                               double floor_abs, const char *unit, json_t **out)
{
    json_t *j = json_object();
    *out = j;
    json_object_set_new(j, "metric", json_string(metric));
    json_object_set_new(j, "threshold", json_real(threshold));
    char why[300];
    mb__verdict v;
    if (!json_is_number(jb) || !json_is_number(jc)) {
        v = MB_VERDICT_SKIPPED;
        snprintf(why, sizeof why, "%s not recorded in the %s", metric,
                 !json_is_number(jb) ? "baseline" : "current results");
        json_object_set_new(j, "baseline", json_null());
        json_object_set_new(j, "current", json_null());
        json_object_set_new(j, "ratio", json_null());
    } else {
        double b = json_number_value(jb), c = json_number_value(jc);
        double ratio = b > 0 ? c / b : (c > 0 ? INFINITY : 1.0);
        json_object_set_new(j, "baseline", json_real(b));
        json_object_set_new(j, "current", json_real(c));
        json_object_set_new(j, "ratio", num_or_null(ratio));
        double d = c - b;
        if (c > b * (1.0 + threshold) && d > floor_abs) {
            v = MB_VERDICT_REGRESSION;
            snprintf(why, sizeof why,
                     "%s grew %+.1f%% (%.0f -> %.0f %s), more than +%.1f%%",
                     metric, (ratio - 1) * 100, b, c, unit, threshold * 100);
        } else if (c < b * (1.0 - threshold) && -d > floor_abs) {
            v = MB_VERDICT_IMPROVEMENT;
            snprintf(why, sizeof why, "%s shrank %+.1f%% (%.0f -> %.0f %s)",
                     metric, (ratio - 1) * 100, b, c, unit);
        } else {
            v = MB_VERDICT_PASS;
            snprintf(why, sizeof why, "%s %.0f -> %.0f %s, within +%.1f%%",
                     metric, b, c, unit, threshold * 100);
        }
    }
    json_object_set_new(j, "ci95", json_null());
    json_object_set_new(j, "p_value", json_null());
    json_object_set_new(j, "verdict", json_string(mb__verdict_name(v)));
    json_object_set_new(j, "reason", json_string(why));
    return v;
}

/* ---- documents -------------------------------------------------------- */

mb_status mb__regress_check_doc(const json_t *doc, const char *what,
                                mb_err *err)
{
    if (!json_is_object(doc))
        return mb__fail(err, MB_EFORMAT,
                        "%s is not a JSON object: expected an mbench result "
                        "document",
                        what);
    const char *schema = json_string_value(json_object_get(doc, "schema"));
    if (!schema)
        return mb__fail(err, MB_EFORMAT,
                        "%s has no \"schema\" field: expected an mbench "
                        "result document (\"mbench.result/1\")",
                        what);
    if (strcmp(schema, "mbench.result/1") != 0)
        return mb__fail(err, MB_EFORMAT,
                        "%s has schema '%s' but this mbench %s reads "
                        "'mbench.result/1'; re-run it with this mbench",
                        what, schema, MB_VERSION_STRING);
    if (!json_is_array(json_object_get(doc, "runs")))
        return mb__fail(err, MB_EFORMAT, "%s has no \"runs\" array", what);
    if (json_is_true(json_object_get(doc, "interrupted")))
        return mb__fail(err, MB_EFORMAT,
                        "%s was interrupted (\"interrupted\": true): its "
                        "figures cover only the rounds that finished, and a "
                        "verdict on them would not be the documented one; "
                        "measure it again to the end",
                        what);
    return MB_OK;
}

static const char *run_str(const json_t *run, const char *a, const char *b)
{
    const json_t *o = b ? json_object_get(run, a) : run;
    return json_string_value(json_object_get(o, b ? b : a));
}

static const char *model_name(const json_t *run)
{
    const char *n = run_str(run, "model", "name");
    if (!n) {
        const char *p = run_str(run, "model", "path");
        if (p) {
            const char *slash = strrchr(p, '/');
            n = slash ? slash + 1 : p;
        }
    }
    if (!n) /* a program measured by exec or suite */
        n = run_str(run, "command", NULL);
    return n ? n : "?";
}

static int run_ok(const json_t *run)
{
    const char *s = run_str(run, "status", NULL);
    return !s || strcmp(s, "ok") == 0;
}

static int str_eq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

static int64_t batch_of(const json_t *run)
{
    return (int64_t)json_integer_value(json_object_get(run, "batch_size"));
}

static void describe_run(mb__buf *b, const json_t *run)
{
    mb__buf_printf(
        b, "%s %s variant %s",
        json_object_get(run, "model") ? "model" : "program", model_name(run),
        run_str(run, "variant", NULL) ? run_str(run, "variant", NULL) : "?");
    if (json_is_integer(json_object_get(run, "batch_size")))
        mb__buf_printf(b, " batch %" PRId64, batch_of(run));
}

/* Lists the batch sizes the other side has for the same model+variant. */
static void list_batches(mb__buf *b, const json_t *runs, const json_t *like)
{
    size_t i;
    const json_t *r;
    int any = 0;
    json_array_foreach(runs, i, r)
    {
        if (!run_ok(r) || !str_eq(run_str(r, "variant", NULL),
                                  run_str(like, "variant", NULL)))
            continue;
        mb__buf_printf(b, "%s%" PRId64, any ? ", " : "", batch_of(r));
        any = 1;
    }
    if (!any)
        mb__buf_puts(b, "none");
}

/* The between-run term of a figure ("p50", "p99", ...) from the stored
 * history of the run's benchmark (same model name, variant and batch
 * size), the newest MB_REGRESS_HISTORY_MAX runs: random effects by the
 * method of moments, tau^2 = var(log figure over the runs) - the mean
 * squared standard error of one run's own log figure (from its stored 95%
 * CI, p50 only; elsewhere 0, which errs wide), at least 0.  NAN with fewer
 * than MB_REGRESS_HISTORY_MIN runs. */
static double history_drift(const json_t *hist, const json_t *run,
                            const char *figure, size_t *used)
{
    *used = 0;
    if (!hist)
        return NAN;
    double x[MB_REGRESS_HISTORY_MAX], se2 = 0;
    size_t n = 0;
    for (size_t i = json_array_size(hist);
         i-- > 0 && n < MB_REGRESS_HISTORY_MAX;) {
        const json_t *h = json_array_get(hist, i);
        const json_t *v = json_object_get(h, figure);
        if (!json_is_number(v) || json_number_value(v) <= 0 ||
            json_integer_value(json_object_get(h, "batch_size")) !=
                batch_of(run) ||
            !str_eq(json_string_value(json_object_get(h, "model_name")),
                    model_name(run)) ||
            !str_eq(json_string_value(json_object_get(h, "variant")),
                    run_str(run, "variant", NULL)))
            continue;
        x[n++] = json_number_value(v);
        double lo = json_number_value(json_object_get(h, "p50_ci_lo")),
               hi = json_number_value(json_object_get(h, "p50_ci_hi"));
        if (!strcmp(figure, "p50") && lo > 0 && hi > lo) {
            double se = (log(hi) - log(lo)) / (2 * 1.959964);
            se2 += se * se;
        }
    }
    if (n < MB_REGRESS_HISTORY_MIN)
        return NAN;
    mb__gm g;
    mb__gm_ci(x, n, 0.95, &g);
    *used = n;
    double tau2 = g.sd_log * g.sd_log - se2 / (double)n;
    return tau2 > 0 ? sqrt(tau2) : 0;
}

/* The drift between two runs that a two-run gate of metric m adds: from
 * the history when it holds enough runs, else the documented default. */
static drift run_drift(const mb__regress_opts *o, const json_t *rc, int m)
{
    size_t used;
    double tau = history_drift(o->history, rc, metric_names[m], &used);
    if (isfinite(tau))
        return (drift){tau, used, "history"};
    return (drift){MB_REGRESS_DRIFT_DEFAULT, 0, "default"};
}

typedef struct {
    int counts[5];
    json_t *warnings;
    unsigned drift_warned; /* metrics whose threshold-below-drift is said */
} tally;

/* A two-run gate whose threshold is below the drift between runs: says
 * so once per metric. */
static void warn_drift(tally *t, int m, double thr, const drift *dr)
{
    double reach = exp(1.959964 * sqrt(2.0) * dr->tau) - 1;
    if (thr >= reach || (t->drift_warned & (1u << m)))
        return;
    t->drift_warned |= 1u << m;
    char w[600];
    snprintf(w, sizeof w,
             "%s: the threshold %.1f%% is below the drift between two "
             "separate runs (sd %.1f%% of a run's level, %s): two runs "
             "alone cannot tell a change smaller than about %.1f%% from "
             "that drift, so the CI includes it and the verdict will often "
             "be inconclusive; measure both sides in one compare and gate "
             "it with --current (docs/GATE.md)",
             metric_names[m], thr * 100, dr->tau * 100,
             dr->runs ? "estimated from the stored history"
                      : "the default for a gate without stored history",
             reach * 100);
    json_array_append_new(t->warnings, json_string(w));
}

static void compare_pair(const json_t *rb, const json_t *rc, const char *how,
                         const mb__regress_opts *o, int paired, tally *t,
                         json_t *comparisons)
{
    json_t *c = json_object();
    json_object_set_new(c, "model", json_string(model_name(rc)));
    json_object_set_new(c, "variant",
                        run_str(rc, "variant", NULL)
                            ? json_string(run_str(rc, "variant", NULL))
                            : json_null());
    json_object_set_new(c, "batch_size",
                        json_is_integer(json_object_get(rc, "batch_size"))
                            ? json_integer(batch_of(rc))
                            : json_null()); /* a program has none */
    json_object_set_new(c, "matched_by", json_string(how));
    const char *sb = run_str(rb, "model", "sha256"),
               *sc = run_str(rc, "model", "sha256");
    json_object_set_new(c, "baseline_sha256",
                        sb ? json_string(sb) : json_null());
    json_object_set_new(c, "current_sha256",
                        sc ? json_string(sc) : json_null());
    json_t *metrics = json_array();
    static const double qs[] = {50, 90, 95, 99, -1};
    for (int m = 0; m < MB_GM_COUNT; m++) {
        double thr = o->threshold[m];
        if (thr < 0)
            continue;
        json_t *j = NULL;
        mb__verdict v;
        if (m <= MB_GM_THROUGHPUT) {
            double q = m == MB_GM_THROUGHPUT ? -1 : qs[m];
            drift dr = run_drift(o, rc, m);
            if (!paired)
                warn_drift(t, m, thr, &dr);
            size_t kb, kc;
            double *fb = replicate_figures(rb, q, &kb),
                   *fc = replicate_figures(rc, q, &kc);
            v = judge_replicates(metric_names[m], fb, kb, fc, kc, thr,
                                 m == MB_GM_THROUGHPUT, paired,
                                 paired ? NULL : &dr, o, &j);
            free(fb);
            free(fc);
        } else if (m == MB_GM_MEMORY) {
            const char *mb_ = run_str(rb, "memory", "peak_method"),
                       *mc = run_str(rc, "memory", "peak_method");
            const json_t *pb = json_object_get(json_object_get(rb, "memory"),
                                               "rss_peak_bytes");
            const json_t *pc = json_object_get(json_object_get(rc, "memory"),
                                               "rss_peak_bytes");
            v = gate_figure("memory", pb, pc, thr,
                            MB_REGRESS_MEMORY_FLOOR_BYTES, "bytes", &j);
            if (mb_ && mc && strcmp(mb_, mc) != 0 && v != MB_VERDICT_SKIPPED) {
                v = MB_VERDICT_INCONCLUSIVE;
                json_object_set_new(j, "verdict", json_string("inconclusive"));
                char why[200];
                snprintf(why, sizeof why,
                         "peak memory measured differently (baseline %s, "
                         "current %s)",
                         mb_, mc);
                json_object_set_new(j, "reason", json_string(why));
            }
        } else {
            const json_t *mb0 = json_object_get(rb, "model"),
                         *mc0 = json_object_get(rc, "model");
            const char *sk =
                json_is_number(json_object_get(mb0, "total_bytes")) &&
                        json_is_number(json_object_get(mc0, "total_bytes"))
                    ? "total_bytes"
                    : "file_bytes";
            v = gate_figure("size", json_object_get(mb0, sk),
                            json_object_get(mc0, sk), thr, 0, "bytes", &j);
        }
        t->counts[v]++;
        json_array_append_new(metrics, j);
    }
    json_object_set_new(c, "metrics", metrics);
    json_array_append_new(comparisons, c);
}

/* ---- load documents (mbench load --slo) -------------------------------- */

static int is_load_doc(const json_t *d)
{
    return str_eq(json_string_value(json_object_get(d, "kind")), "load") &&
           json_is_object(json_object_get(d, "load"));
}

/* The answers of a load document's searches (requests/s); *n of them. */
static double *load_answers(const json_t *search, size_t *n)
{
    const json_t *a = json_object_get(search, "searches"), *e;
    size_t i;
    double *q = mb__calloc(json_array_size(a) + 1, sizeof *q);
    *n = 0;
    json_array_foreach(a, i, e)
    {
        double v = json_number_value(json_object_get(e, "qps"));
        if (q && v > 0)
            q[(*n)++] = 1e9 / v; /* ns per request: judged higher-is-better */
    }
    return q;
}

/* Gates the highest rate meeting the SLO (docs/LOAD.md, "gate"): with
 * two or more searches on each side, like throughput over processes
 * (Welch t test and CI of the ratio, the searches being the replicates);
 * with one, a plain threshold on the two answers.  The threshold is the
 * throughput one when gated, else 5%. */
static void load_gate(const json_t *base, const json_t *cur,
                      const mb__regress_opts *o, tally *t, json_t *comparisons)
{
    const json_t *lb = json_object_get(base, "load"),
                 *lc = json_object_get(cur, "load");
    const json_t *sb = json_object_get(lb, "search"),
                 *sc = json_object_get(lc, "search");
    const json_t *rc = json_object_get(lc, "run"),
                 *rb = json_object_get(lb, "run");
    double thr = o->threshold[MB_GM_THROUGHPUT] >= 0
                     ? o->threshold[MB_GM_THROUGHPUT]
                     : 0.05;
    json_t *c = json_object(), *metrics = json_array(), *j = NULL;
    json_object_set_new(c, "model", json_string(model_name(rc)));
    json_object_set_new(c, "variant", json_string("load --slo"));
    json_object_set_new(c, "batch_size", json_integer(batch_of(rc)));
    json_object_set_new(c, "matched_by", json_string("load search"));
    const char *shb = run_str(rb, "model", "sha256"),
               *shc = run_str(rc, "model", "sha256");
    json_object_set_new(c, "baseline_sha256",
                        shb ? json_string(shb) : json_null());
    json_object_set_new(c, "current_sha256",
                        shc ? json_string(shc) : json_null());
    mb__verdict v;
    char why[400];
    double pb = json_number_value(json_object_get(sb, "percentile")),
           pc = json_number_value(json_object_get(sc, "percentile")),
           bb = json_number_value(json_object_get(sb, "bound_ns")),
           bc = json_number_value(json_object_get(sc, "bound_ns"));
    size_t kb = 0, kc = 0;
    double *fb = load_answers(sb, &kb), *fc = load_answers(sc, &kc);
    double qb = json_number_value(json_object_get(sb, "qps")),
           qc = json_number_value(json_object_get(sc, "qps"));
    if (!sb || !sc) {
        v = MB_VERDICT_SKIPPED;
        snprintf(why, sizeof why, "no --slo search in the %s",
                 !sb ? "baseline" : "current results");
    } else if (pb != pc || bb != bc) {
        v = MB_VERDICT_INCONCLUSIVE;
        snprintf(why, sizeof why,
                 "different latency bounds (baseline p%g <= "
                 "%.0f ns, current p%g <= %.0f ns): the rates are not "
                 "comparable",
                 pb, pc, bb, bc);
    } else if (kb >= 2 && kc >= 2 &&
               kb == json_array_size(json_object_get(sb, "searches")) &&
               kc == json_array_size(json_object_get(sc, "searches"))) {
        v = judge_replicates("slo_qps", fb, kb, fc, kc, thr, 1, 0, NULL, o, &j);
        json_object_set_new(j, "unit", json_string("search"));
    } else {
        double ratio = qb > 0 ? qc / qb : (qc > 0 ? INFINITY : 1.0);
        if (qc < qb / (1 + thr)) {
            v = MB_VERDICT_REGRESSION;
            snprintf(why, sizeof why,
                     "highest rate meeting p%g fell %.1f%% "
                     "(%.0f -> %.0f requests/s), more than the %.1f%% "
                     "allowed (one search per side: no interval)",
                     pc, (ratio - 1) * 100, qb, qc, thr * 100);
        } else if (qc > qb * (1 + thr)) {
            v = MB_VERDICT_IMPROVEMENT;
            snprintf(why, sizeof why,
                     "highest rate meeting p%g rose %+.1f%% "
                     "(%.0f -> %.0f requests/s)",
                     pc, (ratio - 1) * 100, qb, qc);
        } else {
            v = MB_VERDICT_PASS;
            snprintf(why, sizeof why,
                     "highest rate meeting p%g %.0f -> %.0f "
                     "requests/s, within %.1f%% (one search per side: no "
                     "interval; --repeat gives one)",
                     pc, qb, qc, thr * 100);
        }
    }
    if (!j) {
        j = json_object();
        json_object_set_new(j, "metric", json_string("slo_qps"));
        json_object_set_new(j, "threshold", json_real(thr));
        json_object_set_new(j, "baseline", sb ? json_real(qb) : json_null());
        json_object_set_new(j, "current", sc ? json_real(qc) : json_null());
        json_object_set_new(
            j, "ratio", sb && sc && qb > 0 ? json_real(qc / qb) : json_null());
        json_object_set_new(j, "ci95", json_null());
        json_object_set_new(j, "p_value", json_null());
        json_object_set_new(j, "verdict", json_string(mb__verdict_name(v)));
        json_object_set_new(j, "reason", json_string(why));
    }
    free(fb);
    free(fc);
    t->counts[v]++;
    json_array_append_new(metrics, j);
    json_object_set_new(c, "metrics", metrics);
    json_array_append_new(comparisons, c);
}

/* ---- accuracy gates --------------------------------------------------- */

static int acc_holds(const mb__gate *g, double x)
{
    switch (g->op) {
    case MB_GATE_GE:
        return x >= g->value;
    case MB_GATE_LE:
        return x <= g->value;
    case MB_GATE_GT:
        return x > g->value;
    case MB_GATE_LT:
        return x < g->value;
    case MB_GATE_EQ:
        return x == g->value;
    default:
        return x != g->value;
    }
}

/* Collects every numeric field called `name` under j into found as
 * {where, value}. */
static void find_metric(const json_t *j, const char *name, mb__buf *path,
                        json_t *found)
{
    size_t keep = path->len;
    if (json_is_object(j)) {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)j, k, v)
        {
            mb__buf_printf(path, ".%s", k);
            if (strcmp(k, name) == 0 && json_is_number(v))
                json_array_append_new(found, json_pack("{s:s,s:f}", "where",
                                                       path->data, "value",
                                                       json_number_value(v)));
            else
                find_metric(v, name, path, found);
            path->len = keep;
            if (path->data)
                path->data[keep] = '\0';
        }
    } else if (json_is_array(j)) {
        size_t i;
        json_t *v;
        json_array_foreach(j, i, v)
        {
            mb__buf_printf(path, "[%zu]", i);
            find_metric(v, name, path, found);
            path->len = keep;
            if (path->data)
                path->data[keep] = '\0';
        }
    }
}

/* The figures called metric in the comparison and in each run's accuracy
 * section of cur: a new array of {path, value, ...} (find_metric). */
static json_t *accuracy_figures(const json_t *cur, const char *metric)
{
    json_t *found = json_array();
    mb__buf path = MB_BUF_INIT;
    mb__buf_puts(&path, "comparison");
    find_metric(json_object_get(cur, "comparison"), metric, &path, found);
    size_t r;
    const json_t *run;
    json_array_foreach(json_object_get(cur, "runs"), r, run)
    {
        path.len = 0;
        mb__buf_printf(&path, "runs[%zu].accuracy", r);
        find_metric(json_object_get(run, "accuracy"), metric, &path, found);
    }
    mb__buf_free(&path);
    return found;
}

static mb_status check_accuracy(const json_t *cur, const mb__regress_opts *o,
                                json_t *out, int *failed, mb_err *err)
{
    *failed = 0;
    for (size_t i = 0; i < o->n_accuracy; i++) {
        mb__gate g;
        mb_status st = mb__gate_parse(o->accuracy[i], &g, err);
        if (st)
            return mb__fail_prefix(err, "--gate");
        json_t *found = accuracy_figures(cur, g.metric);
        size_t k;
        json_t *f;
        json_array_foreach(found, k, f)
        {
            double x = json_real_value(json_object_get(f, "value"));
            int ok = acc_holds(&g, x);
            json_object_set_new(f, "gate", json_string(o->accuracy[i]));
            json_object_set_new(f, "verdict",
                                json_string(ok ? "pass" : "fail"));
            if (!ok)
                (*failed)++;
            json_array_append(out, f);
        }
        size_t n_found = json_array_size(found);
        json_decref(found);
        if (!n_found)
            return mb__fail(err, MB_EDATA,
                            "--gate '%s': the current results have no "
                            "accuracy figure '%s' (looked in \"comparison\" "
                            "and each run's \"accuracy\"); gate a metric that "
                            "mbench compare or validate recorded",
                            o->accuracy[i], g.metric);
    }
    return MB_OK;
}

/* ---- the whole gate --------------------------------------------------- */

static json_t *doc_ref(const json_t *doc, const char *source)
{
    json_t *o = json_object();
    json_object_set_new(o, "source", json_string(source ? source : ""));
    const json_t *c = json_object_get(doc, "created_utc");
    json_object_set_new(o, "created_utc", c ? json_deep_copy(c) : json_null());
    const json_t *git = json_object_get(json_object_get(doc, "store"), "git");
    if (git)
        json_object_set_new(o, "git", json_deep_copy(git));
    return o;
}

/* Warns (and marks res "comparable": false) when the two documents come
 * from different CPUs, hosts or runtime versions, or were measured with
 * different options: a difference may then be the machine's. */
static void check_comparable(const json_t *base, const json_t *cur,
                             json_t *warnings, json_t *res)
{
    static const char *const facts[][3] = {
        {"environment", "cpu_model", "CPU model"},
        {"environment", "hostname", "host"},
        {"mbench", "version", "mbench version"}};
    json_t *diff = json_array();
    for (size_t i = 0; i < sizeof facts / sizeof facts[0]; i++) {
        const char *a = json_string_value(json_object_get(
                       json_object_get(base, facts[i][0]), facts[i][1])),
                   *b = json_string_value(json_object_get(
                       json_object_get(cur, facts[i][0]), facts[i][1]));
        if (a && b && strcmp(a, b) != 0) {
            char w[400];
            snprintf(w, sizeof w,
                     "baseline and current come from different "
                     "%ss (%s vs %s): a difference may be the machine's",
                     facts[i][2], a, b);
            json_array_append_new(warnings, json_string(w));
            json_array_append_new(diff, json_string(facts[i][2]));
        }
    }
    /* Load: separate runs under different loads drift apart by more than
     * their CIs cover (the interleaved `gate --current COMPARE.json` does
     * not have this problem). */
    double lb = json_number_value(json_object_get(
               json_object_get(base, "environment"), "loadavg_1m")),
           lc = json_number_value(json_object_get(
               json_object_get(cur, "environment"), "loadavg_1m"));
    json_int_t cores = json_integer_value(
        json_object_get(json_object_get(cur, "environment"), "logical_cores"));
    if (json_object_get(json_object_get(base, "environment"), "loadavg_1m") &&
        json_object_get(json_object_get(cur, "environment"), "loadavg_1m") &&
        fabs(lb - lc) > 0.5 * (double)(cores > 0 ? cores : 1)) {
        char w[400];
        snprintf(w, sizeof w,
                 "the machine's load differed (1-minute load "
                 "average %.1f at the baseline, %.1f now, on %lld cores): a "
                 "latency change may be the load's; measure both in one "
                 "`mbench compare` and gate it with --current COMPARE.json",
                 lb, lc, (long long)(cores > 0 ? cores : 1));
        json_array_append_new(warnings, json_string(w));
        json_array_append_new(diff, json_string("load"));
    }
    const json_t *rb = json_array_get(json_object_get(base, "runs"), 0),
                 *rc = json_array_get(json_object_get(cur, "runs"), 0);
    const char *vb = json_string_value(
                   json_object_get(json_object_get(rb, "runtime"), "version")),
               *vc = json_string_value(
                   json_object_get(json_object_get(rc, "runtime"), "version"));
    if (vb && vc && strcmp(vb, vc) != 0) {
        char w[300];
        snprintf(w, sizeof w,
                 "baseline and current ran on different runtime "
                 "versions (%s vs %s)",
                 vb, vc);
        json_array_append_new(warnings, json_string(w));
        json_array_append_new(diff, json_string("runtime version"));
    }
    const json_t *ob = json_object_get(json_object_get(rb, "config"),
                                       "backend_options"),
                 *oc = json_object_get(json_object_get(rc, "config"),
                                       "backend_options");
    if (ob && oc && !json_equal(ob, oc)) {
        char *a = json_dumps(ob, JSON_COMPACT | JSON_SORT_KEYS),
             *b = json_dumps(oc, JSON_COMPACT | JSON_SORT_KEYS);
        char w[600];
        snprintf(w, sizeof w,
                 "baseline and current were measured with "
                 "different options (%s vs %s)",
                 a ? a : "?", b ? b : "?");
        free(a);
        free(b);
        json_array_append_new(warnings, json_string(w));
        json_array_append_new(diff, json_string("options"));
    }
    json_object_set_new(res, "comparable",
                        json_boolean(json_array_size(diff) == 0));
    json_object_set_new(res, "differences", diff);
}

/* What matching the runs of the two sides gives: the verdict counts and
 * warnings, the comparisons, the runs left without a counterpart and the
 * reason the first of them was left. */
typedef struct {
    tally t;
    json_t *comparisons, *unmatched;
    mb__buf first_miss;
} gate_match;

/* Notes the first reason a run was left unmatched. */
static void first_miss(gate_match *g, const char *reason)
{
    if (!g->first_miss.len)
        mb__buf_puts(&g->first_miss, reason ? reason : "");
}

/* A compare document gated on its own: every variant against the
 * baseline variant it was interleaved with, paired round by round. */
static void match_paired(const json_t *cur, const mb__regress_opts *o,
                         gate_match *g)
{
    const json_t *cruns = json_object_get(cur, "runs"), *rc;
    const char *bname = json_string_value(
        json_object_get(json_object_get(cur, "comparison"), "baseline"));
    size_t i;
    json_array_foreach(cruns, i, rc)
    {
        if (!run_ok(rc) || str_eq(run_str(rc, "variant", NULL), bname))
            continue;
        const json_t *rb = NULL, *x;
        size_t k;
        json_array_foreach(cruns, k,
                           x) if (run_ok(x) &&
                                  str_eq(run_str(x, "variant", NULL), bname) &&
                                  batch_of(x) == batch_of(rc)) rb = x;
        if (rb)
            compare_pair(rb, rc, "interleaved with the baseline variant", o, 1,
                         &g->t, g->comparisons);
    }
    if (!json_array_size(g->comparisons))
        mb__buf_printf(&g->first_miss,
                       "the comparison has no variant "
                       "besides its baseline %s that ran",
                       bname ? bname : "(none)");
}

/* The unused baseline run for rc: same variant and batch size, the same
 * model by sha256 (*by_sha set) or else by name; -1 when there is none. */
static long find_baseline(const json_t *bruns, const char *used,
                          const json_t *rc, long *by_sha)
{
    const char *vc = run_str(rc, "variant", NULL);
    const char *sc = run_str(rc, "model", "sha256");
    long by_name = -1;
    *by_sha = -1;
    for (size_t k = 0; k < json_array_size(bruns); k++) {
        const json_t *rb = json_array_get(bruns, k);
        if (used[k] || !run_ok(rb) || batch_of(rb) != batch_of(rc) ||
            !(str_eq(run_str(rb, "variant", NULL), vc) ||
              (!vc && !run_str(rb, "variant", NULL))))
            continue;
        if (sc && str_eq(run_str(rb, "model", "sha256"), sc)) {
            *by_sha = (long)k;
            break;
        }
        if (by_name < 0 && strcmp(model_name(rb), model_name(rc)) == 0)
            by_name = (long)k;
    }
    return *by_sha >= 0 ? *by_sha : by_name;
}

/* Appends the variants of the baseline's runs, each once: "'a', 'b'". */
static void list_variants(mb__buf *b, const json_t *bruns)
{
    size_t q;
    const json_t *r2;
    mb__buf seen = MB_BUF_INIT;
    json_array_foreach(bruns, q, r2)
    {
        const char *v2 = run_str(r2, "variant", NULL);
        char key[300];
        snprintf(key, sizeof key, "|%s|", v2 ? v2 : "");
        if (seen.data && strstr(seen.data, key))
            continue;
        mb__buf_puts(&seen, key);
        mb__buf_printf(b, "%s'%s'", q ? ", " : "", v2 ? v2 : "");
    }
    mb__buf_free(&seen);
}

/* Run r of side ("current", "baseline") left unmatched, and why: into
 * g->unmatched, and the first such reason kept. */
static void add_unmatched(gate_match *g, const char *side, const json_t *r,
                          const char *reason)
{
    const char *v = run_str(r, "variant", NULL);
    first_miss(g, reason);
    json_array_append_new(
        g->unmatched,
        json_pack("{s:s,s:s,s:s,s:I,s:s}", "side", side, "model", model_name(r),
                  "variant", v ? v : "", "batch_size", (json_int_t)batch_of(r),
                  "reason", reason ? reason : ""));
}

/* A current run rc with no baseline run: why, into g->unmatched. */
static void no_baseline(gate_match *g, const json_t *bruns, const json_t *rc)
{
    const char *vc = run_str(rc, "variant", NULL);
    mb__buf b = MB_BUF_INIT;
    mb__buf_puts(&b, "no baseline run for ");
    describe_run(&b, rc);
    mb__buf bl = MB_BUF_INIT;
    list_batches(&bl, bruns, rc);
    if (bl.data && strcmp(bl.data, "none")) {
        mb__buf_printf(&b,
                       " (the baseline has batch sizes %s for "
                       "that variant)",
                       bl.data);
    } else { /* no such variant: name the ones there are */
        mb__buf_printf(&b,
                       " (the baseline has no variant '%s'; its "
                       "variants are: ",
                       vc ? vc : "");
        list_variants(&b, bruns);
        mb__buf_puts(&b, "; runs are matched by variant name (run: the model "
                         "file's name, compare: NAME=MODEL) and "
                         "batch size)");
    }
    mb__buf_free(&bl);
    add_unmatched(g, "current", rc, b.data);
    mb__buf_free(&b);
}

/* Matched by model name while the files differ: a warning. */
static void warn_other_model(gate_match *g, const json_t *rb, const json_t *rc)
{
    const char *sb = run_str(rb, "model", "sha256"),
               *sc = run_str(rc, "model", "sha256");
    mb__buf b = MB_BUF_INIT;
    describe_run(&b, rc);
    mb__buf_printf(&b,
                   ": model sha256 differs (baseline %.12s, current "
                   "%.12s): matched by model name '%s' - the model "
                   "files are not the same",
                   sb ? sb : "none", sc ? sc : "none", model_name(rc));
    json_array_append_new(g->t.warnings, json_string(b.data ? b.data : ""));
    mb__buf_free(&b);
}

/* A baseline run rb that no current run matched: why, into g->unmatched. */
static void no_current(gate_match *g, const json_t *cruns, const json_t *rb)
{
    mb__buf b = MB_BUF_INIT;
    mb__buf_puts(&b, "baseline run ");
    describe_run(&b, rb);
    mb__buf_puts(&b, " has no counterpart in the current results (they "
                     "have batch sizes ");
    list_batches(&b, cruns, rb);
    mb__buf_puts(&b, " for that variant)");
    add_unmatched(g, "baseline", rb, b.data);
    mb__buf_free(&b);
}

/* Two documents: every current run against its baseline run, then the
 * baseline runs left over. */
static void match_runs(const json_t *base, const json_t *cur,
                       const mb__regress_opts *o, gate_match *g)
{
    const json_t *bruns = json_object_get(base, "runs"),
                 *cruns = json_object_get(cur, "runs"), *rc;
    size_t nbr = json_array_size(bruns), i;
    char *used = mb__calloc(nbr ? nbr : 1, 1);
    json_array_foreach(cruns, i, rc)
    {
        if (!run_ok(rc))
            continue;
        long by_sha, k = find_baseline(bruns, used, rc, &by_sha);
        if (k < 0) {
            no_baseline(g, bruns, rc);
            continue;
        }
        used[k] = 1;
        const json_t *rb = json_array_get(bruns, (size_t)k);
        if (by_sha < 0 &&
            (run_str(rb, "model", "sha256") || run_str(rc, "model", "sha256")))
            warn_other_model(g, rb, rc);
        compare_pair(rb, rc, by_sha >= 0 ? "sha256" : "name", o, 0, &g->t,
                     g->comparisons);
    }
    for (size_t k = 0; k < nbr; k++)
        if (!used[k] && run_ok(json_array_get(bruns, k)))
            no_current(g, cruns, json_array_get(bruns, k));
    free(used);
}

/* The verdict word and exit code of the counts. */
static const char *verdict_of(const tally *t, int acc_failed, int *code)
{
    *code = 0;
    if (t->counts[MB_VERDICT_REGRESSION]) {
        *code = 1;
        return "regression";
    }
    if (acc_failed) {
        *code = 5;
        return "accuracy_failure";
    }
    if (t->counts[MB_VERDICT_INCONCLUSIVE]) {
        *code = 4;
        return "inconclusive";
    }
    return "pass";
}

/* The "method" of a verdict: the test, interval and rule it applied. */
static json_t *method_of(const mb__regress_opts *o, int paired)
{
    json_t *m = json_pack(
        "{s:s,s:s,s:f,s:s,s:s,s:s}", "unit", "process", "test",
        "Welch t test on the log per-process figures (median, p99, "
        "mean; throughput = 1e9 / mean), two-sided",
        "alpha", o->alpha, "ci",
        "Student t 95% CI of the ratio of geometric means "
        "current/baseline (Welch-Satterthwaite df)",
        "rule",
        "regression: p < alpha and CI lower bound > 1+threshold; "
        "improvement: p < alpha and CI upper bound < 1/(1+threshold); "
        "pass: CI upper bound <= 1+threshold; otherwise inconclusive "
        "(throughput: limits on 1/ratio); fewer than 2 processes on a "
        "side: inconclusive",
        "figures",
        "memory and size: plain thresholds on single figures "
        "(memory ignores changes under 1 MiB)");
    if (paired)
        json_object_set_new(m, "test",
                            json_string("paired t test on the log "
                                        "per-process figures, round by round "
                                        "(a compare document: its variants "
                                        "against its baseline), two-sided"));
    return m;
}

/* The verdict document (mbench.gate/1) of a finished match; takes g's
 * arrays and accuracy.  *code: its exit code. */
static json_t *verdict_doc(const json_t *base, const json_t *cur,
                           const char *bs, const char *cs,
                           const mb__regress_opts *o, int paired, gate_match *g,
                           json_t *accuracy, int acc_failed, int *code)
{
    const char *verdict = verdict_of(&g->t, acc_failed, code);
    char now[32];
    mb__utc_iso8601(now, sizeof now);
    json_t *thr = json_object();
    for (int m = 0; m < MB_GM_COUNT; m++)
        json_object_set_new(thr, metric_names[m],
                            o->threshold[m] >= 0 ? json_real(o->threshold[m])
                                                 : json_null());
    json_t *res = json_object();
    json_object_set_new(res, "schema", json_string("mbench.gate/1"));
    json_object_set_new(res, "created_utc", json_string(now));
    json_object_set_new(res, "verdict", json_string(verdict));
    json_object_set_new(res, "exit_code", json_integer(*code));
    json_object_set_new(res, "baseline", doc_ref(base, bs));
    json_object_set_new(res, "current", doc_ref(cur, cs));
    json_object_set_new(res, "method", method_of(o, paired));
    if (paired)
        json_object_set_new(res, "paired", json_true());
    else
        check_comparable(base, cur, g->t.warnings, res);
    const int *n = g->t.counts;
    json_object_set_new(res, "thresholds", thr);
    json_object_set_new(res, "counts",
                        json_pack("{s:i,s:i,s:i,s:i,s:i}", "pass", n[0],
                                  "regression", n[1], "improvement", n[2],
                                  "inconclusive", n[3], "skipped", n[4]));
    json_object_set_new(res, "warnings", g->t.warnings);
    json_object_set_new(res, "comparisons", g->comparisons);
    json_object_set_new(res, "unmatched", g->unmatched);
    json_object_set_new(res, "accuracy", accuracy);
    return res;
}

mb_status mb__regress_run(const json_t *base, const json_t *cur,
                          const mb__regress_opts *o, json_t **out,
                          int *exit_code, mb_err *err)
{
    *out = NULL;
    *exit_code = MB_OK;
    const char *bs = o->baseline_source ? o->baseline_source : "baseline";
    const char *cs = o->current_source ? o->current_source : "current";
    char what[600];
    snprintf(what, sizeof what, "baseline %s", bs);
    mb_status st = mb__regress_check_doc(base, what, err);
    snprintf(what, sizeof what, "current %s", cs);
    if (st || (st = mb__regress_check_doc(cur, what, err)))
        return st;

    gate_match g = {
        {{0}, json_array(), 0}, json_array(), json_array(), MB_BUF_INIT};
    int paired =
        base == cur &&
        str_eq(json_string_value(json_object_get(cur, "kind")), "compare");
    if (paired)
        match_paired(cur, o, &g);
    else
        match_runs(base, cur, o, &g);
    if (is_load_doc(base) && is_load_doc(cur))
        load_gate(base, cur, o, &g.t, g.comparisons);
    json_t *accuracy = json_array();
    int acc_failed = 0;
    if (json_array_size(g.comparisons) == 0 && o->n_accuracy == 0)
        st = mb__fail(err, MB_EINVAL, "no run of %s matches %s: %s", cs, bs,
                      g.first_miss.len ? g.first_miss.data
                                       : "one side has no successful runs");
    mb__buf_free(&g.first_miss);
    if (!st)
        st = check_accuracy(cur, o, accuracy, &acc_failed, err);
    if (st) {
        json_decref(g.comparisons);
        json_decref(g.unmatched);
        json_decref(accuracy);
        json_decref(g.t.warnings);
        return st;
    }
    *out = verdict_doc(base, cur, bs, cs, o, paired, &g, accuracy, acc_failed,
                       exit_code);
    return MB_OK;
}
