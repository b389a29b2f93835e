/* engine.c - the profile engine: timing, profiling and counter passes,
 * machine peaks, the result document, saved traces and the comparison of
 * two profiles (see engine.h). */
#include "profile/engine.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/fileio.h"
#include "profile/counters.h"
#include "profile/machine.h"
#include "profile/profile.h"
#include "profile/trace.h"
#include "runner/runner.h"

#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void mb__profile_result_free(mb__profile_result *r)
{
    if (!r)
        return;
    json_decref(r->doc);
    free(r->trace);
    *r = (mb__profile_result){0};
}

int64_t mb__profile_iterations(const mb__plan *plan)
{
    return plan->fixed_iters > 0 ? plan->fixed_iters : MB_PROFILE_DEFAULT_ITERS;
}

static int cancelled(const mb__plan *plan)
{
    return plan->cancel && *plan->cancel;
}

/* Records msg in doc's "warnings" (when doc is not NULL) and hands it to
 * the caller's callback. */
static void warn(const mb__profile_opts *o, json_t *doc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void warn(const mb__profile_opts *o, json_t *doc, const char *fmt, ...)
{
    char msg[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (doc) {
        json_t *w = json_object_get(doc, "warnings");
        if (!json_is_array(w)) {
            w = json_array();
            json_object_set_new(doc, "warnings", w);
        }
        json_array_append_new(w, json_string(msg));
    }
    if (o->warn)
        o->warn(o->warn_user, msg);
}

/* Removes the profiler's temp directory and what is in it. */
static void rm_tmpdir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char p[4400];
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* The one .json file ORT wrote into dir, into path; 0 when none. */
static int find_trace(const char *dir, char *path, size_t len)
{
    DIR *d = opendir(dir);
    int found = 0;
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n > 5 && strcmp(e->d_name + n - 5, ".json") == 0) {
            snprintf(path, len, "%s/%s", dir, e->d_name);
            found = 1;
        }
    }
    closedir(d);
    return found;
}

/* Profiling pass: a session with profile=<tmp>/ort, the cold run, warmup
 * and iters runs, closed so that ORT writes the trace; then parsed and
 * aggregated over the last iters runs.  *text keeps the raw trace. */
static mb_status profile_pass(const mb__plan *plan, int64_t iters,
                              json_t **profile, char **text, size_t *len,
                              mb_err *err)
{
    *profile = NULL;
    *text = NULL;
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/mbench-profile.XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return mb__fail(err, MB_EIO,
                        "cannot create a temporary directory in %s for the "
                        "trace; set TMPDIR",
                        tmp && *tmp ? tmp : "/tmp");
    char prefix[4200], path[4400];
    snprintf(prefix, sizeof prefix, "%s/ort", dir);
    mb__plan p;
    mb_status s = MB_OK;
    if (!mb__plan_copy(&p, plan)) {
        rm_tmpdir(dir);
        return mb__fail(err, MB_ENOMEM, "out of memory");
    }
    if (!mb__plan_set_opt(&p, "profile", prefix)) {
        mb__plan_free(&p);
        rm_tmpdir(dir);
        return mb__fail(err, MB_ENOMEM, "out of memory");
    }
    mb__bench *b = NULL;
    int64_t n = p.warmup_iters > iters ? p.warmup_iters : iters;
    int64_t *samples = mb__calloc((size_t)(n > 0 ? n : 1), sizeof *samples);
    if (!samples)
        s = mb__fail(err, MB_ENOMEM, "out of memory");
    if (!s && (s = mb__bench_open(&p, p.n_batches ? p.batches[0] : 1, &b,
                                  err)) == MB_EINVAL)
        mb__fail_prefix(err, "profiling needs a backend that takes "
                             "profile=PREFIX (ort, openvino)");
    if (!s && p.warmup_iters > 0)
        s = mb__bench_iterate(b, p.warmup_iters, samples, err);
    if (!s && cancelled(plan))
        s = mb__fail(err, MB_EINTERRUPTED, "interrupted");
    if (!s)
        s = mb__bench_iterate(b, iters, samples, err);
    mb__bench_close(b); /* writes the trace */
    free(samples);
    mb__plan_free(&p);
    if (!s && !find_trace(dir, path, sizeof path))
        s = mb__fail(err, MB_EBACKEND,
                     "the backend wrote no profiling trace into %s; the "
                     "ort and openvino backends support profiling",
                     dir);
    if (!s)
        s = mb__read_file(path, text, len, err);
    mb__trace *t = NULL;
    if (!s)
        s = mb__trace_parse(*text, *len, "ONNX Runtime trace", &t, err);
    if (!s) {
        size_t runs = mb__trace_runs(t);
        size_t skip = runs > (size_t)iters ? runs - (size_t)iters : 1;
        s = mb__trace_profile(t, skip, profile, err);
    }
    mb__trace_free(t);
    rm_tmpdir(dir);
    if (s) {
        free(*text);
        *text = NULL;
    }
    return s;
}

/* Counter pass: a non-profiled session, warmup, then iters runs counted
 * on every thread.  Returns the counters object (never NULL unless memory
 * runs out). */
static json_t *counter_pass(const mb__plan *plan, int64_t iters)
{
    mb_err err = {0};
    mb__counters *c = NULL;
    /* cheap check first: is there a PMU at all? */
    if (mb__counters_open(&c, &err))
        return mb__counters_unavailable(err.msg);
    mb__counters_close(c);
    mb__bench *b = NULL;
    int64_t n = plan->warmup_iters > iters ? plan->warmup_iters : iters;
    int64_t *samples = mb__calloc((size_t)(n > 0 ? n : 1), sizeof *samples);
    json_t *out = NULL;
    if (!samples ||
        mb__bench_open(plan, plan->n_batches ? plan->batches[0] : 1, &b,
                       &err) ||
        (plan->warmup_iters > 0 &&
         mb__bench_iterate(b, plan->warmup_iters, samples, &err)) ||
        mb__counters_open(&c, &err)) {
        out = mb__counters_unavailable(err.msg[0] ? err.msg : "out of memory");
    } else {
        mb__counters_start(c);
        mb_status s = mb__bench_iterate(b, iters, samples, &err);
        mb__counters_stop(c);
        out =
            s ? mb__counters_unavailable(err.msg) : mb__counters_json(c, iters);
        mb__counters_close(c);
    }
    mb__bench_close(b);
    free(samples);
    return out;
}

static int threads_of(const mb__plan *plan)
{
    const char *t = mb__plan_get_opt(plan, "threads");
    return t ? atoi(t) : 0;
}

/* The machine's peaks, or NULL (with a warning) when they cannot be had
 * or were not asked for. */
static json_t *machine_peaks(const mb__profile_opts *o, json_t *doc)
{
    json_t *machine = NULL;
    int cached = 0;
    mb_err err = {0};
    if (!o->no_peak && mb__machine_get(0, &machine, &cached, &err))
        warn(o, doc, "machine peaks not available: %s", err.msg);
    return machine;
}

/* Completes profile with ctx, the machine's peaks and counters (released
 * here), puts it into the first run of doc and hands doc, and the trace
 * text when o->keep_trace (then *text becomes NULL), to out. */
static void finish_result(json_t *profile, mb__profile_ctx ctx,
                          json_t *counters, json_t *doc,
                          const mb__profile_opts *o, char **text, size_t len,
                          mb__profile_result *out)
{
    json_t *machine = machine_peaks(o, doc);
    ctx.machine = machine;
    ctx.counters = counters;
    mb__profile_finish(profile, &ctx);
    json_decref(machine);
    json_decref(counters);
    json_object_set_new(json_array_get(json_object_get(doc, "runs"), 0),
                        "profile", profile);
    out->doc = doc;
    if (o->keep_trace) {
        out->trace = *text;
        out->trace_len = len;
        *text = NULL;
    }
}

/* The timing pass: a result document whose one run is ok, into *doc. */
static mb_status timing_pass(const mb__plan *plan, json_t **doc, double *lat,
                             mb_err *err)
{
    mb_status s = mb__run_plan(plan, doc, err);
    if (s)
        return s;
    json_t *run = json_array_get(json_object_get(*doc, "runs"), 0);
    const char *st = json_string_value(json_object_get(run, "status"));
    if (!st || strcmp(st, "ok") != 0) {
        const char *why = json_string_value(json_object_get(run, "error"));
        s = mb__fail(err, cancelled(plan) ? MB_EINTERRUPTED : MB_EBACKEND,
                     "the timing pass did not finish: %s",
                     why ? why : (st ? st : "no run"));
        json_decref(*doc);
        *doc = NULL;
        return s;
    }
    *lat = json_number_value(
        json_object_get(json_object_get(run, "latency"), "median"));
    json_object_set_new(*doc, "kind", json_string("profile"));
    return MB_OK;
}

/* A document with one run that carries only its name (no timing). */
static json_t *bare_doc(const char *variant)
{
    json_t *doc = mb__doc_new("profile", NULL);
    if (doc)
        json_array_append_new(
            json_object_get(doc, "runs"),
            json_pack("{s:s, s:s}", "status", "ok", "variant", variant));
    return doc;
}

mb_status mb__profile_model(const mb__plan *plan0, const mb__profile_opts *o,
                            mb__profile_result *out, mb_err *err)
{
    *out = (mb__profile_result){0};
    if (!plan0->model_path)
        return mb__fail(err, MB_EINVAL, "profile needs a model");
    mb__plan plan;
    if (!mb__plan_copy(&plan, plan0))
        return mb__fail(err, MB_ENOMEM, "out of memory");
    int64_t iters = mb__profile_iterations(&plan);
    plan.fixed_iters = iters; /* the timing pass runs as many */
    int several = plan.n_batches > 1;
    if (several) {
        plan.n_batches = 1;
        if (o->warn) /* now; the document gets it once it exists */
            warn(o, NULL,
                 "profile uses one batch size; profiling batch %lld "
                 "only",
                 (long long)plan.batches[0]);
    }
    mb__profile_opts quiet = *o;
    quiet.warn = NULL;
    mb_status s = MB_OK;
    double latency = NAN;
    json_t *doc = NULL;
    if (!o->no_timing)
        s = timing_pass(&plan, &doc, &latency, err);
    else if (!(doc = bare_doc(plan.variant ? plan.variant
                                           : mb__basename(plan.model_path))))
        s = mb__fail(err, MB_ENOMEM, "out of memory");
    if (!s && several)
        warn(&quiet, doc,
             "profile uses one batch size; profiling batch %lld "
             "only",
             (long long)plan.batches[0]);
    if (!s && cancelled(&plan))
        s = mb__fail(err, MB_EINTERRUPTED, "interrupted");
    json_t *profile = NULL;
    char *text = NULL;
    size_t len = 0;
    if (!s)
        s = profile_pass(&plan, iters, &profile, &text, &len, err);
    if (!s) {
        json_t *counters =
            o->no_counters ? mb__counters_unavailable("skipped (--no-counters)")
                           : counter_pass(&plan, iters);
        mb__profile_ctx ctx = {
            latency, plan.batches && plan.n_batches ? plan.batches[0] : 1,
            threads_of(&plan), NULL, NULL};
        finish_result(profile, ctx, counters, doc, o, &text, len, out);
        json_object_set_new(profile, "iterations", json_integer(iters));
    } else {
        json_decref(doc);
    }
    free(text);
    mb__plan_free(&plan);
    return s;
}

mb_status mb__profile_trace_file(const char *path, const mb__profile_opts *o,
                                 mb__profile_result *out, mb_err *err)
{
    *out = (mb__profile_result){0};
    char *text = NULL;
    size_t len = 0;
    mb__trace *t = NULL;
    json_t *profile = NULL;
    mb_status s = mb__read_file(path, &text, &len, err);
    if (!s)
        s = mb__trace_parse(text, len, path, &t, err);
    if (!s)
        s = mb__trace_profile(t, o->skip, &profile, err);
    mb__trace_free(t);
    json_t *doc = s ? NULL : bare_doc(mb__basename(path));
    if (!s && !doc)
        s = mb__fail(err, MB_ENOMEM, "out of memory");
    if (s) {
        json_decref(profile);
        free(text);
        return s;
    }
    mb__profile_ctx ctx = {NAN, 1, 0, NULL, NULL};
    finish_result(
        profile, ctx,
        mb__counters_unavailable("not measured (--from-trace runs nothing)"),
        doc, o, &text, len, out);
    free(text);
    return MB_OK;
}

static const json_t *doc_profile(const json_t *doc)
{
    return json_object_get(json_array_get(json_object_get(doc, "runs"), 0),
                           "profile");
}

static const char *doc_variant(const json_t *doc, const char *fallback)
{
    const char *v = json_string_value(json_object_get(
        json_array_get(json_object_get(doc, "runs"), 0), "variant"));
    return v ? v : fallback;
}

/* A saved result document with a profile, or NULL when path is not one. */
static json_t *load_saved(const char *path)
{
    size_t n = strlen(path);
    if (n < 5 || strcmp(path + n - 5, ".json") != 0)
        return NULL;
    json_t *d = json_load_file(path, 0, NULL);
    if (d && !doc_profile(d)) {
        json_decref(d);
        return NULL;
    }
    return d;
}

mb_status mb__profile_compare_models(const mb__plan *plan,
                                     const char *const models[2],
                                     const mb__profile_opts *o, json_t **doc,
                                     mb_err *err)
{
    *doc = NULL;
    json_t *docs[2] = {NULL, NULL};
    mb_status s = MB_OK;
    mb__profile_opts quick = *o;
    quick.no_timing = quick.no_counters = quick.no_peak = 1;
    quick.keep_trace = 0;
    quick.warn = NULL; /* said once here, not once per model */
    if (plan->n_batches > 1)
        warn(o, NULL, "profile uses one batch size; profiling batch %lld only",
             (long long)plan->batches[0]);
    for (int i = 0; i < 2 && !s; i++) {
        docs[i] = load_saved(models[i]);
        if (docs[i])
            continue;
        mb__plan p;
        if (!mb__plan_copy(&p, plan))
            return mb__fail(err, MB_ENOMEM, "out of memory");
        free(p.model_path);
        p.model_path = mb__strdup(models[i]);
        free(p.variant);
        p.variant = NULL;
        mb__profile_result r;
        s = p.model_path ? mb__profile_model(&p, &quick, &r, err)
                         : mb__fail(err, MB_ENOMEM, "out of memory");
        if (!s) {
            docs[i] = r.doc;
            r.doc = NULL;
            mb__profile_result_free(&r);
        }
        mb__plan_free(&p);
    }
    json_t *cmp = NULL;
    if (!s) {
        cmp = mb__profile_compare(
            doc_profile(docs[0]), doc_variant(docs[0], mb__basename(models[0])),
            doc_profile(docs[1]),
            doc_variant(docs[1], mb__basename(models[1])));
        *doc = cmp ? mb__doc_new("profile", NULL) : NULL;
        if (!*doc)
            s = mb__fail(err, MB_ENOMEM, "out of memory");
    }
    if (!s) {
        json_t *runs = json_object_get(*doc, "runs");
        for (int i = 0; i < 2; i++)
            json_array_append(
                runs, json_array_get(json_object_get(docs[i], "runs"), 0));
        json_object_set_new(*doc, "profile_comparison", cmp);
        cmp = NULL;
    }
    json_decref(cmp);
    json_decref(docs[0]);
    json_decref(docs[1]);
    return s;
}

mb_status mb__profile_run(const mb__plan *plan, const char *const *models,
                          size_t n_models, const char *from_trace,
                          const mb__profile_opts *o, mb__profile_result *out,
                          mb_err *err)
{
    *out = (mb__profile_result){0};
    if (from_trace)
        return mb__profile_trace_file(from_trace, o, out, err);
    if (n_models == 2)
        return mb__profile_compare_models(plan, models, o, &out->doc, err);
    if (n_models != 1)
        return mb__fail(err, MB_EINVAL,
                        "profile takes one model, or two to compare; got %zu",
                        n_models);
    mb__plan p;
    if (!mb__plan_copy(&p, plan))
        return mb__fail(err, MB_ENOMEM, "out of memory");
    free(p.model_path);
    p.model_path = mb__strdup(models[0]);
    mb_status s = p.model_path ? mb__profile_model(&p, o, out, err)
                               : mb__fail(err, MB_ENOMEM, "out of memory");
    mb__plan_free(&p);
    return s;
}
