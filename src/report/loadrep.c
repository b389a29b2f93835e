/* loadrep.c - console, Markdown, CSV and HTML for load documents
 * (loadrep.h).  One column list (cols[]) drives the tables of every
 * format. */
#include "report/loadrep.h"

#include "core/err.h"
#include "report/csv.h"
#include "report/htmlpage.h"
#include "report/rutil.h"
#include "report/svg.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool mb__is_load_doc(const json_t *doc)
{
    const char *k = mb__jstr(doc, "kind");
    return k && !strcmp(k, "load") &&
           json_is_object(json_object_get(doc, "load"));
}

mb_status mb__load_doc_outcome(const json_t *doc, mb_err *err)
{
    size_t i;
    const json_t *step;
    json_array_foreach(mb__jget(doc, "load.steps"), i, step)
    {
        const char *why = mb__jstr(step, "error");
        if (json_object_get(step, "error"))
            return mb__fail(err, MB_EIO, "step %zu failed: %s", i + 1,
                            why ? why : "(null)");
    }
    if (json_is_true(json_object_get(doc, "interrupted")))
        return mb__fail(err, MB_EINTERRUPTED,
                        "interrupted; the results above are what finished");
    return MB_OK;
}

/* The bound of percentile q (90, 95, 99, 99.9) from early_stopping. */
static double bound_of(const json_t *st, double q)
{
    const json_t *a = mb__jget(st, "early_stopping.percentiles"), *e;
    size_t i;
    json_array_foreach(a, i, e) if (fabs(mb__jnum(e, "q") - q) <
                                    1e-9) return mb__jnum(e, "upper_bound_ns");
    return NAN;
}

enum { C_TEXT, C_INT, C_QPS, C_MS };
typedef struct {
    const char *head, *csv, *path;
    int kind;
    double q; /* for bounds */
} col;

static const col cols[] = {
    {"step", "step", NULL, C_INT, 0},
    {"role", "role", "role", C_TEXT, 0},
    {"threads", "concurrency", "concurrency", C_INT, 0},
    {"target/s", "target_qps", "target_qps", C_QPS, 0},
    {"achieved/s", "achieved_qps", "achieved_qps", C_QPS, 0},
    {"done", "completed", "requests.completed", C_INT, 0},
    {"dropped", "dropped", "requests.dropped", C_INT, 0},
    {"queued", "queued", "requests.queued", C_INT, 0},
    {"p50 ms", "p50_ns", "latency.median", C_MS, 0},
    {"p99 ms", "p99_ns", "latency.p99", C_MS, 0},
    {"p99.9 ms", "p99_9_ns", "latency.p99_9", C_MS, 0},
    {"p99 bound ms", "p99_bound_ns", NULL, C_MS, 99},
    {"dispatch p99 ms", "dispatch_p99_ns", "dispatch.p99_ns", C_MS, 0},
    {"model p99 ms", "model_p99_ns", "model_latency.p99_ns", C_MS, 0},
    {"SLO", "slo", NULL, C_TEXT, 0},
    {"note", "note", NULL, C_TEXT, 0},
};
#define NCOLS (sizeof cols / sizeof cols[0])

/* Cell c of step i as display text (csv: raw numbers). */
static void cell(const json_t *st, size_t i, size_t c, int csv, char *out,
                 size_t len)
{
    const col *k = &cols[c];
    double v = NAN;
    if (c == 0) {
        snprintf(out, len, "%zu", i + 1);
        return;
    }
    if (!strcmp(k->csv, "slo")) {
        const json_t *s = json_object_get(st, "slo");
        snprintf(out, len, "%s",
                 !s                                          ? (csv ? "" : "-")
                 : json_is_true(json_object_get(s, "pass"))  ? "pass"
                 : json_is_true(json_object_get(s, "valid")) ? "fail"
                                                             : "invalid");
        return;
    }
    if (!strcmp(k->csv, "note")) {
        bool over = json_is_false(mb__jget(st, "stability.stable"));
        bool harness = json_is_true(json_object_get(st, "harness_sets_tail"));
        snprintf(out, len, "%s%s%s", over ? "overloaded" : "",
                 over && harness ? ", " : "", harness ? "harness tail" : "");
        return;
    }
    if (k->kind == C_TEXT) {
        const char *s = mb__jstr(st, k->path);
        snprintf(out, len, "%s", s ? s : "");
        return;
    }
    v = k->path ? mb__jnum(st, k->path) : bound_of(st, k->q);
    if (!isfinite(v)) {
        snprintf(out, len, "%s", csv ? "" : "-");
    } else if (csv) {
        snprintf(out, len, k->kind == C_INT ? "%.0f" : "%.6g", v);
    } else if (k->kind == C_MS) {
        mb__fmt_ms(v, out, len);
    } else if (k->kind == C_QPS) {
        snprintf(out, len, v >= 100 ? "%.0f" : "%.3g", v);
    } else {
        snprintf(out, len, "%.0f", v);
    }
}

static const char *model_name(const json_t *doc)
{
    const char *m = mb__jstr(doc, "load.run.model.name");
    if (!m)
        m = mb__jstr(doc, "load.run.variant");
    return m ? m : "model";
}

/* The pass rate at each probed rate: "7760/s 5/5, 8150/s 3/4, ...". */
static void probes_line(const json_t *s, mb__buf *b)
{
    size_t i;
    const json_t *p;
    json_array_foreach(json_object_get(s, "probes"), i, p) mb__buf_printf(
        b, "%s%.0f/s %.0f/%.0f", i ? ", " : "", mb__jnum(p, "qps"),
        mb__jnum(p, "passes"), mb__jnum(p, "steps"));
}

/* "No rate met ...": how many searches met one, the interval (the range
 * of the searches) when some did, else the lowest rate tried, so that the
 * answer still says what it rests on. */
static void no_rate(const json_t *s, mb__buf *b, int md, const char *q,
                    const char *bound, const char *on, int rep)
{
    size_t i, met = 0;
    const json_t *x, *ci = json_object_get(s, "qps_ci95");
    json_array_foreach(json_object_get(s, "searches"), i, x) met +=
        json_is_true(json_object_get(x, "met"));
    mb__buf_printf(b, "%sNo rate met p%s <= %s ms%s%s (at %.0f%% confidence",
                   md ? "**" : "", q, bound, on, md ? "**" : "",
                   mb__jnum(s, "confidence") * 100);
    if (rep > 0)
        mb__buf_printf(b, "; %zu of %d search%s met a rate", met, rep,
                       rep == 1 ? "" : "es");
    if (met && json_is_array(ci))
        mb__buf_printf(b, ", 95%% interval %.0f-%.0f requests/s (the range)",
                       json_number_value(json_array_get(ci, 0)),
                       json_number_value(json_array_get(ci, 1)));
    const json_t *p0 = json_array_get(json_object_get(s, "probes"), 0);
    if (!met && p0)
        mb__buf_printf(b, "; every step failed, down to %.0f requests/s",
                       mb__jnum(p0, "qps"));
    mb__buf_puts(b, ").\n");
}

/* "Highest rate with p99 <= 20 ms, <question>: ..." and what it rests
 * on, for one summary of searches. */
static void answer_one(const json_t *s, mb__buf *b, int md)
{
    char bound[32], q[32];
    mb__fmt_ms(mb__jnum(s, "bound_ns"), bound, sizeof bound);
    snprintf(q, sizeof q, "%g", mb__jnum(s, "percentile"));
    double nrep = mb__jnum(s, "repeat");
    int rep = nrep >= 0 && nrep < 1e6 ? (int)nrep : 0;
    const char *basis = mb__jstr(s, "basis");
    bool model = !basis || !strcmp(basis, "model");
    const char *question = mb__jstr(s, "question");
    char on[200];
    snprintf(on, sizeof on, "%s%s (%s)", question ? ", " : "",
             question ? question : "",
             model ? "latency without the harness's dispatch delays"
                   : "latency as measured");
    if (!json_is_true(json_object_get(s, "met"))) {
        no_rate(s, b, md, q, bound, on, rep);
        return;
    }
    mb__buf_printf(b, "%sHighest rate with p%s <= %s ms%s: %.0f requests/s%s",
                   md ? "**" : "", q, bound, on, mb__jnum(s, "qps"),
                   md ? "**" : "");
    const json_t *ci = json_object_get(s, "qps_ci95");
    if (json_is_array(ci))
        mb__buf_printf(b, ", 95%% interval %.0f-%.0f",
                       json_number_value(json_array_get(ci, 0)),
                       json_number_value(json_array_get(ci, 1)));
    mb__buf_printf(b,
                   " (%s of %d search%s, range %.0f-%.0f; achieved %.0f/s; "
                   "early-stopping test at %.0f%% confidence, grid step "
                   "%.0f%%).\n",
                   rep > 1 ? "geometric mean" : "answer", rep,
                   rep == 1 ? "" : "es", mb__jnum(s, "min_qps"),
                   mb__jnum(s, "max_qps"), mb__jnum(s, "achieved_qps"),
                   mb__jnum(s, "confidence") * 100,
                   (mb__jnum(s, "grid.ratio") - 1) * 100);
    if (json_object_get(s, "probes")) {
        mb__buf_puts(b, md ? "Pass rate by rate: " : "pass rate by rate: ");
        probes_line(s, b);
        mb__buf_puts(b, md ? ".\n\n" : "\n");
    }
}

/* Both answers (the one --slo-basis named first), or the one of a
 * document from before there were two, then the bias. */
static void answer(const json_t *doc, mb__buf *b, int md)
{
    const json_t *s = mb__jget(doc, "load.search");
    if (!s)
        return;
    answer_one(s, b, md);
    const json_t *both = mb__jget(doc, "load.slo_answers"), *o;
    const char *k;
    json_object_foreach((json_t *)both, k, o)
    {
        const char *basis = mb__jstr(s, "basis");
        if (!basis || strcmp(k, basis))
            answer_one(o, b, md);
    }
    if (mb__jstr(s, "bias"))
        mb__buf_printf(b, "bias: %s.\n%s", mb__jstr(s, "bias"), md ? "\n" : "");
}

/* The priority the serving threads ran at (per question in a search),
 * the spin policy and the SLO basis: what the figures that follow
 * describe. */
static void conditions(const json_t *doc, mb__buf *b, const char *sep)
{
    const json_t *steps = mb__jget(doc, "load.steps"), *st;
    size_t i;
    const char *seen[2] = {NULL, NULL}, *margin = NULL;
    int n = 0;
    mb__buf_puts(b, "serving priority: ");
    json_array_foreach(steps, i, st)
    {
        const char *pr = mb__jstr(st, "dispatch.issue.priority");
        const char *role = mb__jstr(st, "role"),
                   *sb = mb__jstr(st, "search_basis");
        if (!pr || (role && !strcmp(role, "floor")))
            continue;
        int slot = sb && !strcmp(sb, "measured");
        if (seen[slot])
            continue;
        seen[slot] = pr;
        margin = margin ? margin : mb__jstr(st, "dispatch.issue.margin");
        if (sb)
            mb__buf_printf(
                b, "%s%s searches %s", n++ ? "; " : "",
                slot ? "normal-priority (measured)" : "model-capacity", pr);
        else
            mb__buf_printf(b, "%s%s", n++ ? "; " : "", pr);
    }
    if (!n)
        mb__buf_puts(b, "the serving threads' own (closed loop: saturated "
                        "steps never wait for an arrival)");
    const json_t *r = mb__jget(doc, "load.rules");
    mb__buf_printf(b, "%sspin: %s", sep,
                   margin                ? margin
                   : mb__jstr(r, "spin") ? mb__jstr(r, "spin")
                                         : "?");
    const json_t *s = mb__jget(doc, "load.search");
    if (s) {
        const char *basis = mb__jstr(s, "basis");
        mb__buf_printf(
            b,
            "%sSLO basis: the answer first below is judged on %s; both "
            "answers are given",
            sep,
            basis && !strcmp(basis, "measured")
                ? "the latency as measured"
                : "the latency replayed without the harness's dispatch "
                  "delays (model capacity)");
    }
}

/* "harness floor (null backend, ...): p50 ..., p99 ..." */
static void floor_line(const json_t *doc, mb__buf *b)
{
    const json_t *f = mb__jget(doc, "load.harness_floor");
    if (!f)
        return;
    char p50[32], p99[32];
    mb__fmt_duration(mb__jnum(f, "p50_ns"), p50, sizeof p50);
    mb__fmt_duration(mb__jnum(f, "p99_ns"), p99, sizeof p99);
    mb__buf_printf(b,
                   "harness floor (null backend, nothing to serve, %.0f/s on "
                   "%.0f thread%s): latency p50 %s, p99 %s\n",
                   mb__jnum(f, "qps"), mb__jnum(f, "threads"),
                   mb__jnum(f, "threads") == 1 ? "" : "s", p50, p99);
}

/* A count of the document as text: "?" when absent or not finite. */
static const char *count_text(double v, char *buf, size_t len)
{
    if (isfinite(v))
        snprintf(buf, len, "%.0f", v);
    else
        snprintf(buf, len, "?");
    return buf;
}

static void headline(const json_t *doc, mb__buf *b)
{
    const json_t *l = json_object_get(doc, "load");
    char th[32], se[32];
    mb__buf_printf(
        b, "%s scenario, %s serving thread%s, %s session%s%s, backend %s",
        mb__jstr(l, "scenario") ? mb__jstr(l, "scenario") : "?",
        count_text(mb__jnum(l, "threads"), th, sizeof th),
        mb__jnum(l, "threads") == 1 ? "" : "s",
        count_text(mb__jnum(l, "sessions"), se, sizeof se),
        mb__jnum(l, "sessions") == 1 ? "" : "s",
        json_is_true(json_object_get(l, "shared_session"))
            ? " (shared by the threads)"
            : "",
        mb__jstr(l, "run.runtime.backend") ? mb__jstr(l, "run.runtime.backend")
                                           : "?");
    if (mb__jstr(l, "intra_op_threads"))
        mb__buf_printf(b, ", %s intra-op threads",
                       mb__jstr(l, "intra_op_threads"));
    if (json_array_size(json_object_get(l, "cpus")))
        mb__buf_printf(b, ", %zu pinned CPUs",
                       json_array_size(json_object_get(l, "cpus")));
}

static void warnings(const json_t *doc, mb__buf *b, const char *prefix)
{
    size_t i;
    const json_t *w;
    json_array_foreach(json_object_get(doc, "warnings"), i, w)
        mb__buf_printf(b, "%swarning: %s\n", prefix,
                       json_string_value(w) ? json_string_value(w) : "");
}

void mb__report_load_console(const json_t *doc, int width, mb__buf *out)
{
    (void)width;
    const json_t *steps = mb__jget(doc, "load.steps");
    mb__buf_printf(out, "%s: ", model_name(doc));
    headline(doc, out);
    mb__buf_putc(out, '\n');
    conditions(doc, out, "\n");
    mb__buf_puts(out,
                 "\nlatency from the scheduled arrival (queueing counted)\n\n");
    size_t n = json_array_size(steps), w[NCOLS];
    char buf[64];
    for (size_t c = 0; c < NCOLS; c++) {
        w[c] = strlen(cols[c].head);
        for (size_t i = 0; i < n; i++) {
            cell(json_array_get(steps, i), i, c, 0, buf, sizeof buf);
            if (strlen(buf) > w[c])
                w[c] = strlen(buf);
        }
    }
    for (size_t c = 0; c < NCOLS; c++)
        mb__buf_printf(out, c == 1 ? "%-*s  " : "%*s  ", (int)w[c],
                       cols[c].head);
    mb__buf_putc(out, '\n');
    for (size_t i = 0; i < n; i++) {
        for (size_t c = 0; c < NCOLS; c++) {
            cell(json_array_get(steps, i), i, c, 0, buf, sizeof buf);
            mb__buf_printf(out, c == 1 ? "%-*s  " : "%*s  ", (int)w[c], buf);
        }
        mb__buf_putc(out, '\n');
    }
    mb__buf_putc(out, '\n');
    floor_line(doc, out);
    answer(doc, out, 0);
    warnings(doc, out, "");
}

void mb__report_load_md(const json_t *doc, mb__buf *out)
{
    const json_t *steps = mb__jget(doc, "load.steps");
    mb__buf_puts(out, "# mbench load: ");
    mb__md_escape(out, model_name(doc));
    mb__buf_puts(out, "\n\n");
    mb__buf h = MB_BUF_INIT;
    headline(doc, &h);
    mb__buf_puts(&h, ".\n\n");
    conditions(doc, &h, ".\n\n");
    mb__md_escape(out, h.data);
    mb__buf_free(&h);
    mb__buf_puts(
        out,
        ".\n\nLatency runs from each request's scheduled arrival, so queueing "
        "is counted; bounds are one-sided 99% early-stopping bounds.\n\n");
    answer(doc, out, 1);
    floor_line(doc, out);
    mb__buf_puts(out, "\n|");
    for (size_t c = 0; c < NCOLS; c++)
        mb__buf_printf(out, " %s |", cols[c].head);
    mb__buf_puts(out, "\n|");
    for (size_t c = 0; c < NCOLS; c++)
        mb__buf_puts(out, c == 1 ? "---|" : "---:|");
    mb__buf_putc(out, '\n');
    char buf[64];
    for (size_t i = 0; i < json_array_size(steps); i++) {
        mb__buf_putc(out, '|');
        for (size_t c = 0; c < NCOLS; c++) {
            cell(json_array_get(steps, i), i, c, 0, buf, sizeof buf);
            mb__buf_putc(out, ' ');
            mb__md_escape(out, buf);
            mb__buf_puts(out, " |");
        }
        mb__buf_putc(out, '\n');
    }
    mb__buf_putc(out, '\n');
    warnings(doc, out, "- ");
}

void mb__report_load_csv(const json_t *doc, int with_header, mb__buf *out)
{
    if (with_header) {
        mb__buf_puts(out, "created_utc,model,scenario,sessions");
        for (size_t c = 0; c < NCOLS; c++)
            mb__buf_printf(out, ",%s", cols[c].csv);
        mb__buf_putc(out, '\n');
    }
    const json_t *steps = mb__jget(doc, "load.steps");
    char buf[64];
    for (size_t i = 0; i < json_array_size(steps); i++) {
        mb__csv_field(out, mb__jstr(doc, "created_utc")
                               ? mb__jstr(doc, "created_utc")
                               : "");
        mb__buf_putc(out, ',');
        mb__csv_field(out, model_name(doc));
        mb__buf_putc(out, ',');
        mb__csv_field(out, mb__jstr(doc, "load.scenario")
                               ? mb__jstr(doc, "load.scenario")
                               : "");
        mb__buf_printf(out, ",%.0f", mb__jnum(doc, "load.sessions"));
        for (size_t c = 0; c < NCOLS; c++) {
            cell(json_array_get(steps, i), i, c, 1, buf, sizeof buf);
            mb__buf_putc(out, ',');
            mb__csv_field(out, buf);
        }
        mb__buf_putc(out, '\n');
    }
}

/* ---- HTML -----------------------------------------------------------------
 */

static int by_x(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

/* The hockey stick: p50 and p99 latency (log scale) against achieved
 * throughput, one point per measured step, with the SLO bound.  *drew:
 * whether there was a point to draw; MB_ENOMEM when memory runs out. */
/* The steps of doc to draw, sorted by rate: offered (or achieved) rate,
 * p50 and p99 in ms, step index; *n of them (the caller frees *pt), and
 * the extent of the axes, the SLO bound included. */
typedef struct hockey_pts {
    double (*pt)[4];
    size_t n;
    double xmax, ylo, yhi;
} hockey_pts;

static mb_status hockey_points(const json_t *doc, double bound, hockey_pts *h)
{
    const json_t *steps = mb__jget(doc, "load.steps"), *st;
    size_t i;
    double(*pt)[4] = calloc(json_array_size(steps) + 1, sizeof *pt);
    *h = (hockey_pts){pt, 0, 0, INFINITY, 0};
    if (!pt)
        return MB_ENOMEM;
    json_array_foreach(steps, i, st)
    {
        const char *role = mb__jstr(st, "role");
        /* The offered rate for open-loop steps (an overloaded step
         * achieves less than it was offered while its queue drains); the
         * achieved rate of a closed loop. */
        double x = mb__jnum(st, "target_qps"),
               p50 = mb__jnum(st, "latency.median"),
               p99 = mb__jnum(st, "latency.p99");
        if (!isfinite(x))
            x = mb__jnum(st, "achieved_qps");
        if ((role && !strcmp(role, "calibrate")) || !isfinite(x) || !(p50 > 0))
            continue;
        double *q = pt[h->n++];
        q[0] = x;
        q[1] = p50 / 1e6;
        q[2] = p99 > 0 ? p99 / 1e6 : NAN;
        q[3] = (double)i;
        h->xmax = fmax(h->xmax, x);
        h->ylo = fmin(h->ylo, q[1]);
        h->yhi = fmax(h->yhi, isfinite(q[2]) ? q[2] : q[1]);
    }
    if (h->n && bound > 0) {
        h->ylo = fmin(h->ylo, bound / 1e6);
        h->yhi = fmax(h->yhi, bound / 1e6);
    }
    if (h->n)
        qsort(pt, h->n, sizeof *pt, by_x);
    return MB_OK;
}

/* The line and points of column k of the steps (1: p50, 2: p99). */
static void hockey_series(mb__svg *s, const hockey_pts *h, int k)
{
    mb__buf *b = s->out;
    double(*pt)[4] = h->pt;
    size_t n = h->n;
    const char *colour = mb__svg_color(k - 1);
    mb__buf_printf(
        b, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s d=\"",
        colour, k == 2 ? " stroke-dasharray=\"6 4\"" : "");
    int first = 1;
    for (size_t j = 0; j < n; j++) {
        if (!(pt[j][k] > 0))
            continue;
        mb__buf_printf(b, "%s%.1f %.1f ", first ? "M" : "L",
                       mb__svg_px(s, pt[j][0]), mb__svg_py(s, pt[j][k]));
        first = 0;
    }
    mb__buf_puts(b, "\"/>");
    for (size_t j = 0; j < n; j++) {
        if (!(pt[j][k] > 0))
            continue;
        char tip[160];
        snprintf(tip, sizeof tip, "step %.0f: %.0f requests/s, %s %.4g ms",
                 pt[j][3] + 1, pt[j][0], k == 1 ? "p50" : "p99", pt[j][k]);
        mb__buf_printf(
            b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\">",
            mb__svg_px(s, pt[j][0]), mb__svg_py(s, pt[j][k]), colour);
        mb__svg_title(b, tip);
        mb__buf_puts(b, "</circle>");
    }
}

/* The SLO bound and the search's answer, when the document has them. */
static void hockey_slo(mb__svg *s, const json_t *doc, double bound)
{
    mb__buf *b = s->out;
    if (bound > 0) {
        double y = mb__svg_py(s, bound / 1e6);
        mb__buf_printf(
            b,
            "<path stroke=\"%s\" stroke-width=\"1.5\" stroke-dasharray=\"2 3\" "
            "d=\"M%.1f %.1f H%.1f\"><title>SLO bound %.4g ms</title></path>",
            mb__svg_color(5), s->ml, y, s->w - s->mr, bound / 1e6);
        mb__svg_legend(s, "SLO bound", mb__svg_color(5), 2);
    }
    double ans = mb__jnum(doc, "load.search.qps");
    if (ans > 0) {
        double x = mb__svg_px(s, ans);
        mb__buf_printf(
            b,
            "<path stroke=\"%s\" stroke-width=\"1.5\" d=\"M%.1f %.1f V%.1f\">"
            "<title>highest rate meeting the SLO: %.0f "
            "requests/s</title></path>",
            mb__svg_color(2), x, s->mt, s->h - s->mb, ans);
        mb__svg_legend(s, "answer of the search", mb__svg_color(2), 1);
    }
}

static mb_status hockey(mb__buf *b, const json_t *doc, bool *drew)
{
    double bound = mb__jnum(doc, "load.search.bound_ns");
    hockey_pts h;
    *drew = false;
    if (hockey_points(doc, bound, &h))
        return MB_ENOMEM;
    if (h.n == 0) {
        free(h.pt);
        return MB_OK;
    }
    mb__svg s;
    mb__svg_begin(&s, b, "chart-load", "Latency against throughput", 900, 380);
    double lo = 0, hi = h.xmax * 1.08;
    mb__svg_nice_range(&lo, &hi);
    s.x = (mb__svg_axis){0, hi > 0 ? hi : 1, 0,
                         "offered rate (requests/s; closed loop: achieved)"};
    s.y = (mb__svg_axis){h.ylo / 1.5, h.yhi * 1.5, 1,
                         "latency from arrival (ms, log scale)"};
    mb__svg_axes(&s, 0);
    for (int k = 1; k <= 2; k++)
        hockey_series(&s, &h, k);
    mb__svg_legend(&s, "p50", mb__svg_color(0), 1);
    mb__svg_legend(&s, "p99", mb__svg_color(1), 2);
    hockey_slo(&s, doc, bound);
    mb__svg_end(
        &s,
        "Each point is one step (Poisson arrivals at the offered rate, or a "
        "closed loop at one concurrency) with its p50 and p99 latency "
        "measured from the scheduled arrival. Latency stays flat until the "
        "servers saturate, then queueing makes it climb: the hockey stick.");
    free(h.pt);
    *drew = true;
    return MB_OK;
}

mb_status mb__report_load_html(const json_t *doc, mb__buf *out, mb_err *err)
{
    mb__buf body = MB_BUF_INIT;
    bool drew = false;
    mb__buf_puts(&body, "<main>\n<header class=\"top\"><div><h1>mbench <span "
                        "class=\"kind\">load"
                        "</span> report</h1><div class=\"sub\">");
    mb__html_escape(&body, model_name(doc));
    mb__buf_puts(&body, " · ");
    mb__html_escape(&body, mb__jstr(doc, "created_utc"));
    mb__buf_puts(&body, " · ");
    mb__html_escape(&body, mb__jstr(doc, "environment.cpu_model"));
    mb__buf_puts(
        &body,
        "</div></div><div class=\"actions\"><button id=\"download-json\" "
        "type=\"button\" data-file=\"mbench-load.json\">Download JSON</button>"
        "<button id=\"print\" "
        "type=\"button\">Print</button></div></header>\n<p>");
    mb__buf t = MB_BUF_INIT;
    headline(doc, &t);
    mb__buf_puts(
        &t,
        ". Latency runs from each request's scheduled arrival, so time spent "
        "queueing is counted.");
    mb__html_escape(&body, t.data);
    mb__buf_free(&t);
    mb__buf_puts(&body, "</p>\n<p id=\"load-conditions\">");
    mb__buf cnd = MB_BUF_INIT;
    conditions(doc, &cnd, ". ");
    mb__buf_putc(&cnd, '.');
    mb__html_escape(&body, cnd.data);
    mb__buf_free(&cnd);
    mb__buf_puts(&body, "</p>\n");
    mb__buf a = MB_BUF_INIT;
    answer(doc, &a, 0);
    floor_line(doc, &a);
    if (a.len) {
        mb__buf_puts(&body, "<p class=\"verdict\" id=\"load-answer\">");
        mb__html_escape(&body, a.data);
        mb__buf_puts(&body, "</p>\n");
    }
    mb__buf_free(&a);
    if (json_array_size(json_object_get(doc, "warnings"))) {
        mb__buf_puts(&body, "<ul class=\"warnings\" id=\"warnings\">");
        size_t i;
        const json_t *w;
        json_array_foreach(json_object_get(doc, "warnings"), i, w)
        {
            mb__buf_puts(&body, "<li>");
            mb__html_escape(&body, json_string_value(w));
            mb__buf_puts(&body, "</li>");
        }
        mb__buf_puts(&body, "</ul>\n");
    }
    mb__buf_puts(&body, "<h2>Latency against throughput</h2>\n");
    if (hockey(&body, doc, &drew) != MB_OK)
        body.oom = 1;
    mb__buf_puts(&body, "<h2>Steps</h2>\n<table class=\"sortable\" "
                        "id=\"load-steps\"><thead><tr>");
    for (size_t c = 0; c < NCOLS; c++) {
        mb__buf_puts(&body, "<th>");
        mb__html_escape(&body, cols[c].head);
        mb__buf_puts(&body, "</th>");
    }
    mb__buf_puts(&body, "</tr></thead><tbody>\n");
    const json_t *steps = mb__jget(doc, "load.steps");
    char txt[64], raw[64];
    for (size_t i = 0; i < json_array_size(steps); i++) {
        mb__buf_puts(&body, "<tr>");
        for (size_t c = 0; c < NCOLS; c++) {
            cell(json_array_get(steps, i), i, c, 0, txt, sizeof txt);
            cell(json_array_get(steps, i), i, c, 1, raw, sizeof raw);
            mb__buf_puts(&body, "<td data-v=\"");
            mb__html_escape(&body, cols[c].kind == C_TEXT ? "" : raw);
            mb__buf_puts(&body, "\">");
            mb__html_escape(&body, txt);
            mb__buf_puts(&body, "</td>");
        }
        mb__buf_puts(&body, "</tr>\n");
    }
    mb__buf_printf(&body,
                   "</tbody></table>\n<footer>Generated by mbench %s (schema ",
                   mb_version());
    mb__html_escape(&body, mb__jstr(doc, "schema"));
    mb__buf_puts(
        &body,
        "). The full document is embedded in this page: <b>Download JSON</b> "
        "saves it. Hover a point for its value.</footer>\n</main>\n");

    mb__html_page_begin(out, true);
    mb__buf_puts(out, "load: ");
    mb__html_escape(out, model_name(doc));
    mb__html_page_body(out, true, drew ? "chart-load" : "", &body);
    mb__html_page_data(out);
    mb__json_script_embed(out, doc);
    mb__html_page_end(out);
    int bad = body.oom || out->oom;
    mb__buf_free(&body);
    if (bad)
        return mb__fail(err, MB_ENOMEM,
                        "out of memory rendering the HTML report");
    return MB_OK;
}
