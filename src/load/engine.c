/* engine.c - one measured step of the serving-load engine (engine.h):
 * warmup, then a closed or open loop on the engine's sessions, and the
 * small document readers the search and the run flow share.  load.c (the
 * run flow) and search.c (the SLO search) call down into it; it calls
 * neither. */
#include "load/engine.h"
#include "load/load.h"
#include "load/estop.h"
#include "load/step.h"
#include "load/stepstat.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/rng.h"
#include "core/stats.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef mb__load_engine engine;

double mb__load_jd(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

const json_t *mb__load_jget(const json_t *o, const char *a, const char *b)
{
    return json_object_get(json_object_get(o, a), b);
}

/* ---- scenarios --------------------------------------------------------- */

int64_t *mb__load_poisson_schedule(mb__rng *rng, double qps, size_t n)
{
    int64_t *a = mb__calloc(n ? n : 1, sizeof *a);
    double t = 0;
    for (size_t i = 0; a && i < n; i++) {
        t += -log(1.0 - mb__rng_uniform(rng)) / qps * 1e9;
        a[i] = (int64_t)t;
    }
    return a;
}

/* Runs one step on the first `threads` handles and appends its object to
 * the document; *out borrows it. */
static mb_status step(engine *g, const char *role, const char *scen,
                      size_t threads, double target, const int64_t *arr,
                      size_t n_arr, int64_t dur_ns, int64_t n_min, json_t **out,
                      mb_err *err)
{
    const mb__plan *p = g->plan;
    mb__load_step_in in = {.run = g->be->run,
                           .handles = g->handles,
                           .threads = threads,
                           .closed = arr == NULL,
                           .arr = arr,
                           .n_arr = n_arr,
                           .dur_ns = dur_ns,
                           .n_min = n_min,
                           .max_ns = p->max_time_ns,
                           .warm_n = p->warmup_iters,
                           .warm_ns = p->warmup_time_ns,
                           .spin_ns = g->req->spin_ns,
                           .realtime = arr == NULL && g->req->realtime ==
                                                          MB_LOAD_RT_AUTO
                                           ? MB_LOAD_RT_WAIT
                                           : g->realtime,
                           .cancel = p->cancel};
    mb__load_step_out o;
    mb_status s = mb__load_step_run(&in, &o, err);
    if (s)
        return s;
    g->interrupted |= o.interrupted;
    mb__load_step_ctx c = {
        g->req,         role, scen,  threads,
        target,         arr,  n_arr, json_array_size(g->steps) + 1,
        g->floor_p99_ns};
    json_t *j = mb__load_step_json(&c, &o, g->warnings);
    free(o.r);
    if (!j)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    json_array_append_new(g->steps, j);
    *out = j;
    return MB_OK;
}

mb_status mb__load_closed_step(engine *g, const char *role, size_t threads,
                               int64_t dur_ns, json_t **out, mb_err *err)
{
    int64_t n_min =
        g->plan->fixed_iters > 0 ? g->plan->fixed_iters : g->plan->min_iters;
    if (g->plan->fixed_iters > 0) /* --iterations: that many, not a time */
        dur_ns = 0;
    return step(g, role, "closed", threads, 0, NULL, 0, dur_ns, n_min, out,
                err);
}

mb_status mb__load_open_step(engine *g, const char *role, size_t threads,
                             double qps, int64_t n_req, int offline,
                             json_t **out, mb_err *err)
{
    size_t n = (size_t)n_req;
    int64_t *arr = offline ? mb__calloc(n ? n : 1, sizeof *arr)
                           : mb__load_poisson_schedule(&g->rng, qps, n);
    if (!arr)
        return mb__fail(err, MB_ENOMEM, "out of memory for %zu arrivals", n);
    mb_status s = step(g, role, offline ? "offline" : "poisson", threads,
                       offline ? 0 : qps, arr, n, 0, 0, out, err);
    free(arr);
    return s;
}

/* ---- the harness floor ------------------------------------------------- */

const char *mb__load_basis_name(int basis)
{
    return basis == MB_LOAD_BASIS_MEASURED ? "measured" : "model";
}

const char *mb__load_basis_question(int basis)
{
    return basis == MB_LOAD_BASIS_MEASURED
               ? "as a normal-priority server measured it"
               : "model capacity, harness delays removed";
}
