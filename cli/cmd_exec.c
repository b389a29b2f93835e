/* cmd_exec.c - mbench exec [options] [--] CMD ARGS... | -c 'CMD' ...:
 * benchmark whole programs (docs/EXEC.md).  Parses the options (the table
 * below and the outputs), measures the commands with the exec engine
 * (src/exec/), prints the runs and the comparison, writes the outputs. */
#include "cli.h"
#include "exec_util.h"
#include "opt.h"
#include "outputs.h"
#include "reqopt.h"

#include "core/alloc.h"
#include "exec/params.h"
#include "report/execprint.h"
#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

MBENCH_COMMAND(exec, cmd_exec,
               "benchmark whole programs (commands), compare them")
MBENCH_OPTIONS(exec, mb_cmd_exec)

/* clang-format off */
enum { O_CMD, O_NAME, O_SHELL, O_PARAM, O_WARM, O_RUNS, O_MINRUNS, O_MAXRUNS,
       O_MINTIME, O_MAXTIME, O_CI, O_TIMEOUT, O_PREP, O_CLEAN, O_CWD, O_IGN,
       O_OUT, O_GPU, O_SEED, O_REQ, O_KEEP, O_N };

#define X(n, s, t, m, h, e, c, lo, hi, f, i) {n, s, t, m, h, e, c, lo, hi, f, i}
static const mb__opt exec_opts[] = {
    X("command", 'c', MB_OPT_STRING, "CMD", "a command (repeatable); split like sh words (quotes, backslashes; no expansion)", NULL, NULL, 0, 0, MB_OPT_REPEAT, O_CMD),
    X("name", 'n', MB_OPT_STRING, "NAME", "display name of a command (in the order given; repeatable)", NULL, NULL, 0, 0, MB_OPT_REPEAT, O_NAME),
    X("shell", 0, MB_OPT_SWITCH, NULL, "run commands through /bin/sh -c", NULL, NULL, 0, 0, 0, O_SHELL),
    X("param", 0, MB_OPT_KV, "NAME=a,b", "run once per value, replacing {NAME} (repeatable: every combination)", NULL, NULL, 0, 0, MB_OPT_REPEAT, O_PARAM),
    X("warmup", 'w', MB_OPT_INT, "N", "warmup runs per command (default 0)", "a count >= 0", NULL, 0, 1000000, 0, O_WARM),
    X("runs", 'r', MB_OPT_INT, "N", "exactly N measured runs per command", "a count >= 1", NULL, 1, 100000000, 0, O_RUNS),
    X("min-runs", 0, MB_OPT_INT, "N", "at least N measured runs (default 10)", "a count >= 1", NULL, 1, 100000000, 0, O_MINRUNS),
    X("max-runs", 0, MB_OPT_INT, "N", "at most N measured runs (default 1000)", "a count >= 1", NULL, 1, 100000000, 0, O_MAXRUNS),
    X("min-time", 0, MB_OPT_DURATION, "D", "measured time per command (default 3s)", "a duration like 3s", NULL, 0, 0, 0, O_MINTIME),
    X("max-time", 0, MB_OPT_DURATION, "D", "whole measurement (default 120s)", "a duration like 2m", NULL, 0, 0, 0, O_MAXTIME),
    X("target-ci", 0, MB_OPT_DOUBLE, "X", "median CI half-width / median (default 0.02; 0 off)", "a fraction in [0, 1]", NULL, 0, 1, 0, O_CI),
    X("timeout", 0, MB_OPT_DURATION, "D", "kill a run's process group after D (SIGTERM, then SIGKILL after 2 s)", "a duration like 30s", NULL, 0, 0, 0, O_TIMEOUT),
    X("prepare", 0, MB_OPT_STRING, "CMD", "shell command before each run", NULL, NULL, 0, 0, 0, O_PREP),
    X("cleanup", 0, MB_OPT_STRING, "CMD", "shell command after each run", NULL, NULL, 0, 0, 0, O_CLEAN),
    X("cwd", 0, MB_OPT_DIR, "DIR", "working directory of the runs", NULL, NULL, 0, 0, 0, O_CWD),
    X("ignore-failure", 0, MB_OPT_SWITCH, NULL, "record non-zero exits instead of stopping", NULL, NULL, 0, 0, 0, O_IGN),
    X("output", 0, MB_OPT_ENUM, "WHERE", "the command's stdout: null (default), pipe (drained, last 64 KiB kept), inherit", NULL, "null|pipe|inherit", 0, 0, 0, O_OUT),
    X("gpu-memory", 0, MB_OPT_SWITCH, NULL, "sample GPU memory through NVML (untested)", NULL, NULL, 0, 0, 0, O_GPU),
    X("seed", 0, MB_OPT_INT, "N", "bootstrap seed (default 42)", "a non-negative integer", NULL, 0, 9.2e18, 0, O_SEED),
    X("keep-leftovers", 0, MB_OPT_SWITCH, NULL, "leave processes a run leaves in its process group running (default: report and end them)", NULL, NULL, 0, 0, 0, O_KEEP),
    X("require", 0, MB_OPT_STRING, "EXPR", "a requirement on the results, e.g. speedup>=1.5, rss_peak<2GiB, metric.hit_rate>=80% (repeatable; docs/EXEC.md); exit 6 when one is not met", NULL, NULL, 0, 0, MB_OPT_REPEAT, O_REQ),
};
/* clang-format on */

const mb__cmd mb_cmd_exec = {
    "exec",
    "-- CMD [ARGS...]",
    "benchmark whole programs (commands), compare them",
    "Runs commands (after '--', or each -c 'CMD ARGS') as benchmarks: warmup "
    "runs, then measured runs until the median's 95% CI is within "
    "--target-ci (after --min-runs and --min-time) or a maximum is reached.  "
    "Several commands run interleaved (one run of each per round) and are "
    "compared with the first.  Programs may report phases, counters and "
    "metrics through MBENCH_EVENTS_FD (docs/EXEC.md).  The document is of "
    "kind \"exec\"; with --db its runs are stored by command name (variant), "
    "so `mbench gate` can judge them later.  -q shows no per-run progress.",
    exec_opts,
    sizeof exec_opts / sizeof exec_opts[0],
    MB_OPTSET_OUTPUT,
    0,
    -1,
    "Durations: 10, 10s, 500ms, 2m.  Exit codes: 0 ok, 2 usage, 3 a command "
    "failed or was not found, or an output could not be written, 6 a "
    "--require requirement not met, 130 interrupted."};

typedef struct eargs {
    mb__exec_opts o;
    char **tmpl, **names; /* borrowed from argv */
    size_t ntmpl, nnames;
    mb__exec_params params;
    mb__cli_execset es; /* --warmup, --runs, --seed, --require, ... */
} eargs;

static int on_opt(void *user, const mb__opt *opt, const mb__optval *v)
{
    eargs *a = user;
    mb__exec_opts *o = &a->o;
    mb_err err = {0};
    int64_t *const ints[O_N] = {[O_MINRUNS] = &o->min_runs,
                                [O_MAXRUNS] = &o->max_runs,
                                [O_MINTIME] = &o->min_time_ns,
                                [O_MAXTIME] = &o->max_time_ns};
    if (ints[opt->id])
        *ints[opt->id] = v->i;
    else if (opt->id == O_CWD)
        o->cwd = v->text;
    else if (opt->id == O_IGN)
        o->ignore_failure = 1;
    else if (opt->id == O_KEEP)
        o->keep_leftovers = 1;
    else if (opt->id == O_CMD)
        a->tmpl[a->ntmpl++] = (char *)v->text;
    else if (opt->id == O_NAME)
        a->names[a->nnames++] = (char *)v->text;
    else if (opt->id == O_PARAM &&
             mb__exec_params_add(&a->params, v->text, &err) != MB_OK)
        return mb_cli_error(MB_EXIT_USAGE, "%s", err.msg);
    else if (opt->id == O_CI)
        o->target_ci = v->d;
    else if (opt->id == O_OUT)
        o->out_mode = !strcmp(v->text, "pipe")      ? MB_OUT_PIPE
                      : !strcmp(v->text, "inherit") ? MB_OUT_INHERIT
                                                    : MB_OUT_NULL;
    else
        return mb_cli_execset_opt(&a->es, opt, v);
    return 0;
}

/* The progress line on stderr (mb__exec_opts.progress). */
static void progress(void *user, const mb__exec_cmd *c, int warmup, size_t run,
                     const mb__proc_result *r)
{
    char t[32];
    (void)user;
    fprintf(stderr, "\r\033[K%s %s #%zu: %s", warmup ? "warmup" : "run",
            c->name, run + 1, mb__fmt_ns((double)r->wall_ns, t, sizeof t));
    fflush(stderr);
}

int cmd_exec(int argc, char **argv)
{
    eargs a = {.es = {.seed = 42}};
    mb__exec_opts_defaults(&a.o);
    mb__exec_opts *o = &a.o;
    a.es.eo = o;
    mb__cli_outputs out = {0};
    mb_err err = {0};
    mb__exec_cmd *cmds = NULL;
    size_t ncmds = 0;
    mb__exec_series *ser = NULL;
    json_t *doc = NULL;
    a.tmpl = mb__calloc((size_t)argc + 2, sizeof *a.tmpl);
    a.names = mb__calloc((size_t)argc + 1, sizeof *a.names);
    mb__opt_ctx ctx = {NULL, &out, on_opt, &a, 0, NULL, 0};
    /* options end at the program: `mbench exec ls -l` runs ls -l */
    int k = mb_cli_first_operand(&mb_cmd_exec, argc, argv);
    int nc = argc - k - (k < argc && !strcmp(argv[k], "--"));
    int rc = a.tmpl && a.names ? mb_opt_parse(&mb_cmd_exec, k, argv, &ctx)
                               : mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
    if (rc) {
        rc = rc == MB_OPT_HELP ? MB_EXIT_OK : rc;
        goto cleanup;
    }
    if (mb__exec_commands(a.tmpl, a.ntmpl, nc, argv + argc - nc, a.names,
                          a.nnames, &a.params, o->shell, &cmds, &ncmds, &err)) {
        rc = mb_cli_fail(&err); /* 2 for a bad command, 3 out of memory */
        goto cleanup;
    }
    o->cancel = mb_cli_cancel_flag(0);
    if (!ctx.quiet && isatty(2))
        o->progress = progress;
    mb_cli_execset_gpu(&a.es);
    mb_status st = mb__exec_measure(o, cmds, ncmds, &ser, &err);
    if (o->progress)
        fprintf(stderr, "\r\033[K");
    doc = mb__exec_result(o, ser, ncmds, st, (uint64_t)a.es.seed,
                          mb_cli_command_line());
    json_object_set_new(doc, "git",
                        mb__git_info(out.git_dir ? out.git_dir : o->cwd));
    mb__buf b = MB_BUF_INIT;
    mb__exec_doc_console(&b, doc);
    if (o->gpu_memory && !o->nvml)
        mb__buf_puts(&b, "GPU memory: not available (libnvidia-ml.so.1 not "
                         "found)\n");
    mb_cli_put(&b);
    int req_rc =
        st == MB_OK ? mb_cli_reqs_judge(&a.es.reqs, doc, NULL, stdout) : 0;
    int written =
        out.json || out.csv || out.md || out.html || out.db || out.outdir;
    if (written)
        rc = mb_cli_outputs_write(&out, doc);
    if (st == MB_EINTERRUPTED)
        rc = mb_cli_error(mb_cli_interrupted_exit(), "interrupted; %s",
                          written ? "the runs measured so far were written"
                                  : "the runs measured so far are shown");
    else if (st != MB_OK)
        rc = mb_cli_error(MB_EXIT_RUNTIME, "%s", err.msg);
    rc = mb_cli_reqs_exit(rc, req_rc);
cleanup:
    json_decref(doc);
    mb__exec_series_free(ser, ncmds);
    mb__exec_cmds_free(cmds, ncmds);
    free(a.tmpl);
    free(a.names);
    mb__exec_params_free(&a.params);
    mb_cli_execset_free(&a.es);
    return rc;
}
