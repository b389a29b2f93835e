/* cmd_suite.c - mbench suite TASKS.csv: a table of tasks (commands on git
 * branches, or models) run into one result document (docs/EXEC.md).  The
 * engine is src/exec/suiterun.c; this file parses, calls and prints. */
#include "cli.h"
#include "exec_util.h"
#include "outputs.h"
#include "reqopt.h"

#include "exec/nvml.h"
#include "exec/suite.h"
#include "exec/suiterun.h"
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
        "      --fetch             fetch branches that are not found locally or as\n"
        "                          origin/NAME (shallow or single-branch clones)\n"
        "      --db URL|FILE       also store each task's result (SQLite file or\n"
        "                          postgresql:// URL)\n"
        "  -r, --runs N            measured runs per command task (default 1)\n"
        "  -w, --warmup N          warmup runs per command task (default 0)\n"
        "      --shell             run commands through /bin/sh -c\n"
        "      --prepare CMD       shell command before each run (in the worktree)\n"
        "      --cleanup CMD       shell command after each run\n"
        "      --gpu-memory        sample GPU memory through NVML (untested)\n"
        "      --seed N            bootstrap seed (default 42)\n"
        "      --md FILE, --html FILE, --csv FILE  reports of the suite document\n"
        "      --require EXPR      a requirement on every task's results, e.g.\n"
        "                          speedup>=1.2, metric.hit_rate>=0.8 (repeatable)\n"
        "  -q, --quiet             print only the summary\n"
        "  -h, --help\n\n"
        "{root} in the template or a cell is the repository root (files that are\n"
        "not committed, such as checkpoints, are not in the worktrees).\n\n"
        "Exit: 0 ok (or failures skipped), 2 usage or bad tasks file, 3 a task\n"
        "failed, 6 a --require requirement not met, 130 interrupted (finished\n"
        "tasks are written).\n");
}

static void on_start(void *user, size_t k, size_t selected, const char *name)
{
    if (*(const int *)user)
        return;
    fprintf(stderr, "[%zu/%zu] running %s\n", k, selected, name);
    fflush(stderr);
}

static void on_run(void *user, size_t k, size_t selected, const json_t *r)
{
    if (*(const int *)user)
        return;
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

static void on_warn(void *user, const char *msg)
{
    (void)user;
    mb_cli_warn("%s", msg);
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
           O_PREP, O_CLEAN, O_GPU, O_SEED, O_FETCH, O_REQ, O_MD, O_HTML, O_CSV };
    static const struct option lo[] = {
        {"command", required_argument, 0, 'c'}, {"output", required_argument, 0, 'o'},
        {"json", required_argument, 0, 'o'},
        {"skip-failed", no_argument, 0, O_SKIP}, {"timeout", required_argument, 0, O_TIMEOUT},
        {"compare", no_argument, 0, O_COMPARE}, {"shard", required_argument, 0, O_SHARD},
        {"repo", required_argument, 0, O_REPO}, {"db", required_argument, 0, O_DB},
        {"runs", required_argument, 0, 'r'}, {"warmup", required_argument, 0, 'w'},
        {"shell", no_argument, 0, O_SHELL}, {"prepare", required_argument, 0, O_PREP},
        {"cleanup", required_argument, 0, O_CLEAN}, {"gpu-memory", no_argument, 0, O_GPU},
        {"seed", required_argument, 0, O_SEED}, {"fetch", no_argument, 0, O_FETCH},
        {"require", required_argument, 0, O_REQ}, {"md", required_argument, 0, O_MD},
        {"html", required_argument, 0, O_HTML}, {"csv", required_argument, 0, O_CSV},
        {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *out_path = NULL, *out_arg = NULL, *db = NULL;
    int compare = 0, quiet = 0, rc = MB_EXIT_OK;
    int64_t seed = 42;
    mb_suite_opts so;
    memset(&so, 0, sizeof so);
    mb__exec_opts_defaults(&so.eo);
    so.eo.fixed_runs = 1;
    so.shard_n = 1;
    mb_cli_outputs rep = {0};
    mb_cli_reqs reqs = {0};
    json_t *doc = NULL;
    opterr = 0;
    optind = 1;
    int c;
#define BAD(x) do { rc = (x); goto done; } while (0)
    while ((c = getopt_long(argc, argv, "c:o:r:w:qh", lo, NULL)) != -1) {
        switch (c) {
        case 'c': so.tmpl = optarg; break;
        case 'o': /* checked now, not after the tasks ran */
            out_arg = optarg;
            if ((rc = mb_cli_output_arg("--json", optarg, &out_path)))
                goto done;
            break;
        case O_MD: case O_HTML: case O_CSV:
            if ((rc = mb_cli_output_check(c == O_MD ? "--md" : c == O_HTML ? "--html" : "--csv", optarg)))
                goto done;
            *(c == O_MD ? &rep.md : c == O_HTML ? &rep.html : &rep.csv) = optarg;
            break;
        case O_SKIP: so.skip_failed = 1; break;
        case O_TIMEOUT:
            if (mb_cli_parse_duration_ns(optarg, &so.eo.timeout_ns) || so.eo.timeout_ns <= 0)
                BAD(mb_cli_bad_value("--timeout", optarg, "a duration like 30m"));
            break;
        case O_COMPARE: compare = 1; break;
        case O_SHARD:
            if (parse_shard(optarg, &so.shard_i, &so.shard_n))
                BAD(mb_cli_bad_value("--shard", optarg, "I/N with 0 <= I < N (0-based), e.g. 0/4"));
            break;
        case O_REPO: so.repo = optarg; break;
        case O_FETCH: so.fetch = 1; break;
        case O_DB:
            db = optarg;
            if (strstr(db, "://") == NULL && (rc = mb_cli_output_check("--db", db)))
                goto done;
            break;
        case 'r':
            if (mb_cli_parse_i64(optarg, 1, 1000000, &so.eo.fixed_runs))
                BAD(mb_cli_bad_value("--runs", optarg, "a count >= 1"));
            break;
        case 'w':
            if (mb_cli_parse_i64(optarg, 0, 1000000, &so.eo.warmup))
                BAD(mb_cli_bad_value("--warmup", optarg, "a count >= 0"));
            break;
        case O_SHELL: so.eo.shell = 1; break;
        case O_PREP: so.eo.prepare = optarg; break;
        case O_CLEAN: so.eo.cleanup = optarg; break;
        case O_GPU: so.eo.gpu_memory = 1; break;
        case O_SEED:
            if (mb_cli_parse_i64(optarg, 0, INT64_MAX, &seed))
                BAD(mb_cli_bad_value("--seed", optarg, "a non-negative integer"));
            break;
        case O_REQ:
            if ((rc = mb_cli_reqs_add(&reqs, optarg)))
                goto done;
            break;
        case 'q': quiet = 1; break;
        case 'h': usage(stdout); goto done;
        default:
            if (optopt && optopt < 256)
                BAD(mb_cli_error(MB_EXIT_USAGE, "unknown or incomplete option '-%c' (see mbench suite --help)", optopt));
            BAD(mb_cli_error(MB_EXIT_USAGE, "unknown or incomplete option '%s' (see mbench suite --help)", argv[optind - 1]));
        }
    }
    if (optind != argc - 1)
        BAD(mb_cli_error(MB_EXIT_USAGE, "give exactly one tasks file: mbench suite TASKS.csv [options] (see --help)"));
    so.tasks_path = argv[optind];
    so.command_line = mb_cli_command_line();
    so.eo.cancel = mb_cli_cancel_flag(0);
    so.on_start = on_start;
    so.on_run = on_run;
    so.on_warn = on_warn;
    so.user = &quiet;
    mb_err err = {0};
    if (so.eo.gpu_memory && mb__nvml_open(&so.eo.nvml, &err) != MB_OK)
        mb_cli_warn("%s", err.msg);
    if (db && mb__store_open(db, &so.store, &err) != MB_OK)
        BAD(mb_cli_error(MB_EXIT_RUNTIME, "--db: %s", err.msg));
    mb_suite_result res;
    mb_status st = mb__suite_run(&so, &doc, &res, &err);
    if (!doc)
        BAD(mb_cli_error(st == MB_EIO ? MB_EXIT_RUNTIME : MB_EXIT_USAGE, "%s", err.msg));
    if (res.stopped)
        mb_cli_error(MB_EXIT_RUNTIME, "%s", err.msg);
    if (compare) {
        json_t *cmp = mb__suite_comparison(json_object_get(doc, "runs"), (uint64_t)seed);
        print_compare(cmp);
        json_object_set_new(doc, "comparison", cmp);
    }
    printf("\n%zu of %zu task(s) run%s, %zu FAILED%s\n", res.ran, res.selected,
           so.shard_n > 1 ? " in this shard" : "", res.failed, res.interrupted ? ", interrupted" : "");
    int req_rc = res.interrupted ? 0 : mb_cli_reqs_judge(&reqs, doc, NULL, stdout);
    if (out_path && mb_cli_write_doc(out_path, doc) != 0)
        rc = MB_EXIT_RUNTIME;
    else if (out_path && !quiet)
        printf("wrote %s\n", out_arg);
    if ((rep.md || rep.html || rep.csv) && mb_cli_outputs_write(&rep, doc))
        rc = MB_EXIT_RUNTIME;
    if (res.interrupted)
        rc = mb_cli_error(MB_EXIT_INTERRUPTED, "interrupted; the finished tasks were %s", out_path ? "written" : "printed");
    else if (res.failed && !so.skip_failed)
        rc = MB_EXIT_RUNTIME;
    rc = mb_cli_reqs_exit(rc, req_rc);
done:
    mb__store_close(so.store);
    mb__nvml_close(so.eo.nvml);
    mb_cli_reqs_free(&reqs);
    json_decref(doc);
    return rc;
}
