/* exec_util.c - console helpers shared by exec and suite (exec_util.h). */
#include "exec_util.h"

#include "core/clock.h"

#include "cli.h"
#include "opt.h"

#include "exec/nvml.h"
#include "core/buf.h"
#include "core/fileio.h"
#include "report/output.h"
#include "report/rutil.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int cancel_flag;
static volatile int hard_second;

static void on_signal(int sig)
{
    (void)sig;
    if (cancel_flag && hard_second)
        _exit(MB_EXIT_INTERRUPTED);
    cancel_flag = 1;
}

volatile int *mb_cli_cancel_flag(int second_exits)
{
    hard_second = second_exits;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: poll() returns EINTR */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    return &cancel_flag;
}

const char *mb_cli_fmt_ns(double ns, char *buf, size_t len)
{
    if (!isfinite(ns))
        snprintf(buf, len, "-");
    else if (ns >= 60e9)
        snprintf(buf, len, "%.1f min", ns / 60e9);
    else if (ns >= 1e9)
        snprintf(buf, len, "%.3f s", ns / 1e9);
    else if (ns >= 1e6)
        snprintf(buf, len, "%.2f ms", ns / 1e6);
    else if (ns >= 1e3)
        snprintf(buf, len, "%.1f us", ns / 1e3);
    else
        snprintf(buf, len, "%.0f ns", ns);
    return buf;
}

const char *mb_cli_fmt_bytes(double b, char *buf, size_t len)
{
    if (!isfinite(b) || b < 0)
        snprintf(buf, len, "-");
    else if (b >= 1073741824.0)
        snprintf(buf, len, "%.2f GiB", b / 1073741824.0);
    else if (b >= 1048576.0)
        snprintf(buf, len, "%.1f MiB", b / 1048576.0);
    else
        snprintf(buf, len, "%.0f KiB", b / 1024.0);
    return buf;
}

void mb_cli_print_exec_run(FILE *f, const json_t *run)
{
    char a[32], b[32], c[32], d[32];
    const json_t *lat = json_object_get(run, "latency");
    const json_t *ex = json_object_get(run, "exec");
    const char *status = json_string_value(json_object_get(run, "status"));
    fprintf(f, "%s\n", json_string_value(json_object_get(run, "variant")));
    if (status && strcmp(status, "ok") != 0)
        fprintf(f, "  status: %s%s%s\n", status,
                json_object_get(run, "error") ? ": " : "",
                json_object_get(run, "error")
                    ? json_string_value(json_object_get(run, "error"))
                    : "");
    if (json_is_object(lat)) {
        const json_t *ci = json_object_get(lat, "median_ci95");
        fprintf(f, "  wall    median %s",
                mb_cli_fmt_ns(mb__jnum(lat, "median"), a, sizeof a));
        if (json_is_object(ci))
            fprintf(f, "  [95%% CI %s .. %s]",
                    mb_cli_fmt_ns(mb__jnum(ci, "lo"), b, sizeof b),
                    mb_cli_fmt_ns(mb__jnum(ci, "hi"), c, sizeof c));
        fprintf(f, "  mean %s ± %s  min %s  max %s  (%d runs, stop: %s)\n",
                mb_cli_fmt_ns(mb__jnum(lat, "mean"), a, sizeof a),
                mb_cli_fmt_ns(mb__jnum(lat, "std"), b, sizeof b),
                mb_cli_fmt_ns(mb__jnum(lat, "min"), c, sizeof c),
                mb_cli_fmt_ns(mb__jnum(lat, "max"), d, sizeof d),
                (int)mb__jnum(lat, "count"),
                json_string_value(json_object_get(run, "stop_rule"))
                    ? json_string_value(json_object_get(run, "stop_rule"))
                    : "-");
    }
    if (!json_is_object(ex) || mb__jnum(run, "iterations") < 1)
        return;
    /* At or below mbench's own size the kernel's reading is only a bound
     * (proc.h). */
    double peak = mb__jnum(ex, "peak_rss_bytes");
    fprintf(f, "  user    %s  sys %s  peak RSS %s%s",
            mb_cli_fmt_ns(mb__jnum(ex, "user_ns"), a, sizeof a),
            mb_cli_fmt_ns(mb__jnum(ex, "sys_ns"), b, sizeof b),
            peak <= mb__jnum(ex, "rss_floor_bytes") ? "<= " : "",
            mb_cli_fmt_bytes(peak, c, sizeof c));
    if (json_is_number(json_object_get(ex, "gpu_peak_bytes")))
        fprintf(f, "  GPU peak %s (NVML, untested)",
                mb_cli_fmt_bytes(mb__jnum(ex, "gpu_peak_bytes"), d, sizeof d));
    fprintf(f, "  exit codes:");
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)json_object_get(ex, "exit_codes"), key, val)
        fprintf(f, " %s x%lld", key, (long long)json_integer_value(val));
    fputc('\n', f);
    const json_t *ph = json_object_get(ex, "phases");
    if (json_object_size(ph)) {
        fprintf(f, "  %-28s %12s  %-26s %8s %12s\n", "phase", "median",
                "95% CI", "per run", "first");
        json_object_foreach((json_t *)ph, key, val)
        {
            char name[64];
            snprintf(name, sizeof name, "%s%s",
                     json_is_string(json_object_get(val, "parent")) ? "  " : "",
                     key);
            const json_t *ci = json_object_get(val, "ci95");
            char cis[64] = "-";
            if (json_is_object(ci))
                snprintf(cis, sizeof cis, "%s .. %s",
                         mb_cli_fmt_ns(mb__jnum(ci, "lo"), b, sizeof b),
                         mb_cli_fmt_ns(mb__jnum(ci, "hi"), c, sizeof c));
            fprintf(
                f, "  %-28s %12s  %-26s %8.0f %12s\n", name,
                mb_cli_fmt_ns(mb__jnum(val, "median_ns"), a, sizeof a), cis,
                mb__jnum(val, "occurrences_per_run"),
                mb_cli_fmt_ns(mb__jnum(val, "first_median_ns"), d, sizeof d));
        }
    }
    for (int k = 0; k < 2; k++) {
        const json_t *vals = json_object_get(ex, k ? "metrics" : "counters");
        if (!json_object_size(vals))
            continue;
        fprintf(f, "  %s:", k ? "metrics (median)" : "counters (median)");
        json_object_foreach((json_t *)vals, key, val)
            fprintf(f, " %s=%g", key, mb__jnum(val, "median"));
        fputc('\n', f);
    }
    const json_t *loops = json_object_get(ex, "loops");
    if (json_object_size(loops)) {
        fprintf(f, "  %-20s %10s  %-24s %10s %10s %9s %12s\n", "loop", "median",
                "95% CI (over runs)", "p95", "p99", "iters", "items/s");
        json_object_foreach((json_t *)loops, key, val)
        {
            const json_t *l = json_object_get(val, "latency");
            const json_t *ci = json_object_get(l, "median_ci95");
            char cis[64] = "-", p95[32], p99[32];
            if (json_is_object(ci))
                snprintf(cis, sizeof cis, "%s .. %s",
                         mb_cli_fmt_ns(mb__jnum(ci, "lo"), b, sizeof b),
                         mb_cli_fmt_ns(mb__jnum(ci, "hi"), c, sizeof c));
            double est = mb__jnum(ci, "estimate");
            fprintf(f, "  %-20s %10s  %-24s %10s %10s %9.0f %12.4g\n", key,
                    mb_cli_fmt_ns(isfinite(est) ? est : mb__jnum(l, "median"),
                                  a, sizeof a),
                    cis, mb_cli_fmt_ns(mb__jnum(l, "p95"), p95, sizeof p95),
                    mb_cli_fmt_ns(mb__jnum(l, "p99"), p99, sizeof p99),
                    mb__jnum(val, "iterations"), mb__jnum(val, "items_per_s"));
        }
    }
    const json_t *dv = json_object_get(ex, "derived");
    if (json_is_object(dv)) {
        fprintf(f, "  derived:");
        if (json_is_number(json_object_get(dv, "samples_per_s")))
            fprintf(
                f, " %.4g samples/s (%s per sample)",
                mb__jnum(dv, "samples_per_s"),
                mb_cli_fmt_ns(mb__jnum(dv, "time_per_sample_ns"), a, sizeof a));
        if (json_is_number(json_object_get(dv, "batches_per_s")))
            fprintf(
                f, " %.4g batches/s (%s per batch)",
                mb__jnum(dv, "batches_per_s"),
                mb_cli_fmt_ns(mb__jnum(dv, "time_per_batch_ns"), b, sizeof b));
        fprintf(f, " over the wall time\n");
    }
    const json_t *ev = json_object_get(ex, "events");
    if (mb__jnum(ev, "dropped_iterations") > 0)
        fprintf(f, "  iterations not kept (over %u per run): %.0f\n",
                MB_EVENTS_MAX_ITERS, mb__jnum(ev, "dropped_iterations"));
    if (mb__jnum(ev, "malformed") > 0)
        fprintf(f, "  malformed event lines: %.0f (first: %s)\n",
                mb__jnum(ev, "malformed"),
                json_string_value(json_object_get(ev, "first_malformed")));
}

void mb_cli_print_comparison(FILE *f, const json_t *cmp)
{
    const json_t *entries = json_object_get(cmp, "entries");
    if (!json_array_size(entries))
        return;
    fprintf(f,
            "\nSpeedup against '%s' (ratio of medians, 95%% bootstrap CI, "
            "Mann-Whitney p):\n",
            json_string_value(json_object_get(cmp, "baseline")));
    size_t i;
    json_t *e;
    json_array_foreach((json_t *)entries, i, e)
    {
        double sp = mb__jnum(e, "speedup");
        const json_t *ci = json_object_get(e, "ratio_ci95");
        fprintf(f, "  %-40s ",
                json_string_value(json_object_get(e, "variant")));
        if (!isfinite(sp)) {
            fprintf(f, "-\n");
            continue;
        }
        fprintf(f, "%6.3fx %s", sp >= 1 ? sp : 1 / sp,
                sp >= 1 ? "faster" : "slower");
        if (json_is_object(ci) && sp >= 1)
            fprintf(f, "  [95%% CI %.3f .. %.3f]", 1 / mb__jnum(ci, "hi"),
                    1 / mb__jnum(ci, "lo"));
        else if (json_is_object(ci))
            fprintf(f, "  [95%% CI %.3f .. %.3f]", mb__jnum(ci, "lo"),
                    mb__jnum(ci, "hi"));
        if (json_is_number(json_object_get(e, "p_value")))
            fprintf(f, "  p=%.3g%s", mb__jnum(e, "p_value"),
                    json_is_true(json_object_get(e, "significant"))
                        ? ""
                        : " (not significant)");
        fputc('\n', f);
        for (int k = 0; k < 2; k++) {
            const char *name;
            json_t *ph;
            json_object_foreach(json_object_get(e, k ? "loops" : "phases"),
                                name, ph)
            {
                fprintf(f, "    %s %-30s %6.3fx", k ? "loop " : "phase", name,
                        mb__jnum(ph, "speedup"));
                const json_t *sci = json_object_get(ph, "speedup_ci95");
                if (json_is_object(sci))
                    fprintf(f, "  [95%% CI %.3f .. %.3f, Welch t over runs]",
                            mb__jnum(sci, "lo"), mb__jnum(sci, "hi"));
                fputc('\n', f);
            }
        }
    }
}

void mb_cli_print_exec_doc(FILE *f, const json_t *doc)
{
    size_t i;
    json_t *run;
    json_array_foreach(json_object_get(doc, "runs"), i, run)
    {
        if (i)
            fputc('\n', f);
        mb_cli_print_exec_run(f, run);
    }
    if (json_object_get(doc, "comparison"))
        mb_cli_print_comparison(f, json_object_get(doc, "comparison"));
}

void mb_cli_print_suite_comparison(const json_t *cmp)
{
    char a[32];
    printf("\nSpeedup of each branch against the first, per experiment (ratio "
           "of medians):\n");
    size_t gi;
    json_t *g;
    json_array_foreach(json_object_get(cmp, "groups"), gi, g)
    {
        const char *bb =
            json_string_value(json_object_get(g, "baseline_branch"));
        printf("  %s  (baseline: %s)\n",
               json_string_value(json_object_get(g, "group")),
               bb ? bb
               : json_string_value(json_object_get(g, "baseline"))
                   ? json_string_value(json_object_get(g, "baseline"))
                   : "none succeeded");
        size_t ei;
        json_t *e;
        json_array_foreach(json_object_get(g, "entries"), ei, e)
        {
            const char *br = json_string_value(json_object_get(e, "branch"));
            printf("    %-32s ",
                   br ? br : json_string_value(json_object_get(e, "variant")));
            if (!json_is_number(json_object_get(e, "speedup"))) {
                printf("FAILED or not comparable\n");
                continue;
            }
            double sp = json_number_value(json_object_get(e, "speedup"));
            printf("total %6.3fx", sp);
            const json_t *ci = json_object_get(e, "ratio_ci95");
            if (json_is_object(ci))
                printf(" [%.3f .. %.3f]",
                       1 / json_number_value(json_object_get(ci, "hi")),
                       1 / json_number_value(json_object_get(ci, "lo")));
            if (json_is_number(json_object_get(e, "p_value")))
                printf(" p=%.3g",
                       json_number_value(json_object_get(e, "p_value")));
            const char *k;
            json_t *v;
            json_object_foreach(json_object_get(e, "phases"), k, v)
                printf("  %s %.3fx (%s)", k,
                       json_number_value(json_object_get(v, "speedup")),
                       mb_cli_fmt_ns(
                           json_number_value(json_object_get(v, "median_ns")),
                           a, sizeof a));
            printf("\n");
        }
    }
    printf("  (speedup > 1: faster than the baseline)\n");
}

void mb_cli_print_suite_run(size_t k, size_t selected, const json_t *r)
{
    printf("[%zu/%zu] ", k, selected);
    mb_cli_print_exec_run(stdout, r);
    const json_t *g = json_object_get(r, "git");
    const char *c = json_string_value(json_object_get(g, "commit"));
    const char *br = json_string_value(json_object_get(g, "branch"));
    const char *ref = json_string_value(json_object_get(g, "ref"));
    int other = c && br && ref && strcmp(ref, br);
    if (c)
        printf("  git     %s %.12s (%s)%s%s\n", br ? br : "?", c,
               json_string_value(json_object_get(g, "commit_date")),
               other ? " from " : "", other ? ref : "");
    const char *st = json_string_value(json_object_get(r, "status"));
    if (st && strcmp(st, "ok"))
        printf("  FAILED\n");
    fflush(stdout);
}

int mb_cli_write_doc(const char *path, const json_t *doc)
{
    mb_err err = {0};
    if (mb__output_json(path, doc, &err))
        return mb_cli_error(MB_EXIT_RUNTIME, "%s", err.msg);
    return 0;
}

/* The option of cmd named name[0..len) (exactly, else by a unique
 * prefix), or with short name c when len is 0; NULL when none is. */
static const mb_opt *find_opt(const mb_cmd *cmd, const char *name, size_t len,
                              char c)
{
    const mb_opt *o, *hit = NULL;
    const char *group;
    int n = 0;
    for (size_t i = 0; (o = mb_opt_each(cmd, i, &group)); i++) {
        if (len == 0 ? o->short_name == c : strncmp(o->name, name, len) == 0) {
            if (len == 0 || strlen(o->name) == len)
                return o;
            hit = o;
            n++;
        }
    }
    return n == 1 ? hit : NULL;
}

int mb_cli_first_operand(const mb_cmd *cmd, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == '\0' || strcmp(a, "--") == 0)
            return i;
        if (a[1] == '-') { /* --name takes the next word when it has a value */
            const mb_opt *o =
                strchr(a, '=') ? NULL : find_opt(cmd, a + 2, strlen(a + 2), 0);
            i += o && o->type != MB_OPT_SWITCH;
            continue;
        }
        for (const char *s = a + 1; *s; s++) { /* -qw 3, -w3 */
            const mb_opt *o = find_opt(cmd, NULL, 0, *s);
            if (o && o->type != MB_OPT_SWITCH) {
                i += s[1] == '\0';
                break;
            }
        }
    }
    return argc;
}

void mb_cli_exec_progress(void *user, const mb_exec_cmd *c, int warmup,
                          size_t run, const mb_proc_result *r)
{
    (void)user;
    char t[32];
    fprintf(stderr, "\r\033[K%s %s #%zu: %s", warmup ? "warmup" : "run",
            c->name, run + 1, mb_cli_fmt_ns((double)r->wall_ns, t, sizeof t));
    fflush(stderr);
}

void mb_cli_exec_gpu_open(mb_exec_opts *o)
{
    mb_err ge = {0};
    if (!o->gpu_memory)
        return;
    if (mb__nvml_open(&o->nvml, &ge) != MB_OK)
        fprintf(stderr, "%s\n", ge.msg);
    else
        fprintf(stderr, "GPU memory: sampled through NVML (untested path)\n");
}

static void suite_start(void *user, size_t k, size_t selected, const char *name)
{
    if (*(const int *)user)
        return;
    fprintf(stderr, "[%zu/%zu] running %s\n", k, selected, name);
    fflush(stderr);
}

static void suite_run(void *user, size_t k, size_t selected, const json_t *r)
{
    if (!*(const int *)user)
        mb_cli_print_suite_run(k, selected, r);
}

static void suite_warn(void *user, const char *msg)
{
    (void)user;
    mb_cli_warn("%s", msg);
}

void mb_cli_suite_console(mb_suite_opts *so, const int *quiet)
{
    so->on_start = suite_start;
    so->on_run = suite_run;
    so->on_warn = suite_warn;
    so->user = (void *)quiet;
}

void mb_cli_rounds_progress(mb_cli_rounds *ps, const char *what, size_t round,
                            size_t rounds, int64_t elapsed_ns)
{
    int64_t now = mb_now_ns();
    if (now - ps->start < ps->delay_ns || now - ps->last < 100000000LL)
        return;
    ps->last = now;
    ps->shown = 1;
    fprintf(stderr,
            "\r%s: round %zu of %zu (a fresh runtime and session per "
            "arm), %.1f s\033[K",
            what, round + 1, rounds, (double)elapsed_ns / 1e9);
    fflush(stderr);
}
