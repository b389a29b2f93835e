/* cmd_slurm.c - a suite, compare or run on Slurm: `suite|compare|run
 * --slurm` (submit, follow, collect) and `mbench slurm
 * status|collect|resume|cancel DIR` to go on later (docs/SCALE.md).  The job
 * directory and the talk with Slurm are src/exec/slurm.c; this file parses,
 * calls and prints. */
#include "cli.h"
#include "exec_util.h"
#include "opt.h"
#include "outputs.h"
#include "slurmopt.h"

#include "core/buf.h"
#include "exec/slurm.h"
#include "exec/suite.h"
#include "exec/tasks.h"
#include "report/console.h"
#include "report/execprint.h"
#include "report/rutil.h"
#include "report/suiterep.h"
#include "store/store.h"

#include <errno.h>
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

#define POLL_NS 500000000L /* between two looks at the queue */

/* clang-format off */
enum { O_COMPARE, O_SEED, O_NOWAIT };
static const mb_opt slurm_opts[] = {
    {"compare", 0, MB_OPT_SWITCH, NULL, "collect, resume: add the speedup table of 'suite --compare'", NULL, NULL, 0, 0, 0, O_COMPARE},
    {"seed", 0, MB_OPT_INT, "N", "bootstrap seed for --compare (default 42)", "a non-negative integer", NULL, 0, 9.2e18, 0, O_SEED},
    {"no-wait", 0, MB_OPT_SWITCH, NULL, "collect: merge what has finished now; resume: return once resubmitted", NULL, NULL, 0, 0, 0, O_NOWAIT},
};
/* clang-format on */

const mb_cmd mb_cmd_slurm = {
    "slurm",
    "status|collect|resume|cancel DIR",
    "follow, collect, resume or cancel a job sent to Slurm",
    "Works on the job directory DIR of 'mbench suite|compare|run --slurm' "
    "(its --slurm-dir).  status: one look at the tasks (state, node, job id, "
    "why a task failed).  collect: waits for the tasks, stores each in "
    "--db as it finishes, merges their documents and writes the outputs.  "
    "resume: resubmits only the tasks that failed, timed out, were "
    "cancelled or lost, then collects.  cancel: scancel of the job's "
    "arrays.  ('task' is what each array task runs.)",
    slurm_opts,
    sizeof slurm_opts / sizeof slurm_opts[0],
    MB_OPTSET_OUTPUT,
    2,
    2,
    "Exit codes: 0 ok, 2 usage or not a job directory, 3 a task did not "
    "finish, Slurm failed or slurmctld does not answer, 130 interrupted "
    "(the tasks keep running unless cancelled)."};

/* ---- the options of `suite --slurm` ---- */

int mb_cli_slurm_opt(mb_cli_slurm *s, const mb_opt *o, const mb_optval *v)
{
    char w[96];
    if (o->id < MB_SLURM_OPT_BASE || o->id > MB_SLURM_OPT_BASE + 10)
        return 1;
    if (!s->sbatch)
        s->sbatch = json_array();
    switch (o->id - MB_SLURM_OPT_BASE) {
    case 0:
        s->on = 1;
        return 0;
    case 1:
        s->no_wait = 1;
        return 0;
    case 2:
        s->dir = v->text;
        return 0;
    case 3:
        s->resume = 1;
        return 0;
    case 6: /* minutes, rounded up */
        snprintf(w, sizeof w, "--time=%lld",
                 (long long)((v->i + 59999999999LL) / 60000000000LL));
        json_array_append_new(s->sbatch, json_string(w));
        return 0;
    case 9:
        json_array_append_new(s->sbatch, json_string("--exclusive"));
        return 0;
    case 10:
        json_array_append_new(s->sbatch, json_string(v->text));
        return 0;
    default:
        snprintf(w, sizeof w, "--%s=", o->name);
        json_array_append_new(s->sbatch, json_pack("s+", w, v->text));
        return 0;
    }
}

void mb_cli_slurm_free(mb_cli_slurm *s)
{
    json_decref(s->sbatch);
    s->sbatch = NULL;
}

/* ---- the argv of the tasks ---- */

/* The options the driver handles itself: the tasks do not get them
 * (nor drop, the option the driver splits the tasks by). */
static int driver_only(const mb_cmd *cmd, const mb_opt *o, const char *drop)
{
    static const char *const names[] = {
        "json",   "output",  "db",      "md",    "html",  "csv",
        "outdir", "compare", "require", "quiet", "shard", NULL};
    if (o >= cmd->opts && o < cmd->opts + cmd->n_opts &&
        o->id >= MB_SLURM_OPT_BASE)
        return 1;
    if (drop && !strcmp(o->name, drop))
        return 1;
    /* compare's --output is a tensor name, for the tasks */
    if (!strcmp(o->name, "output") && strcmp(cmd->name, "suite"))
        return 0;
    for (int i = 0; names[i]; i++)
        if (!strcmp(o->name, names[i]))
            return 1;
    return 0;
}

static const mb_opt *find_long(const mb_cmd *cmd, const char *name, size_t len)
{
    const mb_opt *o, *hit = NULL;
    int n = 0;
    const char *g;
    for (size_t i = 0; (o = mb_opt_each(cmd, i, &g)); i++) {
        if (strlen(o->name) == len && !strncmp(o->name, name, len))
            return o;
        if (!strncmp(o->name, name, len))
            hit = o, n++;
    }
    return n == 1 ? hit : NULL;
}

static const mb_opt *find_short(const mb_cmd *cmd, char c)
{
    const mb_opt *o;
    const char *g;
    for (size_t i = 0; (o = mb_opt_each(cmd, i, &g)); i++)
        if (o->short_name == c)
            return o;
    return NULL;
}

/* One short-option word ("-r", "-r3", "-qr 3"); returns the words used. */
static int keep_short(const mb_cmd *cmd, json_t *av, char **argv, int i,
                      int argc, const char *drop)
{
    for (const char *p = argv[i] + 1; *p; p++) {
        const mb_opt *o = find_short(cmd, *p);
        if (!o)
            return 1; /* mb_opt_parse accepted it: cannot happen */
        char w[3] = {'-', *p, 0};
        if (o->type == MB_OPT_SWITCH) {
            if (!driver_only(cmd, o, drop))
                json_array_append_new(av, json_string(w));
            continue;
        }
        const char *val = p[1] ? p + 1 : (i + 1 < argc ? argv[i + 1] : "");
        if (!driver_only(cmd, o, drop))
            json_array_append_new(av, json_pack("[s,s]", w, val));
        return p[1] ? 1 : 2;
    }
    return 1;
}

/* The suite's argv without the driver's options (nested arrays hold an
 * option with its value), flattened. */
static json_t *task_argv(const mb_cmd *cmd, int argc, char **argv,
                         const char *drop)
{
    json_t *av = json_array(), *flat = json_array();
    json_array_append_new(av, json_string(argv[0]));
    for (int i = 1; i < argc;) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            for (; i < argc; i++)
                json_array_append_new(av, json_string(argv[i]));
            break;
        }
        if (a[0] != '-' || !a[1]) {
            json_array_append_new(av, json_string(a));
            i++;
        } else if (a[1] != '-') {
            i += keep_short(cmd, av, argv, i, argc, drop);
        } else {
            size_t len = strcspn(a + 2, "=");
            const mb_opt *o = find_long(cmd, a + 2, len);
            int takes = o && o->type != MB_OPT_SWITCH && !a[2 + len];
            if (!o || !driver_only(cmd, o, drop)) {
                json_array_append_new(av, json_string(a));
                if (takes && i + 1 < argc)
                    json_array_append_new(av, json_string(argv[i + 1]));
            }
            i += takes ? 2 : 1;
        }
    }
    size_t i;
    json_t *w;
    json_array_foreach(av, i, w)
    {
        if (json_is_array(w))
            json_array_extend(flat, w);
        else
            json_array_append(flat, w);
    }
    json_decref(av);
    return flat;
}

/* ---- following a job ---- */

static void print_log_tail(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char *lines[3] = {NULL, NULL, NULL}, buf[512];
    while (fgets(buf, sizeof buf, f)) {
        if (buf[0] == '\n')
            continue;
        free(lines[0]);
        lines[0] = lines[1];
        lines[1] = lines[2];
        lines[2] = strdup(buf);
    }
    fclose(f);
    for (int i = 0; i < 3; i++) {
        if (lines[i])
            fprintf(stderr, "    | %s%s", lines[i],
                    strchr(lines[i], '\n') ? "" : "\n");
        free(lines[i]);
    }
}

static void report_task(const mb_slurm_job *j, size_t k, size_t finished,
                        int quiet)
{
    const mb_slurm_task *t = &j->tasks[k];
    char *log = mb__slurm_log_path(j, k);
    if (t->state == MB_SLURM_DONE) {
        if (!quiet)
            fprintf(stderr, "[%zu/%zu] task %zu done on %s (job %s, %.1f s)\n",
                    finished, j->n, k, t->node[0] ? t->node : "?", t->job,
                    t->end_s - t->start_s);
    } else {
        fprintf(stderr, "[%zu/%zu] task %zu %s on %s (job %s): %s\n  log: %s\n",
                finished, j->n, k,
                t->state == MB_SLURM_FAILED ? "FAILED"
                                            : mb__slurm_state_name(t->state),
                t->node[0] ? t->node : "?", t->job, t->reason, log);
        print_log_tail(log);
    }
    free(log);
}

static void store_task(const mb_slurm_job *j, size_t k, mb__store *store)
{
    mb_err err = {0};
    json_t *d = store ? mb__slurm_task_doc(j, k, &err) : NULL;
    if (!d || mb__slurm_is_stored(j, k)) {
        json_decref(d);
        return;
    }
    const json_t *git =
        json_object_get(json_array_get(json_object_get(d, "runs"), 0), "git");
    if (mb__store_put(store, d, json_is_object(git) ? git : NULL, &err))
        mb_cli_warn("--db: task %zu: %s", k, err.msg);
    else
        mb__slurm_mark_stored(j, k);
    json_decref(d);
}

/* Ctrl-C while following: offer to cancel the job (on a terminal). */
static int interrupted(const mb_slurm_job *j)
{
    char ans[16] = "";
    if (isatty(0) && isatty(2)) {
        fprintf(stderr,
                "\ninterrupted: cancel the Slurm job (scancel)? [y/N] ");
        if (!fgets(ans, sizeof ans, stdin))
            ans[0] = '\0';
    }
    if (ans[0] == 'y' || ans[0] == 'Y') {
        mb_err err = {0};
        if (mb__slurm_cancel(j, &err))
            return mb_cli_fail(&err);
        fprintf(stderr, "cancelled the job of %s\n", j->dir);
    } else
        fprintf(stderr,
                "interrupted: the tasks keep running; 'mbench slurm collect "
                "%s' collects them, 'mbench slurm cancel %s' cancels them\n",
                j->dir, j->dir);
    return MB_EXIT_INTERRUPTED;
}

static void progress(const mb_slurm_job *j, int quiet)
{
    if (quiet || !isatty(2))
        return;
    size_t c[8] = {0};
    for (size_t k = 0; k < j->n; k++)
        c[j->tasks[k].state]++;
    fprintf(stderr, "\r[slurm] %zu done, %zu failed, %zu running, %zu pending ",
            c[MB_SLURM_DONE],
            c[MB_SLURM_FAILED] + c[MB_SLURM_TIMEOUT] + c[MB_SLURM_CANCELLED] +
                c[MB_SLURM_LOST],
            c[MB_SLURM_RUNNING], c[MB_SLURM_PENDING]);
}

/* Waits until every submitted task has ended, reporting and storing
 * each as it does.  0, or an exit code after printing. */
static int follow(mb_slurm_job *j, mb__store *store, int quiet)
{
    volatile int *cancel = mb_cli_cancel_flag(0);
    unsigned char *seen = calloc(j->n, 1);
    size_t finished = 0;
    if (!seen)
        return mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
    for (size_t k = 0; k < j->n; k++)
        if (!j->tasks[k].job[0])
            seen[k] = 1; /* never submitted */
    for (;;) {
        mb_err err = {0};
        if (mb__slurm_poll(j, &err)) {
            free(seen);
            return mb_cli_error(
                MB_EXIT_RUNTIME,
                "%s: slurmctld does not answer, so the tasks cannot be "
                "followed (they may still run); once it is back, 'mbench "
                "slurm status %s' shows them and 'mbench slurm collect %s' "
                "collects them",
                err.msg, j->dir, j->dir);
        }
        size_t open = 0;
        for (size_t k = 0; k < j->n; k++) {
            if (seen[k] || !mb__slurm_ended(&j->tasks[k])) {
                open += !seen[k];
                continue;
            }
            seen[k] = 1;
            if (!quiet && isatty(2))
                fputc('\n', stderr);
            report_task(j, k, ++finished, quiet);
            if (j->tasks[k].state <= MB_SLURM_FAILED)
                store_task(j, k, store);
        }
        if (!open)
            break;
        progress(j, quiet);
        if (*cancel) {
            free(seen);
            return interrupted(j);
        }
        struct timespec ts = {0, POLL_NS};
        nanosleep(&ts, NULL); /* a signal ends it early */
    }
    if (!quiet && isatty(2))
        fputc('\n', stderr);
    free(seen);
    return 0;
}

/* The tasks' documents merged (those that wrote one), with res filled. */
static json_t *merge_tasks(const mb_slurm_job *j, mb_suite_result *res)
{
    json_t **docs = calloc(j->n, sizeof *docs);
    char **names = calloc(j->n, sizeof *names);
    size_t m = 0;
    memset(res, 0, sizeof *res);
    res->selected = j->n;
    if (!docs || !names) {
        free(docs);
        free(names);
        mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
        return NULL;
    }
    for (size_t k = 0; k < j->n; k++) {
        mb_err e = {0};
        char *p = mb__slurm_doc_path(j, k);
        json_t *d = access(p, F_OK) == 0 ? mb__slurm_task_doc(j, k, &e) : NULL;
        if (d) {
            docs[m] = d;
            names[m++] = p;
        } else
            free(p);
        res->failed += j->tasks[k].state != MB_SLURM_DONE;
    }
    res->ran = m;
    json_t *merged = NULL;
    mb_err err = {0};
    if (!m)
        mb_cli_error(MB_EXIT_RUNTIME, "%s: no task wrote a result document",
                     j->dir);
    else if (mb__suite_merge(docs, (const char *const *)names, m, &merged,
                             &err))
        mb_cli_fail(&err);
    for (size_t i = 0; i < m; i++) {
        json_decref(docs[i]);
        free(names[i]);
    }
    free(docs);
    free(names);
    if (merged) {
        json_object_set_new(merged, "slurm",
                            json_pack("{s:s, s:O}", "dir", j->dir, "jobs",
                                      json_object_get(j->manifest, "jobs")));
    }
    return merged;
}

/* What did not finish, and how to resubmit it. */
static size_t report_unfinished(const mb_slurm_job *j)
{
    size_t bad = 0;
    for (size_t k = 0; k < j->n; k++)
        bad += j->tasks[k].state != MB_SLURM_DONE;
    if (bad)
        fprintf(stderr,
                "%zu of %zu task(s) did not finish (failed, timed out, "
                "cancelled or lost; above); resubmit only those: 'mbench "
                "slurm resume %s' (or suite --slurm --resume --slurm-dir "
                "%s)\n",
                bad, j->n, j->dir, j->dir);
    return bad;
}

/* Tasks that ended without success (all ended: else none). */
static int resubmit(mb_slurm_job *j, int quiet)
{
    mb_err err = {0};
    if (mb__slurm_poll(j, &err))
        return mb_cli_error(MB_EXIT_RUNTIME, "%s", err.msg);
    size_t *idx = calloc(j->n, sizeof *idx), k2 = 0;
    if (!idx)
        return mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
    for (size_t k = 0; k < j->n; k++) {
        const mb_slurm_task *t = &j->tasks[k];
        if (t->job[0] && !mb__slurm_ended(t)) {
            free(idx);
            return mb_cli_error(MB_EXIT_USAGE,
                                "task %zu of %s is still %s (job %s): "
                                "resume once every task has ended, or "
                                "'mbench slurm cancel' it first",
                                k, j->dir, mb__slurm_state_name(t->state),
                                t->job);
        }
        if (t->state != MB_SLURM_DONE)
            idx[k2++] = k;
    }
    char jobid[64] = "";
    int rc = 0;
    if (!k2) {
        if (!quiet)
            fprintf(stderr,
                    "every task of %s has finished: nothing to "
                    "resubmit\n",
                    j->dir);
    } else if (mb__slurm_submit(j, idx, k2, jobid, &err))
        rc = mb_cli_fail(&err);
    else if (!quiet)
        fprintf(stderr, "resubmitted %zu task(s) as job %s\n", k2, jobid);
    free(idx);
    return rc;
}

static char *default_dir(void)
{
    char b[64];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(b, sizeof b, "mbench-slurm-%Y%m%dT%H%M%SZ", &tm);
    return strdup(b);
}

/* Creates the job directory for the task argv av (n tasks, task_args as
 * in mb_slurm_spec) and submits every task as one array. */
static int submit_job(mb_cli_slurm *s, json_t *av, size_t n,
                      const json_t *task_args, int quiet, mb_slurm_job **job)
{
    mb_err err = {0};
    char exe[4096], cwd[4096];
    ssize_t el = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (el <= 0 || !getcwd(cwd, sizeof cwd))
        return mb_cli_error(MB_EXIT_RUNTIME, "cannot find mbench's own "
                                             "path or the current directory");
    exe[el] = '\0';
    char *dir = s->dir ? strdup(s->dir) : default_dir();
    mb_slurm_spec spec = {.dir = dir,
                          .argv = av,
                          .n_tasks = n,
                          .sbatch = s->sbatch,
                          .mbench = exe,
                          .cwd = cwd,
                          .task_args = task_args};
    mb_status st = mb__slurm_create(&spec, job, &err);
    free(dir);
    if (st)
        return mb_cli_error(st == MB_EINVAL ? MB_EXIT_USAGE : MB_EXIT_RUNTIME,
                            "--slurm-dir: %s", err.msg);
    size_t *idx = calloc(n, sizeof *idx);
    if (!idx)
        return mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
    for (size_t k = 0; k < n; k++)
        idx[k] = k;
    char jobid[64];
    st = mb__slurm_submit(*job, idx, n, jobid, &err);
    free(idx);
    if (st)
        return mb_cli_fail(&err);
    if (!quiet)
        fprintf(stderr,
                "submitted job %s: %zu task(s) as array 0-%zu; job "
                "directory %s\n",
                jobid, n, n - 1, (*job)->dir);
    return 0;
}

static int submit_new(mb_cli_slurm *s, const mb_cmd *cmd, int argc, char **argv,
                      const mb_suite_opts *so, int quiet, mb_slurm_job **job)
{
    mb_tasks t;
    mb_err err = {0};
    if (so->shard_n > 1)
        return mb_cli_error(MB_EXIT_USAGE,
                            "--shard and --slurm: --slurm makes one array "
                            "task per task itself; drop --shard");
    mb_status st = mb__tasks_load(so->tasks_path, so->tmpl, &t, &err);
    if (st)
        return mb_cli_error(st == MB_EINVAL ? MB_EXIT_USAGE : MB_EXIT_RUNTIME,
                            "%s", err.msg);
    size_t n = t.csv.nrows;
    mb__tasks_free(&t);
    json_t *av = task_argv(cmd, argc, argv, NULL);
    int rc = submit_job(s, av, n, NULL, quiet, job);
    json_decref(av);
    return rc;
}

/* --resume: the job directory of --slurm-dir, its unfinished tasks
 * resubmitted. */
static int resume_dir(mb_cli_slurm *s, int quiet, mb_slurm_job **j)
{
    mb_err err = {0};
    if (!s->dir)
        return mb_cli_error(MB_EXIT_USAGE,
                            "--resume needs --slurm-dir DIR: the job "
                            "directory of the run to resume");
    if (mb__slurm_open(s->dir, j, &err))
        return mb_cli_error(MB_EXIT_USAGE, "--slurm-dir: %s", err.msg);
    return resubmit(*j, quiet);
}

/* After submitting: --no-wait returns 1 (printed), else follows. */
static int wait_or_not(mb_cli_slurm *s, mb_slurm_job *j, mb__store *store,
                       int quiet, int *rc)
{
    if (!*rc && s->no_wait) {
        if (!quiet)
            printf("not waiting: 'mbench slurm status %s' follows the job, "
                   "'mbench slurm collect %s --json FILE' collects it\n",
                   j->dir, j->dir);
        return 1;
    }
    if (!*rc)
        *rc = follow(j, store, quiet);
    return 0;
}

int mb_cli_suite_slurm(mb_cli_slurm *s, const mb_cmd *cmd, int argc,
                       char **argv, const mb_suite_opts *so, int quiet,
                       json_t **doc, mb_suite_result *res)
{
    mb_slurm_job *j = NULL;
    *doc = NULL;
    if (!s->sbatch)
        s->sbatch = json_array();
    int rc = s->resume ? resume_dir(s, quiet, &j)
                       : submit_new(s, cmd, argc, argv, so, quiet, &j);
    if (j && !wait_or_not(s, j, so->store, quiet, &rc) && !rc) {
        *doc = merge_tasks(j, res);
        report_unfinished(j);
        rc = *doc ? -1 : MB_EXIT_RUNTIME;
    }
    mb__slurm_free(j);
    return rc;
}

/* ---- compare --slurm, run --slurm: one array task per batch size ---- */

/* Whether the string w is in the array a. */
static int has_string(const json_t *a, const char *w)
{
    size_t i;
    const json_t *v;
    json_array_foreach(a, i, v) if (!strcmp(json_string_value(v), w)) return 1;
    return 0;
}

/* Task k's warnings into merged's, once each; with several tasks a
 * warning of some batch sizes only says which. */
static void merge_warnings(const mb_slurm_job *j, size_t k, json_t *merged,
                           const json_t *d, json_t *all_docs)
{
    json_t *to = json_object_get(merged, "warnings");
    const json_t *ta =
        json_array_get(json_object_get(j->manifest, "task_args"), k);
    const char *b = json_string_value(json_array_get(ta, 1));
    size_t i, m;
    const json_t *w, *o;
    json_array_foreach(json_object_get(d, "warnings"), i, w)
    {
        const char *s = json_string_value(w);
        int everywhere = 1;
        json_array_foreach(all_docs, m, o) everywhere &=
            has_string(json_object_get(o, "warnings"), s ? s : "");
        if (!s || !json_is_array(to))
            continue;
        if (b && !everywhere) {
            json_t *t = json_sprintf("%s (batch %s)", s, b);
            if (t && !has_string(to, json_string_value(t)))
                json_array_append(to, t);
            json_decref(t);
        } else if (!has_string(to, s))
            json_array_append_new(to, json_string(s));
    }
}

/* The tasks' documents of a compare or run job as one document of the
 * command's kind: runs (and comparisons) in batch-size order, each run
 * with its "slurm"; NULL after printing when no task wrote one. */
static json_t *merge_batches(const mb_slurm_job *j)
{
    static const char *const lists[] = {"runs", "comparisons", NULL};
    json_t *docs = json_array(), *merged = NULL;
    size_t *of = calloc(j->n ? j->n : 1, sizeof *of);
    for (size_t k = 0; of && k < j->n; k++) {
        mb_err e = {0};
        char *p = mb__slurm_doc_path(j, k);
        json_t *d = access(p, F_OK) == 0 ? mb__slurm_task_doc(j, k, &e) : NULL;
        free(p);
        if (d)
            of[json_array_size(docs)] = k;
        if (d)
            json_array_append_new(docs, d);
    }
    size_t i;
    json_t *d;
    json_array_foreach(docs, i, d)
    {
        if (!merged) {
            merged = json_deep_copy(d);
            json_object_set_new(merged, "warnings", json_array());
        } else
            for (int l = 0; lists[l]; l++) {
                json_t *to = json_object_get(merged, lists[l]);
                json_t *from = json_object_get(d, lists[l]);
                if (json_is_array(to) && json_is_array(from))
                    json_array_extend(to, from);
            }
        merge_warnings(j, of[i], merged, d, docs);
        if (json_is_true(json_object_get(d, "interrupted")))
            json_object_set_new(merged, "interrupted", json_true());
    }
    json_decref(docs);
    free(of);
    if (!merged) {
        mb_cli_error(MB_EXIT_RUNTIME, "%s: no task wrote a result document",
                     j->dir);
        return NULL;
    }
    json_object_set_new(merged, "slurm",
                        json_pack("{s:s, s:O}", "dir", j->dir, "jobs",
                                  json_object_get(j->manifest, "jobs")));
    return merged;
}

int mb_cli_batch_slurm(mb_cli_slurm *s, const mb_cmd *cmd, int argc,
                       char **argv, const mb_plan *plan, int quiet,
                       json_t **doc)
{
    mb_slurm_job *j = NULL;
    *doc = NULL;
    if (!s->sbatch)
        s->sbatch = json_array();
    int rc;
    if (s->resume)
        rc = resume_dir(s, quiet, &j);
    else {
        size_t n = plan->n_batches > 1 ? plan->n_batches : 1;
        json_t *ta = n > 1 ? json_array() : NULL;
        for (size_t k = 0; ta && k < n; k++) {
            char w[32];
            snprintf(w, sizeof w, "%lld", (long long)plan->batches[k]);
            json_array_append_new(ta, json_pack("[s,s]", "--batch", w));
        }
        json_t *av = task_argv(cmd, argc, argv, ta ? "batch" : NULL);
        rc = submit_job(s, av, n, ta, quiet, &j);
        json_decref(av);
        json_decref(ta);
    }
    if (j && !wait_or_not(s, j, NULL, quiet, &rc) && !rc) {
        *doc = merge_batches(j);
        rc = *doc && !report_unfinished(j) ? -1 : MB_EXIT_RUNTIME;
    }
    mb__slurm_free(j);
    return rc;
}

/* ---- mbench slurm SUB DIR ---- */

static int task_main(const char *dir)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    double start = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
    const char *id = getenv("SLURM_ARRAY_TASK_ID");
    char *end = NULL;
    long long k = id ? strtoll(id, &end, 10) : -1;
    mb_slurm_job *j = NULL;
    mb_err err = {0};
    if (k < 0 || !end || *end)
        return mb_cli_error(MB_EXIT_USAGE,
                            "'mbench slurm task' runs inside a Slurm array "
                            "task (SLURM_ARRAY_TASK_ID is not set): it is "
                            "what suite --slurm submits");
    if (mb__slurm_open(dir, &j, &err))
        return mb_cli_fail(&err);
    if ((size_t)k >= j->n) {
        mb__slurm_free(j);
        return mb_cli_error(MB_EXIT_USAGE,
                            "array task %lld: the job has "
                            "%zu tasks",
                            k, j->n);
    }
    json_t *av = json_deep_copy(json_object_get(j->manifest, "argv"));
    const char *kind = json_string_value(json_array_get(av, 0));
    int (*fn)(int, char **) = !kind                      ? NULL
                              : !strcmp(kind, "suite")   ? cmd_suite
                              : !strcmp(kind, "compare") ? cmd_compare
                              : !strcmp(kind, "run")     ? cmd_run
                                                         : NULL;
    char shard[64];
    snprintf(shard, sizeof shard, "%lld/%zu", k, j->n);
    char *doc = mb__slurm_doc_path(j, (size_t)k);
    /* right after the command's name, before any "--" */
    json_t *more = fn == cmd_suite ? json_pack("[s,s,s,s,s]", "--shard", shard,
                                               "--output", doc, "-q")
                                   : json_pack("[s,s,s]", "--json", doc, "-q");
    json_t *ta =
        json_array_get(json_object_get(j->manifest, "task_args"), (size_t)k);
    if (json_is_array(ta))
        json_array_extend(more, ta);
    for (size_t i = json_array_size(more); fn && i-- > 0;)
        json_array_insert(av, 1, json_array_get(more, i));
    json_decref(more);
    free(doc);
    if (!fn) {
        json_decref(av);
        mb__slurm_free(j);
        return mb_cli_error(MB_EXIT_USAGE,
                            "%s: not a job of suite, compare or run", dir);
    }
    size_t n = json_array_size(av);
    char **v = calloc(n + 1, sizeof *v);
    if (!v) {
        json_decref(av);
        mb__slurm_free(j);
        return mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        v[i] = (char *)json_string_value(json_array_get(av, i));
    mb_cli_set_command_line((int)n, v);
    int rc = fn((int)n, v);
    fflush(stdout);
    if (mb__slurm_write_record(j->dir, (size_t)k, rc, start, &err))
        rc = mb_cli_fail(&err);
    free(v);
    json_decref(av);
    mb__slurm_free(j);
    return rc;
}

static int status_main(mb_slurm_job *j)
{
    mb_err err = {0};
    if (mb__slurm_poll(j, &err))
        return mb_cli_error(MB_EXIT_RUNTIME,
                            "%s: slurmctld does not answer; the job "
                            "directory %s keeps the tasks' state",
                            err.msg, j->dir);
    size_t c[8] = {0};
    printf("%-6s %-11s %-14s %-16s %s\n", "task", "state", "job", "node",
           "reason");
    for (size_t k = 0; k < j->n; k++) {
        const mb_slurm_task *t = &j->tasks[k];
        c[t->state]++;
        printf("%-6zu %-11s %-14s %-16s %s\n", k,
               mb__slurm_state_name(t->state), t->job[0] ? t->job : "-",
               t->node[0] ? t->node : "-", t->reason);
    }
    printf("%zu task(s): %zu done, %zu failed, %zu timeout, %zu cancelled, "
           "%zu lost, %zu running, %zu pending\n",
           j->n, c[MB_SLURM_DONE], c[MB_SLURM_FAILED], c[MB_SLURM_TIMEOUT],
           c[MB_SLURM_CANCELLED], c[MB_SLURM_LOST], c[MB_SLURM_RUNNING],
           c[MB_SLURM_PENDING]);
    return 0;
}

typedef struct {
    int compare, no_wait;
    int64_t seed;
} slurm_args;

static int on_opt(void *user, const mb_opt *o, const mb_optval *v)
{
    slurm_args *a = user;
    if (o->id == O_COMPARE)
        a->compare = 1;
    else if (o->id == O_NOWAIT)
        a->no_wait = 1;
    else if (o->id == O_SEED)
        a->seed = v->i;
    return 0;
}

/* collect (and resume): follow, merge, print, write the outputs. */
static int collect_main(mb_slurm_job *j, const slurm_args *a,
                        mb_cli_outputs *out, int quiet)
{
    mb__store *store = NULL;
    mb_err err = {0};
    const char *db = out->db;
    out->db = NULL; /* each task is stored as collected */
    if (db && mb__store_open(db, &store, &err))
        return mb_cli_error(MB_EXIT_RUNTIME, "--db: %s", err.msg);
    int rc = 0;
    if (a->no_wait) {
        mb__slurm_poll(j, &err);
        for (size_t k = 0; k < j->n; k++)
            if (j->tasks[k].state <= MB_SLURM_FAILED &&
                mb__slurm_ended(&j->tasks[k]))
                store_task(j, k, store);
    } else
        rc = follow(j, store, quiet);
    mb_suite_result res;
    json_t *doc = rc ? NULL : merge_tasks(j, &res);
    if (doc) {
        mb_buf b = MB_BUF_INIT;
        if (a->compare) {
            json_t *cmp = mb__suite_comparison(json_object_get(doc, "runs"),
                                               (uint64_t)a->seed);
            mb__suite_comparison_console(&b, cmp);
            json_object_set_new(doc, "comparison", cmp);
        }
        mb__suite_summary_console(&b, res.ran, res.selected, 0, res.failed, 0);
        mb_cli_put(&b);
        rc = mb_cli_outputs_write(out, doc);
        if (!rc && report_unfinished(j))
            rc = MB_EXIT_RUNTIME;
    } else if (!rc)
        rc = MB_EXIT_RUNTIME;
    json_decref(doc);
    mb__store_close(store);
    return rc;
}

/* collect (and resume) of a compare or run job: follow, merge, print the
 * command's table, write the outputs (--db too: one document). */
static int collect_batches(mb_slurm_job *j, const slurm_args *a,
                           mb_cli_outputs *out, int quiet)
{
    mb_err err = {0};
    int rc = 0;
    if (a->no_wait)
        mb__slurm_poll(j, &err);
    else
        rc = follow(j, NULL, quiet);
    json_t *doc = rc ? NULL : merge_batches(j);
    if (doc) {
        mb_console_opts co = {mb_cli_term_width(1), mb_cli_use_color(1)};
        mb_buf b = MB_BUF_INIT;
        const char *kind = mb__jstr(doc, "kind");
        if (!quiet && kind && !strcmp(kind, "compare"))
            mb__report_compare_console(doc, &co, &b);
        else if (!quiet)
            mb__report_console(doc, &co, &b);
        mb_cli_put(&b);
        rc = mb_cli_outputs_write(out, doc);
        if (!rc && report_unfinished(j))
            rc = MB_EXIT_RUNTIME;
    } else if (!rc)
        rc = MB_EXIT_RUNTIME;
    json_decref(doc);
    return rc;
}

int cmd_slurm(int argc, char **argv)
{
    slurm_args a = {0, 0, 42};
    mb_cli_outputs out = {0};
    mb_opt_ctx ctx = {NULL, &out, on_opt, &a, 0, NULL, 0};
    int rc = mb_opt_parse(&mb_cmd_slurm, argc, argv, &ctx);
    if (rc)
        return rc == MB_OPT_HELP ? MB_EXIT_OK : rc;
    const char *sub = ctx.args[0], *dir = ctx.args[1];
    if (!strcmp(sub, "task"))
        return task_main(dir);
    if (strcmp(sub, "status") && strcmp(sub, "collect") &&
        strcmp(sub, "resume") && strcmp(sub, "cancel"))
        return mb_cli_error(MB_EXIT_USAGE,
                            "unknown 'mbench slurm %s': use status, "
                            "collect, resume or cancel",
                            sub);
    mb_slurm_job *j = NULL;
    mb_err err = {0};
    if (mb__slurm_open(dir, &j, &err))
        return mb_cli_error(MB_EXIT_USAGE, "%s", err.msg);
    const char *kind = json_string_value(
        json_array_get(json_object_get(j->manifest, "argv"), 0));
    int (*collect)(mb_slurm_job *, const slurm_args *, mb_cli_outputs *, int) =
        kind && strcmp(kind, "suite") ? collect_batches : collect_main;
    if (!strcmp(sub, "status"))
        rc = status_main(j);
    else if (!strcmp(sub, "cancel")) {
        rc = mb__slurm_cancel(j, &err) ? mb_cli_fail(&err) : 0;
        if (!rc && !ctx.quiet)
            printf("cancelled the job(s) of %s\n", j->dir);
    } else if (!strcmp(sub, "resume")) {
        rc = resubmit(j, ctx.quiet);
        if (!rc && !a.no_wait)
            rc = collect(j, &a, &out, ctx.quiet);
    } else
        rc = collect(j, &a, &out, ctx.quiet);
    mb__slurm_free(j);
    return rc;
}
