/* estop.h - early stopping for tail percentiles under a latency bound, in
 * the manner of MLPerf LoadGen (docs/LOAD.md, docs/STATISTICS.md "Serving
 * load"): with n requests of which k took longer than the bound L (or were
 * dropped), the claim "the q-quantile of latency is at most L" holds at
 * confidence c when P(Binomial(n, 1-q) <= k) <= 1-c.  Equivalently, the
 * order statistic x_(j) with the smallest j such that
 * P(Binomial(n, q) <= j-1) >= c is a one-sided upper c-confidence bound on
 * the q-quantile, and the claim holds when x_(j) <= L.  The requests are
 * assumed independent draws of one latency distribution (see the docs for
 * what queueing does to that).  Pure functions; q in (0,1). */
#ifndef MB_LOAD_ESTOP_H
#define MB_LOAD_ESTOP_H

#include <stdint.h>

/* The fewest requests for which a bound can hold at all (k = 0):
 * ceil(log(1-c) / log(q)); 459 for q = 0.99, c = 0.99. */
int64_t mb__estop_min_n(double q, double c);
/* 1 when k requests over the bound among n support the claim. */
int mb__estop_pass(int64_t n, int64_t k, double q, double c);
/* The 1-based rank j of the upper-bound order statistic, or 0 when n is
 * below mb__estop_min_n (no order statistic bounds the quantile). */
int64_t mb__estop_rank(int64_t n, double q, double c);
/* The most requests over the bound that n requests tolerate (-1 when
 * none: n is too small). */
int64_t mb__estop_max_over(int64_t n, double q, double c);

#endif
