/* histrep.c - console, Markdown and HTML writers of `mbench history`
 * (histrep.h).  Every string from the store is escaped (rutil.h). */
#include "report/histrep.h"

#include "regress/changepoint.h"
#include "regress/history.h"
#include "report/console.h"
#include "report/csv.h"
#include "report/rutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

char *mb__history_fmt(const char *metric, double x, char *out, size_t len)
{
    if (!isfinite(x))
        snprintf(out, len, "-");
    else if (strcmp(metric, "throughput") == 0)
        snprintf(out, len, "%.1f/s", x);
    else if (strcmp(metric, "memory") == 0)
        mb__fmt_bytes(x, out, len);
    else
        mb__fmt_duration(x, out, len);
    return out;
}

static const char *sv(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static double value(const json_t *p)
{
    return json_number_value(json_object_get(p, "value"));
}

static const char *or_dash(const char *s)
{
    return *s ? s : "-";
}

/* The date a point is shown at: the commit's, else when it was stored. */
static const char *date_of(const json_t *p)
{
    return *sv(p, "git_commit_date") ? sv(p, "git_commit_date")
                                     : sv(p, "created_utc");
}

static double change_pct(const json_t *c)
{
    return json_number_value(json_object_get(c, "change")) * 100;
}

void mb__history_console(mb__buf *b, const json_t *series, const char *metric)
{
    size_t i, k;
    const json_t *s, *p;
    if (json_array_size(series) == 0)
        mb__buf_printf(b, "no stored results match (metric %s)\n", metric);
    json_array_foreach(series, i, s)
    {
        char mo[256], va[256];
        mb__buf_printf(
            b,
            "%s%s / %s / batch %" JSON_INTEGER_FORMAT " - %s (%zu results, "
            "%zu change points)\n",
            i ? "\n" : "", mb__console_safe(sv(s, "model"), mo, sizeof mo),
            mb__console_safe(sv(s, "variant"), va, sizeof va),
            json_integer_value(json_object_get(s, "batch_size")), metric,
            json_array_size(json_object_get(s, "points")),
            json_array_size(json_object_get(s, "change_points")));
        mb__buf_printf(b, "  %4s  %-20s  %-12s  %-16s  %12s  %s\n", "#", "date",
                       "commit", "branch", metric, "");
        json_array_foreach(json_object_get(s, "points"), k, p)
        {
            char v[32], mark[80] = "";
            const json_t *c = mb__history_cp_at(s, k);
            if (c)
                snprintf(mark, sizeof mark,
                         "<- change point %+.1f%% (score %.1f)", change_pct(c),
                         json_number_value(json_object_get(c, "score")));
            char br[64];
            mb__buf_printf(
                b, "  %4zu  %-20.20s  %-12.12s%s %-16.16s  %12s  %s\n", k + 1,
                date_of(p), or_dash(sv(p, "git_commit")),
                json_is_true(json_object_get(p, "git_dirty")) ? "+" : " ",
                mb__console_safe(or_dash(sv(p, "git_branch")), br, sizeof br),
                mb__history_fmt(metric, value(p), v, sizeof v), mark);
        }
    }
}

void mb__history_csv(mb__buf *b, const json_t *series, const char *metric)
{
    mb__buf_puts(b, "model,variant,batch,metric,unit,index,date,commit,dirty,"
                    "branch,value,change_point_change,change_point_score\n");
    size_t i, k;
    const json_t *s, *p;
    json_array_foreach(series, i, s)
    {
        json_array_foreach(json_object_get(s, "points"), k, p)
        {
            mb__csv_field(b, sv(s, "model"));
            mb__buf_putc(b, ',');
            mb__csv_field(b, sv(s, "variant"));
            mb__buf_printf(b, ",%" JSON_INTEGER_FORMAT ",%s,%s,%zu,",
                           json_integer_value(json_object_get(s, "batch_size")),
                           metric, mb__metric_unit(metric), k + 1);
            mb__csv_field(b, date_of(p));
            mb__buf_putc(b, ',');
            mb__csv_field(b, sv(p, "git_commit"));
            mb__buf_printf(b, ",%s,",
                           json_is_true(json_object_get(p, "git_dirty")) ? "yes"
                                                                         : "");
            mb__csv_field(b, sv(p, "git_branch"));
            mb__csv_num(b, "%.9g", value(p));
            const json_t *c = mb__history_cp_at(s, k);
            if (c)
                mb__buf_printf(b, ",%.9g,%.9g\n",
                               json_number_value(json_object_get(c, "change")),
                               json_number_value(json_object_get(c, "score")));
            else
                mb__buf_puts(b, ",,\n");
        }
    }
}

static void method(mb__buf *b, const char *metric, const char *open,
                   const char *close)
{
    mb__buf_printf(b,
                   "Metric %s%s%s. Change points: binary segmentation on "
                   "medians, at least %d results per segment, a step of more "
                   "than %.1f robust standard errors (noise from the median "
                   "absolute successive difference) and %.0f%%.",
                   open, metric, close, MB_CP_MIN_SEGMENT, MB_CP_THRESHOLD,
                   MB_CP_MIN_REL * 100);
}

void mb__history_md(mb__buf *b, const json_t *series, const char *metric)
{
    mb__buf_puts(b, "# mbench history\n\n");
    method(b, metric, "**", "**");
    mb__buf_puts(b, "\n");
    if (json_array_size(series) == 0)
        mb__buf_puts(b, "\nNo stored results match.\n");
    size_t i, k;
    const json_t *s, *p;
    json_array_foreach(series, i, s)
    {
        mb__buf_puts(b, "\n## ");
        mb__md_escape(b, sv(s, "model"));
        mb__buf_puts(b, " / ");
        mb__md_escape(b, sv(s, "variant"));
        mb__buf_printf(b,
                       " / batch %" JSON_INTEGER_FORMAT "\n\n%zu results, %zu "
                       "change points.\n\n| # | date | commit | branch | %s | "
                       "change point |\n|---:|---|---|---|---:|---|\n",
                       json_integer_value(json_object_get(s, "batch_size")),
                       json_array_size(json_object_get(s, "points")),
                       json_array_size(json_object_get(s, "change_points")),
                       metric);
        json_array_foreach(json_object_get(s, "points"), k, p)
        {
            char v[32];
            mb__buf_printf(b, "| %zu | ", k + 1);
            mb__md_escape(b, date_of(p));
            mb__buf_puts(b, " | ");
            mb__md_escape(b, or_dash(sv(p, "git_commit")));
            if (json_is_true(json_object_get(p, "git_dirty")))
                mb__buf_puts(b, " (dirty)");
            mb__buf_puts(b, " | ");
            mb__md_escape(b, or_dash(sv(p, "git_branch")));
            mb__buf_printf(b, " | %s | ",
                           mb__history_fmt(metric, value(p), v, sizeof v));
            const json_t *c = mb__history_cp_at(s, k);
            if (c)
                mb__buf_printf(b, "**%+.1f%%** (score %.1f)", change_pct(c),
                               json_number_value(json_object_get(c, "score")));
            mb__buf_puts(b, " |\n");
        }
    }
}

typedef struct chart {
    double lo, hi;
    size_t n;
} chart;

static const double W = 760, H = 240, L = 80, R = 20, T = 20, Bm = 30;

static double xp(const chart *c, double k)
{
    return L + (c->n > 1 ? k / (double)(c->n - 1) : 0.5) * (W - L - R);
}

static double yp(const chart *c, double v)
{
    return T + (1 - (v - c->lo) / (c->hi - c->lo)) * (H - T - Bm);
}

static void svg_chart(mb__buf *b, const json_t *s, const char *metric)
{
    const json_t *pts = json_object_get(s, "points");
    chart c = {INFINITY, -INFINITY, json_array_size(pts)};
    for (size_t k = 0; k < c.n; k++) {
        c.lo = fmin(c.lo, value(json_array_get(pts, k)));
        c.hi = fmax(c.hi, value(json_array_get(pts, k)));
    }
    if (!(c.hi > c.lo)) {
        c.hi = c.lo + fabs(c.lo) * 0.05 + 1;
        c.lo = c.lo - fabs(c.lo) * 0.05;
    }
    double pad = (c.hi - c.lo) * 0.1;
    c.lo -= pad;
    c.hi += pad;
    char a[32], z[32];
    mb__buf_printf(b,
                   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
                   "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\">\n"
                   "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" "
                   "fill=\"#fafafa\" stroke=\"#ccc\"/>\n<text x=\"%.0f\" "
                   "y=\"%.0f\" font-size=\"11\" text-anchor=\"end\">%s</text>"
                   "\n<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\" "
                   "text-anchor=\"end\">%s</text>\n",
                   W, H, W, H, L, T, W - L - R, H - T - Bm, L - 4, T + 10,
                   mb__history_fmt(metric, c.hi, a, sizeof a), L - 4, H - Bm,
                   mb__history_fmt(metric, c.lo, z, sizeof z));
    size_t i;
    const json_t *cp;
    json_array_foreach(json_object_get(s, "change_points"), i, cp)
    {
        double k = (double)json_integer_value(json_object_get(cp, "index"));
        double x = (xp(&c, k) + xp(&c, k - 1)) / 2;
        mb__buf_printf(b,
                       "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" "
                       "stroke=\"#d33\" stroke-dasharray=\"4 3\"/>\n<text "
                       "x=\"%.1f\" y=\"%.0f\" font-size=\"11\" fill=\"#d33\">"
                       "%+.1f%%</text>\n",
                       x, T, x, H - Bm, x + 3, T + 12, change_pct(cp));
    }
    mb__buf_puts(b, "<polyline fill=\"none\" stroke=\"#2a6fdb\" "
                    "stroke-width=\"1.5\" points=\"");
    for (size_t k = 0; k < c.n; k++)
        mb__buf_printf(b, "%.1f,%.1f ", xp(&c, (double)k),
                       yp(&c, value(json_array_get(pts, k))));
    mb__buf_puts(b, "\"/>\n");
    for (size_t k = 0; k < c.n; k++) {
        const json_t *p = json_array_get(pts, k);
        mb__buf_printf(b,
                       "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" "
                       "fill=\"#2a6fdb\"><title>",
                       xp(&c, (double)k), yp(&c, value(p)));
        mb__html_escape(b, sv(p, "git_commit"));
        mb__buf_puts(b, " ");
        mb__html_escape(b, sv(p, "git_branch"));
        mb__buf_puts(b, " ");
        mb__html_escape(b, date_of(p));
        mb__buf_printf(b, ": %s</title></circle>\n",
                       mb__history_fmt(metric, value(p), a, sizeof a));
    }
    mb__buf_printf(b,
                   "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\">oldest</text>"
                   "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\" "
                   "text-anchor=\"end\">newest</text>\n</svg>\n",
                   L, H - 10, W - R, H - 10);
}

static void html_series(mb__buf *b, const json_t *s, const char *metric)
{
    mb__buf_puts(b, "<h2>");
    mb__html_escape(b, sv(s, "model"));
    mb__buf_puts(b, " / ");
    mb__html_escape(b, sv(s, "variant"));
    mb__buf_printf(b, " / batch %" JSON_INTEGER_FORMAT "</h2>\n",
                   json_integer_value(json_object_get(s, "batch_size")));
    svg_chart(b, s, metric);
    mb__buf_puts(b, "<table><tr><th>#</th><th>date</th><th>commit</th>"
                    "<th>branch</th><th>value</th><th></th></tr>\n");
    size_t k;
    const json_t *p;
    json_array_foreach(json_object_get(s, "points"), k, p)
    {
        char v[32];
        mb__buf_printf(b, "<tr><td>%zu</td><td>", k + 1);
        mb__html_escape(b, date_of(p));
        mb__buf_puts(b, "</td><td>");
        mb__html_escape(b, sv(p, "git_commit"));
        mb__buf_puts(
            b, json_is_true(json_object_get(p, "git_dirty")) ? " (dirty)" : "");
        mb__buf_puts(b, "</td><td>");
        mb__html_escape(b, sv(p, "git_branch"));
        mb__buf_printf(b, "</td><td>%s</td><td class=\"cp\">",
                       mb__history_fmt(metric, value(p), v, sizeof v));
        const json_t *c = mb__history_cp_at(s, k);
        if (c)
            mb__buf_printf(b, "change point %+.1f%%", change_pct(c));
        mb__buf_puts(b, "</td></tr>\n");
    }
    mb__buf_puts(b, "</table>\n");
}

void mb__history_html(mb__buf *b, const json_t *series, const char *metric)
{
    mb__buf_puts(
        b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
           "<title>mbench history</title><style>body{font-family:sans-serif;"
           "margin:2em;max-width:60em}table{border-collapse:collapse;font-size:"
           "13px}td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:"
           "left}.cp{color:#d33;font-weight:bold}</style></head><body>\n"
           "<h1>mbench history</h1>\n<p>");
    method(b, metric, "<b>", "</b>");
    mb__buf_puts(b, "</p>\n");
    if (json_array_size(series) == 0)
        mb__buf_puts(b, "<p>No stored results match.</p>\n");
    size_t i;
    const json_t *s;
    json_array_foreach(series, i, s) html_series(b, s, metric);
    mb__buf_puts(b, "</body></html>\n");
}
