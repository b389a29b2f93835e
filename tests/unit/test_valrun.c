/* test_valrun.c - the parts of the validate engine that need no model:
 * its option setter (accuracy/valrun.h), the one precision rule
 * (mb__precision_of_weights), the one classifier-shape rule in the
 * metrics, Dice and IoU against masks, the console report of a
 * validation (report/valprint.h), and the public mb_runner_validate on the
 * null backend (no runtime needed). */
#include "t.h"

#include "accuracy/gate.h"
#include "accuracy/metrics.h"
#include "accuracy/valjudge.h"
#include "accuracy/metrics_json.h"
#include "accuracy/valrun.h"
#include "core/buf.h"
#include "mbench.h"
#include "report/valprint.h"

#include <stdlib.h>
#include <string.h>

static void options_are_parsed_and_bad_values_name_the_flag(void)
{
    mb__val_req rq;
    mb_err e = {0};
    mb__val_req_defaults(&rq);
    EXPECT_NEAR(rq.tolerance, 0.01, 0);
    EXPECT_EQ_INT(rq.samples, 8);
    EXPECT_EQ_INT(mb__val_set(&rq, "--tolerance", "0.05", &e), MB_OK);
    EXPECT_NEAR(rq.tolerance, 0.05, 0);
    EXPECT_EQ_INT(mb__val_set(&rq, "gate", "cos>=0.9", &e), MB_OK);
    EXPECT_EQ_INT(mb__val_set(&rq, "gate", "psnr>=40", &e), MB_OK);
    EXPECT_EQ_INT(rq.n_gates, 2);
    EXPECT_STR(rq.gates[0].metric, "cosine");
    EXPECT_EQ_INT(mb__val_set(&rq, "ssim-3d", "1", &e), MB_OK);
    EXPECT_EQ_INT(rq.metrics.ssim_3d, 1);
    EXPECT_EQ_INT(mb__val_set(&rq, "precision", "int8", &e), MB_OK);
    EXPECT_EQ_INT(rq.have_precision, 1);
    EXPECT_EQ_INT(rq.precision, MB_PREC_INT8);
    EXPECT_EQ_INT(mb__val_set(&rq, "--tolerance", "2", &e), MB_EINVAL);
    EXPECT_STR(e.msg, "invalid value '2' for --tolerance: expected a number "
                      "in [0, 1]");
    EXPECT_NEAR(rq.tolerance, 0.05, 0);
    EXPECT_EQ_INT(mb__val_set(&rq, "samples", "0", &e), MB_EINVAL);
    EXPECT_CONTAINS(e.msg, "for samples");
    EXPECT_EQ_INT(mb__val_set(&rq, "precision", "fp8", &e), MB_EINVAL);
    EXPECT_EQ_INT(mb__val_set(&rq, "gate", "psnr=>40", &e), MB_EINVAL);
    EXPECT_EQ_INT(rq.n_gates, 2);
    EXPECT_EQ_INT(mb__val_set(&rq, "threads", "2", &e), MB_EINVAL);
    EXPECT(mb__val_is_option("--data-range"));
    EXPECT(mb__val_is_option("save-outputs"));
    EXPECT(!mb__val_is_option("threads"));
    EXPECT(!mb__val_is_option("candidate-opt"));
}

static void precision_follows_the_most_weight_elements_not_bytes(void)
{
    /* 1000 int8 elements (1000 bytes) beside 401 float32 (1604 bytes). */
    json_t *by =
        json_pack("{s:{s:i,s:i}, s:{s:i,s:i}}", "float32", "count", 401,
                  "bytes", 1604, "int8", "count", 1000, "bytes", 1000);
    mb__precision p = MB_PREC_FP16;
    char what[64];
    EXPECT(mb__precision_of_weights(by, &p, what, sizeof what));
    EXPECT_EQ_INT(p, MB_PREC_INT8);
    EXPECT_STR(what, "1000 int8 elements");
    json_decref(by);
    by = json_pack("{s:{s:i,s:i}}", "float16", "count", 10, "bytes", 20);
    EXPECT(mb__precision_of_weights(by, &p, what, sizeof what));
    EXPECT_EQ_INT(p, MB_PREC_FP16);
    json_decref(by);
    by = json_object();
    p = MB_PREC_INT8;
    EXPECT(!mb__precision_of_weights(by, &p, what, sizeof what));
    EXPECT_EQ_INT(p, MB_PREC_FP32);
    EXPECT(!mb__precision_of_weights(NULL, &p, NULL, 0));
    json_decref(by);
}

static mb__metrics_result metrics_of(mb_dtype dt, int rank, const int64_t *dims)
{
    mb_tensor a, b;
    mb_tensor_alloc(&a, dt, rank, dims, "logits", NULL);
    mb_tensor_alloc(&b, dt, rank, dims, "logits", NULL);
    size_t n = mb_tensor_count(&a);
    for (size_t i = 0; i < n; i++) {
        if (dt == MB_DTYPE_FLOAT32) {
            ((float *)a.data)[i] = (float)(i % 3);
            ((float *)b.data)[i] = (float)(i % 3);
        } else {
            ((int32_t *)a.data)[i] = (int32_t)(i % 3);
            ((int32_t *)b.data)[i] = (int32_t)(i % 3);
        }
    }
    mb__metric_opts o;
    mb__metric_opts_defaults(&o);
    mb__metrics_result r;
    mb_err e = {0};
    memset(&r, 0, sizeof r);
    if (mb__metrics_compute_struct(&a, &b, &o, &r, &e))
        printf("# %s\n", e.msg);
    mb_tensor_clear(&a);
    mb_tensor_clear(&b);
    return r;
}

static void class_scores_with_trailing_unit_dims_get_top1_agreement(void)
{
    int64_t d4[] = {4, 3, 1, 1}, d2[] = {4, 3};
    mb__metrics_result r = metrics_of(MB_DTYPE_FLOAT32, 4, d4);
    EXPECT_EQ_INT(r.total.classifier, 1);
    EXPECT_EQ_INT(r.total.classes, 3);
    EXPECT_NEAR(r.total.top1_agreement, 1, 0);
    mb__metrics_result_free(&r);
    /* Integer [N, C] (class ids, counts) are not class scores. */
    r = metrics_of(MB_DTYPE_INT32, 2, d2);
    EXPECT_EQ_INT(r.total.classifier, 0);
    mb__metrics_result_free(&r);
}

/* scores [1, C, 1, 4] whose argmax is pred, with a NaN at nan_px (or -1). */
static void seg_tensor(mb_tensor *t, int C, const int *pred, int nan_px)
{
    int64_t d[] = {1, C, 1, 4};
    mb_tensor_alloc(t, MB_DTYPE_FLOAT32, 4, d, "seg", NULL);
    float *x = t->data;
    for (int c = 0; c < C; c++)
        for (int p = 0; p < 4; p++)
            x[c * 4 + p] = pred[p] == c ? 2.0f : (float)c * 0.1f;
    if (nan_px >= 0)
        x[2 * 4 + nan_px] = NAN;
}

static double jd(const json_t *o, const char *k)
{
    return json_number_value(json_object_get(o, k));
}

static void dice_and_iou_count_every_pixel_per_class(void)
{
    /* pred 0 1 1 2, masks 0 1 2 2; class 3 appears in neither. */
    static const int pred[] = {0, 1, 1, 2};
    int64_t md[] = {1, 1, 4};
    mb_tensor s, m;
    seg_tensor(&s, 4, pred, -1);
    mb_tensor_alloc(&m, MB_DTYPE_UINT8, 3, md, "masks", NULL);
    memcpy(m.data, (uint8_t[]){0, 1, 2, 2}, 4);
    json_t *o = NULL;
    mb_err e = {0};
    EXPECT_EQ_INT(mb__segmentation_scores(&s, &m, NULL, &o, &e), MB_OK);
    EXPECT_EQ_INT(json_integer_value(json_object_get(o, "classes")), 4);
    EXPECT_EQ_INT(json_integer_value(json_object_get(o, "pixels")), 4);
    EXPECT_NEAR(jd(o, "pixel_accuracy"), 0.75, 0);
    const json_t *iou = json_object_get(o, "iou"),
                 *dice = json_object_get(o, "dice");
    EXPECT_NEAR(json_number_value(json_array_get(iou, 0)), 1, 0);
    EXPECT_NEAR(json_number_value(json_array_get(iou, 1)), 0.5, 0);
    EXPECT_NEAR(json_number_value(json_array_get(dice, 2)), 2.0 / 3, 1e-15);
    EXPECT(json_is_null(json_array_get(iou, 3)));
    EXPECT_NEAR(jd(o, "mean_iou"), 2.0 / 3, 1e-15);
    EXPECT_NEAR(jd(o, "mean_dice"), 7.0 / 9, 1e-15);
    json_decref(o);
    /* A NaN score predicts no class: pixel 3 (mask 2) is then a miss. */
    mb_tensor_clear(&s);
    seg_tensor(&s, 4, pred, 3);
    EXPECT_EQ_INT(mb__segmentation_scores(&s, &m, NULL, &o, &e), MB_OK);
    EXPECT_NEAR(jd(o, "pixel_accuracy"), 0.5, 0);
    EXPECT_NEAR(json_number_value(json_array_get(json_object_get(o, "iou"), 2)),
                0, 0);
    json_decref(o);
    /* Class 9 does not exist. */
    ((uint8_t *)m.data)[1] = 9;
    EXPECT_EQ_INT(mb__segmentation_scores(&s, &m, NULL, &o, &e), MB_EDATA);
    EXPECT_CONTAINS(e.msg, "mask value 9 of sample 0");
    EXPECT(o == NULL);
    mb_tensor_clear(&m);
    /* Float masks and masks of another size do not fit. */
    int64_t fd[] = {1, 1, 4}, wd[] = {1, 5};
    mb_tensor_alloc(&m, MB_DTYPE_FLOAT32, 3, fd, "masks", NULL);
    EXPECT(!mb__segmentation_fits(&s, &m));
    EXPECT_EQ_INT(mb__segmentation_scores(&s, &m, NULL, &o, &e), MB_EDATA);
    EXPECT_CONTAINS(e.msg, "integer masks [N, H, W] or [N, 1, H, W]");
    mb_tensor_clear(&m);
    mb_tensor_alloc(&m, MB_DTYPE_INT64, 2, wd, "masks", NULL);
    EXPECT(!mb__segmentation_fits(&s, &m));
    mb_tensor_clear(&m);
    mb_tensor_clear(&s);
}

static json_t *validation_doc(int passed, int synthetic)
{
    return json_pack(
        "{s:{s:s, s:s, s:s, s:b, s:s, s:b, s:s, s:s, s:s, s:[s], s:[], s:[],"
        " s:{s:s, s:b}, s:[{s:s, s:b, s:b}]}}",
        "validation", "baseline", "a.onnx", "candidate", "b.onnx", "inputs",
        synthetic ? "3 synthetic samples (seed 0): RANDOM INPUTS"
                  : "data.npy: 64 samples",
        "synthetic_inputs", synthetic, "rule", "top1_agreement", "passed",
        passed, "precision", "fp16", "precision_reason", "from --precision",
        "labels", "", "criteria", "PASS top-1 agreement on logits 1.0000",
        "outputs", "gates", "output_choice", "reason",
        "logits ([64,3] float32): named like class scores", "requested", 0,
        "per_output", "name", "logits", "classifier", 1, "passed", passed);
}

static void the_console_report_ends_with_the_verdict_line(void)
{
    json_t *doc = validation_doc(1, 0);
    mb__buf b = MB_BUF_INIT;
    mb__validation_console(doc, 0, &b);
    EXPECT_CONTAINS(b.data, "baseline  a.onnx\ncandidate b.onnx\n");
    EXPECT_CONTAINS(b.data, "class scores: logits ([64,3] float32)");
    EXPECT_CONTAINS(b.data, "criteria (rule: top1_agreement; gates on every "
                            "output):\n  PASS top-1 agreement");
    EXPECT_CONTAINS(b.data, "default gates for fp16 (from --precision)");
    EXPECT_CONTAINS(b.data, "  PASS   logits (class scores: top-1 and gates)");
    EXPECT(b.data && strstr(b.data, "PASS: b.onnx vs a.onnx\n") ==
                         b.data + b.len - strlen("PASS: b.onnx vs a.onnx\n"));
    EXPECT(!strstr(b.data, "RANDOM"));
    mb__buf_free(&b);
    json_decref(doc);
}

static void quiet_random_failures_still_say_random_inputs(void)
{
    json_t *doc = validation_doc(0, 1);
    mb__buf b = MB_BUF_INIT;
    mb__validation_console(doc, 1, &b);
    EXPECT_STR(b.data, "FAIL: b.onnx vs a.onnx (RANDOM INPUTS ONLY)\n");
    mb__buf_free(&b);
    mb__validation_console(doc, 0, &b);
    EXPECT_CONTAINS(b.data, "!!! WARNING: NO REAL DATA");
    mb__buf_free(&b);
    json_t *other = json_object();
    mb__validation_console(other, 0, &b);
    EXPECT_EQ_INT(b.len, 0);
    mb__buf_free(&b);
    json_decref(other);
    json_decref(doc);
}

/* The public call on the null backend (y = x: both "models" agree). */
static void the_api_validates_on_the_null_backend(void)
{
    mb_runner *r = mb_runner_new();
    mb_err e = {0};
    EXPECT_EQ_INT(mb_runner_set(r, "backend", "null", &e), MB_OK);
    EXPECT_EQ_INT(mb_runner_set(r, "samples", "5", &e), MB_OK);
    EXPECT_EQ_INT(mb_runner_set(r, "candidate-opt", "delay=1000", &e), MB_OK);
    int passed = -1;
    char *json = NULL;
    EXPECT_EQ_INT(mb_runner_validate(r, "none", "none", &passed, &json, &e),
                  MB_OK);
    EXPECT_EQ_INT(passed, 1);
    json_t *doc = json ? json_loads(json, 0, NULL) : NULL;
    json_t *v = json_object_get(doc, "validation");
    EXPECT_STR(json_string_value(json_object_get(doc, "kind")), "validate");
    EXPECT_STR(json_string_value(json_object_get(v, "rule")), "top1_agreement");
    EXPECT_EQ_INT(json_integer_value(json_object_get(v, "samples")), 5);
    EXPECT(json_is_true(json_object_get(v, "synthetic_inputs")));
    EXPECT_STR(
        json_string_value(json_object_get(
            json_object_get(json_array_get(json_object_get(v, "models"), 1),
                            "options"),
            "delay")),
        "1000");
    EXPECT(!json_object_get(
        json_object_get(json_array_get(json_object_get(v, "models"), 0),
                        "options"),
        "delay"));
    json_decref(doc);
    free(json);
    /* A failed verdict is not an error of the call. */
    EXPECT_EQ_INT(mb_runner_set(r, "gate", "max_abs>0", &e), MB_OK);
    EXPECT_EQ_INT(mb_runner_validate(r, "none", "none", &passed, &json, &e),
                  MB_OK);
    EXPECT_EQ_INT(passed, 0);
    EXPECT_CONTAINS(json, "\"passed\": false");
    free(json);
    /* Bad values fail when set; bad requests when run. */
    EXPECT_EQ_INT(mb_runner_set(r, "gate", "max_abs=>0", &e), MB_EINVAL);
    EXPECT_EQ_INT(mb_runner_set(r, "candidate-opt", "nokv", &e), MB_EINVAL);
    EXPECT_EQ_INT(mb_runner_set(r, "masks", "m.npy", &e), MB_OK);
    EXPECT_EQ_INT(mb_runner_validate(r, "none", "none", &passed, &json, &e),
                  MB_EINVAL);
    EXPECT_CONTAINS(e.msg, "--masks needs --data");
    EXPECT(json == NULL);
    mb_runner_free(r);
    r = mb_runner_new();
    EXPECT_EQ_INT(mb_runner_set(r, "backend", "null", &e), MB_OK);
    EXPECT_EQ_INT(mb_runner_set(r, "output", "nope", &e), MB_OK);
    EXPECT_EQ_INT(mb_runner_validate(r, "none", "none", NULL, &json, &e),
                  MB_EINVAL);
    EXPECT_CONTAINS(e.msg, "its outputs are: y");
    mb_runner_free(r);
}

/* The candidate's plan is the baseline's with its own options on top; a
 * bad one names itself, and min <= max is checked again. */
static void the_candidate_plan_takes_its_own_options(void)
{
    mb__plan pa, pb;
    mb_err e = {0};
    mb__plan_defaults(&pa);
    mb__plan_set_opt(&pa, "threads", "3");
    const char *ok[] = {"opt-level=basic", "threads=2"};
    EXPECT_EQ_INT(mb__val_plans(&pa, &pb, "a.onnx", "b.onnx", ok, 2, &e),
                  MB_OK);
    EXPECT_STR(pa.model_path, "a.onnx");
    EXPECT_STR(pb.model_path, "b.onnx");
    EXPECT_STR(mb__plan_get_opt(&pa, "threads"), "3");
    EXPECT_STR(mb__plan_get_opt(&pb, "threads"), "2");
    EXPECT_STR(mb__plan_get_opt(&pb, "opt-level"), "basic");
    mb__plan_free(&pb);
    const char *unknown[] = {"speed=3"};
    EXPECT_EQ_INT(mb__val_plans(&pa, &pb, "a", "b", unknown, 1, &e), MB_EINVAL);
    EXPECT_CONTAINS(e.msg, "unknown variant option 'speed'");
    const char *crossed[] = {"min-time=5s", "max-time=1s"};
    EXPECT_EQ_INT(mb__val_plans(&pa, &pb, "a", "b", crossed, 2, &e), MB_EINVAL);
    EXPECT_CONTAINS(e.msg, "--candidate-opt: min-time");
    mb__plan_free(&pa);
}

/* Judges a candidate off by rel_l2 0.01 (fails the fp32 gates, passes
 * the fp16 and bf16 ones) with the given runtime facts and backend
 * option; returns the "validation" object. */
static json_t *judge_with_runtime(const json_t *rt, const mb_kv *opt)
{
    static float av[6] = {1, 2, 3, 4, 5, 6}, bv[6];
    for (int i = 0; i < 6; i++)
        bv[i] = av[i] * 1.01f;
    int64_t dims[2] = {2, 3};
    mb_tensor a = {0}, b = {0};
    mb_err e = {0};
    EXPECT_EQ_INT(mb_tensor_alloc(&a, MB_DTYPE_FLOAT32, 2, dims, "emb", &e),
                  MB_OK);
    EXPECT_EQ_INT(mb_tensor_alloc(&b, MB_DTYPE_FLOAT32, 2, dims, "emb", &e),
                  MB_OK);
    memcpy(a.data, av, sizeof av);
    memcpy(b.data, bv, sizeof bv);
    mb__plan pa, pb;
    mb__plan_defaults(&pa);
    mb__plan_defaults(&pb);
    pb.opts = (mb_kv *)opt;
    pb.n_opts = opt ? 1 : 0;
    mb__val_req rq;
    mb__val_req_defaults(&rq);
    rq.baseline = &pa;
    rq.candidate = &pb;
    json_t *w = json_pack("{s:{s:i,s:i}}", "float32", "count", 6, "bytes", 24);
    rq.weights = w;
    rq.runtime = rt;
    json_t *m = NULL, *outs = json_array(), *v = json_object();
    EXPECT_EQ_INT(mb__metrics_compute(&a, &b, &rq.metrics, &m, &e), MB_OK);
    json_array_append_new(outs, m);
    EXPECT_EQ_INT(mb__val_judge(&rq, &a, &b, 1, outs, NULL, 0, NULL, v, &e),
                  MB_OK);
    json_decref(outs);
    json_decref(w);
    mb_tensor_clear(&a);
    mb_tensor_clear(&b);
    pb.opts = NULL;
    pb.n_opts = 0;
    mb__plan_free(&pa);
    mb__plan_free(&pb);
    return v;
}

static void precision_comes_from_the_runtime_before_the_weights(void)
{
    /* OpenVINO computing in bf16 by default: the bf16 gates, said */
    json_t *rt = json_pack("{s:s, s:{s:s}}", "backend", "openvino", "session",
                           "inference_precision", "bf16");
    json_t *v = judge_with_runtime(rt, NULL);
    EXPECT_STR(json_string_value(json_object_get(v, "precision")), "bf16");
    EXPECT_STR(json_string_value(json_object_get(v, "precision_source")),
               "runtime");
    EXPECT_STR(json_string_value(json_object_get(v, "precision_reason")),
               "computed in bf16, OpenVINO's default on this CPU: bf16 "
               "gates; backend-opt=precision=f32 to compute in fp32");
    EXPECT(json_is_true(json_object_get(v, "passed")));
    json_decref(v);
    /* asked for with precision=bf16 */
    mb_kv ask = {"precision", "bf16"};
    v = judge_with_runtime(rt, &ask);
    EXPECT_STR(json_string_value(json_object_get(v, "precision_reason")),
               "computed in bf16, as precision=bf16 asked: bf16 gates");
    json_decref(v);
    json_decref(rt);
    /* the torch backend's dtype */
    rt = json_pack("{s:s, s:{s:s}}", "backend", "torch", "session",
                   "inference_precision", "float16");
    v = judge_with_runtime(rt, NULL);
    EXPECT_STR(json_string_value(json_object_get(v, "precision")), "fp16");
    json_decref(v);
    json_decref(rt);
    /* a runtime that says nothing: the weights (fp32), which fail it */
    rt = json_pack("{s:s}", "backend", "ort");
    v = judge_with_runtime(rt, NULL);
    EXPECT_STR(json_string_value(json_object_get(v, "precision")), "fp32");
    EXPECT_STR(json_string_value(json_object_get(v, "precision_source")),
               "weights");
    EXPECT(json_is_false(json_object_get(v, "passed")));
    json_decref(v);
    json_decref(rt);
    /* bf16 weights have bf16 gates of their own */
    mb__precision p;
    EXPECT(mb__precision_parse("bf16", &p));
    EXPECT_EQ_INT(p, MB_PREC_BF16);
    EXPECT_EQ_INT(mb__precision_from_dtype(MB_DTYPE_BFLOAT16), MB_PREC_BF16);
    mb__gate g[4];
    EXPECT_EQ_INT(mb__gate_defaults(MB_PREC_BF16, g, 4), 3);
    EXPECT_STR(g[0].text, "rel_l2<=0.05");
}

int main(void)
{
    RUN(the_candidate_plan_takes_its_own_options);
    RUN(options_are_parsed_and_bad_values_name_the_flag);
    RUN(precision_follows_the_most_weight_elements_not_bytes);
    RUN(precision_comes_from_the_runtime_before_the_weights);
    RUN(class_scores_with_trailing_unit_dims_get_top1_agreement);
    RUN(dice_and_iou_count_every_pixel_per_class);
    RUN(the_console_report_ends_with_the_verdict_line);
    RUN(quiet_random_failures_still_say_random_inputs);
    RUN(the_api_validates_on_the_null_backend);
    return T_DONE();
}
