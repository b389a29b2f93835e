/* test_require.c - parsing and judging --require expressions
 * (src/regress/require.c) on small hand-written result documents. */
#include "regress/require.h"
#include "t.h"

#include <jansson.h>
#include <stdlib.h>

static mb_status parse(const char *text, mb__require *r, mb_err *err)
{
    memset(err, 0, sizeof *err);
    return mb__require_parse(text, r, err);
}

static void units_scale_values_to_the_figures_unit(void)
{
    mb__require r;
    mb_err e;
    EXPECT_EQ_INT(parse("rss_peak<2GiB", &r, &e), MB_OK);
    EXPECT_NEAR(r.value, 2.0 * 1073741824.0, 0);
    EXPECT_EQ_INT(r.op, MB_REQ_LT);
    mb__require_free(&r);
    EXPECT_EQ_INT(parse("p99 <= 12.5ms", &r, &e), MB_OK);
    EXPECT_NEAR(r.value, 12.5e6, 1e-6);
    mb__require_free(&r);
    EXPECT_EQ_INT(parse("metric.cache_hit_rate>=80%", &r, &e), MB_OK);
    EXPECT_NEAR(r.value, 0.8, 1e-12);
    EXPECT_STR(r.figure, "metric.cache_hit_rate");
    mb__require_free(&r);
    EXPECT_EQ_INT(parse("psnr_delta>-1", &r, &e), MB_OK);
    EXPECT_NEAR(r.value, -1, 0);
    EXPECT_EQ_INT(r.op, MB_REQ_GT);
    mb__require_free(&r);
    EXPECT_EQ_INT(parse("leak=no", &r, &e), MB_OK);
    EXPECT_EQ_INT(r.kind, MB_RK_BOOL);
    EXPECT_NEAR(r.value, 0, 0);
    mb__require_free(&r);
    EXPECT_EQ_INT(parse("int8*:speedup>=2", &r, &e), MB_OK);
    EXPECT_STR(r.scope, "int8*");
    EXPECT_STR(r.figure, "speedup");
    mb__require_free(&r);
}

static void bad_expressions_are_one_line_errors_naming_the_fix(void)
{
    mb__require r;
    mb_err e;
    EXPECT_EQ_INT(parse("p99<3", &r, &e), MB_EINVAL);
    EXPECT_CONTAINS(e.msg, "p99 takes a unit");
    EXPECT_EQ_INT(parse("rss_peak<2ms", &r, &e), MB_EINVAL);
    EXPECT_CONTAINS(e.msg, "unit 'ms' does not fit rss_peak");
    EXPECT_EQ_INT(parse("leak>=1", &r, &e), MB_EINVAL);
    EXPECT_CONTAINS(e.msg, "leak is yes or no");
    EXPECT_EQ_INT(parse("speedup 3", &r, &e), MB_EINVAL);
    EXPECT_CONTAINS(e.msg, "expected a comparison");
    EXPECT_EQ_INT(parse("speedup>=fast", &r, &e), MB_EINVAL);
    EXPECT_CONTAINS(e.msg, "expected a number");
    EXPECT_EQ_INT(parse("speedup>=3 extra", &r, &e), MB_EINVAL);
    EXPECT_CONTAINS(e.msg, "unit 'extra' does not fit speedup");
    EXPECT_EQ_INT(parse("phase..x>=3ms", &r, &e),
                  MB_OK); /* a phase named ".x" */
    mb__require_free(&r);
    EXPECT_EQ_INT(parse("loop.infer.p42<3ms", &r, &e), MB_EINVAL);
    EXPECT_CONTAINS(e.msg, "is not a figure");
    EXPECT_EQ_INT(parse("", &r, &e), MB_EINVAL);
    EXPECT_EQ_INT(parse("speedup>=inf", &r, &e), MB_EINVAL);
    EXPECT(strchr(e.msg, '\n') == NULL);
}

/* A compare-like document: baseline a, variant b with a speedup CI. */
static json_t *doc_with_speedup(double v, double lo, double hi)
{
    return json_pack(
        "{s:[{s:s,s:s,s:{s:I}},{s:s,s:s,s:{s:I}}],s:{s:s,s:[{s:s,s:b,s:s},"
        "{s:s,s:b,s:s,s:{s:f,s:[f,f]},s:f}]}}",
        "runs", "variant", "a", "status", "ok", "memory", "rss_peak_bytes",
        (json_int_t)1000, "variant", "b", "status", "ok", "memory",
        "rss_peak_bytes", (json_int_t)3000, "comparison", "baseline", "a",
        "variants", "name", "a", "baseline", 1, "status", "ok", "name", "b",
        "baseline", 0, "status", "ok", "speedup_median", "value", v, "ci95", lo,
        hi, "size_ratio", 0.25);
}

static json_t *judge(const json_t *doc, const char *text, size_t *unmet,
                     mb_status *st, mb_err *e)
{
    mb__require r;
    memset(e, 0, sizeof *e);
    if (mb__require_parse(text, &r, e) != MB_OK)
        return NULL;
    json_t *out = NULL;
    *st = mb__require_judge(doc, &r, 1, &out, unmet, e);
    mb__require_free(&r);
    return out;
}

static void a_speedup_passes_only_when_the_whole_ci_supports_it(void)
{
    json_t *d = doc_with_speedup(3.4, 2.8, 4.0);
    size_t unmet = 0;
    mb_status st;
    mb_err e;
    json_t *out = judge(d, "speedup>=3", &unmet, &st, &e);
    EXPECT_EQ_INT(st, MB_OK);
    EXPECT_EQ_INT(unmet, 1);
    const json_t *res =
        json_array_get(json_object_get(json_array_get(out, 0), "results"), 0);
    EXPECT_STR(json_string_value(json_object_get(res, "variant")), "b");
    EXPECT(json_is_false(json_object_get(res, "passed")));
    EXPECT_CONTAINS(json_string_value(json_object_get(res, "verdict")),
                    "the estimate is >= 3 but the CI's lower bound 2.8 is not");
    json_decref(out);
    out = judge(d, "speedup>=2.5", &unmet, &st, &e);
    EXPECT_EQ_INT(unmet, 0);
    res = json_array_get(json_object_get(json_array_get(out, 0), "results"), 0);
    EXPECT_CONTAINS(json_string_value(json_object_get(res, "verdict")),
                    "the whole CI is >= 2.5");
    /* the baseline has no speedup of its own and is not listed */
    EXPECT_EQ_INT(
        json_array_size(json_object_get(json_array_get(out, 0), "results")), 1);
    json_decref(out);
    out = judge(d, "speedup<=4.5", &unmet, &st, &e);
    EXPECT_EQ_INT(unmet, 0);
    json_decref(out);
    out = judge(d, "speedup<=3.5", &unmet, &st, &e); /* upper bound 4.0 */
    EXPECT_EQ_INT(unmet, 1);
    json_decref(out);
    json_decref(d);
}

static void figures_without_ci_deltas_and_every_variant_are_judged(void)
{
    json_t *d = doc_with_speedup(3.4, 2.8, 4.0);
    size_t unmet = 0;
    mb_status st;
    mb_err e;
    json_t *out = judge(d, "rss_peak<2KiB", &unmet, &st, &e);
    EXPECT_EQ_INT(unmet, 1); /* b: 3000 B */
    const json_t *rs = json_object_get(json_array_get(out, 0), "results");
    EXPECT_EQ_INT(json_array_size(rs), 2);
    EXPECT(json_is_true(json_object_get(json_array_get(rs, 0), "passed")));
    EXPECT(json_is_false(json_object_get(json_array_get(rs, 1), "passed")));
    EXPECT_CONTAINS(
        json_string_value(json_object_get(json_array_get(rs, 1), "verdict")),
        "no CI");
    json_decref(out);
    out = judge(d, "rss_peak_delta<=2000", &unmet, &st, &e);
    EXPECT_EQ_INT(unmet, 0);
    EXPECT_NEAR(json_number_value(json_object_get(
                    json_array_get(
                        json_object_get(json_array_get(out, 0), "results"), 0),
                    "value")),
                2000, 0);
    json_decref(out);
    out = judge(d, "a:rss_peak<2KiB", &unmet, &st, &e);
    EXPECT_EQ_INT(unmet, 0);
    json_decref(out);
    out = judge(d, "size_ratio<=0.5", &unmet, &st, &e);
    EXPECT_EQ_INT(unmet, 0);
    json_decref(out);
    json_decref(d);
}

static void a_figure_missing_from_the_document_names_those_it_has(void)
{
    json_t *d = doc_with_speedup(3.4, 2.8, 4.0);
    size_t unmet = 0;
    mb_status st = MB_OK;
    mb_err e;
    json_t *out = judge(d, "leak=no", &unmet, &st, &e);
    EXPECT_EQ_INT(st, MB_EINVAL);
    EXPECT(out == NULL);
    EXPECT_CONTAINS(e.msg, "no figure 'leak' (measure with --leak-check)");
    EXPECT_CONTAINS(e.msg, "it has: rss_peak");
    EXPECT_CONTAINS(e.msg, "size_ratio");
    json_decref(d);
}

static void a_failed_variant_does_not_meet_a_requirement(void)
{
    json_t *d = doc_with_speedup(3.4, 2.8, 4.0);
    json_object_set_new(json_array_get(json_object_get(d, "runs"), 1), "status",
                        json_string("failed"));
    json_object_del(json_array_get(json_object_get(d, "runs"), 1), "memory");
    size_t unmet = 0;
    mb_status st;
    mb_err e;
    json_t *out = judge(d, "rss_peak<2GiB", &unmet, &st, &e);
    EXPECT_EQ_INT(unmet, 1);
    const json_t *rs = json_object_get(json_array_get(out, 0), "results");
    EXPECT_CONTAINS(
        json_string_value(json_object_get(json_array_get(rs, 1), "verdict")),
        "the run is failed");
    json_decref(out);
    json_decref(d);
}

int main(void)
{
    RUN(units_scale_values_to_the_figures_unit);
    RUN(bad_expressions_are_one_line_errors_naming_the_fix);
    RUN(a_speedup_passes_only_when_the_whole_ci_supports_it);
    RUN(figures_without_ci_deltas_and_every_variant_are_judged);
    RUN(a_figure_missing_from_the_document_names_those_it_has);
    RUN(a_failed_variant_does_not_meet_a_requirement);
    return T_DONE();
}
