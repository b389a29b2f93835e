/* test_history.c - regress/history.c and report/histrep.c: history
 * series and their change points, the history writers (Markdown, HTML,
 * console) and the number formatters they share with the other writers
 * (report/rutil.c). */
#include "t.h"

#include "core/buf.h"
#include "regress/history.h"
#include "report/histrep.h"
#include "report/rutil.h"

#include <jansson.h>
#include <math.h>

/* Stored rows as mb__store_history gives them: 12 results of one series
 * with a 20% step at the 7th, a failed run and a run of another series. */
static json_t *rows(void)
{
    json_t *r = json_array();
    for (int i = 0; i < 12; i++) {
        char commit[16], date[32];
        snprintf(commit, sizeof commit, "c%02d", i);
        snprintf(date, sizeof date, "2026-11-%02dT00:00:00Z", i + 1);
        double p50 = (i < 6 ? 1e6 : 1.2e6) * (1 + 0.002 * (i % 3));
        json_array_append_new(
            r,
            json_pack("{s:i,s:s,s:s,s:i,s:s,s:f,s:s,s:s,s:s,s:b,s:s}", "run_id",
                      i + 1, "model_name", "m|<b>", "variant", "cpu_*x*",
                      "batch_size", 1, "status", "ok", "p50", p50,
                      "created_utc", date, "git_commit", commit, "git_branch",
                      "main", "git_dirty", i == 3, "git_commit_date", date));
    }
    json_array_append_new(r, json_pack("{s:i,s:s,s:s,s:i,s:s,s:n}", "run_id",
                                       13, "model_name", "m|<b>", "variant",
                                       "cpu_*x*", "batch_size", 1, "status",
                                       "failed", "p50"));
    json_array_append_new(r, json_pack("{s:i,s:s,s:s,s:i,s:s,s:f}", "run_id",
                                       14, "model_name", "m|<b>", "variant",
                                       "cpu_*x*", "batch_size", 8, "status",
                                       "ok", "p50", 5e6));
    return r;
}

static void history_groups_series_and_finds_the_step(void)
{
    json_t *r = rows();
    json_t *s = mb__history_series(r, "p50");
    EXPECT_EQ_INT(json_array_size(s), 2);
    const json_t *a = json_array_get(s, 0);
    EXPECT_EQ_INT(json_array_size(json_object_get(a, "points")), 12);
    const json_t *cps = json_object_get(a, "change_points");
    EXPECT_EQ_INT(json_array_size(cps), 1);
    EXPECT_EQ_INT(
        json_integer_value(json_object_get(json_array_get(cps, 0), "index")),
        6);
    EXPECT_NEAR(
        json_real_value(json_object_get(json_array_get(cps, 0), "change")), 0.2,
        0.01);
    EXPECT(mb__history_cp_at(a, 6) != NULL);
    EXPECT(mb__history_cp_at(a, 5) == NULL);
    json_t *doc = mb__history_doc(s, "p50", "2026-11-23T00:00:00Z");
    EXPECT_STR(json_string_value(json_object_get(doc, "schema")),
               "mbench.history/1");
    json_decref(doc);
    json_decref(s);
    json_decref(r);
}

static void history_writers_escape_and_mark_the_change_point(void)
{
    json_t *r = rows();
    json_t *s = mb__history_series(r, "p50");
    mb__buf md = MB_BUF_INIT, html = MB_BUF_INIT, con = MB_BUF_INIT;
    mb__history_md(&md, s, "p50");
    mb__history_html(&html, s, "p50");
    mb__history_console(&con, s, "p50");
    EXPECT_CONTAINS(md.data, "## m\\|&lt;b&gt; / cpu\\_\\*x\\* / batch 1");
    EXPECT_CONTAINS(
        md.data, "| 7 | 2026-11-07T00:00:00Z | c06 | main | 1.20 ms | **+20");
    EXPECT_CONTAINS(md.data, "| 4 | 2026-11-04T00:00:00Z | c03 (dirty) |");
    EXPECT_CONTAINS(html.data, "<h2>m|&lt;b&gt; / cpu_*x* / batch 1</h2>");
    EXPECT(!strstr(html.data, "<b>/"));
    EXPECT_CONTAINS(html.data, "<svg xmlns");
    EXPECT_CONTAINS(con.data, "<- change point +20");
    mb__buf e = MB_BUF_INIT;
    json_t *none = json_array();
    mb__history_md(&e, none, "p99");
    EXPECT_CONTAINS(e.data, "No stored results match.");
    json_decref(none);
    mb__buf_free(&e);
    mb__buf_free(&md);
    mb__buf_free(&html);
    mb__buf_free(&con);
    json_decref(s);
    json_decref(r);
}

static void history_values_use_the_shared_formatters(void)
{
    char b[32];
    EXPECT_STR(mb__history_fmt("p50", 1.5e6, b, sizeof b), "1.50 ms");
    EXPECT_STR(mb__history_fmt("memory", 3 * 1048576.0, b, sizeof b),
               "3.0 MiB");
    EXPECT_STR(mb__history_fmt("throughput", 123.45, b, sizeof b), "123.5/s");
    EXPECT_STR(mb__history_fmt("p50", NAN, b, sizeof b), "-");
    EXPECT_STR(mb__fmt_grouped(1234567, b, sizeof b), "1,234,567");
    EXPECT_STR(mb__fmt_grouped(999, b, sizeof b), "999");
    EXPECT_STR(mb__fmt_grouped(0, b, sizeof b), "0");
}

int main(void)
{
    RUN(history_groups_series_and_finds_the_step);
    RUN(history_writers_escape_and_mark_the_change_point);
    RUN(history_values_use_the_shared_formatters);
    return T_DONE();
}
