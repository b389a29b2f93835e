/* load.c - the serving-load engine (load.h): sessions and threads, one
 * step (warmup, then a closed or open loop), its statistics, and the
 * search for the highest rate under a latency bound. */
#include "load/load.h"
#include "load/estop.h"
#include "load/step.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/parse.h"
#include "core/rng.h"
#include "core/stats.h"
#include "core/sysinfo.h"
#include "runner/runner.h"

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
    r->repeat = 1;
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

int mb__load_req_set(mb__load_req *r, const char *key, const char *v,
                     mb_err *err)
{
    int64_t i;
    double d;
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
    if (!strcmp(key, "qps")) {
        char *copy = mb__strdup(v), *save = NULL;
        size_t n = 0;
        int ok = copy != NULL;
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
    if (!strcmp(key, "queued") || !strcmp(key, "spin")) {
        if (!mb__parse_duration_ns(v, &i) || i < 0 || i > 1000000000)
            return bad(err, key, v, "a duration from 0 to 1s, such as 1ms");
        *(key[0] == 'q' ? &r->queued_ns : &r->spin_ns) = i;
        return 0;
    }
    return 1;
}

/* The engine's state across steps. */
typedef struct {
    const mb_plan *plan;
    const mb__load_req *req;
    const mb_backend *be;
    mb_bench **benches;
    size_t n_benches;
    void **handles; /* one per thread */
    void **twins;   /* handles made by share() (closed before benches) */
    size_t n_handles, n_twins;
    json_t *steps;
    json_t *warnings;
    mb_rng rng;
    int interrupted;
} engine;

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static double jd(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* ---- scenarios --------------------------------------------------------- */

static int64_t max_i64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

int64_t *mb__load_poisson_schedule(mb_rng *rng, double qps, size_t n)
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
    const mb_plan *p = g->plan;
    mb__load_step_in in = {g->be->run,
                           g->handles,
                           threads,
                           arr == NULL,
                           arr,
                           n_arr,
                           dur_ns,
                           n_min,
                           p->max_time_ns,
                           p->warmup_iters,
                           p->warmup_time_ns,
                           g->req->spin_ns,
                           p->cancel};
    mb__load_step_out o;
    mb_status s = mb__load_step_run(&in, &o, err);
    if (s)
        return s;
    g->interrupted |= o.interrupted;
    json_t *j =
        mb__load_step_json(g->req, role, scen, threads, target, arr, n_arr, &o,
                           json_array_size(g->steps) + 1, g->warnings);
    free(o.r);
    json_array_append_new(g->steps, j);
    *out = j;
    return MB_OK;
}

static mb_status closed_step(engine *g, const char *role, size_t threads,
                             int64_t dur_ns, json_t **out, mb_err *err)
{
    int64_t n_min =
        g->plan->fixed_iters > 0 ? g->plan->fixed_iters : g->plan->min_iters;
    if (g->plan->fixed_iters > 0) /* --iterations: that many, not a time */
        dur_ns = 0;
    return step(g, role, "closed", threads, 0, NULL, 0, dur_ns, n_min, out,
                err);
}

static mb_status open_step(engine *g, const char *role, size_t threads,
                           double qps, int64_t n_req, int offline, json_t **out,
                           mb_err *err)
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

/* Requests an SLO step at rate qps issues: at least --min-iterations and
 * twice the early-stopping minimum, and at least --min-time of arrivals,
 * within --max-time. */
static int64_t slo_requests(const engine *g, double qps)
{
    const mb_plan *p = g->plan;
    int64_t need = max_i64(
        p->min_iters, 2 * mb__estop_min_n(g->req->slo_q, g->req->confidence));
    int64_t by_time = (int64_t)ceil(qps * (double)p->min_time_ns / 1e9);
    int64_t n = max_i64(need, by_time);
    int64_t cap = (int64_t)(qps * (double)p->max_time_ns / 1e9);
    if (p->max_time_ns > 0 && n > cap)
        n = max_i64(cap, 1);
    return n;
}

static int step_pass(const json_t *st)
{
    return json_is_true(json_object_get(json_object_get(st, "slo"), "pass"));
}

/* One search: calibrate with a closed loop at full concurrency, bracket
 * from 0.8 of that capacity (x1.5 up, /2 down), then bisect until the
 * bracket is within the tolerance.  Appends a "searches" entry. */
static mb_status search(engine *g, size_t threads, size_t index,
                        json_t *searches, mb_err *err)
{
    const mb__load_req *rq = g->req;
    json_t *cal = NULL, *st = NULL;
    size_t first = json_array_size(g->steps);
    int64_t cal_ns =
        g->plan->min_time_ns < 500000000 ? g->plan->min_time_ns : 500000000;
    mb_status s = closed_step(g, "calibrate", threads, cal_ns, &cal, err);
    if (s)
        return s;
    double cap = jd(cal, "achieved_qps");
    if (!(cap > 0))
        return mb__fail(err, MB_EBACKEND,
                        "calibration measured no "
                        "throughput: %s",
                        json_string_value(json_object_get(cal, "error"))
                            ? json_string_value(json_object_get(cal, "error"))
                            : "no request completed");
    double lo = 0, hi = INFINITY, r = 0.8 * cap;
    json_t *best = NULL;
    int steps = 0;
    const char *end = "step limit (--max-steps)";
    while (steps < rq->max_steps && !g->interrupted) {
        int bisect = lo > 0 && isfinite(hi);
        s = open_step(g, bisect ? "bisect" : "bracket", threads, r,
                      slo_requests(g, r), 0, &st, err);
        if (s)
            return s;
        steps++;
        if (step_pass(st)) {
            lo = r;
            best = st;
        } else {
            hi = r;
        }
        if (!isfinite(hi)) {
            if (r * 1.5 > 4 * cap) {
                end = "passes at 4x the calibrated capacity";
                break;
            }
            r *= 1.5;
        } else if (lo <= 0) {
            if (r / 2 < cap / 64) {
                end = "no rate down to capacity/64 meets the bound";
                break;
            }
            r /= 2;
        } else {
            if ((hi - lo) / hi <= rq->tolerance) {
                end = "bracket within the tolerance";
                break;
            }
            r = (lo + hi) / 2;
        }
    }
    if (g->interrupted)
        end = "interrupted";
    json_t *idx = json_array();
    for (size_t k = first; k < json_array_size(g->steps); k++)
        json_array_append_new(idx, json_integer((json_int_t)k));
    json_array_append_new(
        searches,
        json_pack("{s:I,s:f,s:o,s:o,s:o,s:o,s:o,s:i,s:s,s:o}", "search",
                  (json_int_t)index, "capacity_qps", cap, "qps",
                  lo > 0 ? json_real(lo) : json_real(0), "achieved_qps",
                  best ? num(jd(best, "achieved_qps")) : json_real(0),
                  "bracket",
                  json_pack("[o,o]", json_real(lo),
                            isfinite(hi) ? json_real(hi) : json_null()),
                  "p_at_qps",
                  best ? json_deep_copy(json_object_get(
                             json_object_get(best, "latency"), "p99"))
                       : json_null(),
                  "met", json_boolean(lo > 0), "steps", steps, "ended_by", end,
                  "step_indexes", idx));
    return MB_OK;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The summary over searches: median answer and its spread. */
static json_t *search_summary(const mb__load_req *rq, json_t *searches)
{
    size_t k = json_array_size(searches);
    double q[64], a[64];
    size_t n = 0;
    for (size_t i = 0; i < k && n < 64; i++, n++) {
        q[n] = jd(json_array_get(searches, i), "qps");
        a[n] = jd(json_array_get(searches, i), "achieved_qps");
    }
    qsort(q, n, sizeof *q, cmp_d);
    qsort(a, n, sizeof *a, cmp_d);
    double med = n ? (n % 2 ? q[n / 2] : (q[n / 2 - 1] + q[n / 2]) / 2) : 0;
    double amed = n ? (n % 2 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2) : 0;
    return json_pack("{s:f,s:I,s:f,s:f,s:i,s:o,s:o,s:o,s:o,s:b,s:o}",
                     "percentile", rq->slo_q * 100, "bound_ns",
                     (json_int_t)rq->slo_ns, "confidence", rq->confidence,
                     "tolerance", rq->tolerance, "repeat", (int)n, "qps",
                     json_real(med), "achieved_qps", json_real(amed), "min_qps",
                     n ? json_real(q[0]) : json_null(), "max_qps",
                     n ? json_real(q[n - 1]) : json_null(), "met", med > 0,
                     "searches", searches);
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
}

/* Opens the sessions and one handle per thread: thread i uses session
 * i % S itself when i < S, else a twin of it made by share(). */
static mb_status engine_open(engine *g, size_t threads, mb_err *err)
{
    const mb_plan *p = g->plan;
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
        mb_bench *b = g->benches[i % S];
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

static const char *scen_name(mb__load_scenario s)
{
    static const char *const n[] = {"closed", "poisson", "offline", "slo"};
    return n[s];
}

static mb_status run_scenario(engine *g, size_t threads, json_t *load,
                              mb_err *err)
{
    const mb__load_req *rq = g->req;
    const mb_plan *p = g->plan;
    json_t *st = NULL;
    mb_status s = MB_OK;
    switch (rq->scenario) {
    case MB_LOAD_CLOSED:
        for (size_t i = 0; !s && i < rq->n_concurrency && !g->interrupted; i++)
            s = closed_step(g, "measure", (size_t)rq->concurrency[i],
                            p->min_time_ns, &st, err);
        if (!rq->n_concurrency)
            s = closed_step(g, "measure", threads, p->min_time_ns, &st, err);
        break;
    case MB_LOAD_POISSON:
        for (size_t i = 0; !s && i < rq->n_qps && !g->interrupted; i++) {
            int64_t n = max_i64(
                p->min_iters,
                (int64_t)ceil(rq->qps[i] * (double)p->min_time_ns / 1e9));
            if (p->fixed_iters > 0)
                n = p->fixed_iters;
            s = open_step(g, "measure", threads, rq->qps[i], n, 0, &st, err);
        }
        break;
    case MB_LOAD_OFFLINE: {
        int64_t n = rq->requests > 0 ? rq->requests : p->fixed_iters;
        if (n <= 0) {
            /* As many as the threads serve in --min-time, from a short
             * closed-loop estimate (the calibration step). */
            s = closed_step(g, "calibrate", threads,
                            p->min_time_ns < 300000000 ? p->min_time_ns
                                                       : 300000000,
                            &st, err);
            double cap = s ? 0 : jd(st, "achieved_qps");
            n = max_i64(p->min_iters,
                        (int64_t)(cap * (double)p->min_time_ns / 1e9));
        }
        if (!s)
            s = open_step(g, "measure", threads, 0, n, 1, &st, err);
        break;
    }
    case MB_LOAD_SLO: {
        json_t *searches = json_array();
        for (int k = 0; !s && k < rq->repeat && !g->interrupted; k++)
            s = search(g, threads, (size_t)k, searches, err);
        json_object_set_new(load, "search", search_summary(rq, searches));
        break;
    }
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

mb_status mb__load_run(const mb_plan *plan, const mb__load_req *rq,
                       json_t **doc_out, mb_err *err)
{
    *doc_out = NULL;
    mb_status cs = mb__load_req_check(rq, err);
    if (cs)
        return cs;
    size_t threads = max_threads(rq);
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
    cpu_set_t saved;
    if (rq->n_cpus) {
        mb_status s = set_cpus(rq, &saved, err);
        if (s)
            return s;
    }
    engine g;
    memset(&g, 0, sizeof g);
    g.plan = plan;
    g.req = rq;
    g.steps = json_array();
    g.warnings = json_array();
    mb__rng_seed(&g.rng, plan->seed ^ 0x6c6f6164ULL);
    json_t *doc = mb__doc_new("load", NULL), *load = json_object();
    mb_status s = engine_open(&g, threads, err);
    if (!s) {
        int64_t batch = plan->n_batches ? plan->batches[0] : 1;
        json_t *model = mb__model_json(plan);
        json_t *run =
            mb__bench_run_skeleton(plan, g.benches[0], batch, model, -1, -1);
        json_decref(model);
        json_object_set_new(load, "run", run);
        s = run_scenario(&g, threads, load, err);
    }
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
    json_object_set_new(
        load, "rules",
        json_pack("{s:s,s:s,s:s,s:I,s:I,s:I,s:I}", "latency",
                  "from the scheduled arrival to the end of the request "
                  "(queueing counted); closed loop: arrival = start",
                  "open_loop",
                  "arrivals fixed in advance; a request not started within "
                  "max(arrival span, 1 s) after the last arrival (and "
                  "--max-time) is dropped",
                  "slo_step",
                  "at least max(--min-iterations, 2 x the early-stopping "
                  "minimum) requests and --min-time of arrivals, within "
                  "--max-time; passes when the early-stopping test holds",
                  "warmup_per_thread", (json_int_t)plan->warmup_iters,
                  "spin_ns", (json_int_t)rq->spin_ns, "min_time_ns",
                  (json_int_t)plan->min_time_ns, "max_time_ns",
                  (json_int_t)plan->max_time_ns));
    json_object_set_new(load, "steps", g.steps);
    json_t *stats = json_object_get(doc, "statistics");
    json_object_set_new(stats, "latency",
                        json_string("end of the request minus its scheduled "
                                    "arrival (queueing counted)"));
    json_object_set_new(
        stats, "early_stopping",
        json_string("one-sided binomial bound on a percentile q at "
                    "confidence c: the order statistic x_(j), j smallest "
                    "with P(Binomial(n,q) <= j-1) >= c; a bound L holds "
                    "when P(Binomial(n,1-q) <= k) <= 1-c for k requests "
                    "over L (MLPerf LoadGen early stopping); requests "
                    "assumed independent"));
    json_object_set_new(doc, "load", load);
    json_t *w = json_object_get(doc, "warnings");
    json_array_extend(w, g.warnings);
    json_decref(g.warnings);
    if (g.interrupted)
        json_object_set_new(doc, "interrupted", json_true());
    *doc_out = doc;
    return MB_OK;
}
