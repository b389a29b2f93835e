/* slurmopt.c - `suite|compare|run --slurm` (slurmopt.h): the options into
 * an mb__slurm_opts, the command line the tasks run, submitting, and
 * following a job with the console lines of report/slurmrep.c (also for
 * `mbench slurm`, cmd_slurm.c). */
#include "slurmopt.h"

#include "cli.h"
#include "exec_util.h"

#include "core/buf.h"
#include "exec/merge.h"
#include "exec/slurm.h"
#include "exec/tasks.h"
#include "report/slurmrep.h"
#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- the options of `suite|compare|run --slurm` ---- */

int mb_cli_slurm_opt(mb__cli_slurm *s, const mb__opt *o, const mb__optval *v)
{
    mb__slurm_opts *p = &s->opts;
    if (o->id < MB_SLURM_OPT_BASE || o->id >= MB_SO_END)
        return 1;
    if (!s->sbatch)
        s->sbatch = json_array();
    p->sbatch = s->sbatch;
    switch ((mb__slurm_opt_id)o->id) {
    case MB_SO_SLURM:
        s->on = 1;
        break;
    case MB_SO_NO_WAIT:
        s->no_wait = 1;
        break;
    case MB_SO_DIR:
        s->dir = v->text;
        break;
    case MB_SO_RESUME:
        s->resume = 1;
        break;
    case MB_SO_PARTITION:
        p->partition = v->text;
        break;
    case MB_SO_ACCOUNT:
        p->account = v->text;
        break;
    case MB_SO_TIME: /* minutes, rounded up */
        p->time_min = (v->i + 59999999999LL) / 60000000000LL;
        break;
    case MB_SO_CPUS:
        p->cpus = v->i;
        break;
    case MB_SO_MEM:
        p->mem = v->text;
        break;
    case MB_SO_EXCLUSIVE:
        p->exclusive = 1;
        break;
    case MB_SO_SBATCH:
        json_array_append_new(s->sbatch, json_string(v->text));
        break;
    case MB_SO_THROTTLE:
        p->throttle = v->i;
        break;
    case MB_SO_CONSTRAINT:
        p->constraint = v->text;
        break;
    case MB_SO_JOB_NAME:
        p->job_name = v->text;
        break;
    case MB_SO_LOG_DIR:
        p->log_dir = v->text;
        break;
    case MB_SO_SHARE:
        p->shared = 1;
        break;
    case MB_SO_POLL:
        s->poll_max_s = (double)v->i * 1e-9;
        break;
    case MB_SO_END:
        return 1;
    }
    return 0;
}

void mb_cli_slurm_free(mb__cli_slurm *s)
{
    json_decref(s->sbatch);
    s->sbatch = NULL;
}

/* ---- following a job: the hooks print ---- */

typedef struct {
    int quiet, shown;
} follow_state;

static void on_task_end(void *user, const mb__slurm_job *j, size_t k,
                        size_t finished)
{
    follow_state *f = user;
    mb__buf b = MB_BUF_INIT;
    if (f->shown)
        mb__buf_putc(&b, '\n');
    f->shown = 0;
    mb__slurm_task_console(&b, j, k, finished, f->quiet);
    fputs(b.data ? b.data : "", stderr);
    mb__buf_free(&b);
}

static void on_progress(void *user, const mb__slurm_job *j,
                        const mb__slurm_counts *c)
{
    follow_state *f = user;
    (void)j;
    if (f->quiet || !isatty(2))
        return;
    mb__buf b = MB_BUF_INIT;
    mb__slurm_progress_console(&b, c);
    fprintf(stderr, "\r%s", b.data ? b.data : "");
    mb__buf_free(&b);
    f->shown = 1;
}

static void on_warn(void *user, const char *msg)
{
    (void)user;
    mb_cli_warn("%s", msg);
}

/* Ctrl-C while following: offer to cancel the job (on a terminal). */
static int interrupted(const mb__slurm_job *j)
{
    char ans[16] = "";
    mb_err err = {0};
    size_t n;
    if (isatty(0) && isatty(2)) {
        fprintf(stderr,
                "\ninterrupted: cancel the Slurm job (scancel)? [y/N] ");
        if (!fgets(ans, sizeof ans, stdin))
            ans[0] = '\0';
    }
    if (ans[0] != 'y' && ans[0] != 'Y')
        fprintf(stderr,
                "interrupted: the tasks keep running; 'mbench slurm collect "
                "%s' collects them, 'mbench slurm cancel %s' cancels them\n",
                j->dir, j->dir);
    else if (mb__slurm_cancel(j, &n, &err))
        return mb_cli_fail(&err);
    else
        fprintf(stderr, "cancelled the job of %s\n", j->dir);
    return MB_EXIT_INTERRUPTED;
}

/* Follows (no_wait: one look) and stores; 0, or an exit code after
 * printing. */
int mb_cli_slurm_follow(mb__slurm_job *j, mb__store *store, int quiet,
                        int no_wait, double poll_max_s)
{
    follow_state f = {quiet, 0};
    mb__slurm_hooks h = {on_progress,           on_task_end, on_warn,   &f,
                         mb_cli_cancel_flag(0), 0,           poll_max_s};
    mb_err err = {0};
    mb_status st = no_wait ? mb__slurm_store_ended(j, store, &h, &err)
                           : mb__slurm_follow(j, store, &h, &err);
    if (f.shown)
        fputc('\n', stderr);
    if (st == MB_EINTERRUPTED)
        return interrupted(j);
    if (st == MB_EIO)
        return mb_cli_error(MB_EXIT_RUNTIME,
                            "%s: slurmctld does not answer, so the tasks "
                            "cannot be followed (they may still run); once it "
                            "is back, 'mbench slurm status %s' shows them and "
                            "'mbench slurm collect %s' collects them",
                            err.msg, j->dir, j->dir);
    return st ? mb_cli_fail(&err) : 0;
}

int mb_cli_slurm_unfinished(const mb__slurm_job *j)
{
    mb__buf b = MB_BUF_INIT;
    size_t bad = mb__slurm_unfinished_console(&b, j);
    fputs(b.data ? b.data : "", stderr);
    mb__buf_free(&b);
    return bad ? MB_EXIT_RUNTIME : 0;
}

/* ---- submitting ---- */

/* What the tasks run: the command line without the driver's options. */
typedef struct {
    const mb__cmd *cmd;
    const char *drop; /* and this one (compare, run: --batch) */
} keep_ctx;

static int keep_for_tasks(void *user, const mb__opt *o)
{
    static const char *const driver[] = {
        "json",    "db",      "md",    "html",  "csv", "outdir",
        "compare", "require", "quiet", "shard", NULL};
    const keep_ctx *c = user;
    if (o->id >= MB_SLURM_OPT_BASE && o->id < MB_SO_END)
        return 0;
    if (c->drop && !strcmp(o->name, c->drop))
        return 0;
    if (!strcmp(o->name, "output")) /* compare's is a tensor name */
        return strcmp(c->cmd->name, "suite") != 0;
    for (int i = 0; driver[i]; i++)
        if (!strcmp(o->name, driver[i]))
            return 0;
    return 1;
}

static json_t *task_argv(const mb__cmd *cmd, int argc, char **argv,
                         const char *drop)
{
    keep_ctx c = {cmd, drop};
    mb__opt_keep keep = {keep_for_tasks, &c};
    int n = 0;
    char **v = mb_opt_rewrite(cmd, argc, argv, &keep, &n);
    json_t *av = json_array();
    for (int i = 0; v && i < n; i++)
        json_array_append_new(av, json_string(v[i]));
    mb_opt_argv_free(v);
    return av;
}

/* Whether the array av holds the string w. */
static int has_word(const json_t *av, const char *w)
{
    size_t i;
    const json_t *v;
    json_array_foreach(av, i, v) if (!strcmp(json_string_value(v), w)) return 1;
    return 0;
}

/* Whether the job's tasks may share a node (--share-nodes). */
static int shares_nodes(const mb__slurm_job *j)
{
    size_t i;
    const json_t *w;
    json_array_foreach(json_object_get(j->manifest, "sbatch"), i, w)
    {
        if (!strcmp(json_string_value(w), "--oversubscribe"))
            return 1;
    }
    return 0;
}

/* Submits a new job (task_args: per task more options, or NULL), or with
 * --resume resubmits what did not finish; then follows unless --no-wait.
 * 0 with *j to collect, 1 when done (printed), else an exit code. */
static int submit(mb__cli_slurm *s, json_t *av, size_t n, const json_t *ta,
                  mb__store *store, int quiet, mb__slurm_job **j)
{
    mb_err err = {0};
    char jobid[64];
    mb__slurm_spec spec = {s->dir, av, n, &s->opts, NULL, NULL, ta};
    size_t k = n;
    if (s->resume && !s->dir)
        return mb_cli_error(MB_EXIT_USAGE, "--resume needs --slurm-dir DIR: "
                                           "the job directory to resume");
    mb_status st = s->resume ? mb__slurm_open(s->dir, j, &err)
                             : mb__slurm_start(&spec, j, jobid, &err);
    if (!st && s->resume)
        st = mb__slurm_resume(*j, &k, jobid, &err);
    if (st)
        return mb_cli_error(st == MB_EINVAL ? MB_EXIT_USAGE : MB_EXIT_RUNTIME,
                            "--slurm: %s", err.msg);
    const char *where = shares_nodes(*j)
                            ? ", sharing nodes (--share-nodes: their timings "
                              "may disturb each other)"
                            : ", each on a whole node";
    if (!quiet && k && !s->resume)
        fprintf(stderr,
                "submitted job %s: %zu task(s) as array 0-%zu%s; job "
                "directory %s\n",
                jobid, k, k - 1, where, (*j)->dir);
    else if (!quiet && k)
        fprintf(stderr, "resubmitted %zu task(s) as job %s%s\n", k, jobid,
                where);
    else if (!quiet)
        fprintf(stderr,
                "every task of %s has finished: nothing to "
                "resubmit\n",
                (*j)->dir);
    if (s->no_wait && !quiet)
        printf("not waiting: 'mbench slurm status %s' follows the job, "
               "'mbench slurm collect %s --json FILE' collects it\n",
               (*j)->dir, (*j)->dir);
    int rc = s->no_wait
                 ? 1
                 : mb_cli_slurm_follow(*j, store, quiet, 0, s->poll_max_s);
    return rc;
}

int mb_cli_suite_slurm(mb__cli_slurm *s, const mb__cmd *cmd, int argc,
                       char **argv, const mb__suite_opts *so, int quiet,
                       json_t **doc, mb__suite_result *res)
{
    mb__slurm_job *j = NULL;
    mb__tasks t;
    mb_err err = {0};
    *doc = NULL;
    if (so->shard_n > 1)
        return mb_cli_error(MB_EXIT_USAGE, "--shard and --slurm: --slurm makes "
                                           "one array task per task itself; "
                                           "drop --shard");
    mb_status st =
        s->resume ? MB_OK : mb__tasks_load(so->tasks_path, so->tmpl, &t, &err);
    if (st)
        return mb_cli_error(st == MB_EINVAL ? MB_EXIT_USAGE : MB_EXIT_RUNTIME,
                            "%s", err.msg);
    /* interleaved (--compare): one array task per group, all of its
     * branches measured together in rounds */
    size_t n = s->resume ? 0 : t.csv.nrows;
    int grouped = !s->resume && so->interleave && t.kind == MB_TASK_COMMAND;
    size_t *group_of = grouped ? calloc(n ? n : 1, sizeof *group_of) : NULL;
    if (group_of)
        n = mb__suite_groups(&t, group_of);
    free(group_of);
    if (!s->resume)
        mb__tasks_free(&t);
    json_t *av = task_argv(cmd, argc, argv, NULL);
    if (grouped && !has_word(av, "--interleave"))
        json_array_insert_new(av, 1, json_string("--interleave"));
    int rc = submit(s, av, n, NULL, so->store, quiet, &j);
    json_decref(av);
    if (!rc) {
        memset(res, 0, sizeof *res);
        res->selected = j->n;
        res->failed = mb__slurm_unfinished(j);
        rc = mb__slurm_merge_suite(j, doc, &res->ran, &err) ? mb_cli_fail(&err)
                                                            : 0;
        mb_cli_slurm_unfinished(j);
    }
    mb__slurm_free(j);
    return rc == 1 ? 0 : rc;
}

int mb_cli_batch_slurm(mb__cli_slurm *s, const mb__cmd *cmd, int argc,
                       char **argv, const mb__plan *plan, int quiet,
                       json_t **doc)
{
    mb__slurm_job *j = NULL;
    mb_err err = {0};
    *doc = NULL;
    size_t n = plan->n_batches > 1 ? plan->n_batches : 1;
    json_t *ta = n > 1 && !s->resume ? json_array() : NULL;
    for (size_t k = 0; ta && k < n; k++) {
        char w[32];
        snprintf(w, sizeof w, "%lld", (long long)plan->batches[k]);
        json_array_append_new(ta, json_pack("[s,s]", "--batch", w));
    }
    json_t *av = task_argv(cmd, argc, argv, ta ? "batch" : NULL);
    int rc = submit(s, av, n, ta, NULL, quiet, &j);
    json_decref(av);
    json_decref(ta);
    if (!rc) {
        rc = mb__slurm_merge_batches(j, doc, &err) ? mb_cli_fail(&err) : 0;
        rc = mb_cli_slurm_unfinished(j) ? MB_EXIT_RUNTIME : rc;
    }
    mb__slurm_free(j);
    return rc == 1 ? 0 : rc;
}
