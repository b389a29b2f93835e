/* cmd_compare.c - mbench compare: parse the variants and options, call
 * the compare engine (src/runner/cmprun.c), print its table, write the
 * outputs. */
#include "cli.h"
#include "outputs.h"
#include "reqopt.h"
#include "exec_util.h"
#include "runopts.h"
#include "variants.h"

#include "accuracy/gate.h"
#include "accuracy/metrics.h"
#include "core/clock.h"
#include "core/err.h"
#include "core/fileio.h"
#include "report/console.h"
#include "report/rutil.h"
#include "runner/cmprun.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

MBENCH_COMMAND(compare, cmd_compare,
               "compare a baseline and its variants: speed, memory, size, accuracy")

static void progress(void *user, const char *what, size_t round,
                     size_t rounds, int64_t elapsed_ns)
{
    mb_cli_rounds_progress(user, what, round, rounds, elapsed_ns);
}

static void usage(FILE *f)
{
    fputs("usage: mbench compare NAME=MODEL[,option=value...] ... [options]\n"
          "       mbench compare --variants FILE [options]\n\n"
          "Measures a baseline (the first variant, or --baseline NAME) and "
          "its variants in\n--processes K rounds (default 40): each round "
          "starts a fresh process per variant\nand runs them in interleaved "
          "slots.  Speedups are ratios of per-process medians,\npaired by "
          "round, with Student-t 95% CIs over the processes; a change is "
          "claimed only\nwhen significant and beyond the noise threshold.  "
          "Also memory, model size, accuracy\nagainst --labels and output "
          "agreement, with recommendations.  Variant options are run options without dashes:"
          "\n  fp32=model.onnx int8=model_int8.onnx "
          "fp32-opt=model.onnx,opt-level=all,threads=2\n\n"
          "Compare options:\n"
          "  --baseline NAME         the variant the others are judged "
          "against\n"
          "  --variants FILE         variant specifications, one per line "
          "(# comments)\n"
          "  --labels FILE           class ids (.npy or text): top-1/top-5 "
          "accuracy\n"
          "  --tolerance F           accuracy loss allowed (default 0.01)\n"
          "  --output NAME           the output judged by top-1 measures and "
          "labels\n"
          "  --threshold F           noise threshold: smaller speed changes "
          "are 'same'\n"
          "                          (default 1%)\n"
          "  --require EXPR          a target per variant, e.g. 'speedup>=2', "
          "'size_ratio<=0.5'\n"
          "                          (repeatable; exit 6 when unmet; "
          "docs/CLI.md)\n"
          "  --gate 'METRIC OP X'    output-agreement gate (repeatable; "
          "default: per precision)\n"
          "  --atol X  --rtol X      allclose tolerances (1e-8, 1e-5)\n"
          "  --timeout D             kill a variant that takes longer than D "
          "for one step (default 10m)\n"
          "  --fail-fast             stop at the first failed variant\n"
          "  --save-outputs DIR      write every variant's outputs as .npy\n"
          "  --quiet                 no console table\n\n",
          f);
    mb_cli_runopts_usage(f);
    fputs(mb_cli_outputs_help, f);
    fputs("\nExit codes: 0 success, 2 usage error, 3 runtime error or a "
          "FAILED variant, 130 interrupted.\n",
          f);
}

enum { O_BASE = 600, O_VARFILE, O_LABELS, O_TOL, O_GATE, O_ATOL, O_RTOL,
       O_TIMEOUT, O_FAILFAST, O_SAVEOUT, O_QUIET, O_HELP, O_OUTPUT,
       O_REQUIRE, O_THRESH };

/* The table and recommendations on stdout (src/report/console_cmp.c);
 * a log (not a terminal) gets every column. */
static void print_table(const json_t *doc)
{
    mb_console_opts co = {isatty(1) ? mb_cli_term_width(1) : 200,
                          mb_cli_use_color(1)};
    mb_buf b = MB_BUF_INIT;
    mb__report_compare_console(doc, &co, &b);
    fwrite(b.data ? b.data : "", 1, b.len, stdout);
    mb__buf_free(&b);
}

/* The exit code of a finished comparison: a FAILED variant is a runtime
 * error, an interrupted one 130. */
static int verdict_code(const json_t *doc)
{
    size_t i, b;
    const json_t *e, *c;
    const json_t *all = json_object_get(doc, "comparisons");
    json_array_foreach(json_array_size(all) > 1 ? all : NULL, b, c)
        json_array_foreach(json_object_get(c, "variants"), i, e)
            if (!strcmp(mb__jstr(e, "status") ? mb__jstr(e, "status") : "",
                        "failed"))
                return mb_cli_error(MB_EXIT_RUNTIME,
                                    "variant %s FAILED at batch %.0f: %s",
                                    mb__jstr(e, "name"),
                                    mb__jnum(c, "batch_size"),
                                    mb__jstr(e, "error"));
    json_array_foreach(mb__jget(doc, "comparison.variants"), i, e)
        if (!strcmp(mb__jstr(e, "status") ? mb__jstr(e, "status") : "",
                    "failed"))
            return mb_cli_error(MB_EXIT_RUNTIME, "variant %s FAILED: %s",
                                mb__jstr(e, "name"), mb__jstr(e, "error"));
    return json_is_true(json_object_get(doc, "interrupted"))
               ? MB_EXIT_INTERRUPTED
               : 0;
}

int cmd_compare(int argc, char **argv)
{
    static const struct option own[] = {
        {"baseline", required_argument, NULL, O_BASE},
        {"output", required_argument, NULL, O_OUTPUT},
        {"threshold", required_argument, NULL, O_THRESH},
        {"variants", required_argument, NULL, O_VARFILE},
        {"labels", required_argument, NULL, O_LABELS},
        {"tolerance", required_argument, NULL, O_TOL},
        {"gate", required_argument, NULL, O_GATE},
        {"atol", required_argument, NULL, O_ATOL},
        {"rtol", required_argument, NULL, O_RTOL},
        {"timeout", required_argument, NULL, O_TIMEOUT},
        {"fail-fast", no_argument, NULL, O_FAILFAST},
        {"save-outputs", required_argument, NULL, O_SAVEOUT},
        {"quiet", no_argument, NULL, O_QUIET},
        {"help", no_argument, NULL, O_HELP},
        {"require", required_argument, NULL, O_REQUIRE},
    };
    struct option *longopts =
        mb_cli_runopts_merge_outputs(own, sizeof own / sizeof own[0]);
    if (!longopts)
        return mb_cli_error(MB_EXIT_RUNTIME, "out of memory");

    mb_plan plan;
    mb__plan_defaults(&plan);
    mb_cli_outputs out = {0};
    mb__compare_req rq;
    mb__compare_req_defaults(&rq);
    const char *baseline_name = NULL;
    mb_gate gates[32];
    size_t n_gates = 0, nv = 0, n_specs = 0;
    int quiet = 0, rc = MB_EXIT_OK, c;
    char **specs = NULL;
    mb_cli_variant *vs = NULL;
    mb__cmp_spec *cs = NULL;
    json_t *doc = NULL;
    mb_cli_reqs reqs = {0};
    mb_err err = {0};
    opterr = 0;
    optind = 1;
    while (!rc && (c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        int r = mb_cli_runopts_handle(&plan, c, optarg);
        if (r != 0 || mb_cli_outputs_handle(&out, c, optarg)) {
            rc = r < 0 ? MB_EXIT_USAGE : 0;
            continue;
        }
        switch (c) {
        case 'h':
        case O_HELP: usage(stdout); goto done;
        case O_BASE: baseline_name = optarg; break;
        case O_VARFILE:
            if (mb__read_lines(optarg, &specs, &n_specs, &err))
                rc = mb_cli_fail(&err);
            break;
        case O_LABELS: rq.labels_path = optarg; break;
        case O_REQUIRE: rc = mb_cli_reqs_add(&reqs, optarg); break;
        case O_OUTPUT: rq.output = optarg; break;
        case O_THRESH:
            if (mb_cli_parse_fraction(optarg, 0.5, &rq.threshold))
                rc = mb_cli_bad_value("--threshold", optarg,
                                      "a fraction such as 0.01 or 1%");
            break;
        case O_TOL:
            if (mb_cli_parse_double(optarg, 0, 1, &rq.tolerance))
                rc = mb_cli_bad_value("--tolerance", optarg,
                                      "an accuracy difference in [0, 1]");
            break;
        case O_ATOL:
        case O_RTOL:
            if (mb_cli_parse_double(optarg, 0, 1e300,
                                    c == O_ATOL ? &rq.metrics.atol
                                                : &rq.metrics.rtol))
                rc = mb_cli_bad_value(c == O_ATOL ? "--atol" : "--rtol",
                                      optarg, "a non-negative number");
            break;
        case O_GATE:
            if (n_gates == 32)
                rc = mb_cli_error(MB_EXIT_USAGE, "too many --gate");
            else if (mb__gate_parse(optarg, &gates[n_gates++], &err))
                rc = mb_cli_error(MB_EXIT_USAGE, "%s", err.msg);
            break;
        case O_TIMEOUT:
            if (mb_cli_parse_duration_ns(optarg, &rq.timeout_ns) ||
                !rq.timeout_ns)
                rc = mb_cli_bad_value("--timeout", optarg,
                                      "a duration such as 30s or 5m");
            break;
        case O_FAILFAST: rq.fail_fast = 1; break;
        case O_SAVEOUT:
            rq.save_outputs = optarg;
            rc = mb_cli_output_dir_check("--save-outputs", optarg);
            break;
        case O_QUIET: quiet = 1; break;
        case ':':
            rc = mb_cli_error(MB_EXIT_USAGE, "%s needs a value; see 'mbench "
                              "compare --help'", argv[optind - 1]);
            break;
        default:
            rc = mb_cli_error(MB_EXIT_USAGE, "unknown option '%s'; see "
                              "'mbench compare --help'", argv[optind - 1]);
        }
    }
    for (int i = optind; !rc && i < argc; i++) {
        char **ns = realloc(specs, (n_specs + 1) * sizeof *ns);
        if (!ns)
            goto done;
        specs = ns;
        specs[n_specs++] = strdup(argv[i]);
    }
    if (rc)
        goto done;
    if (n_specs < 2)
        rc = mb_cli_error(MB_EXIT_USAGE,
                          "compare needs at least two variants "
                          "(NAME=MODEL ...), got %zu; see 'mbench compare "
                          "--help'",
                          n_specs);
    else if (mb_cli_runopts_finish(&plan))
        rc = MB_EXIT_USAGE;
    plan.save_samples = 1;
    vs = calloc(n_specs, sizeof *vs);
    cs = calloc(n_specs, sizeof *cs);
    if (rc || !vs || !cs ||
        (rc = mb_cli_variants_parse(specs, n_specs, &plan, vs, &nv)))
        goto done;
    if (baseline_name) {
        for (rq.baseline = 0; rq.baseline < nv &&
                              strcmp(vs[rq.baseline].name, baseline_name);
             rq.baseline++)
            ;
        if (rq.baseline == nv) {
            rc = mb_cli_error(MB_EXIT_USAGE, "--baseline %s names no variant",
                              baseline_name);
            goto done;
        }
    }
    for (size_t i = 0; i < nv; i++)
        cs[i] = (mb__cmp_spec){vs[i].name, &vs[i].plan};
    rq.variants = cs;
    rq.n = nv;
    rq.processes = plan.processes;
    rq.gates = gates;
    rq.n_gates = n_gates;
    rq.command_line = mb_cli_command_line();
    rq.cancel = mb_cli_cancel_flag(1);
    mb_cli_rounds ps = {mb_now_ns(), 0, 0, 0};
    if (isatty(2)) {
        rq.progress = progress;
        rq.progress_user = &ps;
    }
    mb_status st = mb__compare_run(&rq, &doc, &err);
    if (ps.shown)
        fprintf(stderr, "\r\033[K");
    if (st) {
        rc = mb_cli_fail(&err);
        goto done;
    }
    if (!quiet)
        print_table(doc);
    int req_rc = mb_cli_reqs_judge(&reqs, doc, NULL, stdout);
    rc = mb_cli_outputs_write(&out, doc);
    if (!rc)
        rc = mb_cli_reqs_exit(verdict_code(doc), req_rc);
done:
    mb_cli_reqs_free(&reqs);
    for (size_t k = 0; k < nv; k++)
        mb_cli_variant_free(&vs[k]);
    free(vs);
    free(cs);
    for (size_t k = 0; k < n_specs; k++)
        free(specs[k]);
    free(specs);
    json_decref(doc);
    free(longopts);
    mb__plan_free(&plan);
    return rc;
}
