/* stepstat.c - a load step's statistics as its JSON object (stepstat.h). */
#include "load/stepstat.h"
#include "load/estop.h"

#include "core/alloc.h"
#include "core/stats.h"
#include "runner/runner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static void heap_down(int64_t *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && h[l] < h[m])
            m = l;
        if (r < n && h[r] < h[m])
            m = r;
        if (m == i)
            return;
        int64_t t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

bool mb__load_replay(const int64_t *arrival, const int64_t *svc, size_t n,
                     size_t servers, int64_t *end)
{
    if (servers == 0)
        servers = 1;
    if (servers > n)
        servers = n ? n : 1;
    int64_t *h = mb__calloc(servers, sizeof *h);
    if (!h)
        return false;
    for (size_t k = 0; k < servers; k++)
        h[k] = INT64_MIN; /* every server free from the start */
    for (size_t i = 0; i < n; i++) {
        if (svc[i] < 0) {
            end[i] = -1;
            continue;
        }
        int64_t s = arrival[i] > h[0] ? arrival[i] : h[0];
        end[i] = s + svc[i];
        h[0] = end[i];
        heap_down(h, servers, 0);
    }
    free(h);
    return true;
}

/* The arrays a step's statistics are computed from, completed requests
 * only (in arrival order) except `all`, which holds every request's
 * latency with dropped ones as INFINITY. */
typedef struct {
    size_t n, done, dropped, queued;
    int64_t *lat;                       /* end - arrival */
    double *all;                        /* for the early-stopping ranks */
    double *mall;                       /* the same for the replay */
    double *queue, *disp, *svc, *model; /* ns */
    double wsum, wmax, ssum, s2;        /* wait and service moments */
} gathered;

static void gathered_free(gathered *g)
{
    free(g->lat);
    free(g->all);
    free(g->mall);
    free(g->queue);
    free(g->disp);
    free(g->svc);
    free(g->model);
}

/* Fills g from the records; false when memory runs out. */
static bool gather(const mb__load_step_ctx *c, const mb__load_step_out *o,
                   gathered *g)
{
    size_t n = o->n, m = n ? n : 1;
    memset(g, 0, sizeof *g);
    g->n = n;
    g->lat = mb__calloc(m, sizeof *g->lat);
    g->all = mb__calloc(m, sizeof *g->all);
    g->mall = mb__calloc(m, sizeof *g->mall);
    g->queue = mb__calloc(m, sizeof *g->queue);
    g->disp = mb__calloc(m, sizeof *g->disp);
    g->svc = mb__calloc(m, sizeof *g->svc);
    g->model = mb__calloc(m, sizeof *g->model);
    int64_t *arr = mb__calloc(m, sizeof *arr), *sv = mb__calloc(m, sizeof *sv),
            *end = mb__calloc(m, sizeof *end);
    bool ok = g->lat && g->all && g->mall && g->queue && g->disp && g->svc &&
              g->model && arr && sv && end;
    for (size_t i = 0; ok && i < n; i++) {
        const mb__load_rec *r = &o->r[i];
        arr[i] = r->arrival;
        sv[i] = r->start < 0 ? -1 : r->end - r->start;
    }
    if (c->arr) /* open loop: the replay; a closed loop has no queue */
        ok = ok && mb__load_replay(arr, sv, n, c->threads, end);
    for (size_t i = 0; ok && !c->arr && i < n; i++)
        end[i] = o->r[i].end;
    for (size_t i = 0; ok && i < n; i++) {
        const mb__load_rec *r = &o->r[i];
        if (r->start < 0) {
            g->dropped++;
            g->all[i] = g->mall[i] = INFINITY;
            continue;
        }
        size_t d = g->done++;
        int64_t l = r->end - r->arrival, wt = r->start - r->arrival;
        double s = (double)(r->end - r->start);
        g->lat[d] = l;
        g->all[i] = (double)l;
        g->queue[d] = (double)(r->ready - r->arrival);
        g->disp[d] = (double)(r->start - r->ready);
        g->svc[d] = s;
        g->model[d] = g->mall[i] = (double)(end[i] - r->arrival);
        g->wsum += (double)wt;
        g->wmax = fmax(g->wmax, (double)wt);
        g->ssum += s;
        g->s2 += s * s;
        g->queued += wt > c->rq->queued_ns;
    }
    free(arr);
    free(sv);
    free(end);
    return ok;
}

/* Percentile q of sorted x, NAN when n cannot support it (STATISTICS.md). */
static double pct(const double *sorted, size_t n, double q)
{
    if (!n || !(mb__percentile_supported(n, q) || q == 50))
        return NAN;
    return mb__percentile_sorted(sorted, n, q);
}

static double mean_of(const double *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    return n ? s / (double)n : NAN;
}

/* {mean_ns, p50_ns, p90_ns, p99_ns, max_ns} of x, which it sorts. */
static json_t *dist_json(double *x, size_t n)
{
    double mean = mean_of(x, n);
    qsort(x, n, sizeof *x, mb__cmp_double);
    return json_pack("{s:o,s:o,s:o,s:o,s:o}", "mean_ns", num(mean), "p50_ns",
                     num(pct(x, n, 50)), "p90_ns", num(pct(x, n, 90)), "p99_ns",
                     num(pct(x, n, 99)), "max_ns", num(n ? x[n - 1] : NAN));
}

/* Formats ns as milliseconds with 3 significant digits. */
static const char *ms(double ns, char *buf, size_t len)
{
    snprintf(buf, len, "%.3g ms", ns / 1e6);
    return buf;
}

/* The tail percentile a step is judged by: the SLO's, else p99. */
static double tail_q(const mb__load_req *rq)
{
    return rq->slo_ns > 0 ? rq->slo_q * 100 : 99;
}

/* "slow": the requests over the threshold (the SLO bound, else the
 * step's own tail percentile) by cause, judged on the replay: service
 * when the request's own service time is over the threshold, queueing
 * when the replay without dispatch delays is still over it, dispatch when
 * only the harness's delays (its own or of requests ahead of it) put it
 * there.  Before the sorting of the component arrays. */
static json_t *slow_json(const gathered *g, double thr, const char *basis)
{
    size_t by[3] = {0, 0, 0};
    for (size_t i = 0; isfinite(thr) && i < g->done; i++) {
        if (!((double)g->lat[i] > thr))
            continue;
        by[g->svc[i] > thr ? 0 : g->model[i] > thr ? 1 : 2]++;
    }
    return json_pack("{s:o,s:s,s:I,s:I,s:I,s:I,s:s}", "threshold_ns", num(thr),
                     "basis", basis, "count",
                     (json_int_t)(by[0] + by[1] + by[2]), "service",
                     (json_int_t)by[0], "queueing", (json_int_t)by[1],
                     "dispatch", (json_int_t)by[2], "method",
                     "a request over the threshold is 'service' when its "
                     "own service time is over it, 'queueing' when the "
                     "replay without dispatch delays still is, else "
                     "'dispatch' (only the harness's delays put it there)");
}

/* Percentile q of the latency of the completed requests: the first
 * `done` entries of the sorted `all` (dropped ones, INFINITY, sort last). */
static double lat_pct(const gathered *g, double q)
{
    return pct(g->all, g->done, q);
}

static json_t *estop_json(const double *sorted, int64_t n_all,
                          const mb__load_req *rq)
{
    static const double qs[] = {0.9, 0.95, 0.99, 0.999};
    json_t *a = json_array();
    mb__estop_rule rule = rq->estop_rule;
    for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++) {
        double q = qs[i];
        int64_t j = mb__estop_rank(n_all, q, rq->confidence, rule);
        json_array_append_new(
            a, json_pack("{s:f,s:I,s:I,s:o,s:b}", "q", q * 100, "min_requests",
                         (json_int_t)mb__estop_min_n(q, rq->confidence, rule),
                         "rank", (json_int_t)j, "upper_bound_ns",
                         j > 0 ? num(sorted[j - 1]) : json_null(), "supported",
                         j > 0));
    }
    return json_pack(
        "{s:f,s:s,s:s,s:o}", "confidence", rq->confidence, "rule",
        rule == MB_ESTOP_LOADGEN ? "loadgen" : "exact", "method",
        rule == MB_ESTOP_LOADGEN
            ? "MLPerf LoadGen's early-stopping estimate x_(n-t+1), t the "
              "largest count with P(Binomial(n,1-q) <= t) < 1-c (t >= 1); "
              "dropped requests count as unbounded"
            : "one-sided binomial order-statistic upper bound x_(n-k), k "
              "the largest count with P(Binomial(n,1-q) <= k) <= 1-c; "
              "dropped requests count as unbounded",
        "percentiles", a);
}

/* Requests over the bound (dropped ones included) and the percentile of
 * one latency (measured or replayed), with the test on that count. */
static json_t *verdict_json(const mb__load_req *rq, const gathered *g,
                            const double *sorted_all, int valid,
                            int64_t *over_out, int *pass_out)
{
    int64_t n = (int64_t)g->n, over = (int64_t)g->dropped;
    for (size_t i = 0; i < g->n; i++)
        over += isfinite(sorted_all[i]) && sorted_all[i] > (double)rq->slo_ns;
    int pass = valid && mb__estop_pass(n, over, rq->slo_q, rq->confidence,
                                       rq->estop_rule);
    int64_t j = mb__estop_rank(n, rq->slo_q, rq->confidence, rq->estop_rule);
    double q = rq->slo_q * 100;
    /* the percentile of the completed requests (sorted_all is sorted and
     * the dropped ones, INFINITY, are at its end) */
    double obs = g->done ? pct(sorted_all, g->done, q) : NAN;
    *over_out = over;
    *pass_out = pass;
    return json_pack("{s:I,s:b,s:o,s:o}", "over_bound", (json_int_t)over,
                     "pass", pass, "observed_ns", num(obs), "upper_bound_ns",
                     j > 0 ? num(sorted_all[j - 1]) : json_null());
}

/* The "slo" object of a step judged against the bound, on the basis the
 * request names (the replay without dispatch delays by default). */
static json_t *slo_json(const mb__load_step_ctx *c, const mb__load_step_out *o,
                        const gathered *g)
{
    const mb__load_req *rq = c->rq;
    int64_t n = (int64_t)g->n;
    mb__estop_rule rule = rq->estop_rule;
    int64_t allow = mb__estop_max_over(n, rq->slo_q, rq->confidence, rule);
    int valid = allow >= 0 && !o->failed;
    int64_t k_meas, k_model;
    int p_meas, p_model;
    json_t *meas = verdict_json(rq, g, g->all, valid, &k_meas, &p_meas);
    json_t *model = verdict_json(rq, g, g->mall, valid, &k_model, &p_model);
    int basis_model = rq->slo_basis == MB_LOAD_BASIS_MODEL;
    int64_t k = basis_model ? k_model : k_meas;
    char why[400];
    if (o->failed)
        snprintf(why, sizeof why, "the step failed: %s", o->error);
    else if (!valid)
        snprintf(why, sizeof why,
                 "%zu requests, fewer than the %lld that can bound p%g "
                 "at %g%% confidence (invalid: raise --max-time)",
                 g->n,
                 (long long)mb__estop_min_n(rq->slo_q, rq->confidence,
                                            MB_ESTOP_EXACT),
                 rq->slo_q * 100, rq->confidence * 100);
    else
        snprintf(why, sizeof why,
                 "%lld of %zu requests over the bound (%zu dropped), %s; "
                 "at most %lld allowed",
                 (long long)k, g->n, g->dropped,
                 basis_model ? "dispatch delays removed by the replay"
                             : "as measured",
                 (long long)allow);
    json_t *b = basis_model ? model : meas;
    json_t *j = json_pack(
        "{s:f,s:I,s:s,s:I,s:I,s:b,s:b,s:s,s:O,s:O,s:o,s:o,s:s}", "percentile",
        rq->slo_q * 100, "bound_ns", (json_int_t)rq->slo_ns, "basis",
        basis_model ? "model" : "measured", "over_bound", (json_int_t)k,
        "max_over_bound", (json_int_t)allow, "valid", valid, "pass",
        basis_model ? p_model : p_meas, "reason", why, "observed_ns",
        json_object_get(b, "observed_ns"), "upper_bound_ns",
        json_object_get(b, "upper_bound_ns"), "measured", meas, "model", model,
        "rule", rule == MB_ESTOP_LOADGEN ? "loadgen" : "exact");
    return j;
}

/* Mean wait (start - arrival) of the completed requests in quarter k
 * (0..3) of the step, by arrival. */
static double wait_quarter(const mb__load_step_out *o, int k)
{
    size_t a = o->n * (size_t)k / 4, b = o->n * (size_t)(k + 1) / 4, m = 0;
    double s = 0;
    for (size_t i = a; i < b; i++)
        if (o->r[i].start >= 0) {
            s += (double)(o->r[i].start - o->r[i].arrival);
            m++;
        }
    return m ? s / (double)m : NAN;
}

/* "stability" of an open-loop step with a rate (LOAD.md, "Unstable
 * steps"), and a warning in sw when it was not stable. */
static json_t *stability_json(const mb__load_step_ctx *c,
                              const mb__load_step_out *o, const gathered *g,
                              double offered, double achieved, json_t *sw)
{
    double svc = g->done ? g->ssum / (double)g->done : NAN;
    double util = offered * svc / 1e9 / (double)c->threads;
    double w1 = wait_quarter(o, 0), w4 = wait_quarter(o, 3);
    int low = achieved < 0.95 * offered;
    int trend = g->done >= 40 && w4 > 2 * w1 && w4 - w1 > 20 * svc;
    int full = util >= 1.0;
    int stable = !g->dropped && !low && !trend && !full;
    if (!stable) {
        char m[600], a[32], b[32];
        int len =
            c->target > 0
                ? snprintf(m, sizeof m,
                           "step %zu: overloaded at %.0f requests/s (offered "
                           "%.0f/s):",
                           c->step_no, c->target, offered)
                : snprintf(m, sizeof m,
                           "step %zu: overloaded at %.0f requests/s offered:",
                           c->step_no, offered);
        if (low)
            len += snprintf(m + len, sizeof m - (size_t)len,
                            " achieved %.0f/s (%.0f%%);", achieved,
                            achieved / offered * 100);
        if (full)
            len += snprintf(m + len, sizeof m - (size_t)len,
                            " utilization %.0f%% (offered rate x mean service "
                            "time / threads);",
                            util * 100);
        if (trend)
            len += snprintf(m + len, sizeof m - (size_t)len,
                            " mean wait rose from %s to %s between the first "
                            "and last quarter;",
                            ms(w1, a, sizeof a), ms(w4, b, sizeof b));
        if (g->dropped)
            len += snprintf(m + len, sizeof m - (size_t)len,
                            " %zu requests dropped;", g->dropped);
        snprintf(m + len, sizeof m - (size_t)len,
                 " lower the rate (above capacity the queue grows for as "
                 "long as the step lasts, so its latencies describe the "
                 "step's length, not the model)");
        json_array_append_new(sw, json_string(m));
    }
    return json_pack("{s:b,s:o,s:o,s:o,s:o,s:I}", "stable", stable,
                     "utilization", num(util), "achieved_over_offered",
                     num(offered > 0 ? achieved / offered : NAN),
                     "wait_first_quarter_ns", num(w1), "wait_last_quarter_ns",
                     num(w4), "dropped", (json_int_t)g->dropped);
}

/* A warning in sw when dispatch delays, not the model, set the tail
 * percentile: the measured percentile is over 10% (and 20 us) above the
 * replay's. */
static bool harness_tail_warning(const mb__load_step_ctx *c, double lat_q,
                                 double model_q, double disp_p99,
                                 double disp_max, double steal, json_t *sw)
{
    double q = tail_q(c->rq);
    if (!(lat_q - model_q > fmax(0.1 * lat_q, 20000)))
        return false;
    char m[700], a[32], b[32], d[32], x[32], f[32];
    int len = snprintf(
        m, sizeof m,
        "step %zu: the harness, not the model, sets p%g: %s, but %s had "
        "every request started when a server was free (dispatch delay p99 "
        "%s, max %s",
        c->step_no, q, ms(lat_q, a, sizeof a), ms(model_q, b, sizeof b),
        ms(disp_p99, d, sizeof d), ms(disp_max, x, sizeof x));
    if (isfinite(c->floor_p99_ns))
        len += snprintf(m + len, sizeof m - (size_t)len,
                        "; the harness floor, serving nothing, was p99 %s",
                        ms(c->floor_p99_ns, f, sizeof f));
    if (steal > 0.001)
        len += snprintf(m + len, sizeof m - (size_t)len,
                        "; the host took %.1f%% of this machine's CPU time "
                        "during the step (steal)",
                        steal * 100);
    snprintf(m + len, sizeof m - (size_t)len,
             "): the serving threads started some requests late, which a "
             "busy machine does, and the requests behind them waited; see "
             "the dispatch figures");
    json_array_append_new(sw, json_string(m));
    return true;
}

static json_t *records_json(const mb__load_step_out *o)
{
    json_t *a = json_array(), *s = json_array(), *e = json_array(),
           *v = json_array();
    for (size_t i = 0; i < o->n; i++) {
        json_array_append_new(a, json_integer(o->r[i].arrival));
        json_array_append_new(s, json_integer(o->r[i].start));
        json_array_append_new(e, json_integer(o->r[i].end));
        json_array_append_new(v, json_integer(o->r[i].server));
    }
    return json_pack("{s:s,s:o,s:o,s:o,s:o}", "unit",
                     "ns from the step's start; start -1: dropped; server: "
                     "the serving thread",
                     "arrival_ns", a, "start_ns", s, "end_ns", e, "server", v);
}

/* Rates and counts: target, offered, achieved, wall, requests. */
static void rates_json(json_t *j, const mb__load_step_ctx *c,
                       const mb__load_step_out *o, const gathered *g,
                       double *offered, double *achieved)
{
    json_object_set_new(j, "role", json_string(c->role));
    json_object_set_new(j, "scenario", json_string(c->scen));
    json_object_set_new(j, "concurrency", json_integer((json_int_t)c->threads));
    json_object_set_new(j, "target_qps",
                        c->target > 0 ? json_real(c->target) : json_null());
    double span = c->n_arr > 1 ? (double)c->arr[c->n_arr - 1] : 0;
    *offered = span > 0 ? (double)c->n_arr / span * 1e9 : NAN;
    *achieved =
        o->wall_ns > 0 ? (double)g->done / (double)o->wall_ns * 1e9 : NAN;
    json_object_set_new(j, "offered_qps", num(*offered));
    json_object_set_new(j, "achieved_qps", num(*achieved));
    json_object_set_new(j, "wall_ns", json_integer(o->wall_ns));
    json_object_set_new(j, "cpu_ns", json_integer(o->cpu_ns));
    json_object_set_new(j, "host_steal_fraction", num(o->steal_fraction));
    json_object_set_new(
        j, "requests_per_cpu_s",
        o->cpu_ns > 0 ? json_real((double)g->done / (double)o->cpu_ns * 1e9)
                      : json_null());
    json_object_set_new(j, "requests",
                        json_pack("{s:I,s:I,s:I,s:I,s:I,s:I}", "issued",
                                  (json_int_t)(c->n_arr ? c->n_arr : g->n),
                                  "completed", (json_int_t)g->done, "dropped",
                                  (json_int_t)g->dropped, "queued",
                                  (json_int_t)g->queued, "queued_threshold_ns",
                                  (json_int_t)c->rq->queued_ns, "warmup",
                                  (json_int_t)o->warm_n));
}

/* latency, wait, and the three parts with the replay ("model_latency"). */
static void parts_json(json_t *j, const mb__load_step_ctx *c,
                       const mb__load_step_out *o, gathered *g, double *model_q,
                       double *disp_p99, double *disp_max)
{
    size_t d = g->done;
    json_object_set_new(j, "latency", mb__latency_json(g->lat, d, NULL, 0));
    json_object_set_new(j, "wait",
                        json_pack("{s:o,s:o}", "mean_ns",
                                  num(d ? g->wsum / (double)d : NAN), "max_ns",
                                  num(d ? g->wmax : NAN)));
    double sm = d ? g->ssum / (double)d : NAN;
    double sv = d > 1 ? (g->s2 - g->ssum * sm) / (double)(d - 1) : NAN;
    json_t *svc = dist_json(g->svc, d);
    json_object_set_new(svc, "sd_ns", num(sv >= 0 ? sqrt(sv) : NAN));
    json_object_set_new(svc, "warmup_mean_ns",
                        num(o->warm_n ? o->warm_service_ns : NAN));
    json_object_set_new(j, "service", svc);
    if (!c->arr) /* closed loop: arrival = start, nothing to split */
        return;
    json_t *disp = dist_json(g->disp, d);
    *disp_p99 = pct(g->disp, d, 99);
    *disp_max = d ? g->disp[d - 1] : NAN;
    json_object_set_new(
        disp, "issue",
        json_pack("{s:s,s:s,s:I,s:I,s:I,s:I,s:I}", "priority",
                  o->rt_serve_threads
                      ? "real-time (SCHED_FIFO 1) throughout the step, "
                        "requests included (--realtime serve)"
                  : o->rt_waits ? "real-time (SCHED_FIFO 1) while idle, the "
                                  "thread's own policy to serve"
                  : c->rq->realtime != MB_LOAD_RT_NONE
                      ? "normal, with a short slice while idle (real-time "
                        "priority not permitted here)"
                      : "normal, with a short slice while idle (--realtime "
                        "none)",
                  "margin",
                  c->rq->spin_ns == MB_LOAD_SPIN_AUTO
                      ? "asleep to an adaptive margin before the arrival, "
                        "then spinning"
                      : "asleep to a fixed margin (--spin) before the "
                        "arrival, then spinning",
                  "final_margin_ns", (json_int_t)o->margin_ns, "sleeps",
                  (json_int_t)o->sleeps, "realtime_sleeps",
                  (json_int_t)o->rt_waits, "realtime_threads",
                  (json_int_t)o->rt_serve_threads, "spin_total_ns",
                  (json_int_t)o->spin_total_ns));
    json_object_set_new(j, "dispatch", disp);
    json_object_set_new(j, "queueing", dist_json(g->queue, d));
    /* the replayed latencies of the completed requests: the first d of
     * the sorted mall */
    *model_q = pct(g->mall, d, tail_q(c->rq));
    json_object_set_new(
        j, "model_latency",
        json_pack("{s:o,s:o,s:o,s:o,s:s}", "p50_ns", num(pct(g->mall, d, 50)),
                  "p90_ns", num(pct(g->mall, d, 90)), "p99_ns",
                  num(pct(g->mall, d, 99)), "p99_9_ns",
                  num(pct(g->mall, d, 99.9)), "method",
                  "the same arrivals and service times replayed on a FIFO "
                  "queue whose servers start a request the moment it has "
                  "arrived and one is free: the latency without the "
                  "harness's dispatch delays"));
}

json_t *mb__load_step_json(const mb__load_step_ctx *c,
                           const mb__load_step_out *o, json_t *warnings)
{
    const mb__load_req *rq = c->rq;
    gathered g;
    if (!gather(c, o, &g)) {
        gathered_free(&g);
        return NULL;
    }
    json_t *j = json_object(), *sw = json_array();
    double offered, achieved, model_q = NAN, disp_p99 = NAN, disp_max = NAN;
    rates_json(j, c, o, &g, &offered, &achieved);
    /* g.all sorted for the ranks; the other arrays stay in arrival order
     * (aligned with each other) until parts_json sorts them. */
    qsort(g.all, g.n, sizeof *g.all, mb__cmp_double);
    if (c->arr)
        qsort(g.mall, g.n, sizeof *g.mall, mb__cmp_double);
    else
        memcpy(g.mall, g.all, g.n * sizeof *g.mall);
    double q = tail_q(rq), lat_q = lat_pct(&g, q);
    double thr = rq->slo_ns > 0 ? (double)rq->slo_ns : lat_q;
    if (c->arr)
        json_object_set_new(
            j, "slow",
            slow_json(&g, thr, rq->slo_ns > 0 ? "the SLO bound" : "the p99"));
    if (rq->slo_ns > 0 && strcmp(c->role, "calibrate") != 0)
        json_object_set_new(j, "slo", slo_json(c, o, &g));
    parts_json(j, c, o, &g, &model_q, &disp_p99, &disp_max);
    json_object_set_new(j, "early_stopping",
                        estop_json(g.all, (int64_t)g.n, rq));
    if (c->arr && strcmp(c->scen, "offline") != 0 && isfinite(offered))
        json_object_set_new(j, "stability",
                            stability_json(c, o, &g, offered, achieved, sw));
    bool harness = c->arr && strcmp(c->scen, "offline") != 0 &&
                   harness_tail_warning(c, lat_q, model_q, disp_p99, disp_max,
                                        o->steal_fraction, sw);
    json_object_set_new(j, "harness_sets_tail", json_boolean(harness));
    if (o->failed)
        json_object_set_new(j, "error", json_string(o->error));
    if (rq->records_max > 0 && (int64_t)o->n <= rq->records_max) {
        json_object_set_new(j, "records", records_json(o));
    } else if (o->n && rq->records_max > 0) {
        char m[200];
        snprintf(m, sizeof m,
                 "step %zu: %zu request records not kept (more than %lld)",
                 c->step_no, o->n, (long long)rq->records_max);
        json_array_append_new(warnings, json_string(m));
    }
    json_object_set_new(j, "warnings", sw);
    gathered_free(&g);
    return j;
}
