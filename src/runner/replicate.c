/* replicate.c - measurements replicated over processes (replicate.h). */
#include "runner/replicate.h"

#include "core/alloc.h"
#include "core/clock.h"
#include "core/err.h"
#include "core/repstats.h"
#include "core/stats.h"
#include "core/sysinfo.h"
#include "runner/runner.h"

#include <stdbool.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void mb__proc_budget(const mb__plan *p, int k, int64_t *fixed,
                     int64_t *min_time, int64_t *min_iters, int64_t *max_time,
                     int64_t *max_iters)
{
    if (k < 1)
        k = 1;
    *fixed = p->fixed_iters > 0 ? (p->fixed_iters + k - 1) / k : 0;
    *min_time = p->min_time_ns / k;
    *min_iters = (p->min_iters + k - 1) / k;
    *max_time = p->max_time_ns / k;
    *max_iters = p->max_iters / k > 0 ? p->max_iters / k : 1;
}

mb__repl_opts mb__repl_opts_for(int k, int asked, int *used,
                                volatile int *cancel)
{
    return (mb__repl_opts){.processes = k,
                           .slot_ns = 50000000,
                           .start_budget_ns =
                               asked > 0 ? 0 : MB_START_BUDGET_NS,
                           .processes_used = used,
                           .cancel = cancel};
}

void mb__arm_clear(mb__arm *a)
{
    if (!a)
        return;
    mb__child_free(a->child);
    free(a->error);
    free(a->samples);
    free(a->proc_n);
    free(a->rounds);
    json_decref(a->run);
    json_decref(a->procs);
    const mb__plan *p = a->plan;
    int64_t b = a->batch;
    memset(a, 0, sizeof *a);
    a->plan = p;
    a->batch = b;
}

void mb__arm_fail(mb__arm *a, const mb_err *e)
{
    if (!a->error) {
        a->error = mb__strdup(e->msg[0] ? e->msg : mb_status_name(e->code));
        a->error_code = e->code ? e->code : MB_ECHILD;
    }
    mb__child_free(a->child);
    a->child = NULL;
}

/* Appends n samples of the current process; false when memory runs out. */
static bool arm_add(mb__arm *a, const int64_t *s, size_t n)
{
    if (!mb__grow((void **)&a->samples, &a->cap, a->n + n, sizeof *s))
        return false;
    memcpy(a->samples + a->n, s, n * sizeof *s);
    a->n += n;
    a->proc_n[a->k - 1] += n;
    for (size_t i = 0; i < n; i++)
        a->busy_ns += s[i];
    return true;
}

/* Starts process k of an arm: spawn, warm up, and (first round) time
 * three iterations to size the slots. */
static mb_status arm_start(mb__arm *a, const mb__repl_opts *o, double *per_ns,
                           mb_err *err)
{
    mb_status s =
        mb__child_spawn(a->plan, a->batch, o->timeout_ns, &a->child, err);
    if (s)
        return s;
    if (!mb__grow((void **)&a->proc_n, &a->kcap, a->k + 1, sizeof *a->proc_n))
        return mb__fail(err, MB_ENOMEM, "out of memory");
    a->proc_n[a->k++] = 0;
    const mb__plan *p = a->plan;
    int64_t nw = p->warmup_iters > 0 ? p->warmup_iters : 0;
    int64_t t0 = mb_now_ns(), warm = 0;
    int64_t buf[64];
    /* Warm up by count, then by time, in chunks of at most 64 (the first
     * alone, so that a default warmup of a slow model can stop). */
    int64_t c = 0;
    while (!s && (nw > 0 || mb_now_ns() - t0 < p->warmup_time_ns)) {
        c = nw > 64 ? 64 : nw > 0 ? nw : 16;
        if (warm < 1 && c > 1 && p->warmup_default)
            c = 1;
        else if (warm >= 1 && p->warmup_default) { /* what fits the budget */
            int64_t el = mb_now_ns() - t0;
            int64_t per = el / warm + 1;
            int64_t fit = (MB_WARMUP_BUDGET_NS - el + per - 1) / per;
            c = fit < 1 ? 1 : fit < c ? fit : c;
        }
        s = mb__child_measure(a->child, c, 0, buf, o->timeout_ns, err);
        nw -= c;
        warm += c;
        if (MB_WARMUP_DONE(p, warm, mb_now_ns() - t0) &&
            mb_now_ns() - t0 >= p->warmup_time_ns)
            break;
    }
    if (a->k == 1) {
        a->warmup_ns = mb_now_ns() - t0;
        a->warmup_iters = warm;
    }
    if (!s && per_ns) {
        /* An iteration longer than a slot is sized from the last warmup
         * iteration (three more would cost seconds); others are timed
         * three times. */
        if (c >= 1 && buf[c - 1] >= o->slot_ns)
            *per_ns = (double)buf[c - 1];
        else if (!(s = mb__child_measure(a->child, 3, 0, buf, o->timeout_ns,
                                         err)))
            *per_ns = (double)(buf[0] + buf[1] + buf[2]) / 3.0;
    }
    return s;
}

/* Ends the current process of an arm: its RUN object (the first one is
 * kept whole) and its phases and peak memory. */
mb_status mb__arm_finish(mb__arm *a, int64_t timeout_ns, mb_err *err)
{
    json_t *run = NULL;
    mb_status s = mb__child_finish(a->child, timeout_ns, &run, err);
    mb__child_free(a->child);
    a->child = NULL;
    if (s)
        return s;
    if (!a->procs)
        a->procs = json_array();
    json_t *ph = json_object_get(run, "phases"),
           *mem = json_object_get(run, "memory");
    json_t *fact = json_pack(
        "{s:O?,s:O?,s:O?,s:O?,s:I}", "library_load_ns",
        json_object_get(ph, "library_load_ns"), "session_create_ns",
        json_object_get(ph, "session_create_ns"), "first_inference_ns",
        json_object_get(ph, "first_inference_ns"), "rss_peak_bytes",
        json_object_get(mem, "rss_peak_bytes"), "samples",
        (json_int_t)a->proc_n[a->k - 1]);
    /* A backend's own start-up phases (model_info "phase:NAME"), such as
     * OpenVINO's read_model_ns and compile_ns, are per process too. */
    const char *key;
    json_t *v;
    json_object_foreach(ph, key, v)
    {
        if (json_is_integer(v) && !json_object_get(fact, key) &&
            strcmp(key, "measure_ns") && strcmp(key, "warmup_ns") &&
            strcmp(key, "warmup_iters"))
            json_object_set(fact, key, v);
    }
    json_array_append_new(a->procs, fact);
    if (!a->run)
        a->run = run;
    else
        json_decref(run);
    return MB_OK;
}

static int cancelled(const mb__repl_opts *o)
{
    return o->cancel && *o->cancel;
}

/* Slot sizes and slot count from the first round's calibration. */
static size_t plan_slots(mb__arm *arms, size_t n, const double *per_ns,
                         const mb__repl_opts *o, size_t rounds)
{
    size_t slots = 1;
    for (size_t i = 0; i < n; i++) {
        mb__arm *a = &arms[i];
        if (a->error)
            continue;
        int64_t fixed, tmin, imin, tmax, imax;
        mb__proc_budget(a->plan, (int)rounds, &fixed, &tmin, &imin, &tmax,
                        &imax);
        double per = per_ns[i] > 1 ? per_ns[i] : 1;
        /* Unrecorded iterations before each slot (a stopped process wakes
         * its threads and caches): none for an inference of a second or
         * more, whose wake-up is a small share of it. */
        a->pre = per >= 1e9 ? 0 : 2;
        int64_t k = (int64_t)((double)o->slot_ns / per);
        k = k < 1 ? 1 : k > 5000 ? 5000 : k;
        a->slot = k;
        size_t need;
        a->slot_cap = 0;
        if (fixed > 0) {
            need = (size_t)((fixed + k - 1) / k);
            if (need > (size_t)fixed)
                need = (size_t)fixed;
        } else {
            size_t by_time = (size_t)((tmin + o->slot_ns - 1) / o->slot_ns);
            size_t by_count = (size_t)((imin + k - 1) / k);
            need = by_time > by_count ? by_time : by_count;
            /* The maxima cap the budget: never more than max_time or
             * max_iterations per process.  A slot lasts slot_ns, or one
             * iteration when that takes longer (a large model at seconds
             * per inference: min-iterations must not outlast max-time). */
            double slot_len = (double)k * per > (double)o->slot_ns
                                  ? (double)k * per
                                  : (double)o->slot_ns;
            size_t cap_t = (size_t)((double)tmax / slot_len);
            size_t cap_i = (size_t)(imax / k);
            size_t cap = cap_t < cap_i ? cap_t : cap_i;
            a->slot_cap = cap > 0 ? cap : 1;
            if (need > cap)
                need = cap > 0 ? cap : 1;
        }
        if (need > slots)
            slots = need;
    }
    if (o->slots)
        slots = o->slots;
    /* Every arm takes the same number of slots, so that the last ones are
     * interleaved too; a fixed count is spread over them (round_sizes). */
    return slots;
}

/* The rounds a default count is lowered to when one round takes start_ns
 * to start (replicate.h: the start budgets and their floors). */
static size_t lowered_rounds(int64_t start_ns, const mb__repl_opts *o)
{
    size_t fit = (size_t)(o->start_budget_ns / start_ns), rounds;
    rounds = fit > MB_MIN_AUTO_PROCESSES ? fit : MB_MIN_AUTO_PROCESSES;
    if ((int64_t)rounds * start_ns > MB_SLOW_START_BUDGET_NS) {
        fit = (size_t)(MB_SLOW_START_BUDGET_NS / start_ns);
        rounds = fit > MB_MIN_SLOW_PROCESSES ? fit : MB_MIN_SLOW_PROCESSES;
    }
    return rounds > (size_t)o->processes ? (size_t)o->processes : rounds;
}

/* A fixed total N is split over the K processes exactly: process r gets
 * N / K, plus one for the first N % K. */
static void round_sizes(mb__arm *arms, size_t n, size_t r, size_t rounds)
{
    for (size_t i = 0; i < n; i++) {
        const mb__plan *p = arms[i].plan;
        int64_t N = p->fixed_iters, K = (int64_t)rounds;
        arms[i].round_n = N > 0 ? N / K + ((int64_t)r < N % K ? 1 : 0) : 0;
    }
}

/* Iterations of slot s (of `slots`) for an arm in this round. */
static int64_t slot_count(const mb__arm *a, size_t s, size_t slots)
{
    if (a->round_n <= 0) /* by time: every slot, up to the arm's maxima */
        return a->slot_cap && s >= a->slot_cap ? 0 : a->slot;
    return a->round_n * (int64_t)(s + 1) / (int64_t)slots -
           a->round_n * (int64_t)s / (int64_t)slots;
}

/* The order of round r: a rotation, reversed every other round. */
static size_t order_at(size_t r, size_t j, size_t n)
{
    size_t rot = (r / 2) % n;
    size_t pos = r % 2 ? n - 1 - j : j;
    return (pos + rot) % n;
}

/* Records the machine's state over round r into recs (grown as needed):
 * busy0/total0 are the CPU times at the round's start. */
static void record_round(mb__round_rec **recs, size_t *cap, size_t r,
                         int64_t t_start, bool have0, uint64_t busy0,
                         uint64_t total0)
{
    if (!mb__grow((void **)recs, cap, r + 1, sizeof **recs))
        return;
    mb__round_rec *x = &(*recs)[r];
    uint64_t busy, total;
    double la[1];
    x->t_s = (double)(mb_now_ns() - t_start) / 1e9;
    x->loadavg = getloadavg(la, 1) == 1 ? la[0] : NAN;
    x->cpu_busy = have0 && mb__cpu_times(&busy, &total) && total > total0
                      ? (double)(busy - busy0) / (double)(total - total0)
                      : NAN;
    int run = mb__procs_running();
    x->runnable = run >= 0 ? run : NAN;
}

static json_t *num_or_null(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

/* Gives every arm a copy of the rounds' records. */
static void share_rounds(mb__arm *arms, size_t n, const mb__round_rec *recs,
                         size_t nr)
{
    for (size_t i = 0; recs && nr && i < n; i++) {
        free(arms[i].rounds);
        arms[i].rounds = mb__calloc(nr, sizeof *recs);
        if (arms[i].rounds)
            memcpy(arms[i].rounds, recs, nr * sizeof *recs);
        arms[i].n_rounds = arms[i].rounds ? nr : 0;
    }
}

/* The mean of member `off` (a double of mb__round_rec) over the rounds of
 * quarter q of n; NAN when none is known. */
static double quarter_mean(const mb__round_rec *r, size_t n, size_t q,
                           size_t off)
{
    double sum = 0;
    size_t got = 0;
    for (size_t i = n * q / 4; i < n * (q + 1) / 4; i++) {
        double x = *(const double *)((const char *)&r[i] + off);
        if (isfinite(x)) {
            sum += x;
            got++;
        }
    }
    return got ? sum / (double)got : NAN;
}

/* The quarters with the least and the most of member off; false when a
 * quarter has none. */
static bool quarter_range(const mb__round_rec *r, size_t n, size_t off,
                          double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t q = 0; q < 4; q++) {
        double m = quarter_mean(r, n, q, off);
        if (!isfinite(m))
            return false;
        *lo = m < *lo ? m : *lo;
        *hi = m > *hi ? m : *hi;
    }
    return true;
}

void mb__warn_load_changed(json_t *doc, const mb__round_rec *r, size_t n)
{
    double b0, b1, q0, q1, l0, l1;
    if (n < 4 ||
        !quarter_range(r, n, offsetof(mb__round_rec, cpu_busy), &b0, &b1))
        return;
    bool queue =
        quarter_range(r, n, offsetof(mb__round_rec, runnable), &q0, &q1);
    int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (b1 - b0 < MB_LOAD_CHANGE &&
        !(queue && q1 - q0 >= (cpus > 0 ? cpus : 1)))
        return;
    if (!quarter_range(r, n, offsetof(mb__round_rec, loadavg), &l0, &l1))
        l0 = l1 = NAN;
    char w[700];
    snprintf(w, sizeof w,
             "the machine's load changed during the measurement: between "
             "quarters of the rounds, CPU busy %.0f%% to %.0f%%, %.1f to "
             "%.1f processes runnable, load average %.1f to %.1f; the "
             "intervals are over blocks of consecutive rounds and include "
             "what the change did, but the figures describe this mix of "
             "loads (replication.rounds has every round)",
             b0 * 100, b1 * 100, q0, q1, l0, l1);
    json_array_append_new(json_object_get(doc, "warnings"), json_string(w));
}

json_t *mb__rounds_json(const mb__round_rec *r, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(
            a, json_pack("{s:f,s:o,s:o,s:o}", "t_s", r[i].t_s, "loadavg",
                         num_or_null(r[i].loadavg), "cpu_busy",
                         num_or_null(r[i].cpu_busy), "runnable",
                         num_or_null(r[i].runnable)));
    return a;
}

/* What mb__replicate's phases share: the arms, the options, the plan of
 * rounds and slots, the sample buffer and the round records. */
typedef struct repl {
    mb__arm *arms;
    size_t n;
    const mb__repl_opts *o;
    size_t rounds, slots;
    double *per; /* time per iteration of each arm, from round 0 */
    int64_t *buf;
    size_t bcap;
    int64_t t_start;
    mb__round_rec *recs;
    size_t rcap, n_rec;
} repl;

/* With fail_fast, a failed arm fails the whole measurement (MB_ECHILD). */
static mb_status fail_fast(const repl *c, const mb__arm *a, mb_err *err)
{
    if (a->error && c->o->fail_fast)
        return mb__fail(err, MB_ECHILD, "%s", a->error);
    return MB_OK;
}

/* A fresh process per arm, started in this round's order and paused. */
static mb_status start_round(repl *c, size_t r, mb_err *err)
{
    for (size_t j = 0; j < c->n && !cancelled(c->o); j++) {
        mb__arm *a = &c->arms[order_at(r, j, c->n)];
        if (a->error)
            continue;
        mb_err e = {0};
        if (arm_start(a, c->o, r == 0 ? &c->per[a - c->arms] : NULL, &e))
            mb__arm_fail(a, &e);
        mb__child_pause(a->child);
        mb_status rc = fail_fast(c, a, err);
        if (rc)
            return rc;
    }
    return MB_OK;
}

/* After the first round's start: a slow-loading model gets fewer
 * processes, so that starting them stays within the budget (default
 * counts only); the budget per process follows from the count that
 * runs. */
static void plan_rounds(repl *c, int64_t t_round)
{
    const mb__repl_opts *o = c->o;
    int64_t start_ns = mb_now_ns() - t_round;
    if (o->round_start_ns)
        *o->round_start_ns = start_ns;
    if (o->start_budget_ns > 0 && start_ns > 0 &&
        (int64_t)c->rounds * start_ns > o->start_budget_ns)
        c->rounds = lowered_rounds(start_ns, o);
    c->slots = plan_slots(c->arms, c->n, c->per, o, c->rounds);
}

/* k iterations of arm a (one slot), measured; the process is paused
 * again. */
static mb_status measure_slot(repl *c, mb__arm *a, int64_t k, mb_err *err)
{
    mb_err e = {0};
    if (!mb__grow((void **)&c->buf, &c->bcap, (size_t)k, sizeof *c->buf))
        return mb__fail(err, MB_ENOMEM, "out of memory");
    /* Unrecorded iterations first (a->pre, 2): the process has been
     * stopped while the others ran, and waking its threads and caches is
     * not the model's latency. */
    if (mb__child_measure(a->child, k, a->pre, c->buf, c->o->timeout_ns, &e) ||
        !arm_add(a, c->buf, (size_t)k))
        mb__arm_fail(a, &e);
    mb__child_pause(a->child);
    return fail_fast(c, a, err);
}

/* Interleaved slots: each arm once per pass, the start rotating. */
static mb_status measure_round(repl *c, size_t r, mb_err *err)
{
    const mb__repl_opts *o = c->o;
    mb_status rc = MB_OK;
    for (size_t s = 0; s < c->slots && !rc && !cancelled(o); s++) {
        for (size_t j = 0; j < c->n; j++) {
            mb__arm *a = &c->arms[order_at(r, (j + s) % c->n, c->n)];
            if (a->error || !a->child)
                continue;
            int64_t k = slot_count(a, s, c->slots);
            if (k <= 0)
                continue;
            if ((rc = measure_slot(c, a, k, err)) || cancelled(o))
                break;
        }
        if (o->progress)
            o->progress(o->progress_user, r, c->rounds,
                        mb_now_ns() - c->t_start);
    }
    return rc;
}

/* Ends this round's processes, in its order. */
static mb_status finish_round(repl *c, size_t r, mb_err *err)
{
    for (size_t j = 0; j < c->n; j++) {
        mb__arm *a = &c->arms[order_at(r, j, c->n)];
        if (a->error || !a->child)
            continue;
        mb_err e = {0};
        if (mb__arm_finish(a, c->o->timeout_ns, &e))
            mb__arm_fail(a, &e);
        mb_status rc = fail_fast(c, a, err);
        if (rc)
            return rc;
    }
    return MB_OK;
}

mb_status mb__replicate(mb__arm *arms, size_t n, const mb__repl_opts *o,
                        mb_err *err)
{
    repl c = {.arms = arms,
              .n = n,
              .o = o,
              .rounds = o->processes > 0 ? (size_t)o->processes : 1,
              .per = mb__calloc(n, sizeof *c.per)};
    if (!c.per)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    c.t_start = mb_now_ns();
    mb_status rc = MB_OK;
    for (size_t r = 0; r < c.rounds && !rc && !cancelled(o); r++) {
        int64_t t_round = mb_now_ns();
        uint64_t busy0 = 0, total0 = 0;
        bool have0 = mb__cpu_times(&busy0, &total0);
        if ((rc = start_round(&c, r, err)) || cancelled(o))
            break;
        if (r == 0)
            plan_rounds(&c, t_round);
        round_sizes(arms, n, r, c.rounds);
        if ((rc = measure_round(&c, r, err)))
            break;
        record_round(&c.recs, &c.rcap, r, c.t_start, have0, busy0, total0);
        c.n_rec = c.recs && c.rcap > r ? r + 1 : c.n_rec;
        if (o->keep_last && r + 1 == c.rounds)
            break;
        rc = finish_round(&c, r, err);
    }
    if (o->processes_used)
        *o->processes_used = (int)c.rounds;
    share_rounds(arms, n, c.recs, c.n_rec);
    free(c.recs);
    free(c.per);
    free(c.buf);
    return rc;
}

size_t mb__arm_proc_figures(const int64_t *samples, const size_t *proc_n,
                            size_t k, double q, double *out)
{
    size_t got = 0, off = 0, most = 0;
    for (size_t i = 0; i < k; i++)
        most = proc_n[i] > most ? proc_n[i] : most;
    double *tmp = mb__calloc(most ? most : 1, sizeof *tmp);
    if (!tmp)
        return 0;
    for (size_t i = 0; i < k; i++) {
        size_t m = proc_n[i];
        const int64_t *x = samples + off;
        off += m;
        if (m == 0 || (q >= 0 && q != 50 && !mb__percentile_supported(m, q)))
            continue;
        if (q < 0) { /* the mean */
            double sum = 0;
            for (size_t j = 0; j < m; j++)
                sum += (double)x[j];
            out[got++] = sum / (double)m;
            continue;
        }
        for (size_t j = 0; j < m; j++)
            tmp[j] = (double)x[j];
        qsort(tmp, m, sizeof *tmp, mb__cmp_double);
        out[got++] = mb__percentile_sorted(tmp, m, q);
    }
    free(tmp);
    return got;
}

static json_t *gm_json(const mb__gm *g, const char *method)
{
    if (!g->ok)
        return json_pack("{s:o,s:s}", "estimate",
                         isfinite(g->est) ? json_real(g->est) : json_null(),
                         "reason", "fewer than 2 replicates");
    return json_pack("{s:f,s:[f,f],s:f,s:I,s:f,s:s}", "estimate", g->est,
                     "ci95", g->lo, g->hi, "sd_log", g->sd_log, "replicates",
                     (json_int_t)g->k, "df", g->df, "method", method);
}

/* One figure (q = 50 or 99) over processes or, with one process, over
 * blocks of consecutive samples. */
static json_t *figure_json(const int64_t *samples, const size_t *proc_n,
                           size_t k, double q, double *figs, size_t *nf)
{
    char method[256];
    *nf = 0;
    if (k >= 2) {
        *nf = mb__arm_proc_figures(samples, proc_n, k, q, figs);
        if (*nf < 2)
            return json_pack("{s:n,s:s}", "estimate", "reason",
                             q == 50 ? "fewer than 2 processes"
                                     : "fewer than 2 processes with enough "
                                       "samples for this percentile (100 "
                                       "for p99)");
        snprintf(method, sizeof method,
                 "geometric mean of per-process %s; Student-t 95%% CI over "
                 "%zu processes (df %zu)",
                 q == 50 ? "medians" : "p99", *nf, *nf - 1);
    } else {
        size_t n = k ? proc_n[0] : 0;
        size_t b = q == 50 ? mb__blocks_for(n) : n / 200 > 20 ? 20 : n / 200;
        if (q != 50 && b < 5)
            b = 0;
        double *x = mb__calloc(n ? n : 1, sizeof *x);
        if (!x)
            return json_null();
        for (size_t i = 0; i < n; i++)
            x[i] = (double)samples[i];
        *nf = b ? mb__block_figures(x, n, b, q, figs) : 0;
        free(x);
        if (*nf < 2)
            return json_pack("{s:n,s:s}", "estimate", "reason",
                             q == 50 ? "fewer than 250 samples for the "
                                       "within-process blocks"
                                     : "fewer than 1000 samples for p99 "
                                       "blocks");
        snprintf(method, sizeof method,
                 "ONE PROCESS: geometric mean of the %s of %zu blocks of "
                 "consecutive samples, Student-t 95%% CI; covers "
                 "within-run noise only, not run-to-run variation",
                 q == 50 ? "medians" : "p99", *nf);
    }
    mb__gm g;
    mb__gm_ci(figs, *nf, 0.95, &g);
    return gm_json(&g, method);
}

json_t *mb__replication_json(const int64_t *samples, const size_t *proc_n,
                             size_t k)
{
    size_t total = 0;
    for (size_t i = 0; i < k; i++)
        total += proc_n[i];
    size_t cap = k > 20 ? k : 20;
    double *fig = mb__calloc(cap, sizeof *fig);
    json_t *r = json_object();
    if (!fig)
        return r;
    json_object_set_new(r, "unit", json_string(k >= 2 ? "process" : "block"));
    json_object_set_new(r, "processes", json_integer((json_int_t)k));
    json_object_set_new(
        r, "covers",
        json_string(k >= 2 ? "run-to-run variation (each process a fresh "
                             "runtime load and session)"
                           : "within-run noise only (one process)"));
    json_t *per = json_array();
    for (size_t i = 0; i < k; i++)
        json_array_append_new(per, json_integer((json_int_t)proc_n[i]));
    json_object_set_new(r, "samples_per_process", per);
    json_t *pp = json_object();
    static const struct {
        const char *name;
        double q;
    } figs[] = {{"median", 50}, {"p99", 99}, {"mean", -1}};
    for (size_t f = 0; f < 3; f++) {
        /* Per-process figures, null where a process has too few samples. */
        json_t *a = json_array();
        size_t off = 0;
        for (size_t i = 0; i < k; i++) {
            double v;
            size_t got = mb__arm_proc_figures(samples + off, &proc_n[i], 1,
                                              figs[f].q, &v);
            off += proc_n[i];
            json_array_append_new(a, got ? json_real(v) : json_null());
        }
        json_object_set_new(pp, figs[f].name, a);
    }
    json_object_set_new(r, "per_process", pp);
    size_t nf;
    json_object_set_new(r, "median",
                        figure_json(samples, proc_n, k, 50, fig, &nf));
    if (k >= 2 && nf >= 2) {
        mb__gm g;
        mb__gm_ci(fig, nf, 0.95, &g);
        json_object_set_new(r, "run_to_run_cv", json_real(g.sd_log));
        double lo, hi;
        size_t nlo, nhi;
        if (mb__replicate_modes(fig, nf, 1.15, &lo, &nlo, &hi, &nhi) == 2)
            json_object_set_new(r, "modes",
                                json_pack("{s:{s:f,s:I},s:{s:f,s:I}}", "fast",
                                          "median", lo, "processes",
                                          (json_int_t)nlo, "slow", "median", hi,
                                          "processes", (json_int_t)nhi));
    } else {
        json_object_set_new(r, "run_to_run_cv", json_null());
        if (k < 2)
            json_object_set_new(r, "blocks", json_integer((json_int_t)nf));
    }
    json_object_set_new(r, "p99",
                        figure_json(samples, proc_n, k, 99, fig, &nf));
    json_object_set_new(r, "samples", json_integer((json_int_t)total));
    free(fig);
    return r;
}

/* The median and range of figure `key` over the processes' facts; 0
 * when no process has it. */
static size_t over_processes(const json_t *procs, const char *key,
                             double *median, double *lo, double *hi)
{
    size_t np = json_array_size(procs);
    double *m = mb__calloc(np, sizeof *m);
    size_t got = 0;
    for (size_t i = 0; m && i < np; i++) {
        const json_t *v = json_object_get(json_array_get(procs, i), key);
        if (json_is_number(v))
            m[got++] = json_number_value(v);
    }
    if (got) {
        qsort(m, got, sizeof *m, mb__cmp_double);
        *median = mb__percentile_sorted(m, got, 50);
        *lo = m[0];
        *hi = m[got - 1];
    }
    free(m);
    return got;
}

/* Start-up phases: the median over processes (each loaded the runtime,
 * created a session and ran cold), with their range. */
static void add_startup(json_t *ph, const json_t *procs)
{
    if (json_array_size(procs) <= 1)
        return;
    /* the runner's three, then any a backend added (first process's) */
    const char *startup[16] = {"library_load_ns", "session_create_ns",
                               "first_inference_ns"};
    size_t n_startup = 3;
    const char *key;
    json_t *pv;
    json_object_foreach(json_array_get(procs, 0), key, pv)
    {
        if (n_startup < 16 && strcmp(key, "rss_peak_bytes") &&
            strcmp(key, "samples") && strcmp(key, "library_load_ns") &&
            strcmp(key, "session_create_ns") &&
            strcmp(key, "first_inference_ns"))
            startup[n_startup++] = key;
    }
    json_t *spread = json_object();
    for (size_t f = 0; f < n_startup; f++) {
        double med, lo, hi;
        if (!over_processes(procs, startup[f], &med, &lo, &hi))
            continue;
        json_object_set_new(ph, startup[f],
                            json_integer((json_int_t)llround(med)));
        json_object_set_new(spread, startup[f],
                            json_pack("[I,I]", (json_int_t)llround(lo),
                                      (json_int_t)llround(hi)));
    }
    json_object_set_new(ph, "startup_of", json_string("median over processes"));
    json_object_set_new(ph, "startup_range", spread);
}

/* Peak memory: the median over processes (each its own). */
static void add_peak(json_t *run, const json_t *procs)
{
    double med, lo, hi;
    if (json_array_size(procs) <= 1 ||
        !over_processes(procs, "rss_peak_bytes", &med, &lo, &hi))
        return;
    json_t *mem = json_object_get(run, "memory");
    json_object_set_new(mem, "rss_peak_bytes",
                        json_integer((json_int_t)llround(med)));
    json_object_set_new(mem, "rss_peak_of",
                        json_string("median over "
                                    "processes"));
}

json_t *mb__arm_run_json(const mb__arm *a, const char *stop_rule,
                         int save_samples)
{
    json_t *run = json_deep_copy(a->run);
    const mb__plan *p = a->plan;
    json_t *rep = mb__replication_json(a->samples, a->proc_n, a->k);
    json_t *lat =
        mb__latency_json(a->samples, a->n, p->percentiles, p->n_percentiles);
    mb__latency_apply_replication(lat, rep);
    json_object_set_new(run, "latency", lat);
    json_object_set_new(run, "iterations", json_integer((json_int_t)a->n));
    json_object_set_new(run, "stop_rule", json_string(stop_rule));
    double secs = (double)a->busy_ns / 1e9;
    json_object_set_new(
        run, "throughput",
        json_pack("{s:f,s:f,s:s}", "inferences_per_s",
                  secs > 0 ? (double)a->n / secs : 0.0, "samples_per_s",
                  secs > 0 ? (double)a->n * (double)a->batch / secs : 0.0,
                  "method", "iterations / sum of latencies (interleaved)"));
    json_t *ph = json_object_get(run, "phases");
    json_object_set_new(ph, "measure_ns", json_integer(a->busy_ns));
    json_object_set_new(ph, "warmup_ns", json_integer(a->warmup_ns));
    json_object_set_new(ph, "warmup_iters", json_integer(a->warmup_iters));
    json_object_set_new(rep, "process_facts",
                        a->procs ? json_incref(a->procs) : json_array());
    if (a->n_rounds)
        json_object_set_new(rep, "rounds",
                            mb__rounds_json(a->rounds, a->n_rounds));
    json_object_set_new(run, "replication", rep);
    add_startup(ph, a->procs);
    add_peak(run, a->procs);
    if (save_samples) {
        json_t *s = json_array(), *pn = json_array();
        for (size_t i = 0; i < a->n; i++)
            json_array_append_new(s, json_integer(a->samples[i]));
        for (size_t i = 0; i < a->k; i++)
            json_array_append_new(pn, json_integer((json_int_t)a->proc_n[i]));
        json_object_set_new(run, "samples_ns", s);
        json_object_set_new(run, "samples_per_process", pn);
    }
    return run;
}
