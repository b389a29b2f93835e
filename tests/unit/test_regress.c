/* test_regress.c - the gate's statistical rule and change-point detection
 * on seeded synthetic samples. */
#include "t.h"

#include "core/rng.h"
#include "regress/changepoint.h"
#include "regress/regress.h"

#include <jansson.h>
#include <stdlib.h>

static void fill(double *x, size_t n, double median, double spread,
                 uint64_t seed)
{
    mb_rng r;
    mb__rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++)
        x[i] = median * (1 + spread * fabs(mb__rng_normal(&r)));
}

static mb__verdict judge(double *a, size_t na, double *b, size_t nb, double q,
                         json_t **j)
{
    mb__regress_opts o;
    mb__regress_defaults(&o);
    mb_rng r;
    mb__rng_seed(&r, 7);
    return mb__regress_samples("p50", a, na, b, nb, q, 0.05, 0, &o, &r, j);
}

static void same_distribution_passes(void)
{
    double a[300], b[300];
    fill(a, 300, 1e6, 0.02, 1);
    fill(b, 300, 1e6, 0.02, 2);
    json_t *j;
    EXPECT_EQ_INT(judge(a, 300, b, 300, 50, &j), MB_VERDICT_PASS);
    json_decref(j);
}

static void slowdown_beyond_threshold_is_a_regression(void)
{
    double a[300], b[300];
    fill(a, 300, 1e6, 0.02, 1);
    fill(b, 300, 1.2e6, 0.02, 2);
    json_t *j;
    EXPECT_EQ_INT(judge(a, 300, b, 300, 50, &j), MB_VERDICT_REGRESSION);
    EXPECT(json_number_value(json_array_get(json_object_get(j, "ci95"), 0)) >
           1.05);
    json_decref(j);
}

static void speedup_beyond_threshold_is_an_improvement(void)
{
    double a[300], b[300];
    fill(a, 300, 1e6, 0.02, 1);
    fill(b, 300, 0.8e6, 0.02, 2);
    json_t *j;
    EXPECT_EQ_INT(judge(a, 300, b, 300, 50, &j), MB_VERDICT_IMPROVEMENT);
    json_decref(j);
}

static void change_near_threshold_is_inconclusive(void)
{
    double a[300], b[300];
    fill(a, 300, 1e6, 0.5, 1);
    fill(b, 300, 1.05e6, 0.5, 2);
    json_t *j;
    EXPECT_EQ_INT(judge(a, 300, b, 300, 50, &j), MB_VERDICT_INCONCLUSIVE);
    json_decref(j);
}

static void too_few_samples_are_inconclusive(void)
{
    double a[19], b[300];
    fill(a, 19, 1e6, 0.02, 1);
    fill(b, 300, 3e6, 0.02, 2);
    json_t *j;
    EXPECT_EQ_INT(judge(a, 19, b, 300, 50, &j), MB_VERDICT_INCONCLUSIVE);
    EXPECT_CONTAINS(json_string_value(json_object_get(j, "reason")), "too few");
    json_decref(j);
}

static void p99_needs_two_hundred_samples(void)
{
    double a[199], b[199];
    fill(a, 199, 1e6, 0.02, 1);
    fill(b, 199, 3e6, 0.02, 2);
    json_t *j;
    EXPECT_EQ_INT(judge(a, 199, b, 199, 99, &j), MB_VERDICT_INCONCLUSIVE);
    json_decref(j);
}

static void thresholds_parse_and_keep_defaults(void)
{
    mb__regress_opts o;
    mb__regress_defaults(&o);
    mb_err err = {0};
    EXPECT_EQ_INT(mb__regress_parse_thresholds("p50=2.5%,memory=off", &o, &err),
                  MB_OK);
    EXPECT_NEAR(o.threshold[MB_GM_P50], 0.025, 1e-12);
    EXPECT(o.threshold[MB_GM_MEMORY] < 0);
    EXPECT_NEAR(o.threshold[MB_GM_P99], 0.10, 1e-12);
    EXPECT_EQ_INT(mb__regress_parse_thresholds("p50=5", &o, &err), MB_EINVAL);
    EXPECT_CONTAINS(err.msg, "p50=5%");
}

static void a_step_is_found_where_it_is(void)
{
    double x[20];
    mb_rng r;
    mb__rng_seed(&r, 3);
    for (int i = 0; i < 20; i++)
        x[i] = (i < 12 ? 100 : 120) + mb__rng_normal(&r);
    mb__changepoint cp[4];
    size_t n = mb__changepoints(x, 20, MB_CP_MIN_SEGMENT, MB_CP_THRESHOLD,
                                MB_CP_MIN_REL, cp, 4);
    EXPECT_EQ_INT(n, 1);
    EXPECT_EQ_INT(cp[0].index, 12);
}

static void noise_and_one_outlier_give_no_change_point(void)
{
    double x[20];
    mb_rng r;
    mb__rng_seed(&r, 4);
    for (int i = 0; i < 20; i++)
        x[i] = 100 + 2 * mb__rng_normal(&r);
    x[9] = 200;
    mb__changepoint cp[4];
    EXPECT_EQ_INT(mb__changepoints(x, 20, MB_CP_MIN_SEGMENT, MB_CP_THRESHOLD,
                                   MB_CP_MIN_REL, cp, 4),
                  0);
}

int main(void)
{
    RUN(same_distribution_passes);
    RUN(slowdown_beyond_threshold_is_a_regression);
    RUN(speedup_beyond_threshold_is_an_improvement);
    RUN(change_near_threshold_is_inconclusive);
    RUN(too_few_samples_are_inconclusive);
    RUN(p99_needs_two_hundred_samples);
    RUN(thresholds_parse_and_keep_defaults);
    RUN(a_step_is_found_where_it_is);
    RUN(noise_and_one_outlier_give_no_change_point);
    return T_DONE();
}
