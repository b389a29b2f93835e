/* load.c - the serving-load engine (load.h): sessions and threads, one
 * step (warmup, then a closed or open loop), its statistics, and the
 * search for the highest rate under a latency bound. */
#include "load/load.h"
#include "load/engine.h"
#include "load/estop.h"
#include "load/search.h"
#include "load/step.h"
#include "load/stepstat.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/parse.h"
#include "core/rng.h"
#include "core/stats.h"
#include "core/sysinfo.h"
#include "backend/registry.h"

#include <stdbool.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void mb__load_req_defaults(mb__load_req *r)
{
    memset(r, 0, sizeof *r);
    r->scenario = MB_LOAD_CLOSED;
    r->sessions = 1;
    r->confidence = 0.99;
    r->tolerance = 0.05;
    r->max_steps = 12;
    r->repeat = 5;
    r->estop_rule = MB_ESTOP_EXACT;
    r->spin_ns = MB_LOAD_SPIN_AUTO;
    r->realtime = MB_LOAD_RT_AUTO;
    r->queued_ns = 1000000;
    r->records_max = 200000;
}

mb_status mb__load_parse_slo(const char *spec, mb__load_req *r, mb_err *err)
{
    const char *eq = spec ? strchr(spec, '=') : NULL;
    char *end = NULL;
    double q = spec && (spec[0] == 'p' || spec[0] == 'P')
                   ? strtod(spec + 1, &end)
                   : NAN;
    int64_t ns = 0;
    if (!eq || end != eq || !(q >= 50 && q < 100) ||
        !mb__parse_duration_ns(eq + 1, &ns) || ns <= 0)
        return mb__fail(err, MB_EINVAL,
                        "invalid --slo '%s': expected a percentile from p50 "
                        "to p99.99 and a duration, such as p99=20ms",
                        spec ? spec : "");
    r->slo_q = q / 100.0;
    r->slo_ns = ns;
    return MB_OK;
}

static int bad(mb_err *err, const char *key, const char *value,
               const char *expect)
{
    mb__fail(err, MB_EINVAL, "invalid value '%s' for --%s: expected %s",
             value ? value : "", key, expect);
    return -MB_EINVAL;
}

/* "0-3,6" into r->cpus; false when v has another form. */
static bool parse_cpus(mb__load_req *r, const char *v)
{
    r->n_cpus = 0;
    const char *p = v;
    while (*p) {
        char *end;
        long a = strtol(p, &end, 10), b = a;
        if (end == p || a < 0)
            return false;
        if (*end == '-') {
            p = end + 1;
            b = strtol(p, &end, 10);
            if (end == p || b < a)
                return false;
        }
        if (b >= MB_LOAD_MAX_CPUS)
            return false;
        for (long c = a; c <= b && r->n_cpus < MB_LOAD_MAX_CPUS; c++)
            r->cpus[r->n_cpus++] = (int)c;
        if (*end == ',')
            end++;
        else if (*end)
            return false;
        p = end;
    }
    return r->n_cpus > 0;
}

/* The setters of mb__load_req_set, by kind of option; each returns as it
 * does (1: not one of its keys). */

/* --concurrency and --qps: the levels stepped through. */
static int set_levels(mb__load_req *r, const char *key, const char *v,
                      mb_err *err)
{
    if (!strcmp(key, "concurrency")) {
        int64_t *list = NULL;
        size_t n = 0;
        if (!mb__parse_i64_list(v, 1, 4096, &list, &n))
            return bad(err, key, v, "thread counts from 1 to 4096 (1,2,4)");
        if (n > MB_LOAD_MAX_LEVELS) {
            free(list);
            return bad(err, key, v, "at most 32 levels");
        }
        memcpy(r->concurrency, list, n * sizeof *list);
        r->n_concurrency = n;
        free(list);
        return 0;
    }
    if (strcmp(key, "qps"))
        return 1;
    char *copy = mb__strdup(v), *save = NULL;
    size_t n = 0;
    int ok = copy != NULL;
    double d;
    for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t && ok;
         t = strtok_r(NULL, ",", &save)) {
        ok = n < MB_LOAD_MAX_LEVELS && mb__parse_double(t, 1e-3, 1e9, &d) &&
             d > 0;
        if (ok)
            r->qps[n++] = d;
    }
    free(copy);
    if (!ok || !n)
        return bad(err, key, v,
                   "rates in requests per second (500 or "
                   "100,200,400; at most 32)");
    r->n_qps = n;
    r->given |= 1u << MB_LOAD_POISSON;
    if (r->scenario != MB_LOAD_SLO)
        r->scenario = MB_LOAD_POISSON;
    return 0;
}

/* --offline, --slo and --cpus. */
static int set_mode(mb__load_req *r, const char *key, const char *v,
                    mb_err *err)
{
    int64_t i;
    if (!strcmp(key, "offline")) {
        if (!mb__parse_i64(v, 0, 1, &i))
            return bad(err, key, v, "0 or 1");
        if (i) {
            r->scenario = MB_LOAD_OFFLINE;
            r->given |= 1u << MB_LOAD_OFFLINE;
        }
        return 0;
    }
    if (!strcmp(key, "slo")) {
        if (mb__load_parse_slo(v, r, err))
            return -MB_EINVAL;
        r->scenario = MB_LOAD_SLO;
        r->given |= 1u << MB_LOAD_SLO;
        return 0;
    }
    if (!strcmp(key, "cpus"))
        return !parse_cpus(r, v) ? bad(err, key, v, "CPU numbers such as 0-3,6")
                                 : 0;
    return 1;
}

/* The counts and the fractions (--confidence, --tolerance). */
static int set_number(mb__load_req *r, const char *key, const char *v,
                      mb_err *err)
{
    int64_t i;
    double d;
    static const char *const ints[] = {"sessions", "requests", "repeat",
                                       "max-steps", "records"};
    for (size_t k = 0; k < 5; k++)
        if (!strcmp(key, ints[k])) {
            if (!mb__parse_i64(v, k == 4 ? 0 : 1,
                               k == 1 || k == 4 ? 1000000000 : 4096, &i))
                return bad(err, key, v, "a positive count");
            if (k == 0)
                r->sessions = (int)i;
            else if (k == 1)
                r->requests = i;
            else if (k == 2)
                r->repeat = (int)i;
            else if (k == 3)
                r->max_steps = (int)i;
            else
                r->records_max = i;
            return 0;
        }
    if (!strcmp(key, "confidence") || !strcmp(key, "tolerance")) {
        if (!mb__parse_double(v, 0, 1, &d) || d <= 0 || d >= 1)
            return bad(err, key, v, "a fraction between 0 and 1 (0.99)");
        *(key[0] == 'c' ? &r->confidence : &r->tolerance) = d;
        return 0;
    }
    return 1;
}

/* The rules chosen by name: --early-stopping, --slo-basis, --realtime. */
static int set_rule(mb__load_req *r, const char *key, const char *v,
                    mb_err *err)
{
    if (!strcmp(key, "early-stopping")) {
        if (strcmp(v ? v : "", "exact") && strcmp(v ? v : "", "loadgen"))
            return bad(err, key, v,
                       "exact (the binomial bound) or loadgen (MLPerf "
                       "LoadGen's rules)");
        r->estop_rule = v[0] == 'l' ? MB_ESTOP_LOADGEN : MB_ESTOP_EXACT;
        return 0;
    }
    if (!strcmp(key, "slo-basis")) {
        if (strcmp(v ? v : "", "model") && strcmp(v ? v : "", "measured"))
            return bad(err, key, v,
                       "model (latency without the harness's dispatch "
                       "delays, by replay) or measured");
        r->slo_basis =
            v[1] == 'o' ? MB_LOAD_BASIS_MODEL : MB_LOAD_BASIS_MEASURED;
        return 0;
    }
    if (strcmp(key, "realtime"))
        return 1;
    static const char *const modes[] = {"none", "wait", "serve", "auto"};
    for (int k = 0; k < 4; k++)
        if (v && !strcmp(v, modes[k])) {
            r->realtime = k;
            return 0;
        }
    return bad(err, key, v,
               "auto, none, wait (idle threads wait for arrivals at "
               "real-time priority where permitted) or serve (the "
               "serving threads run at it throughout)");
}

/* The durations: --queued and --spin (or --spin auto). */
static int set_pacing(mb__load_req *r, const char *key, const char *v,
                      mb_err *err)
{
    int64_t i;
    if (!strcmp(key, "spin") && v && !strcmp(v, "auto")) {
        r->spin_ns = MB_LOAD_SPIN_AUTO;
        return 0;
    }
    if (!strcmp(key, "queued") || !strcmp(key, "spin")) {
        if (!mb__parse_duration_ns(v, &i) || i < 0 || i > 1000000000)
            return bad(err, key, v, "a duration from 0 to 1s, such as 1ms");
        *(key[0] == 'q' ? &r->queued_ns : &r->spin_ns) = i;
        return 0;
    }
    return 1;
}

int mb__load_req_set(mb__load_req *r, const char *key, const char *v,
                     mb_err *err)
{
    static int (*const setters[])(mb__load_req *, const char *, const char *,
                                  mb_err *) = {set_levels, set_mode, set_number,
                                               set_rule, set_pacing};
    for (size_t k = 0; k < sizeof setters / sizeof *setters; k++) {
        int rc = setters[k](r, key, v, err);
        if (rc != 1)
            return rc;
    }
    return 1;
}

typedef mb__load_engine engine;

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static int64_t max_i64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* Runs a short Poisson step of the null backend (run() returns at once)
 * on `threads` threads at qps through the same issue path, and records
 * its latency (all of it the harness's) as load.harness_floor. */
static mb_status harness_floor(engine *g, size_t threads, double qps,
                               json_t *load, mb_err *err)
{
    const mb_backend *nb = mb__backend_builtin(1);
    mb_backend_config cfg = {0};
    cfg.seed = g->plan->seed;
    void *state = NULL, **h = mb__calloc(threads, sizeof *h);
    mb_tensor x;
    memset(&x, 0, sizeof x);
    mb_status s = !h ? mb__fail(err, MB_ENOMEM, "out of memory")
                     : (mb_status)nb->load(&cfg, &state, err);
    size_t opened = 0;
    while (!s && opened < threads) {
        s = (mb_status)nb->open(state, "null", NULL, 0, &h[opened], err);
        if (s)
            break;
        s = (mb_status)nb->prepare(h[opened++], &x, 1, err);
    }
    int64_t n = max_i64(1000, (int64_t)(qps * 0.25));
    int64_t *arr =
        s ? NULL : mb__load_poisson_schedule(&g->rng, qps, (size_t)n);
    if (!s && !arr)
        s = mb__fail(err, MB_ENOMEM, "out of memory");
    mb__load_step_out o;
    memset(&o, 0, sizeof o);
    if (!s) {
        mb__load_step_in in = {.run = nb->run,
                               .handles = h,
                               .threads = threads,
                               .arr = arr,
                               .n_arr = (size_t)n,
                               .max_ns = g->plan->max_time_ns,
                               .warm_n = 10,
                               .spin_ns = g->req->spin_ns,
                               .realtime = g->realtime,
                               .cancel = g->plan->cancel};
        s = mb__load_step_run(&in, &o, err);
    }
    if (!s) {
        mb__load_req rq = *g->req;
        rq.slo_ns = 0;
        rq.records_max = 0;
        mb__load_step_ctx c = {&rq, "floor",   "poisson", threads, qps,
                               arr, (size_t)n, 0,         NAN};
        json_t *st = mb__load_step_json(&c, &o, g->warnings);
        if (!st) {
            s = mb__fail(err, MB_ENOMEM, "out of memory");
        } else {
            const json_t *lat = json_object_get(st, "latency");
            g->floor_p99_ns = mb__load_jd(lat, "p99");
            json_object_set_new(
                load, "harness_floor",
                json_pack("{s:s,s:f,s:I,s:I,s:o,s:o,s:o,s:o,s:O,s:s}",
                          "backend", "null (run() returns at once)", "qps", qps,
                          "threads", (json_int_t)threads, "requests",
                          (json_int_t)n, "p50_ns",
                          num(mb__load_jd(lat, "median")), "p90_ns",
                          num(mb__load_jd(lat, "p90")), "p99_ns",
                          num(g->floor_p99_ns), "max_ns",
                          num(mb__load_jd(lat, "max")), "dispatch",
                          json_object_get(st, "dispatch"), "method",
                          "latency from the scheduled arrival of a request "
                          "that takes no time, through the same threads "
                          "and issue path: what the harness alone adds on "
                          "this machine now, the least p99 any model can "
                          "show here"));
            json_decref(st);
        }
    }
    free(o.r);
    free(arr);
    for (size_t i = 0; h && i < opened; i++)
        nb->close(h[i]);
    if (state)
        nb->unload(state);
    free(h);
    return s;
}

/* ---- sessions ---------------------------------------------------------- */

static void engine_close(engine *g)
{
    for (size_t i = 0; i < g->n_twins; i++)
        g->be->close(g->twins[i]);
    for (size_t i = 0; i < g->n_benches; i++)
        mb__bench_close(g->benches[i]);
    free(g->twins);
    free(g->benches);
    free(g->handles);
    free(g->probes);
}

/* Opens the sessions and one handle per thread: thread i uses session
 * i % S itself when i < S, else a twin of it made by share(). */
static mb_status engine_open(engine *g, size_t threads, mb_err *err)
{
    const mb__plan *p = g->plan;
    size_t S = (size_t)g->req->sessions;
    int64_t batch = p->n_batches ? p->batches[0] : 1;
    g->benches = mb__calloc(S, sizeof *g->benches);
    g->handles = mb__calloc(threads, sizeof *g->handles);
    g->twins = mb__calloc(threads, sizeof *g->twins);
    if (!g->benches || !g->handles || !g->twins)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    for (size_t i = 0; i < S; i++) {
        mb_status s = mb__bench_open(p, batch, &g->benches[i], err);
        if (s)
            return s;
        g->n_benches++;
        g->handles[i] = mb__bench_session(g->benches[i], &g->be);
    }
    if (threads > S && !MB_BACKEND_HAS_SHARE(g->be))
        return mb__fail(err, MB_EUNSUPPORTED,
                        "the %s backend cannot share a session between "
                        "threads; use --sessions %zu (one per thread)",
                        g->be->name, threads);
    for (size_t i = S; i < threads; i++) {
        mb__bench *b = g->benches[i % S];
        const mb_backend *be;
        void *sess = mb__bench_session(b, &be);
        void *t = NULL;
        mb_status s = g->be->share(sess, &t, err);
        if (s)
            return s;
        g->twins[g->n_twins++] = t;
        size_t n_in;
        const mb_tensor *in = mb__bench_inputs(b, &n_in);
        s = g->be->prepare(t, in, n_in, err);
        if (s)
            return s;
        g->handles[i] = t;
    }
    return MB_OK;
}

static size_t max_threads(const mb__load_req *rq)
{
    int64_t m = 0;
    for (size_t i = 0; i < rq->n_concurrency; i++)
        m = max_i64(m, rq->concurrency[i]);
    if (m <= 0)
        m = rq->scenario == MB_LOAD_CLOSED ? 1 : mb__cpu_logical();
    return (size_t)(m > 0 ? m : 1);
}

static mb_status set_cpus(const mb__load_req *rq, cpu_set_t *saved, mb_err *err)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    for (size_t i = 0; i < rq->n_cpus; i++) {
        if (rq->cpus[i] < 0 || rq->cpus[i] >= CPU_SETSIZE)
            return mb__fail(err, MB_EINVAL, "--cpus: CPU %d is out of range",
                            rq->cpus[i]);
        CPU_SET(rq->cpus[i], &set);
    }
    if (sched_getaffinity(0, sizeof *saved, saved) ||
        sched_setaffinity(0, sizeof set, &set))
        return mb__fail(err, MB_EINVAL,
                        "--cpus: cannot run on those CPUs (%s); this machine "
                        "has CPUs 0-%d",
                        strerror(errno), mb__cpu_logical() - 1);
    return MB_OK;
}

/* ---- the whole run ----------------------------------------------------- */

static const char *const rt_names[] = {"none", "wait", "serve", "auto"};

/* --realtime auto: for arrivals (Poisson, the search) serve (the
 * requests too) when fewer serving threads than CPUs (the machine keeps a
 * core for everything else) and either the model runs on one intra-op
 * thread (no runtime thread of lower priority for a serving thread to
 * wait on) or the backend only simulates a model (the null backend); else
 * wait.  A closed loop or offline step is saturated throughout: it would
 * hold a core at real-time priority for the whole step, so it runs at the
 * thread's own priority (a search's calibration too). */
static int resolve_realtime(const mb__plan *plan, const mb__load_req *rq,
                            const mb_backend *be, size_t threads)
{
    if (rq->realtime != MB_LOAD_RT_AUTO)
        return rq->realtime;
    if (rq->scenario == MB_LOAD_CLOSED || rq->scenario == MB_LOAD_OFFLINE)
        return MB_LOAD_RT_WAIT; /* saturated throughout: a core held */
    const char *t = mb__plan_get_opt(plan, "threads");
    size_t cpus = rq->n_cpus ? rq->n_cpus : (size_t)mb__cpu_logical();
    bool one = (t && !strcmp(t, "1")) ||
               (be && (mb__backend_caps(be) & MB_BACKEND_CAP_SIMULATED));
    return one && threads < cpus ? MB_LOAD_RT_SERVE : MB_LOAD_RT_WAIT;
}

static const char *scen_name(mb__load_scenario s)
{
    static const char *const n[] = {"closed", "poisson", "offline", "slo"};
    return n[s];
}

/* The rate of the harness-floor step: the first --qps rate (at most
 * 20000/s), else 2000/s per thread. */
static double floor_rate(const mb__load_req *rq, size_t threads)
{
    if (rq->scenario == MB_LOAD_POISSON && rq->n_qps)
        return rq->qps[0] < 20000 ? rq->qps[0] : 20000;
    return 2000.0 * (double)threads;
}

/* Copies into the document's warnings those of the steps a reader acts
 * on: every measured step, and the steps that gave a search's answer. */
/* True when step i (st) gave one of the searches' answers (either
 * question's): a step of that search at the rate it answered. */
static bool answer_step(const json_t *load, size_t i, const json_t *st)
{
    const char *basis;
    const json_t *one, *srch;
    size_t j;
    json_object_foreach((json_t *)json_object_get(load, "slo_answers"), basis,
                        one)
    {
        json_array_foreach(json_object_get(one, "searches"), j, srch)
        {
            const json_t *idx = json_object_get(srch, "step_indexes");
            double q = mb__load_jd(srch, "qps");
            for (size_t k = 0; k < json_array_size(idx); k++)
                if ((size_t)json_integer_value(json_array_get(idx, k)) == i &&
                    q > 0 && fabs(mb__load_jd(st, "target_qps") / q - 1) < 1e-9)
                    return true;
        }
    }
    return false;
}

static void promote_warnings(engine *g, const json_t *load)
{
    size_t i, j;
    const json_t *st, *w;
    json_array_foreach(g->steps, i, st)
    {
        const char *role = json_string_value(json_object_get(st, "role"));
        if (!(role && !strcmp(role, "measure")) && !answer_step(load, i, st))
            continue;
        json_array_foreach(json_object_get(st, "warnings"), j, w)
            json_array_append(g->warnings, (json_t *)w);
    }
}

/* The SLO answer on both bases, the searches interleaved (docs/LOAD.md,
 * "Two answers"): --repeat searches judged on the replay without dispatch
 * delays at the resolved priority (model capacity, harness delays
 * removed), and as many judged on the latency as measured at normal
 * priority (--realtime none; the given priority when --realtime was
 * given) as a normal-priority server measured it.  load.slo_answers has
 * both summaries; load.search is the one --slo-basis names. */
static mb_status slo_searches(engine *g, size_t threads, json_t *load,
                              mb_err *err)
{
    const mb__load_req *rq = g->req;
    mb__load_req q[2] = {*rq, *rq};
    q[MB_LOAD_BASIS_MODEL].slo_basis = MB_LOAD_BASIS_MODEL;
    q[MB_LOAD_BASIS_MEASURED].slo_basis = MB_LOAD_BASIS_MEASURED;
    int rt[2] = {g->realtime, rq->realtime == MB_LOAD_RT_AUTO ? MB_LOAD_RT_NONE
                                                              : g->realtime};
    q[MB_LOAD_BASIS_MEASURED].realtime = rt[MB_LOAD_BASIS_MEASURED];
    json_t *searches[2] = {json_array(), json_array()};
    mb_status s = MB_OK;
    for (int k = 0; !s && k < rq->repeat && !g->interrupted; k++)
        for (int b = 0; !s && b < 2 && !g->interrupted; b++) {
            g->req = &q[b];
            g->realtime = rt[b];
            g->set = b;
            s = mb__load_search(g, threads, (size_t)k, searches[b], err);
        }
    json_t *both = json_object();
    for (int b = 0; b < 2; b++) {
        g->req = &q[b];
        g->realtime = rt[b];
        g->set = b;
        json_object_set_new(both, mb__load_basis_name(b),
                            mb__load_search_summary(g, searches[b]));
    }
    g->req = rq;
    g->realtime = rt[MB_LOAD_BASIS_MODEL];
    json_object_set(load, "search",
                    json_object_get(both, mb__load_basis_name(rq->slo_basis)));
    json_object_set_new(load, "slo_answers", both);
    return s;
}

static mb_status run_scenario(engine *g, size_t threads, json_t *load,
                              mb_err *err)
{
    const mb__load_req *rq = g->req;
    const mb__plan *p = g->plan;
    json_t *st = NULL;
    mb_status s = MB_OK;
    if (rq->scenario == MB_LOAD_POISSON || rq->scenario == MB_LOAD_SLO)
        s = harness_floor(g, threads, floor_rate(rq, threads), load, err);
    switch (s ? MB_LOAD_CLOSED + 100 : (int)rq->scenario) {
    case MB_LOAD_CLOSED:
        for (size_t i = 0; !s && i < rq->n_concurrency && !g->interrupted; i++)
            s = mb__load_closed_step(g, "measure", (size_t)rq->concurrency[i],
                                     p->min_time_ns, &st, err);
        if (!rq->n_concurrency)
            s = mb__load_closed_step(g, "measure", threads, p->min_time_ns, &st,
                                     err);
        break;
    case MB_LOAD_POISSON:
        for (size_t i = 0; !s && i < rq->n_qps && !g->interrupted; i++) {
            int64_t n = max_i64(
                p->min_iters,
                (int64_t)ceil(rq->qps[i] * (double)p->min_time_ns / 1e9));
            if (p->fixed_iters > 0)
                n = p->fixed_iters;
            s = mb__load_open_step(g, "measure", threads, rq->qps[i], n, 0, &st,
                                   err);
        }
        break;
    case MB_LOAD_OFFLINE: {
        int64_t n = rq->requests > 0 ? rq->requests : p->fixed_iters;
        if (n <= 0) {
            /* As many as the threads serve in --min-time, from a short
             * closed-loop estimate (the calibration step). */
            s = mb__load_closed_step(g, "calibrate", threads,
                                     p->min_time_ns < 300000000 ? p->min_time_ns
                                                                : 300000000,
                                     &st, err);
            double cap = s ? 0 : mb__load_jd(st, "achieved_qps");
            n = max_i64(p->min_iters,
                        (int64_t)(cap * (double)p->min_time_ns / 1e9));
        }
        if (!s)
            s = mb__load_open_step(g, "measure", threads, 0, n, 1, &st, err);
        break;
    }
    case MB_LOAD_SLO:
        s = slo_searches(g, threads, load, err);
        break;
    default:
        break;
    }
    if (!s)
        promote_warnings(g, load);
    if (!s && rq->slo_ns > 0 && g->floor_p99_ns > (double)rq->slo_ns) {
        char w[300];
        snprintf(w, sizeof w,
                 "the bound %.3g ms is below this machine's harness floor "
                 "(p99 %.3g ms with a model that takes no time): no model "
                 "can meet it here now",
                 (double)rq->slo_ns / 1e6, g->floor_p99_ns / 1e6);
        json_array_append_new(g->warnings, json_string(w));
    }
    return s;
}

mb_status mb__load_req_check(const mb__load_req *rq, mb_err *err)
{
    unsigned g = rq->given;
    if (g & (g - 1))
        return mb__fail(err, MB_EINVAL,
                        "--qps, --offline and --slo are "
                        "different scenarios; give one of them");
    if (rq->scenario != MB_LOAD_CLOSED && rq->n_concurrency > 1)
        return mb__fail(err, MB_EINVAL,
                        "a list of --concurrency values is "
                        "a closed-loop sweep; with --qps, --offline or "
                        "--slo give one thread count");
    return MB_OK;
}

/* What load needs of the request beyond mb__load_req_check, with
 * threads the serving threads. */
static mb_status check_run(const mb__plan *plan, const mb__load_req *rq,
                           size_t threads, mb_err *err)
{
    if (rq->sessions < 1 || (size_t)rq->sessions > threads)
        return mb__fail(err, MB_EINVAL,
                        "--sessions %d: expected 1 (one shared session) up "
                        "to the %zu serving threads (--concurrency)",
                        rq->sessions, threads);
    if (rq->scenario == MB_LOAD_SLO && rq->slo_ns <= 0)
        return mb__fail(err, MB_EINVAL,
                        "the SLO search needs a bound, such "
                        "as --slo p99=20ms");
    if (rq->scenario == MB_LOAD_POISSON && !rq->n_qps)
        return mb__fail(err, MB_EINVAL,
                        "Poisson arrivals need a rate, such "
                        "as --qps 500");
    if (plan->n_batches > 1)
        return mb__fail(err, MB_EINVAL,
                        "mbench load serves one batch size "
                        "per request; give one --batch value");
    return MB_OK;
}

/* Opens the engine and runs the scenario into load (its "run" skeleton
 * first); the caller closes the engine. */
static mb_status serve(engine *g, size_t threads, json_t *load, mb_err *err)
{
    const mb__plan *plan = g->plan;
    mb_status s = engine_open(g, threads, err);
    g->realtime = resolve_realtime(plan, g->req, g->be, threads);
    if (s)
        return s;
    int64_t batch = plan->n_batches ? plan->batches[0] : 1;
    json_t *model = mb__model_json(plan);
    json_t *run =
        mb__bench_run_skeleton(plan, g->benches[0], batch, model, -1, -1);
    json_decref(model);
    json_object_set_new(load, "run", run);
    return run_scenario(g, threads, load, err);
}

/* The "rules" object: how latency, the open loop, the SLO steps and the
 * pacing were done. */
static json_t *rules_json(const mb__plan *plan, const mb__load_req *rq,
                          int realtime)
{
    return json_pack(
        "{s:s,s:s,s:s,s:I,s:I,s:s,s:I,s:I,s:s,s:s,s:s}", "latency",
        "from the scheduled arrival to the end of the request "
        "(queueing counted); closed loop: arrival = start",
        "open_loop",
        "arrivals fixed in advance; a request not started within "
        "max(arrival span, 1 s) after the last arrival (and "
        "--max-time; offline: --max-time) is dropped",
        "slo_step",
        "at least max(--min-iterations, 2 x the early-stopping "
        "minimum) requests and --min-time of arrivals, within "
        "--max-time; passes when the early-stopping test holds",
        "warmup_per_thread", (json_int_t)plan->warmup_iters, "spin_ns",
        (json_int_t)rq->spin_ns, "spin",
        rq->spin_ns == MB_LOAD_SPIN_AUTO
            ? "auto: sleep to a margin that follows the wake-up "
              "lateness (at most 200 us), then spin"
            : "fixed margin (--spin), then spin",
        "min_time_ns", (json_int_t)plan->min_time_ns, "max_time_ns",
        (json_int_t)plan->max_time_ns, "early_stopping",
        rq->estop_rule == MB_ESTOP_LOADGEN ? "loadgen" : "exact", "realtime",
        rt_names[realtime], "slo_basis",
        rq->slo_basis == MB_LOAD_BASIS_MODEL ? "model" : "measured");
}

/* The settings of the load object: scenario, threads, sessions, CPUs and
 * rules. */
static void add_settings(json_t *load, const engine *g, size_t threads)
{
    const mb__plan *plan = g->plan;
    const mb__load_req *rq = g->req;
    json_t *cpus = json_null();
    if (rq->n_cpus) {
        cpus = json_array();
        for (size_t i = 0; i < rq->n_cpus; i++)
            json_array_append_new(cpus, json_integer(rq->cpus[i]));
    }
    const char *thr = mb__plan_get_opt(plan, "threads");
    json_object_set_new(load, "scenario", json_string(scen_name(rq->scenario)));
    json_object_set_new(load, "threads", json_integer((json_int_t)threads));
    json_object_set_new(load, "sessions", json_integer(rq->sessions));
    json_object_set_new(load, "shared_session",
                        json_boolean(threads > (size_t)rq->sessions));
    json_object_set_new(load, "intra_op_threads",
                        thr ? json_string(thr) : json_null());
    json_object_set_new(load, "cpus", cpus);
    json_object_set_new(load, "rules", rules_json(plan, rq, g->realtime));
}

/* What the document's statistics mean: latency, early stopping and the
 * split of a request's time. */
static void add_statistics(json_t *doc, const mb__load_req *rq)
{
    json_t *stats = json_object_get(doc, "statistics");
    json_object_set_new(stats, "latency",
                        json_string("end of the request minus its scheduled "
                                    "arrival (queueing counted)"));
    json_object_set_new(
        stats, "early_stopping",
        json_string(
            rq->estop_rule == MB_ESTOP_LOADGEN
                ? "MLPerf LoadGen's rules: a bound L holds when the t "
                  "requests over L satisfy P(Binomial(n,1-q) <= t) < 1-c "
                  "(its Server test); the upper bound on the q-quantile is "
                  "x_(n-t+1), t the largest count passing that test, t >= 1 "
                  "(its single-stream estimate); requests assumed "
                  "independent"
                : "one-sided binomial bound on a percentile q at "
                  "confidence c: the order statistic x_(j), j smallest "
                  "with P(Binomial(n,q) <= j-1) >= c; a bound L holds "
                  "when P(Binomial(n,1-q) <= k) <= 1-c for k requests "
                  "over L (the count test of MLPerf LoadGen's Server "
                  "scenario; its percentile estimate is the next order "
                  "statistic, --early-stopping loadgen); requests assumed "
                  "independent"));
    json_object_set_new(
        stats, "dispatch",
        json_string("latency = queueing + dispatch + service per request: "
                    "queueing = ready - arrival, ready the later of the "
                    "arrival and the end of the serving thread's previous "
                    "request; dispatch = start - ready (the harness); "
                    "service = end - start (the model)"));
}

mb_status mb__load_run(const mb__plan *plan, const mb__load_req *rq,
                       json_t **doc_out, mb_err *err)
{
    *doc_out = NULL;
    mb_status cs = mb__load_req_check(rq, err);
    if (cs)
        return cs;
    size_t threads = max_threads(rq);
    if ((cs = check_run(plan, rq, threads, err)))
        return cs;
    cpu_set_t saved;
    if (rq->n_cpus && (cs = set_cpus(rq, &saved, err)))
        return cs;
    engine g;
    memset(&g, 0, sizeof g);
    g.plan = plan;
    g.req = rq;
    g.steps = json_array();
    g.warnings = json_array();
    g.floor_p99_ns = NAN;
    mb__rng_seed(&g.rng, plan->seed ^ 0x6c6f6164ULL);
    json_t *doc = mb__doc_new("load", NULL), *load = json_object();
    mb_status s = serve(&g, threads, load, err);
    if (rq->n_cpus)
        sched_setaffinity(0, sizeof saved, &saved);
    engine_close(&g);
    if (s) {
        json_decref(load);
        json_decref(doc);
        json_decref(g.steps);
        json_decref(g.warnings);
        return s;
    }
    add_settings(load, &g, threads);
    json_object_set_new(load, "steps", g.steps);
    add_statistics(doc, rq);
    json_object_set_new(doc, "load", load);
    json_t *w = json_object_get(doc, "warnings");
    json_array_extend(w, g.warnings);
    json_decref(g.warnings);
    if (g.interrupted)
        json_object_set_new(doc, "interrupted", json_true());
    *doc_out = doc;
    return MB_OK;
}
