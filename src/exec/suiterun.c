/* suiterun.c - running the tasks of a suite (suiterun.h). */
#include "exec/suiterun.h"

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/fileio.h"
#include "core/parse.h"
#include "core/redact.h"
#include "runner/runner.h"
#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static json_t *git_json(const mb__worktree_info *wi)
{
    if (!wi || !wi->commit)
        return json_null();
    return json_pack("{s:s,s:s,s:s,s:b,s:s}", "branch", wi->branch, "commit",
                     wi->commit, "commit_date", wi->commit_date, "dirty", 0,
                     "ref", wi->ref ? wi->ref : wi->branch);
}

static char *group_key(const mb__tasks *t, size_t row)
{
    const char *e = mb__tasks_get(t, row, "experiment");
    if (e)
        return mb__strdup(e);
    mb__buf b = MB_BUF_INIT;
    for (size_t c = 0; c < t->csv.ncols; c++) {
        if (!strcmp(t->csv.header[c], "branch") ||
            (t->kind == MB_TASK_MODEL && !strcmp(t->csv.header[c], "backend")))
            continue;
        mb__buf_printf(&b, "%s%s", b.len ? "," : "",
                       mb__csv_cell(&t->csv, row, c));
    }
    return mb__buf_take(&b, NULL);
}

static json_t *task_json(const mb__tasks *t, size_t row)
{
    char *g = group_key(t, row);
    json_t *o =
        json_pack("{s:I,s:s,s:s,s:I,s:s,s:o}", "index", (json_int_t)row, "kind",
                  t->kind == MB_TASK_MODEL ? "model" : "command", "format",
                  t->format, "line", (json_int_t)t->csv.line[row], "group",
                  g ? g : "", "row", mb__tasks_row_json(t, row));
    free(g);
    return o;
}

static json_t *failed_run(const mb__tasks *t, const char *variant,
                          const char *command, const char *status,
                          const char *error)
{
    json_t *r = json_object();
    json_object_set_new(r, "status", json_string(status));
    json_object_set_new(r, "error", json_string(error));
    json_object_set_new(r, "variant", json_string(variant));
    if (command) {
        char *shown = mb__redact(command);
        json_object_set_new(r, "command", json_string(shown ? shown : "***"));
        free(shown);
    }
    json_object_set_new(
        r, "backend", json_string(t->kind == MB_TASK_MODEL ? "model" : "exec"));
    json_object_set_new(r, "iterations", json_integer(0));
    json_object_set_new(r, "latency", json_null());
    return r;
}

static char *label(const mb__tasks *t, size_t row, const char *command)
{
    const char *b = mb__tasks_get(t, row, "branch");
    const char *e = mb__tasks_get(t, row, "experiment");
    mb__buf s = MB_BUF_INIT;
    if (t->kind == MB_TASK_MODEL) {
        const char *m = mb__tasks_get(t, row, "model");
        const char *be = mb__tasks_get(t, row, "backend");
        const char *bs = mb__tasks_get(t, row, "batch_size");
        mb__buf_printf(&s, "%s%s%s", b && *b ? b : "", b && *b ? " " : "",
                       mb__basename(m));
        if (be && *be)
            mb__buf_printf(&s, " %s", be);
        if (bs && *bs)
            mb__buf_printf(&s, " batch %s", bs);
    } else if (e || b) {
        mb__buf_printf(&s, "%s%s%s", b ? b : "", b && e ? " " : "", e ? e : "");
        for (size_t c = 0; c < t->csv.ncols; c++) {
            const char *h = t->csv.header[c];
            if (!strcmp(h, "branch") || !strcmp(h, "experiment") ||
                !strcmp(h, "command"))
                continue;
            const char *v = mb__csv_cell(&t->csv, row, c);
            if (*v)
                mb__buf_printf(&s, " %s=%s", h, v);
        }
    } else {
        mb__buf_puts(&s, command ? command : "task");
    }
    /* a display name: never a password (core/redact.h) */
    char *raw = mb__buf_take(&s, NULL), *shown = raw ? mb__redact(raw) : NULL;
    free(raw);
    return shown;
}

/* Runs model task row; appends its runs.  Returns the run status. */
static mb_status run_model(const mb__tasks *t, const mb__exec_opts *eo,
                           size_t row, const char *cwd, json_t *task,
                           json_t *git, const char *name, json_t *runs,
                           mb_err *err)
{
    mb__plan p;
    mb__plan_defaults(&p);
    p.cancel = eo->cancel;
    const char *model = mb__tasks_get(t, row, "model");
    const char *be = mb__tasks_get(t, row, "backend");
    const char *bs = mb__tasks_get(t, row, "batch_size");
    const char *op = mb__tasks_get(t, row, "options");
    if (!model || !*model)
        return mb__fail(
            err, MB_EINVAL,
            "%s line %zu: the model column is empty; give a model path",
            t->path, t->csv.line[row]);
    mb__buf path = MB_BUF_INIT;
    if (cwd && model[0] != '/')
        mb__buf_printf(&path, "%s/%s", cwd, model);
    else
        mb__buf_puts(&path, model);
    p.model_path = mb__buf_take(&path, NULL);
    p.variant = mb__strdup(name);
    if (be && *be)
        p.backend = mb__strdup(be);
    mb_status st = MB_OK;
    p.batches = mb__calloc(1, sizeof *p.batches);
    p.n_batches = 1;
    p.batches[0] = 1;
    char *bend = NULL;
    if (bs && *bs &&
        ((p.batches[0] = strtoll(bs, &bend, 10)) < 1 ||
         p.batches[0] > (1 << 30) || *bend))
        st = mb__fail(err, MB_EINVAL,
                      "%s line %zu: batch_size '%s' is not a positive integer",
                      t->path, t->csv.line[row], bs);
    if (st == MB_OK && op && *op) {
        char *copy = mb__strdup(op), *save = NULL;
        for (char *kv = strtok_r(copy, ";", &save); kv && st == MB_OK;
             kv = strtok_r(NULL, ";", &save)) {
            char *eq = strchr(kv, '=');
            if (!eq || eq == kv)
                st = mb__fail(err, MB_EINVAL,
                              "%s line %zu: option '%s' is not key=value "
                              "(separate options with ';')",
                              t->path, t->csv.line[row], kv);
            else {
                *eq = '\0';
                if (!mb__plan_set_opt(&p, kv, eq + 1))
                    st = mb__fail(err, MB_ENOMEM, "out of memory");
            }
        }
        free(copy);
    }
    json_t *doc = NULL;
    if (st == MB_OK)
        st = mb__run_plan(&p, &doc, err);
    mb__plan_free(&p);
    if (st != MB_OK)
        return st;
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(doc, "runs"), i, r)
    {
        json_object_set(r, "task", task);
        json_object_set(r, "git", git);
        if (json_is_object(git))
            json_object_set(r, "branch", json_object_get(git, "branch"));
        json_array_append(runs, r);
        if (json_string_value(json_object_get(r, "status")) &&
            strcmp(json_string_value(json_object_get(r, "status")), "ok"))
            st = mb__fail(err, MB_EBACKEND, "%s",
                          json_string_value(json_object_get(r, "error"))
                              ? json_string_value(json_object_get(r, "error"))
                              : "model task failed");
    }
    json_decref(doc);
    return st;
}

static void warn(const mb__suite_opts *o, json_t *doc, const char *msg)
{
    json_array_append_new(json_object_get(doc, "warnings"), json_string(msg));
    if (o->on_warn)
        o->on_warn(o->user, msg);
}

static void store_task(const mb__suite_opts *o, json_t *doc, const json_t *run,
                       const json_t *git)
{
    if (!o->store)
        return;
    json_t *d = mb__exec_doc("suite", o->command_line);
    json_array_append(json_object_get(d, "runs"), (json_t *)run);
    json_object_set(d, "suite", json_object_get(doc, "suite"));
    mb_err err = {0};
    if (mb__store_put(o->store, d, json_is_object(git) ? git : NULL, &err) !=
        MB_OK) {
        char w[600];
        snprintf(w, sizeof w, "--db: %s", err.msg);
        warn(o, doc, w);
    }
    json_decref(d);
}

/* A relative *_path cell that is not in the task's worktree: untracked
 * files (checkpoints, data) are not checked out; say what would work. */
static mb_status check_paths(const mb__tasks *t, size_t row, const char *cwd,
                             const char *root, const char *branch, mb_err *err)
{
    if (!cwd)
        return MB_OK;
    for (size_t c = 0; c < t->csv.ncols; c++) {
        const char *h = t->csv.header[c], *v = mb__csv_cell(&t->csv, row, c);
        size_t hl = strlen(h);
        if (hl < 5 || strcmp(h + hl - 5, "_path") || !*v || v[0] == '/' ||
            strchr(v, '{'))
            continue;
        char p[8192];
        struct stat sb;
        snprintf(p, sizeof p, "%s/%s", cwd, v);
        if (stat(p, &sb) == 0)
            continue;
        snprintf(p, sizeof p, "%s/%s", root ? root : ".", v);
        int at_root = stat(p, &sb) == 0;
        return mb__fail(err, MB_EINVAL,
                        "%s line %zu: %s '%s' is not in the worktree of branch "
                        "'%s' (%s)%s",
                        t->path, t->csv.line[row], h, v, branch, cwd,
                        at_root ? "; it exists in the repository root but is "
                                  "not committed: write {root}/ before it to "
                                  "use the root's copy"
                                : "; give an absolute path or {root}/PATH");
    }
    return MB_OK;
}

static json_t *suite_json(const mb__suite_opts *o, const mb__tasks *t,
                          size_t selected)
{
    char sha[65] = "";
    mb__sha256_file(o->tasks_path, sha, NULL);
    return json_pack(
        "{s:s,s:s,s:s,s:s,s:o,s:o,s:I,s:I,s:o,s:b,s:I}", "tasks_file",
        o->tasks_path, "tasks_sha256", sha, "kind",
        t->kind == MB_TASK_MODEL ? "model" : "command", "format", t->format,
        "template", o->tmpl ? json_string(o->tmpl) : json_null(), "repo",
        json_null(), "tasks_total", (json_int_t)t->csv.nrows, "tasks_selected",
        (json_int_t)selected, "shard",
        o->shard_n > 1 ? json_pack("{s:I,s:I}", "index", (json_int_t)o->shard_i,
                                   "count", (json_int_t)o->shard_n)
                       : json_null(),
        "skip_failed", o->skip_failed, "runs_per_task",
        (json_int_t)o->eo.fixed_runs);
}

void mb__suite_opts_defaults(mb__suite_opts *o)
{
    memset(o, 0, sizeof *o);
    mb__exec_opts_defaults(&o->eo);
    o->eo.fixed_runs = 1;
    o->shard_n = 1;
}

bool mb__suite_parse_shard(const char *s, int64_t *i, int64_t *n)
{
    const char *slash = strchr(s, '/');
    if (!slash)
        return false;
    char a[32];
    size_t la = (size_t)(slash - s);
    if (la == 0 || la >= sizeof a)
        return false;
    memcpy(a, s, la);
    a[la] = '\0';
    if (!mb__parse_i64(a, 0, 1000000, i) ||
        !mb__parse_i64(slash + 1, 1, 1000000, n) || *i >= *n)
        return false;
    return true;
}

/* Opens the worktrees of a suite whose tasks name branches (or that
 * names a repository) into *wt, and notes the repository in doc. */
static mb_status open_worktrees(const mb__suite_opts *o, mb__tasks *t,
                                json_t *doc, mb__worktrees **wt, mb_err *err)
{
    int dirty = 0;
    mb_status st = mb__worktrees_open(o->repo, wt, &dirty, err);
    if (st != MB_OK)
        return st;
    mb__worktrees_set_fetch(*wt, o->fetch);
    t->root = mb__worktrees_repo(*wt);
    json_object_set_new(json_object_get(doc, "suite"), "repo",
                        json_string(t->root));
    if (dirty) {
        char w[600];
        snprintf(w, sizeof w,
                 "repository %s has uncommitted changes; "
                 "tasks run the committed branch heads in worktrees, not "
                 "your working tree",
                 t->root);
        warn(o, doc, w);
    }
    return MB_OK;
}

/* One task of the suite as it runs: where, what, and how it went. */
typedef struct suite_task {
    size_t row;
    const char *branch, *cwd;
    char *command, *name;
    json_t *task, *git;
    mb_status st;
    mb_err err;
} suite_task;

/* The task of row: its worktree (checked paths), command and name. */
static void prepare_task(const mb__tasks *t, mb__worktrees *wt, size_t row,
                         suite_task *x)
{
    mb__worktree_info wi;
    memset(&wi, 0, sizeof wi);
    memset(x, 0, sizeof *x);
    x->row = row;
    x->branch = mb__tasks_get(t, row, "branch");
    x->task = task_json(t, row);
    x->git = json_null();
    if (x->branch && *x->branch) {
        x->st = mb__worktrees_get(wt, x->branch, &wi, &x->err);
        if (x->st == MB_OK) {
            x->cwd = wi.path;
            json_decref(x->git);
            x->git = git_json(&wi);
            x->st = check_paths(t, row, x->cwd, t->root, x->branch, &x->err);
        }
    } else if (wt) {
        x->cwd = mb__worktrees_repo(wt);
    }
    if (x->st == MB_OK && t->kind == MB_TASK_COMMAND)
        x->st = mb__tasks_command(t, row, x->cwd, &x->command, &x->err);
    x->name = label(t, row, x->command);
}

/* The run of task x's series s appended to runs; with (the group's task
 * indices, or NULL) says it was measured interleaved with them. */
static void append_series(const mb__exec_opts *eo, const suite_task *x,
                          const mb__exec_series *s, json_t *runs,
                          const json_t *with)
{
    json_t *r = mb__exec_run_json(s, eo);
    if (x->st == MB_EINTERRUPTED)
        json_object_set_new(r, "status", json_string("interrupted"));
    json_object_set(r, "task", x->task);
    json_object_set_new(r, "branch",
                        x->branch ? json_string(x->branch) : json_null());
    json_object_set(r, "git", x->git);
    json_object_set_new(r, "workdir",
                        x->cwd ? json_string(x->cwd) : json_null());
    if (with)
        json_object_set_new(
            r, "interleaved",
            json_pack("{s:O,s:I}", "tasks", with, "rounds", (json_int_t)s->n));
    json_array_append_new(runs, r);
}

/* A command task measured as one series, its run appended to runs. */
static void run_command(mb__exec_opts *eo, suite_task *x, json_t *runs)
{
    mb__exec_cmd cmd = {x->name, x->command, NULL, NULL};
    eo->cwd = x->cwd;
    mb__exec_series *ser = NULL;
    x->st = mb__exec_measure(eo, &cmd, 1, &ser, &x->err);
    if (ser)
        append_series(eo, x, &ser[0], runs, NULL);
    mb__exec_series_free(ser, 1);
}

/* The runs a task added from index before (a failed one when it added
 * none and failed): told to on_run and stored; a failed run's error
 * becomes the task's. */
static void record_runs(const mb__suite_opts *o, const mb__tasks *t,
                        json_t *doc, json_t *runs, size_t before, size_t k,
                        int64_t selected, suite_task *x)
{
    if (json_array_size(runs) == before && x->st != MB_OK) {
        json_t *r = failed_run(
            t, x->name, x->command,
            x->st == MB_EINTERRUPTED ? "interrupted" : "failed", x->err.msg);
        json_object_set(r, "task", x->task);
        json_object_set_new(r, "branch",
                            x->branch ? json_string(x->branch) : json_null());
        json_object_set(r, "git", x->git);
        json_array_append_new(runs, r);
    }
    for (size_t i = before; i < json_array_size(runs); i++) {
        json_t *r = json_array_get(runs, i);
        if (o->on_run)
            o->on_run(o->user, k, selected, r);
        store_task(o, doc, r, x->git);
        const char *why = json_string_value(json_object_get(r, "error"));
        if (x->st != MB_OK && x->st != MB_EINTERRUPTED && why)
            snprintf(x->err.msg, sizeof x->err.msg, "%s", why);
    }
}

/* Counts the task's outcome in res; true when the suite stops here
 * (interrupted, or a failure without --skip-failed, said in err). */
static int task_outcome(const mb__suite_opts *o, const mb__tasks *t,
                        const mb__exec_opts *eo, const suite_task *x,
                        mb__suite_result *res, mb_err *err)
{
    int stop = 0;
    if (x->st == MB_EINTERRUPTED || (eo->cancel && *eo->cancel)) {
        res->interrupted = stop = 1;
    } else if (x->st != MB_OK) {
        res->failed++;
        if (!o->skip_failed) {
            res->stopped = x->st;
            mb__fail(err, x->st,
                     "task %zu (%s line %zu) failed: %s; pass "
                     "--skip-failed to go on with the other tasks",
                     x->row, o->tasks_path, t->csv.line[x->row], x->err.msg);
            stop = 1;
        }
    }
    res->ran++;
    return stop;
}

/* One task (row) on its own.  Returns true when the suite stops. */
static int run_task(const mb__suite_opts *o, mb__tasks *t, mb__worktrees *wt,
                    mb__exec_opts *eo, json_t *doc, size_t row, size_t *k,
                    mb__suite_result *res, mb_err *err)
{
    json_t *runs = json_object_get(doc, "runs");
    suite_task x;
    prepare_task(t, wt, row, &x);
    ++*k;
    if (o->on_start)
        o->on_start(o->user, *k, res->selected, x.name);
    size_t before = json_array_size(runs);
    if (x.st == MB_OK && t->kind == MB_TASK_MODEL)
        x.st =
            run_model(t, eo, row, x.cwd, x.task, x.git, x.name, runs, &x.err);
    else if (x.st == MB_OK)
        run_command(eo, &x, runs);
    record_runs(o, t, doc, runs, before, *k, res->selected, &x);
    int stop = task_outcome(o, t, eo, &x, res, err);
    free(x.command);
    free(x.name);
    json_decref(x.task);
    json_decref(x.git);
    return stop;
}

/* The outcome of task x of a group measured together (mst: what the
 * measurement returned, merr its message; s its series or NULL; blamed:
 * whether some series of the group carries the error).  A task whose
 * partner failed is ok: its runs until then stand (stop rule
 * "group_failed"). */
static void group_outcome(suite_task *x, const mb__exec_series *s,
                          mb_status mst, const mb_err *merr, int blamed)
{
    if (x->st != MB_OK || mst == MB_OK)
        return;
    if (mst == MB_EINTERRUPTED || !s || !blamed) {
        x->st = mst;
        x->err = *merr;
    } else if (s->error) {
        x->st = mst;
        snprintf(x->err.msg, sizeof x->err.msg, "%s", s->error);
    }
}

/* The selected tasks of group g measured together (suite --compare):
 * one series each, interleaved in rounds (round r is every task's sample
 * r), so that drift on the machine hits them alike.  Returns true when
 * the suite stops. */
static int run_group(const mb__suite_opts *o, mb__tasks *t, mb__worktrees *wt,
                     mb__exec_opts *eo, json_t *doc, const size_t *group_of,
                     size_t g, size_t *k, mb__suite_result *res, mb_err *err)
{
    size_t n = 0, m = 0;
    for (size_t row = 0; row < t->csv.nrows; row++)
        n += group_of[row] == g;
    suite_task *x = mb__calloc(n ? n : 1, sizeof *x);
    mb__exec_cmd *cmds = mb__calloc(n ? n : 1, sizeof *cmds);
    size_t *ser_of = mb__calloc(n ? n : 1, sizeof *ser_of);
    json_t *with = json_array(), *runs = json_object_get(doc, "runs");
    int oom = !x || !cmds || !ser_of || !with, stop = oom;
    if (oom)
        res->stopped = mb__fail(err, MB_ENOMEM, "out of memory");
    for (size_t row = 0, i = 0; !oom && row < t->csv.nrows; row++) {
        if (group_of[row] != g)
            continue;
        prepare_task(t, wt, row, &x[i]);
        json_array_append_new(with, json_integer((json_int_t)row));
        if (o->on_start)
            o->on_start(o->user, *k + i + 1, res->selected, x[i].name);
        if (x[i].st == MB_OK) {
            cmds[m] = (mb__exec_cmd){x[i].name, x[i].command, NULL, x[i].cwd};
            ser_of[i] = m++;
        }
        i++;
    }
    mb__exec_series *ser = NULL;
    mb_err merr = {0}, later;
    mb_status mst =
        !oom && m ? mb__exec_measure(eo, cmds, m, &ser, &merr) : MB_OK;
    int blamed = 0;
    for (size_t i = 0; ser && i < m; i++)
        blamed |= ser[i].error != NULL;
    for (size_t i = 0; ser && blamed && mst != MB_EINTERRUPTED && i < m; i++)
        if (!ser[i].stop_rule && !ser[i].error)
            ser[i].stop_rule = mb__strdup("group_failed");
    for (size_t i = 0; !oom && i < n; i++) {
        size_t before = json_array_size(runs);
        const mb__exec_series *s =
            ser && x[i].st == MB_OK ? &ser[ser_of[i]] : NULL;
        group_outcome(&x[i], s, mst, &merr, blamed);
        if (s)
            append_series(eo, &x[i], s, runs, with);
        ++*k;
        record_runs(o, t, doc, runs, before, *k, res->selected, &x[i]);
        stop |= task_outcome(o, t, eo, &x[i], res, stop ? &later : err);
    }
    mb__exec_series_free(ser, m);
    for (size_t i = 0; !oom && i < n; i++) {
        free(x[i].command);
        free(x[i].name);
        json_decref(x[i].task);
        json_decref(x[i].git);
    }
    free(x);
    free(cmds);
    free(ser_of);
    json_decref(with);
    return stop;
}

size_t mb__suite_groups(const mb__tasks *t, size_t *group_of)
{
    json_t *seen = json_object();
    size_t n = 0;
    for (size_t row = 0; row < t->csv.nrows; row++) {
        char *key = group_key(t, row);
        json_t *g = key ? json_object_get(seen, key) : NULL;
        if (g)
            group_of[row] = (size_t)json_integer_value(g);
        else {
            group_of[row] = n;
            if (key)
                json_object_set_new(seen, key, json_integer((json_int_t)n));
            n++;
        }
        free(key);
    }
    json_decref(seen);
    return n;
}

/* Whether row is in this shard: by row, or with grouping by its group. */
static int selected_row(const mb__suite_opts *o, const size_t *group_of,
                        size_t row)
{
    size_t n_shard = o->shard_n > 0 ? (size_t)o->shard_n : 1;
    size_t unit = group_of ? group_of[row] : row;
    return (int64_t)(unit % n_shard) == o->shard_i;
}

mb_status mb__suite_run(const mb__suite_opts *o, json_t **doc_out,
                        mb__suite_result *res, mb_err *err)
{
    memset(res, 0, sizeof *res);
    *doc_out = NULL;
    mb__tasks tasks;
    mb_status st = mb__tasks_load(o->tasks_path, o->tmpl, &tasks, err);
    if (st != MB_OK)
        return st;
    mb__tasks *t = &tasks;
    mb__exec_opts eo = o->eo;
    mb__worktrees *wt = NULL;
    json_t *doc = mb__exec_doc("suite", o->command_line);
    size_t *group_of = NULL, n_groups = 0;
    if (o->interleave && t->kind == MB_TASK_COMMAND &&
        (group_of =
             mb__calloc(t->csv.nrows ? t->csv.nrows : 1, sizeof *group_of)))
        n_groups = mb__suite_groups(t, group_of);
    for (size_t i = 0; i < t->csv.nrows; i++)
        res->selected += selected_row(o, group_of, i);
    json_object_set_new(doc, "suite", suite_json(o, t, res->selected));
    json_object_set_new(json_object_get(doc, "suite"), "interleaved",
                        json_boolean(group_of != NULL));
    if (o->interleave && t->kind == MB_TASK_MODEL)
        warn(o, doc,
             "--compare: model tasks run one after another (only command "
             "tasks of a group are measured interleaved)");
    if ((t->col_branch >= 0 || o->repo) &&
        (st = open_worktrees(o, t, doc, &wt, err)) != MB_OK) {
        json_decref(doc);
        mb__tasks_free(t);
        free(group_of);
        return st;
    }
    int stop = 0;
    size_t k = 0;
    for (size_t g = 0; group_of && g < n_groups && !stop; g++)
        if (selected_row(o, NULL, g))
            stop = run_group(o, t, wt, &eo, doc, group_of, g, &k, res, err);
    for (size_t row = 0; !group_of && row < t->csv.nrows && !stop; row++)
        if (selected_row(o, NULL, row))
            stop = run_task(o, t, wt, &eo, doc, row, &k, res, err);
    json_object_set_new(doc, "interrupted", json_boolean(res->interrupted));
    mb__worktrees_close(wt);
    mb__tasks_free(t);
    free(group_of);
    *doc_out = doc;
    return MB_OK;
}
