/* cmd_exec.c - mbench exec: benchmark whole programs (docs/EXEC.md).
 *
 *   mbench exec [options] -- CMD ARGS...          one command, as argv
 *   mbench exec [options] -c 'CMD1' -c 'CMD2'     several, compared
 *
 * Commands given with -c are split into words like sh does (quotes,
 * backslashes; no expansion) unless --shell.  Several commands are measured
 * interleaved (one run of each per round) and compared with the first. */
#include "cli.h"
#include "exec_util.h"
#include "outputs.h"
#include "reqopt.h"

#include "core/alloc.h"
#include "core/buf.h"
#include "exec/nvml.h"
#include "exec/params.h"
#include "store/store.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

MBENCH_COMMAND(exec, cmd_exec, "benchmark whole programs (commands), compare them")

static void usage(FILE *f)
{
    fprintf(f,
        "usage: mbench exec [options] -- CMD [ARGS...]\n"
        "       mbench exec [options] -c 'CMD1 ARGS' -c 'CMD2 ARGS' ...\n\n"
        "Runs commands as benchmarks: warmup runs, then measured runs until the\n"
        "median's 95%% CI is within --target-ci (after --min-runs and --min-time)\n"
        "or a maximum is reached.  Several commands run interleaved and are\n"
        "compared with the first.  Programs may report phases, counters and\n"
        "metrics through MBENCH_EVENTS_FD (docs/EXEC.md).\n\n"
        "commands:\n"
        "  -c, --command CMD      a command (repeatable); split like sh words\n"
        "  -n, --name NAME        display name of a command (in the order given)\n"
        "      --shell            run commands through /bin/sh -c\n"
        "      --param NAME=a,b   run once per value, replacing {NAME} (repeatable:\n"
        "                         every combination)\n"
        "runs:\n"
        "  -w, --warmup N         warmup runs per command (default 0)\n"
        "  -r, --runs N           exactly N measured runs per command\n"
        "      --min-runs N       (default 10)      --max-runs N   (default 1000)\n"
        "      --min-time D       measured time per command (default 3s)\n"
        "      --max-time D       whole measurement (default 120s)\n"
        "      --target-ci X      median CI half-width / median (default 0.02; 0 off)\n"
        "      --timeout D        kill a run's process group after D (SIGTERM, then\n"
        "                         SIGKILL after 2 s)\n"
        "      --prepare CMD      shell command before each run\n"
        "      --cleanup CMD      shell command after each run\n"
        "      --cwd DIR          working directory of the runs\n"
        "      --ignore-failure   record non-zero exits instead of stopping\n"
        "      --output WHERE     the command's stdout: null (default), pipe\n"
        "                         (drained, last 64 KiB kept), inherit\n"
        "      --gpu-memory       sample GPU memory through NVML (untested)\n"
        "results:\n"
        "      --seed N           bootstrap seed (default 42)\n"
        "      --require EXPR     a requirement on the results, e.g. speedup>=1.5,\n"
        "                         rss_peak<2GiB, metric.hit_rate>=80%% (repeatable;\n"
        "                         docs/EXEC.md); exit 6 when one is not met\n"
        "  -q, --quiet            no per-run progress\n"
        "  -h, --help\n\n"
        "%s\n"
        "The document is of kind \"exec\"; with --db its runs are stored by\n"
        "command name (variant), so `mbench gate` can judge them later.\n"
        "Durations: 10, 10s, 500ms, 2m.  Exit: 0 ok, 2 usage, 3 a command failed\n"
        "or was not found, or an output could not be written, 6 a --require\n"
        "requirement not met, 130 interrupted.\n",
        mb_cli_outputs_help);
}

#define FAIL(code)                                                           \
    do {                                                                     \
        rc = (code);                                                         \
        goto cleanup;                                                        \
    } while (0)

static void progress(void *user, const mb_exec_cmd *c, int warmup, size_t run,
                     const mb_proc_result *r)
{
    (void)user;
    char t[32];
    fprintf(stderr, "\r\033[K%s %s #%zu: %s", warmup ? "warmup" : "run", c->name,
            run + 1, mb_cli_fmt_ns((double)r->wall_ns, t, sizeof t));
    fflush(stderr);
}

/* Prints the document: every run, then the comparison. */
static void print_doc(const json_t *doc)
{
    size_t i;
    json_t *run;
    json_array_foreach(json_object_get(doc, "runs"), i, run)
    {
        if (i)
            fputc('\n', stdout);
        mb_cli_print_exec_run(stdout, run);
    }
    if (json_object_get(doc, "comparison"))
        mb_cli_print_comparison(stdout, json_object_get(doc, "comparison"));
}

int cmd_exec(int argc, char **argv)
{
    enum { O_SHELL = 256, O_PARAM, O_MINRUNS, O_MAXRUNS, O_MINTIME, O_MAXTIME,
           O_CI, O_TIMEOUT, O_PREP, O_CLEAN, O_CWD, O_IGN, O_OUT, O_GPU,
           O_SEED, O_REQ };
    static const struct option own[] = {
        {"command", required_argument, 0, 'c'}, {"name", required_argument, 0, 'n'},
        {"shell", no_argument, 0, O_SHELL}, {"param", required_argument, 0, O_PARAM},
        {"warmup", required_argument, 0, 'w'}, {"runs", required_argument, 0, 'r'},
        {"min-runs", required_argument, 0, O_MINRUNS},
        {"max-runs", required_argument, 0, O_MAXRUNS},
        {"min-time", required_argument, 0, O_MINTIME},
        {"max-time", required_argument, 0, O_MAXTIME},
        {"target-ci", required_argument, 0, O_CI},
        {"timeout", required_argument, 0, O_TIMEOUT},
        {"prepare", required_argument, 0, O_PREP},
        {"cleanup", required_argument, 0, O_CLEAN},
        {"cwd", required_argument, 0, O_CWD},
        {"ignore-failure", no_argument, 0, O_IGN},
        {"output", required_argument, 0, O_OUT},
        {"gpu-memory", no_argument, 0, O_GPU},
        {"seed", required_argument, 0, O_SEED},
        {"require", required_argument, 0, O_REQ},
        {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}};
    enum { N_OWN = sizeof own / sizeof own[0] };
    /* Ours, then --json --csv --md --html --db --git-dir (outputs.h). */
    struct option lo[N_OWN + MB_CLI_N_OUTPUT_OPTIONS + 1];
    memcpy(lo, own, sizeof own);
    memcpy(lo + N_OWN, mb_cli_output_options,
           (MB_CLI_N_OUTPUT_OPTIONS + 1) * sizeof *lo);
    mb_cli_outputs out = {0};
    mb_exec_opts o;
    mb__exec_opts_defaults(&o);
    char **tmpl = NULL, **names = NULL;
    size_t ntmpl = 0, nnames = 0;
    mb_exec_params params = {0};
    mb_cli_reqs reqs = {0};
    mb_err err = {0};
    int64_t seed = 42;
    int quiet = 0, rc = MB_EXIT_OK;
    mb_exec_cmd *cmds = NULL;
    size_t ncmds = 0;
    mb_exec_series *ser = NULL;
    json_t *doc = NULL;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "+c:n:w:r:qh", lo, NULL)) != -1) {
        switch (c) {
        case 'c':
            tmpl = mb__realloc_array(tmpl, ntmpl + 1, sizeof *tmpl);
            tmpl[ntmpl++] = mb__strdup(optarg);
            break;
        case 'n':
            names = mb__realloc_array(names, nnames + 1, sizeof *names);
            names[nnames++] = optarg;
            break;
        case O_SHELL: o.shell = 1; break;
        case O_PARAM:
            if (mb__exec_params_add(&params, optarg, &err) != MB_OK)
                FAIL(mb_cli_error(MB_EXIT_USAGE, "%s", err.msg));
            break;
        case O_REQ:
            if ((rc = mb_cli_reqs_add(&reqs, optarg)))
                goto cleanup;
            break;
        case 'w':
            if (mb_cli_parse_i64(optarg, 0, 1000000, &o.warmup))
                FAIL(mb_cli_bad_value("--warmup", optarg, "a count >= 0"));
            break;
        case 'r':
            if (mb_cli_parse_i64(optarg, 1, 100000000, &o.fixed_runs))
                FAIL(mb_cli_bad_value("--runs", optarg, "a count >= 1"));
            break;
        case O_MINRUNS:
            if (mb_cli_parse_i64(optarg, 1, 100000000, &o.min_runs))
                FAIL(mb_cli_bad_value("--min-runs", optarg, "a count >= 1"));
            break;
        case O_MAXRUNS:
            if (mb_cli_parse_i64(optarg, 1, 100000000, &o.max_runs))
                FAIL(mb_cli_bad_value("--max-runs", optarg, "a count >= 1"));
            break;
        case O_MINTIME:
            if (mb_cli_parse_duration_ns(optarg, &o.min_time_ns))
                FAIL(mb_cli_bad_value("--min-time", optarg, "a duration like 3s"));
            break;
        case O_MAXTIME:
            if (mb_cli_parse_duration_ns(optarg, &o.max_time_ns))
                FAIL(mb_cli_bad_value("--max-time", optarg, "a duration like 2m"));
            break;
        case O_CI:
            if (mb_cli_parse_double(optarg, 0, 1, &o.target_ci))
                FAIL(mb_cli_bad_value("--target-ci", optarg, "a fraction in [0, 1]"));
            break;
        case O_TIMEOUT:
            if (mb_cli_parse_duration_ns(optarg, &o.timeout_ns) || o.timeout_ns <= 0)
                FAIL(mb_cli_bad_value("--timeout", optarg, "a duration like 30s"));
            break;
        case O_PREP: o.prepare = optarg; break;
        case O_CLEAN: o.cleanup = optarg; break;
        case O_CWD: o.cwd = optarg; break;
        case O_IGN: o.ignore_failure = 1; break;
        case O_OUT:
            if (!strcmp(optarg, "null"))
                o.out_mode = MB_OUT_NULL;
            else if (!strcmp(optarg, "pipe"))
                o.out_mode = MB_OUT_PIPE;
            else if (!strcmp(optarg, "inherit"))
                o.out_mode = MB_OUT_INHERIT;
            else
                FAIL(mb_cli_bad_value("--output", optarg, "null, pipe or inherit"));
            break;
        case O_GPU: o.gpu_memory = 1; break;
        case O_SEED:
            if (mb_cli_parse_i64(optarg, 0, INT64_MAX, &seed))
                FAIL(mb_cli_bad_value("--seed", optarg, "a non-negative integer"));
            break;
        case 'q': quiet = 1; break;
        case 'h': usage(stdout); FAIL(MB_EXIT_OK);
        default:
            if (mb_cli_outputs_handle(&out, c, optarg))
                break;
            if (optopt && optopt < 256)
                FAIL(mb_cli_error(MB_EXIT_USAGE, "unknown or incomplete option '-%c' (see mbench exec --help)", optopt));
            FAIL(mb_cli_error(MB_EXIT_USAGE, "unknown or incomplete option '%s' (see mbench exec --help)", argv[optind - 1]));
        }
    }
    if (optind < argc) {
        int k = optind;
        if (!strcmp(argv[k], "--"))
            k++;
        if (k < argc) {
            tmpl = mb__realloc_array(tmpl, ntmpl + 1, sizeof *tmpl);
            tmpl[ntmpl++] = mb__exec_join_argv(argc - k, argv + k, o.shell);
        }
    }
    if (ntmpl == 0)
        FAIL(mb_cli_error(MB_EXIT_USAGE, "no command: give one after '--' or with -c 'CMD' (see mbench exec --help)"));
    if (mb__exec_expand(tmpl, ntmpl, names, nnames, &params, o.shell, &cmds,
                        &ncmds, &err) != MB_OK)
        FAIL(mb_cli_error(err.code == MB_ENOMEM ? MB_EXIT_RUNTIME : MB_EXIT_USAGE, "%s", err.msg));
    o.cancel = mb_cli_cancel_flag(0);
    if (!quiet && isatty(2)) {
        o.progress = progress;
    }
    if (o.gpu_memory) {
        mb_err ge = {0};
        if (mb__nvml_open(&o.nvml, &ge) != MB_OK)
            fprintf(stderr, "%s\n", ge.msg);
        else
            fprintf(stderr, "GPU memory: sampled through NVML (untested path)\n");
    }
    mb_status st = mb__exec_measure(&o, cmds, ncmds, &ser, &err);
    if (o.progress)
        fprintf(stderr, "\r\033[K");
    doc = mb__exec_result(&o, ser, ncmds, st, (uint64_t)seed, mb_cli_command_line());
    json_object_set_new(doc, "git", mb__git_info(out.git_dir ? out.git_dir : o.cwd));
    print_doc(doc);
    if (o.gpu_memory && !o.nvml)
        printf("GPU memory: not available (libnvidia-ml.so.1 not found)\n");
    int req_rc = st == MB_OK ? mb_cli_reqs_judge(&reqs, doc, NULL, stdout) : 0;
    int written = out.json || out.csv || out.md || out.html || out.db || out.outdir;
    if (written)
        rc = mb_cli_outputs_write(&out, doc);
    if (st == MB_EINTERRUPTED)
        rc = mb_cli_error(MB_EXIT_INTERRUPTED, "interrupted; %s", written ? "the runs measured so far were written" : "the runs measured so far are shown");
    else if (st != MB_OK)
        rc = mb_cli_error(MB_EXIT_RUNTIME, "%s", err.msg);
    rc = mb_cli_reqs_exit(rc, req_rc);
cleanup:
    json_decref(doc);
    mb__exec_series_free(ser, ncmds);
    mb__nvml_close(o.nvml);
    mb__exec_cmds_free(cmds, ncmds);
    for (size_t k = 0; k < ntmpl; k++)
        free(tmpl[k]);
    free(tmpl);
    free(names);
    mb__exec_params_free(&params);
    mb_cli_reqs_free(&reqs);
    return rc;
}
