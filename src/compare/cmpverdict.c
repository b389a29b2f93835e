/* cmpverdict.c - a variant's verdict and accuracy sentences
 * (cmpverdict.h). */
#include "compare/cmpverdict.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void rec(json_t *list, int ok, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void rec(json_t *list, int ok, const char *fmt, ...)
{
    char text[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    json_array_append_new(list, json_pack("{s:b,s:s}", "ok", ok, "text", text));
}

/* Appends printf text to buf at *off, never past len. */
static void put(char *buf, size_t len, size_t *off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
    if (*off >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *off, len - *off, fmt, ap);
    va_end(ap);
    if (n > 0)
        *off += (size_t)n;
}

/* "rel_l2 0.5 (needs rel_l2<=0.0001)" of one failed check. */
static void failed_check(const json_t *c, char *buf, size_t len, size_t *off)
{
    const char *check = json_string_value(json_object_get(c, "check"));
    const json_t *v = json_object_get(c, "value");
    if (!check)
        return;
    size_t name = strcspn(check, "<>=!");
    if (json_is_number(v))
        put(buf, len, off, "%.*s %.4g (needs %s)", (int)name, check,
            json_number_value(v), check);
    else
        put(buf, len, off, "%.*s undefined (needs %s)", (int)name, check,
            check);
}

void mb__verdict_failures(const json_t *verdict, char *buf, size_t len)
{
    size_t off = 0, i, k;
    const json_t *o, *c;
    buf[0] = '\0';
    json_array_foreach(json_object_get(verdict, "per_output"), i, o)
    {
        if (!json_is_false(json_object_get(o, "passed")))
            continue;
        put(buf, len, &off, "%s%s: ", off ? "; " : "",
            json_string_value(json_object_get(o, "name")));
        int first = 1;
        json_array_foreach(json_object_get(o, "checks"), k, c)
        {
            const char *r = json_string_value(json_object_get(c, "result"));
            if (!r || strcmp(r, "fail"))
                continue;
            if (!first)
                put(buf, len, &off, ", ");
            failed_check(c, buf, len, &off);
            first = 0;
        }
    }
    /* NaN/Inf the candidate made, when given gates do not check it */
    json_array_foreach(json_object_get(verdict, "criteria"), i, o)
    {
        const char *t = json_string_value(o);
        if (t && !strncmp(t, "FAIL the candidate produced", 27))
            put(buf, len, &off, "%s%s", off ? "; " : "", t + 5);
    }
}

/* The verdict line: PASS with what it covered, or FAIL naming each failing
 * output and its failing figures. */
static void verdict_rec(json_t *recs, const json_t *v)
{
    size_t n_out = 0, i;
    const json_t *o;
    json_array_foreach(json_object_get(v, "per_output"), i, o) n_out +=
        json_is_boolean(json_object_get(o, "passed"));
    const char *prec = json_string_value(json_object_get(v, "precision"));
    char gates[64];
    snprintf(gates, sizeof gates, "%s%s gates", prec ? "the " : "the given",
             prec ? prec : "");
    if (json_is_true(json_object_get(v, "passed"))) {
        const char *rule = json_string_value(json_object_get(v, "rule"));
        const char *more =
            !rule                           ? ""
            : !strncmp(rule, "labels", 6)   ? ", top-1 accuracy within the "
                                              "tolerance"
            : !strncmp(rule, "top1_agr", 8) ? ", top-1 agreement at least 1 - "
                                              "tolerance"
                                            : "";
        rec(recs, 1, "verdict PASS: %zu output%s within %s%s", n_out,
            n_out == 1 ? "" : "s", gates, more);
        return;
    }
    char why[640];
    mb__verdict_failures(v, why, sizeof why);
    rec(recs, 0, "verdict FAIL: %s", why[0] ? why : "see the criteria");
}

/* The accuracy difference against labels with its paired CI: maintained
 * only when the whole CI lies above -tolerance. */
static void accuracy_rec(json_t *recs, const json_t *acc, double d, double tol)
{
    const json_t *ci = json_object_get(acc, "delta_top1_ci95");
    double lo = json_number_value(json_array_get(ci, 0)),
           hi = json_number_value(json_array_get(ci, 1));
    double n = json_number_value(json_object_get(acc, "samples"));
    const char *out = json_string_value(json_object_get(acc, "output"));
    char on[160] = "";
    if (out && *out)
        snprintf(on, sizeof on, " on %s", out);
    if (json_array_size(ci) != 2) {
        if (d >= -tol - 1e-12)
            rec(recs, 1, "top-1 accuracy%s within the tolerance (%+.4f)", on,
                d);
        else
            rec(recs, 0, "accuracy loss%s: %+.4f (tolerance %.4f)", on, d, tol);
        return;
    }
    if (d >= -tol - 1e-12 && lo >= -tol - 1e-12)
        rec(recs, 1,
            "top-1 accuracy%s maintained: %+.4f (paired 95%% CI %+.4f to "
            "%+.4f lies above -%g)",
            on, d, lo, hi, tol);
    else if (d >= -tol - 1e-12)
        rec(recs, 0,
            "top-1 accuracy%s within the tolerance on these %.0f samples "
            "(%+.4f), but the paired 95%% CI %+.4f to %+.4f reaches below "
            "-%g: the data cannot show it is maintained; score more samples",
            on, n, d, lo, hi, tol);
    else if (hi < -tol)
        rec(recs, 0,
            "accuracy loss%s: %+.4f (paired 95%% CI %+.4f to %+.4f lies "
            "beyond the tolerance %g)",
            on, d, lo, hi, tol);
    else
        rec(recs, 0,
            "accuracy loss%s: %+.4f is beyond the tolerance %g, though the "
            "paired 95%% CI %+.4f to %+.4f reaches back within it",
            on, d, tol, lo, hi);
}

void mb__cmp_judge_outputs(json_t *e, json_t *recs, const mb__cmp_variant *x,
                           double base_top1, const mb__cmp_opts *o)
{
    json_object_set_new(e, "verdict",
                        x->verdict ? json_deep_copy(x->verdict) : json_null());
    if (x->verdict)
        verdict_rec(recs, x->verdict);
    const char *src =
        json_string_value(json_object_get(x->verdict, "precision_source"));
    if (src && !strcmp(src, "runtime")) /* the gates' precision, said */
        rec(recs, 1, "%s %s", x->name,
            json_string_value(json_object_get(x->verdict, "precision_reason")));
    const char *pn = json_string_value(
        json_object_get(json_object_get(x->verdict, "output_pairing"), "note"));
    if (pn) /* outpair.h: said wherever outputs pair by position */
        rec(recs, 0, "outputs %s", pn);
    const json_t *t1 = json_object_get(x->accuracy, "top1");
    double acc = json_is_number(t1) ? json_number_value(t1) : NAN;
    if (isfinite(acc) && isfinite(base_top1)) {
        double d = acc - base_top1;
        json_t *a = json_object_get(e, "accuracy");
        json_object_set_new(a, "delta_top1", json_real(d));
        accuracy_rec(recs, a, d, o->tolerance);
    }
}

/* "rel_l2 0.5 > 0.0001": a failed check as the limit it crossed. */
static void crossed(const json_t *c, char *buf, size_t len, size_t *off)
{
    static const char *const ops[][2] = {{"<=", ">"},  {">=", "<"},
                                         {"==", "!="}, {"!=", "=="},
                                         {"<", ">="},  {">", "<="}};
    const char *check = json_string_value(json_object_get(c, "check"));
    const json_t *v = json_object_get(c, "value");
    if (!check)
        return;
    size_t name = strcspn(check, "<>=!");
    const char *op = check + name, *inv = "vs", *lim = op;
    for (size_t k = 0; k < sizeof ops / sizeof *ops; k++)
        if (!strncmp(op, ops[k][0], strlen(ops[k][0]))) {
            inv = ops[k][1];
            lim = op + strlen(ops[k][0]);
            break;
        }
    if (json_is_number(v))
        put(buf, len, off, "%.*s %.4g %s %s", (int)name, check,
            json_number_value(v), inv, lim);
    else
        put(buf, len, off, "%.*s undefined", (int)name, check);
}

/* The failing checks in the headline's words: "pooler_output rel_l2 0.5 >
 * 0.0001, cosine 0.97 < 0.9999; logits ...". */
static void headline_failures(const json_t *verdict, char *buf, size_t len,
                              size_t *off)
{
    size_t i, k;
    const json_t *o, *c;
    int any = 0;
    json_array_foreach(json_object_get(verdict, "per_output"), i, o)
    {
        if (!json_is_false(json_object_get(o, "passed")))
            continue;
        put(buf, len, off, "%s%s ", any++ ? "; " : "",
            json_string_value(json_object_get(o, "name")));
        int first = 1;
        json_array_foreach(json_object_get(o, "checks"), k, c)
        {
            const char *r = json_string_value(json_object_get(c, "result"));
            if (!r || strcmp(r, "fail"))
                continue;
            if (!first)
                put(buf, len, off, ", ");
            crossed(c, buf, len, off);
            first = 0;
        }
    }
    json_array_foreach(json_object_get(verdict, "criteria"), i, o)
    {
        const char *t = json_string_value(o);
        if (t && !strncmp(t, "FAIL the candidate produced", 27))
            put(buf, len, off, "%s%s", any++ ? "; " : "", t + 9);
    }
    if (!any)
        put(buf, len, off, "see the criteria");
}

/* "; speed n.s." or "; speed 1.21x slower": the speed verdict, short. */
static void headline_speed(const json_t *e, char *buf, size_t len, size_t *off)
{
    const char *v = json_string_value(
        json_object_get(json_object_get(e, "significance"), "verdict"));
    double s = json_number_value(
        json_object_get(json_object_get(e, "speedup_median"), "value"));
    if (!v)
        put(buf, len, off, "; speed not judged");
    else if ((!strcmp(v, "faster") || !strcmp(v, "slower")) && s > 0)
        put(buf, len, off, "; %.2fx %s", v[0] == 'f' ? s : 1 / s, v);
    else if (!strcmp(v, "same"))
        put(buf, len, off, "; speed the same");
    else if (!strcmp(v, "no significant difference"))
        put(buf, len, off, "; speed n.s.");
    else
        put(buf, len, off, "; speed not decided");
}

void mb__cmp_headline(const json_t *e, char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = '\0';
    const char *st = json_string_value(json_object_get(e, "status"));
    if (json_is_true(json_object_get(e, "baseline"))) {
        put(buf, len, &off, "baseline");
        return;
    }
    if (st && !strcmp(st, "failed")) {
        put(buf, len, &off, "FAILED: %s",
            json_string_value(json_object_get(e, "error")));
        return;
    }
    const json_t *vd = json_object_get(e, "verdict");
    if (!json_is_object(vd))
        put(buf, len, &off, "no accuracy verdict");
    else if (json_is_true(json_object_get(vd, "passed")))
        put(buf, len, &off, "PASS");
    else {
        put(buf, len, &off, "FAIL: ");
        headline_failures(vd, buf, len, &off);
    }
    if (st && !strcmp(st, "interrupted"))
        put(buf, len, &off, "; interrupted: no speed verdict");
    else
        headline_speed(e, buf, len, &off);
}
