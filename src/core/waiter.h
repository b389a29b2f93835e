/* waiter.h - waiting for an absolute time on a busy machine.  A thread
 * that sleeps until time t with clock_nanosleep wakes late by the timer
 * slack (50 us by default on Linux) plus the time until the scheduler
 * runs it again, which on a loaded machine is often milliseconds.  A
 * waiter cuts both: the calling thread's timer slack is set to 1 ns; while
 * it waits (and only then) the thread runs at the lowest real-time
 * priority (SCHED_FIFO 1), so that it runs the moment its timer fires
 * whatever else the machine runs, and it returns to its own policy before
 * the caller goes on; where that is not permitted (no CAP_SYS_NICE and
 * RLIMIT_RTPRIO 0) it asks instead for a short time slice while it sleeps
 * (Linux 6.12+ EEVDF: a task with a short slice preempts on wake-up; older
 * kernels ignore the request).  It sleeps only until a margin before t
 * and spins the rest.  The margin follows a high
 * quantile of how late this thread's sleeps end, up to a cap, so it costs
 * little CPU on a quiet machine and covers the usual lateness on a busy
 * one.  The lateness beyond the margin remains and is the caller's to
 * measure. */
#ifndef MB_CORE_WAITER_H
#define MB_CORE_WAITER_H

#include <stdint.h>

typedef struct mb__waiter {
    int realtime;     /* 1: wait at SCHED_FIFO 1 when permitted; 0: never;
                         -1: tried and refused (short slices instead) */
    int64_t fixed_ns; /* >= 0: a fixed margin; < 0: adaptive */
    int64_t cap_ns;   /* the adaptive margin's largest value */
    int64_t late_ns;  /* tracked lateness of the sleeps */
    int64_t sleeps;   /* waits that slept */
    int64_t spin_ns;  /* time spent spinning */
    int64_t rt_waits; /* waits that slept at real-time priority */
} mb__waiter;

/* A waiter with a fixed margin (fixed_ns >= 0) or an adaptive one capped
 * at cap_ns (fixed_ns < 0), waiting at real-time priority when realtime
 * is 1 and the system permits it. */
void mb__waiter_init(mb__waiter *w, int64_t fixed_ns, int64_t cap_ns,
                     int realtime);
/* Sets the calling thread's timer slack to 1 ns (per thread; cheap). */
void mb__waiter_thread_setup(void);
/* The margin the next wait sleeps short of its target by. */
int64_t mb__waiter_margin(const mb__waiter *w);
/* Waits until CLOCK_MONOTONIC time t (mb_now_ns); returns the time it
 * ended, t or later. */
int64_t mb__waiter_until(mb__waiter *w, int64_t t);

#endif
