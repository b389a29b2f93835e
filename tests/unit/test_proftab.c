/* test_proftab.c - the profile engine on a saved trace and the profile
 * document in every writer (CSV, Markdown, HTML) and in the store: the
 * per-operator tables, hostile names escaped, a comparison document, and
 * the engine's usage errors.  Input: tests/fixtures/profile/trace_small.json
 * (three runs: Conv 45 us, Gemm 25 us, Relu 10 us per run). */
#include "t.h"

#include "core/buf.h"
#include "profile/engine.h"
#include "report/csv.h"
#include "report/html.h"
#include "report/markdown.h"
#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[512];

static json_t *fixture_doc(void)
{
    char path[4096];
    const char *root = getenv("MBENCH_ROOT");
    snprintf(path, sizeof path, "%s/tests/fixtures/profile/trace_small.json",
             root ? root : ".");
    mb__profile_opts o = {0};
    o.no_peak = 1;
    o.skip = 1;
    mb__profile_result r;
    mb_err err = {0};
    if (mb__profile_trace_file(path, &o, &r, &err)) {
        printf("# %s\n", err.msg);
        return NULL;
    }
    json_t *doc = r.doc;
    r.doc = NULL;
    mb__profile_result_free(&r);
    return doc;
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; s && *s; s++)
        n += *s == '\n';
    return n;
}

static void a_saved_trace_becomes_a_profile_document(void)
{
    json_t *doc = fixture_doc();
    EXPECT(doc != NULL);
    EXPECT_STR(json_string_value(json_object_get(doc, "kind")), "profile");
    EXPECT_STR(json_string_value(json_object_get(doc, "schema")),
               "mbench.result/1");
    const json_t *p = json_object_get(
        json_array_get(json_object_get(doc, "runs"), 0), "profile");
    EXPECT_EQ_INT((int)json_array_size(json_object_get(p, "op_types")), 3);
    EXPECT(json_object_get(p, "reconcile") != NULL);
    json_decref(doc);
}

static void csv_has_a_header_and_one_row_per_op_type(void)
{
    json_t *doc = fixture_doc();
    mb__buf b = MB_BUF_INIT;
    mb__report_csv(doc, 1, &b);
    EXPECT_EQ_INT((int)count_lines(b.data), 1 + 3);
    EXPECT(strncmp(b.data, "model,variant,batch_size,op_type,", 33) == 0);
    /* Conv: 45 us per run, 41% of the 110 us run */
    EXPECT_CONTAINS(b.data, ",Conv,1.000,0.045000,0.090000,");
    EXPECT_CONTAINS(b.data, ",0.409091,36864,");
    mb__buf nohead = MB_BUF_INIT;
    mb__report_csv(doc, 0, &nohead);
    EXPECT_EQ_INT((int)count_lines(nohead.data), 3);
    mb__buf_free(&b);
    mb__buf_free(&nohead);
    json_decref(doc);
}

static void markdown_shows_the_tables_and_escapes_names(void)
{
    json_t *doc = fixture_doc();
    json_t *run = json_array_get(json_object_get(doc, "runs"), 0);
    json_object_set_new(run, "variant", json_string("a|b<i>"));
    mb__buf b = MB_BUF_INIT;
    mb_err err = {0};
    const json_t *docs[1] = {doc};
    EXPECT_EQ_INT(mb__report_md(docs, 1, &b, &err), MB_OK);
    EXPECT_CONTAINS(b.data, "## mbench profile: a\\|b&lt;i&gt;");
    EXPECT_CONTAINS(b.data, "### By operator type");
    EXPECT_CONTAINS(b.data, "| Conv | 1.0 | 0.045 | 0.090 | 45.0 | 45.0 | "
                            "40.9% |");
    EXPECT_CONTAINS(b.data, "### Reconciliation");
    EXPECT_CONTAINS(b.data, "not measured");
    EXPECT(strstr(b.data, "a|b<i>") == NULL);
    mb__buf_free(&b);
    json_decref(doc);
}

static void html_is_the_script_free_per_operator_page(void)
{
    json_t *doc = fixture_doc();
    json_t *run = json_array_get(json_object_get(doc, "runs"), 0);
    json_object_set_new(run, "variant", json_string("<script>x"));
    mb__buf b = MB_BUF_INIT;
    mb_err err = {0};
    const json_t *docs[1] = {doc};
    EXPECT_EQ_INT(mb__report_html(docs, 1, &b, &err), MB_OK);
    EXPECT(strstr(b.data, "<script") == NULL);
    EXPECT_CONTAINS(b.data, "&lt;script&gt;x");
    EXPECT_CONTAINS(b.data, "<h2>By operator type</h2>");
    EXPECT_CONTAINS(b.data, "<td>Gemm</td>");
    EXPECT_CONTAINS(b.data, "<svg");
    mb__buf_free(&b);
    json_decref(doc);
}

/* Saves doc as NAME.json in the temp directory; the path into path. */
static void save(const json_t *doc, const char *name, char *path, size_t n)
{
    snprintf(path, n, "%s/%s.json", tmpdir, name);
    json_dump_file(doc, path, 0);
}

static void a_comparison_renders_in_every_format(void)
{
    json_t *a = fixture_doc(), *b = fixture_doc();
    char pa[1024], pb[1024];
    save(a, "a", pa, sizeof pa);
    save(b, "b", pb, sizeof pb);
    const char *models[2] = {pa, pb};
    mb__plan plan;
    mb__plan_defaults(&plan);
    mb__profile_opts o = {0};
    mb__profile_result r;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__profile_run(&plan, models, 2, NULL, &o, &r, &err), MB_OK);
    json_t *doc = r.doc;
    EXPECT(json_object_get(doc, "profile_comparison") != NULL);
    EXPECT_EQ_INT((int)json_array_size(json_object_get(doc, "runs")), 2);
    const json_t *docs[1] = {doc};
    mb__buf md = MB_BUF_INIT, csv = MB_BUF_INIT, html = MB_BUF_INIT;
    EXPECT_EQ_INT(mb__report_md(docs, 1, &md, &err), MB_OK);
    EXPECT_CONTAINS(md.data, "### Comparison");
    EXPECT_CONTAINS(md.data, "| Conv | 0.045 | 0.045 | +0.000 |");
    mb__report_csv(doc, 1, &csv);
    EXPECT(strncmp(csv.data, "a,b,op_type,a_ms,b_ms,delta_ms,", 31) == 0);
    /* three op types and the framework overhead row */
    EXPECT_EQ_INT((int)count_lines(csv.data), 1 + 4);
    EXPECT_EQ_INT(mb__report_html(docs, 1, &html, &err), MB_OK);
    EXPECT_CONTAINS(html.data, "Where the change comes from");
    EXPECT(strstr(html.data, "<script") == NULL);
    mb__buf_free(&md);
    mb__buf_free(&csv);
    mb__buf_free(&html);
    mb__profile_result_free(&r);
    mb__plan_free(&plan);
    json_decref(a);
    json_decref(b);
}

static void the_store_accepts_a_profile_document(void)
{
    json_t *doc = fixture_doc();
    char path[1024];
    snprintf(path, sizeof path, "%s/store.db", tmpdir);
    mb__store *st = NULL;
    mb_err err = {0};
    int64_t docs = 0, runs = 0;
    EXPECT_EQ_INT(mb__store_open(path, &st, &err), MB_OK);
    EXPECT_EQ_INT(mb__store_put(st, doc, NULL, &err), MB_OK);
    EXPECT_EQ_INT(mb__store_count(st, "documents", &docs, &err), MB_OK);
    EXPECT_EQ_INT(mb__store_count(st, "runs", &runs, &err), MB_OK);
    EXPECT_EQ_INT((int)docs, 1);
    EXPECT_EQ_INT((int)runs, 1);
    mb__store_close(st);
    json_decref(doc);
}

static void the_engine_names_a_request_it_cannot_serve(void)
{
    mb__plan plan;
    mb__plan_defaults(&plan);
    mb__profile_opts o = {0};
    mb__profile_result r;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__profile_run(&plan, NULL, 0, NULL, &o, &r, &err),
                  MB_EINVAL);
    EXPECT_CONTAINS(err.msg, "one model, or two to compare");
    o.no_timing = o.no_counters = o.no_peak = 1;
    const char *models[1] = {"none"};
    mb__plan_set_opt(&plan, "delay", "1000");
    free(plan.backend);
    plan.backend = strdup("null");
    plan.fixed_iters = 2;
    /* the null backend takes no profile=PREFIX option */
    EXPECT_EQ_INT(mb__profile_run(&plan, models, 1, NULL, &o, &r, &err),
                  MB_EINVAL);
    EXPECT_CONTAINS(err.msg, "profiling needs a backend that takes "
                             "profile=PREFIX (ort, openvino): the null "
                             "backend has no option 'profile'");
    EXPECT(r.doc == NULL);
    mb__plan_free(&plan);
}

static void the_public_call_takes_the_profile_keys_and_names_errors(void)
{
    mb_runner *r = mb_runner_new();
    mb_err err = {0};
    char *json = (char *)"unchanged";
    EXPECT_EQ_INT(mb_runner_set(r, "no-peak", "2", &err), MB_EINVAL);
    EXPECT_CONTAINS(err.msg, "invalid value '2' for no-peak: expected 0 or 1");
    EXPECT_EQ_INT(mb_runner_set(r, "no-timing", "1", &err), MB_OK);
    EXPECT_EQ_INT(mb_runner_set(r, "no-counters", "1", &err), MB_OK);
    EXPECT_EQ_INT(mb_runner_set(r, "no-peak", "1", &err), MB_OK);
    EXPECT_EQ_INT(mb_runner_set(r, "backend", "null", &err), MB_OK);
    EXPECT_EQ_INT(mb_runner_profile(r, "none", &json, &err), MB_EINVAL);
    EXPECT(json == NULL);
    EXPECT_CONTAINS(err.msg, "profiling needs a backend that takes");
    mb_runner_free(r);
}

int main(void)
{
    const char *base = getenv("MBENCH_TEST_TMP");
    snprintf(tmpdir, sizeof tmpdir, "%s/proftab.XXXXXX", base ? base : "/tmp");
    if (!mkdtemp(tmpdir))
        return 1;
    RUN(a_saved_trace_becomes_a_profile_document);
    RUN(csv_has_a_header_and_one_row_per_op_type);
    RUN(markdown_shows_the_tables_and_escapes_names);
    RUN(html_is_the_script_free_per_operator_page);
    RUN(a_comparison_renders_in_every_format);
    RUN(the_store_accepts_a_profile_document);
    RUN(the_engine_names_a_request_it_cannot_serve);
    RUN(the_public_call_takes_the_profile_keys_and_names_errors);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", tmpdir);
    return T_DONE();
}
