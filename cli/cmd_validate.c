/* cmd_validate.c - mbench validate BASELINE CANDIDATE: parse the flags,
 * call the library's validate engine (accuracy/valrun.h, the same one
 * mb_runner_validate calls), print its console report
 * (report/valprint.h) and write the requested reports.  The rules are in
 * docs/ACCURACY.md. */
#include "cli.h"

#include "accuracy/valrun.h"
#include "accuracy/vreport.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/fileio.h"
#include "outputs.h"
#include "report/valprint.h"
#include "runopts.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

MBENCH_COMMAND(validate, cmd_validate,
               "check a candidate model's outputs and accuracy against a "
               "baseline")

static void usage(FILE *f)
{
    fputs(
        "usage: mbench validate BASELINE CANDIDATE [options] [run options]\n"
        "\n"
        "Runs both models on the same inputs, compares every output with the\n"
        "accuracy metrics (docs/ACCURACY.md) and judges every output (or only\n"
        "--output NAME) by the gates.  The output read as class scores (a\n"
        "float [N, C] output named like logits/probs/scores/output, never one\n"
        "named like an embedding or hidden state; printed with the reason) is\n"
        "also judged by accuracy against --labels, else by top-1 agreement\n"
        ">= 1 - tolerance.\n"
        "\n"
        "  --data PATH             real inputs (.npy, .npz, .pb, directory;\n"
        "                          docs/DATA.md).  Without it the inputs are\n"
        "                          random and the report says so loudly\n"
        "  --labels FILE           class ids (.npy or text, one per sample):\n"
        "                          top-1/top-5 accuracy of both models\n"
        "  --masks FILE            class ids per pixel (.npy [N, H, W]): Dice\n"
        "                          and IoU of an [N, C, H, W] output's argmax\n"
        "  --output NAME           judge only this output (read as class\n"
        "                          scores when it is [N, C])\n"
        "  --tolerance T           allowed accuracy, IoU, Dice loss (0.01)\n"
        "  --gate EXPR             'cosine>=0.999', 'psnr>=40', ... "
        "(repeatable;\n"
        "                          replaces the default gates)\n"
        "  --precision P           fp32 | fp16 | int8: default gates (else\n"
        "                          from the candidate's dominant weight type)\n"
        "  --samples N             synthetic samples without --data (def. 8)\n"
        "  --batch N               samples per inference (default 1)\n"
        "  --save-outputs DIR      write DIR/baseline/<output>.npy and\n"
        "                          DIR/candidate/<output>.npy\n"
        "  --atol X, --rtol Y      isclose tolerances (1e-8, 1e-5)\n"
        "  --data-range R          data range for PSNR and SSIM\n"
        "  --ssim-3d               SSIM over the last three dims\n"
        "  --candidate-opt K=V     a run option for the candidate only\n"
        "                          (threads=2, opt-level=all; repeatable)\n"
        "  -q, --quiet             print only the verdict\n"
        "  --help                  this help\n"
        "\n",
        f);
    mb_cli_runopts_usage(f);
    fputs("\n", f);
    fputs(mb_cli_outputs_help, f);
    fputs("\nExit codes: 0 pass, 1 fail, 2 usage error, 3 runtime error "
          "(model, data, labels).\n",
          f);
}

enum { O_VAL = 600, O_CANDOPT, O_QUIET, O_HELP };

/* What the command line asks for.  Strings are borrowed from argv. */
typedef struct vargs {
    mb__val_req rq;
    mb_plan pa, pb;
    mb_cli_outputs out;
    int quiet, help;
} vargs;

/* Parses argv into a (plans, request, outputs).  Returns 0, or an exit
 * code after printing the error; a->help asks for the help text. */
static int parse(int argc, char **argv, vargs *a)
{
    static const struct option own[] = {
        {"labels", required_argument, NULL, O_VAL},
        {"masks", required_argument, NULL, O_VAL},
        {"output", required_argument, NULL, O_VAL},
        {"tolerance", required_argument, NULL, O_VAL},
        {"gate", required_argument, NULL, O_VAL},
        {"precision", required_argument, NULL, O_VAL},
        {"samples", required_argument, NULL, O_VAL},
        {"save-outputs", required_argument, NULL, O_VAL},
        {"atol", required_argument, NULL, O_VAL},
        {"rtol", required_argument, NULL, O_VAL},
        {"data-range", required_argument, NULL, O_VAL},
        {"ssim-3d", no_argument, NULL, O_VAL},
        {"candidate-opt", required_argument, NULL, O_CANDOPT},
        {"quiet", no_argument, NULL, O_QUIET},
        {"help", no_argument, NULL, O_HELP},
    };
    struct option *longopts =
        mb_cli_runopts_merge_outputs(own, sizeof own / sizeof own[0]);
    if (!longopts)
        return mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
    const char **cand = mb__calloc((size_t)argc + 1, sizeof *cand);
    size_t n_cand = 0;
    int rc = cand ? 0 : mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
    int c, li = -1;
    mb_err err = {0};
    opterr = 0;
    optind = 1;
    while (!rc && !a->help &&
           (c = getopt_long(argc, argv, ":hq", longopts, &li)) != -1) {
        int r = mb_cli_runopts_handle(&a->pa, c, optarg);
        if (r < 0)
            rc = MB_EXIT_USAGE;
        else if (r > 0 || mb_cli_outputs_handle(&a->out, c, optarg))
            continue;
        else if (c == O_VAL) {
            char flag[64];
            snprintf(flag, sizeof flag, "--%s", longopts[li].name);
            /* --save-outputs is made and tried now, not after the run */
            if (!strcmp(flag, "--save-outputs"))
                rc = mb_cli_output_dir_check(flag, optarg);
            if (!rc && mb__val_set(&a->rq, flag, optarg ? optarg : "1", &err))
                rc = mb_cli_fail(&err);
        } else if (c == O_CANDOPT) {
            if (!strchr(optarg, '=') || optarg[0] == '=')
                rc = mb_cli_bad_value("--candidate-opt", optarg,
                                      "KEY=VALUE, e.g. opt-level=all");
            cand[n_cand++] = optarg;
        } else if (c == 'q' || c == O_QUIET)
            a->quiet = 1;
        else if (c == 'h' || c == O_HELP)
            a->help = 1;
        else if (c == ':')
            rc = mb_cli_error(MB_EXIT_USAGE,
                              "%s needs a value; see 'mbench "
                              "validate --help'",
                              argv[optind - 1]);
        else
            rc = mb_cli_error(MB_EXIT_USAGE,
                              "unknown option '%s'; see "
                              "'mbench validate --help'",
                              argv[optind - 1]);
    }
    if (!rc && !a->help && argc - optind != 2)
        rc = mb_cli_error(MB_EXIT_USAGE,
                          "validate needs BASELINE and CANDIDATE models; "
                          "usage: mbench validate BASELINE CANDIDATE "
                          "[options]");
    if (!rc && !a->help && mb_cli_runopts_finish(&a->pa))
        rc = MB_EXIT_USAGE;
    if (!rc && !a->help) {
        a->pa.model_path = mb__strdup(argv[optind]);
        if (mb__plan_copy(&a->pb, &a->pa) != 0)
            rc = mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
    }
    if (!rc && !a->help) {
        free(a->pb.model_path);
        a->pb.model_path = mb__strdup(argv[optind + 1]);
    }
    for (size_t i = 0; !rc && !a->help && i < n_cand; i++) {
        char kv[512];
        snprintf(kv, sizeof kv, "%s", cand[i]);
        char *eq = strchr(kv, '=');
        *eq = '\0';
        if (mb_cli_runopts_apply_kv(&a->pb, kv, eq + 1))
            rc = MB_EXIT_USAGE;
    }
    free(cand);
    free(longopts);
    return rc;
}

/* Writes a report rendered by fn to path, atomically. */
static int write_report(const char *path, const json_t *doc,
                        mb_status (*fn)(const json_t *, mb_buf *, mb_err *))
{
    mb_buf b = MB_BUF_INIT;
    mb_err e = {0};
    mb_status st = fn(doc, &b, &e);
    if (!st)
        st = mb__write_file_atomic(path, b.data ? b.data : "", b.len, &e);
    mb__buf_free(&b);
    return st ? mb_cli_fail(&e) : MB_EXIT_OK;
}

int cmd_validate(int argc, char **argv)
{
    vargs a;
    memset(&a, 0, sizeof a);
    mb__val_req_defaults(&a.rq);
    mb__plan_defaults(&a.pa);
    mb__plan_defaults(&a.pb);
    json_t *doc = NULL;
    mb_err err = {0};
    int rc = parse(argc, argv, &a);
    if (rc || a.help) {
        if (a.help)
            usage(stdout);
        goto done;
    }
    a.rq.baseline = &a.pa;
    a.rq.candidate = &a.pb;
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
    mb_buf text = MB_BUF_INIT;
    mb__validation_console(doc, a.quiet, &text);
    fputs(text.data ? text.data : "", stdout);
    mb__buf_free(&text);
    /* Markdown and HTML are the validation's own reports (the run and
     * comparison writers have no runs to show here). */
    const char *md = a.out.md, *html = a.out.html;
    a.out.md = a.out.html = NULL;
    /* --outdir: the same four formats, its Markdown and HTML these
     * reports too */
    char *od[4] = {0};
    if (a.out.outdir &&
        (rc = mb_cli_outdir_reserve(a.out.outdir, "validate", od)))
        goto done;
    a.out.outdir = NULL;
    rc = mb_cli_outputs_write(&a.out, doc);
    if (od[0]) {
        mb_cli_outputs dirset = {.json = od[0], .csv = od[1]};
        rc |= mb_cli_outputs_write(&dirset, doc);
    }
    if (!rc && md)
        rc = write_report(md, doc, mb__validation_md);
    if (!rc && html)
        rc = write_report(html, doc, mb__validation_html);
    if (!rc && od[2])
        rc = write_report(od[2], doc, mb__validation_md);
    if (!rc && od[3])
        rc = write_report(od[3], doc, mb__validation_html);
    for (int i = 0; i < 4; i++)
        free(od[i]);
    if (rc == MB_EXIT_OK)
        rc = json_is_true(json_object_get(v, "passed")) ? MB_EXIT_OK
                                                        : MB_EXIT_FAIL;
done:
    json_decref(doc);
    mb__plan_free(&a.pa);
    mb__plan_free(&a.pb);
    return rc;
}
