/* par.h - a minimal parallel-for over work items for the accuracy metrics.
 *
 * Items are claimed one at a time from a shared atomic counter by up to
 * `threads` POSIX threads (the calling thread is one of them), so uneven
 * items balance themselves.  Each item writes only its own result slot;
 * callers merge the slots in item order afterwards, which keeps results
 * independent of the thread count.  No global state. */
#ifndef MB_ACCURACY_PAR_H
#define MB_ACCURACY_PAR_H

#include <stddef.h>

/* Work on item `i`; `worker` is 0..threads-1 (for per-thread scratch). */
typedef void (*mb_par_fn)(void *user, size_t item, int worker);

/* Number of online CPUs from sysconf (at least 1). */
int mb__par_cpus(void);

/* Runs fn for every item in [0, n_items) on up to `threads` threads
 * (threads <= 0: mb__par_cpus()).  Falls back to the calling thread alone
 * when a thread cannot be created, so it never fails. */
void mb__par_for(size_t n_items, int threads, mb_par_fn fn, void *user);

#endif
