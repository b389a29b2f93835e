/* history.c - series and change points of stored results (history.h). */
#include "regress/history.h"

#include "core/alloc.h"
#include "core/buf.h"
#include "regress/changepoint.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const char *sv(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

/* The series of row r in index (a new one appended to series when r
 * starts one); borrowed, NULL when memory runs out. */
static json_t *series_of(json_t *series, json_t *index, const json_t *r)
{
    mb__buf key = MB_BUF_INIT;
    mb__buf_printf(&key, "%s|%s|%" JSON_INTEGER_FORMAT, sv(r, "model_name"),
                   sv(r, "variant"),
                   json_integer_value(json_object_get(r, "batch_size")));
    const char *k = key.data ? key.data : "";
    json_t *s = json_object_get(index, k);
    if (!s) {
        s = json_pack("{s:s,s:s,s:O?,s:[],s:[]}", "model", sv(r, "model_name"),
                      "variant", sv(r, "variant"), "batch_size",
                      json_object_get(r, "batch_size"), "points",
                      "change_points");
        if (s &&
            (json_object_set_new(index, k, s) || json_array_append(series, s)))
            s = NULL;
    }
    mb__buf_free(&key);
    return s;
}

static bool add_change_points(json_t *s)
{
    json_t *pts = json_object_get(s, "points");
    size_t n = json_array_size(pts);
    double *x = mb__calloc(n ? n : 1, sizeof *x);
    mb__changepoint cp[64];
    if (!x)
        return false;
    for (size_t k = 0; k < n; k++)
        x[k] =
            json_number_value(json_object_get(json_array_get(pts, k), "value"));
    size_t found = mb__changepoints(x, n, MB_CP_MIN_SEGMENT, MB_CP_THRESHOLD,
                                    MB_CP_MIN_REL, cp, 64);
    free(x);
    if (found > 64)
        found = 64;
    for (size_t k = 0; k < found; k++) {
        const json_t *p = json_array_get(pts, cp[k].index);
        double change =
            cp[k].before != 0 ? cp[k].after / cp[k].before - 1 : 0.0;
        if (json_array_append_new(
                json_object_get(s, "change_points"),
                json_pack("{s:I,s:O?,s:O?,s:f,s:f,s:f,s:f}", "index",
                          (json_int_t)cp[k].index, "run_id",
                          json_object_get(p, "run_id"), "git_commit",
                          json_object_get(p, "git_commit"), "before",
                          cp[k].before, "after", cp[k].after, "change", change,
                          "score", cp[k].score)))
            return false;
    }
    return true;
}

json_t *mb__history_series(const json_t *rows, const char *metric)
{
    json_t *series = json_array(), *index = json_object();
    int ok = series && index;
    size_t i;
    const json_t *r;
    json_array_foreach(rows, i, r)
    {
        const json_t *v = json_object_get(r, metric);
        if (!ok || !json_is_number(v) || strcmp(sv(r, "status"), "ok") != 0)
            continue;
        json_t *s = series_of(series, index, r);
        ok = s &&
             !json_array_append_new(
                 json_object_get(s, "points"),
                 json_pack("{s:O?,s:O?,s:O?,s:O?,s:O?,s:O?,s:f}", "run_id",
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
        if (ok && !add_change_points(s))
            ok = 0;
    }
    if (!ok) {
        json_decref(series);
        return NULL;
    }
    return series;
}

const json_t *mb__history_cp_at(const json_t *s, size_t k)
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

json_t *mb__history_doc(json_t *series, const char *metric, const char *now)
{
    return json_pack(
        "{s:s,s:s,s:s,s:{s:s,s:i,s:f,s:f},s:O}", "schema", "mbench.history/1",
        "created_utc", now, "metric", metric, "method", "change_points",
        "binary segmentation on medians; noise = "
        "1.4826*median|x[i+1]-x[i]|/sqrt(2)",
        "min_segment", MB_CP_MIN_SEGMENT, "threshold", MB_CP_THRESHOLD,
        "min_relative_change", MB_CP_MIN_REL, "series", series);
}
