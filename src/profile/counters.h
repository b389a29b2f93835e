/* counters.h - hardware counters (cycles, instructions, cache misses)
 * through perf_event_open, opened directly (no libpfm4), user space only.
 * Counting covers every thread of the process that exists when the
 * counters are opened (one event set per thread from /proc/self/task), so
 * open them after the session created its thread pool.  When the kernel
 * refuses (EACCES/EPERM: perf_event_paranoid; ENOENT/EOPNOTSUPP: no PMU in
 * this VM or container; ENOSYS), the caller gets the reason as one line. */
#ifndef MB_PROFILE_COUNTERS_H
#define MB_PROFILE_COUNTERS_H

#include "mbench.h"

#include <jansson.h>
#include <stdint.h>

typedef struct mb__counters mb__counters;

/* Opens the counters for all current threads, disabled.  On refusal
 * returns MB_EUNSUPPORTED with the reason in err (for example
 * "perf_event_open(cycles): Permission denied (perf_event_paranoid is 3)").
 * Caller frees with mb__counters_close. */
mb_status mb__counters_open(mb__counters **out, mb_err *err);
void mb__counters_start(mb__counters *c);
void mb__counters_stop(mb__counters *c);
/* {"available": true, "per_inference": {cycles, instructions,
 * cache_misses}, "ipc", "threads", "scope"} divided by `inferences`;
 * events the PMU does not count are null. */
json_t *mb__counters_json(const mb__counters *c, int64_t inferences);
void mb__counters_close(mb__counters *c);

/* {"available": false, "reason": why}. */
json_t *mb__counters_unavailable(const char *why);

/* Counts a short arithmetic loop on the calling thread: the counters'
 * self-test for `mbench machine` (available true with cycles,
 * instructions, ipc; or false with the reason). */
json_t *mb__counters_probe(void);

#endif
