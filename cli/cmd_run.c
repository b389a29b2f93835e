/* cmd_run.c - mbench run: benchmark one model on one backend. */
#include "cli.h"
#include "exec_util.h"
#include "opt.h"
#include "outputs.h"
#include "runopts.h"

#include "core/buf.h"
#include "report/console.h"
#include "runner/runner.h"
#include "report/termhist.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

MBENCH_COMMAND(run, cmd_run, "benchmark one model: latency, throughput, memory")
MBENCH_OPTIONS(run, mb_cmd_run)

static volatile int interrupted;
static void on_sigint(int sig)
{
    (void)sig;
    if (interrupted) /* a second Ctrl-C ends at once */
        _exit(MB_EXIT_INTERRUPTED);
    interrupted = 1;
}

/* A progress line on stderr, only on a terminal and only once a run has
 * taken more than a second; redrawn at most ten times a second. */
typedef struct {
    int64_t start, last;
    int shown;
    double target;
} progress_state;

static void progress(void *user, int64_t batch, int64_t iters,
                     int64_t elapsed_ns, double ci_rel)
{
    progress_state *ps = user;
    int64_t now = mb_now_ns();
    if (now - ps->start < 1000000000LL || now - ps->last < 100000000LL)
        return;
    ps->last = now;
    ps->shown = 1;
    double frac = isfinite(ci_rel) && ci_rel > 0 ? ps->target / ci_rel : 0;
    if (frac > 1)
        frac = 1;
    int width = 24, fill = (int)(frac * width);
    char bar[32];
    for (int i = 0; i < width; i++)
        bar[i] = i < fill ? '=' : i == fill ? '>' : ' ';
    bar[width] = '\0';
    char ci[32];
    if (isfinite(ci_rel))
        snprintf(ci, sizeof ci, "CI +-%.2f%%", ci_rel * 100);
    else
        snprintf(ci, sizeof ci, "CI pending");
    fprintf(stderr,
            "\rbatch %lld [%s] %lld iterations, %.1f s, %s (target "
            "%.2f%%)\033[K",
            (long long)batch, bar, (long long)iters, (double)elapsed_ns / 1e9,
            ci, ps->target * 100);
    fflush(stderr);
}

/* The same for runs over K processes: which round, of how many. */
static void progress_rounds(void *user, size_t round, size_t rounds,
                            int64_t elapsed_ns)
{
    progress_state *ps = user;
    mb_cli_rounds r = {ps->start, ps->last, 500000000LL, 0};
    mb_cli_rounds_progress(&r, "run", round, rounds, elapsed_ns);
    ps->last = r.last;
    ps->shown |= r.shown;
}

enum { O_HIST };

static const mb_opt run_opts[] = {
    {"histogram", 0, MB_OPT_SWITCH, NULL,
     "terminal histogram of each latency distribution", NULL, NULL, 0, 0, 0,
     O_HIST},
};

const mb_cmd mb_cmd_run = {
    "run",
    "MODEL",
    "benchmark one model: latency, throughput, memory",
    "Benchmarks MODEL (an ONNX file) and prints latency percentiles with a "
    "95% CI of the median, throughput, memory and phase times, one row per "
    "batch size.",
    run_opts,
    sizeof run_opts / sizeof run_opts[0],
    MB_OPTSET_RUN | MB_OPTSET_OUTPUT,
    1,
    1,
    "Exit codes: 0 success, 1 leak suspected (--leak-check), 2 usage error, "
    "3 runtime error, 130 interrupted."};

static int on_opt(void *user, const mb_opt *o, const mb_optval *v)
{
    (void)v;
    if (o->id == O_HIST)
        *(int *)user = 1;
    return 0;
}

int cmd_run(int argc, char **argv)
{
    mb_plan plan;
    mb__plan_defaults(&plan);
    mb_cli_outputs out = {0};
    int hist = 0, quiet, rc = MB_EXIT_OK;
    mb_opt_ctx ctx = {&plan, &out, on_opt, &hist, 0, NULL, 0};
    rc = mb_opt_parse(&mb_cmd_run, argc, argv, &ctx);
    if (rc) {
        rc = rc == MB_OPT_HELP ? MB_EXIT_OK : rc;
        goto done;
    }
    quiet = ctx.quiet;
    plan.model_path = strdup(ctx.args[0]);
    plan.cancel = &interrupted;
    if (hist)
        plan.save_samples = 1;
    struct sigaction sa = {0};
    sa.sa_handler = on_sigint;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    progress_state ps = {mb_now_ns(), 0, 0, plan.target_ci};
    if (isatty(2)) {
        plan.progress = progress;
        plan.progress_rounds = progress_rounds;
        plan.progress_user = &ps;
    }
    json_t *doc = NULL;
    mb_err err = {0};
    mb_status st = mb__run_plan(&plan, &doc, &err);
    if (ps.shown)
        fprintf(stderr, "\r\033[K");
    if (st) {
        rc = mb_cli_fail(&err);
        goto done;
    }
    json_object_set_new(doc, "command_line",
                        json_string(mb_cli_command_line()));
    if (!quiet) {
        mb_buf b = MB_BUF_INIT;
        mb_console_opts co = {mb_cli_term_width(1), mb_cli_use_color(1)};
        mb__report_console(doc, &co, &b);
        if (hist) {
            size_t i;
            json_t *run;
            json_array_foreach(json_object_get(doc, "runs"), i, run)
            {
                json_t *s = json_object_get(run, "samples_ns");
                size_t n = json_array_size(s);
                int64_t *v = calloc(n ? n : 1, sizeof *v);
                for (size_t k = 0; v && k < n; k++)
                    v[k] = json_integer_value(json_array_get(s, k));
                mb__buf_printf(&b, "\nbatch %lld latency distribution:\n",
                               (long long)json_integer_value(
                                   json_object_get(run, "batch_size")));
                if (v)
                    mb__report_term_histogram(v, n, co.width, co.color, &b);
                free(v);
            }
        }
        fwrite(b.data ? b.data : "", 1, b.len, stdout);
        mb__buf_free(&b);
    }
    rc = mb_cli_outputs_write(&out, doc);
    size_t i;
    json_t *run;
    json_array_foreach(
        json_object_get(doc, "runs"), i,
        run) if (!strcmp(json_string_value(json_object_get(run, "status")),
                         "failed") &&
                 !rc) rc =
        mb_cli_error(
            MB_EXIT_RUNTIME, "batch %lld failed: %s",
            (long long)json_integer_value(json_object_get(run, "batch_size")),
            json_string_value(json_object_get(run, "error")));
    /* --leak-check is a verdict: exit 1 when a leak is suspected. */
    json_array_foreach(json_object_get(doc, "runs"), i, run)
    {
        const json_t *leak =
            json_object_get(json_object_get(run, "memory"), "leak");
        if (!leak)
            continue;
        int sus = json_is_true(json_object_get(leak, "suspected"));
        fprintf(
            stderr,
            "leak check, batch %lld: %s (RSS slope %.1f bytes per "
            "iteration, growth %.0f bytes)\n",
            (long long)json_integer_value(json_object_get(run, "batch_size")),
            sus ? "LEAK SUSPECTED" : "no leak",
            json_number_value(json_object_get(leak, "slope_bytes_per_iter")),
            json_number_value(json_object_get(leak, "growth_bytes")));
        if (sus && !rc)
            rc = MB_EXIT_FAIL;
    }
    if (json_is_true(json_object_get(doc, "interrupted")) && !rc) {
        fprintf(stderr, "mbench: interrupted; the results above are what "
                        "finished\n");
        rc = MB_EXIT_INTERRUPTED;
    }
    json_decref(doc);
done:
    mb__plan_free(&plan);
    return rc;
}
