/* cmd_suite.c - mbench suite TASKS.csv: a table of tasks (commands on git
 * branches, or models) run into one result document (docs/EXEC.md).  The
 * engine is src/exec/suiterun.c; this file parses (the table below),
 * calls and prints. */
#include "cli.h"
#include "exec_util.h"
#include "opt.h"
#include "outputs.h"
#include "reqopt.h"
#include "slurmopt.h"

#include "exec/suite.h"
#include "exec/suiterun.h"
#include "report/execprint.h"
#include "report/suiterep.h"
#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

MBENCH_COMMAND(suite, cmd_suite, "run a CSV table of tasks across git branches")
MBENCH_OPTIONS(suite, mb_cmd_suite)

/* clang-format off */
enum { O_CMD, O_OUT, O_SKIP, O_TIMEOUT, O_COMPARE, O_INTERLEAVE, O_SHARD,
       O_REPO, O_FETCH, O_RUNS, O_WARM, O_SHELL, O_PREP, O_CLEAN, O_GPU, O_SEED,
       O_REQ, O_N };

#define S(n, s, t, m, h, e, lo, hi, f, i) {n, s, t, m, h, e, NULL, lo, hi, f, i}
static const mb__opt suite_opts[] = {
    S("command", 'c', MB_OPT_STRING, "TEMPLATE", "command of every task; {column}, {workdir}, {index}, {root}", NULL, 0, 0, 0, O_CMD),
    S("output", 'o', MB_OPT_OUTFILE, "FILE", "the same as --json: the result document (kind \"suite\")", NULL, 0, 0, MB_OPT_STDOUT, O_OUT),
    S("skip-failed", 0, MB_OPT_SWITCH, NULL, "record a failing task and go on (exit 0)", NULL, 0, 0, 0, O_SKIP),
    S("timeout", 0, MB_OPT_DURATION, "D", "kill a task run's process group after D", "a duration like 30m", 0, 0, 0, O_TIMEOUT),
    S("compare", 0, MB_OPT_SWITCH, NULL, "speedups of each branch against the first, per experiment; implies --interleave", NULL, 0, 0, 0, O_COMPARE),
    S("interleave", 0, MB_OPT_SWITCH, NULL, "measure the command tasks of each experiment together, in rounds (ABAB...); a shard takes whole experiments", NULL, 0, 0, 0, O_INTERLEAVE),
    S("shard", 0, MB_OPT_STRING, "I/N", "run only tasks whose 0-based index % N == I (with --compare: experiments)", "I/N with 0 <= I < N (0-based), e.g. 0/4", 0, 0, 0, O_SHARD),
    S("repo", 0, MB_OPT_DIR, "DIR", "the git repository of the branches (default .)", NULL, 0, 0, 0, O_REPO),
    S("fetch", 0, MB_OPT_SWITCH, NULL, "fetch branches that are not found locally or as origin/NAME (shallow or single-branch clones)", NULL, 0, 0, 0, O_FETCH),
    S("runs", 'r', MB_OPT_INT, "N", "measured runs per command task (default 1)", "a count >= 1", 1, 1000000, 0, O_RUNS),
    S("warmup", 'w', MB_OPT_INT, "N", "warmup runs per command task (default 0)", "a count >= 0", 0, 1000000, 0, O_WARM),
    S("shell", 0, MB_OPT_SWITCH, NULL, "run commands through /bin/sh -c", NULL, 0, 0, 0, O_SHELL),
    S("prepare", 0, MB_OPT_STRING, "CMD", "shell command before each run (in the worktree)", NULL, 0, 0, 0, O_PREP),
    S("cleanup", 0, MB_OPT_STRING, "CMD", "shell command after each run", NULL, 0, 0, 0, O_CLEAN),
    S("gpu-memory", 0, MB_OPT_SWITCH, NULL, "sample GPU memory through NVML (untested)", NULL, 0, 0, 0, O_GPU),
    S("seed", 0, MB_OPT_INT, "N", "bootstrap seed (default 42)", "a non-negative integer", 0, 9.2e18, 0, O_SEED),
    S("require", 0, MB_OPT_STRING, "EXPR", "a requirement on every task's results, e.g. speedup>=1.2, metric.hit_rate>=0.8 (repeatable)", NULL, 0, 0, MB_OPT_REPEAT, O_REQ),
    MB_SLURM_OPTS,
};
/* clang-format on */

const mb__cmd mb_cmd_suite = {
    "suite",
    "TASKS.csv",
    "run a CSV table of tasks across git branches",
    "Runs every task (row) of TASKS.csv and writes one result document.  "
    "Command tasks (columns such as branch, experiment, trainer, max_epochs, "
    "batch_size, overrides) run --command with {column} placeholders (or a "
    "'command' column) in a temporary git worktree of their branch.  Model "
    "tasks (model, backend, batch_size, options) run like 'mbench run'.  "
    "{root} in the template or a cell is the repository root (files that "
    "are not committed, such as checkpoints, are not in the worktrees).  "
    "--db stores each task's result as it finishes.  -q prints only the "
    "summary.",
    suite_opts,
    sizeof suite_opts / sizeof suite_opts[0],
    MB_OPTSET_OUTPUT,
    1,
    1,
    "Exit codes: 0 ok (or failures skipped), 2 usage or bad tasks file, 3 a "
    "task failed, 6 a --require requirement not met, 130 interrupted "
    "(finished tasks are written)."};

typedef struct sargs {
    mb__suite_opts so;
    mb__cli_outputs out; /* the shared output flags, -o as --json */
    const char *out_arg; /* -o as given ("-" for stdout) */
    int compare;
    mb__cli_execset es; /* --warmup, --runs, --seed, --require, ... */
    mb__cli_slurm sl;   /* --slurm and its options (cmd_slurm.c) */
} sargs;

static int on_opt(void *user, const mb__opt *o, const mb__optval *v)
{
    sargs *a = user;
    if (!mb_cli_slurm_opt(&a->sl, o, v))
        return 0;
    if (o->id == O_CMD)
        a->so.tmpl = v->text;
    else if (o->id == O_REPO)
        a->so.repo = v->text;
    else if (o->id == O_SKIP)
        a->so.skip_failed = 1;
    else if (o->id == O_COMPARE)
        a->compare = a->so.interleave = 1;
    else if (o->id == O_INTERLEAVE)
        a->so.interleave = 1;
    else if (o->id == O_FETCH)
        a->so.fetch = 1;
    else if (o->id == O_OUT) {
        a->out_arg = v->text;
        a->out.json = v->str;
    } else if (o->id == O_SHARD &&
               !mb__suite_parse_shard(v->text, &a->so.shard_i, &a->so.shard_n))
        return mb_cli_bad_value("--shard", v->text, o->expect);
    else
        return mb_cli_execset_opt(&a->es, o, v);
    return 0;
}

/* The suite's console (mb__suite_opts callbacks; user is the quiet flag):
 * each task as it starts and ends, and the warnings. */
static void task_start(void *user, size_t k, size_t selected, const char *name)
{
    if (!*(const int *)user)
        fprintf(stderr, "[%zu/%zu] running %s\n", k, selected, name);
}

static void task_done(void *user, size_t k, size_t selected, const json_t *r)
{
    mb__buf b = MB_BUF_INIT;
    if (!*(const int *)user)
        mb__suite_run_console(&b, k, selected, r);
    mb_cli_put(&b);
}

static void task_warn(void *user, const char *msg)
{
    (void)user;
    mb_cli_warn("%s", msg);
}

int cmd_suite(int argc, char **argv)
{
    sargs a = {.es = {.eo = &a.so.eo, .seed = 42}};
    mb__suite_opts *sop = &a.so;
    mb__suite_opts_defaults(sop);
    json_t *doc = NULL;
    mb_err err = {0};
    mb__buf b = MB_BUF_INIT;
    mb__opt_ctx ctx = {NULL, &a.out, on_opt, &a, 0, NULL, 0};
    /* argv as given, for --slurm (mb_opt_parse reorders argv) */
    char **given = calloc((size_t)argc + 1, sizeof *given);
    if (given)
        memcpy(given, argv, (size_t)argc * sizeof *argv);
    int rc = mb_opt_parse(&mb_cmd_suite, argc, argv, &ctx);
    if (rc) {
        rc = rc == MB_OPT_HELP ? MB_EXIT_OK : rc;
        goto done;
    }
    sop->tasks_path = ctx.args[0];
    sop->command_line = mb_cli_command_line();
    sop->eo.cancel = mb_cli_cancel_flag(0);
    sop->on_start = task_start;
    sop->on_run = task_done;
    sop->on_warn = task_warn;
    sop->user = &ctx.quiet;
    mb_cli_execset_gpu(&a.es);
    /* each task is stored as it finishes, so not the document again */
    const char *db = a.out.db;
    a.out.db = NULL;
    if (db && mb__store_open(db, &sop->store, &err) != MB_OK) {
        rc = mb_cli_error(MB_EXIT_RUNTIME, "--db: %s", err.msg);
        goto done;
    }
    mb__suite_result res;
    mb_status st = MB_OK;
    if (a.sl.on) {
        rc = given ? mb_cli_suite_slurm(&a.sl, &mb_cmd_suite, argc, given, sop,
                                        ctx.quiet, &doc, &res)
                   : MB_EXIT_RUNTIME;
        if (!doc)
            goto done;
        res.stopped = MB_OK;
    } else
        st = mb__suite_run(sop, &doc, &res, &err);
    if (!doc) {
        rc = mb_cli_error(st == MB_EIO ? MB_EXIT_RUNTIME : MB_EXIT_USAGE, "%s",
                          err.msg);
        goto done;
    }
    if (res.stopped)
        mb_cli_error(MB_EXIT_RUNTIME, "%s", err.msg);
    if (a.compare) {
        json_t *cmp = mb__suite_comparison(json_object_get(doc, "runs"),
                                           (uint64_t)a.es.seed);
        mb__suite_comparison_console(&b, cmp);
        json_object_set_new(doc, "comparison", cmp);
    }
    mb__suite_summary_console(&b, res.ran, res.selected, sop->shard_n > 1,
                              res.failed, res.interrupted);
    mb_cli_put(&b);
    int req_rc =
        res.interrupted ? 0 : mb_cli_reqs_judge(&a.es.reqs, doc, NULL, stdout);
    rc = mb_cli_outputs_write(&a.out, doc);
    if (a.out.json && !rc && !ctx.quiet)
        printf("wrote %s\n", a.out_arg ? a.out_arg : a.out.json);
    if (res.interrupted)
        rc = mb_cli_error(mb_cli_interrupted_exit(),
                          "interrupted; the finished tasks were %s",
                          a.out.json ? "written" : "printed");
    else if (res.failed && !sop->skip_failed)
        rc = MB_EXIT_RUNTIME;
    rc = mb_cli_reqs_exit(rc, req_rc);
done:
    free(given);
    mb_cli_slurm_free(&a.sl);
    mb__store_close(sop->store);
    mb_cli_execset_free(&a.es);
    json_decref(doc);
    return rc;
}
