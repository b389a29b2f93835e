/* cmd_validate.c - mbench validate BASELINE CANDIDATE: parse the options
 * (the table below, the run options and the outputs), call the library's
 * validate engine (accuracy/valrun.h, the same one mb_runner_validate
 * calls), print its console report (report/valprint.h) and write the
 * requested reports.  The rules are in docs/ACCURACY.md. */
#include "cli.h"
#include "opt.h"
#include "outputs.h"
#include "reqopt.h"

#include "accuracy/valrun.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/fileio.h"
#include "report/vreport.h"
#include "report/valprint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

MBENCH_COMMAND(validate, cmd_validate,
               "check a candidate model's outputs and accuracy against a "
               "baseline")
MBENCH_OPTIONS(validate, mb_cmd_validate)

/* clang-format off */
enum { O_VAL, O_SAVE, O_CANDOPT, O_REQUIRE };

static const mb__opt validate_opts[] = {
    {.name = "labels", .type = MB_OPT_FILE, .metavar = "FILE", .help = "class ids (.npy or text, one per sample): top-1/top-5 accuracy of both models (needs --data)", .id = O_VAL},
    {.name = "masks", .type = MB_OPT_FILE, .metavar = "FILE", .help = "class ids per pixel (.npy [N, H, W]): Dice and IoU of an [N, C, H, W] output's argmax (needs --data)", .id = O_VAL},
    {.name = "output", .type = MB_OPT_STRING, .metavar = "NAME", .help = "judge only this output (read as class scores when it is [N, C])", .id = O_VAL},
    {.name = "tolerance", .type = MB_OPT_DOUBLE, .metavar = "T", .help = "allowed accuracy, IoU and Dice loss (default 0.01)", .expect = "a number in [0, 1]", .hi = 1, .id = O_VAL},
    {.name = "gate", .type = MB_OPT_STRING, .metavar = "EXPR", .help = "'cosine>=0.999', 'psnr>=40', ... (repeatable; replaces the default gates)", .flags = MB_OPT_REPEAT, .id = O_VAL},
    {.name = "precision", .type = MB_OPT_STRING, .metavar = "P", .help = "fp32, fp16, bf16 or int8: the default gates (else what the candidate computes in: its runtime, else its dominant weight type)", .id = O_VAL},
    {.name = "samples", .type = MB_OPT_INT, .metavar = "N", .help = "synthetic samples without --data (default 8)", .expect = "an integer in 1..16777216", .lo = 1, .hi = 16777216, .id = O_VAL},
    {.name = "save-outputs", .type = MB_OPT_DIR, .metavar = "DIR", .help = "write DIR/baseline/<output>.npy and DIR/candidate/<output>.npy", .id = O_SAVE},
    {.name = "atol", .type = MB_OPT_DOUBLE, .metavar = "X", .help = "isclose absolute tolerance (1e-8)", .expect = "a number >= 0", .hi = 1e300, .id = O_VAL},
    {.name = "rtol", .type = MB_OPT_DOUBLE, .metavar = "Y", .help = "isclose relative tolerance (1e-5)", .expect = "a number >= 0", .hi = 1e300, .id = O_VAL},
    {.name = "data-range", .type = MB_OPT_DOUBLE, .metavar = "R", .help = "data range for PSNR and SSIM", .expect = "a number > 0", .lo = 1e-300, .hi = 1e300, .id = O_VAL},
    {.name = "ssim-3d", .type = MB_OPT_SWITCH, .help = "SSIM over the last three dims", .id = O_VAL},
    {.name = "ignore-index", .type = MB_OPT_STRING, .metavar = "N", .help = "mask value left out of Dice and IoU, e.g. 255 (torchmetrics/mmseg ignore_index; needs --masks)", .id = O_VAL},
    {.name = "require", .type = MB_OPT_STRING, .metavar = "EXPR", .help = "a target on the candidate as in compare: 'OUTPUT:rel_l2<=0.01', 'cosine>=0.999', 'gates=pass', 'top1_delta>=-0.01' (repeatable; exit 6 when unmet; with --output, the output figures are that output's)", .flags = MB_OPT_REPEAT, .id = O_REQUIRE},
    {.name = "map", .type = MB_OPT_STRING, .metavar = "BASE=CAND", .help = "pair the baseline's output BASE with the candidate's CAND (a renamed output; repeatable)", .expect = "BASE=CAND, e.g. logits=scores", .flags = MB_OPT_REPEAT, .id = O_VAL},
    {.name = "heatmap-sample", .type = MB_OPT_INT, .metavar = "N", .help = "the sample the HTML report's heatmap draws (default: the worst of the output that differs most)", .expect = "an integer >= 0", .hi = 9.2e18, .id = O_VAL},
    {.name = "candidate-opt", .type = MB_OPT_KV, .metavar = "K=V", .help = "a run option for the candidate only (threads=2, opt-level=all; repeatable)", .expect = "KEY=VALUE, e.g. opt-level=all", .flags = MB_OPT_REPEAT, .id = O_CANDOPT},
};

const mb__cmd mb_cmd_validate = {"validate", "BASELINE CANDIDATE", "check a candidate model's outputs and accuracy against a baseline",
    "Runs both models on the same inputs (--data, else random inputs, announced loudly), compares every "
    "output with the accuracy metrics (docs/ACCURACY.md) and judges every output (or only --output "
    "NAME) by the gates.  The output read as class scores (a float [N, C] output named like "
    "logits/probs/scores/output, never one named like an embedding or hidden state; printed with the "
    "reason) is also judged by accuracy against --labels, else by top-1 agreement >= 1 - tolerance.  "
    "-q prints only the verdict.",
    validate_opts, sizeof validate_opts / sizeof *validate_opts, MB_OPTSET_RUN | MB_OPTSET_OUTPUT, 2, 2,
    "Exit codes: 0 pass, 1 fail, 2 usage error, 3 runtime error (model, data, labels, outputs that do not pair, an all-NaN baseline output), 6 a --require target unmet (after a pass)."};
/* clang-format on */

typedef struct vargs {
    mb__val_req rq;
    const char **cand; /* --candidate-opt values, borrowed from argv */
    size_t n_cand;
    mb__cli_reqs reqs; /* --require */
} vargs;

static int on_opt(void *user, const mb__opt *o, const mb__optval *v)
{
    vargs *a = user;
    char flag[64];
    snprintf(flag, sizeof flag, "--%s", o->name);
    mb_err err = {0};
    if (o->id == O_CANDOPT) {
        a->cand[a->n_cand++] = v->text;
        return 0;
    }
    if (o->id == O_REQUIRE)
        return mb_cli_reqs_add(&a->reqs, v->text);
    /* --save-outputs is made and tried now, not after the run */
    int rc = o->id == O_SAVE ? mb_cli_output_dir_check(flag, v->text) : 0;
    if (!rc && mb__val_set(&a->rq, flag, v->text ? v->text : "1", &err))
        rc = mb_cli_fail(&err);
    return rc;
}

/* Renders doc with fn and writes it to path atomically. */
static mb_status
write_report(const char *path, const json_t *doc,
             mb_status (*fn)(const json_t *, mb__buf *, mb_err *), mb_err *err)
{
    mb__buf b = MB_BUF_INIT;
    mb_status s = fn(doc, &b, err);
    if (!s && b.oom)
        s = mb__fail(err, MB_ENOMEM, "out of memory rendering %s", path);
    if (!s)
        s = mb__write_file_atomic(path, b.data ? b.data : "", b.len, err);
    mb__buf_free(&b);
    return s;
}

/* Writes the validation's own Markdown and HTML reports of doc to md and
 * html (either may be NULL), each atomically; the first failure is
 * returned (the other is still written). */
static mb_status write_val_reports(const json_t *doc, const char *md,
                                   const char *html, mb_err *err)
{
    mb_err e2 = {0};
    mb_status s = md ? write_report(md, doc, mb__validation_md, err) : MB_OK;
    mb_status s2 =
        html ? write_report(html, doc, mb__validation_html, s ? &e2 : err)
             : MB_OK;
    return s ? s : s2;
}

int cmd_validate(int argc, char **argv)
{
    vargs a = {0};
    mb__plan pa, pb;
    mb__val_req_defaults(&a.rq);
    mb__plan_defaults(&pa);
    mb__plan_defaults(&pb);
    mb__cli_outputs out = {0};
    json_t *doc = NULL;
    mb_err err = {0};
    a.cand = mb__calloc((size_t)argc + 1, sizeof *a.cand);
    mb__opt_ctx ctx = {&pa, &out, on_opt, &a, 0, NULL, 0};
    int rc = a.cand ? mb_opt_parse(&mb_cmd_validate, argc, argv, &ctx)
                    : mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
    if (rc) {
        rc = rc == MB_OPT_HELP ? MB_EXIT_OK : rc;
        goto done;
    }
    if (mb__val_plans(&pa, &pb, ctx.args[0], ctx.args[1], a.cand, a.n_cand,
                      &err)) {
        rc = mb_cli_fail(&err);
        goto done;
    }
    a.rq.baseline = &pa;
    a.rq.candidate = &pb;
    a.rq.command_line = mb_cli_command_line();
    if (mb__validate_run(&a.rq, &doc, &err)) {
        rc = mb_cli_fail(&err);
        goto done;
    }
    const json_t *v = json_object_get(doc, "validation");
    if (json_is_true(json_object_get(v, "synthetic_inputs")))
        mb_cli_warn("NO REAL DATA: both models ran on %s; this verdict "
                    "rests on random inputs only; pass --data for a real "
                    "one",
                    json_string_value(json_object_get(v, "inputs")));
    size_t wi;
    const json_t *w;
    json_array_foreach(json_object_get(doc, "warnings"), wi, w)
    {
        const char *t = json_string_value(w); /* the one above: said */
        if (t && strncmp(t, "inputs are random", 17))
            mb_cli_warn("%s", t);
    }
    mb__buf text = MB_BUF_INIT;
    mb__validation_console_w(doc, ctx.quiet, mb_cli_term_width(1), &text);
    fputs(text.data ? text.data : "", stdout);
    mb__buf_free(&text);
    /* Markdown and HTML (also those of --outdir) are the validation's own
     * reports: the run and comparison writers have no runs to show. */
    /* --require, judged on the document (its verdicts go into it) */
    int req_rc = mb_cli_reqs_judge(&a.reqs, doc, NULL, stdout);
    char *od[4] = {0};
    if (out.outdir && (rc = mb_cli_outdir_reserve(out.outdir, "validate", od)))
        goto done;
    mb__cli_outputs rest = out, dirset = {.json = od[0], .csv = od[1]};
    rest.md = rest.html = rest.outdir = NULL;
    rc = mb_cli_outputs_write(&rest, doc) | mb_cli_outputs_write(&dirset, doc);
    if (!rc && write_val_reports(doc, out.md, out.html, &err))
        rc = mb_cli_fail(&err);
    if (!rc && od[2] && write_val_reports(doc, od[2], od[3], &err))
        rc = mb_cli_fail(&err);
    for (int i = 0; i < 4; i++)
        free(od[i]);
    if (rc == MB_EXIT_OK)
        rc = json_is_true(json_object_get(v, "passed")) ? MB_EXIT_OK
                                                        : MB_EXIT_FAIL;
    rc = mb_cli_reqs_exit(rc, req_rc);
done:
    mb_cli_reqs_free(&a.reqs);
    free(a.cand);
    json_decref(doc);
    mb__plan_free(&pa);
    mb__plan_free(&pb);
    return rc;
}
