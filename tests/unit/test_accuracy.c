/* test_accuracy.c - the accuracy metrics, gates and heat maps on small
 * tensors whose answers are worked out by hand.  Agreement with numpy and
 * scikit-image on larger arrays is tests/integration/metrics_ref.sh. */
#include "accuracy/gate.h"
#include "accuracy/heatmap.h"
#include "accuracy/metrics.h"
#include "accuracy/metrics_json.h"
#include "accuracy/mkernel.h"
#include "core/rng.h"
#include "t.h"

#include <math.h>

#include <stdlib.h>

static void make_f32(mb_tensor *t, int rank, const int64_t *dims,
                     const float *v)
{
    mb_tensor_alloc(t, MB_DTYPE_FLOAT32, rank, dims, "out", NULL);
    if (v)
        memcpy(t->data, v, t->nbytes);
}

static void metrics_of_a_small_vector_match_hand_computation(void)
{
    int64_t d[1] = {4};
    float va[4] = {1, 2, 3, 4}, vb[4] = {1, 2, 3, 5};
    mb_tensor a, b;
    make_f32(&a, 1, d, va);
    make_f32(&b, 1, d, vb);
    mb__metrics_result r;
    mb_err err;
    EXPECT_EQ_INT(mb__metrics_compute_struct(&a, &b, NULL, &r, &err), MB_OK);
    EXPECT_NEAR(r.total.mae, 0.25, 1e-15);
    EXPECT_NEAR(r.total.mse, 0.25, 1e-15);
    EXPECT_NEAR(r.total.rmse, 0.5, 1e-15);
    EXPECT_NEAR(r.total.max_abs, 1.0, 0);
    EXPECT_EQ_INT(r.total.max_abs_index, 3);
    EXPECT_NEAR(r.data_range, 3.0, 0);
    EXPECT_NEAR(r.total.psnr, 10 * log10(9 / 0.25), 1e-12);
    EXPECT_NEAR(r.total.rel_l2, 1 / sqrt(30.0), 1e-15);
    EXPECT_NEAR(r.total.cosine, 34 / sqrt(30.0 * 39.0), 1e-15);
    EXPECT_EQ_INT(r.total.allclose_fail, 1);
    EXPECT_EQ_INT(r.n_samples, 1);
    mb__metrics_result_free(&r);
    mb_tensor_clear(&a);
    mb_tensor_clear(&b);
}

static void identical_tensors_have_infinite_psnr_and_unit_ssim(void)
{
    int64_t d[3] = {2, 16, 16};
    mb_tensor a, b;
    make_f32(&a, 3, d, NULL);
    mb__rng rng;
    mb__rng_seed(&rng, 1);
    for (size_t i = 0; i < 512; i++)
        ((float *)a.data)[i] = (float)mb__rng_uniform(&rng);
    mb_tensor_copy(&b, &a, NULL);
    json_t *j = NULL;
    EXPECT_EQ_INT(mb__metrics_compute(&a, &b, NULL, &j, NULL), MB_OK);
    EXPECT_STR(json_string_value(json_object_get(j, "psnr")), "inf");
    EXPECT_NEAR(json_real_value(json_object_get(j, "ssim")), 1.0, 0);
    EXPECT_NEAR(json_real_value(json_object_get(j, "mae")), 0.0, 0);
    EXPECT_NEAR(json_real_value(json_object_get(j, "cosine")), 1.0, 1e-15);
    EXPECT_EQ_INT(json_integer_value(json_object_get(j, "ssim_images")), 2);
    EXPECT_EQ_INT(json_integer_value(json_object_get(j, "samples")), 2);
    json_decref(j);
    mb_tensor_clear(&a);
    mb_tensor_clear(&b);
}

static void shape_mismatch_names_both_shapes(void)
{
    int64_t da[2] = {2, 3}, db[2] = {3, 2};
    mb_tensor a, b;
    make_f32(&a, 2, da, NULL);
    make_f32(&b, 2, db, NULL);
    mb__metrics_result r;
    mb_err err;
    EXPECT_EQ_INT(mb__metrics_compute_struct(&a, &b, NULL, &r, &err), MB_EDATA);
    EXPECT_CONTAINS(err.msg, "[2,3]");
    EXPECT_CONTAINS(err.msg, "[3,2]");
    mb_tensor_clear(&a);
    mb_tensor_clear(&b);
}

static void nan_and_inf_are_counted_and_left_out_of_the_means(void)
{
    int64_t d[1] = {5};
    float va[5] = {1, 2, NAN, INFINITY, 5};
    float vb[5] = {1, NAN, NAN, INFINITY, 6};
    mb_tensor a, b;
    make_f32(&a, 1, d, va);
    make_f32(&b, 1, d, vb);
    mb__metrics_result r;
    EXPECT_EQ_INT(mb__metrics_compute_struct(&a, &b, NULL, &r, NULL), MB_OK);
    EXPECT_EQ_INT(r.total.nan_a, 1);
    EXPECT_EQ_INT(r.total.nan_b, 2);
    EXPECT_EQ_INT(r.total.inf_a, 1);
    EXPECT_EQ_INT(r.total.inf_b, 1);
    EXPECT_EQ_INT(r.total.nonfinite_new, 1);
    EXPECT_EQ_INT(r.total.finite, 2);
    EXPECT_NEAR(r.total.mae, 0.5, 1e-15);
    /* NaN pairs and the new NaN fail isclose; inf == inf does not. */
    EXPECT_EQ_INT(r.total.allclose_fail, 3);
    mb__metrics_result_free(&r);
    mb_tensor_clear(&a);
    mb_tensor_clear(&b);
}

static void the_worst_sample_is_named(void)
{
    int64_t d[2] = {3, 4};
    float va[12] = {0}, vb[12] = {0};
    vb[5] = 2; /* sample 1 */
    vb[9] = 1; /* sample 2 */
    mb_tensor a, b;
    make_f32(&a, 2, d, va);
    make_f32(&b, 2, d, vb);
    json_t *j = NULL;
    EXPECT_EQ_INT(mb__metrics_compute(&a, &b, NULL, &j, NULL), MB_OK);
    json_t *w = json_object_get(json_object_get(j, "worst"), "max_abs");
    EXPECT_EQ_INT(json_integer_value(json_object_get(w, "sample")), 1);
    EXPECT_NEAR(json_real_value(json_object_get(w, "value")), 2.0, 0);
    json_t *at = json_object_get(j, "max_abs_at");
    EXPECT_EQ_INT(json_integer_value(json_array_get(at, 0)), 1);
    EXPECT_EQ_INT(json_integer_value(json_array_get(at, 1)), 1);
    json_decref(j);
    mb_tensor_clear(&a);
    mb_tensor_clear(&b);
}

static void classifier_outputs_get_topk_agreement_and_kl(void)
{
    int64_t d[2] = {2, 6};
    float va[12] = {0, 1, 2, 3, 4, 5, /* */ 5, 4, 3, 2, 1, 0};
    float vb[12] = {0, 1, 2, 3, 6, 5, /* top1 moves to 4; 5 still top-5 */
                    5, 4, 3, 2, 1, 0};
    mb_tensor a, b;
    make_f32(&a, 2, d, va);
    make_f32(&b, 2, d, vb);
    mb__metrics_result r;
    EXPECT_EQ_INT(mb__metrics_compute_struct(&a, &b, NULL, &r, NULL), MB_OK);
    EXPECT(r.total.classifier);
    EXPECT_NEAR(r.total.top1_agreement, 0.5, 0);
    EXPECT_NEAR(r.total.top5_agreement, 1.0, 0);
    EXPECT_NEAR(r.samples[1].kl_mean, 0.0, 1e-15);
    EXPECT(r.samples[0].kl_mean > 0);
    EXPECT_NEAR(r.total.kl_max, r.samples[0].kl_mean, 0);
    mb__metrics_result_free(&r);
    mb_tensor_clear(&a);
    mb_tensor_clear(&b);
}

static void accuracy_against_labels_counts_top1_and_top5(void)
{
    int64_t d[2] = {3, 6};
    float v[18] = {0, 1, 2, 3, 4, 5, 5, 4, 3, 2, 1, 0, 0, 0, 9, 0, 0, 0};
    mb_tensor t;
    make_f32(&t, 2, d, v);
    int64_t labels[3] = {5, 1, 0};
    double t1, t5;
    EXPECT_EQ_INT(mb__topk_accuracy(&t, labels, 3, &t1, &t5, NULL), MB_OK);
    EXPECT_NEAR(t1, 1.0 / 3, 1e-15);
    /* row 2: ties at 0 go to the lower index, so class 0 ranks second. */
    EXPECT_NEAR(t5, 1.0, 0);
    mb_err err;
    EXPECT_EQ_INT(mb__topk_accuracy(&t, labels, 2, &t1, &t5, &err), MB_EDATA);
    EXPECT_CONTAINS(err.msg, "2 labels for 3 rows");
    labels[1] = 6;
    EXPECT_EQ_INT(mb__topk_accuracy(&t, labels, 3, &t1, &t5, &err), MB_EDATA);
    EXPECT_CONTAINS(err.msg, "outside [0, 6)");
    mb_tensor_clear(&t);
}

static void results_do_not_depend_on_the_thread_count(void)
{
    int64_t d[2] = {3, 700000};
    mb_tensor a, b;
    make_f32(&a, 2, d, NULL);
    make_f32(&b, 2, d, NULL);
    mb__rng rng;
    mb__rng_seed(&rng, 7);
    float *pa = a.data, *pb = b.data;
    for (size_t i = 0; i < 2100000; i++) {
        pa[i] = (float)(mb__rng_normal(&rng) + 100);
        pb[i] = pa[i] + (float)(1e-3 * mb__rng_normal(&rng));
    }
    mb__metric_opts o1, o2;
    mb__metric_opts_defaults(&o1);
    o1.threads = 1;
    o2 = o1;
    o2.threads = 3;
    o2.parallel_min = 1;
    mb__metrics_result r1, r2;
    EXPECT_EQ_INT(mb__metrics_compute_struct(&a, &b, &o1, &r1, NULL), MB_OK);
    EXPECT_EQ_INT(mb__metrics_compute_struct(&a, &b, &o2, &r2, NULL), MB_OK);
    EXPECT_NEAR(r1.total.mae, r2.total.mae, 0);
    EXPECT_NEAR(r1.total.pearson, r2.total.pearson, 0);
    EXPECT_NEAR(r1.total.cosine, r2.total.cosine, 0);
    EXPECT_NEAR(r1.samples[2].mse, r2.samples[2].mse, 0);
    /* offset 100 and noise 1e-3: a one-pass formula would lose Pearson */
    EXPECT(r1.total.pearson > 0.99999 && r1.total.pearson < 1.0);
    mb__metrics_result_free(&r1);
    mb__metrics_result_free(&r2);
    mb_tensor_clear(&a);
    mb_tensor_clear(&b);
}

static void float16_candidates_are_widened_exactly(void)
{
    int64_t d[1] = {3};
    float va[3] = {0.5f, 1.0f, 2.0f};
    mb_tensor a, b;
    make_f32(&a, 1, d, va);
    mb_tensor_alloc(&b, MB_DTYPE_FLOAT16, 1, d, "out", NULL);
    uint16_t *h = b.data;
    h[0] = mb_f32_to_f16(0.5f);
    h[1] = mb_f32_to_f16(1.0f);
    h[2] = mb_f32_to_f16(2.001f); /* fp16 holds 2 + 2^-9 */
    mb__metrics_result r;
    EXPECT_EQ_INT(mb__metrics_compute_struct(&a, &b, NULL, &r, NULL), MB_OK);
    EXPECT_NEAR(r.total.max_abs, 0.001953125, 0);
    EXPECT_EQ_INT(r.total.max_abs_index, 2);
    mb__metrics_result_free(&r);
    mb_tensor_clear(&a);
    mb_tensor_clear(&b);
}

static void gates_parse_and_evaluate(void)
{
    mb__gate g;
    mb_err err;
    EXPECT_EQ_INT(mb__gate_parse(" cos >= 0.999 ", &g, &err), MB_OK);
    EXPECT_STR(g.metric, "cosine");
    EXPECT_STR(g.text, "cosine>=0.999");
    json_t *m =
        json_pack("{s:f, s:s, s:n}", "cosine", 0.9995, "psnr", "inf", "ssim");
    EXPECT_EQ_INT(mb__gate_eval(&g, m, NULL), MB_GATE_PASS);
    EXPECT_EQ_INT(mb__gate_parse("psnr>=40", &g, NULL), MB_OK);
    EXPECT_EQ_INT(mb__gate_eval(&g, m, NULL), MB_GATE_PASS);
    EXPECT_EQ_INT(mb__gate_parse("ssim>=0.9", &g, NULL), MB_OK);
    EXPECT_EQ_INT(mb__gate_eval(&g, m, NULL), MB_GATE_NA);
    EXPECT_EQ_INT(mb__gate_parse("cosine>0.9999", &g, NULL), MB_OK);
    EXPECT_EQ_INT(mb__gate_eval(&g, m, NULL), MB_GATE_FAIL);
    json_decref(m);
}

static void bad_gates_are_refused_with_the_fix(void)
{
    mb__gate g;
    mb_err err;
    EXPECT_EQ_INT(mb__gate_parse("cosin>=0.9", &g, &err), MB_EINVAL);
    EXPECT_CONTAINS(err.msg, "unknown metric 'cosin'");
    EXPECT_EQ_INT(mb__gate_parse("psnr=>40", &g, &err), MB_EINVAL);
    EXPECT_CONTAINS(err.msg, "operator");
    EXPECT_EQ_INT(mb__gate_parse("psnr>=forty", &g, &err), MB_EINVAL);
    EXPECT_CONTAINS(err.msg, "not a number");
    EXPECT_EQ_INT(mb__gate_parse("psnr>=40dB", &g, &err), MB_EINVAL);
}

static void a_gate_undefined_for_every_output_fails(void)
{
    mb__gate g;
    mb__gate_parse("ssim>=0.9", &g, NULL);
    json_t *outs = json_pack("[{s:s, s:n}]", "name", "logits", "ssim");
    int passed = 1;
    json_t *r = mb__gates_eval_outputs(&g, 1, outs, &passed);
    EXPECT_EQ_INT(passed, 0);
    EXPECT_CONTAINS(
        json_string_value(json_object_get(json_array_get(r, 0), "reason")),
        "undefined");
    json_decref(r);
    json_decref(outs);
}

static void default_gates_loosen_with_precision(void)
{
    mb__gate g32[8], g16[8], g8[8];
    size_t n32 = mb__gate_defaults(MB_PREC_FP32, g32, 8);
    size_t n16 = mb__gate_defaults(MB_PREC_FP16, g16, 8);
    size_t n8 = mb__gate_defaults(MB_PREC_INT8, g8, 8);
    EXPECT_EQ_INT(n32, n16);
    EXPECT_EQ_INT(n16, n8);
    EXPECT_STR(g32[0].metric, "rel_l2");
    EXPECT(g32[0].value < g16[0].value && g16[0].value < g8[0].value);
    mb__precision p;
    EXPECT(mb__precision_parse("fp16", &p));
    EXPECT_EQ_INT(p, MB_PREC_FP16);
    EXPECT(!mb__precision_parse("fp12", &p));
    EXPECT_EQ_INT(mb__precision_from_dtype(MB_DTYPE_INT8), MB_PREC_INT8);
}

static void heatmap_is_a_png_with_a_dark_to_light_ramp(void)
{
    int64_t d[2] = {4, 4};
    mb_tensor a, b;
    make_f32(&a, 2, d, NULL);
    make_f32(&b, 2, d, NULL);
    ((float *)b.data)[5] = 1;
    mb__buf png = MB_BUF_INIT;
    double mx = 0;
    EXPECT_EQ_INT(mb__heatmap_png(&a, &b, &png, &mx, NULL), MB_OK);
    EXPECT(png.len > 8 && memcmp(png.data, "\x89PNG\r\n\x1a\n", 8) == 0);
    EXPECT_NEAR(mx, 1.0, 0);
    unsigned char lo[3], hi[3];
    mb__heatmap_color(0, lo);
    mb__heatmap_color(1, hi);
    EXPECT(lo[0] + lo[1] + lo[2] < 150);
    EXPECT(hi[0] + hi[1] + hi[2] > 500);
    mb__buf_free(&png);
    mb_tensor_clear(&a);
    mb_tensor_clear(&b);
}

static void kl_of_probability_outputs_is_taken_as_they_are(void)
{
    /* rows that are already probabilities: KL(a||b) of them, not of their
     * softmax: 0.7 ln(0.7/0.6) + 0.2 ln(0.2/0.3) + 0.1 ln(0.1/0.1) */
    int64_t d[2] = {1, 3};
    float va[3] = {0.7f, 0.2f, 0.1f}, vb[3] = {0.6f, 0.3f, 0.1f};
    mb_tensor a, b;
    make_f32(&a, 2, d, va);
    make_f32(&b, 2, d, vb);
    mb__metrics_result r;
    EXPECT_EQ_INT(mb__metrics_compute_struct(&a, &b, NULL, &r, NULL), MB_OK);
    double want = (double)0.7f * log((double)0.7f / (double)0.6f) +
                  (double)0.2f * log((double)0.2f / (double)0.3f) +
                  (double)0.1f * log(1.0);
    EXPECT_NEAR(r.total.kl_mean, want, 1e-12);
    mb__metrics_result_free(&r);
    mb_tensor_clear(&a);
    mb_tensor_clear(&b);
}

static void the_vectorised_exp_is_within_an_ulp_of_libm(void)
{
    double worst = 0;
    for (int i = 0; i <= 70700; i++) {
        double x = -i * 0.01 - (i % 7) * 1e-5;
        double e = mb__mk_exp(x), r = exp(x), rel = fabs(e - r) / r;
        worst = rel > worst ? rel : worst;
    }
    EXPECT(worst <= 2.3e-16);
    EXPECT_NEAR(mb__mk_exp(0), 1.0, 0);
    EXPECT(mb__mk_exp(-1000) < 1e-300);
}

static void a_long_classifier_row_streams_like_a_short_one(void)
{
    /* one row of 200000 classes (four work items of 65536) against the
     * same values computed directly */
    int64_t d[2] = {1, 200000};
    mb_tensor a, b;
    make_f32(&a, 2, d, NULL);
    make_f32(&b, 2, d, NULL);
    mb__rng rng;
    mb__rng_seed(&rng, 11);
    float *pa = a.data, *pb = b.data;
    for (size_t i = 0; i < 200000; i++) {
        pa[i] = (float)(3 * mb__rng_normal(&rng));
        pb[i] = pa[i] + (float)(0.2 * mb__rng_normal(&rng));
    }
    pa[150001] = 20; /* the maximum in the third item */
    pb[150001] = 19;
    mb__metrics_result r;
    EXPECT_EQ_INT(mb__metrics_compute_struct(&a, &b, NULL, &r, NULL), MB_OK);
    /* the definition, in long double */
    long double ma = -INFINITY, mb = -INFINITY, za = 0, zb = 0, kl = 0;
    for (size_t i = 0; i < 200000; i++) {
        ma = pa[i] > ma ? pa[i] : ma;
        mb = pb[i] > mb ? pb[i] : mb;
    }
    for (size_t i = 0; i < 200000; i++) {
        za += expl(pa[i] - ma);
        zb += expl(pb[i] - mb);
    }
    long double la = ma + logl(za), lb = mb + logl(zb);
    for (size_t i = 0; i < 200000; i++)
        kl += expl(pa[i] - la) * ((pa[i] - la) - (pb[i] - lb));
    EXPECT_NEAR(r.total.top1_agreement, 1.0, 0);
    EXPECT(kl > 0.01);
    EXPECT_NEAR(r.total.kl_mean, (double)kl, 1e-12 + 1e-10 * (double)kl);
    mb__metrics_result_free(&r);
    mb_tensor_clear(&a);
    mb_tensor_clear(&b);
}

int main(void)
{
    RUN(metrics_of_a_small_vector_match_hand_computation);
    RUN(identical_tensors_have_infinite_psnr_and_unit_ssim);
    RUN(shape_mismatch_names_both_shapes);
    RUN(nan_and_inf_are_counted_and_left_out_of_the_means);
    RUN(the_worst_sample_is_named);
    RUN(classifier_outputs_get_topk_agreement_and_kl);
    RUN(kl_of_probability_outputs_is_taken_as_they_are);
    RUN(accuracy_against_labels_counts_top1_and_top5);
    RUN(results_do_not_depend_on_the_thread_count);
    RUN(the_vectorised_exp_is_within_an_ulp_of_libm);
    RUN(a_long_classifier_row_streams_like_a_short_one);
    RUN(float16_candidates_are_widened_exactly);
    RUN(gates_parse_and_evaluate);
    RUN(bad_gates_are_refused_with_the_fix);
    RUN(a_gate_undefined_for_every_output_fails);
    RUN(default_gates_loosen_with_precision);
    RUN(heatmap_is_a_png_with_a_dark_to_light_ramp);
    return T_DONE();
}
