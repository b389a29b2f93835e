/* test_stats.c - statistics against hand-computed (and numpy/scipy)
 * values. */
#include "t.h"

#include "core/rng.h"
#include "core/stats.h"

static void percentiles_interpolate_linearly_like_numpy(void)
{
    double a[] = {1, 2, 3, 4};
    EXPECT_NEAR(mb__percentile_sorted(a, 4, 50), 2.5, 1e-12);
    EXPECT_NEAR(mb__percentile_sorted(a, 4, 90), 3.7, 1e-12);
    EXPECT_NEAR(mb__percentile_sorted(a, 4, 0), 1.0, 0);
    EXPECT_NEAR(mb__percentile_sorted(a, 4, 100), 4.0, 0);
    double b[] = {15, 20, 35, 40, 50}; /* np.percentile(b, 40) == 29.0 */
    EXPECT_NEAR(mb__percentile_sorted(b, 5, 40), 29.0, 1e-12);
}

static void percentile_support_needs_a_sample_beyond_it(void)
{
    EXPECT(mb__percentile_supported(100, 99));
    EXPECT(!mb__percentile_supported(100, 99.9));
    EXPECT(mb__percentile_supported(1000, 99.9));
    EXPECT(!mb__percentile_supported(10, 95));
    EXPECT(mb__percentile_supported(20, 95));
}

static void median_ci_uses_binomial_order_statistics(void)
{
    size_t lo, hi;
    /* n = 10: P(B <= 1) = 11/1024 <= 0.025 < P(B <= 2): ranks 2 and 9. */
    EXPECT(mb__median_ci_ranks(10, &lo, &hi));
    EXPECT_EQ_INT(lo, 1);
    EXPECT_EQ_INT(hi, 8);
    /* n = 100: the classic table gives ranks 40 and 61 (1-based). */
    EXPECT(mb__median_ci_ranks(100, &lo, &hi));
    EXPECT_EQ_INT(lo, 39);
    EXPECT_EQ_INT(hi, 60);
    EXPECT(!mb__median_ci_ranks(5, &lo, &hi));
}

static void summary_has_sample_std_and_counts_outliers(void)
{
    double x[] = {2, 4, 4, 4, 5, 5, 7, 9};
    mb__summary s;
    EXPECT(mb__summarize(x, 8, &s));
    EXPECT_NEAR(s.mean, 5.0, 1e-12);
    EXPECT_NEAR(s.std, 2.1380899352993950, 1e-12);
    EXPECT_NEAR(s.median, 4.5, 1e-12);
    EXPECT_NEAR(s.min, 2, 0);
    EXPECT_NEAR(s.max, 9, 0);
    double y[] = {10, 11, 10, 12, 11, 10, 11, 12, 10, 11, 100};
    EXPECT(mb__summarize(y, 11, &s));
    EXPECT_EQ_INT(s.outliers_high, 1);
    EXPECT_EQ_INT(s.outliers_low, 0);
    EXPECT_EQ_INT(s.n, 11);
}

static void outliers_are_found_even_when_mad_is_zero(void)
{
    double y[] = {5, 5, 5, 5, 5, 5, 5, 6, 5, 500};
    mb__summary s;
    EXPECT(mb__summarize(y, 10, &s));
    EXPECT_NEAR(s.mad, 0, 0);
    EXPECT_EQ_INT(s.outliers_high, 1);
}

static void mann_whitney_matches_scipy_asymptotic(void)
{
    /* scipy.stats.mannwhitneyu([1,2,3],[4,5,6], method="asymptotic")
     * -> U = 0, p = 0.08085 */
    double a[] = {1, 2, 3}, b[] = {4, 5, 6};
    mb__mwu r;
    EXPECT(mb__mann_whitney(a, 3, b, 3, &r));
    EXPECT_NEAR(r.u, 0, 0);
    EXPECT_NEAR(r.p, 0.0808556, 1e-5);
    /* identical samples: no evidence at all */
    EXPECT(mb__mann_whitney(a, 3, a, 3, &r));
    EXPECT_NEAR(r.p, 1.0, 1e-12);
}

static void mann_whitney_detects_a_real_shift(void)
{
    mb__rng g;
    mb__rng_seed(&g, 3);
    double a[200], b[200];
    for (int i = 0; i < 200; i++) {
        a[i] = 100 + mb__rng_normal(&g);
        b[i] = 101 + mb__rng_normal(&g);
    }
    mb__mwu r;
    mb__mann_whitney(a, 200, b, 200, &r);
    EXPECT(r.p < 1e-6);
    EXPECT(r.z < 0); /* a is the smaller one */
}

static void bootstrap_ratio_of_constant_samples_is_exact(void)
{
    double a[50], b[50];
    for (int i = 0; i < 50; i++) {
        a[i] = 10;
        b[i] = 20;
    }
    mb__rng g;
    mb__rng_seed(&g, 1);
    double est, lo, hi;
    EXPECT(mb__bootstrap_ratio(a, 50, b, 50, 50, 200, &g, &est, &lo, &hi));
    EXPECT_NEAR(est, 2.0, 1e-12);
    EXPECT_NEAR(lo, 2.0, 1e-12);
    EXPECT_NEAR(hi, 2.0, 1e-12);
}

static void bootstrap_ci_covers_the_true_ratio(void)
{
    mb__rng g;
    mb__rng_seed(&g, 11);
    double a[300], b[300];
    for (int i = 0; i < 300; i++) {
        a[i] = 100 * (1 + 0.05 * mb__rng_normal(&g));
        b[i] = 150 * (1 + 0.05 * mb__rng_normal(&g));
    }
    double est, lo, hi;
    mb__bootstrap_ratio(a, 300, b, 300, 50, 1000, &g, &est, &lo, &hi);
    EXPECT(lo < 1.5 && hi > 1.5);
    EXPECT(lo > 1.45 && hi < 1.55);
}

static void the_in_place_ci_equals_the_sorted_one(void)
{
    mb__rng g;
    mb__rng_seed(&g, 5);
    for (size_t n = 6; n < 400; n += 37) {
        double x[400], y[400];
        for (size_t i = 0; i < n; i++)
            x[i] = y[i] = 1000 + 100 * mb__rng_normal(&g);
        double want = mb__median_ci_rel(x, n);
        double got = mb__median_ci_rel_inplace(y, n);
        EXPECT_NEAR(got, want, 1e-12 * want);
    }
}

static void slope_of_a_line_is_exact(void)
{
    double x[] = {0, 1, 2, 3}, y[] = {1, 3, 5, 7};
    EXPECT_NEAR(mb__slope(x, y, 4), 2.0, 1e-12);
}

int main(void)
{
    RUN(percentiles_interpolate_linearly_like_numpy);
    RUN(percentile_support_needs_a_sample_beyond_it);
    RUN(median_ci_uses_binomial_order_statistics);
    RUN(summary_has_sample_std_and_counts_outliers);
    RUN(outliers_are_found_even_when_mad_is_zero);
    RUN(mann_whitney_matches_scipy_asymptotic);
    RUN(mann_whitney_detects_a_real_shift);
    RUN(bootstrap_ratio_of_constant_samples_is_exact);
    RUN(bootstrap_ci_covers_the_true_ratio);
    RUN(the_in_place_ci_equals_the_sorted_one);
    RUN(slope_of_a_line_is_exact);
    return T_DONE();
}
