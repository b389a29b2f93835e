/* cmd_diff.c - mbench diff A B: every accuracy metric of saved tensors B
 * (candidate) against A (baseline), optional gates, a JSON document and a
 * PNG heat map of |A - B|: parses the options (the table below), calls the
 * diff engine (src/accuracy/diff.c), prints the metrics and writes the
 * outputs (JSON, Markdown, HTML, CSV: src/report/vreport.c).  Definitions:
 * docs/ACCURACY.md. */
#include "cli.h"
#include "opt.h"
#include "outputs.h"

#include "accuracy/diff.h"
#include "accuracy/gate.h"
#include "accuracy/metrics.h"
#include "accuracy/outpair.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/tlimit.h"
#include "report/output.h"
#include "report/diffprint.h"

#include <stdio.h>
#include <stdlib.h>

MBENCH_COMMAND(diff, cmd_diff,
               "compare saved output tensors (.npy, .npz, .pb, directories)")
MBENCH_OPTIONS(diff, mb_cmd_diff)

/* clang-format off */
enum { O_ATOL, O_RTOL, O_RANGE, O_SSIM3D, O_GATE, O_PREC, O_JSON, O_MD, O_HTML, O_CSV, O_HEATMAP, O_HEATSAMPLE, O_OUTPUT, O_THREADS, O_PERSAMPLE, O_MAXTB, O_MAXRATIO, O_MAP, O_N };

static const mb__opt diff_opts[] = {
    {.name = "atol", .type = MB_OPT_DOUBLE, .metavar = "X", .help = "isclose absolute tolerance (default 1e-8)", .expect = "a number >= 0", .hi = 1e300, .id = O_ATOL},
    {.name = "rtol", .type = MB_OPT_DOUBLE, .metavar = "Y", .help = "isclose relative tolerance (default 1e-5)", .expect = "a number >= 0", .hi = 1e300, .id = O_RTOL},
    {.name = "data-range", .type = MB_OPT_DOUBLE, .metavar = "R", .help = "data range for PSNR and SSIM (default: the baseline's max - min)", .expect = "a number > 0", .lo = 1e-300, .hi = 1e300, .id = O_RANGE},
    {.name = "ssim-3d", .type = MB_OPT_SWITCH, .help = "SSIM over the last three dims (volumes)", .id = O_SSIM3D},
    {.name = "gate", .type = MB_OPT_STRING, .metavar = "EXPR", .help = "e.g. 'cosine>=0.999', 'psnr>=40', 'max_abs<=1e-3' (repeatable)", .flags = MB_OPT_REPEAT, .id = O_GATE},
    {.name = "precision", .type = MB_OPT_STRING, .metavar = "P", .help = "add the default gates of fp32, fp16, bf16 or int8", .expect = "fp32, fp16, bf16 or int8", .id = O_PREC},
    {.name = "json", .type = MB_OPT_OUTFILE, .metavar = "FILE", .help = "write the result document (atomically; '-' is stdout)", .flags = MB_OPT_STDOUT, .id = O_JSON},
    {.name = "md", .type = MB_OPT_OUTFILE, .metavar = "FILE", .help = "write the verdict, gates and metrics as Markdown ('-' is stdout)", .flags = MB_OPT_STDOUT, .id = O_MD},
    {.name = "html", .type = MB_OPT_OUTFILE, .metavar = "FILE", .help = "write them as a self-contained HTML page ('-' is stdout)", .flags = MB_OPT_STDOUT, .id = O_HTML},
    {.name = "csv", .type = MB_OPT_OUTFILE, .metavar = "FILE", .help = "write one line per tensor with every metric unformatted ('-' is stdout)", .flags = MB_OPT_STDOUT, .id = O_CSV},
    {.name = "heatmap", .type = MB_OPT_OUTFILE, .metavar = "FILE", .help = "draw |A - B| as a PNG (last two dims) of the tensor with two or more dims that differs most (largest rel_l2), or of --output, at its worst sample", .flags = MB_OPT_STDOUT, .id = O_HEATMAP},
    {.name = "heatmap-sample", .type = MB_OPT_INT, .metavar = "N", .help = "the sample (leading index) the heatmaps draw (default: the worst)", .expect = "an integer >= 0", .hi = 9.2e18, .id = O_HEATSAMPLE},
    {.name = "output", .type = MB_OPT_STRING, .metavar = "NAME", .help = "the tensor --heatmap draws", .id = O_OUTPUT},
    {.name = "threads", .type = MB_OPT_INT, .metavar = "N", .help = "threads for large tensors (default: all CPUs)", .expect = "an integer in 1..256", .lo = 1, .hi = 256, .id = O_THREADS},
    {.name = "per-sample", .type = MB_OPT_INT, .metavar = "N", .help = "list per-sample metrics up to N samples in the JSON (default 1024, 0: never)", .expect = "an integer >= 0", .hi = 9.2e18, .id = O_PERSAMPLE},
    {.name = "max-tensor-bytes", .type = MB_OPT_STRING, .metavar = "SIZE", .help = MB__TLIMIT_BYTES_HELP, .expect = MB__TLIMIT_BYTES_EXPECT, .id = O_MAXTB},
    {.name = "max-compression-ratio", .type = MB_OPT_DOUBLE, .metavar = "R", .help = MB__TLIMIT_RATIO_HELP, .expect = MB__TLIMIT_RATIO_EXPECT, .hi = 1e12, .id = O_MAXRATIO},
    {.name = "map", .type = MB_OPT_STRING, .metavar = "BASE=CAND", .help = "pair the baseline's tensor BASE with the candidate's CAND (a renamed one; repeatable)", .expect = "BASE=CAND, e.g. logits=scores", .flags = MB_OPT_REPEAT, .id = O_MAP},
};

const mb__cmd mb_cmd_diff = {"diff", "BASELINE CANDIDATE", "compare saved output tensors (.npy, .npz, .pb, directories)",
    "Compares candidate tensors with baseline tensors and prints every accuracy metric "
    "(docs/ACCURACY.md).  BASELINE and CANDIDATE are .npy, .npz or ONNX TensorProto .pb files, or "
    "directories of .npy and .pb files matched by file name (a .pb also matches by the tensor name "
    "stored in it).  In a directory holding ONNX test data (input_N.pb and output_N.pb) only the "
    "outputs are compared.  -q prints only the verdict line.",
    diff_opts, O_N, 0, 2, 2,
    "Exit codes: 0 all gates pass (or no gates), 1 a gate failed, 2 usage error, 3 unreadable files, "
    "mismatched shapes or a tensor or archive above --max-tensor-bytes / --max-compression-ratio."};
/* clang-format on */

#define MAX_GATES 64

typedef struct dargs {
    mb__metric_opts mo;
    mb__gate gates[MAX_GATES];
    size_t n_gates;
    mb__outset out;
    const char *heat_path, *heat_output;
    int64_t heat_sample;
    mb__tlimit tlimit;
    mb__outmap maps[MB__MAX_OUTMAPS];
    size_t n_maps;
} dargs;

static int on_opt(void *user, const mb__opt *o, const mb__optval *v)
{
    dargs *a = user;
    mb_err err;
    mb__precision p;
    double *const dbls[O_N] = {[O_ATOL] = &a->mo.atol,
                               [O_RTOL] = &a->mo.rtol,
                               [O_RANGE] = &a->mo.data_range};
    const char **const paths[O_N] = {
        [O_JSON] = &a->out.json,     [O_MD] = &a->out.md,
        [O_HTML] = &a->out.html,     [O_CSV] = &a->out.csv,
        [O_HEATMAP] = &a->heat_path, [O_OUTPUT] = &a->heat_output};
    if (dbls[o->id])
        *dbls[o->id] = v->d;
    else if (paths[o->id]) /* checked; "-" already made the stdout path */
        *paths[o->id] = v->str;
    else if (o->id == O_SSIM3D)
        a->mo.ssim_3d = 1;
    else if (o->id == O_THREADS)
        a->mo.threads = (int)v->i;
    else if (o->id == O_HEATSAMPLE)
        a->heat_sample = v->i;
    else if (o->id == O_PERSAMPLE)
        a->mo.per_sample_max = (size_t)v->i;
    else if (o->id == O_MAXTB && !mb__tlimit_set_bytes(&a->tlimit, v->text))
        return mb_cli_bad_value("--max-tensor-bytes", v->text,
                                MB__TLIMIT_BYTES_EXPECT);
    else if (o->id == O_MAXRATIO)
        mb__tlimit_set_ratio(&a->tlimit, v->d);
    else if (o->id == O_MAP && a->n_maps == MB__MAX_OUTMAPS)
        return mb_cli_error(MB_EXIT_USAGE, "too many --map (at most %d)",
                            MB__MAX_OUTMAPS);
    else if (o->id == O_MAP &&
             mb__outmap_parse(v->text, &a->maps[a->n_maps++], &err))
        return mb_cli_error(MB_EXIT_USAGE, "%s", err.msg);
    else if (o->id == O_GATE && a->n_gates >= MAX_GATES)
        return mb_cli_error(MB_EXIT_USAGE, "at most %d gates", MAX_GATES);
    else if (o->id == O_GATE &&
             mb__gate_parse(v->text, &a->gates[a->n_gates++], &err))
        return mb_cli_error(MB_EXIT_USAGE, "%s", err.msg);
    else if (o->id == O_PREC && !mb__precision_parse(v->text, &p))
        return mb_cli_bad_value("--precision", v->text,
                                "fp32, fp16, bf16 or int8");
    else if (o->id == O_PREC) {
        a->n_gates +=
            mb__gate_defaults(p, a->gates + a->n_gates, MAX_GATES - a->n_gates);
        if (a->n_gates > MAX_GATES)
            a->n_gates = MAX_GATES;
    }
    return 0;
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

/* "heatmap of NAME, sample 17 (its worst of 32): FILE (brightest ...)". */
static void print_heat(const mb__diff_result *r, const char *path)
{
    char which[160] = "";
    if (r->heat_sample >= 0)
        snprintf(which, sizeof which, ", sample %lld (%s of %zu)",
                 (long long)r->heat_sample,
                 r->heat_worst ? "its worst" : "chosen", r->heat_samples);
    printf("heatmap of %s%s: %s (brightest = |diff| %.6g)\n", r->heat_name,
           which, path, r->heat_max);
}

int cmd_diff(int argc, char **argv)
{
    dargs a = {0};
    a.heat_sample = -1;
    mb__metric_opts_defaults(&a.mo);
    mb__opt_ctx ctx = {NULL, NULL, on_opt, &a, 0, NULL, 0};
    int rc = mb_opt_parse(&mb_cmd_diff, argc, argv, &ctx);
    if (rc)
        return rc == MB_OPT_HELP ? MB_EXIT_OK : rc;
    int quiet = ctx.quiet;
    mb_err err;
    mb__buf png = MB_BUF_INIT;
    mb__diff_req rq = {.baseline = ctx.args[0],
                       .candidate = ctx.args[1],
                       .metrics = a.mo,
                       .gates = a.gates,
                       .n_gates = a.n_gates,
                       .command_line = mb_cli_command_line(),
                       .heatmap = a.heat_path ? &png : NULL,
                       .heat_output = a.heat_output,
                       .heat_sample = a.heat_sample,
                       .note = note,
                       .user = NULL,
                       .tlimit = a.tlimit,
                       .maps = a.maps,
                       .n_maps = a.n_maps};
    mb__diff_result res;
    if (mb__diff_run(&rq, &res, &err)) {
        mb__buf_free(&png);
        return mb_cli_fail(&err);
    }
    mb__buf text = MB_BUF_INIT;
    mb__diff_console(&res, a.n_gates, quiet, &text);
    fputs(text.data ? text.data : "", stdout);
    mb__buf_free(&text);
    /* a heatmap that cannot be written does not cost the JSON */
    if (a.heat_path) {
        if (res.heat_status || mb__output_buf(a.heat_path, &png, &res.heat_err))
            rc = mb_cli_fail(&res.heat_err);
        else if (!quiet)
            print_heat(&res, a.heat_path);
    } else if (res.heat_status == MB_EINVAL) {
        rc = mb_cli_fail(&res.heat_err); /* a bad --heatmap-sample */
    }
    mb__buf_free(&png);
    if (mb__output_all(&a.out, res.doc, print_failure, NULL))
        rc = MB_EXIT_RUNTIME;
    json_decref(res.doc);
    return rc ? rc : res.passed ? MB_EXIT_OK : MB_EXIT_FAIL;
}
