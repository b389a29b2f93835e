/* stepstat.h - the statistics of one load step as its JSON object
 * (docs/LOAD.md, "What is measured"): latency from the scheduled arrival
 * and its three parts (queueing for a free server, dispatch by the
 * harness, service by the model), the same requests replayed without the
 * dispatch delays (what the model alone would have given), slow requests
 * attributed to a cause, early-stopping bounds, the SLO test, whether the
 * step was stable, and warnings when it was not or when the harness
 * rather than the model set a tail percentile. */
#ifndef MB_LOAD_STEPSTAT_H
#define MB_LOAD_STEPSTAT_H

#include "load/step.h"

/* What the statistics need to know about the step besides its records. */
typedef struct mb__load_step_ctx {
    const mb__load_req *rq;
    const char *role, *scen; /* "measure", ...; "closed", "poisson", ... */
    size_t threads;
    double target;      /* target rate, 0 when none */
    const int64_t *arr; /* the schedule (open loop), or NULL */
    size_t n_arr;
    size_t step_no;      /* 1-based, names the step in warnings */
    double floor_p99_ns; /* the harness floor's p99, NAN when unmeasured */
} mb__load_step_ctx;

/* The step object of the document; appends a document-level warning to
 * warnings when the records are not kept.  New reference, or NULL when
 * memory runs out. */
json_t *mb__load_step_json(const mb__load_step_ctx *c,
                           const mb__load_step_out *o, json_t *warnings);

/* Replays the FIFO queue of n requests (sorted by arrival) on `servers`
 * servers that start every request the moment it has arrived and a
 * server is free: end[i] = the replayed end of request i given its
 * service time svc[i].  Requests with svc[i] < 0 (dropped) are skipped
 * (end[i] = -1).  Returns false when memory runs out. */
bool mb__load_replay(const int64_t *arrival, const int64_t *svc, size_t n,
                     size_t servers, int64_t *end);

#endif
