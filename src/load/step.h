/* step.h - one step of a load test (the threads, the clock, the records)
 * and its statistics, for load.c.  A step is: every thread warms up on its
 * own handle, all meet at a start line, then either a closed loop (each
 * thread issues its next request when the last ends, until the duration
 * and the minimum count are met) or a fixed schedule of arrivals taken in
 * order from a shared counter (open loop; all at 0 for offline). */
#ifndef MB_LOAD_STEP_H
#define MB_LOAD_STEP_H

#include "load/load.h"

/* One request, ns from the step's start; start < 0: dropped (not started
 * by the drain deadline). */
typedef struct mb__load_rec {
    int64_t arrival, start, end;
} mb__load_rec;

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
    int64_t warm_n, warm_ns, spin_ns;
    volatile int *cancel;
} mb__load_step_in;

typedef struct mb__load_step_out {
    mb__load_rec *r; /* sorted by arrival; caller frees */
    size_t n;
    int64_t wall_ns; /* start to the last end */
    int64_t warm_n;  /* warmup requests over all threads */
    double warm_service_ns;
    int failed, interrupted;
    char error[1024];
} mb__load_step_out;

/* Runs one step.  A failed request ends its thread and marks the step
 * failed (o->error); an error return means the step could not run (no
 * memory, no threads). */
mb_status mb__load_step_run(const mb__load_step_in *in, mb__load_step_out *o,
                            mb_err *err);
/* The step object of the document (LOAD.md, "Output"); step_no (1-based)
 * names the step in a warning appended to warnings when its records are
 * not kept.  New reference. */
json_t *mb__load_step_json(const mb__load_req *rq, const char *role,
                           const char *scen, size_t threads, double target,
                           const int64_t *arr, size_t n_arr,
                           const mb__load_step_out *o, size_t step_no,
                           json_t *warnings);

#endif
