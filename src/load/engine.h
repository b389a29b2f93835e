/* engine.h - the load engine's state across steps and the step runners,
 * shared by load.c (sessions, scenarios, the document) and search.c (the
 * SLO search).  Internal to src/load. */
#ifndef MB_LOAD_ENGINE_H
#define MB_LOAD_ENGINE_H

#include "load/load.h"
#include "runner/runner.h"

/* One probed rate of the search grid: how often a step there passed. */
typedef struct mb__load_probe {
    long index; /* grid index: rate = grid_base * grid_ratio^index */
    double qps;
    int steps, passes;
    int set; /* the searches' question (MB_LOAD_BASIS_*) */
} mb__load_probe;

typedef struct mb__load_engine {
    const mb__plan *plan;
    const mb__load_req *req;
    const mb_backend *be;
    mb__bench **benches;
    size_t n_benches;
    void **handles; /* one per thread */
    void **twins;   /* handles made by share() (closed before benches) */
    size_t n_handles, n_twins;
    json_t *steps;
    json_t *warnings;
    mb__rng rng;
    int interrupted;
    double floor_p99_ns; /* the harness floor's p99 latency, NAN if none */
    int realtime;        /* MB_LOAD_RT_* resolved (never AUTO); during a
                            search, that search's */
    int set; /* the search under way: MB_LOAD_BASIS_MODEL (model capacity,
                harness delays removed, at the resolved priority) or
                MB_LOAD_BASIS_MEASURED (as a normal-priority server
                measured it) */
    /* The search's grid of rates (search.c). */
    double grid_base, grid_ratio;
    mb__load_probe *probes;
    size_t n_probes, cap_probes;
} mb__load_engine;

/* Runs a closed-loop step on the first `threads` handles for dur_ns (and
 * --min-iterations requests) and appends its object to the document;
 * *out borrows it. */
mb_status mb__load_closed_step(mb__load_engine *g, const char *role,
                               size_t threads, int64_t dur_ns, json_t **out,
                               mb_err *err);
/* The same for n_req Poisson arrivals at qps (offline: all at 0). */
mb_status mb__load_open_step(mb__load_engine *g, const char *role,
                             size_t threads, double qps, int64_t n_req,
                             int offline, json_t **out, mb_err *err);

/* A number member of o, NAN when absent. */
double mb__load_jd(const json_t *o, const char *k);
/* o[a][b], NULL when absent. */
const json_t *mb__load_jget(const json_t *o, const char *a, const char *b);

#endif
