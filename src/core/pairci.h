/* pairci.h - a confidence interval for the difference of two paired
 * proportions: two models scored on the same samples, each sample right
 * or wrong for each model (top-1 accuracy against labels).  Tango's
 * asymptotic score interval (Tango 1998, Stat Med 17:891-908): the set of
 * differences d0 that the score test of H0: p_b - p_a = d0, with the
 * nuisance cell probability at its maximum-likelihood value under H0,
 * does not reject.  Only the discordant samples move it, so two models
 * that agree on most samples get a narrow interval, and one that agrees
 * everywhere still gets a nonzero width (z^2 / (n + z^2) on each side).
 * docs/STATISTICS.md ("Paired accuracy difference") states the unit of
 * replication and the assumptions.  Pure. */
#ifndef MB_CORE_PAIRCI_H
#define MB_CORE_PAIRCI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The paired 2x2 table of n samples. */
typedef struct mb__pair_counts {
    size_t n;      /* samples */
    size_t both;   /* right for both models */
    size_t a_only; /* right for a (the baseline) only */
    size_t b_only; /* right for b (the candidate) only */
    size_t neither;
} mb__pair_counts;

/* Counts the table from per-sample outcomes a[i], b[i] (0 wrong, non-zero
 * right). */
void mb__pair_count(const uint8_t *a, const uint8_t *b, size_t n,
                    mb__pair_counts *out);

/* Tango's score interval at level (e.g. 0.95) for p_b - p_a, whose point
 * estimate is (b_only - a_only) / n.  False (lo, hi NAN) when n is 0 or
 * level is not in (0, 1). */
bool mb__tango_ci(const mb__pair_counts *t, double level, double *lo,
                  double *hi);

/* The score statistic T(d0) of the interval (positive when the observed
 * difference lies above d0); exposed for the tests. */
double mb__tango_stat(const mb__pair_counts *t, double d0);

#endif
