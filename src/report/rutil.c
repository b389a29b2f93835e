/* rutil.c - escaping, document lookups and the run view shared by the
 * Markdown and HTML writers. */
#include "report/rutil.h"

#include "core/alloc.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mb__html_escape(mb_buf *b, const char *s)
{
    if (!s)
        return;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '&': mb__buf_puts(b, "&amp;"); break;
        case '<': mb__buf_puts(b, "&lt;"); break;
        case '>': mb__buf_puts(b, "&gt;"); break;
        case '"': mb__buf_puts(b, "&quot;"); break;
        case '\'': mb__buf_puts(b, "&#39;"); break;
        default:
            if (c < 0x20 && c != '\n' && c != '\t')
                mb__buf_putc(b, ' ');
            else
                mb__buf_putc(b, (char)c);
        }
    }
}

void mb__md_escape(mb_buf *b, const char *s)
{
    if (!s) {
        mb__buf_putc(b, '-');
        return;
    }
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (strchr("\\`*_|[]#~$", c) && c) {
            mb__buf_putc(b, '\\');
            mb__buf_putc(b, (char)c);
        } else if (c == '<') {
            mb__buf_puts(b, "&lt;");
        } else if (c == '>') {
            mb__buf_puts(b, "&gt;");
        } else if (c == '&') {
            mb__buf_puts(b, "&amp;");
        } else if (c < 0x20 || c == 0x7f) {
            mb__buf_putc(b, ' ');
        } else {
            mb__buf_putc(b, (char)c);
        }
    }
}

void mb__json_script_embed(mb_buf *b, const json_t *doc)
{
    char *text = json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    if (!text) {
        mb__buf_puts(b, "null");
        return;
    }
    for (const char *p = text; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '<')
            mb__buf_puts(b, "\\u003c");
        else if (c == '>')
            mb__buf_puts(b, "\\u003e");
        else if (c == '&')
            mb__buf_puts(b, "\\u0026");
        else if (c == 0xe2 && (unsigned char)p[1] == 0x80 &&
                 ((unsigned char)p[2] == 0xa8 || (unsigned char)p[2] == 0xa9)) {
            mb__buf_puts(b, (unsigned char)p[2] == 0xa8 ? "\\u2028" : "\\u2029");
            p += 2;
        } else
            mb__buf_putc(b, (char)c);
    }
    free(text);
}

const json_t *mb__jget(const json_t *o, const char *path)
{
    char key[128];
    while (o && path && *path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        if (n >= sizeof key || !json_is_object(o))
            return NULL;
        memcpy(key, path, n);
        key[n] = '\0';
        o = json_object_get(o, key);
        path = dot ? dot + 1 : NULL;
    }
    return o;
}

double mb__jnum(const json_t *o, const char *path)
{
    const json_t *v = mb__jget(o, path);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

const char *mb__jstr(const json_t *o, const char *path)
{
    const json_t *v = mb__jget(o, path);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

char *mb__fmt_num(double x, int sig, char *out, size_t len)
{
    if (!isfinite(x)) {
        snprintf(out, len, "-");
        return out;
    }
    double a = fabs(x);
    int dec = 0;
    if (a > 0) {
        int mag = (int)floor(log10(a));
        dec = sig - 1 - mag;
        if (dec < 0)
            dec = 0;
        if (dec > 9)
            dec = 9;
    }
    snprintf(out, len, "%.*f", dec, x);
    return out;
}

char *mb__fmt_ms(double ns, char *out, size_t len)
{
    if (!isfinite(ns)) {
        snprintf(out, len, "-");
        return out;
    }
    double ms = ns / 1e6;
    if (fabs(ms) >= 1000)
        snprintf(out, len, "%.0f", ms);
    else
        mb__fmt_num(ms, 4, out, len);
    return out;
}

char *mb__fmt_bytes(double b, char *out, size_t len)
{
    if (!isfinite(b)) {
        snprintf(out, len, "-");
        return out;
    }
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    double a = fabs(b);
    while (a >= 1024 && u < 4) {
        a /= 1024;
        b /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(out, len, "%.0f B", b);
    else
        snprintf(out, len, "%.*f %s", a >= 100 ? 0 : 1, b, unit[u]);
    return out;
}

char *mb__fmt_grouped(uint64_t v, char *out, size_t len)
{
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%" PRIu64, v);
    size_t k = 0;
    for (int i = 0; i < n && k + 2 < len; i++) {
        if (i && (n - i) % 3 == 0)
            out[k++] = ',';
        out[k++] = tmp[i];
    }
    if (len)
        out[k < len ? k : len - 1] = '\0';
    return out;
}

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

static void fill_run(mb_rrun *r, const json_t *doc, size_t di, const json_t *run)
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
    r->p50 = mb__jnum(run, "latency.median");
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
            fill_run(r, docs[d], d, run);
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


char *mb__fmt_p(double p, char *out, size_t len)
{
    if (!isfinite(p))
        snprintf(out, len, "-");
    else if (p < 0.0001)
        snprintf(out, len, "< 0.0001");
    else
        snprintf(out, len, "%.2g", p);
    return out;
}

char *mb__speedup_words(const json_t *speedup, char *out, size_t len)
{
    double s = mb__jnum(speedup, "value");
    const json_t *ci = json_object_get(speedup, "ci95");
    double lo = NAN, hi = NAN;
    if (json_array_size(ci) == 2) {
        lo = json_is_number(json_array_get(ci, 0)) ? json_number_value(json_array_get(ci, 0)) : NAN;
        hi = json_is_number(json_array_get(ci, 1)) ? json_number_value(json_array_get(ci, 1)) : NAN;
    }
    if (!(s > 0)) {
        snprintf(out, len, "%s", "");
        return out;
    }
    int slower = s < 1;
    double v = slower ? 1 / s : s;
    double a = slower ? 1 / hi : lo, b = slower ? 1 / lo : hi;
    if (isfinite(a) && isfinite(b) && a > 0)
        snprintf(out, len, "%.2f× %s (95%% CI %.2f–%.2f×)", v, slower ? "slower" : "faster", a, b);
    else
        snprintf(out, len, "%.2f× %s", v, slower ? "slower" : "faster");
    return out;
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
