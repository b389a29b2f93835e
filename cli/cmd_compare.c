/* cmd_compare.c - mbench compare: parse the variants and options, call
 * the compare engine (src/compare/cmprun.c), print its table, write the
 * outputs. */
#include "cli.h"
#include "exec_util.h"
#include "opt.h"
#include "outputs.h"
#include "reqopt.h"
#include "slurmopt.h"

#include "core/alloc.h"
#include "core/clock.h"
#include "core/fileio.h"
#include "report/console.h"
#include "report/rutil.h"
#include "request/compare.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

MBENCH_COMMAND(compare, cmd_compare,
               "compare a baseline and its variants: speed, memory, size, "
               "accuracy")
MBENCH_OPTIONS(compare, mb_cmd_compare)

enum {
    O_BASE,
    O_LABELS,
    O_OUTPUT,
    O_SAVEOUT,
    O_TOL,
    O_THRESH,
    O_ATOL,
    O_RTOL,
    O_VARFILE,
    O_REQUIRE,
    O_GATE,
    O_TIMEOUT,
    O_FAILFAST,
    O_MAP,
    O_HEATSAMPLE,
    N_OPTS
};

static const mb__opt compare_opts[] = {
    {.name = "baseline",
     .type = MB_OPT_STRING,
     .metavar = "NAME",
     .help = "the variant the others are judged against (default: the first)",
     .id = O_BASE},
    {.name = "variants",
     .type = MB_OPT_FILE,
     .metavar = "FILE",
     .help = "variant specifications, one per line (# comments)",
     .flags = MB_OPT_REPEAT,
     .id = O_VARFILE},
    {.name = "labels",
     .type = MB_OPT_FILE,
     .metavar = "FILE",
     .help = "class ids (.npy or text): top-1/top-5 accuracy",
     .id = O_LABELS},
    {.name = "tolerance",
     .type = MB_OPT_DOUBLE,
     .metavar = "F",
     .help = "accuracy loss allowed (default 0.01)",
     .expect = "an accuracy difference in [0, 1]",
     .hi = 1,
     .id = O_TOL},
    {.name = "output",
     .type = MB_OPT_STRING,
     .metavar = "NAME",
     .help = "the output judged by top-1 measures and labels",
     .id = O_OUTPUT},
    /* lo -1: a threshold of 0 (every change counts) is allowed */
    {.name = "threshold",
     .type = MB_OPT_FRACTION,
     .metavar = "F",
     .help = "noise threshold: smaller speed changes are 'same' (default 1%)",
     .expect = "a fraction such as 0.01 or 1%",
     .lo = -1,
     .hi = 0.5,
     .id = O_THRESH},
    {.name = "require",
     .type = MB_OPT_STRING,
     .metavar = "EXPR",
     .help = "a target per variant, e.g. 'speedup>=2', 'size_ratio<=0.5', "
             "'gates=pass', 'OUTPUT:rel_l2<=0.01', 'top1_delta>=-0.01' (exit 6 "
             "when unmet; docs/CLI.md)",
     .flags = MB_OPT_REPEAT,
     .id = O_REQUIRE},
    {.name = "gate",
     .type = MB_OPT_STRING,
     .metavar = "'METRIC OP X'",
     .help = "output-agreement gate (default: per precision)",
     .flags = MB_OPT_REPEAT,
     .id = O_GATE},
    {.name = "atol",
     .type = MB_OPT_DOUBLE,
     .metavar = "X",
     .help = "allclose absolute tolerance (default 1e-8)",
     .expect = "a non-negative number",
     .hi = 1e300,
     .id = O_ATOL},
    {.name = "rtol",
     .type = MB_OPT_DOUBLE,
     .metavar = "X",
     .help = "allclose relative tolerance (default 1e-5)",
     .expect = "a non-negative number",
     .hi = 1e300,
     .id = O_RTOL},
    {.name = "timeout",
     .type = MB_OPT_DURATION,
     .metavar = "D",
     .help =
         "kill a variant that takes longer than D for one step (default 10m)",
     .expect = "a duration such as 30s or 5m",
     .id = O_TIMEOUT},
    {.name = "fail-fast",
     .type = MB_OPT_SWITCH,
     .help = "stop at the first failed variant",
     .id = O_FAILFAST},
    {.name = "save-outputs",
     .type = MB_OPT_DIR,
     .metavar = "DIR",
     .help = "write every variant's outputs as .npy",
     .id = O_SAVEOUT},
    {.name = "map",
     .type = MB_OPT_STRING,
     .metavar = "BASE=CAND",
     .help = "pair the baseline's output BASE with a variant's CAND (a renamed "
             "output; repeatable)",
     .expect = "BASE=CAND, e.g. logits=scores",
     .flags = MB_OPT_REPEAT,
     .id = O_MAP},
    {.name = "heatmap-sample",
     .type = MB_OPT_INT,
     .metavar = "N",
     .help = "the sample the HTML report's heatmaps draw (default: each "
             "variant's worst)",
     .expect = "an integer >= 0",
     .hi = 9.2e18,
     .id = O_HEATSAMPLE},
    MB_SLURM_OPTS,
};

const mb__cmd mb_cmd_compare = {
    "compare",
    "NAME=MODEL[,option=value...] ...",
    "compare a baseline and its variants: speed, memory, size, accuracy",
    "Measures a baseline (the first variant, or --baseline NAME) and its "
    "variants, given as arguments or with --variants FILE, in --processes K "
    "rounds (default 40): each round starts a fresh process per variant and "
    "runs them in interleaved slots.  Speedups are ratios of per-process "
    "medians, paired by round, with Student-t 95% CIs over the processes; a "
    "change is claimed only when significant and beyond the noise threshold.  "
    "Also memory, model size, accuracy against --labels and output "
    "agreement, with recommendations.  Variant options are run options "
    "without dashes: fp32=model.onnx int8=model_int8.onnx "
    "fp32-opt=model.onnx,opt-level=all,threads=2",
    compare_opts,
    sizeof compare_opts / sizeof compare_opts[0],
    MB_OPTSET_RUN | MB_OPTSET_OUTPUT,
    0,
    -1,
    "Exit codes: 0 success, 2 usage error, 3 runtime error or a FAILED "
    "variant, 6 a --require target unmet, 130 interrupted."};

typedef struct cargs {
    mb__compare_call c; /* the request and its variants */
    const char *baseline;
    char **specs; /* from --variants files, then the arguments */
    size_t n_specs, n_gates, nv;
    mb__gate gates[32];
    mb__outmap maps[MB__MAX_OUTMAPS];
    size_t n_maps;
    mb__cli_reqs reqs;
    mb__cli_slurm sl; /* --slurm and its options (cmd_slurm.c) */
} cargs;

static int on_opt(void *user, const mb__opt *o, const mb__optval *v)
{
    cargs *a = user;
    mb__compare_req *rq = &a->c.rq;
    mb_err err = {0};
    if (!mb_cli_slurm_opt(&a->sl, o, v))
        return 0;
    const char **str[N_OPTS] = {[O_BASE] = &a->baseline,
                                [O_LABELS] = &rq->labels_path,
                                [O_OUTPUT] = &rq->output,
                                [O_SAVEOUT] = &rq->save_outputs};
    double *num[N_OPTS] = {[O_TOL] = &rq->tolerance,
                           [O_THRESH] = &rq->threshold,
                           [O_ATOL] = &rq->metrics.atol,
                           [O_RTOL] = &rq->metrics.rtol};
    if (str[o->id])
        *str[o->id] = v->str;
    if (num[o->id])
        *num[o->id] = v->d;
    switch (o->id) {
    case O_SAVEOUT:
        return mb_cli_output_dir_check("--save-outputs", v->str);
    case O_VARFILE:
        return mb__read_lines(v->str, &a->specs, &a->n_specs, &err)
                   ? mb_cli_fail(&err)
                   : 0;
    case O_REQUIRE:
        return mb_cli_reqs_add(&a->reqs, v->str);
    case O_GATE:
        if (a->n_gates == sizeof a->gates / sizeof a->gates[0])
            return mb_cli_error(MB_EXIT_USAGE, "too many --gate (at most 32)");
        if (mb__gate_parse(v->str, &a->gates[a->n_gates++], &err))
            return mb_cli_error(MB_EXIT_USAGE, "%s", err.msg);
        return 0;
    case O_TIMEOUT:
        rq->timeout_ns = v->i;
        return v->i ? 0
                    : mb_cli_bad_value("--timeout", v->text,
                                       "a duration such as 30s or 5m");
    case O_FAILFAST:
        rq->fail_fast = 1;
        return 0;
    case O_MAP:
        if (a->n_maps == MB__MAX_OUTMAPS)
            return mb_cli_error(MB_EXIT_USAGE, "too many --map (at most %d)",
                                MB__MAX_OUTMAPS);
        if (mb__outmap_parse(v->str, &a->maps[a->n_maps], &err))
            return mb_cli_error(MB_EXIT_USAGE, "%s", err.msg);
        rq->maps = a->maps;
        rq->n_maps = ++a->n_maps;
        return 0;
    case O_HEATSAMPLE:
        rq->heatmap_sample = v->i;
    }
    return 0;
}

static void progress(void *user, const char *what, size_t round, size_t rounds,
                     int64_t elapsed_ns)
{
    mb_cli_rounds_progress(user, what, round, rounds, elapsed_ns);
}

/* The table and recommendations on stdout (src/report/console_cmp.c);
 * a log (not a terminal) gets every column. */
static void print_table(const json_t *doc)
{
    mb__console_opts co = {mb_cli_term_width(1), mb_cli_use_color(1)};
    mb__buf b = MB_BUF_INIT;
    mb__report_compare_console(doc, &co, &b);
    fwrite(b.data ? b.data : "", 1, b.len, stdout);
    mb__buf_free(&b);
}

/* Whether variant e FAILED. */
static bool failed(const json_t *e)
{
    const char *s = mb__jstr(e, "status");
    return s && strcmp(s, "failed") == 0;
}

/* Whether some variant of some batch size FAILED. */
static bool any_failed(const json_t *doc)
{
    const json_t *c, *e;
    size_t b, i;
    json_array_foreach(json_object_get(doc, "comparisons"), b, c)
    {
        json_array_foreach(json_object_get(c, "variants"), i, e)
        {
            if (failed(e))
                return true;
        }
    }
    return false;
}

/* The exit code of a finished comparison: a FAILED variant is a runtime
 * error (named with its batch size when there are several), an
 * interrupted one 130. */
static int verdict_code(const json_t *doc)
{
    const json_t *all = json_object_get(doc, "comparisons"), *c, *e;
    size_t i, b;
    char at[48] = "";
    json_array_foreach(all, b, c)
    {
        json_array_foreach(json_object_get(c, "variants"), i, e)
        {
            if (failed(e) && json_array_size(all) > 1)
                snprintf(at, sizeof at, " at batch %.0f",
                         mb__jnum(c, "batch_size"));
            if (failed(e))
                return mb_cli_error(MB_EXIT_RUNTIME, "variant %s FAILED%s: %s",
                                    mb__jstr(e, "name"), at,
                                    mb__jstr(e, "error"));
        }
    }
    return json_is_true(json_object_get(doc, "interrupted"))
               ? mb_cli_interrupted_exit()
               : 0;
}

/* The specifications (--variants files, then the n arguments) into the
 * engine's request through the request layer, the baseline found: 0 or
 * an exit code after printing. */
static int plan_variants(cargs *a, char **args, int n, const mb__plan *plan)
{
    size_t all = a->n_specs + (size_t)n;
    char **grown = mb__realloc_array(a->specs, all ? all : 1, sizeof *grown);
    a->specs = grown ? grown : a->specs;
    for (int i = 0; grown && i < n; i++)
        if (!(a->specs[a->n_specs++] = mb__strdup(args[i])))
            grown = NULL;
    if (!grown)
        return mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
    mb_err err = {0};
    if (mb__compare_prepare(&a->c, (const char *const *)a->specs, all, plan,
                            a->baseline, "--baseline", &err))
        return all < 2
                   ? mb_cli_error(MB_EXIT_USAGE,
                                  "%s; see 'mbench compare --help'", err.msg)
                   : mb_cli_fail(&err);
    return 0;
}

int cmd_compare(int argc, char **argv)
{
    mb__plan plan;
    mb__plan_defaults(&plan);
    mb__cli_outputs out = {0};
    cargs a = {0};
    mb__compare_call_init(&a.c);
    mb__opt_ctx ctx = {&plan, &out, on_opt, &a, 0, NULL, 0};
    /* argv as given, for --slurm (mb_opt_parse reorders argv) */
    char **given = calloc((size_t)argc + 1, sizeof *given);
    if (given)
        memcpy(given, argv, (size_t)argc * sizeof *argv);
    int rc = mb_opt_parse(&mb_cmd_compare, argc, argv, &ctx);
    plan.save_samples = 1;
    if (!rc)
        rc = plan_variants(&a, ctx.args, ctx.n_args, &plan);
    json_t *doc = NULL;
    mb_err err = {0};
    mb__cli_rounds ps = {mb_now_ns(), 0, 0, 0};
    a.c.rq.processes = plan.processes;
    a.c.rq.gates = a.gates;
    a.c.rq.n_gates = a.n_gates;
    a.c.rq.command_line = mb_cli_command_line();
    a.c.rq.cancel = mb_cli_cancel_flag(1);
    a.c.rq.progress = isatty(2) ? progress : NULL;
    a.c.rq.progress_user = &ps;
    int slurm_rc = 0; /* 3 when a Slurm task did not finish */
    if (!rc && a.sl.on) {
        /* the variants are checked here, then run in the tasks */
        rc = given ? mb_cli_batch_slurm(&a.sl, &mb_cmd_compare, argc, given,
                                        &plan, ctx.quiet, &doc)
                   : MB_EXIT_RUNTIME;
        slurm_rc = rc;
        rc = doc ? 0 : slurm_rc;
        if (doc)
            json_object_set_new(doc, "command_line",
                                json_string(mb_cli_command_line()));
    } else if (!rc && mb__compare_run(&a.c.rq, &doc, &err))
        rc = mb_cli_fail(&err);
    if (ps.shown)
        fprintf(stderr, "\r\033[K");
    if (doc && !rc) {
        if (!ctx.quiet)
            print_table(doc);
        else if (!any_failed(doc)) /* a failure is one line of error */
            mb_cli_doc_warnings(doc);
        int req_rc = mb_cli_reqs_judge(&a.reqs, doc, NULL, stdout);
        rc = mb_cli_outputs_write(&out, doc);
        if (!rc)
            rc = mb_cli_reqs_exit(verdict_code(doc), req_rc);
        if (!rc)
            rc = slurm_rc;
    }
    mb_cli_reqs_free(&a.reqs);
    mb_cli_slurm_free(&a.sl);
    free(given);
    mb__compare_call_free(&a.c);
    for (size_t k = 0; k < a.n_specs; k++)
        free(a.specs[k]);
    free(a.specs);
    json_decref(doc);
    mb__plan_free(&plan);
    return rc == MB_OPT_HELP ? MB_EXIT_OK : rc;
}
