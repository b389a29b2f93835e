/* cmd_profile.c - mbench profile: where the time goes, per operator type
 * and per node.  Parses the command line (the table below, the run
 * options and the outputs), calls the profile engine
 * (src/profile/engine.h), prints the console view (src/report/profprint.h)
 * and writes the outputs: the profile's own files (--trace, --folded,
 * --flame) and the shared ones (--json, --csv, --md, --html, --db). */
#include "cli.h"
#include "exec_util.h"
#include "opt.h"
#include "outputs.h"

#include "core/buf.h"
#include "profile/engine.h"
#include "report/proffiles.h"
#include "report/profprint.h"

#include <stdio.h>

MBENCH_COMMAND(profile, cmd_profile,
               "per-operator profile, FLOPs and share of peak; --compare A B")
MBENCH_OPTIONS(profile, mb_cmd_profile)

/* --trace, --folded, --flame are O_FILE + 0..2; the --no-* switches O_NO +
 * 0..2 */
enum { O_TOP, O_SKIP, O_COMPARE, O_FROM, O_FILE, O_NO = O_FILE + 3 };

/* clang-format off */
static const mb__opt profile_opts[] = {
    {.name = "top", .type = MB_OPT_INT, .metavar = "N", .help = "rows per table (default 10 op types, 15 nodes)", .expect = "an integer >= 1", .lo = 1, .hi = 100000, .id = O_TOP},
    {.name = "trace", .type = MB_OPT_OUTFILE, .metavar = "FILE", .help = "keep ONNX Runtime's Chrome-trace JSON (Perfetto; '-' for stdout)", .flags = MB_OPT_STDOUT, .id = O_FILE},
    {.name = "folded", .type = MB_OPT_OUTFILE, .metavar = "FILE", .help = "folded stacks: graph;op_type;node weight_us ('-' for stdout)", .flags = MB_OPT_STDOUT, .id = O_FILE + 1},
    {.name = "flame", .type = MB_OPT_OUTFILE, .metavar = "FILE.svg", .help = "icicle chart graph -> op type -> node ('-' for stdout)", .flags = MB_OPT_STDOUT, .id = O_FILE + 2},
    {.name = "compare", .type = MB_OPT_SWITCH, .help = "compare the op-type profiles of two models A B (or of two saved --json documents)", .id = O_COMPARE},
    {.name = "from-trace", .type = MB_OPT_FILE, .metavar = "FILE", .help = "analyse an existing ONNX Runtime trace, run nothing", .id = O_FROM},
    {.name = "skip", .type = MB_OPT_INT, .metavar = "N", .help = "with --from-trace: runs to skip (default 1)", .expect = "an integer >= 0", .hi = 1000000, .id = O_SKIP},
    {.name = "no-timing", .type = MB_OPT_SWITCH, .help = "skip the non-profiled timing pass", .id = O_NO},
    {.name = "no-counters", .type = MB_OPT_SWITCH, .help = "skip the hardware-counter pass", .id = O_NO + 1},
    {.name = "no-peak", .type = MB_OPT_SWITCH, .help = "do not measure or read machine peaks", .id = O_NO + 2},
};

#define STR_(x) #x
#define STR(x) STR_(x)
const mb__cmd mb_cmd_profile = {"profile", "MODEL | --compare A B | --from-trace TRACE.json",
    "per-operator profile, FLOPs and share of peak; --compare A B",
    "Profiles MODEL under ONNX Runtime's profiler in a pass of its own: after the cold run and "
    "--warmup, --iterations runs (default " STR(MB_PROFILE_DEFAULT_ITERS) ") are aggregated per "
    "operator type and node, and reconciled with a separate, non-profiled timing pass.  FLOPs come "
    "from the traced shapes, peaks from `mbench machine`.  A profile's --csv has a row per op type; "
    "--md and --html, its tables.",
    profile_opts, 10, MB_OPTSET_RUN | MB_OPTSET_OUTPUT, 0, -1,
    "Exit codes: 0 success, 2 usage error, 3 runtime error, 130 interrupted."};
/* clang-format on */

/* What the command line asks for. */
typedef struct pargs {
    mb__profile_opts eng;
    int top, compare;
    const char *files[3]; /* --trace, --folded, --flame (checked) */
    const char *from;
} pargs;

static int on_opt(void *user, const mb__opt *o, const mb__optval *v)
{
    pargs *a = user;
    int *no[] = {&a->eng.no_timing, &a->eng.no_counters, &a->eng.no_peak};
    if (o->id == O_TOP)
        a->top = (int)v->i;
    else if (o->id == O_SKIP)
        a->eng.skip = (size_t)v->i;
    else if (o->id == O_COMPARE)
        a->compare = 1;
    else if (o->id == O_FROM)
        a->from = v->str;
    else if (o->id < O_NO)
        a->files[o->id - O_FILE] = v->str; /* checked; "-" is stdout */
    else
        *no[o->id - O_NO] = 1;
    return 0;
}

static void warn_cb(void *user, const char *msg)
{
    (void)user;
    mb_cli_warn("%s", msg);
}

int cmd_profile(int argc, char **argv)
{
    pargs a = {0};
    mb__plan plan;
    mb__plan_defaults(&plan);
    mb__cli_outputs out = {0};
    a.eng.skip = 1;
    a.eng.warn = warn_cb;
    mb__opt_ctx ctx = {&plan, &out, on_opt, &a, 0, NULL, 0};
    mb__profile_result res = {0};
    mb_err err = {0};
    int rc = mb_opt_parse(&mb_cmd_profile, argc, argv, &ctx);
    size_t want = a.from ? 0 : a.compare ? 2 : 1;
    if (rc) {
        /* an error was printed, or the help (rc stays MB_OPT_HELP so that
           nothing below runs) */
    } else if (a.from && (ctx.n_args || a.compare)) {
        rc = mb_cli_error(MB_EXIT_USAGE,
                          "--from-trace takes no MODEL and no --compare");
    } else if ((size_t)ctx.n_args != want) {
        rc = mb_cli_error(MB_EXIT_USAGE,
                          a.compare ? "--compare needs two models A B, got %d"
                                    : "expected one MODEL, got %d; usage: "
                                      "mbench profile MODEL [options]",
                          ctx.n_args);
    } else {
        if (a.compare && (a.files[0] || a.files[1] || a.files[2]))
            mb_cli_warn("--trace, --folded and --flame apply to a single "
                        "profile; ignored with --compare");
        a.eng.keep_trace = a.files[0] != NULL;
        plan.cancel = mb_cli_cancel_flag(1);
        if (mb__profile_run(&plan, (const char *const *)ctx.args, want, a.from,
                            &a.eng, &res, &err))
            rc = mb_cli_fail(&err);
    }
    if (!rc) {
        const json_t *run = json_array_get(json_object_get(res.doc, "runs"), 0);
        json_object_set_new(res.doc, "command_line",
                            json_string(mb_cli_command_line()));
        const json_t *cmp = json_object_get(res.doc, "profile_comparison");
        mb__buf b = MB_BUF_INIT;
        if (!ctx.quiet && cmp)
            mb__profile_compare_text(cmp, &b);
        else if (!ctx.quiet)
            mb__profile_text(json_object_get(run, "profile"),
                             json_string_value(json_object_get(run, "variant")),
                             a.top, &b);
        fwrite(b.data ? b.data : "", 1, b.len, stdout);
        mb__buf_free(&b);
        /* one output that cannot be written does not cost the others */
        if (mb__report_profile_files(&res, a.files[0], a.files[1], a.files[2],
                                     &err))
            rc = mb_cli_fail(&err);
        rc |= mb_cli_outputs_write(&out, res.doc);
        rc = rc ? MB_EXIT_RUNTIME : 0;
    }
    mb__profile_result_free(&res);
    mb__plan_free(&plan);
    return rc == MB_OPT_HELP ? MB_EXIT_OK : rc;
}
