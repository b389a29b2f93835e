/* view.c - the typed view of result documents (doc/view.h). */
#include "doc/view.h"
#include "compare/cmpverdict.h"

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "doc/docfmt.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the view ------------------------------------------------------------ */

/* Adds the text of w followed by s (w is left empty) to the warnings
 * unless an equal one is there.  False when memory runs out (here or
 * while w was written). */
static bool add_warning(mb__rview *v, size_t *cap, mb__buf *w, const char *s)
{
    mb__buf_puts(w, s);
    char *text = w->oom ? NULL : mb__buf_take(w, NULL);
    mb__buf_free(w);
    w->oom = 0;
    if (!text)
        return false;
    for (size_t i = 0; i < v->n_warnings; i++)
        if (strcmp(v->warnings[i], text) == 0) {
            free(text);
            return true;
        }
    if (!mb__grow((void **)&v->warnings, cap, v->n_warnings + 1,
                  sizeof *v->warnings)) {
        free(text);
        return false;
    }
    v->warnings[v->n_warnings++] = text;
    return true;
}

/* The index of the series called name in *index, adding it when new.
 * False when memory runs out. */
static bool series_index(mb__rview *v, size_t *cap, const char *name,
                         int *index)
{
    for (size_t i = 0; i < v->n_series; i++)
        if (strcmp(v->series[i], name) == 0) {
            *index = (int)i;
            return true;
        }
    if (!mb__grow((void **)&v->series, cap, v->n_series + 1, sizeof *v->series))
        return false;
    v->series[v->n_series] = name;
    *index = (int)v->n_series++;
    return true;
}

/* True when x can be a count or a batch size: finite, not negative, at
 * most 2^53.  A document (hand-edited, corrupt) may hold anything, and
 * converting a negative or huge double to an integer is undefined. */
static bool in_count_range(double x)
{
    return isfinite(x) && x >= 0 && x <= 9007199254740992.0;
}

/* A field of mb__rrun read from a dotted path of the run as recorded: a
 * string (const char *) or a number (double).  The fallbacks and the
 * derived figures are set after. */
static const struct run_field {
    size_t off;
    const char *path;
    bool is_num;
} run_fields[] = {
    {offsetof(mb__rrun, variant_raw), "variant", false},
    {offsetof(mb__rrun, model_name), "model.name", false},
    {offsetof(mb__rrun, model_path), "model.path", false},
    {offsetof(mb__rrun, status_raw), "status", false},
    {offsetof(mb__rrun, error), "error", false},
    {offsetof(mb__rrun, sha256), "model.sha256", false},
    {offsetof(mb__rrun, backend), "backend", false},
    {offsetof(mb__rrun, device), "device", false},
    {offsetof(mb__rrun, device_type), "device_type", false},
    {offsetof(mb__rrun, runtime_name), "runtime.name", false},
    {offsetof(mb__rrun, runtime_version), "runtime.version", false},
    {offsetof(mb__rrun, stop_rule), "stop_rule", false},
    {offsetof(mb__rrun, peak_method), "memory.peak_method", false},
    {offsetof(mb__rrun, command), "command", false},
    {offsetof(mb__rrun, median), "latency.median", true},
    {offsetof(mb__rrun, std), "latency.std", true},
    {offsetof(mb__rrun, count), "latency.count", true},
    {offsetof(mb__rrun, iterations), "iterations", true},
    {offsetof(mb__rrun, load_ns), "phases.library_load_ns", true},
    {offsetof(mb__rrun, session_ns), "phases.session_create_ns", true},
    {offsetof(mb__rrun, first_ns), "phases.first_inference_ns", true},
    {offsetof(mb__rrun, compile_ns), "phases.compile_ns", true},
    {offsetof(mb__rrun, model_file_bytes), "model.file_bytes", true},
    {offsetof(mb__rrun, params), "model.params", true},
    {offsetof(mb__rrun, p90), "latency.p90", true},
    {offsetof(mb__rrun, p95), "latency.p95", true},
    {offsetof(mb__rrun, p99), "latency.p99", true},
    {offsetof(mb__rrun, mean), "latency.mean", true},
    {offsetof(mb__rrun, min), "latency.min", true},
    {offsetof(mb__rrun, max), "latency.max", true},
    {offsetof(mb__rrun, ci_lo), "latency.median_ci95.lo", true},
    {offsetof(mb__rrun, ci_hi), "latency.median_ci95.hi", true},
    {offsetof(mb__rrun, run_cv), "replication.run_to_run_cv", true},
    {offsetof(mb__rrun, ips), "throughput.inferences_per_s", true},
    {offsetof(mb__rrun, sps), "throughput.samples_per_s", true},
    {offsetof(mb__rrun, rss_peak), "memory.rss_peak_bytes", true},
};

void mb__rrun_fill(mb__rrun *r, const json_t *doc, size_t di, const json_t *run)
{
    memset(r, 0, sizeof *r);
    for (size_t i = 0; i < sizeof run_fields / sizeof *run_fields; i++) {
        const struct run_field *f = &run_fields[i];
        if (f->is_num)
            *(double *)((char *)r + f->off) = mb__jnum(run, f->path);
        else
            *(const char **)((char *)r + f->off) = mb__jstr(run, f->path);
    }
    r->doc = doc;
    r->run = run;
    r->doc_index = di;
    r->model = r->model_name ? r->model_name : r->model_path;
    r->variant = r->variant_raw ? r->variant_raw
                 : r->model     ? r->model
                                : "(unnamed)";
    r->status = r->status_raw ? r->status_raw : "ok";
    double b = mb__jnum(run, "batch_size");
    r->batch = in_count_range(b) ? (int64_t)b : -1;
    const json_t *in0 = json_array_get(json_object_get(run, "inputs"), 0);
    r->dtype = mb__jstr(in0, "dtype");
    r->shape = json_is_array(json_object_get(in0, "shape"))
                   ? json_object_get(in0, "shape")
                   : NULL;
    r->config = json_object_get(run, "config");
    r->created_utc = mb__jstr(doc, "created_utc");
    r->mbench_commit = mb__jstr(doc, "mbench.commit");
    r->project_commit = mb__jstr(run, "git.commit");
    if (!r->project_commit)
        r->project_commit = mb__jstr(doc, "git.commit");
    /* Noise is judged by the robust CV (1.4826 MAD / median) when the
     * document has it: tail outliers are reported on their own. */
    r->cv = mb__jnum(run, "latency.robust_cv");
    if (!isfinite(r->cv))
        r->cv = mb__jnum(run, "latency.cv");
    /* With replicates, the median shown is the one the CI is about: the
     * geometric mean of the per-process medians. */
    double est = mb__jnum(run, "latency.median_ci95.estimate");
    r->p50 = isfinite(est) ? est : r->median;
    double k = mb__jnum(run, "replication.processes");
    r->processes = isfinite(k) ? (int)k : 0;
    /* the model's size with its external data; older documents have
     * only the .onnx file's size */
    r->file_bytes = mb__jnum(run, "model.total_bytes");
    if (!isfinite(r->file_bytes))
        r->file_bytes = r->model_file_bytes;
    double lo = mb__jnum(run, "latency.outliers.low");
    double hi = mb__jnum(run, "latency.outliers.high");
    r->outliers =
        (size_t)((in_count_range(lo) ? lo : 0) + (in_count_range(hi) ? hi : 0));
    r->leak = json_is_true(mb__jget(run, "memory.leak.suspected"));
    const json_t *ins = json_object_get(run, "inputs");
    size_t i;
    const json_t *in;
    json_array_foreach(ins, i, in)
    {
        const char *src = mb__jstr(in, "source");
        if (src && strcmp(src, "synthetic") == 0)
            r->synthetic = 1;
    }
    const json_t *s = json_object_get(run, "samples_ns");
    r->samples = json_is_array(s) && json_array_size(s) > 0 ? s : NULL;
}

static const char *run_label(const mb__rrun *r, char *out, size_t len)
{
    if (r->batch >= 0)
        snprintf(out, len, "%s (batch %lld)", r->variant, (long long)r->batch);
    else
        snprintf(out, len, "%s", r->variant);
    return out;
}

/* The checks of one run: each writes its warning into w when the run
 * calls for it, and nothing otherwise.  label names the run. */
static void failed_warning(const mb__rrun *r, const char *label, mb__buf *w)
{
    if (strcmp(r->status, "ok") != 0)
        mb__buf_printf(w, "%s %s: %s", label, r->status,
                       r->error ? r->error : "no reason recorded");
}

/* Noise is judged by the run-to-run spread when there are processes to
 * judge it by (a compare document says it already), else by the robust
 * CV of the samples. */
static void noise_warning(const mb__rrun *r, const char *label, mb__buf *w)
{
    bool is_cmp = r->doc && mb__jstr(r->doc, "kind") &&
                  strcmp(mb__jstr(r->doc, "kind"), "compare") == 0;
    if (r->processes >= 2 && isfinite(r->run_cv)) {
        if (r->run_cv > 0.05 && !is_cmp)
            mb__buf_printf(w,
                           "noisy from process to process: %s has a "
                           "run-to-run CV of %.1f%% over %d processes "
                           "(> 5%%); pin threads, close other programs "
                           "or add --processes",
                           label, r->run_cv * 100, r->processes);
    } else if (isfinite(r->cv) && r->cv > 0.10) {
        mb__buf_printf(w,
                       "noisy run: %s has a robust coefficient of "
                       "variation (1.4826 MAD / median) of %.1f%% (> "
                       "10%%); close other programs or pin threads",
                       label, r->cv * 100);
    }
}

static void outlier_warning(const mb__rrun *r, const char *label, mb__buf *w)
{
    double count = mb__jnum(r->run, "latency.count");
    if (r->outliers > 0 && isfinite(count) && count > 0 &&
        (double)r->outliers / count > 0.01)
        mb__buf_printf(w,
                       "outliers: %s has %zu of %.0f samples beyond "
                       "max(3.5 MAD, 5%%) of the median (counted, not "
                       "dropped)",
                       label, r->outliers, count);
}

static void leak_warning(const mb__rrun *r, const char *label, mb__buf *w)
{
    double slope = mb__jnum(r->run, "memory.leak.slope_bytes_per_iter");
    if (r->leak)
        mb__buf_printf(w,
                       "leak suspected: %s grows by %.0f bytes per "
                       "iteration",
                       label, isfinite(slope) ? slope : 0.0);
}

static void (*const run_checks[])(const mb__rrun *, const char *, mb__buf *) = {
    failed_warning, noise_warning, outlier_warning, leak_warning};

/* The documents' warnings, then those the view sees: interrupted
 * measurements, random inputs, then each run's checks.  False when memory
 * runs out. */
static bool derive_warnings(mb__rview *v, size_t *wcap,
                            const json_t *const *docs, size_t n_docs)
{
    bool have_random = false, any_synthetic = false;
    mb__buf w = MB_BUF_INIT;
    for (size_t d = 0; d < n_docs; d++) {
        size_t i;
        const json_t *dw;
        json_array_foreach(json_object_get(docs[d], "warnings"), i, dw)
        {
            const char *s = json_string_value(dw);
            if (s && (strstr(s, "random") || strstr(s, "synthetic")))
                have_random = true;
            if (s && !add_warning(v, wcap, &w, s))
                return false;
        }
        if (json_is_true(json_object_get(docs[d], "interrupted")) &&
            !add_warning(v, wcap, &w,
                         "the measurement was interrupted: figures cover "
                         "only what ran"))
            return false;
        if (json_is_true(mb__jget(docs[d], "comparison.random_inputs_only")))
            any_synthetic = true;
    }
    for (size_t i = 0; i < v->n_runs; i++)
        any_synthetic |= v->runs[i].synthetic;
    if (any_synthetic && !have_random &&
        !add_warning(v, wcap, &w,
                     "inputs are random (synthetic): latency is "
                     "representative, accuracy is not; pass --data for "
                     "real inputs"))
        return false;
    char label[512];
    for (size_t i = 0; i < v->n_runs; i++) {
        run_label(&v->runs[i], label, sizeof label);
        for (size_t k = 0; k < sizeof run_checks / sizeof *run_checks; k++) {
            run_checks[k](&v->runs[i], label, &w);
            if ((w.len || w.oom) && !add_warning(v, wcap, &w, ""))
                return false;
        }
    }
    return true;
}

/* What the fill functions of push_objects need besides the object. */
typedef struct fill_ctx {
    mb__rview *v;
    const json_t *doc;
    size_t d; /* the document's index */
} fill_ctx;

static void fill_run(void *item, const json_t *run, const fill_ctx *cx)
{
    mb__rrun *r = item;
    mb__rrun_fill(r, cx->doc, cx->d, run);
    if (r->samples)
        cx->v->any_samples = 1;
}

/* A comparison entry; the runs of its document are in the view already. */
static void fill_cmp(void *item, const json_t *cv, const fill_ctx *cx)
{
    mb__rcmp *c = item;
    memset(c, 0, sizeof *c);
    c->doc = cx->doc;
    c->v = cv;
    c->name = mb__jstr(cv, "name");
    if (!c->name)
        c->name = "(unnamed)";
    c->status = mb__jstr(cv, "status");
    if (!c->status)
        c->status = "ok";
    c->baseline = mb__jstr(cx->doc, "comparison.baseline");
    c->is_baseline = c->baseline && strcmp(c->baseline, c->name) == 0;
    c->flagged = json_is_true(json_object_get(cv, "baseline"));
    c->error = mb__jstr(cv, "error");
    c->speedup = mb__jnum(cv, "speedup_median.value");
    c->speedup_lo = c->speedup_hi = NAN;
    const json_t *sci = mb__jget(cv, "speedup_median.ci95");
    if (json_array_size(sci) == 2 && json_is_number(json_array_get(sci, 0)) &&
        json_is_number(json_array_get(sci, 1))) {
        c->speedup_lo = json_number_value(json_array_get(sci, 0));
        c->speedup_hi = json_number_value(json_array_get(sci, 1));
    }
    c->has_sig = json_is_object(json_object_get(cv, "significance"));
    c->sig_verdict = mb__jstr(cv, "significance.verdict");
    c->top1 = mb__jnum(cv, "accuracy.top1");
    c->top5 = mb__jnum(cv, "accuracy.top5");
    c->delta_top1 = mb__jnum(cv, "accuracy.delta_top1");
    c->agree_top1 = mb__jnum(cv, "agreement.top1");
    c->has_agreement = json_is_object(json_object_get(cv, "agreement"));
    c->recommendations = json_object_get(cv, "recommendations");
    const json_t *vp = mb__jget(cv, "verdict.passed");
    c->verdict = json_is_boolean(vp) ? json_is_true(vp) : -1;
    c->params = NAN;
    for (size_t j = 0; j < cx->v->n_runs && !isfinite(c->params); j++)
        if (cx->v->runs[j].doc == cx->doc && cx->v->runs[j].variant_raw &&
            strcmp(cx->v->runs[j].variant_raw, c->name) == 0)
            c->params = cx->v->runs[j].params;
    if (json_is_object(json_object_get(cv, "accuracy")) ||
        json_is_object(json_object_get(cv, "agreement")))
        cx->v->has_accuracy = 1;
}

/* Appends an element of size bytes to *items for each object of arr and
 * fills it with fill.  False when memory runs out. */
static bool push_objects(const json_t *arr, void **items, size_t *n,
                         size_t *cap, size_t size,
                         void (*fill)(void *, const json_t *, const fill_ctx *),
                         const fill_ctx *cx)
{
    size_t i;
    const json_t *o;
    json_array_foreach(arr, i, o)
    {
        if (!json_is_object(o))
            continue;
        if (!mb__grow(items, cap, *n + 1, size))
            return false;
        fill((char *)*items + size * (*n)++, o, cx);
    }
    return true;
}

int mb__rview_build(const json_t *const *docs, size_t n_docs, mb__rview *v)
{
    memset(v, 0, sizeof *v);
    size_t rcap = 0, ccap = 0, scap = 0, wcap = 0;
    for (size_t d = 0; d < n_docs; d++) {
        const fill_ctx cx = {v, docs[d], d};
        if (!push_objects(json_object_get(docs[d], "runs"), (void **)&v->runs,
                          &v->n_runs, &rcap, sizeof *v->runs, fill_run, &cx) ||
            !push_objects(mb__jget(docs[d], "comparison.variants"),
                          (void **)&v->cmps, &v->n_cmps, &ccap, sizeof *v->cmps,
                          fill_cmp, &cx))
            goto oom;
    }
    /* Series: comparison order first (baseline first), then run order. */
    int idx;
    for (size_t i = 0; i < v->n_cmps; i++)
        if (v->cmps[i].is_baseline &&
            !series_index(v, &scap, v->cmps[i].name, &idx))
            goto oom;
    for (size_t i = 0; i < v->n_cmps; i++)
        if (!series_index(v, &scap, v->cmps[i].name, &idx))
            goto oom;
    for (size_t i = 0; i < v->n_runs; i++)
        if (!series_index(v, &scap, v->runs[i].variant, &v->runs[i].series))
            goto oom;
    for (size_t s = 0; s < v->n_series && !v->multi_batch; s++) {
        int64_t first = -2;
        for (size_t i = 0; i < v->n_runs; i++) {
            if (v->runs[i].series != (int)s || v->runs[i].batch < 0)
                continue;
            if (first == -2)
                first = v->runs[i].batch;
            else if (v->runs[i].batch != first)
                v->multi_batch = 1;
        }
    }
    if (!derive_warnings(v, &wcap, docs, n_docs))
        goto oom;
    return 0;
oom:
    mb__rview_free(v);
    return -1;
}

void mb__rview_free(mb__rview *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->n_warnings; i++)
        free(v->warnings[i]);
    free(v->warnings);
    free(v->runs);
    free(v->cmps);
    free(v->series);
    memset(v, 0, sizeof *v);
}

/* The verdict of one comparison entry in words: "faster", "slower",
 * "no significant difference", "FAILED", "interrupted" (the measurement
 * was cancelled: no verdict), "baseline". */
const char *mb__cmp_verdict(const mb__rcmp *c)
{
    if (c->is_baseline)
        return "baseline";
    if (strcmp(c->status, "interrupted") == 0)
        return "interrupted";
    if (strcmp(c->status, "ok") != 0)
        return "FAILED";
    const char *v = mb__jstr(c->v, "significance.verdict");
    if (v)
        return v;
    double lo = NAN, hi = NAN;
    const json_t *ci = mb__jget(c->v, "speedup_median.ci95");
    if (json_array_size(ci) == 2) {
        lo = json_number_value(json_array_get(ci, 0));
        hi = json_number_value(json_array_get(ci, 1));
    }
    if (lo > 1)
        return "faster";
    if (hi < 1)
        return "slower";
    return "inconclusive";
}

void mb__rview_best(const mb__rview *v, const mb__rrun **fast,
                    const mb__rrun **thr, size_t *failed)
{
    *fast = *thr = NULL;
    *failed = 0;
    for (size_t i = 0; i < v->n_runs; i++) {
        const mb__rrun *r = &v->runs[i];
        if (strcmp(r->status, "ok") != 0) {
            (*failed)++;
            continue;
        }
        if (isfinite(r->p50) && (!*fast || r->p50 < (*fast)->p50))
            *fast = r;
        if (isfinite(r->sps) && (!*thr || r->sps > (*thr)->sps))
            *thr = r;
    }
}

int mb__rview_best_sentence(const mb__rview *v, const mb__rmarkup *m,
                            mb__buf *out)
{
    const mb__rrun *fast = NULL, *thr = NULL;
    size_t failed;
    char t[32];
    int said = 0;
    mb__rview_best(v, &fast, &thr, &failed);
    if (fast) {
        mb__buf_printf(out, "%s%s%s ms%s (", m->lead, m->em,
                       mb__fmt_ms(fast->p50, t, sizeof t), m->em_end);
        m->esc(out, fast->variant);
        mb__buf_printf(out, fast->batch >= 0 ? ", batch %lld)" : ")",
                       (long long)fast->batch);
        said = 1;
    }
    if (thr && v->n_runs > 1) {
        mb__buf_printf(out, "; highest throughput %s%s samples/s%s (", m->em,
                       mb__fmt_num(thr->sps, 4, t, sizeof t), m->em_end);
        m->esc(out, thr->variant);
        mb__buf_printf(out, thr->batch >= 0 ? ", batch %lld)" : ")",
                       (long long)thr->batch);
    }
    if (failed) {
        mb__buf_puts(out, said ? "; " : "");
        mb__buf_printf(out, m->failed_fmt, failed, failed == 1 ? "" : "s");
        said = 1;
    } else if (!said && m->none) {
        mb__buf_puts(out, m->none);
    }
    return said;
}

json_t *mb__rview_batch_doc(const json_t *doc, const json_t *c)
{
    json_t *d = json_copy((json_t *)doc), *runs = json_array();
    if (!d || !runs) {
        json_decref(d);
        json_decref(runs);
        return NULL;
    }
    double b = mb__jnum(c, "batch_size");
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(doc, "runs"), i,
                       r) if (mb__jnum(r, "batch_size") == b &&
                              json_array_append(runs, r))
    {
        json_decref(runs);
        json_decref(d);
        return NULL;
    }
    if (json_object_set_new(d, "runs", runs) ||
        json_object_set(d, "comparison", (json_t *)c)) {
        json_decref(d);
        return NULL;
    }
    return d;
}

const json_t *mb__rview_batch_cmps(const json_t *doc)
{
    const json_t *all = json_object_get(doc, "comparisons");
    return json_array_size(all) > 1 ? all : NULL;
}

bool mb__rview_each_batch(const json_t *doc,
                          void (*fn)(const mb__rview *v, int64_t batch,
                                     void *user),
                          void *user)
{
    size_t k;
    const json_t *c;
    json_array_foreach(mb__rview_batch_cmps(doc), k, c)
    {
        json_t *d = mb__rview_batch_doc(doc, c);
        mb__rview bv;
        const json_t *one[1] = {d};
        if (!d || mb__rview_build(one, 1, &bv)) {
            json_decref(d);
            return false;
        }
        fn(&bv, (int64_t)mb__jnum(c, "batch_size"), user);
        mb__rview_free(&bv);
        json_decref(d);
    }
    return true;
}

bool mb__rview_verdict_failed(const mb__rview *v, const mb__rcmp *c,
                              const char *variant)
{
    for (size_t i = 0; !c && variant && i < v->n_cmps; i++)
        if (v->cmps[i].name && !strcmp(v->cmps[i].name, variant))
            c = &v->cmps[i];
    return c && json_is_false(mb__jget(c->v, "verdict.passed"));
}

size_t mb__rview_verdicts(const mb__rview *v, const char *sep,
                          void (*say)(mb__buf *b, const mb__rverdict *vd),
                          mb__buf *b)
{
    size_t said = 0;
    for (size_t i = 0; i < v->n_cmps; i++) {
        mb__rverdict vd = {.c = &v->cmps[i]};
        if (vd.c->is_baseline)
            continue;
        if (said++)
            mb__buf_puts(b, sep);
        vd.verdict = mb__cmp_verdict(vd.c);
        vd.failed = strcmp(vd.verdict, "FAILED") == 0;
        mb__speedup_words(json_object_get(vd.c->v, "speedup_median"), vd.words,
                          sizeof vd.words);
        vd.significant = (strcmp(vd.verdict, "faster") == 0 ||
                          strcmp(vd.verdict, "slower") == 0) &&
                         vd.words[0];
        vd.p = mb__jnum(vd.c->v, "significance.p");
        mb__cmp_headline(vd.c->v, vd.headline, sizeof vd.headline);
        size_t w = strcspn(vd.headline, ":;");
        snprintf(vd.word, sizeof vd.word, "%.*s", (int)w, vd.headline);
        vd.rest = vd.headline + w;
        vd.pass = !strcmp(vd.word, "PASS")   ? 1
                  : !strcmp(vd.word, "FAIL") ? 0
                                             : -1;
        say(b, &vd);
    }
    return said;
}

/* The accuracy row of a comparison entry: top-1, top-5, Δ top-1 (signed)
 * and top-1 agreement with the baseline; 4 significant digits, "-" when
 * absent. */
enum { ACC_CELLS = 5 };

/* The verdict of an entry: "PASS", "FAIL: <failing outputs and figures>"
 * or "-". */
static void verdict_text(const mb__rcmp *c, char *buf, size_t len)
{
    if (c->verdict < 0) {
        snprintf(buf, len, "-");
    } else if (c->verdict) {
        snprintf(buf, len, "PASS");
    } else {
        char why[400];
        mb__verdict_failures(json_object_get(c->v, "verdict"), why, sizeof why);
        snprintf(buf, len, "FAIL%s%s", why[0] ? ": " : "", why);
    }
}

/* The accuracy row of a comparison entry: top-1, top-5, Δ top-1 (signed),
 * its paired CI, top-1 agreement with the baseline (4 significant
 * digits, "-" when absent) and the verdict. */
static void accuracy_cells(const mb__rcmp *c, mb__rcell cells[ACC_CELLS],
                           char *verdict, size_t len)
{
    static const char *const keys[4] = {"accuracy.top1", "accuracy.top5",
                                        "accuracy.delta_top1",
                                        "agreement.top1"};
    for (size_t k = 0; k < 4; k++) {
        mb__rcell *cl = &cells[k < 3 ? k : 4];
        double x = cl->x = mb__jnum(c->v, keys[k]);
        if (k != 2)
            mb__fmt_num(x, 4, cl->text, sizeof cl->text);
        else if (isfinite(x))
            snprintf(cl->text, sizeof cl->text, "%+.4f", x);
        else
            snprintf(cl->text, sizeof cl->text, "-");
    }
    const json_t *ci = mb__jget(c->v, "accuracy.delta_top1_ci95");
    cells[3].x = NAN;
    if (json_array_size(ci) == 2)
        snprintf(cells[3].text, sizeof cells[3].text, "%+.4f to %+.4f",
                 json_number_value(json_array_get(ci, 0)),
                 json_number_value(json_array_get(ci, 1)));
    else
        snprintf(cells[3].text, sizeof cells[3].text, "-");
    verdict_text(c, verdict, len);
}

/* A row per comparison entry: the variant, its accuracy cells and its
 * verdict (the whole text, escaped: it names outputs). */
static void accuracy_rows(const mb__rview *v, const mb__rrows *m, mb__buf *b)
{
    for (size_t i = 0; i < v->n_cmps; i++) {
        mb__rcell cells[ACC_CELLS];
        char verdict[512];
        accuracy_cells(&v->cmps[i], cells, verdict, sizeof verdict);
        mb__buf_puts(b, m->row);
        m->esc(b, v->cmps[i].name);
        mb__buf_puts(b, m->label_end);
        for (size_t k = 0; k < ACC_CELLS; k++)
            m->cell(b, &cells[k]);
        mb__buf_puts(b, m->text_open);
        m->esc(b, verdict);
        mb__buf_puts(b, m->text_end);
        mb__buf_puts(b, m->row_end);
    }
}

/* "pass", "n/a" or "FAIL rel_l2<=0.0001, ..." for output `name` of one
 * entry's agreement.gates. */
static void output_gates(const json_t *gates, const char *name, char *buf,
                         size_t len)
{
    size_t g, k, off = 0;
    const json_t *gt, *r;
    int applied = 0;
    buf[0] = '\0';
    json_array_foreach(gates, g, gt)
        json_array_foreach(json_object_get(gt, "results"), k, r)
    {
        const char *o = mb__jstr(r, "output"), *res = mb__jstr(r, "result");
        if (!o || !res || strcmp(o, name))
            continue;
        applied |= strcmp(res, "n/a") != 0;
        if (!strcmp(res, "fail") && off < len)
            off += (size_t)snprintf(buf + off, len - off, "%s%s",
                                    off ? ", " : "FAIL ", mb__jstr(gt, "gate"));
    }
    if (!off)
        snprintf(buf, len, "%s",
                 !json_array_size(gates) ? "-"
                 : applied               ? "pass"
                                         : "n/a");
}

/* A row per output of each entry's agreement.outputs; returns how many
 * there are (b NULL: only counts them). */
static size_t output_rows(const mb__rview *v, const mb__rrows *m, mb__buf *b)
{
    size_t n = 0, k;
    const json_t *o;
    for (size_t i = 0; i < v->n_cmps; i++)
        json_array_foreach(mb__jget(v->cmps[i].v, "agreement.outputs"), k, o)
        {
            n++;
            if (!b)
                continue;
            mb__buf_puts(b, m->row);
            m->esc(b, v->cmps[i].name);
            mb__buf_puts(b, m->label_sep);
            m->esc(b, mb__jstr(o, "name"));
            mb__buf_puts(b, m->label_end);
            for (size_t j = 0; j < m->n_keys; j++) {
                mb__rcell c;
                c.x = mb__jnum(o, m->keys[j]);
                if (!isfinite(c.x) && strcmp(m->keys[j], "rel_error") == 0)
                    c.x = mb__jnum(o, "rel_l2"); /* the name compare writes */
                mb__fmt_num(c.x, m->sig[j], c.text, sizeof c.text);
                const char *inf = mb__jstr(o, m->keys[j]); /* "inf" */
                if (inf && !strcmp(inf, "inf") && !strcmp(m->keys[j], "psnr"))
                    snprintf(c.text, sizeof c.text, "identical");
                m->cell(b, &c);
            }
            char gates[300];
            output_gates(mb__jget(v->cmps[i].v, "agreement.gates"),
                         mb__jstr(o, "name") ? mb__jstr(o, "name") : "", gates,
                         sizeof gates);
            mb__buf_puts(b, m->text_open);
            m->esc(b, gates);
            mb__buf_puts(b, m->text_end);
            mb__buf_puts(b, m->row_end);
        }
    return n;
}

void mb__rview_accuracy_tables(const mb__rview *v, const mb__rrows *m,
                               mb__buf *b)
{
    mb__buf_puts(b, m->acc_head);
    accuracy_rows(v, m, b);
    mb__buf_puts(b, m->acc_end);
    if (!output_rows(v, m, NULL))
        return;
    mb__buf_puts(b, m->out_head);
    output_rows(v, m, b);
    mb__buf_puts(b, m->out_end);
}

mb_status mb__rview_check_docs(const json_t *const *docs, size_t n_docs,
                               mb_err *err)
{
    if (n_docs == 0)
        return mb__fail(err, MB_EINVAL, "no result document to report on");
    for (size_t i = 0; i < n_docs; i++)
        if (!json_is_object(docs[i]))
            return mb__fail(err, MB_EINVAL,
                            "result document %zu is not a JSON object", i + 1);
    return MB_OK;
}

void mb__rcmp_figures(const mb__rcmp *c, mb__rcell f[5])
{
    f[0].x = mb__jnum(c->v, "significance.p");
    mb__fmt_p(f[0].x, f[0].text, sizeof f[0].text);
    f[1].x = mb__jnum(c->v, "memory_ratio");
    mb__fmt_num(f[1].x, 3, f[1].text, sizeof f[1].text);
    f[2].x = mb__jnum(c->v, "memory_delta_bytes");
    mb__fmt_bytes(f[2].x, f[2].text, sizeof f[2].text);
    f[3].x = mb__jnum(c->v, "size_ratio");
    mb__fmt_num(f[3].x, 3, f[3].text, sizeof f[3].text);
    f[4].x = c->params;
    if (isfinite(c->params))
        snprintf(f[4].text, sizeof f[4].text, "%.0f", c->params);
    else
        snprintf(f[4].text, sizeof f[4].text, "-");
}
