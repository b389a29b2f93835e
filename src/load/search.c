/* search.c - the SLO search and its summary (search.h). */
#include "load/search.h"
#include "load/estop.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/repstats.h"
#include "core/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static int64_t max_i64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static double grid_rate(const mb__load_engine *g, long i)
{
    return g->grid_base * pow(g->grid_ratio, (double)i);
}

static long grid_index(const mb__load_engine *g, double r)
{
    return lround(log(r / g->grid_base) / log(g->grid_ratio));
}

/* Counts a step at grid index i; false when memory runs out. */
static bool probe_add(mb__load_engine *g, long i, double qps, int pass)
{
    for (size_t k = 0; k < g->n_probes; k++)
        if (g->probes[k].index == i && g->probes[k].set == g->set) {
            g->probes[k].steps++;
            g->probes[k].passes += pass;
            return true;
        }
    if (g->n_probes == g->cap_probes) {
        size_t nc = g->cap_probes ? 2 * g->cap_probes : 16;
        mb__load_probe *np = mb__realloc_array(g->probes, nc, sizeof *np);
        if (!np)
            return false;
        g->probes = np;
        g->cap_probes = nc;
    }
    g->probes[g->n_probes++] = (mb__load_probe){i, qps, 1, pass, g->set};
    return true;
}

/* Requests an SLO step at rate qps issues: at least --min-iterations and
 * twice the early-stopping minimum, and at least --min-time of arrivals,
 * within --max-time. */
static int64_t slo_requests(const mb__load_engine *g, double qps)
{
    const mb__plan *p = g->plan;
    const mb__load_req *rq = g->req;
    int64_t need =
        max_i64(p->min_iters,
                2 * mb__estop_min_n(rq->slo_q, rq->confidence, rq->estop_rule));
    int64_t by_time = (int64_t)ceil(qps * (double)p->min_time_ns / 1e9);
    int64_t n = max_i64(need, by_time);
    int64_t cap = (int64_t)(qps * (double)p->max_time_ns / 1e9);
    if (p->max_time_ns > 0 && n > cap)
        n = max_i64(cap, 1);
    return n;
}

static const json_t *slo_of(const json_t *st)
{
    return json_object_get(st, "slo");
}

/* Where one search stands: the highest passing and lowest failing grid
 * indexes so far. */
typedef struct {
    long lo, hi;
    int have_lo, have_hi;
    json_t *best, *fail; /* the steps at lo and at hi (borrowed) */
} bracket;

/* The next grid index after a step at i, or false with *end set when the
 * search is over. */
static bool next_index(const mb__load_engine *g, const bracket *b, double cap,
                       long *i, const char **end)
{
    double lr = log(g->grid_ratio);
    long up = (long)ceil(log(1.5) / lr), down = (long)ceil(log(2.0) / lr);
    if (!b->have_hi) {
        if (grid_rate(g, *i + up) > 4 * cap) {
            *end = "passes at 4x the calibrated capacity";
            return false;
        }
        *i += up;
    } else if (!b->have_lo) {
        if (grid_rate(g, *i - down) < cap / 64) {
            *end = "no rate down to capacity/64 meets the bound";
            return false;
        }
        *i -= down;
    } else {
        if (b->hi - b->lo <= 1) {
            *end = "bracket within the tolerance (adjacent grid rates)";
            return false;
        }
        *i = b->lo + (b->hi - b->lo) / 2;
    }
    return true;
}

mb_status mb__load_search(mb__load_engine *g, size_t threads, size_t index,
                          json_t *searches, mb_err *err)
{
    const mb__load_req *rq = g->req;
    json_t *cal = NULL, *st = NULL;
    size_t first = json_array_size(g->steps);
    int64_t cal_ns =
        g->plan->min_time_ns < 500000000 ? g->plan->min_time_ns : 500000000;
    mb_status s =
        mb__load_closed_step(g, "calibrate", threads, cal_ns, &cal, err);
    if (s)
        return s;
    double cap = mb__load_jd(cal, "achieved_qps");
    if (!(cap > 0)) {
        const char *why = json_string_value(json_object_get(cal, "error"));
        return mb__fail(err, MB_EBACKEND,
                        "calibration measured no throughput: %s",
                        why ? why : "no request completed");
    }
    if (!(g->grid_base > 0)) { /* every search probes the rates of one grid */
        g->grid_base = cap;
        g->grid_ratio = 1 + rq->tolerance;
    }
    bracket b = {0, 0, 0, 0, NULL, NULL};
    long i = grid_index(g, 0.8 * cap);
    int steps = 0;
    const char *end = "step limit (--max-steps)";
    while (steps < rq->max_steps && !g->interrupted) {
        double r = grid_rate(g, i);
        s = mb__load_open_step(g, b.have_lo && b.have_hi ? "bisect" : "bracket",
                               threads, r, slo_requests(g, r), 0, &st, err);
        if (s)
            return s;
        steps++;
        int pass = json_is_true(json_object_get(slo_of(st), "pass"));
        json_object_set_new(st, "search", json_integer((json_int_t)index));
        json_object_set_new(st, "search_basis",
                            json_string(mb__load_basis_name(g->set)));
        json_object_set_new(st, "grid_index", json_integer((json_int_t)i));
        if (!probe_add(g, i, r, pass))
            return mb__fail(err, MB_ENOMEM, "out of memory");
        if (pass) {
            b.lo = i, b.have_lo = 1, b.best = st;
        } else {
            b.hi = i, b.have_hi = 1, b.fail = st;
        }
        if (!next_index(g, &b, cap, &i, &end))
            break;
    }
    if (g->interrupted)
        end = "interrupted";
    json_t *idx = json_array();
    for (size_t k = first; k < json_array_size(g->steps); k++)
        json_array_append_new(idx, json_integer((json_int_t)k));
    double lo = b.have_lo ? grid_rate(g, b.lo) : 0;
    json_array_append_new(
        searches,
        json_pack(
            "{s:I,s:f,s:f,s:o,s:o,s:o,s:o,s:i,s:s,s:o,s:b}", "search",
            (json_int_t)index, "capacity_qps", cap, "qps", lo, "achieved_qps",
            b.best ? num(mb__load_jd(b.best, "achieved_qps")) : json_real(0),
            "bracket",
            json_pack("[f,o]", lo,
                      b.have_hi ? json_real(grid_rate(g, b.hi)) : json_null()),
            "p_at_qps",
            b.best
                ? json_deep_copy(json_object_get(slo_of(b.best), "observed_ns"))
                : json_null(),
            "met", json_boolean(b.have_lo), "steps", steps, "ended_by", end,
            "step_indexes", idx, "outlier", 0));
    json_object_set_new(json_array_get(searches, json_array_size(searches) - 1),
                        "basis", json_string(mb__load_basis_name(g->set)));
    return MB_OK;
}

/* ---- the summary over searches ---------------------------------------- */

static double median_of(double *x, size_t n)
{
    qsort(x, n, sizeof *x, mb__cmp_double);
    return n ? (n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2) : NAN;
}

/* Flags searches whose log answer lies more than max(3.5 x 1.4826 x MAD,
 * ln 1.5) from the median log answer (a factor 1.5 away at least: the
 * answers sit on a grid, so the MAD is often 0 or one step), and a search
 * that met no rate among others that did, with a warning for each. */
static void flag_outliers(mb__load_engine *g, json_t *searches, const double *q,
                          size_t k)
{
    double lg[64], dev[64];
    size_t m = 0;
    for (size_t i = 0; i < k && m < 64; i++)
        if (q[i] > 0)
            lg[m++] = log(q[i]);
    if (m < 3)
        return;
    double med = median_of(lg, m);
    for (size_t i = 0; i < m; i++)
        dev[i] = fabs(lg[i] - med);
    double mad = median_of(dev, m);
    double thr = fmax(3.5 * 1.4826 * mad, log(1.5));
    for (size_t i = 0; i < k; i++) {
        if (q[i] > 0 && !(fabs(log(q[i]) - med) > thr))
            continue;
        json_object_set_new(json_array_get(searches, i), "outlier",
                            json_true());
        char w[400];
        snprintf(w, sizeof w,
                 "search %zu answered %.0f requests/s, far from the median "
                 "%.0f/s of the searches (an outlier by the MAD rule; it "
                 "is kept in the answer and its interval): the machine was "
                 "not the same during that search",
                 i + 1, q[i], exp(med));
        json_array_append_new(g->warnings, json_string(w));
    }
}

/* "probes": the pass rate at each probed grid rate, ascending. */
static int by_index(const void *a, const void *b)
{
    const mb__load_probe *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

static json_t *probes_json(mb__load_engine *g)
{
    json_t *a = json_array();
    qsort(g->probes, g->n_probes, sizeof *g->probes, by_index);
    for (size_t i = 0; i < g->n_probes; i++) {
        const mb__load_probe *p = &g->probes[i];
        if (p->set != g->set)
            continue;
        json_array_append_new(
            a, json_pack("{s:f,s:I,s:i,s:i,s:f}", "qps", p->qps, "grid_index",
                         (json_int_t)p->index, "steps", p->steps, "passes",
                         p->passes, "pass_rate",
                         (double)p->passes / (double)p->steps));
    }
    return a;
}

/* True when search s ended below a step that failed only because of
 * dispatch delay: a failing step at the lowest failing rate (the top of
 * its bracket) whose replay without the delays passes. */
static bool capped_by_harness(const mb__load_engine *g, const json_t *s)
{
    double hi =
        json_number_value(json_array_get(json_object_get(s, "bracket"), 1));
    size_t j;
    const json_t *v;
    json_array_foreach(json_object_get(s, "step_indexes"), j, v)
    {
        const json_t *st =
            json_array_get(g->steps, (size_t)json_integer_value(v));
        const json_t *slo = slo_of(st);
        if (hi > 0 && slo &&
            fabs(mb__load_jd(st, "target_qps") / hi - 1) < 1e-9 &&
            !json_is_true(json_object_get(slo, "pass")) &&
            json_is_true(mb__load_jget(slo, "model", "pass")))
            return true;
    }
    return false;
}

/* Warns when the harness, not the model, capped the answers. */
static void harness_limits(mb__load_engine *g, const json_t *searches)
{
    size_t i, n = 0;
    const json_t *s;
    json_array_foreach(searches, i, s)
    {
        bool c = capped_by_harness(g, s);
        json_object_set_new((json_t *)s, "capped_by_dispatch", json_boolean(c));
        n += c;
    }
    if (!n)
        return;
    char w[500];
    snprintf(w, sizeof w,
             "%zu of %zu searches stopped below a rate that failed only "
             "because of dispatch delay (replayed without the harness's "
             "delays, that step passes): on this machine, now, the harness "
             "and not the model limits those answers; the dispatch figures "
             "and the harness floor say by how much",
             n, json_array_size(searches));
    json_array_append_new(g->warnings, json_string(w));
}

/* The answer: the geometric mean of the searches' answers and a 95%
 * interval that holds the repeat-to-repeat spread (docs/STATISTICS.md,
 * "The SLO answer"): Student t on the logs with the spread of one search
 * undivided, est x exp(+-t(K-1) s sqrt(1 + 1/K)) (a prediction interval
 * for one more search: runs minutes apart on a shared machine differ by
 * more than the searches of one run, so the spread of the mean would
 * understate it), s never below one grid step (searches that agree on one
 * grid rate each located the threshold only to within a step), and never
 * narrower than the range of the answers.  With a search that met no rate,
 * the median and the range. */
static void answer_ci(const mb__load_engine *g, const double *q, size_t k,
                      double *est, double *lo, double *hi, const char **how)
{
    double s[64];
    size_t zero = 0;
    for (size_t i = 0; i < k; i++) {
        s[i] = q[i];
        zero += !(q[i] > 0);
    }
    *lo = *hi = NAN;
    if (k == 1) {
        *est = q[0];
        *how = "one search: no interval (--repeat 5, the default, gives one)";
        return;
    }
    if (zero) {
        *est = median_of(s, k);
        *lo = s[0];
        *hi = s[k - 1];
        *how = "median and range of the searches (a search met no rate, so "
               "no interval on the log scale)";
        return;
    }
    double m = 0, ss = 0;
    for (size_t i = 0; i < k; i++)
        m += log(q[i]) / (double)k;
    for (size_t i = 0; i < k; i++)
        ss += (log(q[i]) - m) * (log(q[i]) - m);
    double sd = sqrt(ss / (double)(k - 1)), step = log(g->grid_ratio);
    if (sd < step)
        sd = step;
    double h =
        mb__t_quantile(0.975, (double)(k - 1)) * sd * sqrt(1 + 1 / (double)k);
    *est = exp(m);
    *lo = *est * exp(-h);
    *hi = *est * exp(h);
    for (size_t i = 0; i < k; i++) {
        *lo = fmin(*lo, q[i]);
        *hi = fmax(*hi, q[i]);
    }
    *how = "geometric mean of the searches' answers; 95% interval for the "
           "answer of one more search: Student t on their logs (searches - "
           "1 degrees of freedom) with the spread of one search, "
           "exp(+-t s sqrt(1 + 1/searches)), s at least one grid step, and "
           "at least the range of the answers";
}

json_t *mb__load_search_summary(mb__load_engine *g, json_t *searches)
{
    const mb__load_req *rq = g->req;
    size_t k = json_array_size(searches), n = 0;
    double q[64], a[64], sorted[64];
    for (size_t i = 0; i < k && n < 64; i++, n++) {
        q[n] = sorted[n] = mb__load_jd(json_array_get(searches, i), "qps");
        a[n] = mb__load_jd(json_array_get(searches, i), "achieved_qps");
    }
    double med = n ? median_of(sorted, n) : 0, amed = n ? median_of(a, n) : 0;
    double est = 0, lo = NAN, hi = NAN;
    const char *how = "no search ran";
    if (n)
        answer_ci(g, q, n, &est, &lo, &hi, &how);
    flag_outliers(g, searches, q, n);
    harness_limits(g, searches);
    json_t *ci =
        isfinite(lo) && isfinite(hi) ? json_pack("[f,f]", lo, hi) : json_null();
    json_t *o = json_pack(
        "{s:f,s:I,s:f,s:f,s:i,s:o,s:o,s:s,s:o,s:o,s:o,s:o,s:b}", "percentile",
        rq->slo_q * 100, "bound_ns", (json_int_t)rq->slo_ns, "confidence",
        rq->confidence, "tolerance", rq->tolerance, "repeat", (int)n, "qps",
        json_real(est > 0 ? est : 0), "qps_ci95", ci, "qps_ci95_method", how,
        "median_qps", num(med), "achieved_qps", json_real(amed), "min_qps",
        n ? json_real(sorted[0]) : json_null(), "max_qps",
        n ? json_real(sorted[n - 1]) : json_null(), "met", est > 0);
    json_object_set_new(o, "basis",
                        json_string(mb__load_basis_name(rq->slo_basis)));
    json_object_set_new(o, "question",
                        json_string(mb__load_basis_question(rq->slo_basis)));
    static const char *const rt[] = {"none", "wait", "serve", "auto"};
    json_object_set_new(o, "realtime", json_string(rt[g->realtime & 3]));
    json_object_set_new(
        o, "rule",
        json_string(rq->estop_rule == MB_ESTOP_LOADGEN ? "loadgen" : "exact"));
    json_object_set_new(o, "grid",
                        json_pack("{s:f,s:f}", "base_qps", g->grid_base,
                                  "ratio", g->grid_ratio));
    json_object_set_new(o, "probes", probes_json(g));
    json_object_set_new(
        o, "bias",
        json_string("low: a search answers the highest grid rate whose step "
                    "demonstrated the bound at the stated confidence, so a "
                    "rate whose true percentile sits just under the bound "
                    "mostly fails, one failing step caps the search, and the "
                    "answer is the lower end of its final bracket"));
    json_object_set_new(o, "searches", searches);
    return o;
}
