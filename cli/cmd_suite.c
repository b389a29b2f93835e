/* cmd_suite.c - mbench suite TASKS.csv: a table of tasks (commands on git
 * branches, or models) run into one result document (docs/EXEC.md). */
#include "cli.h"
#include "exec_util.h"
#include "outputs.h"

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/fileio.h"
#include "exec/nvml.h"
#include "exec/suite.h"
#include "exec/tasks.h"
#include "exec/worktree.h"
#include "runner/runner.h"
#include "store/store.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

MBENCH_COMMAND(suite, cmd_suite, "run a CSV table of tasks across git branches")

static void usage(FILE *f)
{
    fprintf(f,
        "usage: mbench suite TASKS.csv [options]\n\n"
        "Runs every task (row) of TASKS.csv and writes one result document.\n"
        "Command tasks (columns such as branch,experiment,trainer,max_epochs,\n"
        "batch_size,overrides) run --command with {column} placeholders (or a\n"
        "'command' column) in a temporary git worktree of their branch.  Model\n"
        "tasks (model,backend,batch_size,options) run like 'mbench run'.\n\n"
        "  -c, --command TEMPLATE  command of every task; {column}, {workdir}, {index}\n"
        "  -o, --output FILE       write the result document (kind \"suite\")\n"
        "      --skip-failed       record a failing task and go on (exit 0)\n"
        "      --timeout D         kill a task run's process group after D\n"
        "      --compare           speedups of each branch against the first, per\n"
        "                          experiment\n"
        "      --shard I/N         run only tasks whose 0-based index %% N == I\n"
        "      --repo DIR          the git repository of the branches (default .)\n"
        "      --db URL|FILE       also store each task's result (SQLite file or\n"
        "                          postgresql:// URL)\n"
        "  -r, --runs N            measured runs per command task (default 1)\n"
        "  -w, --warmup N          warmup runs per command task (default 0)\n"
        "      --shell             run commands through /bin/sh -c\n"
        "      --prepare CMD       shell command before each run (in the worktree)\n"
        "      --cleanup CMD       shell command after each run\n"
        "      --gpu-memory        sample GPU memory through NVML (untested)\n"
        "      --seed N            bootstrap seed (default 42)\n"
        "  -q, --quiet             print only the summary\n"
        "  -h, --help\n\n"
        "Exit: 0 ok (or failures skipped), 2 usage or bad tasks file, 3 a task\n"
        "failed, 130 interrupted (finished tasks are written).\n");
}

typedef struct suite_ctx {
    mb_tasks tasks;
    mb_exec_opts eo;
    mb_worktrees *wt;
    mb__store *store;
    json_t *doc;
    int quiet;
    size_t ran, failed;
} suite_ctx;

static json_t *git_json(const mb_worktree_info *wi)
{
    if (!wi || !wi->commit)
        return json_null();
    return json_pack("{s:s,s:s,s:s,s:b}", "branch", wi->branch, "commit",
                     wi->commit, "commit_date", wi->commit_date, "dirty", 0);
}

static char *group_key(const mb_tasks *t, size_t row)
{
    const char *e = mb__tasks_get(t, row, "experiment");
    if (e)
        return mb__strdup(e);
    mb_buf b = MB_BUF_INIT;
    for (size_t c = 0; c < t->csv.ncols; c++) {
        if (!strcmp(t->csv.header[c], "branch") ||
            (t->kind == MB_TASK_MODEL && !strcmp(t->csv.header[c], "backend")))
            continue;
        mb__buf_printf(&b, "%s%s", b.len ? "," : "", mb__csv_cell(&t->csv, row, c));
    }
    return mb__buf_take(&b, NULL);
}

static json_t *task_json(const mb_tasks *t, size_t row)
{
    char *g = group_key(t, row);
    json_t *o = json_pack("{s:I,s:s,s:s,s:I,s:s,s:o}", "index", (json_int_t)row,
                          "kind", t->kind == MB_TASK_MODEL ? "model" : "command",
                          "format", t->format, "line", (json_int_t)t->csv.line[row],
                          "group", g ? g : "", "row", mb__tasks_row_json(t, row));
    free(g);
    return o;
}

static json_t *failed_run(const mb_tasks *t, const char *variant,
                          const char *command, const char *status,
                          const char *error)
{
    json_t *r = json_object();
    json_object_set_new(r, "status", json_string(status));
    json_object_set_new(r, "error", json_string(error));
    json_object_set_new(r, "variant", json_string(variant));
    if (command)
        json_object_set_new(r, "command", json_string(command));
    json_object_set_new(r, "backend", json_string(t->kind == MB_TASK_MODEL ? "model" : "exec"));
    json_object_set_new(r, "iterations", json_integer(0));
    json_object_set_new(r, "latency", json_null());
    return r;
}

static char *label(const mb_tasks *t, size_t row, const char *command)
{
    const char *b = mb__tasks_get(t, row, "branch");
    const char *e = mb__tasks_get(t, row, "experiment");
    mb_buf s = MB_BUF_INIT;
    if (t->kind == MB_TASK_MODEL) {
        const char *m = mb__tasks_get(t, row, "model");
        const char *be = mb__tasks_get(t, row, "backend");
        const char *bs = mb__tasks_get(t, row, "batch_size");
        mb__buf_printf(&s, "%s%s%s", b && *b ? b : "", b && *b ? " " : "", mb__basename(m));
        if (be && *be)
            mb__buf_printf(&s, " %s", be);
        if (bs && *bs)
            mb__buf_printf(&s, " batch %s", bs);
    } else if (e || b) {
        mb__buf_printf(&s, "%s%s%s", b ? b : "", b && e ? " " : "", e ? e : "");
        for (size_t c = 0; c < t->csv.ncols; c++) {
            const char *h = t->csv.header[c];
            if (!strcmp(h, "branch") || !strcmp(h, "experiment") || !strcmp(h, "command"))
                continue;
            const char *v = mb__csv_cell(&t->csv, row, c);
            if (*v)
                mb__buf_printf(&s, " %s=%s", h, v);
        }
    } else {
        mb__buf_puts(&s, command ? command : "task");
    }
    return mb__buf_take(&s, NULL);
}

/* Runs model task row; appends its runs.  Returns the run status. */
static mb_status run_model(suite_ctx *x, size_t row, const char *cwd,
                           json_t *task, json_t *git, const char *name,
                           json_t *runs, mb_err *err)
{
    const mb_tasks *t = &x->tasks;
    mb_plan p;
    mb__plan_defaults(&p);
    p.cancel = x->eo.cancel;
    const char *model = mb__tasks_get(t, row, "model");
    const char *be = mb__tasks_get(t, row, "backend");
    const char *bs = mb__tasks_get(t, row, "batch_size");
    const char *op = mb__tasks_get(t, row, "options");
    if (!model || !*model)
        return mb__fail(err, MB_EINVAL, "%s line %zu: the model column is empty; give a model path", t->path, t->csv.line[row]);
    mb_buf path = MB_BUF_INIT;
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
    if (bs && *bs && mb_cli_parse_i64(bs, 1, 1 << 30, &p.batches[0]))
        st = mb__fail(err, MB_EINVAL, "%s line %zu: batch_size '%s' is not a positive integer", t->path, t->csv.line[row], bs);
    if (st == MB_OK && op && *op) {
        char *copy = mb__strdup(op), *save = NULL;
        for (char *kv = strtok_r(copy, ";", &save); kv && st == MB_OK; kv = strtok_r(NULL, ";", &save)) {
            char *eq = strchr(kv, '=');
            if (!eq || eq == kv)
                st = mb__fail(err, MB_EINVAL, "%s line %zu: option '%s' is not key=value (separate options with ';')", t->path, t->csv.line[row], kv);
            else {
                *eq = '\0';
                mb__plan_set_opt(&p, kv, eq + 1);
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
        if (json_string_value(json_object_get(r, "status")) && strcmp(json_string_value(json_object_get(r, "status")), "ok"))
            st = mb__fail(err, MB_EBACKEND, "%s", json_string_value(json_object_get(r, "error")) ? json_string_value(json_object_get(r, "error")) : "model task failed");
    }
    json_decref(doc);
    return st;
}

static void store_task(suite_ctx *x, const json_t *run, const json_t *git)
{
    if (!x->store)
        return;
    json_t *d = mb__exec_doc("suite", mb_cli_command_line());
    json_array_append(json_object_get(d, "runs"), (json_t *)run);
    json_object_set(d, "suite", json_object_get(x->doc, "suite"));
    mb_err err = {0};
    if (mb__store_put(x->store, d, json_is_object(git) ? git : NULL, &err) != MB_OK)
        mb_cli_warn("--db: %s", err.msg);
    json_decref(d);
}

static int parse_shard(const char *s, int64_t *i, int64_t *n)
{
    const char *slash = strchr(s, '/');
    if (!slash)
        return -1;
    char a[32];
    size_t la = (size_t)(slash - s);
    if (la == 0 || la >= sizeof a)
        return -1;
    memcpy(a, s, la);
    a[la] = '\0';
    if (mb_cli_parse_i64(a, 0, 1000000, i) || mb_cli_parse_i64(slash + 1, 1, 1000000, n) || *i >= *n)
        return -1;
    return 0;
}

static void print_compare(const json_t *cmp)
{
    char a[32];
    printf("\nSpeedup of each branch against the first, per experiment (ratio of medians):\n");
    size_t gi;
    json_t *g;
    json_array_foreach(json_object_get(cmp, "groups"), gi, g)
    {
        const char *bb = json_string_value(json_object_get(g, "baseline_branch"));
        printf("  %s  (baseline: %s)\n", json_string_value(json_object_get(g, "group")),
               bb ? bb : json_string_value(json_object_get(g, "baseline")) ? json_string_value(json_object_get(g, "baseline")) : "none succeeded");
        size_t ei;
        json_t *e;
        json_array_foreach(json_object_get(g, "entries"), ei, e)
        {
            const char *br = json_string_value(json_object_get(e, "branch"));
            printf("    %-32s ", br ? br : json_string_value(json_object_get(e, "variant")));
            if (!json_is_number(json_object_get(e, "speedup"))) {
                printf("FAILED or not comparable\n");
                continue;
            }
            double sp = json_number_value(json_object_get(e, "speedup"));
            printf("total %6.3fx", sp);
            const json_t *ci = json_object_get(e, "ratio_ci95");
            if (json_is_object(ci))
                printf(" [%.3f .. %.3f]", 1 / json_number_value(json_object_get(ci, "hi")), 1 / json_number_value(json_object_get(ci, "lo")));
            if (json_is_number(json_object_get(e, "p_value")))
                printf(" p=%.3g", json_number_value(json_object_get(e, "p_value")));
            const char *k;
            json_t *v;
            json_object_foreach(json_object_get(e, "phases"), k, v)
                printf("  %s %.3fx (%s)", k, json_number_value(json_object_get(v, "speedup")),
                       mb_cli_fmt_ns(json_number_value(json_object_get(v, "median_ns")), a, sizeof a));
            printf("\n");
        }
    }
    printf("  (speedup > 1: faster than the baseline)\n");
}

int cmd_suite(int argc, char **argv)
{
    enum { O_SKIP = 256, O_TIMEOUT, O_COMPARE, O_SHARD, O_REPO, O_DB, O_SHELL,
           O_PREP, O_CLEAN, O_GPU, O_SEED };
    static const struct option lo[] = {
        {"command", required_argument, 0, 'c'}, {"output", required_argument, 0, 'o'},
        {"json", required_argument, 0, 'o'},
        {"skip-failed", no_argument, 0, O_SKIP}, {"timeout", required_argument, 0, O_TIMEOUT},
        {"compare", no_argument, 0, O_COMPARE}, {"shard", required_argument, 0, O_SHARD},
        {"repo", required_argument, 0, O_REPO}, {"db", required_argument, 0, O_DB},
        {"runs", required_argument, 0, 'r'}, {"warmup", required_argument, 0, 'w'},
        {"shell", no_argument, 0, O_SHELL}, {"prepare", required_argument, 0, O_PREP},
        {"cleanup", required_argument, 0, O_CLEAN}, {"gpu-memory", no_argument, 0, O_GPU},
        {"seed", required_argument, 0, O_SEED},
        {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *tmpl = NULL, *out_path = NULL, *out_arg = NULL, *repo = NULL,
               *db = NULL;
    int skip = 0, compare = 0, quiet = 0, rc = MB_EXIT_OK;
    int64_t shard_i = 0, shard_n = 1, seed = 42;
    suite_ctx x;
    memset(&x, 0, sizeof x);
    mb__exec_opts_defaults(&x.eo);
    x.eo.fixed_runs = 1;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "c:o:r:w:qh", lo, NULL)) != -1) {
        switch (c) {
        case 'c': tmpl = optarg; break;
        case 'o': /* checked now, not after the tasks ran */
            out_arg = optarg;
            if ((rc = mb_cli_output_arg("--json", optarg, &out_path)))
                return rc;
            break;
        case O_SKIP: skip = 1; break;
        case O_TIMEOUT:
            if (mb_cli_parse_duration_ns(optarg, &x.eo.timeout_ns) || x.eo.timeout_ns <= 0)
                return mb_cli_bad_value("--timeout", optarg, "a duration like 30m");
            break;
        case O_COMPARE: compare = 1; break;
        case O_SHARD:
            if (parse_shard(optarg, &shard_i, &shard_n))
                return mb_cli_bad_value("--shard", optarg, "I/N with 0 <= I < N (0-based), e.g. 0/4");
            break;
        case O_REPO: repo = optarg; break;
        case O_DB:
            db = optarg;
            if (strstr(db, "://") == NULL &&
                (rc = mb_cli_output_check("--db", db)))
                return rc;
            break;
        case 'r':
            if (mb_cli_parse_i64(optarg, 1, 1000000, &x.eo.fixed_runs))
                return mb_cli_bad_value("--runs", optarg, "a count >= 1");
            break;
        case 'w':
            if (mb_cli_parse_i64(optarg, 0, 1000000, &x.eo.warmup))
                return mb_cli_bad_value("--warmup", optarg, "a count >= 0");
            break;
        case O_SHELL: x.eo.shell = 1; break;
        case O_PREP: x.eo.prepare = optarg; break;
        case O_CLEAN: x.eo.cleanup = optarg; break;
        case O_GPU: x.eo.gpu_memory = 1; break;
        case O_SEED:
            if (mb_cli_parse_i64(optarg, 0, INT64_MAX, &seed))
                return mb_cli_bad_value("--seed", optarg, "a non-negative integer");
            break;
        case 'q': quiet = 1; break;
        case 'h': usage(stdout); return MB_EXIT_OK;
        default:
            if (optopt && optopt < 256)
                return mb_cli_error(MB_EXIT_USAGE, "unknown or incomplete option '-%c' (see mbench suite --help)", optopt);
            return mb_cli_error(MB_EXIT_USAGE, "unknown or incomplete option '%s' (see mbench suite --help)", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return mb_cli_error(MB_EXIT_USAGE, "give exactly one tasks file: mbench suite TASKS.csv [options] (see --help)");
    const char *path = argv[optind];
    mb_err err = {0};
    if (mb__tasks_load(path, tmpl, &x.tasks, &err) != MB_OK)
        return mb_cli_error(err.code == MB_EIO ? MB_EXIT_RUNTIME : MB_EXIT_USAGE, "%s", err.msg);
    mb_tasks *t = &x.tasks;
    char sha[65] = "";
    mb__sha256_file(path, sha, NULL);
    x.doc = mb__exec_doc("suite", mb_cli_command_line());
    json_t *runs = json_object_get(x.doc, "runs");
    size_t selected = 0;
    for (size_t i = 0; i < t->csv.nrows; i++)
        selected += (int64_t)(i % (size_t)shard_n) == shard_i;
    json_object_set_new(x.doc, "suite",
        json_pack("{s:s,s:s,s:s,s:s,s:o,s:o,s:I,s:I,s:o,s:b,s:I}", "tasks_file", path,
                  "tasks_sha256", sha, "kind", t->kind == MB_TASK_MODEL ? "model" : "command",
                  "format", t->format, "template", tmpl ? json_string(tmpl) : json_null(),
                  "repo", json_null(), "tasks_total", (json_int_t)t->csv.nrows,
                  "tasks_selected", (json_int_t)selected,
                  "shard", shard_n > 1 ? json_pack("{s:I,s:I}", "index", (json_int_t)shard_i, "count", (json_int_t)shard_n) : json_null(),
                  "skip_failed", skip, "runs_per_task", (json_int_t)x.eo.fixed_runs));
    x.eo.cancel = mb_cli_cancel_flag(0);
    x.quiet = quiet;
    if (x.eo.gpu_memory) {
        mb_err ge = {0};
        if (mb__nvml_open(&x.eo.nvml, &ge) != MB_OK) {
            fprintf(stderr, "%s\n", ge.msg);
            json_array_append_new(json_object_get(x.doc, "warnings"), json_string(ge.msg));
        }
    }
    if (t->col_branch >= 0 || repo) {
        int dirty = 0;
        if (mb__worktrees_open(repo, &x.wt, &dirty, &err) != MB_OK) {
            rc = mb_cli_error(MB_EXIT_USAGE, "%s", err.msg);
            goto done;
        }
        json_object_set_new(json_object_get(x.doc, "suite"), "repo", json_string(mb__worktrees_repo(x.wt)));
        if (dirty) {
            char w[600];
            snprintf(w, sizeof w, "repository %s has uncommitted changes; tasks run the committed branch heads in worktrees, not your working tree", mb__worktrees_repo(x.wt));
            mb_cli_warn("%s", w);
            json_array_append_new(json_object_get(x.doc, "warnings"), json_string(w));
        }
    }
    if (db && mb__store_open(db, &x.store, &err) != MB_OK) {
        rc = mb_cli_error(MB_EXIT_RUNTIME, "--db: %s", err.msg);
        goto done;
    }
    int interrupted = 0, stop = 0;
    size_t k = 0;
    for (size_t row = 0; row < t->csv.nrows && !stop; row++) {
        if ((int64_t)(row % (size_t)shard_n) != shard_i)
            continue;
        k++;
        mb_worktree_info wi;
        memset(&wi, 0, sizeof wi);
        const char *branch = mb__tasks_get(t, row, "branch");
        const char *cwd = NULL;
        char *command = NULL, *name = NULL;
        json_t *task = task_json(t, row), *git = json_null();
        mb_status st = MB_OK;
        mb__err_clear(&err);
        if (branch && *branch) {
            st = mb__worktrees_get(x.wt, branch, &wi, &err);
            if (st == MB_OK) {
                cwd = wi.path;
                json_decref(git);
                git = git_json(&wi);
            }
        } else if (x.wt) {
            cwd = mb__worktrees_repo(x.wt);
        }
        if (st == MB_OK && t->kind == MB_TASK_COMMAND)
            st = mb__tasks_command(t, row, cwd, &command, &err);
        name = label(t, row, command);
        if (!quiet) {
            fprintf(stderr, "[%zu/%zu] running %s\n", k, selected, name);
            fflush(stderr);
        }
        size_t before = json_array_size(runs);
        if (st == MB_OK && t->kind == MB_TASK_MODEL) {
            st = run_model(&x, row, cwd, task, git, name, runs, &err);
        } else if (st == MB_OK) {
            mb_exec_cmd cmd = {name, command, NULL};
            x.eo.cwd = cwd;
            mb_exec_series *ser = NULL;
            st = mb__exec_measure(&x.eo, &cmd, 1, &ser, &err);
            if (ser) {
                json_t *r = mb__exec_run_json(&ser[0], &x.eo);
                if (st == MB_EINTERRUPTED)
                    json_object_set_new(r, "status", json_string("interrupted"));
                json_object_set(r, "task", task);
                json_object_set_new(r, "branch", branch ? json_string(branch) : json_null());
                json_object_set(r, "git", git);
                json_object_set_new(r, "workdir", cwd ? json_string(cwd) : json_null());
                json_array_append_new(runs, r);
            }
            mb__exec_series_free(ser, 1);
        }
        if (json_array_size(runs) == before && st != MB_OK) {
            json_t *r = failed_run(t, name, command, st == MB_EINTERRUPTED ? "interrupted" : "failed", err.msg);
            json_object_set(r, "task", task);
            json_object_set_new(r, "branch", branch ? json_string(branch) : json_null());
            json_object_set(r, "git", git);
            json_array_append_new(runs, r);
        }
        for (size_t i = before; i < json_array_size(runs); i++) {
            json_t *r = json_array_get(runs, i);
            if (!quiet) {
                printf("[%zu/%zu] ", k, selected);
                mb_cli_print_exec_run(stdout, r);
                if (wi.commit)
                    printf("  git     %s %.12s (%s)\n", wi.branch, wi.commit, wi.commit_date);
            }
            store_task(&x, r, git);
            const char *why = json_string_value(json_object_get(r, "error"));
            if (st != MB_OK && st != MB_EINTERRUPTED && why)
                snprintf(err.msg, sizeof err.msg, "%s", why);
        }
        if (st == MB_EINTERRUPTED || *x.eo.cancel) {
            interrupted = stop = 1;
        } else if (st != MB_OK) {
            x.failed++;
            if (!quiet)
                printf("  FAILED\n");
            if (!skip) {
                mb_cli_error(MB_EXIT_RUNTIME, "task %zu (%s line %zu) failed: %s; pass --skip-failed to go on with the other tasks", row, path, t->csv.line[row], err.msg);
                stop = 1;
            }
        }
        x.ran++;
        free(command);
        free(name);
        json_decref(task);
        json_decref(git);
        if (!quiet)
            fflush(stdout);
    }
    json_object_set_new(x.doc, "interrupted", json_boolean(interrupted));
    if (compare) {
        json_t *cmp = mb__suite_comparison(runs, (uint64_t)seed);
        print_compare(cmp);
        json_object_set_new(x.doc, "comparison", cmp);
    }
    printf("\n%zu of %zu task(s) run%s, %zu FAILED%s\n", x.ran, selected,
           shard_n > 1 ? " in this shard" : "", x.failed, interrupted ? ", interrupted" : "");
    if (out_path && mb_cli_write_doc(out_path, x.doc) != 0)
        rc = MB_EXIT_RUNTIME;
    else if (out_path && !quiet)
        printf("wrote %s\n", out_arg);
    if (interrupted)
        rc = mb_cli_error(MB_EXIT_INTERRUPTED, "interrupted; the finished tasks were %s", out_path ? "written" : "printed");
    else if (x.failed && !skip)
        rc = MB_EXIT_RUNTIME;
done:
    mb__worktrees_close(x.wt);
    mb__store_close(x.store);
    mb__nvml_close(x.eo.nvml);
    json_decref(x.doc);
    mb__tasks_free(&x.tasks);
    return rc;
}
