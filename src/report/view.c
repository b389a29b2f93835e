/* view.c - the typed view of result documents (report/view.h). */
#include "report/view.h"

#include "core/alloc.h"
#include "core/buf.h"
#include "report/rutil.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the view ------------------------------------------------------------ */

static int add_warning(mb_rview *v, size_t *cap, char *w)
{
    if (!w)
        return -1;
    for (size_t i = 0; i < v->n_warnings; i++)
        if (strcmp(v->warnings[i], w) == 0) {
            free(w);
            return 0;
        }
    if (!mb__grow((void **)&v->warnings, cap, v->n_warnings + 1,
                  sizeof *v->warnings)) {
        free(w);
        return -1;
    }
    v->warnings[v->n_warnings++] = w;
    return 0;
}

static char *fmt_alloc(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *fmt_alloc(const char *fmt, ...)
{
    mb_buf b = MB_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    mb__buf_vprintf(&b, fmt, ap);
    va_end(ap);
    if (b.oom) {
        mb__buf_free(&b);
        return NULL;
    }
    return mb__buf_take(&b, NULL);
}

static int series_index(mb_rview *v, size_t *cap, const char *name)
{
    for (size_t i = 0; i < v->n_series; i++)
        if (strcmp(v->series[i], name) == 0)
            return (int)i;
    if (!mb__grow((void **)&v->series, cap, v->n_series + 1, sizeof *v->series))
        return -1;
    v->series[v->n_series] = name;
    return (int)v->n_series++;
}

/* Nonzero when x can be a count or a batch size: finite, not negative, at
 * most 2^53.  A document (hand-edited, corrupt) may hold anything, and
 * converting a negative or huge double to an integer is undefined. */
static int in_count_range(double x)
{
    return isfinite(x) && x >= 0 && x <= 9007199254740992.0;
}

void mb__rrun_fill(mb_rrun *r, const json_t *doc, size_t di,
                   const json_t *run)
{
    memset(r, 0, sizeof *r);
    r->doc = doc;
    r->run = run;
    r->doc_index = di;
    r->variant = mb__jstr(run, "variant");
    r->model = mb__jstr(run, "model.name");
    if (!r->model)
        r->model = mb__jstr(run, "model.path");
    if (!r->variant)
        r->variant = r->model ? r->model : "(unnamed)";
    r->status = mb__jstr(run, "status");
    if (!r->status)
        r->status = "ok";
    r->error = mb__jstr(run, "error");
    double b = mb__jnum(run, "batch_size");
    r->batch = in_count_range(b) ? (int64_t)b : -1;
    r->p50 = r->median = mb__jnum(run, "latency.median");
    r->std = mb__jnum(run, "latency.std");
    r->count = mb__jnum(run, "latency.count");
    r->iterations = mb__jnum(run, "iterations");
    r->load_ns = mb__jnum(run, "phases.library_load_ns");
    r->session_ns = mb__jnum(run, "phases.session_create_ns");
    r->first_ns = mb__jnum(run, "phases.first_inference_ns");
    r->model_path = mb__jstr(run, "model.path");
    r->model_name = mb__jstr(run, "model.name");
    r->variant_raw = mb__jstr(run, "variant");
    r->status_raw = mb__jstr(run, "status");
    r->sha256 = mb__jstr(run, "model.sha256");
    r->model_file_bytes = mb__jnum(run, "model.file_bytes");
    r->params = mb__jnum(run, "model.params");
    r->backend = mb__jstr(run, "backend");
    r->device = mb__jstr(run, "device");
    r->device_type = mb__jstr(run, "device_type");
    r->runtime_name = mb__jstr(run, "runtime.name");
    r->runtime_version = mb__jstr(run, "runtime.version");
    r->stop_rule = mb__jstr(run, "stop_rule");
    r->peak_method = mb__jstr(run, "memory.peak_method");
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
    r->command = mb__jstr(run, "command");
    r->p90 = mb__jnum(run, "latency.p90");
    r->p95 = mb__jnum(run, "latency.p95");
    r->p99 = mb__jnum(run, "latency.p99");
    r->mean = mb__jnum(run, "latency.mean");
    r->min = mb__jnum(run, "latency.min");
    r->max = mb__jnum(run, "latency.max");
    /* Noise is judged by the robust CV (1.4826 MAD / median) when the
     * document has it: tail outliers are reported on their own. */
    r->cv = mb__jnum(run, "latency.robust_cv");
    if (!isfinite(r->cv))
        r->cv = mb__jnum(run, "latency.cv");
    r->ci_lo = mb__jnum(run, "latency.median_ci95.lo");
    r->ci_hi = mb__jnum(run, "latency.median_ci95.hi");
    /* With replicates, the median shown is the one the CI is about: the
     * geometric mean of the per-process medians. */
    double est = mb__jnum(run, "latency.median_ci95.estimate");
    if (isfinite(est))
        r->p50 = est;
    r->run_cv = mb__jnum(run, "replication.run_to_run_cv");
    double k = mb__jnum(run, "replication.processes");
    r->processes = isfinite(k) ? (int)k : 0;
    r->ips = mb__jnum(run, "throughput.inferences_per_s");
    r->sps = mb__jnum(run, "throughput.samples_per_s");
    r->rss_peak = mb__jnum(run, "memory.rss_peak_bytes");
    /* the model's size with its external data; older documents have
     * only the .onnx file's size */
    r->file_bytes = mb__jnum(run, "model.total_bytes");
    if (!isfinite(r->file_bytes))
        r->file_bytes = mb__jnum(run, "model.file_bytes");
    double lo = mb__jnum(run, "latency.outliers.low");
    double hi = mb__jnum(run, "latency.outliers.high");
    r->outliers = (size_t)((in_count_range(lo) ? lo : 0) +
                           (in_count_range(hi) ? hi : 0));
    r->leak = json_is_true(mb__jget(run, "memory.leak.suspected"));
    const json_t *ins = json_object_get(run, "inputs");
    size_t i;
    const json_t *in;
    json_array_foreach(ins, i, in) {
        const char *src = mb__jstr(in, "source");
        if (src && strcmp(src, "synthetic") == 0)
            r->synthetic = 1;
    }
    const json_t *s = json_object_get(run, "samples_ns");
    r->samples = json_is_array(s) && json_array_size(s) > 0 ? s : NULL;
}

static const char *run_label(const mb_rrun *r, char *out, size_t len)
{
    if (r->batch >= 0)
        snprintf(out, len, "%s (batch %lld)", r->variant, (long long)r->batch);
    else
        snprintf(out, len, "%s", r->variant);
    return out;
}

static int derive_warnings(mb_rview *v, size_t *wcap, const json_t *const *docs,
                           size_t n_docs)
{
    int have_random = 0, any_synthetic = 0;
    for (size_t d = 0; d < n_docs; d++) {
        const json_t *ws = json_object_get(docs[d], "warnings");
        size_t i;
        const json_t *w;
        json_array_foreach(ws, i, w) {
            const char *s = json_string_value(w);
            if (!s)
                continue;
            if (strstr(s, "random") || strstr(s, "synthetic"))
                have_random = 1;
            if (add_warning(v, wcap, mb__strdup(s)))
                return -1;
        }
        if (json_is_true(json_object_get(docs[d], "interrupted")) &&
            add_warning(v, wcap, mb__strdup("the measurement was interrupted: "
                                            "figures cover only what ran")))
            return -1;
        if (json_is_true(mb__jget(docs[d], "comparison.random_inputs_only")))
            any_synthetic = 1;
    }
    for (size_t i = 0; i < v->n_runs; i++)
        any_synthetic |= v->runs[i].synthetic;
    if (any_synthetic && !have_random &&
        add_warning(v, wcap, mb__strdup("inputs are random (synthetic): "
                                        "latency is representative, accuracy "
                                        "is not; pass --data for real inputs")))
        return -1;
    char label[512];
    for (size_t i = 0; i < v->n_runs; i++) {
        const mb_rrun *r = &v->runs[i];
        run_label(r, label, sizeof label);
        char *w = NULL;
        if (strcmp(r->status, "ok") != 0) {
            w = fmt_alloc("%s %s: %s", label, r->status,
                          r->error ? r->error : "no reason recorded");
            if (add_warning(v, wcap, w))
                return -1;
        }
        /* Noise is judged by the run-to-run spread when there are
         * processes to judge it by (a compare document says it already). */
        int is_cmp = r->doc && mb__jstr(r->doc, "kind") &&
                     strcmp(mb__jstr(r->doc, "kind"), "compare") == 0;
        if (r->processes >= 2 && isfinite(r->run_cv)) {
            if (r->run_cv > 0.05 && !is_cmp) {
                w = fmt_alloc("noisy from process to process: %s has a "
                              "run-to-run CV of %.1f%% over %d processes "
                              "(> 5%%); pin threads, close other programs or "
                              "add --processes",
                              label, r->run_cv * 100, r->processes);
                if (add_warning(v, wcap, w))
                    return -1;
            }
        } else if (isfinite(r->cv) && r->cv > 0.10) {
            w = fmt_alloc("noisy run: %s has a robust coefficient of "
                          "variation (1.4826 MAD / median) of %.1f%% (> 10%%); "
                          "close other programs or pin threads",
                          label, r->cv * 100);
            if (add_warning(v, wcap, w))
                return -1;
        }
        double count = mb__jnum(r->run, "latency.count");
        if (r->outliers > 0 && isfinite(count) && count > 0 &&
            (double)r->outliers / count > 0.01) {
            w = fmt_alloc("outliers: %s has %zu of %.0f samples beyond "
                          "max(3.5 MAD, 5%%) of the median (counted, not "
                          "dropped)",
                          label, r->outliers, count);
            if (add_warning(v, wcap, w))
                return -1;
        }
        if (r->leak) {
            double slope = mb__jnum(r->run, "memory.leak.slope_bytes_per_iter");
            w = fmt_alloc("leak suspected: %s grows by %.0f bytes per "
                          "iteration",
                          label, isfinite(slope) ? slope : 0.0);
            if (add_warning(v, wcap, w))
                return -1;
        }
    }
    return 0;
}

int mb__rview_build(const json_t *const *docs, size_t n_docs, mb_rview *v)
{
    memset(v, 0, sizeof *v);
    size_t rcap = 0, ccap = 0, scap = 0, wcap = 0;
    for (size_t d = 0; d < n_docs; d++) {
        const json_t *runs = json_object_get(docs[d], "runs");
        size_t i;
        const json_t *run;
        json_array_foreach(runs, i, run) {
            if (!json_is_object(run))
                continue;
            if (!mb__grow((void **)&v->runs, &rcap, v->n_runs + 1, sizeof *v->runs))
                goto oom;
            mb_rrun *r = &v->runs[v->n_runs++];
            mb__rrun_fill(r, docs[d], d, run);
            if (r->samples)
                v->any_samples = 1;
        }
        const json_t *cmp = json_object_get(docs[d], "comparison");
        const json_t *vars = json_object_get(cmp, "variants");
        const char *base = mb__jstr(cmp, "baseline");
        const json_t *cv;
        json_array_foreach(vars, i, cv) {
            if (!json_is_object(cv))
                continue;
            if (!mb__grow((void **)&v->cmps, &ccap, v->n_cmps + 1, sizeof *v->cmps))
                goto oom;
            mb_rcmp *c = &v->cmps[v->n_cmps++];
            c->doc = docs[d];
            c->v = cv;
            c->name = mb__jstr(cv, "name");
            if (!c->name)
                c->name = "(unnamed)";
            c->status = mb__jstr(cv, "status");
            if (!c->status)
                c->status = "ok";
            c->baseline = base;
            c->is_baseline = base && strcmp(base, c->name) == 0;
            c->flagged = json_is_true(json_object_get(cv, "baseline"));
            c->error = mb__jstr(cv, "error");
            c->speedup = mb__jnum(cv, "speedup_median.value");
            c->speedup_lo = c->speedup_hi = NAN;
            const json_t *sci = mb__jget(cv, "speedup_median.ci95");
            if (json_array_size(sci) == 2 &&
                json_is_number(json_array_get(sci, 0)) &&
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
            c->has_agreement =
                json_is_object(json_object_get(cv, "agreement"));
            c->recommendations = json_object_get(cv, "recommendations");
            c->params = NAN;
            for (size_t j = 0; j < v->n_runs && !isfinite(c->params); j++)
                if (v->runs[j].doc == docs[d] && v->runs[j].variant_raw &&
                    strcmp(v->runs[j].variant_raw, c->name) == 0)
                    c->params = v->runs[j].params;
            if (json_is_object(json_object_get(cv, "accuracy")) ||
                json_is_object(json_object_get(cv, "agreement")))
                v->has_accuracy = 1;
        }
    }
    /* Series: comparison order first (baseline first), then run order. */
    for (size_t i = 0; i < v->n_cmps; i++)
        if (v->cmps[i].is_baseline && series_index(v, &scap, v->cmps[i].name) < 0)
            goto oom;
    for (size_t i = 0; i < v->n_cmps; i++)
        if (series_index(v, &scap, v->cmps[i].name) < 0)
            goto oom;
    for (size_t i = 0; i < v->n_runs; i++) {
        int s = series_index(v, &scap, v->runs[i].variant);
        if (s < 0)
            goto oom;
        v->runs[i].series = s;
    }
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
    if (derive_warnings(v, &wcap, docs, n_docs))
        goto oom;
    return 0;
oom:
    mb__rview_free(v);
    return -1;
}

void mb__rview_free(mb_rview *v)
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
 * "no significant difference", "failed", "baseline". */
const char *mb__cmp_verdict(const mb_rcmp *c)
{
    if (c->is_baseline)
        return "baseline";
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


void mb__rview_best(const mb_rview *v, const mb_rrun **fast,
                    const mb_rrun **thr, size_t *failed)
{
    *fast = *thr = NULL;
    *failed = 0;
    for (size_t i = 0; i < v->n_runs; i++) {
        const mb_rrun *r = &v->runs[i];
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

int mb__rview_best_sentence(const mb_rview *v, const mb_rmarkup *m,
                            mb_buf *out)
{
    const mb_rrun *fast = NULL, *thr = NULL;
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
    json_array_foreach(json_object_get(doc, "runs"), i, r)
        if (mb__jnum(r, "batch_size") == b && json_array_append(runs, r)) {
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
