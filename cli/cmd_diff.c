/* cmd_diff.c - mbench diff A B: every accuracy metric of saved tensors B
 * (candidate) against A (baseline), optional gates, a JSON document and a
 * PNG heat map of |A - B|: parses the options, calls the diff engine
 * (src/accuracy/diff.c), prints the metrics and writes the outputs.
 * Definitions: docs/ACCURACY.md. */
#include "cli.h"
#include "outputs.h"

#include "accuracy/diff.h"
#include "accuracy/gate.h"
#include "accuracy/metrics.h"
#include "core/buf.h"
#include "core/err.h"
#include "report/output.h"
#include "report/valprint.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

MBENCH_COMMAND(diff, cmd_diff,
               "compare saved output tensors (.npy, .npz, .pb, directories)")

static void usage(FILE *f)
{
    fprintf(f,
        "usage: mbench diff BASELINE CANDIDATE [options]\n"
        "\n"
        "Compares candidate tensors with baseline tensors and prints every\n"
        "accuracy metric (docs/ACCURACY.md).  BASELINE and CANDIDATE are\n"
        ".npy, .npz or ONNX TensorProto .pb files, or directories of .npy\n"
        "and .pb files matched by file name (a .pb also matches by the\n"
        "tensor name stored in it).  In a directory holding ONNX test data\n"
        "(input_N.pb and output_N.pb) only the outputs are compared.\n"
        "\n"
        "  --atol X          isclose absolute tolerance (default 1e-8)\n"
        "  --rtol Y          isclose relative tolerance (default 1e-5)\n"
        "  --data-range R    data range for PSNR and SSIM (default: the\n"
        "                    baseline's max - min)\n"
        "  --ssim-3d         SSIM over the last three dims (volumes)\n"
        "  --gate EXPR       e.g. 'cosine>=0.999', 'psnr>=40',\n"
        "                    'max_abs<=1e-3' (repeatable)\n"
        "  --precision P     add the default gates of fp32, fp16 or int8\n"
        "  --json FILE       write the result document (atomically)\n"
        "  --heatmap FILE    draw |A - B| of the first image-like tensor as\n"
        "                    a PNG (last two dims, first image)\n"
        "  --threads N       threads for large tensors (default: all CPUs)\n"
        "  --per-sample N    list per-sample metrics up to N samples in the\n"
        "                    JSON (default 1024, 0: never)\n"
        "  -q, --quiet       print only the verdict line\n"
        "\n"
        "Exit codes: 0 all gates pass (or no gates), 1 a gate failed,\n"
        "2 usage error, 3 unreadable files or mismatched shapes.\n");
}

static void note(void *user, const char *msg)
{
    (void)user;
    fprintf(stderr, "mbench: note: %s\n", msg);
}

static void print_failure(void *user, const mb_err *e)
{
    (void)user;
    mb_cli_fail(e);
}

enum {
    OPT_ATOL = 1,
    OPT_RTOL,
    OPT_RANGE,
    OPT_SSIM3D,
    OPT_GATE,
    OPT_PREC,
    OPT_JSON,
    OPT_HEATMAP,
    OPT_THREADS,
    OPT_PERSAMPLE,
    OPT_HELP
};

#define MAX_GATES 64

/* Prints what a report/valprint.h writer renders. */
static void put(void (*fn)(const json_t *, mb_buf *), const json_t *x)
{
    mb_buf b = MB_BUF_INIT;
    fn(x, &b);
    fputs(b.data ? b.data : "", stdout);
    mb__buf_free(&b);
}

int cmd_diff(int argc, char **argv)
{
    static const struct option opts[] = {
        {"atol", required_argument, NULL, OPT_ATOL},
        {"rtol", required_argument, NULL, OPT_RTOL},
        {"data-range", required_argument, NULL, OPT_RANGE},
        {"ssim-3d", no_argument, NULL, OPT_SSIM3D},
        {"gate", required_argument, NULL, OPT_GATE},
        {"precision", required_argument, NULL, OPT_PREC},
        {"json", required_argument, NULL, OPT_JSON},
        {"heatmap", required_argument, NULL, OPT_HEATMAP},
        {"threads", required_argument, NULL, OPT_THREADS},
        {"per-sample", required_argument, NULL, OPT_PERSAMPLE},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, OPT_HELP},
        {NULL, 0, NULL, 0}};
    mb_metric_opts mo;
    mb__metric_opts_defaults(&mo);
    mb_gate gates[MAX_GATES];
    size_t n_gates = 0;
    const char *json_path = NULL, *heat_path = NULL;
    int quiet = 0;
    mb_err err;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        int64_t iv;
        switch (c) {
        case OPT_ATOL:
            if (mb_cli_parse_double(optarg, 0, 1e300, &mo.atol))
                return mb_cli_bad_value("--atol", optarg, "a number >= 0");
            break;
        case OPT_RTOL:
            if (mb_cli_parse_double(optarg, 0, 1e300, &mo.rtol))
                return mb_cli_bad_value("--rtol", optarg, "a number >= 0");
            break;
        case OPT_RANGE:
            if (mb_cli_parse_double(optarg, 1e-300, 1e300, &mo.data_range))
                return mb_cli_bad_value("--data-range", optarg,
                                        "a number > 0");
            break;
        case OPT_SSIM3D:
            mo.ssim_3d = 1;
            break;
        case OPT_GATE:
            if (n_gates >= MAX_GATES)
                return mb_cli_error(MB_EXIT_USAGE, "at most %d gates",
                                    MAX_GATES);
            if (mb__gate_parse(optarg, &gates[n_gates], &err))
                return mb_cli_error(MB_EXIT_USAGE, "%s", err.msg);
            n_gates++;
            break;
        case OPT_PREC: {
            mb_precision p;
            if (mb__precision_parse(optarg, &p))
                return mb_cli_bad_value("--precision", optarg,
                                        "fp32, fp16 or int8");
            n_gates += mb__gate_defaults(p, gates + n_gates,
                                         MAX_GATES - n_gates);
            if (n_gates > MAX_GATES)
                n_gates = MAX_GATES;
            break;
        }
        case OPT_JSON: /* outputs are checked before any work */
            if ((iv = mb_cli_output_arg("--json", optarg, &json_path)))
                return (int)iv;
            break;
        case OPT_HEATMAP:
            if ((iv = mb_cli_output_arg("--heatmap", optarg, &heat_path)))
                return (int)iv;
            break;
        case OPT_THREADS:
            if (mb_cli_parse_i64(optarg, 1, 256, &iv))
                return mb_cli_bad_value("--threads", optarg,
                                        "an integer in 1..256");
            mo.threads = (int)iv;
            break;
        case OPT_PERSAMPLE:
            if (mb_cli_parse_i64(optarg, 0, INT64_MAX, &iv))
                return mb_cli_bad_value("--per-sample", optarg,
                                        "an integer >= 0");
            mo.per_sample_max = (size_t)iv;
            break;
        case 'q':
            quiet = 1;
            break;
        case 'h':
        case OPT_HELP:
            usage(stdout);
            return MB_EXIT_OK;
        default:
            return mb_cli_error(MB_EXIT_USAGE,
                                "unknown or incomplete option '%s'; see "
                                "mbench diff --help",
                                argv[optind - 1]);
        }
    }
    if (argc - optind != 2)
        return mb_cli_error(MB_EXIT_USAGE,
                            "diff needs BASELINE and CANDIDATE paths; see "
                            "mbench diff --help");
    mb_buf png = MB_BUF_INIT;
    mb__diff_req rq = {argv[optind], argv[optind + 1], mo, gates, n_gates,
                       mb_cli_command_line(), heat_path ? &png : NULL,
                       note, NULL};
    mb__diff_result res;
    if (mb__diff_run(&rq, &res, &err)) {
        mb__buf_free(&png);
        return mb_cli_fail(&err);
    }
    size_t i;
    const json_t *m;
    json_array_foreach(json_object_get(res.doc, "outputs"), i, m)
        if (!quiet)
            put(mb__metrics_text, m);
    if (n_gates > 0 && !quiet) {
        printf("gates:\n");
        put(mb__gates_text, json_object_get(res.doc, "gates"));
    }
    printf("%s: %zu tensor%s compared%s\n",
           n_gates == 0 ? "DONE" : res.passed ? "PASS" : "FAIL",
           res.n_tensors, res.n_tensors == 1 ? "" : "s",
           n_gates == 0 ? ", no gates" : "");
    int rc = 0;
    /* a heatmap that cannot be written does not cost the JSON */
    if (heat_path) {
        if (res.heat_status ||
            mb__output_buf(heat_path, &png, &res.heat_err))
            rc = mb_cli_fail(&res.heat_err);
        else if (!quiet)
            printf("heatmap of %s: %s (brightest = |diff| %.6g)\n",
                   res.heat_name, heat_path, res.heat_max);
    }
    mb__buf_free(&png);
    mb__outset files = {json_path, NULL, NULL, NULL};
    if (mb__output_all(&files, res.doc, print_failure, NULL))
        rc = MB_EXIT_RUNTIME;
    json_decref(res.doc);
    return rc ? rc : res.passed ? MB_EXIT_OK : MB_EXIT_FAIL;
}
