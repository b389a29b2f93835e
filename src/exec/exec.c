/* exec.c - measuring commands in interleaved rounds (see exec.h). */
#include "exec/exec.h"

#include "core/alloc.h"
#include "core/redact.h"
#include "core/clock.h"
#include "core/err.h"
#include "core/stats.h"
#include "exec/suite.h"
#include "runner/runner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mb__exec_opts_defaults(mb__exec_opts *o)
{
    memset(o, 0, sizeof *o);
    o->min_runs = 10;
    o->max_runs = 1000;
    o->min_time_ns = 3000000000LL;
    o->max_time_ns = 120000000000LL;
    o->target_ci = 0.02;
    o->out_mode = MB_OUT_NULL;
}

void mb__exec_argv_free(char **argv)
{
    for (size_t i = 0; argv && argv[i]; i++)
        free(argv[i]);
    free(argv);
}

mb_status mb__exec_split(const char *cmd, char ***out, mb_err *err)
{
    *out = NULL;
    size_t cap = 0, n = 0;
    char **argv = NULL;
    const char *p = cmd;
    mb__buf w = MB_BUF_INIT;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        if (!*p)
            break;
        w.len = 0;
        mb__buf_append(&w, "", 0);
        while (*p && *p != ' ' && *p != '\t' && *p != '\n') {
            if (*p == '\'' || *p == '"') {
                char q = *p++;
                while (*p && *p != q) {
                    if (q == '"' && *p == '\\' &&
                        (p[1] == '"' || p[1] == '\\' || p[1] == '$' ||
                         p[1] == '`'))
                        p++;
                    mb__buf_putc(&w, *p++);
                }
                if (!*p) {
                    mb__buf_free(&w);
                    mb__exec_argv_free(argv);
                    return mb__fail(err, MB_EINVAL,
                                    "unterminated %c quote in command '%s': "
                                    "close it, or use --shell",
                                    q, cmd);
                }
                p++;
            } else if (*p == '\\' && p[1]) {
                mb__buf_putc(&w, p[1]);
                p += 2;
            } else {
                mb__buf_putc(&w, *p++);
            }
        }
        if (w.oom || !mb__grow((void **)&argv, &cap, n + 2, sizeof *argv) ||
            !(argv[n] = mb__strdup(w.data))) {
            mb__buf_free(&w);
            mb__exec_argv_free(argv);
            return mb__fail(err, MB_ENOMEM, "out of memory");
        }
        argv[++n] = NULL;
    }
    mb__buf_free(&w);
    if (n == 0) {
        free(argv);
        return mb__fail(err, MB_EINVAL, "empty command: give a program to run");
    }
    *out = argv;
    return MB_OK;
}

mb_status mb__exec_shell(const char *cmd, const char *cwd, int64_t timeout_ns,
                         mb_err *err)
{
    char *argv[] = {"/bin/sh", "-c", (char *)cmd, NULL};
    mb_status st = mb__proc_capture(argv, cwd, timeout_ns, NULL, err);
    if (st == MB_ECHILD && err)
        mb__fail_prefix(err, "'%s' failed", cmd);
    return st;
}

static int failed(const mb__proc_result *r)
{
    return r->timed_out || r->term_signal || r->exit_code != 0;
}

/* Counts the processes a run left in its group (ended by proc.c unless
 * kept). */
static void note_leftovers(mb__exec_series *s, const mb__proc_result *r)
{
    if (!r->leftovers)
        return;
    s->leftover_runs++;
    if (r->leftovers > s->leftover_max)
        s->leftover_max = r->leftovers;
    if (!s->first_leftover)
        s->first_leftover = mb__strdup(r->leftover_desc);
}

static mb_status run_once(const mb__exec_opts *o, mb__exec_series *ser,
                          char **argv, mb__proc_result *r, mb_err *err)
{
    const mb__exec_cmd *c = ser->cmd;
    const char *cwd = c->cwd ? c->cwd : o->cwd;
    memset(r, 0, sizeof *r);
    mb__events_init(&r->events);
    mb_status st;
    if (o->prepare &&
        (st = mb__exec_shell(o->prepare, cwd, o->timeout_ns, err)) != MB_OK)
        return mb__fail_prefix(err, "--prepare before '%s'", c->name);
    mb__proc_spec s;
    memset(&s, 0, sizeof s);
    s.argv = argv;
    s.cwd = cwd;
    s.timeout_ns = o->timeout_ns;
    s.out_mode = o->out_mode;
    s.err_mode = MB_OUT_PIPE;
    s.events = 1;
    s.nvml = o->nvml;
    s.cancel = o->cancel;
    s.keep_leftovers = o->keep_leftovers;
    st = mb__proc_run(&s, r, err);
    if (st != MB_OK)
        return st;
    note_leftovers(ser, r);
    if (o->cleanup &&
        (st = mb__exec_shell(o->cleanup, cwd, o->timeout_ns, err)) != MB_OK)
        return mb__fail_prefix(err, "--cleanup after '%s'", c->name);
    return MB_OK;
}

static mb_status fail_run(mb__exec_series *s, const mb__proc_result *r,
                          mb_err *err)
{
    char how[80], line[400];
    mb__proc_status_str(r, how, sizeof how);
    mb__proc_last_line(r, line, sizeof line);
    mb__buf msg = MB_BUF_INIT;
    mb__buf_printf(&msg, "'%s' failed (%s)%s%s", s->cmd->command, how,
                   line[0] ? ": " : "", line);
    free(s->error);
    s->error = mb__buf_take(&msg, NULL);
    return mb__fail(err, MB_ECHILD,
                    "%s; pass --ignore-failure to measure "
                    "failing runs anyway",
                    s->error);
}

/* A failed run: fail_run's error, or MB_EINTERRUPTED when mbench itself
 * is being stopped (SIGINT, SIGTERM: they reach the command as well, as
 * Slurm's time limit does, and the run was stopped, not failed). */
static mb_status run_failed(const mb__exec_opts *o, mb__exec_series *s,
                            const mb__proc_result *r, mb_err *err)
{
    if (o->cancel && *o->cancel)
        return mb__fail(err, MB_EINTERRUPTED, "interrupted");
    return fail_run(s, r, err);
}

static mb_status record(mb__exec_series *s, mb__proc_result *r)
{
    if (!mb__grow((void **)&s->samples, &s->cap, s->n + 1, sizeof *s->samples))
        return MB_ENOMEM;
    mb__exec_sample *x = &s->samples[s->n++];
    x->wall_ns = r->wall_ns;
    x->user_ns = r->user_ns;
    x->sys_ns = r->sys_ns;
    x->peak_rss_bytes = r->peak_rss_bytes;
    x->rss_floor_bytes = r->rss_floor_bytes;
    x->gpu_peak_bytes = r->gpu_peak_bytes;
    x->exit_code = r->exit_code;
    x->term_signal = r->term_signal;
    x->timed_out = r->timed_out;
    x->events = r->events; /* moved */
    mb__events_init(&r->events);
    if (failed(r))
        s->failures++;
    s->malformed_events += x->events.malformed;
    if (x->events.malformed && !s->first_malformed)
        s->first_malformed = mb__strdup(x->events.first_malformed);
    return MB_OK;
}

static double measured_ns(const mb__exec_series *s)
{
    double t = 0;
    for (size_t i = 0; i < s->n; i++)
        t += (double)s->samples[i].wall_ns;
    return t;
}

static double ci_rel(const mb__exec_series *s)
{
    double *x = mb__calloc(s->n ? s->n : 1, sizeof *x);
    if (!x)
        return INFINITY;
    for (size_t i = 0; i < s->n; i++)
        x[i] = (double)s->samples[i].wall_ns;
    double r = mb__median_ci_rel(x, s->n);
    free(x);
    return r;
}

/* The argv of every command (sh -c with --shell); the series of a command
 * that cannot be split carries the error. */
static mb_status make_argvs(const mb__exec_opts *o, mb__exec_series *ser,
                            size_t n, char ***argvs, mb_err *err)
{
    mb_status st = MB_OK;
    for (size_t i = 0; i < n; i++) {
        const char *cmd = ser[i].cmd->command;
        if (o->shell) {
            const char *a[] = {"/bin/sh", "-c", cmd, NULL};
            argvs[i] = mb__calloc(4, sizeof(char *));
            for (int k = 0; argvs[i] && k < 3; k++)
                argvs[i][k] = mb__strdup(a[k]);
            if (!argvs[i])
                st = mb__fail(err, MB_ENOMEM, "out of memory");
        } else {
            st = mb__exec_split(cmd, &argvs[i], err);
        }
        if (st != MB_OK) {
            ser[i].error = mb__strdup(err ? err->msg : "bad command");
            return st;
        }
    }
    return MB_OK;
}

/* A failure of a run of series s (st) is kept as its error, unless it
 * already has one or it was an interruption; returns st. */
static mb_status series_failed(mb__exec_series *s, mb_status st,
                               const mb_err *err)
{
    if (!s->error && st != MB_EINTERRUPTED)
        s->error = mb__strdup(err ? err->msg : "failed");
    return st;
}

/* Warmup, command by command. */
static mb_status warm_up(const mb__exec_opts *o, mb__exec_series *ser, size_t n,
                         char ***argvs, mb_err *err)
{
    for (size_t i = 0; i < n; i++) {
        int64_t t0 = mb_now_ns();
        for (int64_t w = 0; w < o->warmup; w++) {
            mb__proc_result r;
            mb_status st = run_once(o, &ser[i], argvs[i], &r, err);
            if (st == MB_OK && o->progress)
                o->progress(o->user, ser[i].cmd, 1, (size_t)w, &r);
            if (st == MB_OK && failed(&r) && !o->ignore_failure)
                st = run_failed(o, &ser[i], &r, err);
            mb__proc_result_free(&r);
            if (st != MB_OK)
                return series_failed(&ser[i], st, err);
        }
        ser[i].warmup_ns = mb_now_ns() - t0;
    }
    return MB_OK;
}

/* One measured round: every command once, in order. */
static mb_status run_round(const mb__exec_opts *o, mb__exec_series *ser,
                           size_t n, char ***argvs, mb_err *err)
{
    for (size_t i = 0; i < n; i++) {
        mb__proc_result r;
        mb_status st = run_once(o, &ser[i], argvs[i], &r, err);
        if (st == MB_OK) {
            if (o->progress)
                o->progress(o->user, ser[i].cmd, 0, ser[i].n, &r);
            if (failed(&r) && !o->ignore_failure)
                st = run_failed(o, &ser[i], &r, err);
            else if (record(&ser[i], &r) != MB_OK)
                st = mb__fail(err, MB_ENOMEM, "out of memory");
        }
        mb__proc_result_free(&r);
        if (st != MB_OK)
            return series_failed(&ser[i], st, err);
    }
    return MB_OK;
}

/* Why the rounds stop now (NULL: go on); "interrupted" sets *st. */
static const char *stop_rule(const mb__exec_opts *o, const mb__exec_series *ser,
                             size_t n, int64_t start, mb_status *st,
                             mb_err *err)
{
    size_t runs = ser[0].n;
    if (o->cancel && *o->cancel) {
        *st = mb__fail(err, MB_EINTERRUPTED, "interrupted");
        return "interrupted";
    }
    if (o->fixed_runs > 0)
        return (int64_t)runs >= o->fixed_runs ? "fixed_iterations" : NULL;
    if ((int64_t)runs >= o->max_runs)
        return "max_iterations";
    if (mb_now_ns() - start >= o->max_time_ns)
        return "max_time";
    int all = 1;
    for (size_t i = 0; i < n && all; i++)
        all = (int64_t)ser[i].n >= o->min_runs &&
              measured_ns(&ser[i]) >= (double)o->min_time_ns &&
              (o->target_ci <= 0 || ci_rel(&ser[i]) <= o->target_ci);
    if (!all)
        return NULL;
    return o->target_ci > 0 ? "target_ci" : "min_time";
}

mb_status mb__exec_measure(const mb__exec_opts *o, const mb__exec_cmd *cmds,
                           size_t n, mb__exec_series **out, mb_err *err)
{
    *out = NULL;
    mb__exec_series *ser = mb__calloc(n ? n : 1, sizeof *ser);
    char ***argvs = mb__calloc(n ? n : 1, sizeof *argvs);
    if (!ser || !argvs) {
        free(ser);
        free(argvs);
        return mb__fail(err, MB_ENOMEM, "out of memory");
    }
    *out = ser;
    for (size_t i = 0; i < n; i++)
        ser[i].cmd = &cmds[i];
    mb_status st;
    if ((st = make_argvs(o, ser, n, argvs, err)) ||
        (st = warm_up(o, ser, n, argvs, err)))
        goto done;
    /* Measured rounds: every command once per round, in order. */
    int64_t start = mb_now_ns();
    const char *rule = NULL;
    while (!rule) {
        if ((st = run_round(o, ser, n, argvs, err)))
            goto done;
        rule = stop_rule(o, ser, n, start, &st, err);
    }
    for (size_t i = 0; i < n; i++)
        ser[i].stop_rule = mb__strdup(rule);
done:
    if (st == MB_EINTERRUPTED)
        for (size_t i = 0; i < n; i++)
            if (!ser[i].stop_rule)
                ser[i].stop_rule = mb__strdup("interrupted");
    for (size_t i = 0; i < n; i++)
        mb__exec_argv_free(argvs[i]);
    free(argvs);
    return st;
}

void mb__exec_series_free(mb__exec_series *s, size_t n)
{
    if (!s)
        return;
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < s[i].n; k++)
            mb__events_free(&s[i].samples[k].events);
        free(s[i].samples);
        free(s[i].error);
        free(s[i].stop_rule);
        free(s[i].first_malformed);
        free(s[i].first_leftover);
    }
    free(s);
}

/* ---- JSON ------------------------------------------------------------- */

static json_t *num_or_null(double v, int ok)
{
    return ok && isfinite(v) ? json_real(v) : json_null();
}

json_t *mb__exec_doc(const char *kind, const char *command_line)
{
    json_t *d = mb__doc_new(kind, command_line);
    json_t *st = json_object_get(d, "statistics");
    json_object_set_new(st, "ratio_ci",
                        json_string("percentile bootstrap of the ratio of "
                                    "medians, 2000 resamples, 95%"));
    json_object_set_new(st, "significance",
                        json_string("Mann-Whitney U, two-sided, normal "
                                    "approximation"));
    return d;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *x, size_t n)
{
    if (!n)
        return NAN;
    qsort(x, n, sizeof *x, cmp_d);
    return mb__percentile_sorted(x, n, 50);
}

/* The per-run totals of phase `name` (runs where it completed). */
static size_t phase_values(const mb__exec_series *s, const char *name,
                           double *tot, double *first, double *occ)
{
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        const mb__phase_rec *p = mb__events_phase(&s->samples[i].events, name);
        if (!p || !p->count)
            continue;
        tot[k] = (double)p->total_ns;
        first[k] = (double)p->first_ns;
        occ[k] = (double)p->count;
        k++;
    }
    return k;
}

static json_t *phases_json(const mb__exec_series *s)
{
    json_t *o = json_object();
    size_t m = s->n ? s->n : 1;
    double *tot = mb__calloc(m, sizeof *tot),
           *first = mb__calloc(m, sizeof *first);
    double *occ = mb__calloc(m, sizeof *occ);
    for (size_t i = 0; tot && first && occ && i < s->n; i++) {
        const mb__events *ev = &s->samples[i].events;
        for (size_t j = 0; j < ev->n_phases; j++) {
            const mb__phase_rec *p = &ev->phases[j];
            if (json_object_get(o, p->name))
                continue;
            size_t k = phase_values(s, p->name, tot, first, occ);
            size_t unfinished = 0;
            for (size_t r = 0; r < s->n; r++) {
                const mb__phase_rec *q =
                    mb__events_phase(&s->samples[r].events, p->name);
                unfinished += q ? q->unfinished : 0;
            }
            mb__summary sm;
            json_t *ph = json_object();
            if (k && mb__summarize(tot, k, &sm)) {
                json_object_set_new(
                    ph, "median_ns",
                    json_integer((json_int_t)llround(sm.median)));
                json_object_set_new(ph, "mean_ns",
                                    json_integer((json_int_t)llround(sm.mean)));
                json_object_set_new(ph, "min_ns",
                                    json_integer((json_int_t)llround(sm.min)));
                json_object_set_new(ph, "max_ns",
                                    json_integer((json_int_t)llround(sm.max)));
                json_object_set_new(
                    ph, "ci95",
                    sm.median_ci_ok
                        ? json_pack("{s:I,s:I}", "lo",
                                    (json_int_t)llround(sm.median_ci_lo), "hi",
                                    (json_int_t)llround(sm.median_ci_hi))
                        : json_null());
                json_object_set_new(
                    ph, "first_median_ns",
                    json_integer((json_int_t)llround(median_of(first, k))));
                json_object_set_new(ph, "occurrences_per_run",
                                    json_real(median_of(occ, k)));
            } else {
                json_object_set_new(ph, "median_ns", json_null());
                json_object_set_new(ph, "ci95", json_null());
            }
            json_t *per_run = json_array(); /* the per-run totals, for ratios */
            for (size_t r = 0; r < k; r++)
                json_array_append_new(
                    per_run, json_integer((json_int_t)llround(tot[r])));
            json_object_set_new(ph, "runs_ns", per_run);
            json_object_set_new(ph, "count", json_integer((json_int_t)k));
            json_object_set_new(ph, "unfinished",
                                json_integer((json_int_t)unfinished));
            json_object_set_new(
                ph, "parent", p->parent ? json_string(p->parent) : json_null());
            json_object_set_new(o, p->name, ph);
        }
    }
    free(tot);
    free(first);
    free(occ);
    return o;
}

static json_t *values_json(const mb__exec_series *s, int counters)
{
    json_t *o = json_object();
    double *v = mb__calloc(s->n ? s->n : 1, sizeof *v);
    for (size_t i = 0; v && i < s->n; i++) {
        const mb__events *ev = &s->samples[i].events;
        size_t nn = counters ? ev->n_counters : ev->n_metrics;
        const mb__named_value *arr = counters ? ev->counters : ev->metrics;
        for (size_t j = 0; j < nn; j++) {
            const char *name = arr[j].name;
            if (json_object_get(o, name))
                continue;
            size_t k = 0;
            double last = NAN;
            for (size_t r = 0; r < s->n; r++) {
                const mb__events *e2 = &s->samples[r].events;
                const mb__named_value *x = counters
                                               ? mb__events_counter(e2, name)
                                               : mb__events_metric(e2, name);
                if (x) {
                    v[k++] = x->value;
                    last = x->value;
                }
            }
            mb__summary sm;
            if (!mb__summarize(v, k, &sm))
                continue;
            json_t *x = json_pack("{s:f,s:f,s:f,s:f,s:I}", "median", sm.median,
                                  "mean", sm.mean, "min", sm.min, "max", sm.max,
                                  "runs", (json_int_t)k);
            if (!counters)
                json_object_set_new(x, "last", json_real(last));
            json_object_set_new(o, name, x);
        }
    }
    free(v);
    return o;
}

static int64_t median_i64(const mb__exec_series *s, size_t off)
{
    double *v = mb__calloc(s->n ? s->n : 1, sizeof *v);
    if (!v || !s->n) {
        free(v);
        return -1;
    }
    for (size_t i = 0; i < s->n; i++)
        v[i] = (double)*(const int64_t *)((const char *)&s->samples[i] + off);
    double m = median_of(v, s->n);
    free(v);
    return (int64_t)llround(m);
}

/* The RUN object's status, names and configuration. */
static json_t *run_head(const mb__exec_series *s, const mb__exec_opts *o)
{
    json_t *run = json_object();
    const char *status =
        s->error                                                 ? "failed"
        : (s->stop_rule && !strcmp(s->stop_rule, "interrupted")) ? "interrupted"
                                                                 : "ok";
    json_object_set_new(run, "status", json_string(status));
    if (s->error)
        json_object_set_new(run, "error", json_string(s->error));
    json_object_set_new(run, "variant", json_string(s->cmd->name));
    char *shown = mb__redact(s->cmd->command);
    json_object_set_new(run, "command", json_string(shown ? shown : "***"));
    free(shown);
    if (s->cmd->params)
        json_object_set(run, "params", s->cmd->params);
    json_object_set_new(run, "backend", json_string("exec"));
    json_object_set_new(
        run, "config",
        json_pack("{s:b,s:I,s:I,s:I,s:I,s:I,s:I,s:f,s:I,s:o,s:o,s:b}", "shell",
                  o->shell, "warmup_runs", (json_int_t)o->warmup, "min_runs",
                  (json_int_t)o->min_runs, "max_runs", (json_int_t)o->max_runs,
                  "fixed_runs", (json_int_t)o->fixed_runs, "min_time_ns",
                  (json_int_t)o->min_time_ns, "max_time_ns",
                  (json_int_t)o->max_time_ns, "target_ci", o->target_ci,
                  "timeout_ns", (json_int_t)o->timeout_ns, "prepare",
                  o->prepare ? json_string(o->prepare) : json_null(), "cleanup",
                  o->cleanup ? json_string(o->cleanup) : json_null(),
                  "ignore_failure", o->ignore_failure));
    json_object_set_new(run, "iterations", json_integer((json_int_t)s->n));
    json_object_set_new(run, "stop_rule",
                        s->stop_rule ? json_string(s->stop_rule) : json_null());
    return run;
}

/* What the runs of a series add up to: their wall times, one object per
 * run, the largest memory readings and the exit codes. */
typedef struct run_tally {
    int64_t *wall; /* NULL when out of memory */
    json_t *samples, *runs, *codes;
    int64_t rss_max, gpu_max, total, floor_max;
    size_t signals, timeouts, dropped, dropped_events;
} run_tally;

static void tally_runs(const mb__exec_series *s, run_tally *t)
{
    *t = (run_tally){.wall = mb__calloc(s->n ? s->n : 1, sizeof *t->wall),
                     .samples = json_array(),
                     .runs = json_array(),
                     .codes = json_object(),
                     .rss_max = -1,
                     .gpu_max = -1,
                     .floor_max = -1};
    for (size_t i = 0; t->wall && i < s->n; i++) {
        const mb__exec_sample *x = &s->samples[i];
        t->wall[i] = x->wall_ns;
        t->total += x->wall_ns;
        json_array_append_new(t->samples, json_integer((json_int_t)x->wall_ns));
        json_array_append_new(
            t->runs,
            json_pack("{s:I,s:I,s:I,s:I,s:o,s:o,s:b}", "wall_ns",
                      (json_int_t)x->wall_ns, "user_ns", (json_int_t)x->user_ns,
                      "sys_ns", (json_int_t)x->sys_ns, "peak_rss_bytes",
                      (json_int_t)x->peak_rss_bytes, "exit_code",
                      x->term_signal ? json_null() : json_integer(x->exit_code),
                      "signal",
                      x->term_signal ? json_integer(x->term_signal)
                                     : json_null(),
                      "timed_out", x->timed_out));
        if (x->peak_rss_bytes > t->rss_max)
            t->rss_max = x->peak_rss_bytes;
        if (x->rss_floor_bytes > t->floor_max)
            t->floor_max = x->rss_floor_bytes;
        if (x->gpu_peak_bytes > t->gpu_max)
            t->gpu_max = x->gpu_peak_bytes;
        char key[32];
        if (x->term_signal)
            snprintf(key, sizeof key, "signal %d", x->term_signal);
        else
            snprintf(key, sizeof key, "%d", x->exit_code);
        json_int_t c = json_integer_value(json_object_get(t->codes, key));
        json_object_set_new(t->codes, key, json_integer(c + 1));
        t->signals += x->term_signal != 0;
        t->timeouts += x->timed_out != 0;
    }
    for (size_t i = 0; i < s->n; i++)
        t->dropped += s->samples[i].events.dropped_iters;
    for (size_t i = 0; i < s->n; i++)
        t->dropped_events += s->samples[i].events.dropped_events;
}

/* The RUN object's latency, phases, samples and (when it is the
 * command's own) memory. */
static void add_walls(json_t *run, const mb__exec_series *s,
                      const mb__exec_opts *o, const run_tally *t)
{
    json_object_set_new(run, "latency",
                        t->wall && s->n
                            ? mb__latency_json(t->wall, s->n, NULL, 0)
                            : json_null());
    json_object_set_new(run, "phases",
                        json_pack("{s:I,s:I,s:I}", "warmup_ns",
                                  (json_int_t)s->warmup_ns, "warmup_iters",
                                  (json_int_t)o->warmup, "measure_ns",
                                  (json_int_t)t->total));
    json_object_set_new(run, "samples_ns", t->samples);
    /* The command's own peak, where the store and the gate look for it;
     * not when it is only a bound (mbench's own size, proc.h). */
    if (t->rss_max >= 0 && t->rss_max > t->floor_max)
        json_object_set_new(
            run, "memory",
            json_pack("{s:I,s:s}", "rss_peak_bytes", (json_int_t)t->rss_max,
                      "peak_method",
                      "wait4 ru_maxrss of the command (largest run)"));
}

static json_t *int_or_null(int64_t v, int ok)
{
    return ok ? json_integer(v) : json_null();
}

/* The "exec" object's CPU times and memory (medians over the runs). */
static void add_usage(json_t *ex, const mb__exec_series *s,
                      const mb__exec_opts *o, const run_tally *t)
{
    int n = s->n > 0;
    json_object_set_new(
        ex, "user_ns",
        int_or_null(median_i64(s, offsetof(mb__exec_sample, user_ns)), n));
    json_object_set_new(
        ex, "sys_ns",
        int_or_null(median_i64(s, offsetof(mb__exec_sample, sys_ns)), n));
    json_object_set_new(ex, "peak_rss_bytes",
                        int_or_null(t->rss_max, t->rss_max >= 0));
    json_object_set_new(ex, "rss_floor_bytes",
                        int_or_null(t->floor_max, t->floor_max >= 0));
    json_object_set_new(
        ex, "peak_rss_median_bytes",
        int_or_null(median_i64(s, offsetof(mb__exec_sample, peak_rss_bytes)),
                    n));
    json_object_set_new(ex, "gpu_peak_bytes",
                        int_or_null(t->gpu_max, t->gpu_max >= 0));
    json_object_set_new(ex, "gpu_memory",
                        json_string(!o->gpu_memory ? "not requested"
                                    : o->nvml      ? "nvml (untested)"
                                                   : "not available"));
}

/* The "exec" object of docs/EXEC.md. */
static json_t *exec_json(const mb__exec_series *s, const mb__exec_opts *o,
                         const run_tally *t)
{
    json_t *ex = json_object();
    add_usage(ex, s, o, t);
    json_object_set_new(ex, "exit_codes", t->codes);
    json_object_set_new(ex, "failures", json_integer((json_int_t)s->failures));
    json_object_set_new(ex, "timeouts", json_integer((json_int_t)t->timeouts));
    json_object_set_new(ex, "signals", json_integer((json_int_t)t->signals));
    json_object_set_new(ex, "phases", phases_json(s));
    json_object_set_new(ex, "counters", values_json(s, 1));
    json_object_set_new(ex, "metrics", values_json(s, 0));
    json_object_set_new(ex, "loops", mb__exec_loops_json(s));
    json_object_set_new(ex, "derived", mb__exec_derived_json(s));
    json_object_set_new(
        ex, "events",
        json_pack("{s:I,s:I,s:I,s:I,s:o}", "malformed",
                  (json_int_t)s->malformed_events, "dropped_iterations",
                  (json_int_t)t->dropped, "names_cap",
                  (json_int_t)MB_EVENTS_MAX_NAMES, "dropped_events",
                  (json_int_t)t->dropped_events, "first_malformed",
                  s->first_malformed ? json_string(s->first_malformed)
                                     : json_null()));
    json_object_set_new(
        ex, "leftover_processes",
        json_pack("{s:I,s:i,s:o,s:b}", "runs", (json_int_t)s->leftover_runs,
                  "max", s->leftover_max, "first",
                  s->first_leftover ? json_string(s->first_leftover)
                                    : json_null(),
                  "ended", !o->keep_leftovers));
    json_object_set_new(ex, "runs", t->runs);
    return ex;
}

json_t *mb__exec_run_json(const mb__exec_series *s, const mb__exec_opts *o)
{
    json_t *run = run_head(s, o);
    run_tally t;
    tally_runs(s, &t);
    add_walls(run, s, o, &t);
    free(t.wall);
    json_object_set_new(run, "exec", exec_json(s, o, &t));
    return run;
}

static double *walls(const mb__exec_series *s)
{
    double *v = mb__calloc(s->n ? s->n : 1, sizeof *v);
    for (size_t i = 0; v && i < s->n; i++)
        v[i] = (double)s->samples[i].wall_ns;
    return v;
}

json_t *mb__exec_comparison_json(const mb__exec_series *s, size_t n,
                                 uint64_t seed)
{
    json_t *c = json_object();
    json_object_set_new(c, "baseline", json_string(s[0].cmd->name));
    json_object_set_new(c, "statistic", json_string("median"));
    json_object_set_new(
        c, "ratio",
        json_string("median(variant) / median(baseline); speedup = 1 / ratio"));
    json_t *entries = json_array();
    double *a = walls(&s[0]);
    mb__rng rng;
    mb__rng_seed(&rng, seed);
    for (size_t i = 1; a && i < n; i++) {
        json_t *e = json_object();
        json_object_set_new(e, "variant", json_string(s[i].cmd->name));
        double *b = walls(&s[i]);
        double est = NAN, lo = NAN, hi = NAN;
        mb__mwu u;
        int have = b && s[0].n && s[i].n &&
                   mb__bootstrap_ratio(a, s[0].n, b, s[i].n, 50, 2000, &rng,
                                       &est, &lo, &hi);
        json_object_set_new(e, "ratio", num_or_null(est, have));
        json_object_set_new(e, "speedup",
                            num_or_null(1.0 / est, have && est > 0));
        json_object_set_new(e, "ratio_ci95",
                            have && s[0].n >= 2 && s[i].n >= 2
                                ? json_pack("{s:f,s:f}", "lo", lo, "hi", hi)
                                : json_null());
        int mw = b && s[0].n >= 2 && s[i].n >= 2 &&
                 mb__mann_whitney(a, s[0].n, b, s[i].n, &u);
        json_object_set_new(e, "p_value", num_or_null(u.p, mw));
        json_object_set_new(e, "significant",
                            mw ? json_boolean(u.p < 0.05) : json_null());
        free(b);
        json_array_append_new(entries, e);
    }
    free(a);
    json_object_set_new(c, "entries", entries);
    return c;
}

/* A warning in doc for a command that left processes behind. */
static void warn_leftovers(json_t *doc, const mb__exec_series *s,
                           const mb__exec_opts *o)
{
    if (!s->leftover_runs)
        return;
    mb__buf b = MB_BUF_INIT;
    mb__buf_printf(&b,
                   "'%s' left processes running in its process group after "
                   "it exited, in %zu run%s (up to %d; first: %s): ",
                   s->cmd->name, s->leftover_runs,
                   s->leftover_runs == 1 ? "" : "s", s->leftover_max,
                   s->first_leftover ? s->first_leftover : "?");
    mb__buf_puts(&b, o->keep_leftovers
                         ? "kept running (--keep-leftovers); they may "
                           "overlap and slow later runs"
                         : "mbench ended them (SIGTERM, then SIGKILL) so "
                           "they do not overlap later runs; wait for them "
                           "in the command, or pass --keep-leftovers");
    mb__buf_putc(&b, '\0');
    if (!b.oom)
        json_array_append_new(json_object_get(doc, "warnings"),
                              json_string(b.data));
    mb__buf_free(&b);
}

json_t *mb__exec_result(const mb__exec_opts *o, const mb__exec_series *ser,
                        size_t n, mb_status st, uint64_t seed,
                        const char *command_line)
{
    json_t *doc = mb__exec_doc("exec", command_line);
    json_t *runs = json_object_get(doc, "runs");
    for (size_t i = 0; ser && i < n; i++)
        json_array_append_new(runs, mb__exec_run_json(&ser[i], o));
    if (st == MB_EINTERRUPTED)
        json_object_set_new(doc, "interrupted", json_true());
    for (size_t i = 0; ser && i < n; i++)
        warn_leftovers(doc, &ser[i], o);
    if (n > 1 && ser && st == MB_OK) {
        json_t *cmp = mb__exec_comparison_json(ser, n, seed);
        size_t i;
        json_t *e;
        json_array_foreach(json_object_get(cmp, "entries"), i, e)
        {
            json_t *r = json_array_get(runs, i + 1);
            json_object_set_new(e, "phases",
                                mb__phase_speedups(json_array_get(runs, 0), r));
            json_object_set_new(e, "loops",
                                mb__loop_speedups(json_array_get(runs, 0), r));
        }
        json_object_set_new(doc, "comparison", cmp);
    }
    return doc;
}
