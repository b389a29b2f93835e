/*
 * mbench_events.h - report phases, counters and metrics to `mbench exec`
 * from a C or C++ program.  Header-only; no dependency beyond libc (POSIX).
 * When MBENCH_EVENTS_FD is absent every call is a no-op.
 *
 *   #include "mbench_events.h"
 *   mbe_start("init");  ...  mbe_end("init");
 *   mbe_counter("samples", 128);
 *   mbe_metric("loss", 0.31);
 *   int64_t t0 = mbench_iter_begin();  ...one iteration...
 *   mbench_iter_end("infer", t0, 8);    (or mbench_iter("infer", ns, 8))
 *
 * Phase names and counter/metric names are written as JSON strings; use
 * plain names (no quotes or backslashes).  Each event is one write() of one
 * line, so events from several threads do not interleave.  The time stamp
 * t_ns is CLOCK_MONOTONIC, the clock mbench uses.  See docs/EXEC.md.
 */
#ifndef MBENCH_EVENTS_H
#define MBENCH_EVENTS_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static inline int mbe_fd_(void)
{
    static int fd = -2;
    if (fd == -2) {
        const char *s = getenv("MBENCH_EVENTS_FD");
        char *end = NULL;
        long v = s && *s ? strtol(s, &end, 10) : -1;
        fd = (s && *s && end && !*end && v >= 0 && v < 1 << 20) ? (int)v : -1;
    }
    return fd;
}

static inline long long mbe_now_ns_(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline void mbe_write_(const char *line, int n)
{
    int fd = mbe_fd_();
    if (fd < 0 || n <= 0)
        return;
    const char *p = line;
    while (n > 0) {
        ssize_t w = write(fd, p, (size_t)n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        p += w;
        n -= (int)w;
    }
}

static inline int mbe_enabled(void)
{
    return mbe_fd_() >= 0;
}

static inline void mbe_start(const char *phase)
{
    char b[512];
    if (mbe_fd_() < 0)
        return;
    int n = snprintf(b, sizeof b,
                     "{\"event\":\"start\",\"phase\":\"%s\",\"t_ns\":%lld}\n",
                     phase, mbe_now_ns_());
    mbe_write_(b, n < (int)sizeof b ? n : -1);
}

static inline void mbe_end(const char *phase)
{
    char b[512];
    if (mbe_fd_() < 0)
        return;
    int n = snprintf(b, sizeof b,
                     "{\"event\":\"end\",\"phase\":\"%s\",\"t_ns\":%lld}\n",
                     phase, mbe_now_ns_());
    mbe_write_(b, n < (int)sizeof b ? n : -1);
}

static inline void mbe_counter(const char *name, double value)
{
    char b[512];
    if (mbe_fd_() < 0)
        return;
    int n =
        snprintf(b, sizeof b,
                 "{\"event\":\"counter\",\"name\":\"%s\",\"value\":%.17g}\n",
                 name, value);
    mbe_write_(b, n < (int)sizeof b ? n : -1);
}

static inline void mbe_metric(const char *name, double value)
{
    char b[512];
    if (mbe_fd_() < 0)
        return;
    int n = snprintf(b, sizeof b,
                     "{\"event\":\"metric\",\"name\":\"%s\",\"value\":%.17g}\n",
                     name, value);
    mbe_write_(b, n < (int)sizeof b ? n : -1);
}

/* One timed iteration of loop `name`: ns > 0 by the program's own clock,
 * items the samples it processed (throughput; 1 for one sample).  mbench
 * computes percentiles and CIs of the loop from these (docs/EXEC.md). */
static inline void mbench_iter(const char *name, int64_t ns, int64_t items)
{
    char b[512];
    if (mbe_fd_() < 0 || ns <= 0)
        return;
    int n = snprintf(b, sizeof b,
                     "{\"event\":\"iter\",\"name\":\"%s\",\"ns\":%lld,"
                     "\"items\":%lld}\n",
                     name, (long long)ns, (long long)(items < 0 ? 0 : items));
    mbe_write_(b, n < (int)sizeof b ? n : -1);
}

/* The start of an iteration (CLOCK_MONOTONIC ns) for mbench_iter_end. */
static inline int64_t mbench_iter_begin(void)
{
    return (int64_t)mbe_now_ns_();
}

/* Reports the iteration of loop `name` that began at t0. */
static inline void mbench_iter_end(const char *name, int64_t t0, int64_t items)
{
    if (mbe_fd_() >= 0)
        mbench_iter(name, (int64_t)mbe_now_ns_() - t0, items);
}

#endif /* MBENCH_EVENTS_H */
