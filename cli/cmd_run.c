/* cmd_run.c - mbench run: benchmark one model on one backend.  Parses the
 * options (the run and output sets, --histogram), calls the runner
 * (runner/runner.h), prints the table (report/console.h) and what
 * report/runtext.h reads from the document, and maps its outcome to an
 * exit code. */
#include "cli.h"
#include "exec_util.h"
#include "opt.h"
#include "outputs.h"
#include "slurmopt.h"

#include "core/buf.h"
#include "core/clock.h"
#include "report/console.h"
#include "report/runtext.h"
#include "runner/runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

MBENCH_COMMAND(run, cmd_run, "benchmark one model: latency, throughput, memory")
MBENCH_OPTIONS(run, mb_cmd_run)

/* The progress line on stderr, only on a terminal: one process, after a
 * second (runtext.h draws it), or K processes, after half a second
 * (exec_util.h); redrawn at most ten times a second. */
typedef struct {
    mb__cli_rounds r;
    double target;
} progress_state;

static void progress(void *user, int64_t batch, int64_t iters,
                     int64_t elapsed_ns, double ci_rel)
{
    progress_state *ps = user;
    int64_t now = mb_now_ns();
    if (now - ps->r.start < 1000000000LL || now - ps->r.last < 100000000LL)
        return;
    ps->r.last = now;
    ps->r.shown = 1;
    char line[256];
    mb__run_progress_line(line, sizeof line, batch, iters, elapsed_ns, ci_rel,
                          ps->target);
    fputs(line, stderr);
    fflush(stderr);
}

static void progress_rounds(void *user, size_t round, size_t rounds,
                            int64_t elapsed_ns)
{
    progress_state *ps = user;
    mb_cli_rounds_progress(&ps->r, "run", round, rounds, elapsed_ns);
}

/* clang-format off */
static const mb__opt run_opts[] = {
    {.name = "histogram", .type = MB_OPT_SWITCH, .help = "terminal histogram of each latency distribution"},
    MB_SLURM_OPTS,
};

const mb__cmd mb_cmd_run = {"run", "MODEL", "benchmark one model: latency, throughput, memory",
    "Benchmarks MODEL (an ONNX file) and prints latency percentiles with a 95% CI of the median, "
    "throughput, memory and phase times, one row per batch size.",
    run_opts, sizeof run_opts / sizeof run_opts[0], MB_OPTSET_RUN | MB_OPTSET_OUTPUT, 1, 1,
    "Exit codes: 0 success, 1 leak suspected (--leak-check), 2 usage error, 3 runtime error, "
    "130 interrupted."};
/* clang-format on */

typedef struct {
    int hist;
    mb__cli_slurm sl; /* --slurm and its options (cmd_slurm.c) */
} run_args;

static int on_opt(void *user, const mb__opt *o, const mb__optval *v)
{
    run_args *a = user;
    if (mb_cli_slurm_opt(&a->sl, o, v))
        a->hist = 1; /* --histogram */
    return 0;
}

/* Prints doc's table (and histograms), writes the outputs and returns the
 * exit code of its outcome: an error first, then a leak, then Ctrl-C. */
static int report(json_t *doc, const mb__cli_outputs *out, int hist, int quiet)
{
    json_object_set_new(doc, "command_line",
                        json_string(mb_cli_command_line()));
    mb__buf b = MB_BUF_INIT, notes = MB_BUF_INIT;
    mb__console_opts co = {mb_cli_term_width(1), mb_cli_use_color(1)};
    if (!quiet)
        mb__report_console(doc, &co, &b);
    if (!quiet && hist)
        mb__report_run_histograms(doc, &co, &b);
    fwrite(b.data ? b.data : "", 1, b.len, stdout);
    int rc = mb_cli_outputs_write(out, doc);
    mb__run_outcome oc;
    mb_err failure = {0};
    mb__run_outcome_of(doc, &oc, &failure, &notes);
    if (quiet && !oc.failed) /* the table is not there to list them */
        mb_cli_doc_warnings(doc);
    if (oc.failed && !rc)
        rc = mb_cli_error(MB_EXIT_RUNTIME, "%s", failure.msg);
    fwrite(notes.data ? notes.data : "", 1, notes.len, stderr);
    if (oc.leak && !rc) /* --leak-check is a verdict */
        rc = MB_EXIT_FAIL;
    if (oc.interrupted && !rc) {
        fprintf(stderr, "mbench: interrupted; the results above are what "
                        "finished\n");
        rc = mb_cli_interrupted_exit();
    }
    mb__buf_free(&b);
    mb__buf_free(&notes);
    return rc;
}

int cmd_run(int argc, char **argv)
{
    mb__plan plan;
    mb__plan_defaults(&plan);
    mb__cli_outputs out = {0};
    run_args a = {0};
    json_t *doc = NULL;
    mb_err err = {0};
    mb__opt_ctx ctx = {&plan, &out, on_opt, &a, 0, NULL, 0};
    /* argv as given, for --slurm (mb_opt_parse reorders argv) */
    char **given = calloc((size_t)argc + 1, sizeof *given);
    if (given)
        memcpy(given, argv, (size_t)argc * sizeof *argv);
    int rc = mb_opt_parse(&mb_cmd_run, argc, argv, &ctx);
    int hist = a.hist;
    if (rc == 0 && a.sl.on) {
        rc = given ? mb_cli_batch_slurm(&a.sl, &mb_cmd_run, argc, given, &plan,
                                        ctx.quiet, &doc)
                   : MB_EXIT_RUNTIME;
        if (doc) {
            int r2 = report(doc, &out, hist, ctx.quiet);
            rc = r2 ? r2 : rc;
        }
    } else if (rc == 0) {
        plan.model_path = strdup(ctx.args[0]);
        plan.cancel = mb_cli_cancel_flag(1);
        if (hist)
            plan.save_samples = 1;
        progress_state ps = {{mb_now_ns(), 0, 500000000LL, 0}, plan.target_ci};
        if (isatty(2)) {
            plan.progress = progress;
            plan.progress_rounds = progress_rounds;
            plan.progress_user = &ps;
        }
        mb_status st = mb__run_plan(&plan, &doc, &err);
        if (ps.r.shown)
            fprintf(stderr, "\r\033[K");
        rc = st ? mb_cli_fail(&err) : report(doc, &out, hist, ctx.quiet);
    }
    json_decref(doc);
    mb_cli_slurm_free(&a.sl);
    free(given);
    mb__plan_free(&plan);
    return rc == MB_OPT_HELP ? MB_EXIT_OK : rc;
}
