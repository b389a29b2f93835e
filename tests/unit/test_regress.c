/* test_regress.c - the gate's statistical rule and change-point detection
 * on seeded synthetic samples. */
#include "t.h"

#include "core/rng.h"
#include "regress/changepoint.h"
#include "regress/regress.h"

#include <jansson.h>
#include <stdlib.h>

/* Per-process medians of k processes: each at median * exp(sd * N). */
static void procs(double *x, size_t k, double median, double sd, uint64_t seed)
{
    mb__rng r;
    mb__rng_seed(&r, seed);
    for (size_t i = 0; i < k; i++)
        x[i] = median * exp(sd * mb__rng_normal(&r));
}

static mb__verdict judge(double *a, size_t ka, double *b, size_t kb, json_t **j)
{
    mb__regress_opts o;
    mb__regress_defaults(&o);
    return mb__regress_replicates("p50", a, ka, b, kb, 0.05, 0, &o, j);
}

static void same_level_passes(void)
{
    double a[10], b[10];
    procs(a, 10, 1e6, 0.01, 1);
    procs(b, 10, 1e6, 0.01, 2);
    json_t *j;
    EXPECT_EQ_INT(judge(a, 10, b, 10, &j), MB_VERDICT_PASS);
    json_decref(j);
}

static void slowdown_beyond_threshold_is_a_regression(void)
{
    double a[10], b[10];
    procs(a, 10, 1e6, 0.01, 1);
    procs(b, 10, 1.2e6, 0.01, 2);
    json_t *j;
    EXPECT_EQ_INT(judge(a, 10, b, 10, &j), MB_VERDICT_REGRESSION);
    EXPECT(json_number_value(json_array_get(json_object_get(j, "ci95"), 0)) >
           1.05);
    EXPECT_STR(json_string_value(json_object_get(j, "unit")), "process");
    json_decref(j);
}

static void speedup_beyond_threshold_is_an_improvement(void)
{
    double a[10], b[10];
    procs(a, 10, 1e6, 0.01, 1);
    procs(b, 10, 0.8e6, 0.01, 2);
    json_t *j;
    EXPECT_EQ_INT(judge(a, 10, b, 10, &j), MB_VERDICT_IMPROVEMENT);
    json_decref(j);
}

static void noisy_processes_near_the_threshold_are_inconclusive(void)
{
    double a[10], b[10];
    procs(a, 10, 1e6, 0.2, 1);
    procs(b, 10, 1.05e6, 0.2, 2);
    json_t *j;
    EXPECT_EQ_INT(judge(a, 10, b, 10, &j), MB_VERDICT_INCONCLUSIVE);
    EXPECT(json_integer_value(json_object_get(j, "processes_needed")) > 10);
    json_decref(j);
}

static void one_process_per_side_cannot_decide(void)
{
    double a[1] = {1e6}, b[1] = {3e6};
    json_t *j;
    EXPECT_EQ_INT(judge(a, 1, b, 1, &j), MB_VERDICT_INCONCLUSIVE);
    EXPECT_CONTAINS(json_string_value(json_object_get(j, "reason")),
                    "within-run noise only");
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
    EXPECT(o.threshold[MB_GM_P99] <
           0); /* opt-in: the tail follows the machine */
    EXPECT_NEAR(o.threshold[MB_GM_SIZE], 0.01, 1e-12);
    EXPECT_EQ_INT(mb__regress_parse_thresholds("p50=5", &o, &err), MB_EINVAL);
    EXPECT_CONTAINS(err.msg, "p50=5%");
}

static void a_step_is_found_where_it_is(void)
{
    double x[20];
    mb__rng r;
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
    mb__rng r;
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
    RUN(same_level_passes);
    RUN(slowdown_beyond_threshold_is_a_regression);
    RUN(speedup_beyond_threshold_is_an_improvement);
    RUN(noisy_processes_near_the_threshold_are_inconclusive);
    RUN(one_process_per_side_cannot_decide);
    RUN(thresholds_parse_and_keep_defaults);
    RUN(a_step_is_found_where_it_is);
    RUN(noise_and_one_outlier_give_no_change_point);
    return T_DONE();
}
