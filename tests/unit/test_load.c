/* test_load.c - the serving-load engine: the early-stopping arithmetic
 * against scipy, the arrival schedule against queueing theory (untimed),
 * and every step the engine measures against its own per-request records.
 *
 * No check here depends on how fast this machine is or how busy it is
 * (make test runs on loaded machines and under ../shared/tools/steal-time.sh):
 * the timed runs use the null backend's fixed service time spent asleep
 * and are held to accounting identities that hold at any load - the
 * records add up to the counts, rates and means of the document; a server
 * serves one request at a time, so throughput x mean service <= servers;
 * a sleep of S never takes less than S; the replay without dispatch
 * delays equals the measured latency minus the dispatch delay for every
 * request that found its server idle; the early-stopping bounds are the
 * order statistics the binomial arithmetic names.  How close the
 * figures come to N / S and to an M/D/1 queue is a performance figure:
 * bench/load.sh measures it (make bench). */
#include "t.h"

#include "load/estop.h"
#include "load/load.h"
#include "load/stepstat.h"
#include "plan/plan.h"

#include "core/stats.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>

/* References from scipy.stats.binom (tests/unit comment, not run here):
 * largest k with binom.cdf(k, n, 1-q) <= 1-c, c = 0.99. */
static void estop_matches_scipy_binomial(void)
{
    EXPECT_EQ_INT(mb__estop_min_n(0.99, 0.99, MB_ESTOP_EXACT), 459);
    EXPECT_EQ_INT(mb__estop_min_n(0.90, 0.99, MB_ESTOP_EXACT), 44);
    EXPECT_EQ_INT(mb__estop_min_n(0.999, 0.99, MB_ESTOP_EXACT), 4603);
    EXPECT_EQ_INT(mb__estop_max_over(458, 0.99, 0.99, MB_ESTOP_EXACT), -1);
    EXPECT_EQ_INT(mb__estop_max_over(459, 0.99, 0.99, MB_ESTOP_EXACT), 0);
    EXPECT_EQ_INT(mb__estop_max_over(918, 0.99, 0.99, MB_ESTOP_EXACT), 2);
    EXPECT_EQ_INT(mb__estop_max_over(1000, 0.99, 0.99, MB_ESTOP_EXACT), 2);
    EXPECT_EQ_INT(mb__estop_max_over(5000, 0.99, 0.99, MB_ESTOP_EXACT), 33);
    EXPECT_EQ_INT(mb__estop_max_over(10000, 0.999, 0.99, MB_ESTOP_EXACT), 2);
    EXPECT_EQ_INT(mb__estop_rank(458, 0.99, 0.99, MB_ESTOP_EXACT), 0);
    EXPECT_EQ_INT(mb__estop_rank(5000, 0.99, 0.99, MB_ESTOP_EXACT), 5000 - 33);
    EXPECT(mb__estop_pass(5000, 33, 0.99, 0.99, MB_ESTOP_EXACT));
    EXPECT(!mb__estop_pass(5000, 34, 0.99, 0.99, MB_ESTOP_EXACT));
}

/* MLPerf LoadGen's rules (results.cc, early_stopping.cc): its percentile
 * estimate needs 64/130/662/6636 requests for p90/p95/p99/p99.9 at 99%
 * confidence, and is the order statistic just above the exact bound; its
 * Server pass test is the same count with a strict inequality.  The
 * counts were checked with scipy: the smallest n with
 * binom.cdf(1, n, 1-q) < 0.01. */
static void estop_loadgen_rule_takes_the_next_order_statistic(void)
{
    const mb__estop_rule L = MB_ESTOP_LOADGEN, E = MB_ESTOP_EXACT;
    EXPECT_EQ_INT(mb__estop_min_n(0.90, 0.99, L), 64);
    EXPECT_EQ_INT(mb__estop_min_n(0.95, 0.99, L), 130);
    EXPECT_EQ_INT(mb__estop_min_n(0.99, 0.99, L), 662);
    EXPECT_EQ_INT(mb__estop_min_n(0.999, 0.99, L), 6636);
    EXPECT_EQ_INT(mb__estop_rank(661, 0.99, 0.99, L), 0);
    EXPECT_EQ_INT(mb__estop_rank(662, 0.99, 0.99, L), 662);
    EXPECT_EQ_INT(mb__estop_rank(662, 0.99, 0.99, E), 661);
    for (int64_t n = 700; n <= 20000; n += 1300)
        EXPECT_EQ_INT(mb__estop_rank(n, 0.99, 0.99, L),
                      mb__estop_rank(n, 0.99, 0.99, E) + 1);
    /* the Server test agrees with the exact one except at equality */
    EXPECT(mb__estop_pass(5000, 33, 0.99, 0.99, L));
    EXPECT(!mb__estop_pass(5000, 34, 0.99, 0.99, L));
    EXPECT(mb__estop_pass(459, 0, 0.99, 0.99, L));
}

/* The replay (the latency without dispatch delays) is the FIFO queue of
 * the given service times: one server by hand, and two servers where the
 * third request takes the server that frees first. */
static void replay_is_the_fifo_queue(void)
{
    const int64_t a[] = {0, 10, 20, 100, 101}, s[] = {50, 5, 5, -1, 1};
    int64_t e[5];
    EXPECT(mb__load_replay(a, s, 5, 1, e));
    EXPECT_EQ_INT(e[0], 50);
    EXPECT_EQ_INT(e[1], 55);
    EXPECT_EQ_INT(e[2], 60);
    EXPECT_EQ_INT(e[3], -1); /* dropped: no service */
    EXPECT_EQ_INT(e[4], 102);
    EXPECT(mb__load_replay(a, s, 5, 2, e));
    EXPECT_EQ_INT(e[0], 50);
    EXPECT_EQ_INT(e[1], 15);
    EXPECT_EQ_INT(e[2], 25);
    EXPECT_EQ_INT(e[4], 102);
}

/* Coverage of the upper bound by simulation: 2000 samples of n = 918
 * exponential latencies (true p99 = ln 100); x_(j) must be at or above it
 * in at least 99% of samples in theory; 98.5% allows 3 binomial standard
 * errors (0.22% each). */
static void estop_bound_covers_the_true_p99(void)
{
    mb__rng rng;
    mb__rng_seed(&rng, 11);
    const int64_t n = 918;
    int64_t j = mb__estop_rank(n, 0.99, 0.99, MB_ESTOP_EXACT);
    double *x = malloc((size_t)n * sizeof *x), truth = log(100.0);
    int covered = 0, trials = 2000;
    for (int t = 0; x && t < trials; t++) {
        int64_t below = 0; /* x_(j) >= truth  <=>  fewer than j below it */
        for (int64_t i = 0; i < n; i++) {
            x[i] = -log(1.0 - mb__rng_uniform(&rng));
            below += x[i] < truth;
        }
        covered += below < j;
    }
    free(x);
    printf("# p99 bound covered the true p99 in %d of %d samples (rank %lld of "
           "%lld)\n",
           covered, trials, (long long)j, (long long)n);
    EXPECT(covered >= 0.985 * trials);
}

static void slo_spec_parses_and_rejects(void)
{
    mb__load_req r;
    mb__load_req_defaults(&r);
    mb_err e = {0};
    EXPECT_EQ_INT(mb__load_parse_slo("p99=20ms", &r, &e), MB_OK);
    EXPECT_NEAR(r.slo_q, 0.99, 1e-12);
    EXPECT_EQ_INT(r.slo_ns, 20000000);
    EXPECT_EQ_INT(mb__load_parse_slo("p99.9=1s", &r, &e), MB_OK);
    EXPECT_NEAR(r.slo_q, 0.999, 1e-12);
    EXPECT_EQ_INT(mb__load_parse_slo("p100=1ms", &r, &e), MB_EINVAL);
    EXPECT_EQ_INT(mb__load_parse_slo("p99", &r, &e), MB_EINVAL);
    EXPECT_CONTAINS(e.msg, "p99=20ms");
    EXPECT_EQ_INT(mb__load_req_set(&r, "cpus", "0-2,5", &e), 0);
    EXPECT_EQ_INT(r.n_cpus, 4);
    EXPECT_EQ_INT(r.cpus[3], 5);
    EXPECT_EQ_INT(mb__load_req_set(&r, "cpus", "3-1", &e), -MB_EINVAL);
    EXPECT_EQ_INT(mb__load_req_set(&r, "nonsense", "1", &e), 1);
}

/* The arrival generator and the M/D/1 queue, without any timing: the
 * Lindley recursion W_k = max(0, W_{k-1} + S - A_k) over 400000 Poisson
 * arrivals gives the mean wait rho S / (2 (1 - rho)).  The relative
 * standard error of that mean is about 0.9% at rho = 0.5 (by simulation
 * with numpy), so the tolerance of 3% is over 3 standard errors. */
static void poisson_schedule_gives_md1_mean_wait(void)
{
    mb__rng rng;
    mb__rng_seed(&rng, 7);
    const size_t n = 400000;
    const double S = 1e6, qps = 500; /* rho = 0.5 */
    int64_t *a = mb__load_poisson_schedule(&rng, qps, n);
    EXPECT(a != NULL);
    if (!a)
        return;
    double w = 0, sum = 0;
    for (size_t k = 1; k < n; k++) {
        w = w + S - (double)(a[k] - a[k - 1]);
        if (w < 0)
            w = 0;
        sum += w;
    }
    double rho = qps * S / 1e9, theory = rho * S / (2 * (1 - rho));
    EXPECT_NEAR(sum / (double)n / theory, 1.0, 0.03);
    EXPECT_NEAR((double)n / ((double)a[n - 1] / 1e9) / qps, 1.0, 0.01);
    free(a);
}

static json_t *run_load_opts(const char *const *kv, size_t n,
                             const char *const *bo, size_t nb,
                             int64_t min_time_ns)
{
    mb__plan p;
    mb__plan_defaults(&p);
    p.backend = strdup("null");
    p.min_time_ns = min_time_ns;
    p.warmup_iters = 5;
    for (size_t i = 0; i < nb; i += 2)
        mb__plan_set_opt(&p, bo[i], bo[i + 1]);
    mb__load_req r;
    mb__load_req_defaults(&r);
    mb_err e = {0};
    for (size_t i = 0; i < n; i += 2)
        if (mb__load_req_set(&r, kv[i], kv[i + 1], &e))
            T_FAIL_("load option %s=%s: %s", kv[i], kv[i + 1], e.msg);
    json_t *doc = NULL;
    if (mb__load_run(&p, &r, &doc, &e))
        T_FAIL_("mb__load_run: %s", e.msg);
    mb__plan_free(&p);
    return doc;
}

static json_t *run_load(const char *const *kv, size_t n, int64_t sleep_ns,
                        int64_t min_time_ns)
{
    char v[32];
    snprintf(v, sizeof v, "%lld", (long long)sleep_ns);
    const char *bo[] = {"sleep", v};
    return run_load_opts(kv, n, bo, 2, min_time_ns);
}

static const json_t *step_of(const json_t *doc, size_t i)
{
    return json_array_get(
        json_object_get(json_object_get(doc, "load"), "steps"), i);
}

static double num(const json_t *o, const char *a, const char *b)
{
    const json_t *x = json_object_get(o, a);
    if (b)
        x = json_object_get(x, b);
    return json_number_value(x);
}

/* One step's per-request records (every request of the step, dropped
 * ones with start -1), in the document's order (arrival order). */
typedef struct {
    size_t n;
    int64_t *a, *s, *e, *v;
} recs;

static void recs_free(recs *r)
{
    free(r->a);
    free(r->s);
    free(r->e);
    free(r->v);
}

static bool recs_of(const json_t *st, recs *r)
{
    const json_t *rec = json_object_get(st, "records");
    const char *keys[] = {"arrival_ns", "start_ns", "end_ns", "server"};
    int64_t **to[] = {&r->a, &r->s, &r->e, &r->v};
    memset(r, 0, sizeof *r);
    r->n = json_array_size(json_object_get(rec, keys[0]));
    for (size_t k = 0; k < 4; k++) {
        const json_t *x = json_object_get(rec, keys[k]);
        *to[k] = calloc(r->n ? r->n : 1, sizeof **to[k]);
        if (!*to[k] || json_array_size(x) != r->n)
            return false;
        for (size_t i = 0; i < r->n; i++)
            (*to[k])[i] = json_integer_value(json_array_get(x, i));
    }
    return r->n > 0;
}

/* a ~= b to the last few bits of a double (the document's figures are
 * sums of integers divided once). */
#define EXPECT_SAME(a, b) EXPECT_NEAR(a, b, 1e-9 * fabs((double)(b)) + 1e-6)

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The document's percentile of sorted x (null where n cannot support it,
 * docs/STATISTICS.md). */
static void expect_pct(const json_t *o, const char *key, const double *sorted,
                       size_t n, double q)
{
    const json_t *x = json_object_get(o, key);
    if (!(mb__percentile_supported(n, q) || q == 50)) {
        EXPECT(json_is_null(x));
        return;
    }
    EXPECT_SAME(json_number_value(x), mb__percentile_sorted(sorted, n, q));
}

/* The early-stopping bounds of a step are the order statistics the
 * binomial arithmetic names: rank j = mb__estop_rank(n), bound = the j-th
 * smallest latency (dropped requests unbounded), exactly. */
static void early_stopping_is_exact(const json_t *st, const recs *r)
{
    const json_t *es = json_object_get(st, "early_stopping");
    double conf = json_number_value(json_object_get(es, "confidence"));
    const char *rule = json_string_value(json_object_get(es, "rule"));
    mb__estop_rule R =
        rule && !strcmp(rule, "loadgen") ? MB_ESTOP_LOADGEN : MB_ESTOP_EXACT;
    double *lat = calloc(r->n, sizeof *lat);
    if (!lat)
        return;
    for (size_t i = 0; i < r->n; i++)
        lat[i] = r->s[i] < 0 ? INFINITY : (double)(r->e[i] - r->a[i]);
    qsort(lat, r->n, sizeof *lat, cmp_double);
    const json_t *ps = json_object_get(es, "percentiles");
    EXPECT(json_array_size(ps) >= 4);
    for (size_t i = 0; i < json_array_size(ps); i++) {
        const json_t *p = json_array_get(ps, i);
        double q = json_number_value(json_object_get(p, "q")) / 100;
        int64_t j = mb__estop_rank((int64_t)r->n, q, conf, R);
        EXPECT_EQ_INT(json_integer_value(json_object_get(p, "rank")), j);
        EXPECT_EQ_INT(json_integer_value(json_object_get(p, "min_requests")),
                      mb__estop_min_n(q, conf, R));
        const json_t *ub = json_object_get(p, "upper_bound_ns");
        if (j > 0 && isfinite(lat[j - 1]))
            EXPECT_EQ_INT(json_number_value(ub), lat[j - 1]);
        else if (j <= 0)
            EXPECT(json_is_null(ub));
    }
    free(lat);
}

/* The identities every step satisfies however busy the machine is: the
 * counts, rate and means of the document are those of its records; each
 * server serves one request at a time (so its busy time fits in the step
 * and throughput x mean service <= servers); no request starts before
 * it arrives; no service is shorter than the backend's sleep (the null
 * backend waits until its start + sleep); an open-loop step's wait is
 * its queueing (until a server was free) plus its dispatch delay (from
 * then to the start); the early-stopping bounds are exact. */
static void records_add_up(const json_t *st, const recs *r, size_t servers,
                           int64_t sleep_ns)
{
    size_t done = 0, dropped = 0, early = 0, overlap = 0, off = 0, short_ = 0;
    int64_t wall = 0, *prev = calloc(servers, sizeof *prev),
            *busy = calloc(servers, sizeof *busy);
    double wsum = 0, ssum = 0, qsum = 0, dsum = 0;
    for (size_t k = 0; prev && k < servers; k++)
        prev[k] = INT64_MIN;
    /* the records of one server in the order it served them: by start
     * (arrival order, which a server keeps in an open loop) */
    for (size_t i = 0; prev && busy && i < r->n; i++) {
        if (r->s[i] < 0) {
            dropped++;
            continue;
        }
        done++;
        if (r->v[i] < 0 || (size_t)r->v[i] >= servers) {
            off++;
            continue;
        }
        size_t v = (size_t)r->v[i];
        int64_t ready = r->a[i] > prev[v] ? r->a[i] : prev[v];
        early += r->s[i] < r->a[i];
        overlap += r->s[i] < prev[v];
        short_ += r->e[i] - r->s[i] < sleep_ns;
        wall = r->e[i] > wall ? r->e[i] : wall;
        busy[v] += r->e[i] - r->s[i];
        wsum += (double)(r->s[i] - r->a[i]);
        ssum += (double)(r->e[i] - r->s[i]);
        qsum += (double)(ready - r->a[i]);
        dsum += (double)(r->s[i] - ready);
        prev[v] = r->e[i];
    }
    EXPECT_EQ_INT(off, 0);
    EXPECT_EQ_INT(early, 0);
    EXPECT_EQ_INT(overlap, 0);
    EXPECT_EQ_INT(short_, 0);
    EXPECT_EQ_INT(num(st, "requests", "completed"), done);
    EXPECT_EQ_INT(num(st, "requests", "dropped"), dropped);
    EXPECT_EQ_INT(num(st, "latency", "count"), done);
    EXPECT_EQ_INT(num(st, "wall_ns", NULL), wall);
    double x = num(st, "achieved_qps", NULL), s = num(st, "service", "mean_ns");
    EXPECT_SAME(x, (double)done / (double)wall * 1e9);
    EXPECT_SAME(s, ssum / (double)done);
    EXPECT_SAME(num(st, "wait", "mean_ns"), wsum / (double)done);
    for (size_t k = 0; busy && k < servers; k++)
        EXPECT(busy[k] <= wall);
    EXPECT(x * s / 1e9 <= (double)servers * (1 + 1e-9));
    if (json_object_get(st, "queueing")) { /* an open loop */
        EXPECT_SAME(num(st, "queueing", "mean_ns"), qsum / (double)done);
        EXPECT_SAME(num(st, "dispatch", "mean_ns"), dsum / (double)done);
    }
    printf("# %zu requests on %zu server(s): throughput x mean service = "
           "%.3f of the servers (at most 1 at any load; how close to 1 is "
           "bench/load.sh's figure)\n",
           done, servers, x * s / 1e9 / (double)servers);
    early_stopping_is_exact(st, r);
    free(prev);
    free(busy);
}

/* The replay without dispatch delays ("model_latency"), recomputed from
 * the records: the same arrivals and service times on `servers` FIFO
 * servers, each request taking the one that frees first. */
static void replay_matches_the_records(const json_t *st, const recs *r,
                                       size_t servers)
{
    double *model = calloc(r->n, sizeof *model);
    int64_t *free_at = calloc(servers, sizeof *free_at);
    size_t d = 0;
    for (size_t k = 0; free_at && k < servers; k++)
        free_at[k] = INT64_MIN;
    for (size_t i = 0; model && free_at && i < r->n; i++) {
        if (r->s[i] < 0)
            continue;
        size_t m = 0;
        for (size_t k = 1; k < servers; k++)
            m = free_at[k] < free_at[m] ? k : m;
        int64_t begin = r->a[i] > free_at[m] ? r->a[i] : free_at[m];
        free_at[m] = begin + (r->e[i] - r->s[i]);
        model[d++] = (double)(free_at[m] - r->a[i]);
    }
    qsort(model, d, sizeof *model, cmp_double);
    const json_t *ml = json_object_get(st, "model_latency");
    expect_pct(ml, "p50_ns", model, d, 50);
    expect_pct(ml, "p90_ns", model, d, 90);
    expect_pct(ml, "p99_ns", model, d, 99);
    free(model);
    free(free_at);
}

/* One server: the replay ends request k at m_k = max(a_k, m_{k-1}) + S_k,
 * the measurement at e_k = max(a_k, e_{k-1}) + D_k + S_k (D_k the dispatch
 * delay), so e_k - m_k - D_k = max(a_k, e_{k-1}) - max(a_k, m_{k-1}),
 * which lies in [0, e_{k-1} - m_{k-1}] and is 0 when the request found
 * the server idle: for those requests the replayed latency is the
 * measured one minus the dispatch delay, exactly (in integer ns). */
static void replay_is_measured_minus_dispatch(const recs *r)
{
    int64_t pe = INT64_MIN, pm = INT64_MIN;
    size_t idle = 0, done = 0, bad = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (r->s[i] < 0)
            continue;
        int64_t ready = r->a[i] > pe ? r->a[i] : pe,
                m = (r->a[i] > pm ? r->a[i] : pm) + (r->e[i] - r->s[i]);
        int64_t excess = (r->e[i] - m) - (r->s[i] - ready);
        if (pe <= r->a[i]) {
            idle++;
            bad += excess != 0;
        } else {
            bad += excess < 0 || excess > pe - pm;
        }
        done++;
        pe = r->e[i];
        pm = m;
    }
    printf("# %zu of %zu requests found the server idle: replayed latency = "
           "measured - dispatch for each of them\n",
           idle, done);
    EXPECT(idle > 0);
    EXPECT_EQ_INT(bad, 0);
}

/* Closed loop with N clients and no think time, 10 ms of service asleep:
 * every step's records add up (throughput x service <= N; X = N / S is
 * bench/load.sh's figure, which needs an idle machine). */
static void closed_loop_records_add_up(void)
{
    const char *kv[] = {"concurrency", "1,2,4"};
    json_t *doc = run_load(kv, 2, 10000000, 500000000);
    const json_t *steps =
        json_object_get(json_object_get(doc, "load"), "steps");
    EXPECT_EQ_INT(json_array_size(steps), 3);
    for (size_t i = 0; i < json_array_size(steps); i++) {
        const json_t *st = json_array_get(steps, i);
        size_t n = (size_t)num(st, "concurrency", NULL);
        EXPECT_EQ_INT(n, (size_t)1 << i);
        recs r;
        EXPECT(recs_of(st, &r));
        if (r.n)
            records_add_up(st, &r, n, 10000000);
        EXPECT_EQ_INT(num(st, "wait", "mean_ns"), 0); /* arrival = start */
        recs_free(&r);
    }
    json_decref(doc);
}

/* Poisson arrivals at 1000/s to one server with 0.5 ms of service (an
 * M/D/1 queue at rho = 0.5; the rate keeps the engine's harness-floor step,
 * 1000 requests at the first rate, to a second): FIFO, no request before its
 * arrival (latency counts from the arrival: no coordinated omission), the
 * records add up, the replay is the FIFO queue of the measured service times
 * and removes exactly the dispatch delays.  How close the latencies come to
 * M/D/1 is bench/load.sh's figure. */
static void poisson_single_server_records_add_up(void)
{
    const char *kv[] = {"qps", "1000", "concurrency", "1"};
    json_t *doc = run_load(kv, 4, 500000, 1000000000);
    const json_t *st = step_of(doc, 0);
    recs r;
    EXPECT(recs_of(st, &r));
    EXPECT(r.n >= 459); /* enough for an exact p99 bound */
    if (r.n) {
        records_add_up(st, &r, 1, 500000);
        replay_matches_the_records(st, &r, 1);
        replay_is_measured_minus_dispatch(&r);
    }
    recs_free(&r);
    json_decref(doc);
}

/* Offline: every request arrives at 0; 200 requests, 2 servers of 5 ms,
 * LoadGen's early-stopping rule: every request is served, the records
 * add up (throughput <= 2 / S) and the replay is the 2-server FIFO
 * queue of the measured service times. */
static void offline_records_add_up(void)
{
    const char *kv[] = {"offline",     "1", "requests",       "200",
                        "concurrency", "2", "early-stopping", "loadgen"};
    json_t *doc = run_load(kv, 8, 5000000, 100000000);
    const json_t *st = step_of(doc, 0);
    EXPECT_EQ_INT(num(st, "requests", "completed"), 200);
    EXPECT_STR(json_string_value(json_object_get(
                   json_object_get(st, "early_stopping"), "rule")),
               "loadgen");
    recs r;
    EXPECT(recs_of(st, &r));
    size_t late = 0;
    for (size_t i = 0; i < r.n; i++)
        late += r.a[i] != 0;
    EXPECT_EQ_INT(late, 0);
    if (r.n) {
        records_add_up(st, &r, 2, 5000000);
        replay_matches_the_records(st, &r, 2);
    }
    recs_free(&r);
    json_decref(doc);
}

/* Offline work longer than a second is served to the end (the drain
 * deadline of an offline step is --max-time; it was 1 s, and an offline
 * run of 20000 Fashion-MNIST requests dropped three quarters of them). */
static void offline_serves_past_one_second(void)
{
    const char *kv[] = {"offline", "1", "requests", "240", "concurrency", "1"};
    json_t *doc = run_load(kv, 6, 5000000, 100000000);
    const json_t *st = step_of(doc, 0);
    EXPECT_EQ_INT(num(st, "requests", "completed"), 240);
    EXPECT_EQ_INT(num(st, "requests", "dropped"), 0);
    json_decref(doc);
}

/* The public call gives the same document as the engine. */
static void public_api_runs_a_load(void)
{
    mb_runner *r = mb_runner_new();
    mb_err e = {0};
    EXPECT_EQ_INT(mb_runner_set(r, "backend", "null", &e), MB_OK);
    EXPECT_EQ_INT(mb_runner_set(r, "min-time", "50ms", &e), MB_OK);
    const char *opts[] = {"concurrency=2", "records=0"};
    char *json = NULL;
    EXPECT_EQ_INT(mb_runner_load(r, "x", opts, 2, &json, &e), MB_OK);
    EXPECT_CONTAINS(json, "\"kind\": \"load\"");
    EXPECT_CONTAINS(json, "\"achieved_qps\"");
    free(json);
    const char *bad[] = {"slo=p99"};
    EXPECT_EQ_INT(mb_runner_load(r, "x", bad, 1, &json, &e), MB_EINVAL);
    EXPECT_CONTAINS(e.msg, "p99=20ms");
    const char *unknown[] = {"speed=3"};
    EXPECT_EQ_INT(mb_runner_load(r, "x", unknown, 1, &json, &e), MB_EINVAL);
    EXPECT_CONTAINS(e.msg, "speed");
    mb_runner_free(r);
}

/* Two scenarios, or a thread sweep with an open loop, are refused by the
 * engine itself (the CLI and the API); a repeated --qps is one scenario. */
static void one_scenario_at_a_time(void)
{
    mb__load_req r;
    mb_err e = {0};
    mb__load_req_defaults(&r);
    EXPECT_EQ_INT(mb__load_req_check(&r, &e), MB_OK);
    EXPECT_EQ_INT(mb__load_req_set(&r, "qps", "10", &e), 0);
    EXPECT_EQ_INT(mb__load_req_set(&r, "qps", "20", &e), 0);
    EXPECT_EQ_INT(mb__load_req_check(&r, &e), MB_OK);
    EXPECT_EQ_INT(mb__load_req_set(&r, "offline", "1", &e), 0);
    EXPECT_EQ_INT(mb__load_req_check(&r, &e), MB_EINVAL);
    EXPECT_CONTAINS(e.msg, "different scenarios");
    mb__load_req_defaults(&r);
    EXPECT_EQ_INT(mb__load_req_set(&r, "concurrency", "1,2", &e), 0);
    EXPECT_EQ_INT(mb__load_req_check(&r, &e), MB_OK);
    EXPECT_EQ_INT(mb__load_req_set(&r, "slo", "p99=20ms", &e), 0);
    EXPECT_EQ_INT(mb__load_req_check(&r, &e), MB_EINVAL);
    EXPECT_CONTAINS(e.msg, "closed-loop sweep");
}

/* A step far over capacity (1 ms of service offered 1500/s on one
 * thread) is flagged: not stable, with the advice to lower the rate, in
 * the step's warnings and the document's. */
static void an_overloaded_step_is_flagged(void)
{
    const char *kv[] = {"qps", "1500", "concurrency", "1"};
    json_t *doc = run_load(kv, 4, 1000000, 300000000);
    const json_t *st = step_of(doc, 0);
    const json_t *stab = json_object_get(st, "stability");
    EXPECT(json_is_false(json_object_get(stab, "stable")));
    EXPECT(json_number_value(json_object_get(stab, "utilization")) > 1.2);
    const char *w =
        json_string_value(json_array_get(json_object_get(st, "warnings"), 0));
    EXPECT_CONTAINS(w, "overloaded");
    EXPECT_CONTAINS(w, "lower the rate");
    char *all = json_dumps(json_object_get(doc, "warnings"), 0);
    EXPECT_CONTAINS(all, "overloaded at");
    free(all);
    json_decref(doc);
}

/* The null backend stalls every Nth request of a session: with 30 ms
 * stalls every 10th of 100 closed-loop requests, the requests of one
 * phase k mod 10 (the session's 10th, 20th, ... runs; where the records
 * start in that count is the engine's business) each take at least 30 ms
 * (a stall is a wait until then), and the other 90, which do nothing,
 * take far less: their median is under 15 ms however busy the machine
 * (a pause would have to hit half of them). */
static void null_stalls_every_nth_request(void)
{
    mb__plan q;
    mb__plan_defaults(&q);
    q.backend = strdup("null");
    q.fixed_iters = 100;
    q.warmup_iters = 0;
    mb__plan_set_opt(&q, "stall", "30000000");
    mb__plan_set_opt(&q, "stall_every", "10");
    mb__load_req r;
    mb__load_req_defaults(&r);
    mb_err e = {0};
    json_t *doc = NULL;
    if (mb__load_run(&q, &r, &doc, &e))
        T_FAIL_("mb__load_run: %s", e.msg);
    mb__plan_free(&q);
    recs rc;
    EXPECT(recs_of(step_of(doc, 0), &rc));
    EXPECT_EQ_INT(rc.n, 100);
    int phase = -1, phases = 0;
    for (int p = 0; p < 10; p++) {
        size_t stalled = 0;
        for (size_t k = (size_t)p; k < rc.n && k < 100; k += 10)
            stalled += rc.e[k] - rc.s[k] >= 30000000;
        if (stalled == 10) {
            phase = p;
            phases++;
        }
    }
    printf("# the stalled requests: every 10th from record %d\n", phase);
    EXPECT_EQ_INT(phases, 1);
    double other[100];
    size_t n_other = 0;
    for (size_t k = 0; phase >= 0 && k < rc.n && k < 100; k++)
        if (k % 10 != (size_t)phase)
            other[n_other++] = (double)(rc.e[k] - rc.s[k]);
    qsort(other, n_other, sizeof *other, cmp_double);
    EXPECT(n_other == 90 && other[45] < 15e6);
    recs_free(&rc);
    json_decref(doc);
}

int main(void)
{
    RUN(one_scenario_at_a_time);
    RUN(public_api_runs_a_load);
    RUN(estop_matches_scipy_binomial);
    RUN(estop_bound_covers_the_true_p99);
    RUN(estop_loadgen_rule_takes_the_next_order_statistic);
    RUN(replay_is_the_fifo_queue);
    RUN(an_overloaded_step_is_flagged);
    RUN(null_stalls_every_nth_request);
    RUN(slo_spec_parses_and_rejects);
    RUN(poisson_schedule_gives_md1_mean_wait);
    RUN(closed_loop_records_add_up);
    RUN(poisson_single_server_records_add_up);
    RUN(offline_records_add_up);
    RUN(offline_serves_past_one_second);
    return T_DONE();
}
