/* clock.c - CLOCK_MONOTONIC in integer nanoseconds. */
#include "clock.h"

#include "mbench.h"

#include <stdlib.h>
#include <time.h>

int64_t mb_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

void mb__clock_measure(mb__clock_info *info)
{
    struct timespec res;
    clock_getres(CLOCK_MONOTONIC, &res);
    info->resolution_ns = (int64_t)res.tv_sec * 1000000000 + res.tv_nsec;
    enum { ROUNDS = 201, CALLS = 100 };
    int64_t per[ROUNDS], min_step = INT64_MAX;
    for (int r = 0; r < ROUNDS; r++) {
        int64_t t0 = mb_now_ns(), prev = t0;
        for (int i = 0; i < CALLS; i++) {
            int64_t t = mb_now_ns();
            if (t > prev && t - prev < min_step)
                min_step = t - prev;
            prev = t;
        }
        per[r] = (prev - t0) / CALLS;
    }
    qsort(per, ROUNDS, sizeof per[0], cmp_i64);
    info->overhead_ns = per[ROUNDS / 2];
    info->min_step_ns = min_step == INT64_MAX ? 0 : min_step;
}

void mb__utc_iso8601(char *buf, unsigned long len)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
