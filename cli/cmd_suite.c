/* cmd_suite.c - mbench suite TASKS.csv: a table of tasks (commands on git
 * branches, or models) run into one result document (docs/EXEC.md).  The
 * engine is src/exec/suiterun.c; this file parses (the table below),
 * calls and prints. */
#include "cli.h"
#include "exec_util.h"
#include "opt.h"
#include "outputs.h"
#include "reqopt.h"

#include "exec/nvml.h"
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
enum { O_CMD, O_OUT, O_MD, O_HTML, O_CSV, O_SKIP, O_TIMEOUT, O_COMPARE,
       O_SHARD, O_REPO, O_FETCH, O_DB, O_RUNS, O_WARM, O_SHELL, O_PREP,
       O_CLEAN, O_GPU, O_SEED, O_REQ, O_N };

#define S(n, s, t, m, h, e, lo, hi, f, i) {n, s, t, m, h, e, NULL, lo, hi, f, i}
static const mb_opt suite_opts[] = {
    S("command", 'c', MB_OPT_STRING, "TEMPLATE", "command of every task; {column}, {workdir}, {index}, {root}", NULL, 0, 0, 0, O_CMD),
    S("output", 'o', MB_OPT_OUTFILE, "FILE", "write the result document (kind \"suite\"; '-' is stdout)", NULL, 0, 0, MB_OPT_STDOUT, O_OUT),
    S("json", 0, MB_OPT_OUTFILE, "FILE", "the same as --output", NULL, 0, 0, MB_OPT_STDOUT, O_OUT),
    S("md", 0, MB_OPT_OUTFILE, "FILE", "a Markdown report of the suite document", NULL, 0, 0, 0, O_MD),
    S("html", 0, MB_OPT_OUTFILE, "FILE", "an HTML report of the suite document", NULL, 0, 0, 0, O_HTML),
    S("csv", 0, MB_OPT_OUTFILE, "FILE", "a CSV table of the suite document", NULL, 0, 0, 0, O_CSV),
    S("skip-failed", 0, MB_OPT_SWITCH, NULL, "record a failing task and go on (exit 0)", NULL, 0, 0, 0, O_SKIP),
    S("timeout", 0, MB_OPT_DURATION, "D", "kill a task run's process group after D", "a duration like 30m", 0, 0, 0, O_TIMEOUT),
    S("compare", 0, MB_OPT_SWITCH, NULL, "speedups of each branch against the first, per experiment", NULL, 0, 0, 0, O_COMPARE),
    S("shard", 0, MB_OPT_STRING, "I/N", "run only tasks whose 0-based index % N == I", "I/N with 0 <= I < N (0-based), e.g. 0/4", 0, 0, 0, O_SHARD),
    S("repo", 0, MB_OPT_DIR, "DIR", "the git repository of the branches (default .)", NULL, 0, 0, 0, O_REPO),
    S("fetch", 0, MB_OPT_SWITCH, NULL, "fetch branches that are not found locally or as origin/NAME (shallow or single-branch clones)", NULL, 0, 0, 0, O_FETCH),
    S("db", 0, MB_OPT_STRING, "URL|FILE", "also store each task's result (SQLite file or postgresql:// URL)", NULL, 0, 0, 0, O_DB),
    S("runs", 'r', MB_OPT_INT, "N", "measured runs per command task (default 1)", "a count >= 1", 1, 1000000, 0, O_RUNS),
    S("warmup", 'w', MB_OPT_INT, "N", "warmup runs per command task (default 0)", "a count >= 0", 0, 1000000, 0, O_WARM),
    S("shell", 0, MB_OPT_SWITCH, NULL, "run commands through /bin/sh -c", NULL, 0, 0, 0, O_SHELL),
    S("prepare", 0, MB_OPT_STRING, "CMD", "shell command before each run (in the worktree)", NULL, 0, 0, 0, O_PREP),
    S("cleanup", 0, MB_OPT_STRING, "CMD", "shell command after each run", NULL, 0, 0, 0, O_CLEAN),
    S("gpu-memory", 0, MB_OPT_SWITCH, NULL, "sample GPU memory through NVML (untested)", NULL, 0, 0, 0, O_GPU),
    S("seed", 0, MB_OPT_INT, "N", "bootstrap seed (default 42)", "a non-negative integer", 0, 9.2e18, 0, O_SEED),
    S("require", 0, MB_OPT_STRING, "EXPR", "a requirement on every task's results, e.g. speedup>=1.2, metric.hit_rate>=0.8 (repeatable)", NULL, 0, 0, MB_OPT_REPEAT, O_REQ),
};
/* clang-format on */

const mb_cmd mb_cmd_suite = {
    "suite",
    "TASKS.csv",
    "run a CSV table of tasks across git branches",
    "Runs every task (row) of TASKS.csv and writes one result document.  "
    "Command tasks (columns such as branch, experiment, trainer, max_epochs, "
    "batch_size, overrides) run --command with {column} placeholders (or a "
    "'command' column) in a temporary git worktree of their branch.  Model "
    "tasks (model, backend, batch_size, options) run like 'mbench run'.  "
    "{root} in the template or a cell is the repository root (files that "
    "are not committed, such as checkpoints, are not in the worktrees).  -q "
    "prints only the summary.",
    suite_opts,
    sizeof suite_opts / sizeof suite_opts[0],
    0,
    1,
    1,
    "Exit codes: 0 ok (or failures skipped), 2 usage or bad tasks file, 3 a "
    "task failed, 6 a --require requirement not met, 130 interrupted "
    "(finished tasks are written)."};

typedef struct sargs {
    mb_suite_opts so;
    const char *out_arg, *db;
    int compare;
    mb_cli_outputs rep; /* -o (json), --md, --html, --csv */
    mb_cli_execset es;  /* --warmup, --runs, --seed, --require, ... */
} sargs;

static int on_opt(void *user, const mb_opt *o, const mb_optval *v)
{
    sargs *a = user;
    const char **const strs[O_N] = {[O_CMD] = &a->so.tmpl,
                                    [O_MD] = &a->rep.md,
                                    [O_HTML] = &a->rep.html,
                                    [O_CSV] = &a->rep.csv,
                                    [O_REPO] = &a->so.repo};
    int *const flags[O_N] = {[O_SKIP] = &a->so.skip_failed,
                             [O_COMPARE] = &a->compare,
                             [O_FETCH] = &a->so.fetch};
    if (strs[o->id])
        *strs[o->id] = v->text;
    else if (flags[o->id])
        *flags[o->id] = 1;
    else if (o->id == O_OUT) {
        a->out_arg = v->text;
        a->rep.json = v->str;
    } else if (o->id == O_SHARD &&
               mb__suite_parse_shard(v->text, &a->so.shard_i, &a->so.shard_n))
        return mb_cli_bad_value("--shard", v->text, o->expect);
    else if (o->id == O_DB) { /* a store file is checked now, not later */
        a->db = v->text;
        return strstr(a->db, "://") ? 0 : mb_cli_output_check("--db", a->db);
    } else
        return mb_cli_execset_opt(&a->es, o, v);
    return 0;
}

int cmd_suite(int argc, char **argv)
{
    sargs a = {.es = {.eo = &a.so.eo, .seed = 42}};
    mb_suite_opts *sop = &a.so;
    mb__suite_opts_defaults(sop);
    json_t *doc = NULL;
    mb_err err = {0};
    mb_buf b = MB_BUF_INIT;
    mb_opt_ctx ctx = {NULL, NULL, on_opt, &a, 0, NULL, 0};
    int rc = mb_opt_parse(&mb_cmd_suite, argc, argv, &ctx);
    if (rc) {
        rc = rc == MB_OPT_HELP ? MB_EXIT_OK : rc;
        goto done;
    }
    sop->tasks_path = ctx.args[0];
    sop->command_line = mb_cli_command_line();
    sop->eo.cancel = mb_cli_cancel_flag(0);
    mb_cli_suite_console(sop, &ctx.quiet);
    if (sop->eo.gpu_memory && mb__nvml_open(&sop->eo.nvml, &err) != MB_OK)
        mb_cli_warn("%s", err.msg);
    if (a.db && mb__store_open(a.db, &sop->store, &err) != MB_OK) {
        rc = mb_cli_error(MB_EXIT_RUNTIME, "--db: %s", err.msg);
        goto done;
    }
    mb_suite_result res;
    mb_status st = mb__suite_run(sop, &doc, &res, &err);
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
    rc = mb_cli_outputs_write(&a.rep, doc);
    if (a.rep.json && !rc && !ctx.quiet)
        printf("wrote %s\n", a.out_arg);
    if (res.interrupted)
        rc = mb_cli_error(MB_EXIT_INTERRUPTED,
                          "interrupted; the finished tasks were %s",
                          a.rep.json ? "written" : "printed");
    else if (res.failed && !sop->skip_failed)
        rc = MB_EXIT_RUNTIME;
    rc = mb_cli_reqs_exit(rc, req_rc);
done:
    mb__store_close(sop->store);
    mb_cli_execset_free(&a.es);
    json_decref(doc);
    return rc;
}
