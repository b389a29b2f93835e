/* histrep.c - history as Markdown (report/histrep.h). */
#include "report/histrep.h"

#include "core/err.h"
#include "report/output.h"
#include "report/rutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The change point recorded at point k of series s, or NULL. */
static const json_t *change_at(const json_t *s, size_t k)
{
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(s, "change_points"), i, c)
    {
        if (json_integer_value(json_object_get(c, "index")) == (json_int_t)k)
            return c;
    }
    return NULL;
}

static void series_md(mb_buf *b, const json_t *s, const char *metric)
{
    char v[32], bef[32], aft[32];
    const json_t *pts = json_object_get(s, "points");
    size_t n_cp = json_array_size(json_object_get(s, "change_points"));
    mb__buf_puts(b, "### ");
    mb__md_escape(b, mb__jstr(s, "model"));
    mb__buf_puts(b, " / ");
    mb__md_escape(b, mb__jstr(s, "variant"));
    mb__buf_printf(b, " / batch %lld\n\n%zu results, %zu change point%s "
                      "(%s).\n\n",
                   (long long)json_integer_value(json_object_get(s, "batch_size")),
                   json_array_size(pts), n_cp, n_cp == 1 ? "" : "s", metric);
    mb__buf_puts(b, "| # | date | commit | branch | ");
    mb__md_escape(b, metric);
    mb__buf_puts(b, " | change point |\n|--:|---|---|---|--:|---|\n");
    size_t k;
    const json_t *p;
    json_array_foreach(pts, k, p)
    {
        const char *date = mb__jstr(p, "git_commit_date");
        const char *commit = mb__jstr(p, "git_commit");
        const char *branch = mb__jstr(p, "git_branch");
        mb__buf_printf(b, "| %zu | ", k + 1);
        mb__md_escape(b, date && *date ? date : mb__jstr(p, "created_utc"));
        mb__buf_puts(b, " | ");
        if (commit && *commit) {
            char shortc[13];
            snprintf(shortc, sizeof shortc, "%s", commit);
            mb__md_code(b, shortc);
            if (json_is_true(json_object_get(p, "git_dirty")))
                mb__buf_puts(b, " (dirty)");
        } else {
            mb__buf_puts(b, "-");
        }
        mb__buf_puts(b, " | ");
        mb__md_escape(b, branch && *branch ? branch : NULL);
        mb__buf_printf(b, " | %s | ",
                       mb__fmt_metric(metric, mb__jnum(p, "value"), v,
                                      sizeof v));
        const json_t *c = change_at(s, k);
        if (c)
            mb__buf_printf(b, "**%+.1f%%** (%s → %s, score %.1f)",
                           mb__jnum(c, "change") * 100,
                           mb__fmt_metric(metric, mb__jnum(c, "before"), bef,
                                          sizeof bef),
                           mb__fmt_metric(metric, mb__jnum(c, "after"), aft,
                                          sizeof aft),
                           mb__jnum(c, "score"));
        mb__buf_puts(b, " |\n");
    }
    mb__buf_puts(b, "\n");
}

mb_status mb__report_history_md(const json_t *series, const char *metric,
                                mb_buf *out, mb_err *err)
{
    if (!json_is_array(series))
        return mb__fail(err, MB_EINVAL, "history: no series to report on");
    mb__buf_puts(out, "## mbench history: ");
    mb__md_escape(out, metric);
    mb__buf_puts(out, "\n\n");
    if (json_array_size(series) == 0) {
        mb__buf_puts(out, "No stored results match.\n");
    }
    size_t i;
    const json_t *s;
    json_array_foreach(series, i, s)
        series_md(out, s, metric);
    if (json_array_size(series) > 0)
        mb__buf_puts(out,
                     "Change points: binary segmentation on the medians "
                     "of the stored results (src/regress/changepoint.h); a "
                     "step counts when it is large against the robust "
                     "standard error and in relative size.\n");
    if (out->oom)
        return mb__fail(err, MB_ENOMEM, "out of memory rendering history");
    return MB_OK;
}

mb_status mb__write_history_md(const char *path, const json_t *series,
                               const char *metric, mb_err *err)
{
    mb_buf b = MB_BUF_INIT;
    mb_status st = mb__report_history_md(series, metric, &b, err);
    if (st) {
        mb__buf_free(&b);
        return st;
    }
    return mb__output_buf(path, &b, err);
}
