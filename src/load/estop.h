/* estop.h - early stopping for tail percentiles under a latency bound
 * (docs/LOAD.md, docs/STATISTICS.md "Serving load").  Two rules:
 *
 * exact (the default): with n requests of which k took longer than the
 * bound L (or were dropped), the claim "the q-quantile of latency is at
 * most L" holds at confidence c when P(Binomial(n, 1-q) <= k) <= 1-c.
 * Equivalently, the order statistic x_(j) with the smallest j such that
 * P(Binomial(n, q) <= j-1) >= c is a one-sided upper c-confidence bound
 * on the q-quantile, and the claim holds when x_(j) <= L.
 *
 * loadgen: MLPerf LoadGen's rules as its results.cc applies them.  The
 * pass test is its Server-scenario test, the same count with a strict
 * inequality (P(...) < 1-c); the bound is its single-stream "early
 * stopping percentile estimate": t the largest count with
 * P(Binomial(n, 1-q) <= t) < 1-c, which must be at least 1, and the
 * estimate x_(n-t+1), the next order statistic above the exact rule's.
 * It needs 64/130/662/6636 requests for p90/p95/p99/p99.9 at c = 0.99
 * where the exact rule needs 44/90/459/4603.
 *
 * The requests are assumed independent draws of one latency distribution
 * (see the docs for what queueing does to that).  Pure functions; q and c
 * in (0,1). */
#ifndef MB_LOAD_ESTOP_H
#define MB_LOAD_ESTOP_H

#include <stdint.h>

typedef enum mb__estop_rule {
    MB_ESTOP_EXACT = 0,
    MB_ESTOP_LOADGEN = 1
} mb__estop_rule;

/* The fewest requests for which the rule's upper bound exists:
 * ceil(log(1-c) / log(q)) under the exact rule (459 for q = c = 0.99);
 * 662 under LoadGen's.  -1 for q or c outside (0,1). */
int64_t mb__estop_min_n(double q, double c, mb__estop_rule rule);
/* 1 when k requests over the bound among n support the claim. */
int mb__estop_pass(int64_t n, int64_t k, double q, double c,
                   mb__estop_rule rule);
/* The 1-based rank j of the upper-bound order statistic, or 0 when n is
 * below mb__estop_min_n (no order statistic bounds the quantile). */
int64_t mb__estop_rank(int64_t n, double q, double c, mb__estop_rule rule);
/* The most requests over the bound that n requests tolerate (-1 when
 * none: n is too small for the pass test). */
int64_t mb__estop_max_over(int64_t n, double q, double c, mb__estop_rule rule);

#endif
