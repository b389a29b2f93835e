/* test_pairci.c - Tango's paired score interval (core/pairci.h) against
 * values computed independently (tests/fixtures/stats/tango_ref.py, scipy
 * root finding on the paper's formula), its closed forms, and its
 * coverage by a seeded simulation. */
#include "core/pairci.h"
#include "core/rng.h"
#include "t.h"

#include <stdlib.h>

static mb__pair_counts table(size_t b_only, size_t a_only, size_t n)
{
    return (mb__pair_counts){n, n - b_only - a_only, a_only, b_only, 0};
}

static void the_interval_matches_the_reference_implementation(void)
{
    /* b_only a_only n -> lo hi from tango_ref.py ci */
    static const struct {
        size_t b, a, n;
        double lo, hi;
    } ref[] = {
        {3, 1, 50, -0.0544250069876, 0.146146265067},
        {40, 20, 160, 0.0308645331331, 0.218064244167},
        {2, 19, 10000, -0.00278672470615, -0.000899455471314},
        {7, 1, 21, 0.0260030324809, 0.517232276421},
        {1, 7, 21, -0.517232276421, -0.0260030324809},
        {30, 0, 30, 0.772973213652, 1},
    };
    for (size_t i = 0; i < sizeof ref / sizeof ref[0]; i++) {
        mb__pair_counts t = table(ref[i].b, ref[i].a, ref[i].n);
        double lo, hi;
        EXPECT(mb__tango_ci(&t, 0.95, &lo, &hi));
        EXPECT_NEAR(lo, ref[i].lo, 1e-9);
        EXPECT_NEAR(hi, ref[i].hi, 1e-9);
    }
}

static void models_that_agree_everywhere_get_z2_over_n_plus_z2(void)
{
    /* no discordant sample: the bounds solve n d / (1 - d) = z^2 */
    double z = 1.959963984540054;
    size_t ns[] = {64, 360, 1000, 10000};
    for (size_t i = 0; i < 4; i++) {
        mb__pair_counts t = table(0, 0, ns[i]);
        double lo, hi, w = z * z / ((double)ns[i] + z * z);
        EXPECT(mb__tango_ci(&t, 0.95, &lo, &hi));
        EXPECT_NEAR(hi, w, 1e-12);
        EXPECT_NEAR(lo, -w, 1e-12);
    }
}

static void at_zero_the_statistic_is_mcnemars(void)
{
    mb__pair_counts t = table(30, 12, 500);
    EXPECT_NEAR(mb__tango_stat(&t, 0), (30.0 - 12.0) / sqrt(42.0), 1e-12);
}

static void counting_the_table(void)
{
    uint8_t a[] = {1, 1, 0, 0, 1}, b[] = {1, 0, 1, 0, 1};
    mb__pair_counts t;
    mb__pair_count(a, b, 5, &t);
    EXPECT_EQ_INT(t.n, 5);
    EXPECT_EQ_INT(t.both, 2);
    EXPECT_EQ_INT(t.a_only, 1);
    EXPECT_EQ_INT(t.b_only, 1);
    EXPECT_EQ_INT(t.neither, 1);
    double lo, hi;
    mb__pair_counts empty = {0};
    EXPECT(!mb__tango_ci(&empty, 0.95, &lo, &hi));
    EXPECT(isnan(lo) && isnan(hi));
}

/* Coverage by simulation: samples drawn i.i.d. from a paired population
 * (probabilities of "candidate right only" and "baseline right only");
 * the 95% interval must cover the true difference 93-97% of 2000 times
 * (the band is 3 binomial standard errors). */
static void coverage_is_near_95_percent(void)
{
    static const struct {
        size_t n;
        double pb, pa;
    } cases[] = {{200, 0.02, 0.02}, {1000, 0.01, 0.03}, {500, 0.05, 0.02}};
    mb__rng rng;
    mb__rng_seed(&rng, 7);
    for (size_t c = 0; c < 3; c++) {
        size_t covered = 0, reps = 2000;
        double truth = cases[c].pb - cases[c].pa;
        for (size_t r = 0; r < reps; r++) {
            size_t b = 0, a = 0;
            for (size_t i = 0; i < cases[c].n; i++) {
                double u = mb__rng_uniform(&rng);
                b += u < cases[c].pb;
                a += u >= cases[c].pb && u < cases[c].pb + cases[c].pa;
            }
            mb__pair_counts t = table(b, a, cases[c].n);
            double lo, hi;
            mb__tango_ci(&t, 0.95, &lo, &hi);
            covered += lo <= truth && truth <= hi;
        }
        double cov = (double)covered / (double)reps;
        printf("# n %zu, p(b only) %.2f, p(a only) %.2f: coverage %.4f\n",
               cases[c].n, cases[c].pb, cases[c].pa, cov);
        EXPECT(cov > 0.93 && cov < 0.97);
    }
}

int main(void)
{
    RUN(the_interval_matches_the_reference_implementation);
    RUN(models_that_agree_everywhere_get_z2_over_n_plus_z2);
    RUN(at_zero_the_statistic_is_mcnemars);
    RUN(counting_the_table);
    RUN(coverage_is_near_95_percent);
    return T_DONE();
}
