/* pairci.c - the coverage of the paired accuracy-difference interval
 * (core/pairci.h, Tango's score interval), the figures of
 * docs/STATISTICS.md ("Paired accuracy difference").
 *
 *   pairci sim [REPS]   simulation: for a grid of sample counts and
 *                       discordance probabilities, REPS (default 20000)
 *                       seeded draws of n i.i.d. paired samples each;
 *                       prints the share of 95% intervals that cover the
 *                       true difference, and their mean width
 *   pairci              a filter: each stdin line "B_ONLY A_ONLY N" gives
 *                       "LO HI", mbench's 95% interval (bench/pairci_real.py
 *                       feeds it resamples of real model pairs) */
#include "core/pairci.h"
#include "core/rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void sim(size_t reps)
{
    static const size_t ns[] = {50, 200, 1000, 10000};
    static const double disc[][2] = {
        {0.0, 0.0},   {0.002, 0.002}, {0.01, 0.01}, {0.02, 0.05},
        {0.05, 0.05}, {0.10, 0.02},   {0.2, 0.2},
    };
    mb__rng rng;
    mb__rng_seed(&rng, 2026);
    printf("%6s %8s %8s %8s %9s %10s\n", "n", "p(b)", "p(a)", "delta",
           "coverage", "mean width");
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        for (size_t j = 0; j < sizeof disc / sizeof disc[0]; j++) {
            double pb = disc[j][0], pa = disc[j][1], truth = pb - pa, width = 0;
            size_t covered = 0;
            for (size_t r = 0; r < reps; r++) {
                size_t b = 0, a = 0;
                for (size_t k = 0; k < ns[i]; k++) {
                    double u = mb__rng_uniform(&rng);
                    b += u < pb;
                    a += u >= pb && u < pb + pa;
                }
                mb__pair_counts t = {ns[i], ns[i] - a - b, a, b, 0};
                double lo, hi;
                mb__tango_ci(&t, 0.95, &lo, &hi);
                covered += lo <= truth + 1e-15 && truth - 1e-15 <= hi;
                width += hi - lo;
            }
            printf("%6zu %8.3f %8.3f %+8.3f %9.4f %10.4f\n", ns[i], pb, pa,
                   truth, (double)covered / (double)reps, width / (double)reps);
        }
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "sim")) {
        sim(argc > 2 ? (size_t)atol(argv[2]) : 20000);
        return 0;
    }
    size_t b, a, n;
    while (scanf("%zu %zu %zu", &b, &a, &n) == 3) {
        mb__pair_counts t = {n, n - a - b, a, b, 0};
        double lo, hi;
        mb__tango_ci(&t, 0.95, &lo, &hi);
        printf("%.12g %.12g\n", lo, hi);
    }
    return 0;
}
