/* require.c - parsing and judging `--require` expressions (require.h). */
#include "regress/require.h"

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"

#include <stdbool.h>
#include <ctype.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TEXT 512

static const char *const op_text[] = {">=", ">", "<=", "<", "==", "!="};

/* ---- the vocabulary --------------------------------------------------- */

typedef struct known {
    const char *name;
    mb__req_kind kind;
} known;

static const known known_figures[] = {
    {"speedup", MB_RK_PLAIN},
    {"speedup_p99", MB_RK_PLAIN},
    {"size_ratio", MB_RK_PLAIN},
    {"memory_ratio", MB_RK_PLAIN},
    {"top1", MB_RK_PLAIN},
    {"top5", MB_RK_PLAIN},
    {"agreement_top1", MB_RK_PLAIN},
    {"throughput", MB_RK_PLAIN},
    {"batches_per_s", MB_RK_PLAIN},
    {"ips", MB_RK_PLAIN},
    {"params", MB_RK_PLAIN},
    {"failures", MB_RK_PLAIN},
    {"p50", MB_RK_TIME},
    {"median", MB_RK_TIME},
    {"p90", MB_RK_TIME},
    {"p95", MB_RK_TIME},
    {"p99", MB_RK_TIME},
    {"mean", MB_RK_TIME},
    {"min", MB_RK_TIME},
    {"max", MB_RK_TIME},
    {"user", MB_RK_TIME},
    {"sys", MB_RK_TIME},
    {"time_per_sample", MB_RK_TIME},
    {"time_per_batch", MB_RK_TIME},
    {"rss_peak", MB_RK_BYTES},
    {"size", MB_RK_BYTES},
    {"gpu_peak", MB_RK_BYTES},
    {"leak", MB_RK_BOOL},
    {"gates", MB_RK_PASS},
    {"verdict", MB_RK_PASS},
    {"top1_delta", MB_RK_PLAIN},
};

/* Figures of each output's agreement with the baseline (a compare
 * variant's agreement.outputs and gates): judged per output. */
static const char *const output_figures[] = {"rel_l2",
                                             "cosine",
                                             "max_abs",
                                             "mae",
                                             "mse",
                                             "rmse",
                                             "psnr",
                                             "ssim",
                                             "pearson",
                                             "allclose_fail",
                                             "allclose_fail_fraction",
                                             "top1_agreement",
                                             "top5_agreement",
                                             "kl_mean",
                                             "kl_max",
                                             "nonfinite_new",
                                             "gates"};

static int is_output_figure(const char *f)
{
    for (size_t i = 0; i < sizeof output_figures / sizeof *output_figures; i++)
        if (!strcmp(f, output_figures[i]))
            return 1;
    return 0;
}

static const char *const loop_stats[] = {"p50", "median", "p90", "p95",
                                         "p99", "mean",   "min", "max"};

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

/* Relative figures exist for the variants compared with a baseline only. */
static int is_relative(const char *f)
{
    return !strncmp(f, "speedup", 7) || is_output_figure(f) ||
           !strcmp(f, "verdict") || ends_with(f, "_ratio") ||
           ends_with(f, "_delta") || ends_with(f, ".speedup");
}

/* The kind of a figure name into *kind; false when the name cannot be a
 * figure. */
static bool figure_kind(const char *f, mb__req_kind *kind)
{
    char base[MAX_TEXT];
    snprintf(base, sizeof base, "%s", f);
    if (ends_with(base, "_delta"))
        base[strlen(base) - 6] = '\0';
    *kind = MB_RK_PLAIN;
    for (size_t i = 0; i < sizeof known_figures / sizeof *known_figures; i++)
        if (!strcmp(base, known_figures[i].name)) {
            *kind = known_figures[i].kind;
            /* no delta of a yes/no figure */
            return (*kind != MB_RK_BOOL && *kind != MB_RK_PASS) ||
                   !strcmp(base, f);
        }
    if (!strncmp(base, "phase.", 6) && base[6]) {
        *kind = ends_with(base, ".speedup") ? MB_RK_PLAIN : MB_RK_TIME;
        return true;
    }
    if (!strncmp(base, "loop.", 5) && base[5]) {
        const char *dot = strrchr(base + 5, '.');
        if (!dot || dot == base + 5)
            return false;
        for (size_t i = 0; i < sizeof loop_stats / sizeof *loop_stats; i++)
            if (!strcmp(dot + 1, loop_stats[i])) {
                *kind = MB_RK_TIME;
                return true;
            }
        return !strcmp(dot + 1, "throughput") || !strcmp(dot + 1, "speedup");
    }
    if ((!strncmp(base, "metric.", 7) && base[7]) ||
        (!strncmp(base, "counter.", 8) && base[8]))
        return true;
    /* A bare name is a program's metric or counter ("psnr",
     * "cache_hit_rate"), resolved when judging. */
    return !strchr(base, '.');
}

/* ---- parsing ---------------------------------------------------------- */

static const char vocabulary[] =
    "speedup, speedup_p99, size_ratio, memory_ratio, top1, top5, "
    "agreement_top1, p50, p90, p95, p99, mean, min, max, throughput, "
    "time_per_sample, time_per_batch, user, sys, rss_peak, size, params, "
    "failures, leak, gates (pass/fail), verdict (pass/fail), top1_delta, "
    "rel_l2, cosine, max_abs, mae, rmse, psnr, ... per output "
    "(OUTPUT:rel_l2<=0.01), phase.NAME, phase.NAME.speedup, loop.NAME.p50 "
    "(p90, "
    "p95, p99, mean, throughput), metric.NAME, counter.NAME, and FIGURE_delta";

static int name_char(int c)
{
    return isalnum(c) || c == '_' || c == '.' || c == '-' || c == '/';
}

/* Scales v by unit u for a figure of kind k; false when u does not fit. */
static bool apply_unit(const char *u, mb__req_kind k, double *v)
{
    static const struct {
        const char *u;
        mb__req_kind k;
        double f;
    } units[] = {
        {"ns", MB_RK_TIME, 1},
        {"us", MB_RK_TIME, 1e3},
        {"ms", MB_RK_TIME, 1e6},
        {"s", MB_RK_TIME, 1e9},
        {"min", MB_RK_TIME, 60e9},
        {"B", MB_RK_BYTES, 1},
        {"KB", MB_RK_BYTES, 1e3},
        {"MB", MB_RK_BYTES, 1e6},
        {"GB", MB_RK_BYTES, 1e9},
        {"TB", MB_RK_BYTES, 1e12},
        {"KiB", MB_RK_BYTES, 1024.0},
        {"MiB", MB_RK_BYTES, 1048576.0},
        {"GiB", MB_RK_BYTES, 1073741824.0},
        {"TiB", MB_RK_BYTES, 1099511627776.0},
        {"%", MB_RK_PLAIN, 0.01},
        {"x", MB_RK_PLAIN, 1},
    };
    if (!*u)
        return k != MB_RK_TIME;
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (!strcmp(u, units[i].u)) {
            if (units[i].k != k)
                return false;
            *v *= units[i].f;
            return true;
        }
    return false;
}

static const char *kind_units(mb__req_kind k)
{
    static const char *const units[] = {
        [MB_RK_PLAIN] = "a number, optionally with % or x",
        [MB_RK_TIME] = "a unit: ns, us, ms, s or min (e.g. 12ms)",
        [MB_RK_BYTES] = "no unit (bytes) or B, KB, MB, GB, KiB, MiB, GiB",
        [MB_RK_BOOL] = "yes or no",
        [MB_RK_PASS] = "pass or fail"};
    return (unsigned)k < sizeof units / sizeof *units ? units[k] : units[0];
}

void mb__require_free(mb__require *r)
{
    if (!r)
        return;
    free(r->text);
    free(r->scope);
    free(r->figure);
    memset(r, 0, sizeof *r);
}

/* The whole expression: not empty, not too long, no control character. */
static mb_status check_text(const char *text, mb_err *err)
{
    if (!text || !*text)
        return mb__fail(err, MB_EINVAL,
                        "--require: empty expression; give "
                        "one like speedup>=3 or rss_peak<2GiB");
    size_t len = strlen(text);
    if (len >= MAX_TEXT)
        return mb__fail(err, MB_EINVAL,
                        "--require: expression of %zu "
                        "characters; keep it under %d",
                        len, MAX_TEXT);
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f)
            return mb__fail(err, MB_EINVAL,
                            "--require: control character in "
                            "the expression; write it like speedup>=3");
    return MB_OK;
}

/* An optional variant scope "GLOB:" before the figure: *scope_end is its
 * ':' (NULL without a scope) and *figure where the figure starts.  The
 * last ':' before the comparison ends the scope: an output prefix may
 * follow a variant one (VARIANT:OUTPUT:FIGURE), and output names may hold
 * ':' (TensorFlow's "logits:0"). */
static mb_status parse_scope(const char *text, const char **scope_end,
                             const char **figure, mb_err *err)
{
    const char *opc = strpbrk(text, "<>=!");
    const char *colon = NULL;
    for (const char *q = text; *q && (!opc || q < opc); q++)
        if (*q == ':')
            colon = q;
    *scope_end = NULL;
    *figure = text;
    if (colon && (!opc || colon < opc)) {
        if (colon == text)
            return mb__fail(err, MB_EINVAL,
                            "--require '%s': empty variant "
                            "pattern before ':'; write VARIANT:FIGURE>=VALUE "
                            "or leave the ':' out",
                            text);
        *scope_end = colon;
        *figure = colon + 1;
    }
    return MB_OK;
}

/* The comparison at *p (advanced past it); false when there is none. */
static bool parse_op(const char **p, mb__req_op *op)
{
    static const struct {
        const char *text;
        mb__req_op op;
    } ops[] = {{">=", MB_REQ_GE}, {"<=", MB_REQ_LE}, {"==", MB_REQ_EQ},
               {"!=", MB_REQ_NE}, {">", MB_REQ_GT},  {"<", MB_REQ_LT},
               {"=", MB_REQ_EQ}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        size_t n = strlen(ops[i].text);
        if (!strncmp(*p, ops[i].text, n)) {
            *op = ops[i].op;
            *p += n;
            return true;
        }
    }
    return false;
}

/* The value of a yes/no or pass/fail figure at *p (advanced past it):
 * yes, true, pass are 1; no, false, fail 0; compared with = or != only. */
static mb_status parse_word(const char *text, const char *figure,
                            mb__req_kind kind, mb__req_op op, const char **p,
                            double *v, mb_err *err)
{
    static const char *const words[] = {"yes", "true",  "pass",
                                        "no",  "false", "fail"};
    const char *w = *p;
    size_t wl = strcspn(w, " ");
    int found = -1;
    for (int i = 0; i < 6 && found < 0; i++)
        if (wl == strlen(words[i]) && !strncmp(w, words[i], wl))
            found = i;
    const char *ex = kind == MB_RK_PASS ? "pass" : "no";
    if (found < 0)
        return mb__fail(err, MB_EINVAL,
                        "--require '%s': %s is %s "
                        "(e.g. %s=%s)",
                        text, figure, kind_units(kind), figure, ex);
    *v = found < 3;
    *p = w + wl;
    if (op != MB_REQ_EQ && op != MB_REQ_NE)
        return mb__fail(err, MB_EINVAL,
                        "--require '%s': %s is %s: "
                        "compare it with = or != (e.g. %s=%s)",
                        text, figure, kind_units(kind), figure, ex);
    return MB_OK;
}

/* A number and its optional unit at *p (advanced past them), in the
 * figure's own unit. */
static mb_status parse_number(const char *text, const char *figure,
                              mb__req_kind kind, mb__req_op op, const char **p,
                              double *v, mb_err *err)
{
    char *end = NULL;
    if (!**p || !(isdigit((unsigned char)**p) || **p == '-' || **p == '+' ||
                  **p == '.'))
        end = (char *)*p;
    else
        *v = strtod(*p, &end);
    if (end == *p || !isfinite(*v))
        return mb__fail(err, MB_EINVAL,
                        "--require '%s': expected a number after "
                        "'%s', with %s",
                        text, op_text[op], kind_units(kind));
    const char *q = end;
    while (*q == ' ')
        q++;
    char unit[16];
    size_t ul = strcspn(q, " ");
    if (ul >= sizeof unit)
        ul = sizeof unit - 1;
    memcpy(unit, q, ul);
    unit[ul] = '\0';
    *p = q + strcspn(q, " ");
    if (apply_unit(unit, kind, v) && isfinite(*v))
        return MB_OK;
    if (unit[0]) /* name the figure when the unit was wrong */
        return mb__fail(err, MB_EINVAL,
                        "--require '%s': unit "
                        "'%s' does not fit %s, which takes %s",
                        text, unit, figure, kind_units(kind));
    return mb__fail(err, MB_EINVAL, "--require '%s': %s takes %s", text, figure,
                    kind_units(kind));
}

mb_status mb__require_parse(const char *text, mb__require *out, mb_err *err)
{
    memset(out, 0, sizeof *out);
    const char *scope_end, *p;
    mb_status st = check_text(text, err);
    if (st || (st = parse_scope(text, &scope_end, &p, err)))
        return st;
    while (*p == ' ')
        p++;
    const char *f0 = p;
    while (name_char((unsigned char)*p))
        p++;
    const char *f1 = p;
    while (*p == ' ')
        p++;
    if (f1 == f0)
        return mb__fail(err, MB_EINVAL,
                        "--require '%s': no figure name before "
                        "the comparison; figures: %s",
                        text, vocabulary);
    mb__req_op op;
    if (!parse_op(&p, &op))
        return mb__fail(err, MB_EINVAL,
                        "--require '%s': expected a comparison "
                        "(>=, >, <=, <, =, !=) after '%.*s'",
                        text, (int)(f1 - f0), f0);
    while (*p == ' ')
        p++;
    char *figure = mb__strndup(f0, (size_t)(f1 - f0));
    if (!figure)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    mb__req_kind kind;
    double v = 0;
    if (!figure_kind(figure, &kind))
        st = mb__fail(err, MB_EINVAL,
                      "--require '%s': '%s' is not a figure; "
                      "figures: %s",
                      text, figure, vocabulary);
    else if (kind == MB_RK_BOOL || kind == MB_RK_PASS)
        st = parse_word(text, figure, kind, op, &p, &v, err);
    else
        st = parse_number(text, figure, kind, op, &p, &v, err);
    while (!st && *p == ' ')
        p++;
    if (!st && *p)
        st = mb__fail(err, MB_EINVAL,
                      "--require '%s': unexpected '%s' after the "
                      "value",
                      text, p);
    if (st) {
        free(figure);
        return st;
    }
    out->text = mb__strdup(text);
    out->scope =
        scope_end ? mb__strndup(text, (size_t)(scope_end - text)) : NULL;
    out->figure = figure;
    out->op = op;
    out->kind = kind;
    out->value = v;
    if (!out->text || (scope_end && !out->scope)) {
        mb__require_free(out);
        return mb__fail(err, MB_ENOMEM, "out of memory");
    }
    return MB_OK;
}

/* ---- the figures of a document ---------------------------------------- */

static const json_t *jpath(const json_t *o, const char *path)
{
    char key[128];
    while (o && *path) {
        size_t n = strcspn(path, ".");
        if (n >= sizeof key)
            return NULL;
        memcpy(key, path, n);
        key[n] = '\0';
        o = json_is_object(o) ? json_object_get(o, key) : NULL;
        path += n + (path[n] == '.');
    }
    return o;
}

static double jnum(const json_t *o, const char *path)
{
    const json_t *v = jpath(o, path);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static void put(json_t *figs, const char *name, double v, double lo, double hi,
                mb__req_kind k)
{
    if (!isfinite(v) || !figs)
        return;
    json_t *f = json_pack("{s:f,s:i}", "value", v, "kind", (int)k);
    if (f && isfinite(lo) && isfinite(hi))
        json_object_set_new(f, "ci95", json_pack("[f,f]", lo, hi));
    json_object_set_new(figs, name, f);
}

static void put_prefixed(json_t *figs, const char *prefix, const char *name,
                         double v, double lo, double hi, mb__req_kind k)
{
    char key[MAX_TEXT];
    snprintf(key, sizeof key, "%s%s", prefix, name);
    put(figs, key, v, lo, hi, k);
}

/* Percentiles of a FORMATS.md latency object into prefix + p50 ...: each
 * figure's value from key, or from the estimate of its interval object
 * (ci, when it has one) together with that interval. */
static void latency_figs(json_t *figs, const char *prefix, const json_t *lat)
{
    static const struct {
        const char *name, *key, *ci;
    } rows[] = {
        {"p50", "median", "median_ci95"},
        {"median", "median", "median_ci95"},
        {"p90", "p90", NULL},
        {"p95", "p95", NULL},
        {"p99", "p99", "p99_ci95"},
        {"mean", "mean", NULL},
        {"min", "min", NULL},
        {"max", "max", NULL},
    };
    if (!json_is_object(lat))
        return;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const json_t *ci = rows[i].ci ? json_object_get(lat, rows[i].ci) : NULL;
        double v = jnum(ci, "estimate");
        if (!isfinite(v))
            v = jnum(lat, rows[i].key);
        put_prefixed(figs, prefix, rows[i].name, v, jnum(ci, "lo"),
                     jnum(ci, "hi"), MB_RK_TIME);
    }
}

/* A figure without an interval: its name, where it stands in an object
 * (a dotted path) and its kind. */
typedef struct fig_row {
    const char *name, *path;
    mb__req_kind kind;
} fig_row;

static void put_rows(json_t *figs, const json_t *o, const fig_row *rows,
                     size_t n)
{
    for (size_t i = 0; i < n; i++)
        put(figs, rows[i].name, jnum(o, rows[i].path), NAN, NAN, rows[i].kind);
}

static void run_figs(json_t *figs, const json_t *run)
{
    latency_figs(figs, "", json_object_get(run, "latency"));
    static const fig_row run_rows[] = {
        {"throughput", "throughput.samples_per_s", MB_RK_PLAIN},
        {"ips", "throughput.inferences_per_s", MB_RK_PLAIN},
        {"rss_peak", "memory.rss_peak_bytes", MB_RK_BYTES},
    };
    static const fig_row exec_rows[] = {
        {"user", "user_ns", MB_RK_TIME},
        {"sys", "sys_ns", MB_RK_TIME},
        {"failures", "failures", MB_RK_PLAIN},
        {"gpu_peak", "gpu_peak_bytes", MB_RK_BYTES},
    };
    static const fig_row derived_rows[] = {
        {"batches_per_s", "batches_per_s", MB_RK_PLAIN},
        {"time_per_sample", "time_per_sample_ns", MB_RK_TIME},
        {"time_per_batch", "time_per_batch_ns", MB_RK_TIME},
    };
    put_rows(figs, run, run_rows, sizeof run_rows / sizeof run_rows[0]);
    const json_t *leak = jpath(run, "memory.leak.suspected");
    if (json_is_boolean(leak))
        put(figs, "leak", json_is_true(leak), NAN, NAN, MB_RK_BOOL);
    double size = jnum(run, "model.total_bytes");
    put(figs, "size", isfinite(size) ? size : jnum(run, "model.file_bytes"),
        NAN, NAN, MB_RK_BYTES);
    put(figs, "params", jnum(run, "model.params"), NAN, NAN, MB_RK_PLAIN);
    const json_t *ex = json_object_get(run, "exec");
    if (!json_is_object(ex))
        return;
    put_rows(figs, ex, exec_rows, sizeof exec_rows / sizeof exec_rows[0]);
    /* A peak at or below mbench's own floor is only known as "at most". */
    if (!json_object_get(figs, "rss_peak") &&
        isfinite(jnum(ex, "peak_rss_bytes"))) {
        put(figs, "rss_peak", jnum(ex, "peak_rss_bytes"), NAN, NAN,
            MB_RK_BYTES);
        json_object_set_new(json_object_get(figs, "rss_peak"), "upper_bound",
                            json_true());
    }
    const json_t *d = json_object_get(ex, "derived");
    if (json_is_object(d)) {
        const json_t *ci = json_object_get(d, "samples_per_s_ci95");
        put(figs, "throughput", jnum(d, "samples_per_s"), jnum(ci, "lo"),
            jnum(ci, "hi"), MB_RK_PLAIN);
        put_rows(figs, d, derived_rows,
                 sizeof derived_rows / sizeof derived_rows[0]);
    }
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(ex, "phases"), k, v)
        put_prefixed(figs, "phase.", k, jnum(v, "median_ns"),
                     jnum(v, "ci95.lo"), jnum(v, "ci95.hi"), MB_RK_TIME);
    json_object_foreach(json_object_get(ex, "counters"), k, v) put_prefixed(
        figs, "counter.", k, jnum(v, "median"), NAN, NAN, MB_RK_PLAIN);
    json_object_foreach(json_object_get(ex, "metrics"), k, v)
        put_prefixed(figs, "metric.", k, jnum(v, "median"), jnum(v, "ci95.lo"),
                     jnum(v, "ci95.hi"), MB_RK_PLAIN);
    json_object_foreach(json_object_get(ex, "loops"), k, v)
    {
        char pre[300];
        snprintf(pre, sizeof pre, "loop.%s.", k);
        latency_figs(figs, pre, json_object_get(v, "latency"));
        const json_t *tci = json_object_get(v, "items_per_s_ci95");
        put_prefixed(figs, pre, "throughput", jnum(v, "items_per_s"),
                     jnum(tci, "lo"), jnum(tci, "hi"), MB_RK_PLAIN);
    }
}

/* The entry of variant name, created with its status when new. */
static json_t *variant_entry(json_t *all, const char *name)
{
    json_t *e = json_object_get(all, name);
    if (!e) {
        e = json_pack("{s:s,s:n,s:b,s:{}}", "status", "ok", "baseline",
                      "is_baseline", 0, "figures");
        json_object_set_new(all, name, e);
    }
    return e;
}

/* A speedup with the CI of a ratio (variant / baseline) turned around. */
static void speedup_from_ratio(json_t *figs, const char *name, const json_t *e)
{
    double lo = jnum(e, "ratio_ci95.hi"), hi = jnum(e, "ratio_ci95.lo");
    put(figs, name, jnum(e, "speedup"), lo > 0 ? 1 / lo : NAN,
        hi > 0 ? 1 / hi : NAN, MB_RK_PLAIN);
}

/* phase.NAME.speedup and loop.NAME.speedup of a comparison entry. */
static void part_speedups(json_t *figs, const json_t *e)
{
    static const char *const part[] = {"phases", "phase.", "loops", "loop."};
    for (int p = 0; p < 4; p += 2) {
        const char *k;
        json_t *ph;
        json_object_foreach(json_object_get(e, part[p]), k, ph)
        {
            char key[300];
            snprintf(key, sizeof key, "%s%s.speedup", part[p + 1], k);
            put(figs, key, jnum(ph, "speedup"), jnum(ph, "speedup_ci95.lo"),
                jnum(ph, "speedup_ci95.hi"), MB_RK_PLAIN);
        }
    }
}

static void mark_baseline(json_t *all, const char *variant,
                          const char *baseline)
{
    if (!variant || !baseline)
        return;
    json_t *e = variant_entry(all, variant);
    if (!strcmp(variant, baseline))
        json_object_set_new(e, "is_baseline", json_true());
    else
        json_object_set_new(e, "baseline", json_string(baseline));
    if (json_object_get(all, baseline))
        json_object_set_new(json_object_get(all, baseline), "is_baseline",
                            json_true());
}

/* The agreement figures of each output of a compare entry into the
 * variant's "outputs" ({OUTPUT: {figure: ...}}; only sel's when --output
 * named it: what --require may name), each output's gates (pass unless a
 * gate failed there), and the variant's "gates" (every gate passed) and
 * "verdict". */
static void output_figs(json_t *v, const json_t *e, const char *sel)
{
    const json_t *ag = json_object_get(e, "agreement");
    if (!json_is_object(ag))
        return;
    json_t *outs = json_object(), *figs = json_object_get(v, "figures");
    size_t i, k;
    const json_t *m, *g, *r;
    json_array_foreach(json_object_get(ag, "outputs"), i, m)
    {
        const char *nm = json_string_value(json_object_get(m, "name"));
        if (!nm || (sel && strcmp(nm, sel))) /* --output: that one only */
            continue;
        json_t *f = json_object();
        for (size_t j = 0;
             j + 1 < sizeof output_figures / sizeof *output_figures; j++)
            put(f, output_figures[j], jnum(m, output_figures[j]), NAN, NAN,
                MB_RK_PLAIN);
        put(f, "gates", 1, NAN, NAN, MB_RK_PASS);
        json_object_set_new(outs, nm, f);
    }
    int all_pass = json_array_size(json_object_get(ag, "gates")) > 0;
    json_array_foreach(json_object_get(ag, "gates"), i, g)
    {
        all_pass &= json_is_true(json_object_get(g, "passed"));
        json_array_foreach(json_object_get(g, "results"), k, r)
        {
            const char *res = json_string_value(json_object_get(r, "result"));
            json_t *f = json_object_get(
                outs, json_string_value(json_object_get(r, "output"))
                          ? json_string_value(json_object_get(r, "output"))
                          : "");
            if (f && res && !strcmp(res, "fail"))
                put(f, "gates", 0, NAN, NAN, MB_RK_PASS);
        }
    }
    json_object_set_new(v, "outputs", outs);
    if (json_array_size(json_object_get(ag, "gates")))
        put(figs, "gates", all_pass, NAN, NAN, MB_RK_PASS);
    const json_t *vp = jpath(e, "verdict.passed");
    if (json_is_boolean(vp))
        put(figs, "verdict", json_is_true(vp), NAN, NAN, MB_RK_PASS);
}

/* The output --output named (validate's output_choice, compare's
 * judged_output), or NULL. */
static const char *selected_output(const json_t *doc)
{
    const json_t *oc = jpath(doc, "validation.output_choice");
    if (!oc)
        oc = json_object_get(doc, "judged_output");
    return json_is_true(json_object_get(oc, "requested"))
               ? json_string_value(json_object_get(oc, "output"))
               : NULL;
}

/* validate: the candidate's figures against the baseline, as a compare
 * entry holds them (outputs, gates, verdict, top-1 against labels). */
static void validation_figs(json_t *all, const json_t *doc)
{
    const json_t *val = json_object_get(doc, "validation");
    if (!json_is_object(val))
        return;
    json_t *v = variant_entry(all, "candidate");
    json_t *figs = json_object_get(v, "figures");
    json_t *e = json_pack("{s:{s:O, s:O}, s:{s:O}}", "agreement", "outputs",
                          json_object_get(val, "outputs"), "gates",
                          json_object_get(val, "gates"), "verdict", "passed",
                          json_object_get(val, "passed"));
    if (e)
        output_figs(v, e, selected_output(doc));
    json_decref(e);
    const json_t *acc = json_object_get(val, "accuracy");
    const json_t *dci = json_object_get(acc, "top1_delta_ci95");
    put(figs, "top1", jnum(acc, "candidate.top1"), NAN, NAN, MB_RK_PLAIN);
    put(figs, "top5", jnum(acc, "candidate.top5"), NAN, NAN, MB_RK_PLAIN);
    put(figs, "top1_delta", jnum(acc, "top1_delta"),
        json_array_size(dci) == 2 ? json_number_value(json_array_get(dci, 0))
                                  : NAN,
        json_array_size(dci) == 2 ? json_number_value(json_array_get(dci, 1))
                                  : NAN,
        MB_RK_PLAIN);
}

static void comparison_figs(json_t *all, const json_t *doc)
{
    const json_t *cmp = json_object_get(doc, "comparison");
    const char *base = json_string_value(json_object_get(cmp, "baseline"));
    size_t i;
    json_t *e;
    /* compare: comparison.variants */
    json_array_foreach(json_object_get(cmp, "variants"), i, e)
    {
        const char *name = json_string_value(json_object_get(e, "name"));
        if (!name)
            continue;
        json_t *v = variant_entry(all, name);
        json_t *figs = json_object_get(v, "figures");
        const char *st = json_string_value(json_object_get(e, "status"));
        if (st && strcmp(st, "ok"))
            json_object_set_new(v, "status", json_string(st));
        put(figs, "top1", jnum(e, "accuracy.top1"), NAN, NAN, MB_RK_PLAIN);
        put(figs, "top5", jnum(e, "accuracy.top5"), NAN, NAN, MB_RK_PLAIN);
        if (json_is_true(json_object_get(e, "baseline"))) {
            mark_baseline(all, name, name);
            continue;
        }
        put(figs, "agreement_top1", jnum(e, "agreement.top1"), NAN, NAN,
            MB_RK_PLAIN);
        const json_t *sm = json_object_get(e, "speedup_median");
        put(figs, "speedup", jnum(sm, "value"), jnum(sm, "ci95.0"),
            jnum(sm, "ci95.1"), MB_RK_PLAIN);
        const json_t *s9 = json_object_get(e, "speedup_p99");
        put(figs, "speedup_p99", jnum(s9, "value"), NAN, NAN, MB_RK_PLAIN);
        const json_t *c9 = json_object_get(s9, "ci95");
        if (json_array_size(c9) == 2 && isfinite(jnum(s9, "value")))
            put(figs, "speedup_p99", jnum(s9, "value"),
                json_number_value(json_array_get(c9, 0)),
                json_number_value(json_array_get(c9, 1)), MB_RK_PLAIN);
        if (json_array_size(json_object_get(sm, "ci95")) == 2 &&
            isfinite(jnum(sm, "value")))
            put(figs, "speedup", jnum(sm, "value"),
                json_number_value(
                    json_array_get(json_object_get(sm, "ci95"), 0)),
                json_number_value(
                    json_array_get(json_object_get(sm, "ci95"), 1)),
                MB_RK_PLAIN);
        put(figs, "size_ratio", jnum(e, "size_ratio"), NAN, NAN, MB_RK_PLAIN);
        put(figs, "memory_ratio", jnum(e, "memory_ratio"), NAN, NAN,
            MB_RK_PLAIN);
        const json_t *dci = jpath(e, "accuracy.delta_top1_ci95");
        put(figs, "top1_delta", jnum(e, "accuracy.delta_top1"),
            json_array_size(dci) == 2
                ? json_number_value(json_array_get(dci, 0))
                : NAN,
            json_array_size(dci) == 2
                ? json_number_value(json_array_get(dci, 1))
                : NAN,
            MB_RK_PLAIN);
        output_figs(v, e, selected_output(doc));
        mark_baseline(all, name, base);
    }
    /* exec: comparison.entries against comparison.baseline */
    json_array_foreach(json_object_get(cmp, "entries"), i, e)
    {
        const char *name = json_string_value(json_object_get(e, "variant"));
        if (!name || !base)
            continue;
        json_t *v = variant_entry(all, name);
        speedup_from_ratio(json_object_get(v, "figures"), "speedup", e);
        part_speedups(json_object_get(v, "figures"), e);
        mark_baseline(all, name, base);
    }
    /* suite: comparison.groups[].entries[] against each group's baseline */
    size_t gi;
    json_t *g;
    json_array_foreach(json_object_get(cmp, "groups"), gi, g)
    {
        const char *gb = json_string_value(json_object_get(g, "baseline"));
        json_array_foreach(json_object_get(g, "entries"), i, e)
        {
            const char *name = json_string_value(json_object_get(e, "variant"));
            if (!name || !gb || !strcmp(name, gb)) {
                if (name && gb)
                    mark_baseline(all, name, gb);
                continue;
            }
            json_t *v = variant_entry(all, name);
            json_t *figs = json_object_get(v, "figures");
            speedup_from_ratio(figs, "speedup", e);
            part_speedups(figs, e);
            mark_baseline(all, name, gb);
        }
    }
}

/* FIGURE_delta = variant - baseline for every absolute figure both have. */
static void delta_figs(json_t *all)
{
    const char *name;
    json_t *v;
    json_object_foreach(all, name, v)
    {
        const char *b = json_string_value(json_object_get(v, "baseline"));
        const json_t *bf =
            b ? json_object_get(json_object_get(all, b), "figures") : NULL;
        json_t *figs = json_object_get(v, "figures");
        if (!bf)
            continue;
        json_t *add = json_object();
        const char *k;
        json_t *f;
        json_object_foreach(figs, k, f)
        {
            const json_t *g = json_object_get(bf, k);
            int kind = (int)json_integer_value(json_object_get(f, "kind"));
            if (!g || is_relative(k) || kind == MB_RK_BOOL ||
                kind == MB_RK_PASS)
                continue;
            char key[MAX_TEXT];
            snprintf(key, sizeof key, "%s_delta", k);
            if (json_object_get(figs, key))
                continue;
            put(add, key, jnum(f, "value") - jnum(g, "value"), NAN, NAN,
                (mb__req_kind)kind);
        }
        json_object_update_missing(figs, add);
        json_decref(add);
    }
}

json_t *mb__require_figures(const json_t *doc)
{
    json_t *all = json_object();
    if (!all)
        return NULL;
    const json_t *runs = json_object_get(doc, "runs");
    size_t i;
    json_t *r;
    json_array_foreach(runs, i, r)
    {
        const char *name = json_string_value(json_object_get(r, "variant"));
        char key[MAX_TEXT];
        snprintf(key, sizeof key, "%s", name ? name : "?");
        if (json_object_get(all, key) &&
            json_is_integer(json_object_get(r, "batch_size")))
            snprintf(key, sizeof key, "%s batch %" JSON_INTEGER_FORMAT,
                     name ? name : "?",
                     json_integer_value(json_object_get(r, "batch_size")));
        for (int dup = 2; json_object_get(all, key) && dup < 1000; dup++)
            snprintf(key, sizeof key, "%s #%d", name ? name : "?", dup);
        json_t *v = variant_entry(all, key);
        const char *st = json_string_value(json_object_get(r, "status"));
        json_object_set_new(v, "status", json_string(st ? st : "ok"));
        run_figs(json_object_get(v, "figures"), r);
    }
    comparison_figs(all, doc);
    validation_figs(all, doc);
    delta_figs(all);
    return all;
}

/* ---- judging ---------------------------------------------------------- */

/* A unit a figure is shown in: its printf format and what it divides by. */
typedef struct unit_row {
    const char *fmt;
    double div;
} unit_row;

static const unit_row time_units[] = {
    {"%.4g ns", 1}, {"%.4g us", 1e3}, {"%.4g ms", 1e6}, {"%.4g s", 1e9}};
static const unit_row byte_units[] = {{"%.0f B", 1},
                                      {"%.4g KiB", 1024},
                                      {"%.4g MiB", 1048576.0},
                                      {"%.4g GiB", 1073741824.0}};

/* v in the largest of the n units whose divisor |v| reaches (the last one
 * for a NaN, as the comparisons all fail). */
static void fmt_scaled(char *b, size_t len, double v, const unit_row *u,
                       size_t n)
{
    double a = fabs(v);
    size_t i = 0;
    while (i + 1 < n && !(a < u[i + 1].div))
        i++;
    snprintf(b, len, u[i].fmt, v / u[i].div);
}

static void fmt_value(char *b, size_t len, double v, mb__req_kind k)
{
    switch (k) {
    case MB_RK_TIME:
        fmt_scaled(b, len, v, time_units,
                   sizeof time_units / sizeof time_units[0]);
        break;
    case MB_RK_BYTES:
        fmt_scaled(b, len, v, byte_units,
                   sizeof byte_units / sizeof byte_units[0]);
        break;
    case MB_RK_BOOL:
        snprintf(b, len, "%s", v != 0 ? "yes" : "no");
        break;
    case MB_RK_PASS:
        snprintf(b, len, "%s", v != 0 ? "pass" : "fail");
        break;
    default:
        snprintf(b, len, "%.4g", v);
    }
}

static int holds(double x, mb__req_op op, double v)
{
    switch (op) {
    case MB_REQ_GE:
        return x >= v;
    case MB_REQ_GT:
        return x > v;
    case MB_REQ_LE:
        return x <= v;
    case MB_REQ_LT:
        return x < v;
    case MB_REQ_EQ:
        return x == v;
    default:
        return x != v;
    }
}

/* The figure `name` of one variant: itself, or for a bare name the
 * program's metric or counter of that name. */
static const json_t *lookup(const json_t *figs, const char *name)
{
    const json_t *f = json_object_get(figs, name);
    if (f || strchr(name, '.'))
        return f;
    char key[MAX_TEXT + 16];
    snprintf(key, sizeof key, "metric.%s", name);
    if ((f = json_object_get(figs, key)))
        return f;
    snprintf(key, sizeof key, "counter.%s", name);
    return json_object_get(figs, key);
}

/* Judges one figure; writes the verdict and returns 1 (pass) or 0. */
static int judge_one(const mb__require *r, const json_t *f, char *why,
                     size_t len, double *lo, double *hi)
{
    double x = jnum(f, "value");
    mb__req_kind k =
        (mb__req_kind)json_integer_value(json_object_get(f, "kind"));
    const json_t *ci = json_object_get(f, "ci95");
    *lo = *hi = NAN;
    char xs[48], vs[48], ls[48], hs[48];
    fmt_value(xs, sizeof xs, x, k);
    fmt_value(vs, sizeof vs, r->value, k);
    const char *op = op_text[r->op];
    int ordered = r->op != MB_REQ_EQ && r->op != MB_REQ_NE;
    if (json_array_size(ci) == 2 && ordered) {
        *lo = json_number_value(json_array_get(ci, 0));
        *hi = json_number_value(json_array_get(ci, 1));
        fmt_value(ls, sizeof ls, *lo, k);
        fmt_value(hs, sizeof hs, *hi, k);
        int lower = r->op == MB_REQ_GE || r->op == MB_REQ_GT;
        double bound = lower ? *lo : *hi;
        int pass = holds(bound, r->op, r->value);
        if (pass)
            snprintf(why, len, "%s (95%% CI %s .. %s): the whole CI is %s %s",
                     xs, ls, hs, op, vs);
        else if (holds(x, r->op, r->value))
            snprintf(why, len,
                     "%s (95%% CI %s .. %s): the estimate is %s %s "
                     "but the CI's %s bound %s is not, so the data do not "
                     "support it",
                     xs, ls, hs, op, vs, lower ? "lower" : "upper",
                     lower ? ls : hs);
        else
            snprintf(why, len, "%s (95%% CI %s .. %s): not %s %s", xs, ls, hs,
                     op, vs);
        return pass;
    }
    if (json_is_true(json_object_get(f, "upper_bound"))) {
        /* Only "at most x" is known: it settles < and <=, nothing else. */
        int pass = (r->op == MB_REQ_LE || r->op == MB_REQ_LT) &&
                   holds(x, r->op, r->value);
        snprintf(why, len, "at most %s (the measurement's floor): %s", xs,
                 pass ? "so it is below the limit"
                      : "an upper bound cannot show this");
        return pass;
    }
    int pass = holds(x, r->op, r->value);
    if (k == MB_RK_BOOL || k == MB_RK_PASS)
        snprintf(why, len, "%s is %s, required %s%s", r->figure, xs,
                 r->op == MB_REQ_NE ? "not " : "", vs);
    else
        snprintf(why, len, "%s: %s%s %s (no CI: judged on the measured value)",
                 xs, pass ? "" : "not ", op, vs);
    return pass;
}

static void list_figures(const json_t *all, mb__buf *b)
{
    json_t *seen = json_object();
    const char *name;
    json_t *v;
    json_object_foreach((json_t *)all, name, v)
    {
        const char *k;
        json_t *f;
        json_object_foreach(json_object_get(v, "figures"), k, f)
        {
            if (json_object_get(seen, k))
                continue;
            json_object_set_new(seen, k, json_true());
            if (b->len < 1200)
                mb__buf_printf(b, "%s%s",
                               json_object_size(seen) > 1 ? ", " : "", k);
        }
    }
    if (b->len >= 1200)
        mb__buf_puts(b, ", ...");
    if (!json_object_size(seen))
        mb__buf_puts(b, "none (no run finished)");
    json_decref(seen);
}

/* Whether some variant of all has an output whose name matches glob. */
static int names_an_output(const json_t *all, const char *glob)
{
    const char *vn, *on;
    json_t *v, *o;
    json_object_foreach((json_t *)all, vn, v)
        json_object_foreach(json_object_get(v, "outputs"), on, o)
    {
        if (!fnmatch(glob, on, 0))
            return 1;
    }
    return 0;
}

/* Where an output figure's requirement looks: *vscope the variants,
 * *oscope the outputs (NULL: all).  A scope that names an output is an
 * output scope; else one with ':' is VARIANT:OUTPUT; else a variant
 * scope.  buf holds the split. */
static void split_scope(const json_t *all, const mb__require *r,
                        const char **vscope, const char **oscope, char *buf,
                        size_t len)
{
    *vscope = r->scope;
    *oscope = NULL;
    if (!r->scope || !is_output_figure(r->figure))
        return;
    const char *colon = strchr(r->scope, ':');
    if (names_an_output(all, r->scope)) {
        *vscope = NULL;
        *oscope = r->scope;
    } else if (colon) {
        snprintf(buf, len, "%s", r->scope);
        buf[colon - r->scope] = '\0';
        *vscope = buf;
        *oscope = buf + (colon - r->scope) + 1;
    }
}

/* The figure r judges in variant v (a new reference, NULL when it has
 * none): the variant's own, or for an output figure the output (matching
 * oscope) that decides: the first that fails r, else the one closest to
 * failing; its name goes to oname. */
static json_t *resolve(const mb__require *r, const json_t *v,
                       const char *oscope, char *oname, size_t olen)
{
    oname[0] = '\0';
    const json_t *f = lookup(json_object_get(v, "figures"), r->figure);
    if (!is_output_figure(r->figure) || (f && !oscope))
        return f ? json_incref((json_t *)f) : NULL;
    const char *on;
    json_t *o;
    const json_t *pick = NULL;
    int picked_fails = 0;
    json_object_foreach(json_object_get(v, "outputs"), on, o)
    {
        const json_t *g = json_object_get(o, r->figure);
        if (!g || (oscope && fnmatch(oscope, on, 0)))
            continue;
        char why[600];
        double lo, hi, x = jnum(g, "value"), best = jnum(pick, "value");
        int fails = !judge_one(r, g, why, sizeof why, &lo, &hi);
        int worse =
            !pick || (fails && !picked_fails) ||
            (!picked_fails && !fails &&
             (((r->op == MB_REQ_GE || r->op == MB_REQ_GT) && x < best) ||
              ((r->op == MB_REQ_LE || r->op == MB_REQ_LT) && x > best)));
        if (worse) {
            pick = g;
            picked_fails = fails;
            snprintf(oname, olen, "%s", on);
        }
    }
    return pick ? json_incref((json_t *)pick) : NULL;
}

/* Whether any variant of all reports rq's figure (in oscope's outputs). */
static int reported(const json_t *all, const mb__require *rq,
                    const char *oscope)
{
    const char *name;
    json_t *v;
    char oname[256];
    int have = 0;
    json_object_foreach((json_t *)all, name, v)
    {
        json_t *f = resolve(rq, v, oscope, oname, sizeof oname);
        have += f != NULL;
        json_decref(f);
    }
    return have;
}

/* MB_EINVAL: no variant reports rq's figure; names those there are. */
static mb_status no_such_figure(const json_t *all, const mb__require *rq,
                                mb_err *err)
{
    mb__buf b = MB_BUF_INIT;
    list_figures(all, &b);
    char *list = mb__buf_take(&b, NULL);
    mb__fail(err, MB_EINVAL,
             "--require '%s': the result document has "
             "no figure '%s'%s; it has: %s",
             rq->text, rq->figure,
             !strcmp(rq->figure, "leak") ? " (measure with --leak-check)"
             : is_relative(rq->figure)   ? " (a relative figure needs a "
                                           "comparison with a baseline)"
                                         : "",
             list ? list : "");
    free(list);
    return MB_EINVAL;
}

/* rq judged on variant v (called name): its result entry, counted in
 * *pass or *fail; NULL for a baseline that a relative figure skips. */
static json_t *judge_variant(const mb__require *rq, const char *name,
                             const json_t *v, const char *oscope, size_t *pass,
                             size_t *fail)
{
    char oname[256], why[600];
    json_t *f = resolve(rq, v, oscope, oname, sizeof oname);
    const char *st = json_string_value(json_object_get(v, "status"));
    int baseline = json_is_true(json_object_get(v, "is_baseline"));
    double lo = NAN, hi = NAN;
    json_t *pj;
    if (st && strcmp(st, "ok")) {
        snprintf(why, sizeof why,
                 "the run is %s: the requirement is "
                 "not met",
                 st);
        pj = json_false();
        (*fail)++;
    } else if (!f) {
        if (baseline && is_relative(rq->figure))
            return NULL; /* the baseline is what others are relative to */
        snprintf(why, sizeof why,
                 "not reported by this variant "
                 "(not judged)");
        pj = json_null();
    } else {
        int ok = judge_one(rq, f, why, sizeof why, &lo, &hi);
        if (oname[0]) { /* the output that decided */
            char tmp[sizeof why];
            snprintf(tmp, sizeof tmp, "%s", why);
            snprintf(why, sizeof why, "output %s: %s%s", oname, tmp,
                     ok ? " (the closest of its outputs)" : "");
        }
        pj = json_boolean(ok);
        ok ? (*pass)++ : (*fail)++;
    }
    char xs[48] = "-";
    if (f)
        fmt_value(xs, sizeof xs, jnum(f, "value"),
                  (mb__req_kind)json_integer_value(json_object_get(f, "kind")));
    json_t *e = json_pack(
        "{s:s,s:s,s:o,s:o,s:o,s:s}", "variant", name, "value_text", xs, "value",
        f ? json_real(jnum(f, "value")) : json_null(), "ci95",
        isfinite(lo) ? json_pack("[f,f]", lo, hi) : json_null(), "passed", pj,
        "verdict", why);
    json_decref(f);
    return e;
}

/* One requirement over every variant in its scope: its entry of the
 * verdict into *entry; MB_EINVAL when no variant reports its figure. */
static mb_status judge_requirement(const json_t *all, const mb__require *rq,
                                   json_t **entry, size_t *unmet, mb_err *err)
{
    const char *name, *vscope, *oscope;
    char split[MAX_TEXT];
    split_scope(all, rq, &vscope, &oscope, split, sizeof split);
    if (!reported(all, rq, oscope))
        return no_such_figure(all, rq, err);
    json_t *res = json_array(), *v;
    size_t pass = 0, fail = 0;
    json_object_foreach((json_t *)all, name, v)
    {
        if (vscope && fnmatch(vscope, name, 0) != 0)
            continue;
        json_t *e = judge_variant(rq, name, v, oscope, &pass, &fail);
        if (e)
            json_array_append_new(res, e);
    }
    int ok = pass > 0 && fail == 0;
    if (!ok)
        (*unmet)++;
    char vs[48];
    fmt_value(vs, sizeof vs, rq->value, rq->kind);
    *entry = json_pack("{s:s,s:s,s:s,s:f,s:s,s:o,s:b,s:o}", "requirement",
                       rq->text, "figure", rq->figure, "op", op_text[rq->op],
                       "value", rq->value, "value_text", vs, "scope",
                       rq->scope ? json_string(rq->scope) : json_null(),
                       "passed", ok, "results", res);
    if (!*entry)
        return mb__fail(err, MB_ENOMEM, "out of memory judging requirements");
    if (!pass && !fail)
        json_object_set_new(*entry, "note",
                            json_string("no variant in scope reports this "
                                        "figure"));
    return MB_OK;
}

/* Whether an array of metrics objects names an output matching glob. */
static int names_match(const json_t *outs, const char *glob)
{
    size_t k;
    const json_t *m;
    json_array_foreach(outs, k, m)
    {
        const char *nm = json_string_value(json_object_get(m, "name"));
        if (nm && !fnmatch(glob, nm, 0))
            return 1;
    }
    return 0;
}

/* Whether doc has an output matching glob (validate's outputs, or a
 * compare variant's agreement outputs). */
static int doc_has_output(const json_t *doc, const char *glob)
{
    size_t i;
    const json_t *e;
    json_array_foreach(jpath(doc, "comparison.variants"), i, e)
    {
        if (names_match(jpath(e, "agreement.outputs"), glob))
            return 1;
    }
    return names_match(jpath(doc, "validation.outputs"), glob);
}

/* With --output NAME, an output figure may name that output only: one
 * naming another output of the document is a usage error (before, it
 * read as "no variant in scope reports this figure"). */
static mb_status check_selected(const json_t *doc, const mb__require *r,
                                mb_err *err)
{
    const char *sel = selected_output(doc);
    if (!sel || !r->scope || !is_output_figure(r->figure))
        return MB_OK;
    const char *colon = strrchr(r->scope, ':');
    const char *o = colon ? colon + 1 : r->scope;
    if (fnmatch(o, sel, 0) && doc_has_output(doc, o))
        return mb__fail(err, MB_EINVAL,
                        "--require '%s': --output %s chooses the output "
                        "--require names (every output is still judged); "
                        "name %s, or drop --output",
                        r->text, sel, sel);
    return MB_OK;
}

mb_status mb__require_judge(const json_t *doc, const mb__require *r, size_t n,
                            json_t **out, size_t *unmet, mb_err *err)
{
    *out = NULL;
    *unmet = 0;
    for (size_t q = 0; q < n; q++) {
        mb_status cs = check_selected(doc, &r[q], err);
        if (cs)
            return cs;
    }
    json_t *all = mb__require_figures(doc);
    json_t *arr = json_array();
    if (!all || !arr) {
        json_decref(all);
        json_decref(arr);
        return mb__fail(err, MB_ENOMEM, "out of memory judging requirements");
    }
    for (size_t q = 0; q < n; q++) {
        json_t *entry = NULL;
        mb_status st = judge_requirement(all, &r[q], &entry, unmet, err);
        if (st) {
            json_decref(all);
            json_decref(arr);
            return st;
        }
        json_array_append_new(arr, entry);
    }
    json_decref(all);
    *out = arr;
    return MB_OK;
}
