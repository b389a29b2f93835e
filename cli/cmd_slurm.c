/* cmd_slurm.c - a suite, compare or run on Slurm: `suite|compare|run
 * --slurm` (submit, follow, collect) and `mbench slurm
 * status|collect|resume|cancel DIR` to go on later (docs/SCALE.md).  The
 * driver is src/exec/slurm*.c, the merging exec/merge.c, the console lines
 * report/slurmrep.c; this file parses, calls and prints. */
#include "cli.h"
#include "exec_util.h"
#include "opt.h"
#include "outputs.h"
#include "slurmopt.h"

#include "core/buf.h"
#include "exec/merge.h"
#include "exec/slurm.h"
#include "exec/suite.h"
#include "report/console.h"
#include "report/execprint.h"
#include "report/rutil.h"
#include "report/slurmrep.h"
#include "report/suiterep.h"
#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

MBENCH_COMMAND(slurm, cmd_slurm,
               "follow, collect, resume or cancel a job sent to Slurm")
MBENCH_OPTIONS(slurm, mb_cmd_slurm)

int cmd_suite(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_run(int argc, char **argv);

enum { O_COMPARE = 1, O_SEED, O_NOWAIT, O_POLL };
static const mb__opt slurm_opts[] = {
    {.name = "compare",
     .type = MB_OPT_SWITCH,
     .id = O_COMPARE,
     .help = "collect, resume: add the speedup table of 'suite --compare'"},
    {.name = "seed",
     .type = MB_OPT_INT,
     .metavar = "N",
     .id = O_SEED,
     .help = "bootstrap seed for --compare (default 42)",
     .expect = "a non-negative integer",
     .hi = 9.2e18},
    {.name = "no-wait",
     .type = MB_OPT_SWITCH,
     .id = O_NOWAIT,
     .help = "collect: merge what has finished now; resume: return once "
             "resubmitted"},
    {.name = "poll",
     .type = MB_OPT_DURATION,
     .metavar = "D",
     .id = O_POLL,
     .help = "the longest wait between two looks at the queue (default "
             "30s; the first after 1 s, then 1.5 times longer)"},
};

const mb__cmd mb_cmd_slurm = {
    "slurm",
    "status|collect|resume|cancel DIR",
    "follow, collect, resume or cancel a job sent to Slurm",
    "Works on the job directory DIR of 'mbench suite|compare|run --slurm' "
    "(its --slurm-dir).  status: one look at the tasks (state, Slurm's "
    "restart count, node, job id, why a task failed).  collect: waits for "
    "the tasks, stores each in --db as it finishes, merges their documents "
    "and writes the outputs.  resume: resubmits only the tasks that failed, "
    "timed out, were cancelled, lost or on a failed node (refused while "
    "Slurm still holds a task), then collects.  cancel: scancel of the "
    "job's arrays.  ('task' is what each array task runs.)",
    slurm_opts,
    sizeof slurm_opts / sizeof slurm_opts[0],
    MB_OPTSET_OUTPUT,
    2,
    2,
    "Exit codes: 0 ok, 2 usage or not a job directory, 3 a task did not "
    "finish, Slurm failed or slurmctld does not answer, 130 interrupted "
    "(the tasks keep running unless cancelled)."};

/* ---- mbench slurm SUB DIR ---- */

/* Inside an array task: the job's command, then its completion record. */
static int task_main(const char *dir)
{
    double start = (double)time(NULL);
    const char *id = getenv("SLURM_ARRAY_TASK_ID");
    char *end = NULL;
    long long k = id ? strtoll(id, &end, 10) : -1;
    mb__slurm_job *j = NULL;
    mb_err err = {0};
    if (k < 0 || !end || *end)
        return mb_cli_error(MB_EXIT_USAGE, "'mbench slurm task' runs inside a "
                                           "Slurm array task "
                                           "(SLURM_ARRAY_TASK_ID is not set): "
                                           "it is what --slurm submits");
    if (mb__slurm_open(dir, &j, &err))
        return mb_cli_fail(&err);
    json_t *av = (size_t)k < j->n ? mb__slurm_task_argv(j, (size_t)k) : NULL;
    if (av && mb__slurm_task_begin(j, (size_t)k, &err))
        mb_cli_warn("%s", err.msg);
    const char *kind = json_string_value(json_array_get(av, 0));
    int (*fn)(int, char **) = !kind                      ? NULL
                              : !strcmp(kind, "suite")   ? cmd_suite
                              : !strcmp(kind, "compare") ? cmd_compare
                              : !strcmp(kind, "run")     ? cmd_run
                                                         : NULL;
    size_t n = json_array_size(av);
    char **v = fn ? calloc(n + 1, sizeof *v) : NULL;
    int rc = !fn  ? mb_cli_error(MB_EXIT_USAGE,
                                 "%s: array task %lld is not a "
                                  "task of its suite, compare or "
                                  "run job",
                                 dir, k)
             : !v ? mb_cli_error(MB_EXIT_RUNTIME, "out of memory")
                  : 0;
    for (size_t i = 0; v && i < n; i++)
        v[i] = (char *)json_string_value(json_array_get(av, i));
    if (v) {
        mb_cli_set_command_line((int)n, v);
        rc = fn((int)n, v);
        fflush(stdout);
        if (mb__slurm_write_record(j->dir, (size_t)k, rc, start, &err))
            rc = mb_cli_fail(&err);
    }
    free(v);
    json_decref(av);
    mb__slurm_free(j);
    return rc;
}

typedef struct {
    int compare, no_wait;
    int64_t seed;
    double poll_max_s;
} slurm_args;

static int on_opt(void *user, const mb__opt *o, const mb__optval *v)
{
    slurm_args *a = user;
    a->compare |= o->id == O_COMPARE;
    a->no_wait |= o->id == O_NOWAIT;
    a->seed = o->id == O_SEED ? v->i : a->seed;
    a->poll_max_s = o->id == O_POLL ? (double)v->i * 1e-9 : a->poll_max_s;
    return 0;
}

/* collect (and resume): follow, merge, print, write the outputs. */
static int collect(mb__slurm_job *j, const slurm_args *a, mb__cli_outputs *out,
                   int quiet)
{
    mb__store *store = NULL;
    mb_err err = {0};
    const char *kind = json_string_value(
        json_array_get(json_object_get(j->manifest, "argv"), 0));
    int suite = kind && !strcmp(kind, "suite");
    if (suite && out->db && mb__store_open(out->db, &store, &err))
        return mb_cli_error(MB_EXIT_RUNTIME, "--db: %s", err.msg);
    if (suite)
        out->db = NULL; /* each task is stored as collected */
    int rc = mb_cli_slurm_follow(j, store, quiet, a->no_wait, a->poll_max_s);
    json_t *doc = NULL;
    size_t ran = 0;
    mb__slurm_counts c;
    mb__slurm_count(j, &c);
    if (!rc && a->no_wait && c.done + mb__slurm_unfinished(j) == 0) {
        fprintf(stderr,
                "nothing has finished yet (%zu task(s) pending or "
                "running): 'mbench slurm collect %s' waits for them\n",
                c.pending + c.running, j->dir);
        mb__store_close(store);
        return 0;
    }
    mb_status st = rc      ? MB_OK
                   : suite ? mb__slurm_merge_suite(j, &doc, &ran, &err)
                           : mb__slurm_merge_batches(j, &doc, &err);
    rc = st ? mb_cli_fail(&err) : rc;
    mb__buf b = MB_BUF_INIT;
    mb__console_opts co = {mb_cli_term_width(1), mb_cli_use_color(1)};
    if (doc && suite && a->compare) {
        json_t *cmp = mb__suite_comparison(json_object_get(doc, "runs"),
                                           (uint64_t)a->seed);
        mb__suite_comparison_console(&b, cmp);
        json_object_set_new(doc, "comparison", cmp);
    }
    /* a task still held by Slurm has not failed (collect --no-wait) */
    size_t open = c.pending + c.running, ended_bad = mb__slurm_unfinished(j);
    if (doc && suite)
        mb__suite_summary_console(&b, ran, j->n, 0, ended_bad, 0);
    if (doc && !quiet)
        mb__slurm_counts_console(&b, &c, j->n);
    else if (doc && !quiet && !strcmp(mb__jstr(doc, "kind"), "compare"))
        mb__report_compare_console(doc, &co, &b);
    else if (doc && !quiet)
        mb__report_console(doc, &co, &b);
    mb_cli_put(&b);
    if (doc)
        rc = mb_cli_outputs_write(out, doc);
    if (doc && !rc && open)
        fprintf(stderr,
                "%zu task(s) still pending or running: 'mbench slurm "
                "collect %s' again collects them\n",
                open, j->dir);
    if (doc && !rc && ended_bad)
        rc = mb_cli_slurm_unfinished(j);
    json_decref(doc);
    mb__store_close(store);
    return rc;
}

int cmd_slurm(int argc, char **argv)
{
    slurm_args a = {0, 0, 42, 0};
    mb__cli_outputs out = {0};
    mb__opt_ctx ctx = {NULL, &out, on_opt, &a, 0, NULL, 0};
    int rc = mb_opt_parse(&mb_cmd_slurm, argc, argv, &ctx);
    if (rc)
        return rc == MB_OPT_HELP ? MB_EXIT_OK : rc;
    const char *sub = ctx.args[0], *dir = ctx.args[1];
    if (!strcmp(sub, "task"))
        return task_main(dir);
    if (strcmp(sub, "status") && strcmp(sub, "collect") &&
        strcmp(sub, "resume") && strcmp(sub, "cancel"))
        return mb_cli_error(MB_EXIT_USAGE,
                            "unknown 'mbench slurm %s': use "
                            "status, collect, resume or cancel",
                            sub);
    mb__slurm_job *j = NULL;
    mb_err err = {0};
    char jobid[64];
    size_t n = 0;
    mb__buf b = MB_BUF_INIT;
    if (mb__slurm_open(dir, &j, &err))
        return mb_cli_error(MB_EXIT_USAGE, "%s", err.msg);
    if (!strcmp(sub, "status")) {
        if (mb__slurm_poll(j, &err))
            rc = mb_cli_error(MB_EXIT_RUNTIME,
                              "%s: slurmctld does not "
                              "answer; the job directory %s "
                              "keeps the tasks' state",
                              err.msg, j->dir);
        else
            mb__slurm_status_console(&b, j);
        mb_cli_put(&b);
    } else if (!strcmp(sub, "cancel")) {
        rc = mb__slurm_cancel(j, &n, &err) ? mb_cli_fail(&err) : 0;
        if (!rc && !ctx.quiet && n)
            printf("cancelled the %zu job(s) of %s\n", n, j->dir);
        else if (!rc && !ctx.quiet)
            printf("nothing to cancel: %s was never submitted\n", j->dir);
    } else if (!strcmp(sub, "resume")) {
        mb_status st = mb__slurm_resume(j, &n, jobid, &err);
        rc =
            st ? mb_cli_error(st == MB_EINVAL ? MB_EXIT_USAGE : MB_EXIT_RUNTIME,
                              "%s", err.msg)
               : 0;
        if (!rc && !ctx.quiet && n)
            fprintf(stderr, "resubmitted %zu task(s) as job %s\n", n, jobid);
        else if (!rc && !ctx.quiet)
            fprintf(stderr,
                    "every task of %s has finished: nothing to "
                    "resubmit\n",
                    j->dir);
        if (!rc && !a.no_wait)
            rc = collect(j, &a, &out, ctx.quiet);
    } else
        rc = collect(j, &a, &out, ctx.quiet);
    mb__slurm_free(j);
    return rc;
}
