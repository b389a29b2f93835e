/* child.h - one variant in its own process (compare, suites).
 *
 * The child opens the model itself, so its memory figures are its own and
 * a crash or hang costs only that variant.  The parent drives it over a
 * pipe: measure N iterations (the samples come back), write the outputs on
 * every input batch as .npy files into a directory, and finish (the RUN
 * object comes back as JSON and the child exits).  Every wait has a
 * timeout; a child that times out is killed (SIGKILL), and a child that
 * dies is reported with its signal or exit status. */
#ifndef MB_RUNNER_CHILD_H
#define MB_RUNNER_CHILD_H

#include "plan/plan.h"

#include <jansson.h>

typedef struct mb__child mb__child;

/* The parent's reading of one reply of the worker protocol (a header
 * {int32 status, uint64 len} then len bytes) from fd: 0 with *status and
 * *data (NUL-terminated, caller frees) of *len bytes, memory growing with
 * the bytes that arrive, not with the length claimed; MB__REPLY_EOF when
 * the stream ends early, MB__REPLY_TOO_LONG for a length above
 * MB__CHILD_REPLY_MAX (nothing allocated), MB__REPLY_BAD_STATUS for a
 * status that is no mb_status.  Exposed for tests/fuzz/fuzz_child.c. */
#define MB__CHILD_REPLY_MAX ((uint64_t)1 << 30)
#define MB__STATUS_MAX MB_EINTERRUPTED
enum { MB__REPLY_EOF = 1, MB__REPLY_TOO_LONG = 2, MB__REPLY_BAD_STATUS = 3 };
int mb__child_read_reply(int fd, int32_t *status, char **data, size_t *len);

/* Forks a child that opens plan's model for `batch` and waits until it is
 * ready (or failed).  timeout_ns <= 0 means no timeout. */
mb_status mb__child_spawn(const mb__plan *plan, int64_t batch,
                          int64_t timeout_ns, mb__child **out, mb_err *err);
/* Runs `warm` unrecorded iterations (at most n), then times n iterations
 * in the child; samples[0..n) receives them. */
mb_status mb__child_measure(mb__child *c, int64_t n, int64_t warm,
                            int64_t *samples, int64_t timeout_ns, mb_err *err);
/* Runs every batch of the --data set (or the synthetic batch) once and
 * writes output k of batch i to dir/b<i>_o<k>.npy.  *batches and
 * *samples say how many batches and samples there were. */
mb_status mb__child_outputs(mb__child *c, const char *dir, int64_t timeout_ns,
                            size_t *batches, size_t *samples, mb_err *err);
/* Asks for the RUN object (phases, memory, runtime, ...; new reference)
 * and lets the child exit. */
mb_status mb__child_finish(mb__child *c, int64_t timeout_ns, json_t **run,
                           mb_err *err);
/* Stops (SIGSTOP) and continues (SIGCONT) an idle child, so that its
 * runtime's spinning worker threads take no CPU while another variant is
 * measured.  No-ops once the child is gone. */
void mb__child_pause(mb__child *c);
void mb__child_resume(mb__child *c);
/* Kills the child if it still runs, reaps it, frees c.  NULL is a no-op. */
void mb__child_free(mb__child *c);

#endif
