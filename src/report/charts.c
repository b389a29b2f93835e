/* charts.c - latency distribution, ECDF, batch sweeps, speedups, memory,
 * model size, accuracy and per-output agreement as inline SVG. */
#include "report/charts.h"

#include "core/alloc.h"
#include "core/stats.h"
#include "report/svg.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROW_H 42.0

const char *mb__run_color(const mb__rview *v, size_t i)
{
    return mb__svg_color(v->n_series > 1 ? (size_t)v->runs[i].series : i);
}

char *mb__run_label(const mb__rview *v, size_t i, char *out, size_t len)
{
    const mb__rrun *r = &v->runs[i];
    if (r->batch >= 0 && (v->multi_batch || v->n_series == 1))
        snprintf(out, len, "%s · batch %lld", r->variant, (long long)r->batch);
    else
        snprintf(out, len, "%s", r->variant);
    return out;
}

/* Copies at most max code points of s into out (UTF-8 safe), adding "…"
 * when cut. */
static char *clip(const char *s, size_t max, char *out, size_t len)
{
    size_t cp = 0, i = 0;
    for (; s[i] && i + 4 < len; i++) {
        if (((unsigned char)s[i] & 0xc0) != 0x80 && cp++ == max)
            break;
        out[i] = s[i];
    }
    out[i] = '\0';
    if (s[i] && i + 4 < len)
        strcpy(out + i, "…");
    return out;
}

/* Marks b as incomplete (memory ran out, as when an append fails) and
 * returns false: the chart was not drawn. */
static bool oom(mb__buf *b)
{
    b->oom = 1;
    return false;
}

static int run_ok(const mb__rrun *r)
{
    return strcmp(r->status, "ok") == 0 && isfinite(r->p50);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorted samples of run r in ms; NULL when it has none. */
static double *sorted_ms(const mb__rrun *r, size_t *n)
{
    *n = 0;
    if (!r->samples)
        return NULL;
    size_t m = json_array_size(r->samples);
    double *x = mb__calloc(m, sizeof *x);
    if (!x)
        return NULL;
    for (size_t i = 0; i < m; i++) {
        const json_t *e = json_array_get(r->samples, i);
        if (json_is_number(e))
            x[(*n)++] = json_number_value(e) / 1e6;
    }
    qsort(x, *n, sizeof *x, cmp_double);
    return x;
}

/* The latency range shared by the distribution and ECDF charts, in ms:
 * from the smallest minimum to the largest p99 plus once more its distance
 * from the median (so a far tail does not squash the body).  Returns the
 * number of runs that can be drawn. */
static size_t latency_range(const mb__rview *v, mb__svg_axis *ax)
{
    double lo = INFINITY, hi = 0, maxv = 0;
    size_t n = 0;
    for (size_t i = 0; i < v->n_runs; i++) {
        const mb__rrun *r = &v->runs[i];
        if (!run_ok(r))
            continue;
        n++;
        double mn = isfinite(r->min) ? r->min : r->p50;
        double p99 = isfinite(r->p99)   ? r->p99
                     : isfinite(r->p95) ? r->p95
                                        : r->p50;
        double mx = isfinite(r->max) ? r->max : p99;
        lo = fmin(lo, mn);
        hi = fmax(hi, p99 + (p99 - r->p50));
        maxv = fmax(maxv, mx);
    }
    if (!n)
        return 0;
    hi = fmin(hi, maxv);
    lo /= 1e6;
    hi /= 1e6;
    ax->log = lo > 0 && hi / lo > 8;
    if (ax->log) {
        ax->lo = lo * 0.9;
        ax->hi = hi * 1.1;
    } else {
        double pad = (hi - lo) * 0.04 + 1e-9;
        ax->lo = fmax(0, lo - pad);
        ax->hi = hi + pad;
    }
    ax->label = ax->log ? "latency per inference (ms, log scale)"
                        : "latency per inference (ms)";
    return n;
}

static double clampx(const mb__svg *s, double x)
{
    return fmin(fmax(x, s->x.lo), s->x.hi);
}

static void marker(mb__svg *s, double x_ms, double y0, double y1,
                   const char *cls, const char *tip)
{
    if (!(x_ms >= s->x.lo && x_ms <= s->x.hi))
        return;
    double x = mb__svg_px(s, x_ms);
    mb__buf_printf(s->out,
                   "<g class=\"mark\"><line class=\"%s\" x1=\"%.1f\" "
                   "x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
                   "<rect class=\"hit\" x=\"%.1f\" y=\"%.1f\" width=\"6\" "
                   "height=\"%.1f\"/>",
                   cls, x, x, y0, y1, x - 3, y0, y1 - y0);
    mb__svg_title(s->out, tip);
    mb__buf_puts(s->out, "</g>");
}

static void row_label(mb__svg *s, const mb__rview *v, size_t i, double y)
{
    char full[512], cut[128];
    mb__run_label(v, i, full, sizeof full);
    mb__buf_puts(s->out, "<g>");
    mb__svg_text(s, s->ml - 8, y + 4, "end", "rowlabel",
                 clip(full, 24, cut, sizeof cut));
    mb__svg_title(s->out, full);
    mb__buf_puts(s->out, "</g>");
}

/* One run's row of the distribution chart: its centre, half height,
 * colour and label. */
typedef struct dist_row {
    double yc, half;
    const char *col, *lab;
} dist_row;

enum { NB = 60 }; /* histogram bins of a violin */

/* The samples x (ms, n) binned on the axis ax and lightly smoothed into
 * sm[NB], so a few hundred samples still read as a shape; *beyond counts
 * those past the axis.  Returns the largest smoothed count. */
static double violin_bins(const mb__svg_axis *ax, const double *x, size_t n,
                          double sm[NB], size_t *beyond)
{
    double cnt[NB] = {0}, maxc = 0;
    double l0 = ax->log ? log10(ax->lo) : ax->lo,
           l1 = ax->log ? log10(ax->hi) : ax->hi;
    *beyond = 0;
    for (size_t k = 0; k < n; k++) {
        double u = ax->log ? log10(fmax(x[k], 1e-12)) : x[k];
        if (x[k] > ax->hi) {
            (*beyond)++;
            continue;
        }
        /* clamped as a double: a sample far below the axis (a
         * corrupt document) must not overflow the int */
        double fb = (u - l0) / (l1 - l0) * NB;
        int bin = !(fb > 0) ? 0 : fb >= NB ? NB - 1 : (int)fb;
        cnt[bin]++;
    }
    for (int k = 0; k < NB; k++) {
        sm[k] = (2 * cnt[k] + (k ? cnt[k - 1] : 0) +
                 (k + 1 < NB ? cnt[k + 1] : 0)) /
                4;
        maxc = fmax(maxc, sm[k]);
    }
    return maxc;
}

/* The mirrored histogram of run r's samples x (ms, n), and a note for
 * the samples beyond the axis. */
static void violin(mb__svg *s, const mb__svg_axis *ax, const mb__rrun *r,
                   const double *x, size_t n, const dist_row *d)
{
    mb__buf *b = s->out;
    char tip[640], t1[32], t2[32], t3[32];
    double sm[NB];
    size_t beyond;
    double maxc = violin_bins(ax, x, n, sm, &beyond);
    double l0 = ax->log ? log10(ax->lo) : ax->lo,
           l1 = ax->log ? log10(ax->hi) : ax->hi;
    int first = NB, last = -1;
    for (int k = 0; k < NB; k++)
        if (sm[k] > 0) {
            first = k < first ? k : first;
            last = k;
        }
    if (last >= first && maxc > 0) {
        mb__buf_printf(b,
                       "<g class=\"violin\"><path fill=\"%s\" stroke=\"%s\" "
                       "d=\"",
                       d->col, d->col);
        for (int k = first; k <= last; k++) {
            double u = l0 + (l1 - l0) * (k + 0.5) / NB;
            double px = mb__svg_px(s, ax->log ? pow(10, u) : u);
            mb__buf_printf(b, "%s%.1f %.1f", k == first ? "M" : " L", px,
                           d->yc - d->half * sm[k] / maxc);
        }
        for (int k = last; k >= first; k--) {
            double u = l0 + (l1 - l0) * (k + 0.5) / NB;
            double px = mb__svg_px(s, ax->log ? pow(10, u) : u);
            mb__buf_printf(b, " L%.1f %.1f", px,
                           d->yc + d->half * sm[k] / maxc);
        }
        snprintf(tip, sizeof tip,
                 "%s: %zu samples, median %s ms, p95 %s ms, p99 %s ms", d->lab,
                 n, mb__fmt_ms(r->p50, t1, sizeof t1),
                 mb__fmt_ms(r->p95, t2, sizeof t2),
                 mb__fmt_ms(r->p99, t3, sizeof t3));
        mb__buf_puts(b, "Z\">");
        mb__svg_title(b, tip);
        mb__buf_puts(b, "</path></g>");
    }
    if (beyond) {
        snprintf(t1, sizeof t1, "+%zu ›", beyond);
        mb__buf_puts(b, "<g>");
        mb__svg_text(s, s->w - s->mr - 2, d->yc - d->half + 9, "end", "note",
                     t1);
        snprintf(tip, sizeof tip, "%s: %zu samples beyond the axis (max %s ms)",
                 d->lab, beyond, mb__fmt_ms(r->max, t2, sizeof t2));
        mb__svg_title(b, tip);
        mb__buf_puts(b, "</g>");
    }
}

/* A run without samples: a box from the median to p95, whisker to p99. */
static void pct_box(mb__svg *s, const mb__rrun *r, const dist_row *d)
{
    char tip[640], t1[32], t2[32], t3[32];
    double p95 = isfinite(r->p95) ? r->p95 : r->p50;
    double p99 = isfinite(r->p99) ? r->p99 : p95;
    double mn = isfinite(r->min) ? r->min : r->p50;
    double xa = mb__svg_px(s, clampx(s, mn / 1e6)),
           xb = mb__svg_px(s, clampx(s, p99 / 1e6));
    double x50 = mb__svg_px(s, clampx(s, r->p50 / 1e6)),
           x95 = mb__svg_px(s, clampx(s, p95 / 1e6));
    snprintf(tip, sizeof tip,
             "%s (from percentiles): min %s ms, median %s ms, p99 %s ms",
             d->lab, mb__fmt_ms(mn, t1, sizeof t1),
             mb__fmt_ms(r->p50, t2, sizeof t2), mb__fmt_ms(p99, t3, sizeof t3));
    mb__buf_printf(s->out,
                   "<g class=\"pctbox\"><line stroke=\"%s\" "
                   "x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
                   "<rect fill=\"%s\" stroke=\"%s\" x=\"%.1f\" "
                   "y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>",
                   d->col, xa, xb, d->yc, d->yc, d->col, d->col, x50,
                   d->yc - d->half * 0.6, fmax(x95 - x50, 1), d->half * 1.2);
    mb__svg_title(s->out, tip);
    mb__buf_puts(s->out, "</g>");
}

/* The CI of the median under the row, and the p50, p95, p99 marks. */
static void ci_and_marks(mb__svg *s, const mb__rrun *r, const dist_row *d)
{
    char tip[640], t1[32], t2[32];
    if (isfinite(r->ci_lo) && isfinite(r->ci_hi)) {
        double xa = mb__svg_px(s, clampx(s, r->ci_lo / 1e6)),
               xb = mb__svg_px(s, clampx(s, r->ci_hi / 1e6));
        snprintf(tip, sizeof tip, "%s: 95%% CI of the median %s – %s ms",
                 d->lab, mb__fmt_ms(r->ci_lo, t1, sizeof t1),
                 mb__fmt_ms(r->ci_hi, t2, sizeof t2));
        mb__buf_printf(s->out,
                       "<g><rect class=\"ci\" x=\"%.1f\" y=\"%.1f\" "
                       "width=\"%.1f\" height=\"4\"/>",
                       xa, d->yc + d->half - 2, fmax(xb - xa, 1.5));
        mb__svg_title(s->out, tip);
        mb__buf_puts(s->out, "</g>");
    }
    double yc = d->yc, half = d->half;
    snprintf(tip, sizeof tip, "%s: p50 (median) %s ms", d->lab,
             mb__fmt_ms(r->p50, t1, sizeof t1));
    marker(s, r->p50 / 1e6, yc - half, yc + half, "m50", tip);
    snprintf(tip, sizeof tip, "%s: p95 %s ms", d->lab,
             mb__fmt_ms(r->p95, t1, sizeof t1));
    marker(s, r->p95 / 1e6, yc - half * 0.8, yc + half * 0.8, "m95", tip);
    snprintf(tip, sizeof tip, "%s: p99 %s ms", d->lab,
             mb__fmt_ms(r->p99, t1, sizeof t1));
    marker(s, r->p99 / 1e6, yc - half * 0.8, yc + half * 0.8, "m99", tip);
}

bool mb__chart_distribution(mb__buf *b, const mb__rview *v)
{
    mb__svg s;
    mb__svg_axis ax = {0};
    size_t rows = latency_range(v, &ax);
    if (!rows)
        return false;
    mb__svg_begin(&s, b, "chart-dist", "Latency distribution per run", 900,
                  12 + 44 + ROW_H * (double)rows);
    s.ml = 190;
    s.x = ax;
    s.y = (mb__svg_axis){0, (double)rows, 0, NULL};
    mb__svg_axes(&s, 1);
    size_t row = 0;
    int any_pct_only = 0;
    char lab[512];
    for (size_t i = 0; i < v->n_runs; i++) {
        const mb__rrun *r = &v->runs[i];
        if (!run_ok(r))
            continue;
        dist_row d = {s.mt + ROW_H * ((double)row + 0.5), ROW_H / 2 - 3,
                      mb__run_color(v, i), lab};
        mb__run_label(v, i, lab, sizeof lab);
        row_label(&s, v, i, d.yc);
        size_t n;
        double *x = sorted_ms(r, &n);
        if (r->samples && !x)
            return oom(b);
        if (x && n) {
            violin(&s, &ax, r, x, n, &d);
        } else {
            any_pct_only = 1;
            pct_box(&s, r, &d);
        }
        free(x);
        ci_and_marks(&s, r, &d);
        row++;
    }
    static const mb__svg_key keys[] = {{"p50 (median)", "currentColor", 1},
                                       {"p95", "currentColor", 2},
                                       {"p99", "#D55E00", 2},
                                       {"95% CI of the median", "#999999", 0}};
    mb__svg_legends(&s, keys, sizeof keys / sizeof *keys);
    mb__svg_end(
        &s,
        any_pct_only
            ? "Shape: histogram of the samples (mirrored). Runs without "
              "samples_ns are drawn from their percentiles (box: median to "
              "p95, line: min to p99). Axis cut at p99 + (p99 − median)."
            : "Shape: histogram of the raw samples (mirrored). Axis cut at "
              "p99 + (p99 − median); samples beyond are counted at the right.");
    return true;
}

bool mb__chart_ecdf(mb__buf *b, const mb__rview *v)
{
    mb__svg s;
    mb__svg_axis ax = {0};
    if (!latency_range(v, &ax))
        return false;
    char(*labels)[160] = mb__calloc(v->n_runs + 1, sizeof *labels);
    if (!labels)
        return oom(b);
    mb__svg_begin(&s, b, "chart-ecdf",
                  "Cumulative distribution of latency (ECDF)", 900, 330);
    s.x = ax;
    s.y = (mb__svg_axis){0, 100, 0, "iterations at or below (%)"};
    mb__svg_axes(&s, 0);
    int any_pct_only = 0;
    char tip[640], lab[512], t1[32];
    for (size_t i = 0; i < v->n_runs; i++) {
        const mb__rrun *r = &v->runs[i];
        if (!run_ok(r))
            continue;
        const char *col = mb__run_color(v, i);
        mb__run_label(v, i, lab, sizeof lab);
        size_t n;
        double *x = sorted_ms(r, &n);
        if (r->samples && !x) {
            free(labels);
            return oom(b);
        }
        mb__buf_printf(
            b, "<g class=\"series\"><path class=\"line%s\" stroke=\"%s\" d=\"",
            x && n ? "" : " dash", col);
        if (x && n) {
            size_t m = n < 400 ? n : 400;
            double prev_y = 0;
            for (size_t k = 0; k < m; k++) {
                size_t idx = m == 1 ? 0 : k * (n - 1) / (m - 1);
                double px = mb__svg_px(&s, clampx(&s, x[idx]));
                double py =
                    mb__svg_py(&s, 100.0 * (double)(idx + 1) / (double)n);
                if (k == 0)
                    mb__buf_printf(b, "M%.1f %.1f", px, mb__svg_py(&s, 0));
                else
                    mb__buf_printf(b, " H%.1f", px); /* step: along, then up */
                mb__buf_printf(b, " V%.1f", py);
                prev_y = py;
                if (x[idx] > s.x.hi)
                    break;
            }
            (void)prev_y;
        } else {
            any_pct_only = 1;
            const double q[] = {0, 50, 90, 95, 99, 100};
            const double val[] = {r->min, r->p50, r->p90,
                                  r->p95, r->p99, r->max};
            int started = 0;
            for (size_t k = 0; k < 6; k++) {
                if (!isfinite(val[k]))
                    continue;
                mb__buf_printf(b, "%s%.1f %.1f", started++ ? " L" : "M",
                               mb__svg_px(&s, clampx(&s, val[k] / 1e6)),
                               mb__svg_py(&s, q[k]));
            }
        }
        free(x);
        snprintf(tip, sizeof tip, "%s%s", lab,
                 r->samples ? "" : " (from percentiles)");
        mb__buf_puts(b, "\">");
        mb__svg_title(b, tip);
        mb__buf_puts(b, "</path>");
        const double qs[] = {50, 95, 99};
        const double vs[] = {r->p50, r->p95, r->p99};
        for (size_t k = 0; k < 3; k++) {
            if (!isfinite(vs[k]) || vs[k] / 1e6 > s.x.hi)
                continue;
            snprintf(tip, sizeof tip, "%s: p%g = %s ms", lab, qs[k],
                     mb__fmt_ms(vs[k], t1, sizeof t1));
            mb__buf_printf(b,
                           "<circle class=\"pt\" fill=\"%s\" cx=\"%.1f\" "
                           "cy=\"%.1f\" r=\"4\">",
                           col, mb__svg_px(&s, vs[k] / 1e6),
                           mb__svg_py(&s, qs[k]));
            mb__svg_title(b, tip);
            mb__buf_puts(b, "</circle>");
        }
        mb__buf_puts(b, "</g>");
        snprintf(labels[i], sizeof labels[i], "%s", lab);
        mb__svg_legend(&s, labels[i], col, r->samples ? 1 : 2);
    }
    mb__svg_end(
        &s, any_pct_only
                ? "Dots mark p50, p95 and p99. Dashed lines are drawn from the "
                  "percentiles only: those runs have no samples_ns (save them "
                  "with --save-samples)."
                : "Step curve of the raw samples; dots mark p50, p95 and p99.");
    free(labels);
    return true;
}

/* Distinct batch sizes of ok runs, sorted; returns the count (<= max). */
static size_t batch_values(const mb__rview *v, double *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < v->n_runs; i++) {
        const mb__rrun *r = &v->runs[i];
        if (!run_ok(r) || r->batch < 1)
            continue;
        size_t k = 0;
        while (k < n && out[k] != (double)r->batch)
            k++;
        if (k == n && n < max)
            out[n++] = (double)r->batch;
    }
    qsort(out, n, sizeof *out, cmp_double);
    return n;
}

/* One line per variant across batch sizes; which: 0 samples/s, 1 p50,
 * 2 p99. */
static double batch_metric(const mb__rrun *r, int which)
{
    return which == 0 ? r->sps : (which == 1 ? r->p50 : r->p99) / 1e6;
}

static void batch_series(mb__svg *s, const mb__rview *v, int which, int dashed)
{
    char tip[640], t1[32];
    for (size_t se = 0; se < v->n_series; se++) {
        const char *col = mb__svg_color(se);
        /* runs of this series, ordered by batch */
        double bx[64], by[64];
        size_t n = 0;
        for (size_t i = 0; i < v->n_runs && n < 64; i++) {
            const mb__rrun *r = &v->runs[i];
            if (r->series != (int)se || !run_ok(r) || r->batch < 1 ||
                !isfinite(batch_metric(r, which)))
                continue;
            size_t k = n++;
            while (k > 0 && bx[k - 1] > (double)r->batch) {
                bx[k] = bx[k - 1];
                by[k] = by[k - 1];
                k--;
            }
            bx[k] = (double)r->batch;
            by[k] = batch_metric(r, which);
        }
        if (!n)
            continue;
        mb__buf_printf(
            s->out,
            "<g class=\"series\"><path class=\"line%s\" stroke=\"%s\" d=\"",
            dashed ? " dash" : "", col);
        for (size_t k = 0; k < n; k++)
            mb__buf_printf(s->out, "%s%.1f %.1f", k ? " L" : "M",
                           mb__svg_px(s, bx[k]), mb__svg_py(s, by[k]));
        mb__buf_puts(s->out, "\"/>");
        for (size_t k = 0; k < n; k++) {
            if (which == 0)
                snprintf(tip, sizeof tip, "%s, batch %.0f: %s samples/s",
                         v->series[se], bx[k],
                         mb__fmt_num(by[k], 4, t1, sizeof t1));
            else
                snprintf(tip, sizeof tip, "%s, batch %.0f: %s %s ms",
                         v->series[se], bx[k], which == 1 ? "p50" : "p99",
                         mb__fmt_num(by[k], 4, t1, sizeof t1));
            mb__buf_printf(s->out,
                           "<circle class=\"pt%s\" style=\"fill:%s;stroke:%s\" "
                           "cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\">",
                           dashed ? " hollow" : "", dashed ? "var(--bg)" : col,
                           dashed ? col : "var(--bg)", mb__svg_px(s, bx[k]),
                           mb__svg_py(s, by[k]));
            mb__svg_title(s->out, tip);
            mb__buf_puts(s->out, "</circle>");
        }
        mb__buf_puts(s->out, "</g>");
    }
}

static bool batch_chart(mb__buf *b, const mb__rview *v, int latency)
{
    double bs[64];
    size_t nb = batch_values(v, bs, 64);
    if (!v->multi_batch || nb < 2)
        return false;
    double hi = 0;
    for (size_t i = 0; i < v->n_runs; i++) {
        if (!run_ok(&v->runs[i]))
            continue;
        double m = batch_metric(&v->runs[i], latency ? 2 : 0);
        if (!isfinite(m) && latency)
            m = batch_metric(&v->runs[i], 1);
        if (isfinite(m))
            hi = fmax(hi, m);
    }
    if (!(hi > 0))
        return false;
    mb__svg s;
    mb__svg_begin(&s, b, latency ? "chart-batch-lat" : "chart-batch-thr",
                  latency ? "Latency against batch size"
                          : "Throughput against batch size",
                  440, 300);
    s.x = (mb__svg_axis){bs[0] / 1.25, bs[nb - 1] * 1.25, 1,
                         "batch size (log scale)"};
    double lo = 0;
    hi *= 1.08;
    mb__svg_nice_range(&lo, &hi);
    s.y = (mb__svg_axis){0, hi, 0,
                         latency ? "latency per batch (ms)"
                                 : "throughput (samples/s)"};
    mb__svg_axes_xticks(&s, bs, nb);
    if (latency) {
        batch_series(&s, v, 1, 0);
        batch_series(&s, v, 2, 1);
    } else {
        batch_series(&s, v, 0, 0);
    }
    for (size_t se = 0; se < v->n_series && v->n_series > 1; se++)
        mb__svg_legend(&s, v->series[se], mb__svg_color(se), 0);
    static const mb__svg_key lat_keys[] = {{"p50", "currentColor", 1},
                                           {"p99", "currentColor", 2}};
    mb__svg_legends(&s, lat_keys, latency ? 2 : 0);
    mb__svg_end(
        &s,
        latency
            ? "Median (solid) and p99 (dashed) latency of one inference call."
            : "Samples per second = iterations × batch / measured wall time.");
    return true;
}

bool mb__chart_batch_throughput(mb__buf *b, const mb__rview *v)
{
    return batch_chart(b, v, 0);
}
bool mb__chart_batch_latency(mb__buf *b, const mb__rview *v)
{
    return batch_chart(b, v, 1);
}

static int get_ci(const json_t *o, double *val, double *lo, double *hi)
{
    *val = mb__jnum(o, "value");
    const json_t *ci = json_object_get(o, "ci95");
    *lo = *hi = NAN;
    if (json_array_size(ci) == 2 && json_is_number(json_array_get(ci, 0)) &&
        json_is_number(json_array_get(ci, 1))) {
        *lo = json_number_value(json_array_get(ci, 0));
        *hi = json_number_value(json_array_get(ci, 1));
    }
    return isfinite(*val);
}

static void hbar(mb__svg *s, double y, double h, double x0, double x1,
                 const char *col, const char *cls, const char *tip)
{
    double a = mb__svg_px(s, x0), c = mb__svg_px(s, x1);
    mb__buf_printf(s->out,
                   "<rect class=\"%s\" fill=\"%s\" x=\"%.1f\" y=\"%.1f\" "
                   "width=\"%.1f\" height=\"%.1f\">",
                   cls, col, fmin(a, c), y, fmax(fabs(c - a), 1), h);
    mb__svg_title(s->out, tip);
    mb__buf_puts(s->out, "</rect>");
}

static void whisker(mb__svg *s, double yc, double lo, double hi,
                    const char *tip)
{
    double a = mb__svg_px(s, lo), c = mb__svg_px(s, hi);
    mb__buf_printf(s->out,
                   "<g class=\"whisker\"><path d=\"M%.1f %.1f V%.1f M%.1f %.1f "
                   "H%.1f M%.1f %.1f V%.1f\"/>"
                   "<rect class=\"hit\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                   "height=\"10\"/>",
                   a, yc - 5, yc + 5, a, yc, c, c, yc - 5, yc + 5, a, yc - 5,
                   fmax(c - a, 2));
    mb__svg_title(s->out, tip);
    mb__buf_puts(s->out, "</g>");
}

static void cat_label(mb__svg *s, double y, const char *full)
{
    char cut[128];
    mb__buf_puts(s->out, "<g>");
    mb__svg_text(s, s->ml - 8, y + 4, "end", "rowlabel",
                 clip(full, 24, cut, sizeof cut));
    mb__svg_title(s->out, full);
    mb__buf_puts(s->out, "</g>");
}

static int series_of(const mb__rview *v, const char *name)
{
    for (size_t i = 0; i < v->n_series; i++)
        if (strcmp(v->series[i], name) == 0)
            return (int)i;
    return 0;
}

bool mb__chart_speedup(mb__buf *b, const mb__rview *v)
{
    if (!v->n_cmps)
        return false;
    double hi = 1.2;
    for (size_t i = 0; i < v->n_cmps; i++) {
        double val, lo, h;
        if (get_ci(json_object_get(v->cmps[i].v, "speedup_median"), &val, &lo,
                   &h))
            hi = fmax(hi, fmax(val, isfinite(h) ? h : val));
        if (get_ci(json_object_get(v->cmps[i].v, "speedup_p99"), &val, &lo, &h))
            hi = fmax(hi, fmax(val, isfinite(h) ? h : val));
    }
    double lo0 = 0;
    hi *= 1.05;
    mb__svg_nice_range(&lo0, &hi);
    mb__svg s;
    mb__svg_begin(&s, b, "chart-speedup", "Speedup against the baseline", 900,
                  12 + 44 + 42.0 * (double)v->n_cmps);
    s.ml = 190;
    s.x = (mb__svg_axis){0, hi, 0, "speedup vs baseline (×, higher is faster)"};
    s.y = (mb__svg_axis){0, (double)v->n_cmps, 0, NULL};
    mb__svg_axes(&s, 1);
    char tip[640], full[512];
    for (size_t i = 0; i < v->n_cmps; i++) {
        const mb__rcmp *c = &v->cmps[i];
        double y = s.mt + 42.0 * (double)i;
        const char *col = mb__svg_color((size_t)series_of(v, c->name));
        snprintf(full, sizeof full, "%s%s", c->name,
                 c->is_baseline ? " (baseline)" : "");
        cat_label(&s, y + 17, full);
        double val, lo, h;
        if (strcmp(c->status, "ok") != 0 ||
            !get_ci(json_object_get(c->v, "speedup_median"), &val, &lo, &h)) {
            const char *e = mb__jstr(c->v, "error");
            snprintf(tip, sizeof tip, "FAILED%s%s", e ? ": " : "", e ? e : "");
            char cut[160];
            mb__buf_puts(b, "<g>");
            mb__svg_text(&s, s.ml + 6, y + 21, "start", "failed",
                         clip(tip, 90, cut, sizeof cut));
            mb__svg_title(b, tip);
            mb__buf_puts(b, "</g>");
            continue;
        }
        snprintf(tip, sizeof tip,
                 "%s: median speedup %.2f× (95%% CI %.2f – %.2f)", c->name, val,
                 lo, h);
        hbar(&s, y + 6, 15, 0, val, col, "bar", tip);
        if (isfinite(lo) && isfinite(h) && h > lo)
            whisker(&s, y + 13.5, lo, h, tip);
        if (get_ci(json_object_get(c->v, "speedup_p99"), &val, &lo, &h)) {
            snprintf(tip, sizeof tip,
                     "%s: p99 speedup %.2f× (95%% CI %.2f – %.2f)", c->name,
                     val, lo, h);
            hbar(&s, y + 24, 9, 0, val, col, "bar light", tip);
            if (isfinite(lo) && isfinite(h) && h > lo)
                whisker(&s, y + 28.5, lo, h, tip);
        }
    }
    double x1 = mb__svg_px(&s, 1);
    mb__buf_printf(
        b,
        "<line class=\"ref\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
        x1, x1, s.mt, s.h - s.mb);
    static const mb__svg_key keys[] = {
        {"median speedup", "#777777", 0},
        {"p99 speedup (lighter)", "#bbbbbb", 0},
        {"1× = as fast as the baseline", "currentColor", 2}};
    mb__svg_legends(&s, keys, sizeof keys / sizeof *keys);
    mb__svg_end(&s, "Whiskers: 95% confidence intervals (Student t over "
                    "processes) of the latency ratio "
                    "baseline / variant.");
    return true;
}

/* One bar of a bytes chart. */
typedef struct bitem {
    const char *label, *color;
    double bytes;
    char text[256]; /* room for a label made up for the bar */
} bitem;

/* A bytes chart: what it is called and where its bars come from.
 * collect fills at most n_runs + n_series items and returns how many. */
typedef struct bytes_spec {
    const char *id, *title, *axis, *caption;
    size_t (*collect)(const mb__rview *v, bitem *items);
} bytes_spec;

/* Horizontal bars of bytes (in MiB) with one row per item. */
static bool bytes_chart(mb__buf *b, const mb__rview *v, const bytes_spec *sp)
{
    bitem *it = mb__calloc(v->n_runs + v->n_series + 1, sizeof *it);
    if (!it)
        return oom(b);
    size_t n = sp->collect(v, it);
    double hi = 0;
    for (size_t i = 0; i < n; i++)
        hi = fmax(hi, it[i].bytes / 1048576.0);
    if (!n || !(hi > 0)) {
        free(it);
        return false;
    }
    double lo = 0;
    hi *= 1.05;
    mb__svg_nice_range(&lo, &hi);
    mb__svg s;
    mb__svg_begin(&s, b, sp->id, sp->title, 440, 12 + 44 + 28.0 * (double)n);
    s.ml = 170;
    s.x = (mb__svg_axis){0, hi, 0, sp->axis};
    s.y = (mb__svg_axis){0, (double)n, 0, NULL};
    mb__svg_axes(&s, 1);
    char tip[640], t1[32], cut[64];
    for (size_t i = 0; i < n; i++) {
        double y = s.mt + 28.0 * (double)i;
        mb__buf_puts(b, "<g>");
        mb__svg_text(&s, s.ml - 8, y + 18, "end", "rowlabel",
                     clip(it[i].label, 21, cut, sizeof cut));
        mb__svg_title(b, it[i].label);
        mb__buf_puts(b, "</g>");
        snprintf(tip, sizeof tip, "%s: %s", it[i].label,
                 mb__fmt_bytes(it[i].bytes, t1, sizeof t1));
        hbar(&s, y + 6, 16, 0, it[i].bytes / 1048576.0, it[i].color, "bar",
             tip);
    }
    mb__svg_end(&s, sp->caption);
    free(it);
    return true;
}

/* The peak RSS of every run that finished. */
static size_t memory_items(const mb__rview *v, bitem *it)
{
    size_t n = 0;
    for (size_t i = 0; i < v->n_runs; i++) {
        if (!isfinite(v->runs[i].rss_peak) ||
            strcmp(v->runs[i].status, "ok") != 0)
            continue;
        it[n].label = mb__run_label(v, i, it[n].text, sizeof it[n].text);
        it[n].color = mb__run_color(v, i);
        it[n++].bytes = v->runs[i].rss_peak;
    }
    return n;
}

/* The model size of each variant (its first run that has one). */
static size_t model_size_items(const mb__rview *v, bitem *it)
{
    size_t n = 0;
    for (size_t se = 0; se < v->n_series; se++)
        for (size_t i = 0; i < v->n_runs; i++)
            if (v->runs[i].series == (int)se &&
                isfinite(v->runs[i].file_bytes)) {
                it[n].label = v->series[se];
                it[n].color = mb__svg_color(se);
                it[n++].bytes = v->runs[i].file_bytes;
                break;
            }
    return n;
}

bool mb__chart_memory(mb__buf *b, const mb__rview *v)
{
    static const bytes_spec spec = {
        "chart-mem", "Peak memory (RSS) per run", "peak resident memory (MiB)",
        "Peak RSS during the run (memory.rss_peak_bytes).", memory_items};
    return bytes_chart(b, v, &spec);
}

bool mb__chart_model_size(mb__buf *b, const mb__rview *v)
{
    static const bytes_spec spec = {
        "chart-size", "Model size per variant",
        "model size with external data (MiB)",
        "Size of the model on disk: the .onnx file plus its external data "
        "files (model.total_bytes).",
        model_size_items};
    return bytes_chart(b, v, &spec);
}

/* The median latency (ns) of the first ok run of this variant in the same
 * document, or NAN. */
static double variant_p50(const mb__rview *v, const mb__rcmp *c)
{
    for (size_t i = 0; i < v->n_runs; i++)
        if (v->runs[i].doc == c->doc && run_ok(&v->runs[i]) &&
            strcmp(v->runs[i].variant, c->name) == 0)
            return v->runs[i].p50;
    return NAN;
}

bool mb__chart_accuracy(mb__buf *b, const mb__rview *v)
{
    int use_acc = 0, use_agree = 0;
    for (size_t i = 0; i < v->n_cmps; i++) {
        if (isfinite(mb__jnum(v->cmps[i].v, "accuracy.top1")))
            use_acc = 1;
        if (isfinite(mb__jnum(v->cmps[i].v, "agreement.top1")))
            use_agree = 1;
    }
    if (!use_acc && !use_agree)
        return false;
    const char *key = use_acc ? "accuracy.top1" : "agreement.top1";
    double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = -INFINITY;
    size_t n = 0;
    for (size_t i = 0; i < v->n_cmps; i++) {
        double x = variant_p50(v, &v->cmps[i]) / 1e6;
        double y = mb__jnum(v->cmps[i].v, key) * 100;
        if (v->cmps[i].is_baseline && !use_acc && !isfinite(y))
            y = 100; /* the baseline agrees with itself */
        if (!isfinite(x) || !isfinite(y))
            continue;
        n++;
        xlo = fmin(xlo, x);
        xhi = fmax(xhi, x);
        ylo = fmin(ylo, y);
        yhi = fmax(yhi, y);
    }
    if (!n)
        return false;
    double padx = fmax((xhi - xlo) * 0.15, xhi * 0.05),
           pady = fmax((yhi - ylo) * 0.2, 0.05);
    xlo = fmax(0, xlo - padx);
    xhi += padx;
    ylo -= pady;
    yhi = fmin(100, yhi + pady);
    mb__svg_nice_range(&xlo, &xhi);
    mb__svg_nice_range(&ylo, &yhi);
    mb__svg s;
    mb__svg_begin(&s, b, "chart-acc", "Accuracy against latency", 440, 300);
    s.ml = 70;
    s.x = (mb__svg_axis){xlo, xhi, 0, "median latency (ms)"};
    s.y = (mb__svg_axis){
        ylo, yhi, 0, use_acc ? "top-1 accuracy (%)" : "top-1 agreement (%)"};
    mb__svg_axes(&s, 0);
    char tip[640], cut[64], t1[32];
    for (size_t i = 0; i < v->n_cmps; i++) {
        const mb__rcmp *c = &v->cmps[i];
        double x = variant_p50(v, c) / 1e6;
        double y = mb__jnum(c->v, key) * 100;
        if (c->is_baseline && !use_acc && !isfinite(y))
            y = 100;
        if (!isfinite(x) || !isfinite(y))
            continue;
        const char *col = mb__svg_color((size_t)series_of(v, c->name));
        snprintf(tip, sizeof tip, "%s: %s %.2f%%, median %s ms", c->name,
                 use_acc ? "top-1 accuracy" : "top-1 agreement", y,
                 mb__fmt_num(x, 4, t1, sizeof t1));
        double px = mb__svg_px(&s, x), py = mb__svg_py(&s, y);
        mb__buf_printf(b,
                       "<g class=\"series\"><circle class=\"pt big\" "
                       "fill=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"6\">",
                       col, px, py);
        mb__svg_title(b, tip);
        mb__buf_puts(b, "</circle>");
        mb__svg_text(&s, px + (px > s.w * 0.7 ? -9 : 9), py - 8,
                     px > s.w * 0.7 ? "end" : "start", "ptlabel",
                     clip(c->name, 16, cut, sizeof cut));
        mb__buf_puts(b, "</g>");
    }
    mb__svg_end(&s, "One point per variant: up and to the left is better.");
    return true;
}

bool mb__chart_outputs(mb__buf *b, const mb__rview *v)
{
    int psnr = 0;
    size_t n = 0;
    for (size_t i = 0; i < v->n_cmps; i++) {
        size_t k;
        const json_t *o;
        json_array_foreach(mb__jget(v->cmps[i].v, "agreement.outputs"), k, o)
        {
            n++;
            if (isfinite(mb__jnum(o, "psnr")))
                psnr = 1;
        }
    }
    if (!n)
        return false;
    const char *key = psnr ? "psnr" : "cosine";
    double hi = psnr ? 0 : 1;
    for (size_t i = 0; i < v->n_cmps; i++) {
        size_t k;
        const json_t *o;
        json_array_foreach(mb__jget(v->cmps[i].v, "agreement.outputs"), k, o)
        {
            double x = mb__jnum(o, key);
            if (isfinite(x) && isfinite(x))
                hi = fmax(hi, x);
        }
    }
    double lo = 0;
    if (psnr)
        mb__svg_nice_range(&lo, &hi);
    mb__svg s;
    mb__svg_begin(&s, b, "chart-outputs",
                  "Output agreement with the baseline, per output", 900,
                  12 + 44 + 28.0 * (double)n);
    s.ml = 240;
    s.x =
        (mb__svg_axis){0, hi, 0,
                       psnr ? "PSNR against the baseline (dB, higher is closer)"
                            : "cosine similarity with the baseline"};
    s.y = (mb__svg_axis){0, (double)n, 0, NULL};
    mb__svg_axes(&s, 1);
    size_t row = 0;
    char tip[900], full[600], t[5][32];
    for (size_t i = 0; i < v->n_cmps; i++) {
        const mb__rcmp *c = &v->cmps[i];
        size_t k;
        const json_t *o;
        json_array_foreach(mb__jget(c->v, "agreement.outputs"), k, o)
        {
            double y = s.mt + 28.0 * (double)row++;
            const char *oname = mb__jstr(o, "name");
            snprintf(full, sizeof full, "%s · %s", c->name,
                     oname ? oname : "?");
            char cut[128];
            mb__buf_puts(b, "<g>");
            mb__svg_text(&s, s.ml - 8, y + 18, "end", "rowlabel",
                         clip(full, 30, cut, sizeof cut));
            mb__svg_title(b, full);
            mb__buf_puts(b, "</g>");
            double x = mb__jnum(o, key);
            /* PSNR +inf: no difference at all, the longest bar */
            const char *ps = mb__jstr(o, "psnr"); /* stored as "inf" */
            bool same = ps && !strcmp(ps, "inf");
            if (same)
                x = hi;
            snprintf(
                tip, sizeof tip,
                "%s: PSNR %s dB, cosine %s, MAE %s, max abs %s, rel. error %s",
                full,
                same ? "infinite (identical)"
                     : mb__fmt_num(mb__jnum(o, "psnr"), 4, t[0], 32),
                mb__fmt_num(mb__jnum(o, "cosine"), 6, t[1], 32),
                mb__fmt_num(mb__jnum(o, "mae"), 3, t[2], 32),
                mb__fmt_num(mb__jnum(o, "max_abs"), 3, t[3], 32),
                mb__fmt_num(mb__jnum(o, "rel_error"), 3, t[4], 32));
            if (isfinite(x))
                hbar(&s, y + 6, 16, 0, x,
                     mb__svg_color((size_t)series_of(v, c->name)), "bar", tip);
            if (same)
                mb__svg_text(&s, mb__svg_px(&s, x) - 6, y + 18, "end",
                             "identical", "identical");
        }
    }
    mb__svg_end(&s, "Hover a bar for every metric of that output; the table "
                    "below lists them all.  Identical outputs (PSNR infinite) "
                    "are the longest bars, marked \"identical\".");
    return true;
}
