/* cmd_validate.c - mbench validate BASELINE CANDIDATE: the accuracy
 * validator.  Both models run on the same inputs (real samples from
 * --data, batch by batch, or seeded synthetic inputs, which the report
 * then says loudly); every output is compared with the accuracy metrics.
 * The verdict covers every output (or only --output NAME): each is judged
 * by the gates (--gate, or the defaults of the candidate's precision), and
 * the output the library's rule reads as class scores (mb__judged_output)
 * also by accuracy against --labels, else top-1 agreement.
 * docs/ACCURACY.md has the rules. */
#include "cli.h"

#include "acc_print.h"
#include "accuracy/gate.h"
#include "accuracy/metrics.h"
#include "accuracy/pick.h"
#include "accuracy/vreport.h"
#include "core/alloc.h"
#include "core/err.h"
#include "core/fileio.h"
#include "core/rng.h"
#include "data/dataset.h"
#include "data/labels.h"
#include "data/npy.h"
#include "data/synthetic.h"
#include "model/onnx.h"
#include "outputs.h"
#include "report/rutil.h"
#include "runner/runner.h"
#include "runopts.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
        "  --output NAME           judge only this output (read as class\n"
        "                          scores when it is [N, C])\n"
        "  --tolerance T           allowed accuracy loss (default 0.01)\n"
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

enum {
    O_LABELS = 600,
    O_OUTPUT,
    O_TOL,
    O_GATE,
    O_PREC,
    O_SAMPLES,
    O_SAVE,
    O_ATOL,
    O_RTOL,
    O_RANGE,
    O_SSIM3D,
    O_CANDOPT,
    O_QUIET,
    O_HELP
};

#define MAX_GATES 64

/* Outputs of one model, concatenated over batches. */
typedef struct outset {
    mb_tensor *t;
    size_t n;
} outset;

static void outset_free(outset *o)
{
    for (size_t i = 0; o->t && i < o->n; i++)
        mb_tensor_clear(&o->t[i]);
    free(o->t);
    memset(o, 0, sizeof *o);
}

/* Appends batch outputs `add` (taken over) to o along axis 0. */
static mb_status outset_append(outset *o, mb_tensor *add, size_t n,
                               const mb_io_desc *desc, int first,
                               mb_err *err)
{
    if (first) {
        o->t = add;
        o->n = n;
        for (size_t i = 0; i < n; i++) {
            free(o->t[i].name);
            o->t[i].name = mb__strdup(desc[i].name);
        }
        return MB_OK;
    }
    mb_status st = MB_OK;
    for (size_t i = 0; i < n && st == MB_OK; i++) {
        mb_tensor *a = &o->t[i], *b = &add[i];
        int ok = a->rank >= 1 && a->rank == b->rank && a->dtype == b->dtype;
        for (int k = 1; ok && k < a->rank; k++)
            ok = a->dims[k] == b->dims[k];
        if (!ok) {
            char sa[256], sb[256];
            st = mb__fail(err, MB_EDATA,
                          "output %s changes shape between batches (%s, "
                          "then %s); it has no batch axis, so run with "
                          "--batch equal to the sample count",
                          desc[i].name,
                          mb_shape_str(a->dims, a->rank, sa, sizeof sa),
                          mb_shape_str(b->dims, b->rank, sb, sizeof sb));
            break;
        }
        size_t nb = a->nbytes + b->nbytes;
        void *p = realloc(a->data, nb ? nb : 1);
        if (!p) {
            st = mb__fail(err, MB_ENOMEM, "out of memory keeping outputs");
            break;
        }
        memcpy((char *)p + a->nbytes, b->data, b->nbytes);
        a->data = p;
        a->nbytes = nb;
        a->dims[0] += b->dims[0];
    }
    for (size_t i = 0; i < n; i++)
        mb_tensor_clear(&add[i]);
    free(add);
    return st;
}

/* Converts src to dtype `to` (floats and integers through double). */
static mb_status convert(const mb_tensor *src, mb_dtype to, mb_tensor *dst,
                         mb_err *err)
{
    if (!mb__metrics_dtype_ok(src->dtype) ||
        (to != MB_DTYPE_FLOAT32 && to != MB_DTYPE_FLOAT16 &&
         to != MB_DTYPE_FLOAT64 && to != MB_DTYPE_BFLOAT16))
        return mb__fail(err, MB_EDATA,
                        "input %s: the baseline takes %s, the candidate %s; "
                        "only float inputs are converted",
                        src->name ? src->name : "?",
                        mb_dtype_name(src->dtype), mb_dtype_name(to));
    mb_status st = mb_tensor_alloc(dst, to, src->rank, src->dims, src->name,
                                   err);
    if (st)
        return st;
    size_t n = mb_tensor_count(src);
    double *tmp = mb__calloc(n ? n : 1, sizeof *tmp);
    if (!tmp) {
        mb_tensor_clear(dst);
        return mb__fail(err, MB_ENOMEM, "out of memory converting inputs");
    }
    mb__tensor_load_f64(src, 0, n, tmp);
    for (size_t i = 0; i < n; i++) {
        switch (to) {
        case MB_DTYPE_FLOAT32: ((float *)dst->data)[i] = (float)tmp[i]; break;
        case MB_DTYPE_FLOAT64: ((double *)dst->data)[i] = tmp[i]; break;
        case MB_DTYPE_FLOAT16:
            ((uint16_t *)dst->data)[i] = mb_f32_to_f16((float)tmp[i]);
            break;
        default:
            ((uint16_t *)dst->data)[i] = mb_f32_to_bf16((float)tmp[i]);
            break;
        }
    }
    free(tmp);
    return MB_OK;
}

/* Binds `in` to the candidate, converting dtypes the candidate wants
 * differently (an fp16 model with fp16 inputs). */
static mb_status bind_candidate(mb_bench *b, const mb_tensor *in, size_t n,
                                mb_err *err)
{
    size_t nd;
    const mb_io_desc *d = mb__bench_describe(b, 0, &nd);
    if (nd != n)
        return mb__fail(err, MB_EDATA,
                        "the baseline takes %zu inputs, the candidate %zu; "
                        "validate models with the same inputs", n, nd);
    int need = 0;
    for (size_t i = 0; i < n; i++)
        need |= d[i].dtype != in[i].dtype;
    if (!need)
        return mb__bench_set_inputs(b, in, n, err);
    mb_tensor *conv = mb__calloc(n, sizeof *conv);
    if (!conv)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    mb_status st = MB_OK;
    for (size_t i = 0; i < n && !st; i++) {
        if (d[i].dtype == in[i].dtype)
            st = mb_tensor_copy(&conv[i], &in[i], err);
        else
            st = convert(&in[i], d[i].dtype, &conv[i], err);
    }
    if (!st)
        st = mb__bench_set_inputs(b, conv, n, err);
    for (size_t i = 0; i < n; i++)
        mb_tensor_clear(&conv[i]);
    free(conv);
    return st;
}

static mb_status save_outputs(const char *dir, const char *sub,
                              const outset *o, mb_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    if (mb__mkdirs(path, err))
        return err->code;
    for (size_t i = 0; i < o->n; i++) {
        char name[256];
        snprintf(name, sizeof name, "%s",
                 o->t[i].name && *o->t[i].name ? o->t[i].name : "output");
        for (char *p = name; *p; p++)
            if (*p == '/' || *p == '\\')
                *p = '_';
        snprintf(path, sizeof path, "%s/%s/%s.npy", dir, sub, name);
        mb_status st = mb__npy_write(path, &o->t[i], err);
        if (st)
            return st;
    }
    return MB_OK;
}

/* The precision of the candidate's weights: the dtype with most
 * initializer elements; -1 when the model cannot be inspected. */
static int model_precision(const char *path, mb_precision *p, char *why,
                           size_t len)
{
    json_t *info = NULL;
    mb_err e;
    if (mb__onnx_inspect(path, &info, &e))
        return -1;
    const json_t *by = json_object_get(info, "params_by_dtype");
    const char *key, *best = NULL;
    json_int_t most = 0;
    json_t *v;
    json_object_foreach((json_t *)by, key, v) {
        json_int_t c = json_integer_value(json_object_get(v, "count"));
        if (c > most) {
            most = c;
            best = key;
        }
    }
    int rc = -1;
    if (!best)
        snprintf(why, len, "fp32 assumed: the candidate has no weights to "
                 "tell its precision; pass --precision");
    if (best) {
        *p = mb__precision_from_dtype(mb_dtype_parse(best));
        snprintf(why, len, "from the candidate's weights (%lld %s elements)",
                 (long long)most, best);
        rc = 0;
    }
    json_decref(info);
    return rc;
}

typedef struct vopts {
    const char *labels;
    const char *output; /* --output NAME, or NULL */
    double tol;
    mb_gate gates[MAX_GATES];
    size_t n_gates;
    int have_prec;
    mb_precision prec;
    int64_t samples;
    const char *save_dir;
    mb_metric_opts mo;
    int quiet;
} vopts;

/* Frees the batch outputs of one model. */
static void free_batch(mb_tensor *t, size_t n)
{
    for (size_t i = 0; t && i < n; i++)
        mb_tensor_clear(&t[i]);
    free(t);
}

/* Fails (MB_EINVAL, a usage error) when --output names none of the
 * baseline's outputs, before any sample runs. */
static mb_status check_output_name(const char *name, const mb_io_desc *d,
                                   size_t n, mb_err *err)
{
    if (!name)
        return MB_OK;
    mb_out_shape *shp = mb__calloc(n ? n : 1, sizeof *shp);
    if (!shp)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        shp[i].name = d[i].name;
        shp[i].dtype = d[i].dtype;
        shp[i].rank = d[i].rank;
        shp[i].dims = d[i].dims;
    }
    mb_judged j;
    mb_status st = mb__judged_output(shp, n, name, &j, err);
    free(shp);
    return st;
}

/* Runs both models over every batch; fills the output sets.  *n_samples
 * receives the number of samples run.  With --data each model gets the
 * samples in its own input dtypes (a float32 file feeds a float16 input,
 * converted by the data set); synthetic inputs are made for the baseline
 * and converted for the candidate. */
static mb_status run_both(const mb_plan *pa, const mb_plan *pb,
                          const vopts *vo, outset *oa, outset *ob,
                          size_t *n_samples, char *source, size_t slen,
                          mb_err *err)
{
    int64_t batch = pa->n_batches ? pa->batches[0] : 1;
    mb_bench *ba = NULL, *bb = NULL;
    mb_dataset *ds = NULL, *dsb = NULL;
    mb_tensor *in = NULL, *inb = NULL;
    size_t n_in = 0, n_in_b = 0;
    mb_status st = mb__bench_open(pa, batch, &ba, err);
    if (st) {
        mb__fail_prefix(err, "baseline %s", pa->model_path);
        return st;
    }
    st = mb__bench_open(pb, batch, &bb, err);
    if (st) {
        mb__fail_prefix(err, "candidate %s", pb->model_path);
        goto done;
    }
    const mb_io_desc *din = mb__bench_describe(ba, 0, &n_in);
    const mb_io_desc *dinb = mb__bench_describe(bb, 0, &n_in_b);
    size_t n_out_a, n_out_b;
    const mb_io_desc *douta = mb__bench_describe(ba, 1, &n_out_a);
    mb__bench_describe(bb, 1, &n_out_b);
    if (n_out_a != n_out_b) {
        st = mb__fail(err, MB_EDATA,
                      "the baseline has %zu outputs, the candidate %zu; "
                      "validate models with the same outputs", n_out_a,
                      n_out_b);
        goto done;
    }
    if ((st = check_output_name(vo->output, douta, n_out_a, err)))
        goto done;
    size_t total;
    if (pa->data_path) {
        st = mb__dataset_load(pa->data_path, din, n_in, &ds, err);
        if (st) {
            mb__fail_prefix(err, "baseline %s", pa->model_path);
            goto done;
        }
        st = mb__dataset_load(pa->data_path, dinb, n_in_b, &dsb, err);
        if (st) {
            mb__fail_prefix(err, "candidate %s", pb->model_path);
            goto done;
        }
        total = mb__dataset_count(ds);
        if (strcmp(mb__dataset_describe(ds), mb__dataset_describe(dsb)) == 0)
            snprintf(source, slen, "%s", mb__dataset_describe(ds));
        else
            snprintf(source, slen, "%s; candidate: %s",
                     mb__dataset_describe(ds), mb__dataset_describe(dsb));
    } else {
        total = (size_t)vo->samples;
        snprintf(source, slen,
                 "%zu synthetic samples (seed %llu): RANDOM INPUTS", total,
                 (unsigned long long)pa->seed);
    }
    in = mb__calloc(n_in ? n_in : 1, sizeof *in);
    inb = mb__calloc(n_in_b ? n_in_b : 1, sizeof *inb);
    if (!in || !inb) {
        st = mb__fail(err, MB_ENOMEM, "out of memory");
        goto done;
    }
    mb_rng rng;
    mb__rng_seed(&rng, pa->seed);
    for (size_t first = 0; first < total; first += (size_t)batch) {
        int64_t bs = batch;
        if ((size_t)bs > total - first)
            bs = (int64_t)(total - first);
        if (ds) {
            st = mb__dataset_batch(ds, first, bs, in, err);
            if (!st)
                st = mb__dataset_batch(dsb, first, bs, inb, err);
        } else {
            for (size_t i = 0; i < n_in && !st; i++)
                st = mb__synthetic_input(&din[i], bs, pa, &rng, &in[i], err);
        }
        if (!st)
            st = mb__bench_set_inputs(ba, in, n_in, err);
        if (!st)
            st = ds ? mb__bench_set_inputs(bb, inb, n_in_b, err)
                    : bind_candidate(bb, in, n_in, err);
        for (size_t i = 0; i < n_in; i++)
            mb_tensor_clear(&in[i]);
        for (size_t i = 0; i < n_in_b; i++)
            mb_tensor_clear(&inb[i]);
        mb_tensor *ta = NULL, *tb = NULL;
        size_t na = 0, nb = 0;
        if (!st) {
            st = mb__bench_outputs(ba, &ta, &na, err);
            if (st)
                mb__fail_prefix(err, "baseline %s", pa->model_path);
        }
        if (!st) {
            st = mb__bench_outputs(bb, &tb, &nb, err);
            if (st)
                mb__fail_prefix(err, "candidate %s", pb->model_path);
        }
        if (!st)
            st = outset_append(oa, ta, na, douta, first == 0, err);
        else
            free_batch(ta, na);
        if (!st)
            st = outset_append(ob, tb, nb, douta, first == 0, err);
        else
            free_batch(tb, nb);
        if (st)
            goto done;
    }
    *n_samples = total;
done:
    free(in);
    free(inb);
    mb__dataset_free(ds);
    mb__dataset_free(dsb);
    mb__bench_close(ba);
    mb__bench_close(bb);
    return st;
}

/* The two models run and their run options, for the reports. */
static json_t *models_json(const mb_plan *pa, const mb_plan *pb)
{
    json_t *a = json_array();
    const mb_plan *p[2] = {pa, pb};
    static const char *const role[2] = {"baseline", "candidate"};
    for (int k = 0; k < 2; k++) {
        json_t *o = json_object();
        for (size_t i = 0; i < p[k]->n_opts; i++)
            json_object_set_new(o, p[k]->opts[i].key,
                                json_string(p[k]->opts[i].value));
        json_array_append_new(a, json_pack("{s:s, s:s, s:o}", "role", role[k],
                                           "path", p[k]->model_path,
                                           "options", o));
    }
    return a;
}

/* One check of one output, for "per_output". */
static json_t *check_json(const char *check, double value, int result)
{
    static const char *const words[] = {"pass", "fail", "n/a"};
    return json_pack("{s:s, s:o, s:s}", "check", check, "value",
                     mb__json_metric(value), "result", words[result]);
}

/* The verdict.  Fills *v (the judged parts of the "validation" object:
 * output_choice, rule, accuracy, gates, criteria, per_output, passed) and
 * *passed.  Returns an exit code: 0, or 2/3 after printing the error. */
static int judge(vopts *vo, const mb_plan *pb, const outset *oa,
                 const outset *ob, const json_t *outs, const int64_t *labels,
                 size_t n_labels, json_t *v, char *prec_why, size_t why_len,
                 int *passed)
{
    mb_err err = {0};
    size_t n = oa->n;
    mb_out_shape *shp = mb__calloc(n ? n : 1, sizeof *shp);
    if (!shp)
        return mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
    mb__out_shapes_from_tensors(oa->t, n, shp);
    mb_judged pick;
    mb_status ps = mb__judged_output(shp, n, vo->output, &pick, &err);
    free(shp);
    if (ps)
        return mb_cli_fail(&err);
    size_t ci = pick.classifier ? pick.index : n;
    const char *ci_name = ci < n && oa->t[ci].name ? oa->t[ci].name : "?";
    json_object_set_new(
        v, "output_choice",
        json_pack("{s:o, s:o, s:b, s:b, s:s}", "output",
                  pick.index < n ? json_string(oa->t[pick.index].name
                                                   ? oa->t[pick.index].name
                                                   : "")
                                 : json_null(),
                  "index",
                  pick.index < n ? json_integer((json_int_t)pick.index)
                                 : json_null(),
                  "classifier", pick.classifier, "requested", pick.requested,
                  "reason", pick.reason));
    /* The judged outputs: all, or the one --output names. */
    json_t *judged = json_array();
    for (size_t i = 0; i < n; i++)
        if (!pick.requested || i == pick.index)
            json_array_append(judged, json_array_get(outs, i));

    json_t *criteria = json_array();
    char line[640];
    *passed = 1;
    size_t nf_bad = 0;
    for (size_t i = 0; i < n; i++)
        if (!pick.requested || i == pick.index)
            nf_bad += (size_t)json_integer_value(
                json_object_get(json_array_get(outs, i), "nonfinite_new"));
    if (nf_bad) {
        *passed = 0;
        snprintf(line, sizeof line,
                 "FAIL the candidate produced %zu NaN/Inf values where the "
                 "baseline was finite", nf_bad);
        json_array_append_new(criteria, json_string(line));
    }

    /* The classifier output: accuracy against labels, else agreement. */
    const char *rule = "gates";
    json_t *acc = json_null();
    int cls_ok = 1;
    double cls_value = NAN;
    char cls_check[96] = "";
    if (labels) {
        if (ci == n) {
            json_decref(judged);
            json_decref(criteria);
            return mb_cli_error(
                MB_EXIT_RUNTIME,
                "--labels %s: no output to score them against: %s",
                vo->labels, pick.reason);
        }
        double a1, a5, b1, b5;
        if (mb__topk_accuracy(&oa->t[ci], labels, n_labels, &a1, &a5, &err) ||
            mb__topk_accuracy(&ob->t[ci], labels, n_labels, &b1, &b5, &err)) {
            mb__fail_prefix(&err, "--labels %s (output %s)", vo->labels,
                            ci_name);
            json_decref(judged);
            json_decref(criteria);
            return mb_cli_fail(&err);
        }
        rule = "labels";
        acc = json_pack("{s:s, s:I, s:{s:f, s:f}, s:{s:f, s:f}, s:f}",
                        "output", ci_name, "samples", (json_int_t)n_labels,
                        "baseline", "top1", a1, "top5", a5, "candidate",
                        "top1", b1, "top5", b5, "top1_delta", b1 - a1);
        cls_ok = b1 >= a1 - vo->tol - 1e-12;
        cls_value = b1;
        snprintf(cls_check, sizeof cls_check, "top1_accuracy>=%.4f",
                 a1 - vo->tol);
        snprintf(line, sizeof line,
                 "%s top-1 accuracy on %s %.4f vs baseline %.4f (delta "
                 "%+.4f, tolerance %g)",
                 cls_ok ? "PASS" : "FAIL", ci_name, b1, a1, b1 - a1, vo->tol);
        json_array_append_new(criteria, json_string(line));
    } else if (ci < n) {
        rule = "top1_agreement";
        mb__json_metric_get(json_object_get(json_array_get(outs, ci),
                                            "top1_agreement"),
                            &cls_value);
        cls_ok = cls_value >= 1 - vo->tol - 1e-12;
        snprintf(cls_check, sizeof cls_check, "top1_agreement>=%.4f",
                 1 - vo->tol);
        snprintf(line, sizeof line,
                 "%s top-1 agreement on %s %.4f (needs >= %.4f = 1 - "
                 "tolerance)", cls_ok ? "PASS" : "FAIL", ci_name, cls_value,
                 1 - vo->tol);
        json_array_append_new(criteria, json_string(line));
    }
    *passed &= cls_ok;

    /* The gates, on every judged output. */
    if (vo->n_gates == 0) {
        if (!vo->have_prec) {
            prec_why[0] = '\0';
            if (model_precision(pb->model_path, &vo->prec, prec_why,
                                why_len) != 0) {
                vo->prec = MB_PREC_FP32;
                if (!prec_why[0])
                    snprintf(prec_why, why_len,
                             "fp32 assumed: the candidate's weights could "
                             "not be read; pass --precision");
            }
        } else {
            snprintf(prec_why, why_len, "from --precision");
        }
        vo->n_gates = mb__gate_defaults(vo->prec, vo->gates, MAX_GATES);
    }
    int gp = 1;
    json_t *gv = mb__gates_eval_outputs(vo->gates, vo->n_gates, judged, &gp);
    *passed &= gp;

    /* The verdict of each output, check by check. */
    json_t *per = json_array();
    for (size_t i = 0; i < n; i++) {
        const json_t *m = json_array_get(outs, i);
        int is_judged = !pick.requested || i == pick.index;
        json_t *checks = json_array();
        int ok = 1;
        if (is_judged && i == ci) {
            json_array_append_new(checks, check_json(cls_check, cls_value,
                                                     cls_ok ? 0 : 1));
            ok &= cls_ok;
        }
        for (size_t g = 0; is_judged && g < vo->n_gates; g++) {
            double val = NAN;
            mb_gate_result r = mb__gate_eval(&vo->gates[g], m, &val);
            json_array_append_new(checks,
                                  check_json(vo->gates[g].text, val, (int)r));
            ok &= r != MB_GATE_FAIL;
        }
        json_array_append_new(
            per, json_pack("{s:s, s:b, s:b, s:o, s:o}", "name",
                           oa->t[i].name ? oa->t[i].name : "", "judged",
                           is_judged, "classifier", i == ci, "passed",
                           is_judged ? json_boolean(ok) : json_null(),
                           "checks", checks));
    }
    json_decref(judged);
    json_object_set_new(v, "rule", json_string(rule));
    json_object_set_new(v, "precision",
                        prec_why[0] ? json_string(mb__precision_name(vo->prec))
                                    : json_null());
    json_object_set_new(v, "precision_reason",
                        prec_why[0] ? json_string(prec_why) : json_null());
    json_object_set_new(v, "accuracy", acc);
    json_object_set_new(v, "gates", gv);
    json_object_set_new(v, "criteria", criteria);
    json_object_set_new(v, "per_output", per);
    json_object_set_new(v, "passed", json_boolean(*passed));
    return MB_EXIT_OK;
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

/* The console report of a judged validation. */
static void print_report(const json_t *v, const json_t *outs,
                         const vopts *vo, size_t n_labels, int synthetic)
{
    printf("baseline  %s\ncandidate %s\ninputs    %s\n",
           json_string_value(json_object_get(v, "baseline")),
           json_string_value(json_object_get(v, "candidate")),
           json_string_value(json_object_get(v, "inputs")));
    if (synthetic)
        printf("!!! WARNING: NO REAL DATA - the verdict below rests on "
               "random inputs only !!!\n");
    for (size_t i = 0; i < json_array_size(outs); i++)
        mb_cli_print_metrics(stdout, json_array_get(outs, i));
    const json_t *acc = json_object_get(v, "accuracy");
    if (json_is_object(acc))
        printf("accuracy against %s (%zu labels) on %s: baseline top-1 %.4f "
               "top-5 %.4f, candidate top-1 %.4f top-5 %.4f\n",
               vo->labels, n_labels,
               json_string_value(json_object_get(acc, "output")),
               mb__jnum(acc, "baseline.top1"), mb__jnum(acc, "baseline.top5"),
               mb__jnum(acc, "candidate.top1"),
               mb__jnum(acc, "candidate.top5"));
    const json_t *ch = json_object_get(v, "output_choice");
    printf("class scores: %s\n",
           json_string_value(json_object_get(ch, "reason")));
    printf("criteria (rule: %s; gates on %s):\n",
           json_string_value(json_object_get(v, "rule")),
           json_is_true(json_object_get(ch, "requested"))
               ? "the --output only"
               : "every output");
    size_t k;
    json_t *s;
    json_array_foreach(json_object_get(v, "criteria"), k, s)
        printf("  %s\n", json_string_value(s));
    const char *why = json_string_value(json_object_get(v, "precision_reason"));
    if (why)
        printf("  default gates for %s (%s):\n",
               json_string_value(json_object_get(v, "precision")), why);
    mb_cli_print_gates(stdout, json_object_get(v, "gates"));
    printf("verdict per output:\n");
    json_array_foreach(json_object_get(v, "per_output"), k, s) {
        const json_t *p = json_object_get(s, "passed");
        printf("  %-6s %s%s\n",
               json_is_null(p) ? "-" : json_is_true(p) ? "PASS" : "FAIL",
               json_string_value(json_object_get(s, "name")),
               json_is_null(p) ? " (not judged: --output chose another)"
               : json_is_true(json_object_get(s, "classifier"))
                   ? " (class scores: top-1 and gates)"
                   : " (gates)");
    }
}

int cmd_validate(int argc, char **argv)
{
    static const struct option own[] = {
        {"labels", required_argument, NULL, O_LABELS},
        {"output", required_argument, NULL, O_OUTPUT},
        {"tolerance", required_argument, NULL, O_TOL},
        {"gate", required_argument, NULL, O_GATE},
        {"precision", required_argument, NULL, O_PREC},
        {"samples", required_argument, NULL, O_SAMPLES},
        {"save-outputs", required_argument, NULL, O_SAVE},
        {"atol", required_argument, NULL, O_ATOL},
        {"rtol", required_argument, NULL, O_RTOL},
        {"data-range", required_argument, NULL, O_RANGE},
        {"ssim-3d", no_argument, NULL, O_SSIM3D},
        {"candidate-opt", required_argument, NULL, O_CANDOPT},
        {"quiet", no_argument, NULL, O_QUIET},
        {"help", no_argument, NULL, O_HELP},
    };
    struct option *longopts =
        mb_cli_runopts_merge_outputs(own, sizeof own / sizeof own[0]);
    if (!longopts)
        return mb_cli_error(MB_EXIT_RUNTIME, "out of memory");

    vopts vo;
    memset(&vo, 0, sizeof vo);
    vo.tol = 0.01;
    vo.samples = 8;
    mb__metric_opts_defaults(&vo.mo);
    vo.mo.per_sample_max = 0;
    mb_plan pa, pb;
    mb__plan_defaults(&pa);
    mb__plan_defaults(&pb);
    mb_cli_outputs out = {0};
    char **cand_kv = NULL;
    size_t n_cand = 0;
    outset oa = {0}, ob = {0};
    json_t *outs = NULL, *doc = NULL;
    int64_t *labels = NULL;
    size_t n_labels = 0;
    int rc = MB_EXIT_OK, c;
    mb_err err = {0};
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":hq", longopts, NULL)) != -1) {
        int r = mb_cli_runopts_handle(&pa, c, optarg);
        if (r < 0) {
            rc = MB_EXIT_USAGE;
            goto done;
        }
        if (r > 0 || mb_cli_outputs_handle(&out, c, optarg))
            continue;
        switch (c) {
        case O_LABELS: vo.labels = optarg; break;
        case O_OUTPUT: vo.output = optarg; break;
        case O_TOL:
            if (mb_cli_parse_double(optarg, 0, 1, &vo.tol)) {
                rc = mb_cli_bad_value("--tolerance", optarg,
                                      "a number in [0, 1]");
                goto done;
            }
            break;
        case O_GATE:
            if (vo.n_gates >= MAX_GATES ||
                mb__gate_parse(optarg, &vo.gates[vo.n_gates], &err)) {
                rc = mb_cli_error(MB_EXIT_USAGE, "%s",
                                  vo.n_gates >= MAX_GATES ? "too many gates"
                                                          : err.msg);
                goto done;
            }
            vo.n_gates++;
            break;
        case O_PREC:
            if (mb__precision_parse(optarg, &vo.prec)) {
                rc = mb_cli_bad_value("--precision", optarg,
                                      "fp32, fp16 or int8");
                goto done;
            }
            vo.have_prec = 1;
            break;
        case O_SAMPLES:
            if (mb_cli_parse_i64(optarg, 1, 1 << 24, &vo.samples)) {
                rc = mb_cli_bad_value("--samples", optarg,
                                      "an integer in 1..16777216");
                goto done;
            }
            break;
        case O_SAVE: /* made and tried now, not after the run */
            if ((rc = mb_cli_output_dir_check("--save-outputs", optarg)))
                goto done;
            vo.save_dir = optarg;
            break;
        case O_ATOL:
            if (mb_cli_parse_double(optarg, 0, 1e300, &vo.mo.atol)) {
                rc = mb_cli_bad_value("--atol", optarg, "a number >= 0");
                goto done;
            }
            break;
        case O_RTOL:
            if (mb_cli_parse_double(optarg, 0, 1e300, &vo.mo.rtol)) {
                rc = mb_cli_bad_value("--rtol", optarg, "a number >= 0");
                goto done;
            }
            break;
        case O_RANGE:
            if (mb_cli_parse_double(optarg, 1e-300, 1e300,
                                    &vo.mo.data_range)) {
                rc = mb_cli_bad_value("--data-range", optarg, "a number > 0");
                goto done;
            }
            break;
        case O_SSIM3D: vo.mo.ssim_3d = 1; break;
        case O_CANDOPT: {
            char **nk = realloc(cand_kv, (n_cand + 1) * sizeof *nk);
            if (!nk || !strchr(optarg, '=')) {
                free(nk ? nk : cand_kv);
                cand_kv = NULL;
                n_cand = 0;
                rc = mb_cli_bad_value("--candidate-opt", optarg,
                                      "KEY=VALUE, e.g. opt-level=all");
                goto done;
            }
            cand_kv = nk;
            cand_kv[n_cand++] = optarg;
            break;
        }
        case 'q':
        case O_QUIET: vo.quiet = 1; break;
        case 'h':
        case O_HELP:
            usage(stdout);
            goto done;
        case ':':
            rc = mb_cli_error(MB_EXIT_USAGE, "%s needs a value; see 'mbench "
                              "validate --help'", argv[optind - 1]);
            goto done;
        default:
            rc = mb_cli_error(MB_EXIT_USAGE,
                              "unknown option '%s'; see 'mbench validate "
                              "--help'", argv[optind - 1]);
            goto done;
        }
    }
    if (argc - optind != 2) {
        rc = mb_cli_error(MB_EXIT_USAGE,
                          "validate needs BASELINE and CANDIDATE models; "
                          "usage: mbench validate BASELINE CANDIDATE "
                          "[options]");
        goto done;
    }
    if (mb_cli_runopts_finish(&pa)) {
        rc = MB_EXIT_USAGE;
        goto done;
    }
    if (pa.n_batches > 1) {
        rc = mb_cli_error(MB_EXIT_USAGE,
                          "validate takes one --batch size, not a list");
        goto done;
    }
    if (vo.labels && !pa.data_path) {
        rc = mb_cli_error(MB_EXIT_USAGE,
                          "--labels needs --data: labels describe real "
                          "samples, not random inputs");
        goto done;
    }
    pa.model_path = mb__strdup(argv[optind]);
    if (mb__plan_copy(&pb, &pa) != 0) {
        rc = mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
        goto done;
    }
    free(pb.model_path);
    pb.model_path = mb__strdup(argv[optind + 1]);
    for (size_t i = 0; i < n_cand; i++) {
        char kv[512];
        snprintf(kv, sizeof kv, "%s", cand_kv[i]);
        char *eq = strchr(kv, '=');
        *eq = '\0';
        if (mb_cli_runopts_apply_kv(&pb, kv, eq + 1)) {
            rc = MB_EXIT_USAGE;
            goto done;
        }
    }
    if (vo.labels && mb__labels_load(vo.labels, &labels, &n_labels, &err)) {
        rc = mb_cli_fail(&err);
        goto done;
    }

    char source[1100] = "";
    size_t n_samples = 0;
    if (run_both(&pa, &pb, &vo, &oa, &ob, &n_samples, source, sizeof source,
                 &err)) {
        rc = mb_cli_fail(&err);
        goto done;
    }
    int synthetic = pa.data_path == NULL;
    if (synthetic)
        mb_cli_warn("NO REAL DATA: both models ran on %s; this verdict "
                    "rests on random inputs only; pass --data for a real "
                    "one", source);

    /* Metrics of every output. */
    outs = json_array();
    for (size_t i = 0; i < oa.n; i++) {
        json_t *m = NULL;
        if (mb__metrics_compute(&oa.t[i], &ob.t[i], &vo.mo, &m, &err)) {
            mb__fail_prefix(&err, "output %s", oa.t[i].name ? oa.t[i].name : "?");
            rc = mb_cli_fail(&err);
            goto done;
        }
        json_array_append_new(outs, m);
    }

    /* The verdict. */
    json_t *v = json_object();
    json_object_set_new(v, "baseline", json_string(pa.model_path));
    json_object_set_new(v, "candidate", json_string(pb.model_path));
    json_object_set_new(v, "inputs", json_string(source));
    json_object_set_new(v, "synthetic_inputs", json_boolean(synthetic));
    json_object_set_new(v, "samples", json_integer((json_int_t)n_samples));
    json_object_set_new(v, "batch", json_integer(pa.n_batches
                                                     ? pa.batches[0]
                                                     : 1));
    json_object_set_new(v, "labels",
                        vo.labels ? json_string(vo.labels) : json_null());
    json_object_set_new(v, "models", models_json(&pa, &pb));
    json_object_set_new(v, "tolerance", json_real(vo.tol));
    char prec_why[160] = "";
    int passed = 0;
    rc = judge(&vo, &pb, &oa, &ob, outs, labels, n_labels, v, prec_why,
               sizeof prec_why, &passed);
    if (rc) {
        json_decref(v);
        goto done;
    }
    json_object_set_new(v, "outputs", json_incref(outs));

    if (!vo.quiet)
        print_report(v, outs, &vo, n_labels, synthetic);
    printf("%s: %s vs %s%s\n", passed ? "PASS" : "FAIL", pb.model_path,
           pa.model_path, synthetic ? " (RANDOM INPUTS ONLY)" : "");

    if (vo.save_dir &&
        (save_outputs(vo.save_dir, "baseline", &oa, &err) ||
         save_outputs(vo.save_dir, "candidate", &ob, &err))) {
        json_decref(v);
        rc = mb_cli_fail(&err);
        goto done;
    }

    doc = mb__doc_new("validate", mb_cli_command_line());
    if (synthetic)
        json_array_append_new(
            json_object_get(doc, "warnings"),
            json_sprintf("inputs are random (synthetic): %s; the verdict "
                         "rests on random inputs only", source));
    json_object_set_new(doc, "validation", v);
    /* Markdown and HTML are the validation's own reports (the run and
     * comparison writers have no runs to show here). */
    const char *md = out.md, *html = out.html;
    out.md = out.html = NULL;
    rc = mb_cli_outputs_write(&out, doc);
    if (!rc && md)
        rc = write_report(md, doc, mb__validation_md);
    if (!rc && html)
        rc = write_report(html, doc, mb__validation_html);
    if (rc == MB_EXIT_OK)
        rc = passed ? MB_EXIT_OK : MB_EXIT_FAIL;
done:
    json_decref(doc);
    json_decref(outs);
    outset_free(&oa);
    outset_free(&ob);
    free(labels);
    free(cand_kv);
    free(longopts);
    mb__plan_free(&pa);
    mb__plan_free(&pb);
    return rc;
}
