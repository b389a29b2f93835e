/* metrics_json.c - the JSON form of the accuracy metrics (field list in
 * docs/ACCURACY.md): whole-tensor figures at the top level, the worst
 * sample of each metric, and optional per-sample arrays. */
#include "accuracy/metrics_json.h"

#include "core/err.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* Metrics that have a worst sample (in the order of MB_WORST_*): `high`
 * when larger is worse.  `top` is
 * the group the whole-tensor figure is written in at the top level (1:
 * before max_abs_index, 2: after it, 0: written with the classifier
 * figures). */
static const struct {
    const char *key;
    size_t off;
    int high;
    int classifier; /* only for classifier outputs */
    int top;
} dfields[] = {
    {"mae", offsetof(mb__metrics, mae), 1, 0, 1},
    {"mse", offsetof(mb__metrics, mse), 1, 0, 1},
    {"rmse", offsetof(mb__metrics, rmse), 1, 0, 1},
    {"psnr", offsetof(mb__metrics, psnr), 0, 0, 1},
    {"cosine", offsetof(mb__metrics, cosine), 0, 0, 1},
    {"max_abs", offsetof(mb__metrics, max_abs), 1, 0, 1},
    {"rel_l2", offsetof(mb__metrics, rel_l2), 1, 0, 2},
    {"pearson", offsetof(mb__metrics, pearson), 0, 0, 2},
    {"ssim", offsetof(mb__metrics, ssim), 0, 0, 2},
    {"kl", offsetof(mb__metrics, kl_mean), 1, 1, 0},
};

/* Top-level figures written as they are: a count (size_t) or a metric
 * (double, through mb__json_metric), in groups written together. */
enum { G_COUNTS, G_CLASSIFIER };
static const struct {
    const char *key;
    size_t off;
    int metric;
    int group;
} jfields[] = {
    {"count", offsetof(mb__metrics, count), 0, G_COUNTS},
    {"finite", offsetof(mb__metrics, finite), 0, G_COUNTS},
    {"nan_baseline", offsetof(mb__metrics, nan_a), 0, G_COUNTS},
    {"nan_candidate", offsetof(mb__metrics, nan_b), 0, G_COUNTS},
    {"inf_baseline", offsetof(mb__metrics, inf_a), 0, G_COUNTS},
    {"inf_candidate", offsetof(mb__metrics, inf_b), 0, G_COUNTS},
    {"nonfinite_new", offsetof(mb__metrics, nonfinite_new), 0, G_COUNTS},
    {"rows", offsetof(mb__metrics, rows), 0, G_CLASSIFIER},
    {"classes", offsetof(mb__metrics, classes), 0, G_CLASSIFIER},
    {"top1_agreement", offsetof(mb__metrics, top1_agreement), 1, G_CLASSIFIER},
    {"top5_agreement", offsetof(mb__metrics, top5_agreement), 1, G_CLASSIFIER},
    {"kl_mean", offsetof(mb__metrics, kl_mean), 1, G_CLASSIFIER},
    {"kl_max", offsetof(mb__metrics, kl_max), 1, G_CLASSIFIER},
    {"kl_rows", offsetof(mb__metrics, kl_rows), 0, G_CLASSIFIER},
};

static double dget(const mb__metrics *m, size_t off)
{
    double v;
    memcpy(&v, (const char *)m + off, sizeof v);
    return v;
}

static size_t nget(const mb__metrics *m, size_t off)
{
    size_t v;
    memcpy(&v, (const char *)m + off, sizeof v);
    return v;
}

/* Writes the jfields of `group` from m into o; with m NULL, only the
 * metrics, as null. */
static void put_fields(json_t *o, const mb__metrics *m, int group)
{
    for (size_t i = 0; i < sizeof jfields / sizeof jfields[0]; i++) {
        json_t *v;
        if (jfields[i].group != group)
            continue;
        if (!m)
            v = jfields[i].metric ? json_null() : NULL;
        else if (jfields[i].metric)
            v = mb__json_metric(dget(m, jfields[i].off));
        else
            v = json_integer((json_int_t)nget(m, jfields[i].off));
        if (v)
            json_object_set_new(o, jfields[i].key, v);
    }
}

/* Writes the whole-tensor figures of dfields group `top`. */
static void put_group(json_t *o, const mb__metrics *m, int top)
{
    for (size_t f = 0; f < sizeof dfields / sizeof dfields[0]; f++)
        if (dfields[f].top == top)
            json_object_set_new(o, dfields[f].key,
                                mb__json_metric(dget(m, dfields[f].off)));
}

static json_t *shape_json(const mb_tensor *t)
{
    json_t *s = json_array();
    for (int i = 0; i < t->rank; i++)
        json_array_append_new(s, json_integer(t->dims[i]));
    return s;
}

static json_t *index_json(const mb_tensor *t, size_t flat)
{
    json_t *s = json_array();
    int64_t idx[MB_MAX_RANK];
    for (int i = t->rank - 1; i >= 0; i--) {
        size_t d = t->dims[i] > 0 ? (size_t)t->dims[i] : 1;
        idx[i] = (int64_t)(flat % d);
        flat /= d;
    }
    for (int i = 0; i < t->rank; i++)
        json_array_append_new(s, json_integer(idx[i]));
    return s;
}

static const char *range_name(mb__range_source s)
{
    static const char *const names[] = {[MB_RANGE_BASELINE] = "baseline",
                                        [MB_RANGE_GIVEN] = "given",
                                        [MB_RANGE_FALLBACK] = "fallback"};
    return (unsigned)s < sizeof names / sizeof *names ? names[s] : names[0];
}

/* Whether dfields[f] is reported for this result: the classifier figures
 * only for classifier outputs, SSIM only where it applied. */
static bool applies(size_t f, const mb__metrics_result *res)
{
    if (dfields[f].classifier && !res->total.classifier)
        return false;
    return dfields[f].off != offsetof(mb__metrics, ssim) ||
           res->total.ssim_images > 0;
}

/* w[key] = {"sample": s, "value": value}. */
static void put_worst(json_t *w, const char *key, size_t s, json_t *value)
{
    json_t *o = json_object();
    json_object_set_new(o, "sample", json_integer((json_int_t)s));
    json_object_set_new(o, "value", value);
    json_object_set_new(w, key, o);
}

/* The per-sample sections: w gets the worst sample of each metric (tracked
 * by the computation, res->worst_*), p (unless NULL) every sample's value
 * of each from res->samples. */
static void sample_sections(const mb__metrics_result *res, json_t *w, json_t *p)
{
    size_t S = res->n_samples;
    for (size_t f = 0; f < sizeof dfields / sizeof dfields[0]; f++) {
        if (!applies(f, res))
            continue;
        /* dfields and MB_WORST_* are in the same order */
        if (res->worst_index[f] < S)
            put_worst(w, dfields[f].key, res->worst_index[f],
                      mb__json_metric(res->worst_value[f]));
        if (!p || !res->samples)
            continue;
        json_t *arr = json_array();
        for (size_t s = 0; s < S; s++)
            json_array_append_new(
                arr, mb__json_metric(dget(&res->samples[s], dfields[f].off)));
        json_object_set_new(p, dfields[f].key, arr);
    }
    if (res->worst_index[MB_WORST_ALLCLOSE] < S)
        put_worst(
            w, "allclose_fail", res->worst_index[MB_WORST_ALLCLOSE],
            json_integer((json_int_t)res->worst_value[MB_WORST_ALLCLOSE]));
    if (!p || !res->samples)
        return;
    json_t *fail = json_array(), *nf = json_array(), *t1 = json_array();
    for (size_t s = 0; s < S; s++) {
        const mb__metrics *m = &res->samples[s];
        json_array_append_new(fail, json_integer((json_int_t)m->allclose_fail));
        json_array_append_new(nf, json_integer((json_int_t)m->nonfinite_new));
        if (res->total.classifier)
            json_array_append_new(t1, json_boolean(m->top1_agreement == 1.0));
    }
    json_object_set_new(p, "allclose_fail", fail);
    json_object_set_new(p, "nonfinite_new", nf);
    if (res->total.classifier)
        json_object_set_new(p, "top1_agree", t1);
    else
        json_decref(t1);
}

#define SETN(o, k, v)                                                          \
    json_object_set_new((o), (k), json_integer((json_int_t)(v)))
#define SETM(o, k, v) json_object_set_new((o), (k), mb__json_metric(v))

json_t *mb__metrics_to_json(const mb_tensor *a, const mb_tensor *b,
                            const mb__metric_opts *opts,
                            const mb__metrics_result *res)
{
    mb__metric_opts defs;
    if (!opts) {
        mb__metric_opts_defaults(&defs);
        opts = &defs;
    }
    const mb__metrics *m = &res->total;
    json_t *o = json_object();
    if (!o)
        return NULL;
    if (a->name && *a->name)
        json_object_set_new(o, "name", json_string(a->name));
    json_object_set_new(o, "shape", shape_json(a));
    json_object_set_new(o, "dtype_baseline",
                        json_string(mb_dtype_name(a->dtype)));
    json_object_set_new(o, "dtype_candidate",
                        json_string(mb_dtype_name(b->dtype)));
    put_fields(o, m, G_COUNTS);
    json_object_set_new(o, "atol", json_real(opts->atol));
    json_object_set_new(o, "rtol", json_real(opts->rtol));
    SETN(o, "allclose_fail", m->allclose_fail);
    SETM(o, "allclose_fail_fraction",
         m->count ? (double)m->allclose_fail / (double)m->count : NAN);
    SETM(o, "data_range", res->data_range);
    json_object_set_new(o, "data_range_source",
                        json_string(range_name(res->range_source)));
    put_group(o, m, 1);
    if (m->finite > 0) {
        SETN(o, "max_abs_index", m->max_abs_index);
        json_object_set_new(o, "max_abs_at", index_json(a, m->max_abs_index));
    } else {
        json_object_set_new(o, "max_abs_index", json_null());
        json_object_set_new(o, "max_abs_at", json_null());
    }
    put_group(o, m, 2);
    json_object_set_new(o, "ssim_mode",
                        json_string(opts->ssim_3d ? "3d" : "2d"));
    SETN(o, "ssim_images", m->ssim_images);
    json_object_set_new(o, "classifier", json_boolean(m->classifier));
    put_fields(o, m->classifier ? m : NULL, G_CLASSIFIER);
    SETN(o, "samples", res->n_samples);
    if (res->n_samples > 1) {
        json_t *w = json_object(), *p = NULL;
        if (opts->per_sample_max > 0 &&
            res->n_samples <= opts->per_sample_max && res->samples)
            p = json_object();
        sample_sections(res, w, p);
        json_object_set_new(o, "worst", w);
        if (p)
            json_object_set_new(o, "per_sample", p);
    }
    return o;
}

mb_status mb__metrics_compute(const mb_tensor *a, const mb_tensor *b,
                              const mb__metric_opts *opts, json_t **out,
                              mb_err *err)
{
    mb__metrics_result res;
    *out = NULL;
    mb_status st = mb__metrics_compute_struct(a, b, opts, &res, err);
    if (st != MB_OK)
        return st;
    *out = mb__metrics_to_json(a, b, opts, &res);
    mb__metrics_result_free(&res);
    if (!*out)
        return mb__fail(err, MB_ENOMEM, "out of memory building metrics JSON");
    return MB_OK;
}
