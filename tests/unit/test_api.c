/* test_api.c - the public runner API: a run on the null backend (no
 * runtime needed), option validation, and the document it returns. */
#include "t.h"

#include "mbench.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static void a_null_backend_run_returns_a_result_document(void)
{
    mb_runner *r = mb_runner_new();
    mb_err e = {0};
    EXPECT(r != NULL);
    EXPECT_EQ_INT(mb_runner_set(r, "backend", "null", &e), MB_OK);
    EXPECT_EQ_INT(mb_runner_set(r, "batch", "1,4", &e), MB_OK);
    EXPECT_EQ_INT(mb_runner_set(r, "iterations", "50", &e), MB_OK);
    EXPECT_EQ_INT(mb_runner_set(r, "save-samples", "1", &e), MB_OK);
    char *json = NULL;
    EXPECT_EQ_INT(mb_runner_run(r, "none", &json, &e), MB_OK);
    json_error_t je;
    json_t *doc = json ? json_loads(json, 0, &je) : NULL;
    EXPECT(doc != NULL);
    EXPECT_STR(json_string_value(json_object_get(doc, "schema")),
               "mbench.result/1");
    json_t *runs = json_object_get(doc, "runs");
    EXPECT_EQ_INT(json_array_size(runs), 2);
    json_t *r1 = json_array_get(runs, 1);
    EXPECT_EQ_INT(json_integer_value(json_object_get(r1, "batch_size")), 4);
    EXPECT_EQ_INT(json_integer_value(json_object_get(r1, "iterations")), 50);
    EXPECT_EQ_INT(json_array_size(json_object_get(r1, "samples_ns")), 50);
    json_decref(doc);
    free(json);
    mb_runner_free(r);
}

static void bad_values_are_rejected_with_the_key_named(void)
{
    mb_runner *r = mb_runner_new();
    mb_err e = {0};
    EXPECT_EQ_INT(mb_runner_set(r, "batch", "0", &e), MB_EINVAL);
    EXPECT_CONTAINS(e.msg, "batch");
    EXPECT_EQ_INT(mb_runner_set(r, "max-time", "soon", &e), MB_EINVAL);
    EXPECT_CONTAINS(e.msg, "max-time");
    EXPECT_EQ_INT(mb_runner_set(r, "input-range", "ids=9:1", &e), MB_EINVAL);
    mb_runner_free(r);
    mb_runner_free(NULL);
}

static void an_unknown_backend_option_fails_at_open(void)
{
    mb_runner *r = mb_runner_new();
    mb_err e = {0};
    mb_runner_set(r, "backend", "null", &e);
    EXPECT_EQ_INT(mb_runner_set(r, "warp-speed", "9", &e), MB_OK);
    char *json = NULL;
    EXPECT_EQ_INT(mb_runner_run(r, "none", &json, &e), MB_EINVAL);
    EXPECT_CONTAINS(e.msg, "warp-speed");
    EXPECT(json == NULL);
    mb_runner_free(r);
}

static void a_compare_through_the_api_judges_a_slower_variant(void)
{
    mb_runner *r = mb_runner_new();
    mb_err e = {0};
    EXPECT_EQ_INT(mb_runner_set(r, "backend", "null", &e), MB_OK);
    EXPECT_EQ_INT(mb_runner_set(r, "processes", "4", &e), MB_OK);
    EXPECT_EQ_INT(mb_runner_set(r, "iterations", "200", &e), MB_OK);
    const char *v[] = {"fast=none,delay=20000", "slow=none,delay=40000"};
    char *json = NULL;
    EXPECT_EQ_INT(mb_runner_compare(r, v, 2, &json, &e), MB_OK);
    json_t *doc = json ? json_loads(json, 0, NULL) : NULL;
    EXPECT(doc != NULL);
    json_t *s = json_object_get(
        json_array_get(
            json_object_get(json_object_get(doc, "comparison"), "variants"), 1),
        "speedup_median");
    double sp = json_number_value(json_object_get(s, "value"));
    EXPECT(sp > 0.4 && sp < 0.6);
    EXPECT_EQ_INT(json_integer_value(json_object_get(s, "replicates")), 4);
    json_decref(doc);
    free(json);
    const char *bad[] = {"oops", "b=none"};
    EXPECT_EQ_INT(mb_runner_compare(r, bad, 2, &json, &e), MB_EINVAL);
    EXPECT_CONTAINS(e.msg, "NAME=MODEL");
    mb_runner_free(r);
}

/* mb_render: a run's document as each format the CLI writes, by the same
 * writers; bad documents and formats are refused with nothing handed out. */
static void a_document_renders_as_every_format(void)
{
    mb_runner *r = mb_runner_new();
    mb_err e = {0};
    EXPECT_EQ_INT(mb_runner_set(r, "backend", "null", &e), MB_OK);
    EXPECT_EQ_INT(mb_runner_set(r, "iterations", "20", &e), MB_OK);
    char *json = NULL, *out = NULL;
    EXPECT_EQ_INT(mb_runner_run(r, "tiny<&>", &json, &e), MB_OK);
    EXPECT_EQ_INT(mb_render(json, "md", &out, &e), MB_OK);
    EXPECT(out && out[0] == '#');
    EXPECT_CONTAINS(out, "tiny");
    free(out);
    EXPECT_EQ_INT(mb_render(json, "html", &out, &e), MB_OK);
    EXPECT_CONTAINS(out, "<!DOCTYPE html>");
    EXPECT_CONTAINS(out, "tiny&lt;&amp;&gt;");
    free(out);
    EXPECT_EQ_INT(mb_render(json, "csv", &out, &e), MB_OK);
    EXPECT(out && strncmp(out, "framework,model,", 16) == 0);
    EXPECT_CONTAINS(out, ",tiny<&>,");
    free(out);
    EXPECT_EQ_INT(mb_render(json, "json", &out, &e), MB_OK);
    json_error_t je;
    json_t *back = out ? json_loads(out, 0, &je) : NULL;
    EXPECT(json_is_object(back));
    json_decref(back);
    free(out);
    out = (char *)1;
    EXPECT_EQ_INT(mb_render(json, "pdf", &out, &e), MB_EINVAL);
    EXPECT(out == NULL);
    EXPECT_CONTAINS(e.msg, "md, html, csv or json");
    EXPECT_EQ_INT(mb_render("[1,2]", "md", &out, &e), MB_EINVAL);
    EXPECT_EQ_INT(mb_render("{\"runs\": [", "md", &out, &e), MB_EINVAL);
    EXPECT(out == NULL);
    EXPECT_EQ_INT(mb_render(NULL, "md", &out, NULL), MB_EINVAL);
    free(json);
    mb_runner_free(r);
}

int main(void)
{
    RUN(a_null_backend_run_returns_a_result_document);
    RUN(bad_values_are_rejected_with_the_key_named);
    RUN(an_unknown_backend_option_fails_at_open);
    RUN(a_compare_through_the_api_judges_a_slower_variant);
    RUN(a_document_renders_as_every_format);
    return T_DONE();
}
