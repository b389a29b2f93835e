/* execprint.c - the console form of exec and suite documents
 * (execprint.h). */
#include "report/execprint.h"

#include "exec/events.h"
#include "report/rutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

char *mb__fmt_steps(double x, const mb__unit_step *steps, char *out, size_t len)
{
    for (const mb__unit_step *s = steps; s->fmt && isfinite(x); s++)
        if (x >= s->at) {
            snprintf(out, len, s->fmt, x / s->div);
            return out;
        }
    snprintf(out, len, "-");
    return out;
}

char *mb__fmt_ns(double ns, char *out, size_t len)
{
    static const mb__unit_step steps[] = {
        {60e9, 60e9, "%.1f min"},  {1e9, 1e9, "%.3f s"},
        {1e6, 1e6, "%.2f ms"},     {1e3, 1e3, "%.1f us"},
        {-INFINITY, 1, "%.0f ns"}, {0, 0, NULL}};
    return mb__fmt_steps(ns, steps, out, len);
}

/* "12.4 MiB", "1.50 GiB", "812 KiB"; "-" for NAN or negative. */
static char *fmt_size(double b, char *out, size_t len)
{
    static const mb__unit_step steps[] = {
        {1073741824.0, 1073741824.0, "%.2f GiB"},
        {1048576.0, 1048576.0, "%.1f MiB"},
        {0, 1024.0, "%.0f KiB"},
        {0, 0, NULL}};
    return mb__fmt_steps(b, steps, out, len);
}

/* The duration at path of o, formatted into out. */
static char *dur(const json_t *o, const char *path, char *out, size_t len)
{
    return mb__fmt_ns(mb__jnum(o, path), out, len);
}

/* "LO .. HI" of a CI object, "-" when it is not one. */
static char *ci_range(const json_t *ci, char *out, size_t len)
{
    char lo[32], hi[32];
    if (!json_is_object(ci))
        snprintf(out, len, "-");
    else
        snprintf(out, len, "%s .. %s", dur(ci, "lo", lo, sizeof lo),
                 dur(ci, "hi", hi, sizeof hi));
    return out;
}

/* The wall-time line, and the status line of a run that failed. */
static void wall(mb__buf *b, const json_t *run)
{
    char a[32], s[32], lo[32], hi[32], ci[72];
    const char *status = mb__jstr(run, "status");
    const char *error = mb__jstr(run, "error");
    const char *stop = mb__jstr(run, "stop_rule");
    const json_t *lat = json_object_get(run, "latency");
    if (status && strcmp(status, "ok") != 0)
        mb__buf_printf(b, "  status: %s%s%s\n", status, error ? ": " : "",
                       error ? error : "");
    if (!json_is_object(lat))
        return;
    const json_t *cio = json_object_get(lat, "median_ci95");
    mb__buf_printf(b, "  wall    median %s", dur(lat, "median", a, sizeof a));
    if (json_is_object(cio))
        mb__buf_printf(b, "  [95%% CI %s]", ci_range(cio, ci, sizeof ci));
    mb__buf_printf(b, "  mean %s ± %s  min %s  max %s  (%d runs, stop: %s)\n",
                   dur(lat, "mean", a, sizeof a), dur(lat, "std", s, sizeof s),
                   dur(lat, "min", lo, sizeof lo),
                   dur(lat, "max", hi, sizeof hi), (int)mb__jnum(lat, "count"),
                   stop ? stop : "-");
}

/* User and system time, peak RSS (a bound at or below mbench's own size,
 * exec/proc.h), GPU memory and the exit codes. */
static void resources(mb__buf *b, const json_t *ex)
{
    char u[32], s[32], rss[32], gpu[32];
    double peak = mb__jnum(ex, "peak_rss_bytes");
    mb__buf_printf(b, "  user    %s  sys %s  peak RSS %s%s",
                   dur(ex, "user_ns", u, sizeof u),
                   dur(ex, "sys_ns", s, sizeof s),
                   peak <= mb__jnum(ex, "rss_floor_bytes") ? "<= " : "",
                   fmt_size(peak, rss, sizeof rss));
    if (json_is_number(json_object_get(ex, "gpu_peak_bytes")))
        mb__buf_printf(
            b, "  GPU peak %s (NVML, untested)",
            fmt_size(mb__jnum(ex, "gpu_peak_bytes"), gpu, sizeof gpu));
    mb__buf_puts(b, "  exit codes:");
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)json_object_get(ex, "exit_codes"), key, val)
        mb__buf_printf(b, " %s x%lld", key, (long long)json_integer_value(val));
    mb__buf_putc(b, '\n');
}

/* Rows of the phase and loop tables and names of the counter and metric
 * lines printed; the rest are in the document. */
#define CONSOLE_MAX_NAMES 50

/* The line saying how many of a table's n names were not printed. */
static void more_names(mb__buf *b, size_t n, const char *what)
{
    if (n > CONSOLE_MAX_NAMES)
        mb__buf_printf(b, "  ... %zu more %s (in the JSON document)\n",
                       n - CONSOLE_MAX_NAMES, what);
}

static void phase_table(mb__buf *b, const json_t *ph)
{
    if (!json_object_size(ph))
        return;
    size_t shown = 0;
    mb__buf_printf(b, "  %-28s %12s  %-26s %8s %12s\n", "phase", "median",
                   "95% CI", "per run", "first");
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)ph, key, v)
    {
        if (shown++ == CONSOLE_MAX_NAMES)
            break;
        char name[64], med[32], ci[72], first[32];
        snprintf(name, sizeof name, "%s%s",
                 json_is_string(json_object_get(v, "parent")) ? "  " : "", key);
        mb__buf_printf(b, "  %-28s %12s  %-26s %8.0f %12s\n", name,
                       dur(v, "median_ns", med, sizeof med),
                       ci_range(json_object_get(v, "ci95"), ci, sizeof ci),
                       mb__jnum(v, "occurrences_per_run"),
                       dur(v, "first_median_ns", first, sizeof first));
    }
    more_names(b, json_object_size(ph), "phases");
}

/* The median of every counter, then of every metric, a line each. */
static void value_lines(mb__buf *b, const json_t *ex)
{
    static const char *const kinds[][2] = {{"counters", "counters (median)"},
                                           {"metrics", "metrics (median)"}};
    for (size_t k = 0; k < 2; k++) {
        const json_t *vals = json_object_get(ex, kinds[k][0]);
        if (!json_object_size(vals))
            continue;
        mb__buf_printf(b, "  %s:", kinds[k][1]);
        const char *key;
        json_t *v;
        size_t shown = 0;
        json_object_foreach((json_t *)vals, key, v)
        {
            if (shown++ == CONSOLE_MAX_NAMES)
                break;
            mb__buf_printf(b, " %s=%g", key, mb__jnum(v, "median"));
        }
        mb__buf_putc(b, '\n');
        more_names(b, json_object_size(vals), kinds[k][0]);
    }
}

static void loop_table(mb__buf *b, const json_t *loops)
{
    if (!json_object_size(loops))
        return;
    mb__buf_printf(b, "  %-20s %10s  %-24s %10s %10s %9s %12s\n", "loop",
                   "median", "95% CI (over runs)", "p95", "p99", "iters",
                   "items/s");
    const char *key;
    json_t *v;
    size_t shown = 0;
    json_object_foreach((json_t *)loops, key, v)
    {
        if (shown++ == CONSOLE_MAX_NAMES)
            break;
        const json_t *l = json_object_get(v, "latency");
        const json_t *ci = json_object_get(l, "median_ci95");
        char med[32], cis[72], p95[32], p99[32];
        double est = mb__jnum(ci, "estimate");
        mb__buf_printf(b, "  %-20s %10s  %-24s %10s %10s %9.0f %12.4g\n", key,
                       mb__fmt_ns(isfinite(est) ? est : mb__jnum(l, "median"),
                                  med, sizeof med),
                       ci_range(ci, cis, sizeof cis),
                       dur(l, "p95", p95, sizeof p95),
                       dur(l, "p99", p99, sizeof p99),
                       mb__jnum(v, "iterations"), mb__jnum(v, "items_per_s"));
    }
    more_names(b, json_object_size(loops), "loops");
}

/* Throughput derived from counters over the wall time, and the events a
 * program sent that were not kept or not understood. */
static void derived_and_events(mb__buf *b, const json_t *ex)
{
    static const char *const per[][3] = {
        {"samples_per_s", "time_per_sample_ns", "samples/s (%s per sample)"},
        {"batches_per_s", "time_per_batch_ns", "batches/s (%s per batch)"}};
    const json_t *dv = json_object_get(ex, "derived");
    if (json_is_object(dv)) {
        mb__buf_puts(b, "  derived:");
        for (size_t k = 0; k < 2; k++) {
            char t[32];
            if (!json_is_number(json_object_get(dv, per[k][0])))
                continue;
            mb__buf_printf(b, " %.4g ", mb__jnum(dv, per[k][0]));
            mb__buf_printf(b, per[k][2], dur(dv, per[k][1], t, sizeof t));
        }
        mb__buf_puts(b, " over the wall time\n");
    }
    const json_t *ev = json_object_get(ex, "events");
    if (mb__jnum(ev, "dropped_iterations") > 0)
        mb__buf_printf(b, "  iterations not kept (over %u per run): %.0f\n",
                       MB_EVENTS_MAX_ITERS, mb__jnum(ev, "dropped_iterations"));
    if (mb__jnum(ev, "dropped_events") > 0)
        mb__buf_printf(b,
                       "  events not kept (naming more than %.0f distinct "
                       "phases, counters, metrics and loops in a run): %.0f\n",
                       mb__jnum(ev, "names_cap"),
                       mb__jnum(ev, "dropped_events"));
    if (mb__jnum(ev, "malformed") > 0)
        mb__buf_printf(b, "  malformed event lines: %.0f (first: %s)\n",
                       mb__jnum(ev, "malformed"),
                       mb__jstr(ev, "first_malformed"));
}

void mb__exec_run_console(mb__buf *b, const json_t *run)
{
    const json_t *ex = json_object_get(run, "exec");
    mb__console_put(b, mb__jstr(run, "variant"));
    mb__buf_putc(b, '\n');
    wall(b, run);
    if (!json_is_object(ex) || mb__jnum(run, "iterations") < 1)
        return;
    resources(b, ex);
    phase_table(b, json_object_get(ex, "phases"));
    value_lines(b, ex);
    loop_table(b, json_object_get(ex, "loops"));
    derived_and_events(b, ex);
}

/* The speedup of each phase and loop of a comparison entry. */
static void part_speedups(mb__buf *b, const json_t *e)
{
    static const char *const parts[][2] = {{"phases", "phase"},
                                           {"loops", "loop "}};
    for (size_t k = 0; k < 2; k++) {
        const char *name;
        json_t *ph;
        json_object_foreach(json_object_get(e, parts[k][0]), name, ph)
        {
            const json_t *ci = json_object_get(ph, "speedup_ci95");
            mb__buf_printf(b, "    %s %-30s %6.3fx", parts[k][1], name,
                           mb__jnum(ph, "speedup"));
            if (json_is_object(ci))
                mb__buf_printf(b, "  [95%% CI %.3f .. %.3f, Welch t over runs]",
                               mb__jnum(ci, "lo"), mb__jnum(ci, "hi"));
            mb__buf_putc(b, '\n');
        }
    }
}

/* exec's comparison: per command, how much faster or slower than the
 * baseline (the inverse ratio when slower), its CI and p-value. */
static void comparison(mb__buf *b, const json_t *cmp)
{
    const json_t *entries = json_object_get(cmp, "entries");
    if (!json_array_size(entries))
        return;
    mb__buf_printf(b,
                   "\nSpeedup against '%s' (ratio of medians, 95%% bootstrap "
                   "CI, Mann-Whitney p):\n",
                   mb__jstr(cmp, "baseline"));
    size_t i;
    json_t *e;
    json_array_foreach((json_t *)entries, i, e)
    {
        double sp = mb__jnum(e, "speedup");
        const json_t *ci = json_object_get(e, "ratio_ci95");
        {
            char v[256];
            mb__buf_printf(
                b, "  %-40s ",
                mb__console_safe(mb__jstr(e, "variant"), v, sizeof v));
        }
        if (!isfinite(sp)) {
            mb__buf_puts(b, "-\n");
            continue;
        }
        mb__buf_printf(b, "%6.3fx %s", sp >= 1 ? sp : 1 / sp,
                       sp >= 1 ? "faster" : "slower");
        if (json_is_object(ci) && sp >= 1)
            mb__buf_printf(b, "  [95%% CI %.3f .. %.3f]",
                           1 / mb__jnum(ci, "hi"), 1 / mb__jnum(ci, "lo"));
        else if (json_is_object(ci))
            mb__buf_printf(b, "  [95%% CI %.3f .. %.3f]", mb__jnum(ci, "lo"),
                           mb__jnum(ci, "hi"));
        if (json_is_number(json_object_get(e, "p_value")))
            mb__buf_printf(b, "  p=%.3g%s", mb__jnum(e, "p_value"),
                           json_is_true(json_object_get(e, "significant"))
                               ? ""
                               : " (not significant)");
        mb__buf_putc(b, '\n');
        part_speedups(b, e);
    }
}

void mb__exec_doc_console(mb__buf *b, const json_t *doc)
{
    size_t i;
    json_t *run;
    json_array_foreach(json_object_get(doc, "runs"), i, run)
    {
        if (i)
            mb__buf_putc(b, '\n');
        mb__exec_run_console(b, run);
    }
    comparison(b, json_object_get(doc, "comparison"));
    json_t *w;
    json_array_foreach(json_object_get(doc, "warnings"), i, w)
    {
        mb__buf_puts(b, "warning: ");
        mb__console_put(b, json_string_value(w));
        mb__buf_putc(b, '\n');
    }
}

void mb__suite_run_console(mb__buf *b, size_t k, size_t selected,
                           const json_t *run)
{
    mb__buf_printf(b, "[%zu/%zu] ", k, selected);
    mb__exec_run_console(b, run);
    const json_t *g = json_object_get(run, "git");
    const char *c = mb__jstr(g, "commit"), *br = mb__jstr(g, "branch");
    const char *ref = mb__jstr(g, "ref"), *st = mb__jstr(run, "status");
    int other = c && br && ref && strcmp(ref, br);
    if (c)
        mb__buf_printf(b, "  git     %s %.12s (%s)%s%s\n", br ? br : "?", c,
                       mb__jstr(g, "commit_date"), other ? " from " : "",
                       other ? ref : "");
    if (st && strcmp(st, "ok"))
        mb__buf_puts(b, "  FAILED\n");
}

void mb__suite_summary_console(mb__buf *b, size_t ran, size_t selected,
                               int sharded, size_t failed, int interrupted)
{
    mb__buf_printf(b, "\n%zu of %zu task(s) run%s, %zu FAILED%s\n", ran,
                   selected, sharded ? " in this shard" : "", failed,
                   interrupted ? ", interrupted" : "");
}
