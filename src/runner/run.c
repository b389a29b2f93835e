/* run.c - the whole `mbench run` flow on a bench session (runner.c):
 * warmup, adaptive stopping, memory, statistics, and its replication over
 * processes (replicate.c). */
#include "runner/runner.h"
#include "runner/replicate.h"

#include "core/alloc.h"
#include "core/clock.h"
#include "core/err.h"
#include "core/fileio.h"
#include "core/rng.h"
#include "core/stats.h"
#include "core/sysinfo.h"
#include "data/dataset.h"
#include "data/synthetic.h"
#include "model/onnx.h"
#include "backend/registry.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Measures one batch size on an open bench; adds fields to run. */
/* What measure's phases share: the samples, the scratch of the CI
 * checks, the RSS points of --leak-check and the phase clocks. */
typedef struct meas {
    mb__bench *b;
    const mb__plan *p;
    int64_t *samples;
    size_t n, cap;
    double *scratch; /* for the CI checks, kept for the whole loop */
    size_t scap;
    double *rss_x, *rss_y; /* --leak-check: iterations, RSS */
    size_t rss_n, rss_cap;
    int64_t last_rss_t;
    size_t next_check; /* sample count of the next CI check */
    double ci_rel;
    int64_t warm, warmup_ns, measure_ns, rss_start;
    int peak_reset;
    const char *rule; /* why the loop stopped */
} meas;

/* Warmup: by count, then by time if asked. */
static mb_status warm_up(meas *m, mb_err *err)
{
    const mb__plan *p = m->p;
    int64_t t_w = mb_now_ns(), dummy;
    mb_status s = MB_OK;
    while (!s && (m->warm < p->warmup_iters ||
                  mb_now_ns() - t_w < p->warmup_time_ns)) {
        s = mb__bench_iterate(m->b, 1, &dummy, err);
        m->warm++;
        if ((p->cancel && *p->cancel) ||
            (MB_WARMUP_DONE(p, m->warm, mb_now_ns() - t_w) &&
             mb_now_ns() - t_w >= p->warmup_time_ns))
            break;
    }
    m->warmup_ns = mb_now_ns() - t_w;
    return s;
}

/* The sample and scratch buffers.  With --leak-check they are sized and
 * touched up front (up to 2^21 samples, 16 MiB), so that their own growth
 * does not show up as a leak in the RSS slope. */
static mb_status alloc_samples(meas *m, mb_err *err)
{
    const mb__plan *p = m->p;
    m->cap = 1024;
    if (p->leak_check) {
        int64_t want = p->fixed_iters > 0 ? p->fixed_iters : p->max_iters;
        m->cap = want > (1 << 21) ? (size_t)1 << 21 : (size_t)want + 16;
    }
    m->samples = mb__calloc(m->cap, sizeof *m->samples);
    /* Allocating and freeing n doubles per check would grow the heap with
     * n. */
    m->scap = m->cap;
    m->scratch = mb__calloc(m->scap, sizeof *m->scratch);
    if (m->samples && m->scratch && p->leak_check) {
        memset(m->samples, 1, m->cap * sizeof *m->samples);
        memset(m->scratch, 1, m->scap * sizeof *m->scratch);
    }
    if (!m->samples || !m->scratch)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    return MB_OK;
}

/* --leak-check: an RSS point every 10 ms. */
static void sample_rss(meas *m, int64_t now)
{
    if (!m->p->leak_check || now - m->last_rss_t <= 10000000)
        return;
    m->last_rss_t = now;
    size_t cap_y = m->rss_cap;
    if (mb__grow((void **)&m->rss_x, &m->rss_cap, m->rss_n + 1,
                 sizeof *m->rss_x) &&
        mb__grow((void **)&m->rss_y, &cap_y, m->rss_cap, sizeof *m->rss_y)) {
        m->rss_x[m->rss_n] = (double)m->n;
        m->rss_y[m->rss_n++] = (double)mb__rss_bytes();
    }
}

/* "target_ci" when the median's CI is narrow enough (and the minimums are
 * met).  The CI is recomputed at geometrically spaced counts (cost
 * O(n log n) each, so O(n log n) overall), outside timing. */
static const char *ci_rule(meas *m, int64_t elapsed)
{
    const mb__plan *p = m->p;
    const char *rule = NULL;
    size_t n = m->n;
    if (n > m->scap &&
        mb__grow((void **)&m->scratch, &m->scap, n, sizeof *m->scratch) == 0)
        m->scap = 0; /* keeps the old buffer; skip this check */
    if (n <= m->scap) {
        for (size_t i = 0; i < n; i++)
            m->scratch[i] = (double)m->samples[i];
        m->ci_rel = mb__median_ci_rel_inplace(m->scratch, n);
        if (m->ci_rel <= p->target_ci && (int64_t)n >= p->min_iters &&
            elapsed >= p->min_time_ns)
            rule = "target_ci";
    }
    m->next_check = n + n / 8 + 16;
    return rule;
}

/* Why the measurement stops now, or NULL to go on. */
static const char *stop_rule(meas *m, int64_t elapsed)
{
    const mb__plan *p = m->p;
    if (p->cancel && *p->cancel)
        return "interrupted";
    if (p->fixed_iters > 0)
        return (int64_t)m->n >= p->fixed_iters ? "fixed_iterations" : NULL;
    if ((int64_t)m->n >= p->max_iters)
        return "max_iterations";
    if (elapsed >= p->max_time_ns)
        return "max_time";
    return m->n >= m->next_check ? ci_rule(m, elapsed) : NULL;
}

/* Iterates in chunks until a stop rule holds (m->rule). */
static mb_status sample_loop(meas *m, mb_err *err)
{
    const mb__plan *p = m->p;
    int64_t limit = p->fixed_iters > 0 ? p->fixed_iters : p->max_iters;
    m->next_check = 32;
    m->ci_rel = INFINITY;
    int64_t t0 = mb_now_ns();
    mb_status s = MB_OK;
    while (!m->rule) {
        if (m->n == m->cap && !mb__grow((void **)&m->samples, &m->cap,
                                        m->cap * 2, sizeof *m->samples)) {
            s = mb__fail(err, MB_ENOMEM, "out of memory for samples");
            break;
        }
        /* Run in small chunks so the stop checks stay off the hot path. */
        int64_t chunk = 16;
        if ((int64_t)m->n + chunk > limit)
            chunk = limit - (int64_t)m->n;
        if ((size_t)chunk > m->cap - m->n)
            chunk = (int64_t)(m->cap - m->n);
        s = mb__bench_iterate(m->b, chunk, m->samples + m->n, err);
        if (s)
            break;
        m->n += (size_t)chunk;
        int64_t now = mb_now_ns(), elapsed = now - t0;
        sample_rss(m, now);
        m->rule = stop_rule(m, elapsed);
        if (p->progress)
            p->progress(p->progress_user, mb__bench_batch(m->b), (int64_t)m->n,
                        elapsed, m->ci_rel);
    }
    m->measure_ns = mb_now_ns() - t0;
    return s;
}

/* The phases, stop rule, latency, replication and throughput into
 * run. */
static void record_latency(meas *m, json_t *run)
{
    const mb__plan *p = m->p;
    json_t *ph = json_object_get(run, "phases");
    json_object_set_new(ph, "warmup_ns", json_integer(m->warmup_ns));
    json_object_set_new(ph, "warmup_iters", json_integer(m->warm));
    json_object_set_new(ph, "measure_ns", json_integer(m->measure_ns));
    json_object_set_new(run, "iterations", json_integer((json_int_t)m->n));
    json_object_set_new(run, "stop_rule", json_string(m->rule));
    if (strcmp(m->rule, "interrupted") == 0)
        json_object_set_new(run, "status", json_string("interrupted"));
    json_t *lat =
        mb__latency_json(m->samples, m->n, p->percentiles, p->n_percentiles);
    json_t *rep = mb__replication_json(m->samples, &m->n, 1);
    mb__latency_apply_replication(lat, rep);
    json_object_set_new(run, "latency", lat);
    json_object_set_new(run, "replication", rep);
    double secs = (double)m->measure_ns / 1e9, n = (double)m->n;
    json_object_set_new(
        run, "throughput",
        json_pack("{s:f,s:f}", "inferences_per_s", secs > 0 ? n / secs : 0.0,
                  "samples_per_s",
                  secs > 0 ? n * (double)mb__bench_batch(m->b) / secs : 0.0));
}

/* The RSS peak and start and, with --leak-check, the leak judgement into
 * run's "memory". */
static void record_memory(const meas *m, json_t *run)
{
    json_t *mem = json_object_get(run, "memory");
    int64_t peak = mb__rss_peak_bytes();
    json_object_set_new(mem, "rss_peak_bytes", json_integer(peak));
    json_object_set_new(mem, "rss_start_bytes", json_integer(m->rss_start));
    json_object_set_new(
        mem, "peak_method",
        json_string(m->peak_reset ? "clear_refs" : "process_lifetime"));
    if (!m->p->leak_check)
        return;
    size_t rss_n = m->rss_n;
    double slope = rss_n >= 3 ? mb__slope(m->rss_x, m->rss_y, rss_n) : 0;
    double growth = rss_n >= 2 ? m->rss_y[rss_n - 1] - m->rss_y[0] : 0;
    /* Suspected when RSS keeps growing: > 1 KiB per 1000 iterations and
     * more than 1 MiB in total over the measurement. */
    int suspected = rss_n >= 3 && slope * 1000 > 1024 && growth > 1048576;
    json_object_set_new(mem, "leak",
                        json_pack("{s:f,s:f,s:I,s:b}", "slope_bytes_per_iter",
                                  slope, "growth_bytes", growth, "rss_points",
                                  (json_int_t)rss_n, "suspected", suspected));
}

/* Warms up, measures until a stop rule holds and records the run's
 * latency, throughput and memory into run. */
static mb_status measure(mb__bench *b, const mb__plan *p, json_t *run,
                         mb_err *err)
{
    meas m = {.b = b, .p = p};
    mb_status s = warm_up(&m, err);
    if (s)
        return s;
    m.peak_reset = mb__rss_peak_reset();
    m.rss_start = mb__rss_bytes();
    s = alloc_samples(&m, err);
    if (!s)
        s = sample_loop(&m, err);
    free(m.scratch);
    m.scratch = NULL;
    if (!s) {
        record_latency(&m, run);
        record_memory(&m, run); /* the peak before samples_ns is built */
    }
    if (!s && p->save_samples) {
        json_t *a = json_array();
        for (size_t i = 0; i < m.n; i++)
            json_array_append_new(a, json_integer(m.samples[i]));
        json_object_set_new(run, "samples_ns", a);
    }
    free(m.samples);
    free(m.rss_x);
    free(m.rss_y);
    return s;
}

static void add_input_warning(const mb__plan *plan, json_t *doc)
{
    json_t *warn = json_object_get(doc, "warnings");
    mb_err e = {0};
    const mb_backend *be = mb_backend_find(mb__plan_backend(plan), &e);
    if (!plan->data_path && !(mb__backend_caps(be) & MB_BACKEND_CAP_SIMULATED))
        json_array_append_new(
            warn, json_string("inputs are random (synthetic, seeded): "
                              "latency is representative, but no accuracy "
                              "conclusion can be drawn; use --data for real "
                              "inputs"));
}

static void repl_progress(void *user, size_t round, size_t rounds,
                          int64_t elapsed_ns)
{
    const mb__plan *p = user;
    if (p->progress_rounds)
        p->progress_rounds(p->progress_user, round, rounds, elapsed_ns);
}

/* `run` over K processes: every batch size is an arm of mb__replicate. */
static mb_status run_replicated(const mb__plan *plan, int k, json_t **doc_out,
                                mb_err *err)
{
    int64_t one = 1;
    const int64_t *batches = plan->n_batches ? plan->batches : &one;
    size_t nb = plan->n_batches ? plan->n_batches : 1;
    mb__arm *arms = mb__calloc(nb, sizeof *arms);
    if (!arms)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    for (size_t i = 0; i < nb; i++) {
        arms[i].plan = plan;
        arms[i].batch = batches[i];
    }
    int used = k;
    mb__repl_opts o =
        mb__repl_opts_for(k, plan->processes, &used, plan->cancel);
    o.progress = repl_progress;
    o.progress_user = (void *)plan;
    int64_t start_ns = 0;
    o.round_start_ns = &start_ns;
    mb_status s = mb__replicate(arms, nb, &o, err);
    size_t failed = 0;
    for (size_t i = 0; i < nb; i++)
        failed += arms[i].error != NULL && arms[i].n == 0;
    if (!s && failed == nb) { /* nothing ran: the first error is the answer */
        s = mb__fail(err, arms[0].error_code, "%s", arms[0].error);
    }
    if (s) {
        for (size_t i = 0; i < nb; i++)
            mb__arm_clear(&arms[i]);
        free(arms);
        return s;
    }
    int cancelled = plan->cancel && *plan->cancel;
    json_t *doc = mb__doc_new("run", NULL);
    json_t *runs = json_object_get(doc, "runs");
    for (size_t i = 0; i < nb; i++) {
        mb__arm *a = &arms[i];
        json_t *run;
        if (a->error || !a->run) {
            run = json_pack("{s:s,s:s,s:s,s:I}", "status", "failed", "variant",
                            plan->variant ? plan->variant
                                          : mb__basename(plan->model_path
                                                             ? plan->model_path
                                                             : "model"),
                            "error", a->error ? a->error : "interrupted",
                            "batch_size", (json_int_t)a->batch);
        } else {
            run = mb__arm_run_json(a,
                                   cancelled               ? "interrupted"
                                   : plan->fixed_iters > 0 ? "fixed_iterations"
                                                           : "fixed_budget",
                                   plan->save_samples);
            if (cancelled)
                json_object_set_new(run, "status", json_string("interrupted"));
            /* each batch size ran in processes of its own, each with
             * its own cold run: first_inference_ns is theirs */
        }
        json_array_append_new(runs, run);
        mb__warn_load_changed(doc, a[0].rounds, a[0].n_rounds);
        mb__arm_clear(&a[0]);
    }
    free(arms);
    if (cancelled)
        json_object_set_new(doc, "interrupted", json_true());
    add_input_warning(plan, doc);
    mb__warn_processes_lowered(doc, k, used, start_ns);
    *doc_out = doc;
    return MB_OK;
}

void mb__warn_processes_lowered(json_t *doc, int asked, int used,
                                int64_t start_ns)
{
    if (used >= asked)
        return;
    char w[400];
    double budget = used < MB_MIN_AUTO_PROCESSES
                        ? (double)MB_SLOW_START_BUDGET_NS / 1e9
                        : (double)MB_START_BUDGET_NS / 1e9;
    snprintf(w, sizeof w,
             "measured in %d processes, not the default %d: starting one "
             "round of processes (runtime load or Python import, session "
             "or model build, compile, warmup) took %.1f s, so %d would "
             "spend over %.0f s on it; the CIs are wider for it; set "
             "--processes to choose",
             used, asked, (double)start_ns / 1e9,
             used < MB_MIN_AUTO_PROCESSES ? MB_MIN_AUTO_PROCESSES : asked,
             budget);
    json_array_append_new(json_object_get(doc, "warnings"), json_string(w));
}

int mb__plan_processes(const mb__plan *plan)
{
    if (plan->leak_check)
        return 1; /* a leak shows in one long process */
    int k = plan->processes > 0 ? plan->processes : MB_DEFAULT_PROCESSES;
    /* Every process measures at least one iteration. */
    if (plan->fixed_iters > 0 && plan->fixed_iters < k)
        k = (int)plan->fixed_iters;
    return k;
}

mb_status mb__run_plan(const mb__plan *plan, json_t **doc_out, mb_err *err)
{
    *doc_out = NULL;
    int k = mb__plan_processes(plan);
    if (k > 1)
        return run_replicated(plan, k, doc_out, err);
    int64_t one = 1;
    const int64_t *batches = plan->n_batches ? plan->batches : &one;
    size_t nb = plan->n_batches ? plan->n_batches : 1;
    int64_t rss_before = mb__rss_bytes();
    mb__bench *b = NULL;
    mb_status s = mb__bench_open(plan, batches[0], &b, err);
    if (s)
        return s;
    int64_t rss_after = mb__rss_bytes();
    json_t *doc = mb__doc_new("run", NULL);
    json_t *runs = json_object_get(doc, "runs");
    json_t *model = mb__model_json(plan);
    for (size_t i = 0; i < nb; i++) {
        mb_err e = {0};
        json_t *run = NULL;
        s = i == 0 ? MB_OK : mb__bench_set_batch(b, batches[i], &e);
        if (!s && i > 0) {
            int64_t t0 = mb_now_ns(), dummy;
            s = mb__bench_iterate(b, 1, &dummy, &e);
            (void)t0;
        }
        run = mb__bench_run_skeleton(plan, b, batches[i], model, rss_before,
                                     rss_after);
        if (i > 0) /* the cold run belongs to the first batch size only */
            json_object_set_new(json_object_get(run, "phases"),
                                "first_inference_ns", json_null());
        if (!s)
            s = measure(b, plan, run, &e);
        if (s) {
            json_object_set_new(run, "status", json_string("failed"));
            json_object_set_new(run, "error", json_string(e.msg));
        }
        json_array_append_new(runs, run);
        if (plan->cancel && *plan->cancel) {
            json_object_set_new(doc, "interrupted", json_true());
            break;
        }
    }
    add_input_warning(plan, doc);
    json_decref(model);
    mb__bench_close(b);
    *doc_out = doc;
    return MB_OK;
}
