/* harness.c - the cost of mbench's own measurement loop, per iteration,
 * measured on the null backend (whose run() returns at once).  Each
 * iteration includes two clock reads and the backend's vtable call; the
 * figure is what mbench adds to every latency it reports. */
#include "runner/runner.h"

#include "core/alloc.h"
#include "core/clock.h"
#include "core/stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int main(void)
{
    mb__plan p;
    mb__plan_defaults(&p);
    p.backend = mb__strdup("null");
    mb__bench *b;
    mb_err e = {0};
    if (mb__bench_open(&p, 1, &b, &e)) {
        fprintf(stderr, "harness: %s\n", e.msg);
        return 1;
    }
    enum { N = 1000000, ROUNDS = 7 };
    int64_t *s = mb__calloc(N, sizeof *s);
    double per_iter[ROUNDS], per_cpu[ROUNDS], sample_median[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        int64_t t0 = mb_now_ns(), c0 = cpu_ns();
        mb__bench_iterate(b, N, s, &e);
        per_cpu[r] = (double)(cpu_ns() - c0) / N;
        per_iter[r] = (double)(mb_now_ns() - t0) / N;
        mb__summary sum;
        mb__summarize_ns(s, N, &sum);
        sample_median[r] = sum.median;
    }
    mb__summary a, m, c;
    mb__summarize(per_iter, ROUNDS, &a);
    mb__summarize(per_cpu, ROUNDS, &c);
    mb__summarize(sample_median, ROUNDS, &m);
    mb__clock_info ci;
    mb__clock_measure(&ci);
    printf("harness: null backend, %d rounds of %d iterations\n", ROUNDS, N);
    printf("  wall time per iteration (loop + 2 clock reads + run call): "
           "median %.1f ns (min %.1f, max %.1f)\n",
           a.median, a.min, a.max);
    printf("  CPU time per iteration (immune to other processes): median "
           "%.1f ns (min %.1f)\n",
           c.median, c.min);
    printf("  reported latency of an empty run (what mbench adds to each "
           "sample): median %.1f ns\n",
           m.median);
    printf("  clock_gettime(CLOCK_MONOTONIC) cost: %lld ns, resolution %lld "
           "ns\n",
           (long long)ci.overhead_ns, (long long)ci.resolution_ns);
    printf("  goal < 100 ns per iteration (CPU time): %s\n",
           c.median < 100 ? "met" : "NOT met");
    free(s);
    mb__bench_close(b);
    mb__plan_free(&p);
    return 0;
}
