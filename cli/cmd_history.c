/* cmd_history.c - mbench history: stored results over commits and time,
 * one series per (model, variant, batch size), with change points found
 * by a noise-tolerant step detection (src/regress/changepoint.h), as a
 * console table, JSON ("mbench.history/1") and a self-contained HTML page
 * with inline SVG charts. */
#include "cli.h"
#include "opt.h"
#include "outputs.h"

#include "core/alloc.h"
#include "core/buf.h"
#include "core/clock.h"
#include "core/err.h"
#include "core/fileio.h"
#include "regress/changepoint.h"
#include "store/store.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

MBENCH_COMMAND(history, cmd_history,
               "results over commits and time, with change points")
MBENCH_OPTIONS(history, mb_cmd_history)

enum {
    O_DB,
    O_MODEL,
    O_VARIANT,
    O_BATCH,
    O_BRANCH,
    O_METRIC,
    O_LIMIT,
    O_HTML,
    O_JSON
};

#define STR_(x) #x
#define STR(x) STR_(x)

static const mb_opt history_opts[] = {
    {"db", 0, MB_OPT_STRING, "FILE|URL",
     "the results store (SQLite file or postgresql:// URL)", NULL, NULL, 0, 0,
     0, O_DB},
    {"model", 0, MB_OPT_STRING, "M", "model name, path or sha256 prefix", NULL,
     NULL, 0, 0, 0, O_MODEL},
    {"variant", 0, MB_OPT_STRING, "V", "variant name", NULL, NULL, 0, 0, 0,
     O_VARIANT},
    {"batch", 0, MB_OPT_INT, "N", "batch size", "a positive integer", NULL, 1,
     9.3e18, 0, O_BATCH},
    {"branch", 0, MB_OPT_STRING, "REF",
     "only results of this branch (or commit prefix)", NULL, NULL, 0, 0, 0,
     O_BRANCH},
    {"metric", 0, MB_OPT_ENUM, "NAME", "the figure to follow (default p50)",
     "p50, p90, p95, p99, mean, throughput or memory",
     "p50|p90|p95|p99|mean|throughput|memory", 0, 0, 0, O_METRIC},
    {"limit", 0, MB_OPT_INT, "N",
     "the newest N results of each filter (default all)", "a positive integer",
     NULL, 1, 9.3e18, 0, O_LIMIT},
    {"html", 0, MB_OPT_OUTFILE, "FILE",
     "a self-contained page with one SVG chart per series ('-' for stdout)",
     NULL, NULL, 0, 0, MB_OPT_STDOUT, O_HTML},
    {"json", 0, MB_OPT_OUTFILE, "FILE",
     "series and change points (schema mbench.history/1; '-' for stdout)", NULL,
     NULL, 0, 0, MB_OPT_STDOUT, O_JSON},
};

/* The constants of regress/changepoint.h, spelled out at compile time. */
/* clang-format off */
#define HISTORY_FOOTER                                                        \
    "Change points: binary segmentation on medians, at least "                \
    STR(MB_CP_MIN_SEGMENT) " results per segment, a step of more than "       \
    STR(MB_CP_THRESHOLD) " robust standard errors and a relative change of "  \
    "more than " STR(MB_CP_MIN_REL) "."
/* clang-format on */

const mb_cmd mb_cmd_history = {
    "history",
    NULL,
    "results over commits and time, with change points",
    "Follows stored results over commits and time, one series per (model, "
    "variant, batch size), and finds change points.",
    history_opts,
    sizeof history_opts / sizeof history_opts[0],
    0,
    0,
    0,
    HISTORY_FOOTER};

typedef struct {
    const char *db, *metric, *html, *json_path;
    mb__store_filter f;
} history_args;

static int on_opt(void *user, const mb_opt *o, const mb_optval *v)
{
    history_args *a = user;
    switch (o->id) {
    case O_DB:
        a->db = v->str;
        break;
    case O_MODEL:
        a->f.model = v->str;
        break;
    case O_VARIANT:
        a->f.variant = v->str;
        break;
    case O_BRANCH:
        a->f.ref = v->str;
        break;
    case O_HTML:
        a->html = v->str;
        break;
    case O_JSON:
        a->json_path = v->str;
        break;
    case O_BATCH:
        a->f.batch_size = v->i;
        break;
    case O_LIMIT:
        a->f.limit = v->i;
        break;
    case O_METRIC:
        a->metric = v->str;
        break;
    }
    return 0;
}

static void fmt(char *b, size_t len, const char *metric, double x)
{
    if (!isfinite(x))
        snprintf(b, len, "-");
    else if (strcmp(metric, "throughput") == 0)
        snprintf(b, len, "%.1f/s", x);
    else if (strcmp(metric, "memory") == 0)
        snprintf(b, len, "%.2f MiB", x / 1048576.0);
    else if (x >= 1e6)
        snprintf(b, len, "%.3f ms", x / 1e6);
    else if (x >= 1e3)
        snprintf(b, len, "%.2f us", x / 1e3);
    else
        snprintf(b, len, "%.0f ns", x);
}

static const char *sv(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

/* Groups rows into series and finds change points: a new JSON array of
 * {model, variant, batch_size, points: [...], change_points: [...]}. */
static json_t *build_series(const json_t *rows, const char *metric)
{
    json_t *series = json_array(), *index = json_object();
    size_t i;
    const json_t *r;
    json_array_foreach(rows, i, r)
    {
        const json_t *v = json_object_get(r, metric);
        if (!json_is_number(v) || strcmp(sv(r, "status"), "ok") != 0)
            continue;
        mb_buf key = MB_BUF_INIT;
        mb__buf_printf(&key, "%s|%s|%" JSON_INTEGER_FORMAT, sv(r, "model_name"),
                       sv(r, "variant"),
                       json_integer_value(json_object_get(r, "batch_size")));
        json_t *s = json_object_get(index, key.data ? key.data : "");
        if (!s) {
            s = json_pack("{s:s,s:s,s:O,s:[],s:[]}", "model",
                          sv(r, "model_name"), "variant", sv(r, "variant"),
                          "batch_size", json_object_get(r, "batch_size"),
                          "points", "change_points");
            json_object_set_new(index, key.data ? key.data : "", s);
            json_array_append(series, s);
        }
        mb__buf_free(&key);
        json_array_append_new(
            json_object_get(s, "points"),
            json_pack("{s:O,s:O,s:O,s:O,s:O,s:O,s:f}", "run_id",
                      json_object_get(r, "run_id"), "created_utc",
                      json_object_get(r, "created_utc"), "git_commit",
                      json_object_get(r, "git_commit"), "git_branch",
                      json_object_get(r, "git_branch"), "git_dirty",
                      json_object_get(r, "git_dirty"), "git_commit_date",
                      json_object_get(r, "git_commit_date"), "value",
                      json_number_value(v)));
    }
    json_decref(index);
    json_t *s;
    json_array_foreach(series, i, s)
    {
        json_t *pts = json_object_get(s, "points");
        size_t n = json_array_size(pts);
        double *x = mb__calloc(n ? n : 1, sizeof *x);
        mb__changepoint cp[64];
        if (!x)
            continue;
        for (size_t k = 0; k < n; k++)
            x[k] = json_number_value(
                json_object_get(json_array_get(pts, k), "value"));
        size_t found = mb__changepoints(x, n, MB_CP_MIN_SEGMENT,
                                        MB_CP_THRESHOLD, MB_CP_MIN_REL, cp, 64);
        if (found > 64)
            found = 64;
        for (size_t k = 0; k < found; k++) {
            const json_t *p = json_array_get(pts, cp[k].index);
            json_array_append_new(
                json_object_get(s, "change_points"),
                json_pack("{s:I,s:O,s:O,s:f,s:f,s:f,s:f}", "index",
                          (json_int_t)cp[k].index, "run_id",
                          json_object_get(p, "run_id"), "git_commit",
                          json_object_get(p, "git_commit"), "before",
                          cp[k].before, "after", cp[k].after, "change",
                          cp[k].before != 0 ? cp[k].after / cp[k].before - 1
                                            : 0.0,
                          "score", cp[k].score));
        }
        free(x);
    }
    return series;
}

static const json_t *cp_at(const json_t *s, size_t k)
{
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(s, "change_points"), i, c)
    {
        if ((size_t)json_integer_value(json_object_get(c, "index")) == k)
            return c;
    }
    return NULL;
}

static void render_console(const json_t *series, const char *metric)
{
    size_t i, k;
    const json_t *s, *p;
    if (json_array_size(series) == 0)
        printf("no stored results match (metric %s)\n", metric);
    json_array_foreach(series, i, s)
    {
        printf("%s%s / %s / batch %" JSON_INTEGER_FORMAT " - %s (%zu results, "
               "%zu change points)\n",
               i ? "\n" : "", sv(s, "model"), sv(s, "variant"),
               json_integer_value(json_object_get(s, "batch_size")), metric,
               json_array_size(json_object_get(s, "points")),
               json_array_size(json_object_get(s, "change_points")));
        printf("  %4s  %-20s  %-12s  %-16s  %12s  %s\n", "#", "date", "commit",
               "branch", metric, "");
        json_array_foreach(json_object_get(s, "points"), k, p)
        {
            char v[32], mark[80] = "";
            fmt(v, sizeof v, metric,
                json_number_value(json_object_get(p, "value")));
            const json_t *c = cp_at(s, k);
            if (c)
                snprintf(mark, sizeof mark,
                         "<- change point %+.1f%% (score %.1f)",
                         json_number_value(json_object_get(c, "change")) * 100,
                         json_number_value(json_object_get(c, "score")));
            const char *date = sv(p, "git_commit_date");
            printf("  %4zu  %-20.20s  %-12.12s%s %-16.16s  %12s  %s\n", k + 1,
                   *date ? date : sv(p, "created_utc"),
                   *sv(p, "git_commit") ? sv(p, "git_commit") : "-",
                   json_is_true(json_object_get(p, "git_dirty")) ? "+" : " ",
                   *sv(p, "git_branch") ? sv(p, "git_branch") : "-", v, mark);
        }
    }
}

static void html_esc(mb_buf *b, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&':
            mb__buf_puts(b, "&amp;");
            break;
        case '<':
            mb__buf_puts(b, "&lt;");
            break;
        case '>':
            mb__buf_puts(b, "&gt;");
            break;
        case '"':
            mb__buf_puts(b, "&quot;");
            break;
        case '\'':
            mb__buf_puts(b, "&#39;");
            break;
        default:
            mb__buf_putc(b, *s);
        }
    }
}

static void svg_chart(mb_buf *b, const json_t *s, const char *metric)
{
    const json_t *pts = json_object_get(s, "points");
    size_t n = json_array_size(pts);
    const double W = 760, H = 240, L = 80, R = 20, T = 20, Bm = 30;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t k = 0; k < n; k++) {
        double v =
            json_number_value(json_object_get(json_array_get(pts, k), "value"));
        lo = fmin(lo, v);
        hi = fmax(hi, v);
    }
    if (!(hi > lo)) {
        hi = lo + fabs(lo) * 0.05 + 1;
        lo = lo - fabs(lo) * 0.05;
    }
    double pad = (hi - lo) * 0.1;
    lo -= pad;
    hi += pad;
#define XP(k) (L + (n > 1 ? (double)(k) / (double)(n - 1) : 0.5) * (W - L - R))
#define YP(v) (T + (1 - ((v)-lo) / (hi - lo)) * (H - T - Bm))
    mb__buf_printf(b,
                   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
                   "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\">\n"
                   "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" "
                   "fill=\"#fafafa\" stroke=\"#ccc\"/>\n",
                   W, H, W, H, L, T, W - L - R, H - T - Bm);
    char a[32], c[32];
    fmt(a, sizeof a, metric, hi);
    fmt(c, sizeof c, metric, lo);
    mb__buf_printf(b,
                   "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\" "
                   "text-anchor=\"end\">%s</text>\n<text x=\"%.0f\" y=\"%.0f\" "
                   "font-size=\"11\" text-anchor=\"end\">%s</text>\n",
                   L - 4, T + 10, a, L - 4, H - Bm, c);
    size_t i;
    const json_t *cp;
    json_array_foreach(json_object_get(s, "change_points"), i, cp)
    {
        size_t k = (size_t)json_integer_value(json_object_get(cp, "index"));
        double x = (XP(k) + XP(k - 1)) / 2;
        mb__buf_printf(b,
                       "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" "
                       "stroke=\"#d33\" stroke-dasharray=\"4 3\"/>\n<text "
                       "x=\"%.1f\" y=\"%.0f\" font-size=\"11\" fill=\"#d33\">"
                       "%+.1f%%</text>\n",
                       x, T, x, H - Bm, x + 3, T + 12,
                       json_number_value(json_object_get(cp, "change")) * 100);
    }
    mb__buf_puts(b, "<polyline fill=\"none\" stroke=\"#2a6fdb\" "
                    "stroke-width=\"1.5\" points=\"");
    for (size_t k = 0; k < n; k++)
        mb__buf_printf(b, "%.1f,%.1f ", XP(k),
                       YP(json_number_value(
                           json_object_get(json_array_get(pts, k), "value"))));
    mb__buf_puts(b, "\"/>\n");
    for (size_t k = 0; k < n; k++) {
        const json_t *p = json_array_get(pts, k);
        char v[32];
        fmt(v, sizeof v, metric,
            json_number_value(json_object_get(p, "value")));
        mb__buf_printf(
            b,
            "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#2a6fdb\"><title>",
            XP(k), YP(json_number_value(json_object_get(p, "value"))));
        html_esc(b, sv(p, "git_commit"));
        mb__buf_puts(b, " ");
        html_esc(b, sv(p, "git_branch"));
        mb__buf_puts(b, " ");
        html_esc(b, *sv(p, "git_commit_date") ? sv(p, "git_commit_date")
                                              : sv(p, "created_utc"));
        mb__buf_printf(b, ": %s</title></circle>\n", v);
    }
    mb__buf_printf(b,
                   "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\">oldest</text>"
                   "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\" "
                   "text-anchor=\"end\">newest</text>\n</svg>\n",
                   L, H - 10, W - R, H - 10);
#undef XP
#undef YP
}

static char *render_html(const json_t *series, const char *metric)
{
    mb_buf b = MB_BUF_INIT;
    mb__buf_puts(
        &b,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<title>mbench history</title><style>body{font-family:sans-serif;"
        "margin:2em;max-width:60em}table{border-collapse:collapse;font-size:"
        "13px}td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:"
        "left}.cp{color:#d33;font-weight:bold}</style></head><body>\n"
        "<h1>mbench history</h1>\n");
    mb__buf_printf(&b,
                   "<p>Metric <b>%s</b>. Change points: binary segmentation on "
                   "medians, at least %d results per segment, a step of more "
                   "than %.1f robust standard errors (noise from the median "
                   "absolute successive difference) and %.0f%%.</p>\n",
                   metric, MB_CP_MIN_SEGMENT, MB_CP_THRESHOLD,
                   MB_CP_MIN_REL * 100);
    if (json_array_size(series) == 0)
        mb__buf_puts(&b, "<p>No stored results match.</p>\n");
    size_t i, k;
    const json_t *s, *p;
    json_array_foreach(series, i, s)
    {
        mb__buf_puts(&b, "<h2>");
        html_esc(&b, sv(s, "model"));
        mb__buf_puts(&b, " / ");
        html_esc(&b, sv(s, "variant"));
        mb__buf_printf(&b, " / batch %" JSON_INTEGER_FORMAT "</h2>\n",
                       json_integer_value(json_object_get(s, "batch_size")));
        svg_chart(&b, s, metric);
        mb__buf_puts(&b, "<table><tr><th>#</th><th>date</th><th>commit</th>"
                         "<th>branch</th><th>value</th><th></th></tr>\n");
        json_array_foreach(json_object_get(s, "points"), k, p)
        {
            char v[32];
            fmt(v, sizeof v, metric,
                json_number_value(json_object_get(p, "value")));
            mb__buf_printf(&b, "<tr><td>%zu</td><td>", k + 1);
            html_esc(&b, *sv(p, "git_commit_date") ? sv(p, "git_commit_date")
                                                   : sv(p, "created_utc"));
            mb__buf_puts(&b, "</td><td>");
            html_esc(&b, sv(p, "git_commit"));
            mb__buf_puts(&b, json_is_true(json_object_get(p, "git_dirty"))
                                 ? " (dirty)"
                                 : "");
            mb__buf_puts(&b, "</td><td>");
            html_esc(&b, sv(p, "git_branch"));
            mb__buf_printf(&b, "</td><td>%s</td><td class=\"cp\">", v);
            const json_t *c = cp_at(s, k);
            if (c)
                mb__buf_printf(&b, "change point %+.1f%%",
                               json_number_value(json_object_get(c, "change")) *
                                   100);
            mb__buf_puts(&b, "</td></tr>\n");
        }
        mb__buf_puts(&b, "</table>\n");
    }
    mb__buf_puts(&b, "</body></html>\n");
    return mb__buf_take(&b, NULL);
}

static int write_out(const char *path, char *text)
{
    mb_err err = {0};
    int rc = 0;
    if (!text)
        return mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
    if (mb__write_file_atomic(path, text, strlen(text), &err))
        rc = mb_cli_fail(&err);
    free(text);
    return rc;
}

int cmd_history(int argc, char **argv)
{
    history_args a = {0};
    a.metric = "p50";
    mb_opt_ctx ctx = {NULL, NULL, on_opt, &a, 0, NULL, 0};
    int rc = mb_opt_parse(&mb_cmd_history, argc, argv, &ctx);
    if (rc)
        return rc == MB_OPT_HELP ? MB_EXIT_OK : rc;
    const char *db = a.db, *metric = a.metric, *html = a.html,
               *json_path = a.json_path;
    mb__store_filter f = a.f;
    if (!db)
        return mb_cli_error(MB_EXIT_USAGE,
                            "history needs --db FILE or --db URL");
    mb_err err = {0};
    mb__store *s = NULL;
    json_t *rows = NULL;
    if (mb__store_open_existing(db, &s, &err) ||
        mb__store_history(s, &f, &rows, &err)) {
        mb__store_close(s);
        return mb_cli_fail(&err);
    }
    mb__store_close(s);
    json_t *series = build_series(rows, metric);
    json_decref(rows);
    if (!ctx.quiet)
        render_console(series, metric);
    if (html)
        rc = write_out(html, render_html(series, metric));
    if (json_path) { /* written even when the HTML could not be */
        char now[32];
        mb__utc_iso8601(now, sizeof now);
        json_t *doc = json_pack(
            "{s:s,s:s,s:s,s:{s:s,s:i,s:f,s:f},s:O}", "schema",
            "mbench.history/1", "created_utc", now, "metric", metric, "method",
            "change_points",
            "binary segmentation on medians; noise = "
            "1.4826*median|x[i+1]-x[i]|/sqrt(2)",
            "min_segment", MB_CP_MIN_SEGMENT, "threshold", MB_CP_THRESHOLD,
            "min_relative_change", MB_CP_MIN_REL, "series", series);
        rc |=
            write_out(json_path, doc ? json_dumps(doc, JSON_INDENT(2)) : NULL);
        if (rc)
            rc = MB_EXIT_RUNTIME;
        json_decref(doc);
    }
    json_decref(series);
    return rc;
}
