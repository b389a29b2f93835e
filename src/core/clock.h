/* clock.h - the monotonic clock and what it costs to read it. */
#ifndef MB_CORE_CLOCK_H
#define MB_CORE_CLOCK_H

#include <stdint.h>

typedef struct mb__clock_info {
    int64_t resolution_ns; /* clock_getres(CLOCK_MONOTONIC) */
    int64_t overhead_ns;   /* median cost of one mb_now_ns() call */
    int64_t min_step_ns;   /* smallest non-zero difference observed */
} mb__clock_info;

/* Measures resolution and per-call overhead (takes about a millisecond). */
void mb__clock_measure(mb__clock_info *info);

/* Wall-clock UTC time as "2026-11-22T02:00:00Z" into buf (>= 21 bytes). */
void mb__utc_iso8601(char *buf, unsigned long len);

#endif
