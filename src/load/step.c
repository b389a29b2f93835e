/* step.c - one step of a load: threads warm up on their own handles,
 * meet at a start line, then serve a closed loop or a fixed schedule of
 * arrivals, each appending (arrival, start, end) to its own array; and the
 * step's statistics as a JSON object (step.h). */
#include "load/step.h"
#include "load/estop.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/stats.h"
#include "runner/runner.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct step step;

typedef struct {
    step *s;
    void *h;
    mb__load_rec *r;
    size_t n, cap;
    int64_t warm_n, warm_ns;
    int failed, oom;
    mb_err err;
    pthread_t th;
} worker;

struct step {
    int (*run)(void *, mb_err *);
    int closed;
    const int64_t *arr; /* open loop: arrival offsets, ascending */
    size_t n_arr;
    atomic_size_t next;
    atomic_llong done;
    int64_t t0, deadline, hard, drain, n_min;
    int64_t warm_n, warm_ns, spin_ns;
    /* Start: each thread counts itself ready (warm) and waits for go. */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t ready;
    int go, abort;
    volatile int *cancel;
};

/* Records a request; false (and w->oom set) when memory runs out. */
static bool push(worker *w, int64_t a, int64_t s, int64_t e)
{
    if (w->n == w->cap) {
        size_t nc = w->cap ? w->cap * 2 : 4096;
        mb__load_rec *nr = mb__realloc_array(w->r, nc, sizeof *nr);
        if (!nr) {
            w->oom = 1;
            return false;
        }
        w->r = nr;
        w->cap = nc;
    }
    w->r[w->n++] = (mb__load_rec){a, s, e};
    return true;
}

/* Runs one inference that arrived at a and started at start (absolute
 * times) and records it relative to t0; false (w->failed set) when the
 * inference failed. */
static bool serve(worker *w, int64_t t0, int64_t a, int64_t start)
{
    int rc = w->s->run(w->h, &w->err);
    int64_t e = mb_now_ns();
    if (rc) {
        w->failed = 1;
        return false;
    }
    push(w, a - t0, start - t0, e - t0);
    return true;
}

static void sleep_until(int64_t t)
{
    struct timespec ts = {(time_t)(t / 1000000000), (long)(t % 1000000000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

static void *work(void *p)
{
    worker *w = p;
    step *s = w->s;
    /* Warmup on this thread's own handle, before every step. */
    int64_t ws = mb_now_ns();
    for (int64_t i = 0; !w->failed; i++) {
        int64_t now = mb_now_ns();
        if (i >= s->warm_n && now - ws >= s->warm_ns)
            break;
        if (s->run(w->h, &w->err))
            w->failed = 1;
        w->warm_n++;
    }
    w->warm_ns = mb_now_ns() - ws;
    pthread_mutex_lock(&s->mu);
    s->ready++;
    pthread_cond_broadcast(&s->cv);
    while (!s->go)
        pthread_cond_wait(&s->cv, &s->mu);
    int abort = s->abort;
    pthread_mutex_unlock(&s->mu);
    if (abort)
        return NULL;
    const int64_t t0 = s->t0;
    sleep_until(t0);
    while (!w->failed && !w->oom) {
        if (s->cancel && *s->cancel)
            break;
        if (s->closed) {
            int64_t a = mb_now_ns();
            if (a >= s->hard ||
                (a >= s->deadline &&
                 atomic_load_explicit(&s->done, memory_order_relaxed) >=
                     s->n_min))
                break;
            if (!serve(w, t0, a, a))
                break;
            atomic_fetch_add_explicit(&s->done, 1, memory_order_relaxed);
            continue;
        }
        size_t k = atomic_fetch_add_explicit(&s->next, 1, memory_order_relaxed);
        if (k >= s->n_arr)
            break;
        int64_t a = t0 + s->arr[k], now = mb_now_ns();
        if (now < a) {
            if (a - now > s->spin_ns)
                sleep_until(a - s->spin_ns);
            while ((now = mb_now_ns()) < a)
                ;
        }
        if (now > s->drain) {
            push(w, a - t0, -1, -1);
            continue;
        }
        if (!serve(w, t0, a, now))
            break;
    }
    return NULL;
}

static int cmp_arrival(const void *a, const void *b)
{
    const mb__load_rec *x = a, *y = b;
    return (x->arrival > y->arrival) - (x->arrival < y->arrival);
}

mb_status mb__load_step_run(const mb__load_step_in *in, mb__load_step_out *o,
                            mb_err *err)
{
    size_t threads = in->threads;
    const int64_t *arr = in->arr;
    size_t n_arr = in->n_arr;
    int64_t dur_ns = in->dur_ns;
    memset(o, 0, sizeof *o);
    step s;
    memset(&s, 0, sizeof s);
    s.run = in->run;
    s.closed = in->closed;
    s.arr = arr;
    s.n_arr = n_arr;
    atomic_init(&s.next, 0);
    atomic_init(&s.done, 0);
    s.n_min = in->n_min;
    s.warm_n = in->warm_n;
    s.warm_ns = in->warm_ns;
    s.spin_ns = in->spin_ns;
    s.cancel = in->cancel;
    worker *w = mb__calloc(threads, sizeof *w);
    if (!w)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    pthread_mutex_init(&s.mu, NULL);
    pthread_cond_init(&s.cv, NULL);
    size_t started = 0;
    for (; started < threads; started++) {
        w[started].s = &s;
        w[started].h = in->handles[started];
        if (pthread_create(&w[started].th, NULL, work, &w[started]))
            break;
    }
    pthread_mutex_lock(&s.mu);
    while (started == threads && s.ready < threads)
        pthread_cond_wait(&s.cv, &s.mu);
    /* Every thread is warm: start the clock a little ahead so that the
     * first arrivals are not already late. */
    s.t0 = mb_now_ns() + 200000;
    int64_t max_ns = in->max_ns > 0 ? in->max_ns : INT64_MAX / 4;
    s.deadline = s.t0 + dur_ns;
    s.hard = s.t0 + (dur_ns > max_ns ? dur_ns : max_ns);
    /* Open loop: arrivals end at the last offset; the queue may drain for
     * as long again (at least 1 s), within --max-time. */
    int64_t span = n_arr ? arr[n_arr - 1] : 0;
    int64_t drain = span > 1000000000 ? span : 1000000000;
    s.drain = s.t0 + span + (drain < max_ns ? drain : max_ns);
    s.abort = started < threads;
    s.go = 1;
    pthread_cond_broadcast(&s.cv);
    pthread_mutex_unlock(&s.mu);
    if (started < threads) {
        for (size_t k = 0; k < started; k++) {
            pthread_join(w[k].th, NULL);
            free(w[k].r);
        }
        pthread_cond_destroy(&s.cv);
        pthread_mutex_destroy(&s.mu);
        free(w);
        return mb__fail(err, MB_ENOMEM,
                        "cannot start %zu threads (started %zu); lower "
                        "--concurrency",
                        threads, started);
    }
    size_t total = 0;
    for (size_t k = 0; k < threads; k++) {
        pthread_join(w[k].th, NULL);
        total += w[k].n;
    }
    pthread_cond_destroy(&s.cv);
    pthread_mutex_destroy(&s.mu);
    o->r = mb__calloc(total ? total : 1, sizeof *o->r);
    int64_t warm_ns = 0;
    for (size_t k = 0; k < threads; k++) {
        if (o->r && w[k].n)
            memcpy(o->r + o->n, w[k].r, w[k].n * sizeof *o->r);
        o->n += w[k].n;
        o->warm_n += w[k].warm_n;
        warm_ns += w[k].warm_ns;
        if (w[k].failed && !o->failed) {
            o->failed = 1;
            memcpy(o->error, w[k].err.msg, sizeof o->error);
        }
        if (w[k].oom && !o->failed) {
            o->failed = 1;
            strcpy(o->error, "out of memory keeping the request records");
        }
        free(w[k].r);
    }
    free(w);
    if (!o->r)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    o->warm_service_ns = o->warm_n ? (double)warm_ns / (double)o->warm_n : 0;
    qsort(o->r, o->n, sizeof *o->r, cmp_arrival);
    for (size_t i = 0; i < o->n; i++)
        if (o->r[i].end > o->wall_ns)
            o->wall_ns = o->r[i].end;
    o->interrupted = in->cancel && *in->cancel;
    return MB_OK;
}

/* ---- statistics of a step --------------------------------------------- */

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static const double tail_q[] = {0.5, 0.9, 0.95, 0.99, 0.999};

/* The "early_stopping" object: for each tail percentile the fewest
 * requests that can bound it and, when there are enough, the upper bound
 * (an order statistic of lat, sorted; dropped requests count as
 * unbounded). */
static json_t *estop_json(const double *sorted, int64_t n_all, double c)
{
    json_t *a = json_array();
    for (size_t i = 1; i < sizeof tail_q / sizeof tail_q[0]; i++) {
        double q = tail_q[i];
        int64_t j = mb__estop_rank(n_all, q, c);
        json_t *bound = json_null();
        if (j > 0)
            bound = num(sorted[j - 1]); /* INFINITY (dropped) -> null */
        json_array_append_new(
            a, json_pack("{s:f,s:I,s:I,s:o,s:o}", "q", q * 100, "min_requests",
                         (json_int_t)mb__estop_min_n(q, c), "rank",
                         (json_int_t)j, "upper_bound_ns", bound, "supported",
                         json_boolean(j > 0)));
    }
    return json_pack("{s:f,s:s,s:o}", "confidence", c, "method",
                     "one-sided binomial order-statistic upper bound "
                     "(MLPerf LoadGen early stopping); dropped requests "
                     "count as unbounded",
                     "percentiles", a);
}

json_t *mb__load_step_json(const mb__load_req *rq, const char *role,
                           const char *scen, size_t threads, double target,
                           const int64_t *arr, size_t n_arr,
                           const mb__load_step_out *o, size_t step_no,
                           json_t *warnings)
{
    size_t n = o->n, done = 0, dropped = 0, queued = 0, over = 0;
    int64_t *lat = mb__calloc(n ? n : 1, sizeof *lat);
    double *all = mb__calloc(n ? n : 1, sizeof *all);
    double wsum = 0, ssum = 0, s2 = 0, wmax = 0;
    for (size_t i = 0; lat && all && i < n; i++) {
        const mb__load_rec *r = &o->r[i];
        if (r->start < 0) {
            dropped++;
            all[i] = INFINITY;
            continue;
        }
        int64_t l = r->end - r->arrival, wt = r->start - r->arrival,
                sv = r->end - r->start;
        lat[done++] = l;
        all[i] = (double)l;
        wsum += (double)wt;
        wmax = fmax(wmax, (double)wt);
        ssum += (double)sv;
        s2 += (double)sv * (double)sv;
        queued += wt > rq->queued_ns;
        over += rq->slo_ns > 0 && l > rq->slo_ns;
    }
    json_t *j = json_object();
    json_object_set_new(j, "role", json_string(role));
    json_object_set_new(j, "scenario", json_string(scen));
    json_object_set_new(j, "concurrency", json_integer((json_int_t)threads));
    json_object_set_new(j, "target_qps",
                        target > 0 ? json_real(target) : json_null());
    double span = n_arr > 1 ? (double)arr[n_arr - 1] : 0;
    json_object_set_new(j, "offered_qps",
                        span > 0 ? json_real((double)n_arr / span * 1e9)
                                 : json_null());
    json_object_set_new(j, "achieved_qps",
                        o->wall_ns > 0
                            ? json_real((double)done / (double)o->wall_ns * 1e9)
                            : json_null());
    json_object_set_new(j, "wall_ns", json_integer(o->wall_ns));
    json_object_set_new(
        j, "requests",
        json_pack("{s:I,s:I,s:I,s:I,s:I,s:I}", "issued",
                  (json_int_t)(n_arr ? n_arr : n), "completed",
                  (json_int_t)done, "dropped", (json_int_t)dropped, "queued",
                  (json_int_t)queued, "queued_threshold_ns",
                  (json_int_t)rq->queued_ns, "warmup", (json_int_t)o->warm_n));
    json_object_set_new(j, "latency",
                        lat ? mb__latency_json(lat, done, NULL, 0)
                            : json_object());
    json_object_set_new(j, "wait",
                        json_pack("{s:o,s:o}", "mean_ns",
                                  num(done ? wsum / (double)done : NAN),
                                  "max_ns", num(done ? wmax : NAN)));
    double sm = done ? ssum / (double)done : NAN;
    double sv = done > 1 ? (s2 - ssum * sm) / (double)(done - 1) : NAN;
    json_object_set_new(j, "service",
                        json_pack("{s:o,s:o,s:o}", "mean_ns", num(sm), "sd_ns",
                                  num(sv >= 0 ? sqrt(sv) : NAN),
                                  "warmup_mean_ns",
                                  num(o->warm_n ? o->warm_service_ns : NAN)));
    if (all)
        qsort(all, n, sizeof *all, mb__cmp_double);
    json_object_set_new(j, "early_stopping",
                        all ? estop_json(all, (int64_t)n, rq->confidence)
                            : json_null());
    if (rq->slo_ns > 0 && strcmp(role, "calibrate") != 0) {
        int64_t k = (int64_t)(over + dropped);
        int64_t need = mb__estop_min_n(rq->slo_q, rq->confidence);
        int valid = (int64_t)n >= need && !o->failed;
        int pass =
            valid && mb__estop_pass((int64_t)n, k, rq->slo_q, rq->confidence);
        char why[300];
        if (o->failed)
            snprintf(why, sizeof why, "the step failed: %s", o->error);
        else if (!valid)
            snprintf(why, sizeof why,
                     "%zu requests, fewer than the %lld that can bound p%g "
                     "at %g%% confidence (invalid: raise --max-time)",
                     n, (long long)need, rq->slo_q * 100, rq->confidence * 100);
        else
            snprintf(why, sizeof why,
                     "%lld of %zu requests over the bound (%zu dropped); "
                     "at most %lld allowed",
                     (long long)k, n, dropped,
                     (long long)mb__estop_max_over((int64_t)n, rq->slo_q,
                                                   rq->confidence));
        json_object_set_new(
            j, "slo",
            json_pack("{s:f,s:I,s:I,s:I,s:b,s:b,s:s}", "percentile",
                      rq->slo_q * 100, "bound_ns", (json_int_t)rq->slo_ns,
                      "over_bound", (json_int_t)k, "max_over_bound",
                      (json_int_t)mb__estop_max_over((int64_t)n, rq->slo_q,
                                                     rq->confidence),
                      "valid", valid, "pass", pass, "reason", why));
    }
    if (o->failed)
        json_object_set_new(j, "error", json_string(o->error));
    if (rq->records_max > 0 && (int64_t)n <= rq->records_max) {
        json_t *a = json_array(), *s = json_array(), *e = json_array();
        for (size_t i = 0; i < n; i++) {
            json_array_append_new(a, json_integer(o->r[i].arrival));
            json_array_append_new(s, json_integer(o->r[i].start));
            json_array_append_new(e, json_integer(o->r[i].end));
        }
        json_object_set_new(
            j, "records",
            json_pack("{s:s,s:o,s:o,s:o}", "unit",
                      "ns from the step's start; start -1: dropped",
                      "arrival_ns", a, "start_ns", s, "end_ns", e));
    } else if (n && rq->records_max > 0) {
        char m[200];
        snprintf(m, sizeof m,
                 "step %zu: %zu request records not kept (more than %lld)",
                 step_no, n, (long long)rq->records_max);
        json_array_append_new(warnings, json_string(m));
    }
    free(lat);
    free(all);
    return j;
}
