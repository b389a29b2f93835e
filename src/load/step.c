/* step.c - one step of a load: threads warm up on their own handles,
 * meet at a start line, then serve a closed loop or a fixed schedule of
 * arrivals, each appending (arrival, ready, start, end) to its own array
 * (step.h). */
#include "load/step.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/waiter.h"
#include "runner/runner.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
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
    int32_t index;
    mb__load_rec *r;
    size_t n, cap;
    int64_t warm_n, warm_ns;
    int64_t prev_end;    /* absolute end of this thread's last request */
    mb__waiter wait;     /* the idle wait before an arrival */
    int64_t cpu_ns;      /* its CPU time from the start line on */
    int rt_serve;        /* runs at SCHED_FIFO throughout (--realtime serve) */
    atomic_llong served; /* closed loop: read by the others at the end */
    int failed, oom;
    mb_err err;
    pthread_t th;
} worker;

struct step {
    /* The shared FIFO of the open loop on a cache line of its own: every
     * request writes it, and nothing the threads only read shares it. */
    _Alignas(64) atomic_size_t next;
    _Alignas(64) int (*run)(void *, mb_err *);
    int closed;
    const int64_t *arr; /* open loop: arrival offsets, ascending */
    size_t n_arr;
    worker *w;
    size_t threads;
    int64_t t0, deadline, hard, drain, n_min;
    int64_t warm_n, warm_ns, spin_ns;
    int realtime;
    /* Start: each thread counts itself ready (warm) and waits for go. */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t ready;
    int go, abort;
    volatile int *cancel;
};

/* Records a request; false (and w->oom set) when memory runs out. */
static bool push(worker *w, const mb__load_rec *rec)
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
    w->r[w->n++] = *rec;
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
    int64_t ready = a > w->prev_end ? a : w->prev_end;
    mb__load_rec rec = {a - t0, ready - t0, start - t0, e - t0, w->index};
    w->prev_end = e;
    push(w, &rec);
    return true;
}

/* The calling thread's CPU time, ns. */
static int64_t thread_cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void warm_up(worker *w)
{
    step *s = w->s;
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
}

/* Closed loop: stop at the hard cap, or past the deadline once every
 * thread together has served n_min (the others' counts are read only
 * then, so the loop itself shares no cache line). */
static bool closed_done(worker *w, int64_t now)
{
    step *s = w->s;
    if (now >= s->hard)
        return true;
    if (now < s->deadline)
        return false;
    long long sum = 0;
    for (size_t k = 0; k < s->threads; k++)
        sum += atomic_load_explicit(&s->w[k].served, memory_order_relaxed);
    return sum >= s->n_min;
}

static void *work(void *p)
{
    worker *w = p;
    step *s = w->s;
    mb__waiter_thread_setup();             /* wake on time */
    if (s->realtime == MB_LOAD_RT_SERVE) { /* the thread ends with the step */
        struct sched_param rt = {.sched_priority = 1};
        w->rt_serve = !pthread_setschedparam(pthread_self(), SCHED_FIFO, &rt);
    }
    warm_up(w);
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
    w->prev_end = t0;
    mb__waiter_until(&w->wait, t0);
    int64_t cpu0 = thread_cpu_ns();
    while (!w->failed && !w->oom) {
        if (s->cancel && *s->cancel)
            break;
        if (s->closed) {
            int64_t a = mb_now_ns();
            if (closed_done(w, a) || !serve(w, t0, a, a))
                break;
            atomic_store_explicit(&w->served, (long long)w->n,
                                  memory_order_relaxed);
            continue;
        }
        size_t k = atomic_fetch_add_explicit(&s->next, 1, memory_order_relaxed);
        if (k >= s->n_arr)
            break;
        int64_t a = t0 + s->arr[k], now = mb_now_ns();
        if (now < a)
            now = mb__waiter_until(&w->wait, a);
        if (now > s->drain) {
            mb__load_rec rec = {a - t0, a - t0, -1, -1, w->index};
            push(w, &rec);
            continue;
        }
        if (!serve(w, t0, a, now))
            break;
    }
    w->cpu_ns = thread_cpu_ns() - cpu0;
    return NULL;
}

static int cmp_arrival(const void *a, const void *b)
{
    const mb__load_rec *x = a, *y = b;
    if (x->arrival != y->arrival)
        return (x->arrival > y->arrival) - (x->arrival < y->arrival);
    return (x->start > y->start) - (x->start < y->start);
}

/* The machine's CPU time stolen by the hypervisor and its total CPU
 * time, in clock ticks since boot (the first line of /proc/stat); false
 * where there is none. */
static bool cpu_ticks(long long *steal, long long *total)
{
    FILE *f = fopen("/proc/stat", "r");
    long long v[8] = {0};
    int n = f ? fscanf(f, "cpu %lld %lld %lld %lld %lld %lld %lld %lld", &v[0],
                       &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7])
              : 0;
    if (f)
        fclose(f);
    if (n != 8)
        return false;
    *steal = v[7];
    *total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
    return true;
}

/* Sets the clock and the deadlines once every thread is warm. */
static void set_clock(step *s, const mb__load_step_in *in)
{
    /* Start a little ahead so that the first arrivals are not late. */
    s->t0 = mb_now_ns() + 200000;
    int64_t max_ns = in->max_ns > 0 ? in->max_ns : INT64_MAX / 4;
    s->deadline = s->t0 + in->dur_ns;
    s->hard = s->t0 + (in->dur_ns > max_ns ? in->dur_ns : max_ns);
    /* Open loop: arrivals end at the last offset; the queue may drain for
     * as long again (at least 1 s), within --max-time.  Offline (every
     * arrival at 0): the whole --max-time. */
    int64_t span = in->n_arr ? in->arr[in->n_arr - 1] : 0;
    int64_t drain = span > 1000000000 ? span : 1000000000;
    if (in->n_arr && span == 0)
        drain = max_ns;
    s->drain = s->t0 + span + (drain < max_ns ? drain : max_ns);
}

/* Joins the threads and merges their records into o (sorted by arrival).
 * MB_ENOMEM when the merged array cannot be allocated. */
static mb_status collect(worker *w, size_t threads, mb__load_step_out *o)
{
    size_t total = 0;
    for (size_t k = 0; k < threads; k++) {
        pthread_join(w[k].th, NULL);
        total += w[k].n;
    }
    o->r = mb__calloc(total ? total : 1, sizeof *o->r);
    int64_t warm_ns = 0;
    for (size_t k = 0; k < threads; k++) {
        if (o->r && w[k].n)
            memcpy(o->r + o->n, w[k].r, w[k].n * sizeof *o->r);
        o->n += w[k].n;
        o->warm_n += w[k].warm_n;
        warm_ns += w[k].warm_ns;
        o->spin_total_ns += w[k].wait.spin_ns;
        o->sleeps += w[k].wait.sleeps;
        o->rt_waits += w[k].wait.rt_waits;
        o->cpu_ns += w[k].cpu_ns;
        o->rt_serve_threads += w[k].rt_serve;
        if (mb__waiter_margin(&w[k].wait) > o->margin_ns)
            o->margin_ns = mb__waiter_margin(&w[k].wait);
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
    if (!o->r)
        return MB_ENOMEM;
    o->warm_service_ns = o->warm_n ? (double)warm_ns / (double)o->warm_n : 0;
    qsort(o->r, o->n, sizeof *o->r, cmp_arrival);
    for (size_t i = 0; i < o->n; i++)
        if (o->r[i].end > o->wall_ns)
            o->wall_ns = o->r[i].end;
    return MB_OK;
}

mb_status mb__load_step_run(const mb__load_step_in *in, mb__load_step_out *o,
                            mb_err *err)
{
    size_t threads = in->threads;
    memset(o, 0, sizeof *o);
    step s;
    memset(&s, 0, sizeof s);
    s.run = in->run;
    s.closed = in->closed;
    s.arr = in->arr;
    s.n_arr = in->n_arr;
    atomic_init(&s.next, 0);
    s.n_min = in->n_min;
    s.warm_n = in->warm_n;
    s.warm_ns = in->warm_ns;
    s.spin_ns = in->spin_ns;
    s.realtime = in->realtime;
    s.cancel = in->cancel;
    s.threads = threads;
    worker *w = mb__calloc(threads, sizeof *w);
    if (!w)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    s.w = w;
    pthread_mutex_init(&s.mu, NULL);
    pthread_cond_init(&s.cv, NULL);
    size_t started = 0;
    for (; started < threads; started++) {
        w[started].s = &s;
        w[started].h = in->handles[started];
        w[started].index = (int32_t)started;
        mb__waiter_init(&w[started].wait, in->spin_ns >= 0 ? in->spin_ns : -1,
                        MB_LOAD_SPIN_AUTO_MAX_NS,
                        in->realtime == MB_LOAD_RT_WAIT);
        atomic_init(&w[started].served, 0);
        if (pthread_create(&w[started].th, NULL, work, &w[started]))
            break;
    }
    pthread_mutex_lock(&s.mu);
    while (started == threads && s.ready < threads)
        pthread_cond_wait(&s.cv, &s.mu);
    long long st0 = 0, tt0 = 0, st1 = 0, tt1 = 0;
    bool ticks = cpu_ticks(&st0, &tt0);
    set_clock(&s, in);
    s.abort = started < threads;
    s.go = 1;
    pthread_cond_broadcast(&s.cv);
    pthread_mutex_unlock(&s.mu);
    mb_status st = MB_OK;
    if (started < threads) {
        for (size_t k = 0; k < started; k++) {
            pthread_join(w[k].th, NULL);
            free(w[k].r);
        }
        st = mb__fail(err, MB_ENOMEM,
                      "cannot start %zu threads (started %zu); lower "
                      "--concurrency",
                      threads, started);
    } else if (collect(w, threads, o) != MB_OK) {
        st = mb__fail(err, MB_ENOMEM, "out of memory");
    }
    o->steal_fraction = ticks && cpu_ticks(&st1, &tt1) && tt1 > tt0
                            ? (double)(st1 - st0) / (double)(tt1 - tt0)
                            : NAN;
    pthread_cond_destroy(&s.cv);
    pthread_mutex_destroy(&s.mu);
    free(w);
    o->interrupted = in->cancel && *in->cancel;
    return st;
}
