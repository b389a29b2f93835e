/* cmd_profile.c - mbench profile: where the time goes, per operator type
 * and per node.  Parses the command line, calls the profile engine
 * (src/profile/engine.h), prints the console view (src/report/profprint.h)
 * and writes the outputs: the profile's own files (--trace, --folded,
 * --flame) and the shared ones (--json, --csv, --md, --html, --db). */
#include "cli.h"
#include "outputs.h"
#include "runopts.h"

#include "core/buf.h"
#include "core/fileio.h"
#include "profile/engine.h"
#include "report/profflame.h"
#include "report/profprint.h"
#include "exec_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

MBENCH_COMMAND(profile, cmd_profile,
               "per-operator profile, FLOPs and share of peak; --compare A B")

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mbench profile MODEL [run options] [profile options]\n"
            "       mbench profile --compare A B [run options]\n"
            "       mbench profile --from-trace TRACE.json [--skip N]\n\n"
            "Profiles MODEL under ONNX Runtime's profiler in a pass of its "
            "own: after the\ncold run and --warmup, --iterations runs "
            "(default %d) are aggregated per\noperator type and node, and "
            "reconciled with a separate, non-profiled timing\npass.  FLOPs "
            "come from the traced shapes, peaks from `mbench machine`.\n\n",
            MB_PROFILE_DEFAULT_ITERS);
    mb_cli_runopts_usage(f);
    fputs("Profile options:\n"
          "  --top N            rows per table (default 10 op types/15 nodes)\n"
          "  --trace FILE       keep ORT's Chrome-trace JSON (Perfetto)\n"
          "  --folded FILE      folded stacks: graph;op_type;node weight_us\n"
          "  --flame FILE.svg   icicle chart graph -> op type -> node\n"
          "  --compare A B      compare the op-type profiles of two models\n"
          "                     (or of two saved --json documents)\n"
          "  --from-trace FILE  analyse an existing ORT trace, run nothing\n"
          "  --skip N           with --from-trace: runs to skip (default 1)\n"
          "  --no-timing        skip the non-profiled timing pass\n"
          "  --no-counters      skip the hardware-counter pass\n"
          "  --no-peak          do not measure or read machine peaks\n"
          "  --quiet            no console report\n"
          "  --help             this help\n\n",
          f);
    fputs(mb_cli_outputs_help, f);
    fputs("  (a profile's --csv has a row per op type; --md and --html, "
          "its tables)\n\nExit codes: 0 success, 2 usage error, 3 "
          "runtime error, 130 interrupted.\n",
          f);
}

enum { O_HELP = 'h', O_TOP = 700, O_TRACE, O_FOLDED, O_FLAME, O_COMPARE,
       O_FROM, O_SKIP, O_NOTIMING, O_NOCOUNTERS, O_NOPEAK, O_QUIET };

/* What the command line asks for. */
typedef struct pargs {
    mb_plan plan;
    mb__profile_opts eng;
    mb_cli_outputs out;
    int top, quiet, compare;
    const char *trace, *folded, *flame, *from;
    char **models; /* borrowed from argv */
} pargs;

/* Fills a; returns 0 to go on, -1 after --help, else an exit code after
 * printing the error.  Output paths are checked here, before anything is
 * measured. */
static int parse(int argc, char **argv, pargs *a, struct option *longopts)
{
    int c, rc;
    int64_t v;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        int r = mb_cli_runopts_handle(&a->plan, c, optarg);
        if (r < 0)
            return MB_EXIT_USAGE;
        if (r > 0 || mb_cli_outputs_handle(&a->out, c, optarg))
            continue;
        switch (c) {
        case O_HELP: usage(stdout); return -1;
        case O_TOP:
            if (mb_cli_parse_i64(optarg, 1, 100000, &v))
                return mb_cli_bad_value("--top", optarg, "an integer >= 1");
            a->top = (int)v;
            break;
        case O_SKIP:
            if (mb_cli_parse_i64(optarg, 0, 1000000, &v))
                return mb_cli_bad_value("--skip", optarg, "an integer >= 0");
            a->eng.skip = (size_t)v;
            break;
        case O_TRACE:
        case O_FOLDED:
        case O_FLAME:
            if ((rc = mb_cli_output_arg(c == O_TRACE    ? "--trace"
                                        : c == O_FOLDED ? "--folded"
                                                        : "--flame",
                                        optarg,
                                        c == O_TRACE    ? &a->trace
                                        : c == O_FOLDED ? &a->folded
                                                        : &a->flame)))
                return rc;
            break;
        case O_COMPARE: a->compare = 1; break;
        case O_FROM: a->from = optarg; break;
        case O_NOTIMING: a->eng.no_timing = 1; break;
        case O_NOCOUNTERS: a->eng.no_counters = 1; break;
        case O_NOPEAK: a->eng.no_peak = 1; break;
        case O_QUIET: a->quiet = 1; break;
        default:
            return mb_cli_error(
                MB_EXIT_USAGE,
                c == ':' ? "%s needs a value; see 'mbench profile --help'"
                         : "unknown option '%s'; see 'mbench profile --help'",
                argv[optind - 1]);
        }
    }
    a->models = argv + optind;
    if (a->from)
        return optind != argc || a->compare
                   ? mb_cli_error(MB_EXIT_USAGE, "--from-trace takes no "
                                                 "MODEL and no --compare")
                   : 0;
    int want = a->compare ? 2 : 1;
    if (argc - optind != want)
        return mb_cli_error(MB_EXIT_USAGE,
                            a->compare ? "--compare needs two models A B, "
                                         "got %d"
                                       : "expected one MODEL, got %d; usage: "
                                         "mbench profile MODEL [options]",
                            argc - optind);
    if (mb_cli_runopts_finish(&a->plan))
        return MB_EXIT_USAGE;
    if (a->compare && (a->trace || a->folded || a->flame))
        mb_cli_warn("--trace, --folded and --flame apply to a single "
                    "profile; ignored with --compare");
    return 0;
}

static void warn_cb(void *user, const char *msg)
{
    (void)user;
    mb_cli_warn("%s", msg);
}

/* Writes b to path atomically; 0 or an exit code after printing. */
static int write_buf(const char *path, mb_buf *b)
{
    mb_err err = {0};
    int rc = 0;
    if (b->oom)
        rc = mb_cli_error(MB_EXIT_RUNTIME, "out of memory rendering %s", path);
    else if (mb__write_file_atomic(path, b->data ? b->data : "", b->len, &err))
        rc = mb_cli_fail(&err);
    mb__buf_free(b);
    return rc;
}

/* Prints the console view and writes every requested output; one output
 * that cannot be written does not cost the others. */
static int print_and_write(const pargs *a, json_t *doc, const char *trace,
                           size_t trace_len)
{
    const json_t *cmp = json_object_get(doc, "profile_comparison");
    const json_t *run = json_array_get(json_object_get(doc, "runs"), 0);
    const json_t *p = json_object_get(run, "profile");
    const char *title = json_string_value(json_object_get(run, "variant"));
    mb_buf b = MB_BUF_INIT;
    int rc = 0;
    json_object_set_new(doc, "command_line",
                        json_string(mb_cli_command_line()));
    if (!a->quiet) {
        if (cmp)
            mb__profile_compare_text(cmp, &b);
        else
            mb__profile_text(p, title, a->top, &b);
        fwrite(b.data ? b.data : "", 1, b.len, stdout);
        mb__buf_free(&b);
    }
    const char *files[3] = {a->trace, a->folded, a->flame};
    for (int i = 0; i < 3 && !cmp; i++) {
        if (!files[i])
            continue;
        if (i == 0)
            mb__buf_append(&b, trace, trace_len);
        else if (i == 1)
            mb__profile_folded(p, title, &b);
        else
            mb__profile_svg(p, title, &b);
        rc |= write_buf(files[i], &b);
    }
    rc |= mb_cli_outputs_write(&a->out, doc);
    return rc ? MB_EXIT_RUNTIME : 0;
}

int cmd_profile(int argc, char **argv)
{
    static const struct option own[] = {
        {"help", no_argument, NULL, O_HELP},
        {"top", required_argument, NULL, O_TOP},
        {"trace", required_argument, NULL, O_TRACE},
        {"folded", required_argument, NULL, O_FOLDED},
        {"flame", required_argument, NULL, O_FLAME},
        {"compare", no_argument, NULL, O_COMPARE},
        {"from-trace", required_argument, NULL, O_FROM},
        {"skip", required_argument, NULL, O_SKIP},
        {"no-timing", no_argument, NULL, O_NOTIMING},
        {"no-counters", no_argument, NULL, O_NOCOUNTERS},
        {"no-peak", no_argument, NULL, O_NOPEAK},
        {"quiet", no_argument, NULL, O_QUIET},
    };
    struct option *longopts =
        mb_cli_runopts_merge_outputs(own, sizeof own / sizeof own[0]);
    if (!longopts)
        return mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
    pargs a = {0};
    mb__plan_defaults(&a.plan);
    a.eng.skip = 1;
    a.eng.warn = warn_cb;
    int rc = parse(argc, argv, &a, longopts);
    free(longopts);
    if (rc) {
        mb__plan_free(&a.plan);
        return rc < 0 ? MB_EXIT_OK : rc;
    }
    a.eng.keep_trace = a.trace != NULL;
    a.plan.cancel = mb_cli_cancel_flag(1);
    mb_err err = {0};
    mb__profile_result res = {0};
    mb_status s = mb__profile_run(&a.plan, (const char *const *)a.models,
                                  a.from      ? 0
                                  : a.compare ? 2
                                              : 1,
                                  a.from, &a.eng, &res, &err);
    rc = s ? mb_cli_fail(&err)
           : print_and_write(&a, res.doc, res.trace, res.trace_len);
    mb__profile_result_free(&res);
    mb__plan_free(&a.plan);
    return rc;
}
