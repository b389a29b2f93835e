/* load.h - serving load: many requests in flight against one model, the
 * engine of `mbench load` (docs/LOAD.md).
 *
 * Scenarios: a closed loop of N concurrent requests, an open loop of
 * Poisson arrivals at a target rate served by N threads, offline (every
 * request arrives at once), and a search for the highest Poisson rate at
 * which a latency percentile stays under a bound (calibrate, bracket,
 * bisect; each step with enough requests for the early-stopping bound of
 * estop.h).  Latency runs from a request's scheduled arrival to its end,
 * so time spent queueing is counted (no coordinated omission).  Threads
 * share one session (the backend's share() slot) or use --sessions N. */
#ifndef MB_LOAD_LOAD_H
#define MB_LOAD_LOAD_H

#include "plan/plan.h"

#include "core/rng.h"
#include "load/estop.h"

#include <jansson.h>

typedef enum mb__load_scenario {
    MB_LOAD_CLOSED = 0, /* --concurrency N: N requests always in flight */
    MB_LOAD_POISSON,    /* --qps R: Poisson arrivals at R per second */
    MB_LOAD_OFFLINE,    /* --offline: all requests arrive at time 0 */
    MB_LOAD_SLO         /* --slo p99=20ms: the highest rate that meets it */
} mb__load_scenario;

#define MB_LOAD_MAX_LEVELS 32
/* realtime: never; while an idle thread waits for an arrival
 * (core/waiter.h); throughout a step, the requests included; or auto (the
 * default): serve with one intra-op thread and fewer serving threads than
 * CPUs, else wait. */
enum {
    MB_LOAD_RT_NONE = 0,
    MB_LOAD_RT_WAIT = 1,
    MB_LOAD_RT_SERVE = 2,
    MB_LOAD_RT_AUTO = 3
};
/* slo_basis: the latency an SLO step is judged on. */
enum {
    MB_LOAD_BASIS_MODEL = 0,   /* the replay without dispatch delays */
    MB_LOAD_BASIS_MEASURED = 1 /* end - arrival as measured */
};
/* "model" or "measured". */
const char *mb__load_basis_name(int basis);
/* The question an SLO answer on that basis answers, for the reports:
 * "model capacity, harness delays removed" or "as a normal-priority
 * server measured it". */
const char *mb__load_basis_question(int basis);
/* spin_ns: adapt the spin margin to the observed wake-up lateness. */
#define MB_LOAD_SPIN_AUTO (-1)
#define MB_LOAD_MAX_CPUS 1024

typedef struct mb__load_req {
    mb__load_scenario scenario;
    /* Server threads (requests in flight at most); in the closed loop one
     * value per step (a sweep).  0 = default: 1 closed, the CPU count
     * otherwise. */
    int64_t concurrency[MB_LOAD_MAX_LEVELS];
    size_t n_concurrency;
    double qps[MB_LOAD_MAX_LEVELS]; /* Poisson: target rates, one per step */
    size_t n_qps;
    int sessions;               /* sessions the threads use; 1 = one shared */
    int cpus[MB_LOAD_MAX_CPUS]; /* CPU affinity of the whole process */
    size_t n_cpus;
    double slo_q;      /* the bounded percentile as a fraction (0.99) */
    int64_t slo_ns;    /* the bound; 0 = none */
    double confidence; /* of the early-stopping bounds; default 0.99 */
    double tolerance;  /* search ends when (hi - lo) / hi <= this (0.05) */
    int max_steps;     /* search steps after calibration (default 12) */
    int repeat;        /* independent searches (default 5) */
    mb__estop_rule estop_rule; /* early-stopping rule (default exact) */
    int64_t requests;    /* offline: requests (0: enough for --min-time) */
    int64_t queued_ns;   /* a request that waited longer is "queued" (1ms) */
    int64_t spin_ns;     /* open loop: an idle thread sleeps until this
                            long before the next arrival, then spins
                            (0 = sleep to the arrival; default
                            MB_LOAD_SPIN_AUTO: a margin that follows how
                            late this machine's wake-ups are) */
    int slo_basis;       /* MB_LOAD_BASIS_* (default model) */
    int realtime;        /* MB_LOAD_RT_*: when serving threads run at
                            real-time priority (where permitted) */
    int64_t records_max; /* per-request records kept up to this many per
                            step (default 200000; 0 = never) */
    unsigned given;      /* scenarios set by mb__load_req_set: bit
                            1 << MB_LOAD_POISSON, _OFFLINE, _SLO (more
                            than one is refused by mb__load_run) */
} mb__load_req;

/* The defaults above (closed loop, concurrency 1, one session). */
void mb__load_req_defaults(mb__load_req *r);
/* Parses "p99=20ms" (pNN or pNN.N, a duration) into r->slo_q, slo_ns.
 * MB_EINVAL names what is wrong. */
mb_status mb__load_parse_slo(const char *spec, mb__load_req *r, mb_err *err);

/* Sets one load option by the name of its `mbench load` flag without
 * dashes: concurrency (N or a list N,N,...), qps (R or a list), offline
 * (0/1), slo (p99=20ms), sessions, cpus (0-3,6), requests, repeat,
 * confidence, tolerance, max-steps, queued and spin (durations; spin
 * also "auto"), records (a count), early-stopping (exact or loadgen),
 * realtime (none, wait or serve), slo-basis (model or measured).  Returns 1
 * when key is not a load option, 0 when set, MB_EINVAL (as a negative number)
 * after filling err for a bad value. */
int mb__load_req_set(mb__load_req *r, const char *key, const char *value,
                     mb_err *err);

/* n Poisson arrivals at rate qps per second: offsets in ns from 0,
 * ascending (exponential gaps by inversion).  Caller frees; NULL on OOM. */
int64_t *mb__load_poisson_schedule(mb__rng *rng, double qps, size_t n);

/* MB_EINVAL when req asks for two scenarios (--qps, --offline, --slo) or
 * for a list of --concurrency values with an open-loop scenario: the
 * checks mb__load_run makes first, for a caller to make before anything
 * else. */
mb_status mb__load_req_check(const mb__load_req *req, mb_err *err);

/* Runs the scenario on plan's model (its backend, options, batch size,
 * warmup and --min-time/--max-time/--min-iterations per step) and returns
 * a new result document of kind "load" (docs/FORMATS.md, "load") in *doc.
 * Fails when the model cannot be opened or the request is inconsistent;
 * a step that fails part-way is recorded with its error. */
mb_status mb__load_run(const mb__plan *plan, const mb__load_req *req,
                       json_t **doc, mb_err *err);

#endif
