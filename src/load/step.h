/* step.h - one step of a load test (the threads, the clock, the records),
 * for load.c.  A step is: every thread warms up on its own handle, all
 * meet at a start line, then either a closed loop (each thread issues its
 * next request when the last ends, until the duration and the minimum
 * count are met) or a fixed schedule of arrivals taken in order from a
 * shared counter (open loop; all at 0 for offline).  An idle open-loop
 * thread waits for the next arrival with core/waiter.h (real-time
 * priority while it waits when permitted, 1 ns timer slack, asleep until a
 * margin before the arrival that adapts to how late this machine's
 * wake-ups are, then spinning), so a request does not wait for a sleeping
 * thread to be woken on time (docs/LOAD.md, "Dispatch").  Its statistics are
 * stepstat.h's. */
#ifndef MB_LOAD_STEP_H
#define MB_LOAD_STEP_H

#include "load/load.h"

/* One request, ns from the step's start.  ready: when it could have
 * started, the later of its arrival and the end of the previous request
 * of the thread that served it; start < 0: dropped (not started by the
 * drain deadline; ready is then the arrival). */
typedef struct mb__load_rec {
    int64_t arrival, ready, start, end;
    int32_t server; /* index of the serving thread */
} mb__load_rec;

/* The largest margin the adaptive rule spins (per idle wait). */
#define MB_LOAD_SPIN_AUTO_MAX_NS 200000

typedef struct mb__load_step_in {
    int (*run)(void *session, mb_err *err); /* the backend's run() */
    void *const *handles;                   /* one per thread, borrowed */
    size_t threads;
    int closed;
    const int64_t *arr; /* open loop: arrival offsets, ascending */
    size_t n_arr;
    int64_t dur_ns; /* closed loop: run at least this long ... */
    int64_t n_min;  /* ... and this many requests */
    int64_t max_ns; /* --max-time: cap of a closed loop and the drain */
    int64_t warm_n, warm_ns;
    int64_t spin_ns; /* a fixed margin, or MB_LOAD_SPIN_AUTO */
    int realtime;    /* MB_LOAD_RT_*: real-time priority while waiting
                        (waiter.h) or throughout the step */
    volatile int *cancel;
} mb__load_step_in;

typedef struct mb__load_step_out {
    mb__load_rec *r; /* sorted by arrival; caller frees */
    size_t n;
    int64_t wall_ns; /* start to the last end */
    int64_t warm_n;  /* warmup requests over all threads */
    double warm_service_ns;
    int64_t spin_total_ns;    /* time spent spinning before arrivals */
    int64_t sleeps;           /* idle waits that slept */
    int64_t margin_ns;        /* the spin margin at the end (largest thread) */
    int64_t rt_waits;         /* sleeps raised to real-time priority */
    int64_t rt_serve_threads; /* threads at SCHED_FIFO throughout */
    int64_t cpu_ns; /* the serving threads' CPU time from the start line */
    double steal_fraction; /* of the machine's CPU time during the step,
                              taken by the hypervisor; NAN if unknown */
    int failed, interrupted;
    char error[1024];
} mb__load_step_out;

/* Runs one step.  A failed request ends its thread and marks the step
 * failed (o->error); an error return means the step could not run (no
 * memory, no threads). */
mb_status mb__load_step_run(const mb__load_step_in *in, mb__load_step_out *o,
                            mb_err *err);

#endif
