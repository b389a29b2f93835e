/* test_profile.c - the trace parser, the aggregation and the FLOP rules of
 * mbench profile, on a small hand-written trace
 * (tests/fixtures/profile/trace_small.json) and on hand-made shapes. */
#include "t.h"

#include "core/buf.h"
#include "report/machrep.h"
#include "report/profflame.h"
#include "report/profprint.h"
#include "profile/flops.h"
#include "profile/profile.h"
#include "profile/trace.h"

#include <stdlib.h>
#include <string.h>

static json_t *small_profile(size_t skip)
{
    char path[4096];
    const char *root = getenv("MBENCH_ROOT");
    snprintf(path, sizeof path, "%s/tests/fixtures/profile/trace_small.json",
             root ? root : ".");
    mb__trace *t = NULL;
    mb_err err = {0};
    json_t *p = NULL;
    if (mb__trace_load(path, &t, &err) || mb__trace_profile(t, skip, &p, &err))
        printf("# %s\n", err.msg);
    mb__trace_free(t);
    return p;
}

static const json_t *row(const json_t *p, const char *list, const char *key,
                         const char *value)
{
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(p, list), i, r)
    {
        const char *v = json_string_value(json_object_get(r, key));
        if (v && strcmp(v, value) == 0)
            return r;
    }
    return NULL;
}

static long long geti(const json_t *o, const char *a, const char *b)
{
    return (long long)json_integer_value(
        json_object_get(b ? json_object_get(o, a) : o, b ? b : a));
}

static void the_first_run_and_everything_inside_it_is_skipped(void)
{
    json_t *p = small_profile(1);
    EXPECT(p != NULL);
    EXPECT_EQ_INT(geti(p, "runs", "total"), 3);
    EXPECT_EQ_INT(geti(p, "runs", "used"), 2);
    const json_t *conv = row(p, "op_types", "op_type", "Conv");
    EXPECT_EQ_INT(geti(conv, "count", NULL), 2);
    EXPECT_EQ_INT(geti(conv, "total_ns", NULL), 90000);
    json_decref(p);
}

static void events_outside_any_run_and_fence_events_are_ignored(void)
{
    json_t *p = small_profile(0);
    const json_t *relu = row(p, "op_types", "op_type", "Relu");
    EXPECT_EQ_INT(geti(relu, "count", NULL), 2);
    EXPECT_EQ_INT(geti(relu, "total_ns", NULL), 20000);
    json_decref(p);
}

static void op_types_are_sorted_by_total_time_with_mean_median_and_share(void)
{
    json_t *p = small_profile(1);
    const json_t *first = json_array_get(json_object_get(p, "op_types"), 0);
    EXPECT_STR(json_string_value(json_object_get(first, "op_type")), "Conv");
    const json_t *g = row(p, "op_types", "op_type", "Gemm");
    EXPECT_EQ_INT(geti(g, "mean_ns", NULL), 25000);
    EXPECT_EQ_INT(geti(g, "median_ns", NULL), 25000);
    EXPECT_EQ_INT(geti(g, "per_run_ns", NULL), 25000);
    /* 50 us of Gemm over 220 us of model_run */
    EXPECT_NEAR(json_real_value(json_object_get(g, "share")), 50.0 / 220.0,
                1e-12);
    json_decref(p);
}

static void kernel_sums_reconcile_with_model_run(void)
{
    json_t *p = small_profile(1);
    const json_t *rec = json_object_get(p, "reconcile");
    EXPECT_EQ_INT(geti(rec, "model_run_mean_ns", NULL), 110000);
    EXPECT_EQ_INT(geti(rec, "kernel_sum_mean_ns", NULL), 80000);
    EXPECT_EQ_INT(geti(rec, "framework_overhead_mean_ns", NULL), 30000);
    EXPECT_NEAR(
        json_real_value(json_object_get(rec, "kernel_share_of_model_run")),
        160.0 / 220.0, 1e-12);
    json_decref(p);
}

static void nodes_carry_provider_and_shapes(void)
{
    json_t *p = small_profile(1);
    const json_t *n = row(p, "nodes", "name", "conv1");
    EXPECT(n != NULL);
    EXPECT_STR(json_string_value(json_object_get(n, "provider")),
               "CPUExecutionProvider");
    const json_t *w = json_array_get(json_object_get(n, "inputs"), 1);
    EXPECT_STR(json_string_value(json_object_get(w, "dtype")), "float");
    EXPECT_EQ_INT(json_array_size(json_object_get(w, "shape")), 4);
    json_decref(p);
}

static void macs_per_run_add_conv_and_gemm(void)
{
    json_t *p = small_profile(1);
    /* conv: 512 outputs x 4*3*3; gemm: 10 outputs x K=512 */
    EXPECT_EQ_INT(geti(p, "work", "macs_per_run"), 512 * 36 + 10 * 512);
    EXPECT_EQ_INT(geti(p, "work", "flops_per_run"), 2 * (512 * 36 + 10 * 512));
    json_decref(p);
}

static void skipping_every_run_is_an_error_naming_the_fix(void)
{
    mb__trace *t = NULL;
    mb_err err = {0};
    json_t *p = NULL;
    const char *text = "[{\"cat\":\"Session\",\"name\":\"model_run\","
                       "\"ph\":\"X\",\"ts\":0,\"dur\":5}]";
    EXPECT_EQ_INT(mb__trace_parse(text, strlen(text), "t", &t, &err), MB_OK);
    EXPECT_EQ_INT(mb__trace_profile(t, 1, &p, &err), MB_EFORMAT);
    EXPECT_CONTAINS(err.msg, "more iterations");
    mb__trace_free(t);
}

static void a_trace_without_model_run_is_rejected(void)
{
    mb__trace *t = NULL;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__trace_parse("[]", 2, "x.json", &t, &err), MB_EFORMAT);
    EXPECT_CONTAINS(err.msg, "x.json");
    EXPECT_EQ_INT(mb__trace_parse("{nope", 5, "y.json", &t, &err), MB_EFORMAT);
    EXPECT_CONTAINS(err.msg, "not a JSON trace");
}

static mb__tshape S(int rank, int64_t a, int64_t b, int64_t c, int64_t d)
{
    mb__tshape s = {"float", rank, {a, b, c, d}};
    return s;
}

static void conv_macs_use_the_weight_and_the_output_shape(void)
{
    int64_t m;
    /* ResNet stem: 7x7 stride 2, 3 -> 64 channels, 224 -> 112 */
    mb__tshape in[3] = {S(4, 1, 3, 224, 224), S(4, 64, 3, 7, 7),
                        S(1, 64, 0, 0, 0)};
    mb__tshape out[1] = {S(4, 1, 64, 112, 112)};
    EXPECT_EQ_INT(mb__flops_macs("Conv", in, 3, out, 1, &m), MB_FLOPS_EXACT);
    EXPECT_EQ_INT(m, 64LL * 112 * 112 * 3 * 7 * 7);
    EXPECT_EQ_INT(mb__flops_macs("FusedConv", in, 3, out, 1, &m),
                  MB_FLOPS_EXACT);
}

static void grouped_convs_count_only_their_group(void)
{
    int64_t m;
    mb__tshape in[2] = {S(4, 1, 32, 112, 112), S(4, 32, 1, 3, 3)};
    mb__tshape out[1] = {S(4, 1, 32, 56, 56)};
    EXPECT_EQ_INT(mb__flops_macs("Conv", in, 2, out, 1, &m), MB_FLOPS_EXACT);
    EXPECT_EQ_INT(m, 32LL * 56 * 56 * 9);
}

static void a_prepacked_qlinearconv_weight_makes_the_estimate_unknown(void)
{
    int64_t m = 7;
    mb__tshape in[7] = {S(4, 1, 56, 56, 64), S(0, 0, 0, 0, 0),
                        S(0, 0, 0, 0, 0),    S(1, 64, 0, 0, 0),
                        S(1, 64, 0, 0, 0),   S(0, 0, 0, 0, 0),
                        S(0, 0, 0, 0, 0)};
    mb__tshape out[1] = {S(4, 1, 56, 56, 64)};
    EXPECT_EQ_INT(mb__flops_macs("QLinearConv", in, 7, out, 1, &m),
                  MB_FLOPS_UNKNOWN);
    EXPECT_EQ_INT(m, 0);
    /* with the weight present (NHWC data), the rule is layout-free */
    mb__tshape in2[4] = {S(4, 1, 56, 56, 64), S(0, 0, 0, 0, 0),
                         S(0, 0, 0, 0, 0), S(4, 64, 64, 3, 3)};
    EXPECT_EQ_INT(mb__flops_macs("QLinearConv", in2, 4, out, 1, &m),
                  MB_FLOPS_EXACT);
    EXPECT_EQ_INT(m, 56LL * 56 * 64 * 64 * 9);
}

static void conv_transpose_without_weight_assumes_kernel_equal_stride(void)
{
    int64_t m;
    mb__tshape in[2] = {S(4, 1, 128, 16, 16), S(1, 64, 0, 0, 0)};
    mb__tshape out[1] = {S(4, 1, 64, 32, 32)};
    EXPECT_EQ_INT(mb__flops_macs("ConvTranspose", in, 2, out, 1, &m),
                  MB_FLOPS_ASSUMED);
    EXPECT_EQ_INT(m, 64LL * 32 * 32 * 128);
    /* the same layer with its 2x2 weight [Cin, Cout, 2, 2] is exact and
     * agrees with the assumption */
    mb__tshape in2[2] = {S(4, 1, 128, 16, 16), S(4, 128, 64, 2, 2)};
    EXPECT_EQ_INT(mb__flops_macs("ConvTranspose", in2, 2, out, 1, &m),
                  MB_FLOPS_EXACT);
    EXPECT_EQ_INT(m, 64LL * 32 * 32 * 128);
}

static void matmul_family_uses_the_reduction_dim_of_a(void)
{
    int64_t m;
    mb__tshape a[2] = {S(4, 2, 3, 5, 7), S(2, 7, 4, 0, 0)};
    mb__tshape y[1] = {S(4, 2, 3, 5, 4)};
    EXPECT_EQ_INT(mb__flops_macs("MatMul", a, 2, y, 1, &m), MB_FLOPS_EXACT);
    EXPECT_EQ_INT(m, 2 * 3 * 5 * 4 * 7);
    /* Gemm with transA: A is [K, M] */
    mb__tshape g[1] = {S(2, 64, 1, 0, 0)};
    mb__tshape gy[1] = {S(2, 1, 10, 0, 0)};
    EXPECT_EQ_INT(mb__flops_macs("Gemm", g, 1, gy, 1, &m), MB_FLOPS_EXACT);
    EXPECT_EQ_INT(m, 640);
    EXPECT_EQ_INT(mb__flops_macs("QLinearMatMul", a, 2, y, 1, &m),
                  MB_FLOPS_EXACT);
}

static void other_operators_do_no_counted_work(void)
{
    int64_t m = 5;
    mb__tshape x[1] = {S(4, 1, 8, 8, 8)};
    EXPECT_EQ_INT(mb__flops_macs("Relu", x, 1, x, 1, &m), MB_FLOPS_NONE);
    EXPECT_EQ_INT(m, 0);
}

static void folded_stacks_name_graph_op_type_and_node(void)
{
    json_t *p = small_profile(1);
    mb__buf b = MB_BUF_INIT;
    mb__profile_folded(p, "my model", &b);
    EXPECT_CONTAINS(b.data, "my_model;Conv;conv1 90\n");
    EXPECT_CONTAINS(b.data, "my_model;Gemm;fc 50\n");
    mb__buf_free(&b);
    json_decref(p);
}

/* An OpenBLAS older than the CPU runs narrower kernels (Debian 12's 0.3.21
 * runs Haswell's on AMD Zen 5): a model above "100% of peak" is then
 * explained by that, not by a busy machine. */
static void a_narrow_blas_explains_a_share_above_peak(void)
{
    json_t *m =
        json_pack("{s:{s:s, s:i, s:i}}", "sgemm", "blas_core", "Haswell",
                  "blas_vector_bits", 256, "cpu_vector_bits", 512);
    char why[256];
    EXPECT(mb__machine_narrow_blas(m, why, sizeof why));
    EXPECT_CONTAINS(why, "Haswell kernels (256-bit vectors)");
    EXPECT_CONTAINS(why, "512 bits wide");
    json_object_set_new(json_object_get(m, "sgemm"), "blas_vector_bits",
                        json_integer(512));
    EXPECT(!mb__machine_narrow_blas(m, why, sizeof why));
    json_object_set_new(json_object_get(m, "sgemm"), "blas_vector_bits",
                        json_null()); /* a core name mbench does not know */
    EXPECT(!mb__machine_narrow_blas(m, why, sizeof why));
    json_t *old = json_pack("{s:{s:f}}", "sgemm", "all_cores_gflops", 100.0);
    EXPECT(!mb__machine_narrow_blas(old, why, sizeof why)); /* older cache */
    json_decref(old);
    json_decref(m);
}

static void svg_and_html_escape_names(void)
{
    json_t *p = small_profile(1);
    json_t *n = json_array_get(json_object_get(p, "nodes"), 0);
    json_object_set_new(n, "name", json_string("<script>&\"x'"));
    mb__profile_ctx ctx = {0};
    mb__profile_finish(p, &ctx);
    mb__buf b = MB_BUF_INIT;
    mb__profile_html(p, "t<i>", NULL, &b);
    EXPECT(strstr(b.data, "<script>") == NULL);
    EXPECT_CONTAINS(b.data, "&lt;script&gt;&amp;&quot;x&#39;");
    EXPECT_CONTAINS(b.data, "t&lt;i&gt;");
    EXPECT_CONTAINS(b.data, "<svg");
    mb__buf_free(&b);
    json_decref(p);
}

static void compare_rows_add_up_to_the_change_of_the_run(void)
{
    json_t *a = small_profile(1), *b = small_profile(1);
    /* B: Conv replaced by a faster QLinearConv */
    json_t *conv = json_array_get(json_object_get(b, "op_types"), 0);
    json_object_set_new(conv, "op_type", json_string("QLinearConv"));
    json_object_set_new(conv, "per_run_ns", json_integer(15000));
    json_object_set_new(json_object_get(b, "reconcile"), "model_run_mean_ns",
                        json_integer(110000 - 30000));
    json_t *c = mb__profile_compare(a, "fp32", b, "int8");
    double sum = 0;
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(c, "rows"), i, r) sum +=
        (double)json_integer_value(json_object_get(r, "delta_ns"));
    EXPECT_NEAR(sum, -30000, 1);
    const json_t *top = json_array_get(json_object_get(c, "rows"), 0);
    EXPECT_STR(json_string_value(json_object_get(top, "op_type")), "Conv");
    EXPECT_NEAR(json_real_value(json_object_get(c, "speedup")), 110.0 / 80.0,
                1e-9);
    json_decref(c);
    json_decref(a);
    json_decref(b);
}

/* A Loop holding an If holding a Conv, on thread 1, plus a MatMul of the
 * same run on thread 2 that overlaps the Loop in time (inter-op parallel):
 * every kernel counts once and only its own time. */
static void nested_subgraph_kernels_count_once(void)
{
#define NODE(name, op, ts, dur, tid)                                           \
    "{\"cat\":\"Node\",\"ph\":\"X\",\"name\":\"" name "_kernel_time\","        \
    "\"ts\":" #ts ",\"dur\":" #dur ",\"tid\":" #tid ",\"args\":{"              \
    "\"op_name\":\"" op "\",\"provider\":\"CPUExecutionProvider\"}}"
    const char *text =
        "[{\"cat\":\"Session\",\"name\":\"model_run\",\"ph\":\"X\","
        "\"ts\":0,\"dur\":200,\"tid\":1}," NODE("conv_a", "Conv", 12, 30, 1) "," NODE(
            "conv_a", "Conv", 52, 29,
            1) "," NODE("inner_if", "If", 10, 35,
                        1) "," NODE("inner_if", "If", 50, 35,
                                    1) "," NODE("add_b", "Add", 90, 5,
                                                1) "," NODE("loop", "Loop", 5,
                                                            100,
                                                            1) "," NODE("mm",
                                                                        "MatMu"
                                                                        "l",
                                                                        20, 40,
                                                                        2) "," NODE("relu",
                                                                                    "Relu",
                                                                                    106,
                                                                                    4,
                                                                                    1) "]";
#undef NODE
    mb__trace *t = NULL;
    mb_err err = {0};
    json_t *p = NULL;
    EXPECT_EQ_INT(mb__trace_parse(text, strlen(text), "t", &t, &err), MB_OK);
    EXPECT_EQ_INT(mb__trace_profile(t, 0, &p, &err), MB_OK);
    mb__trace_free(t);
    if (!p)
        return;
    const json_t *loop = row(p, "nodes", "name", "loop");
    const json_t *inner = row(p, "nodes", "name", "inner_if");
    const json_t *conv = row(p, "nodes", "name", "conv_a");
    const json_t *add = row(p, "nodes", "name", "add_b");
    const json_t *mm = row(p, "nodes", "name", "mm");
    /* loop 100 us holds two Ifs (70) and an Add (5): own time 25 */
    EXPECT_EQ_INT(geti(loop, "total_ns", NULL), 25000);
    EXPECT_EQ_INT(geti(loop, "inclusive_ns", NULL), 100000);
    /* each If 35 us holds a Conv of 30 and 29 us: own time 5 + 6 */
    EXPECT_EQ_INT(geti(inner, "total_ns", NULL), 11000);
    EXPECT_EQ_INT(geti(inner, "subgraph_ns", NULL), 59000);
    EXPECT_STR(json_string_value(json_object_get(inner, "parent")), "loop");
    EXPECT_STR(json_string_value(json_object_get(conv, "parent")), "inner_if");
    EXPECT_STR(json_string_value(json_object_get(add, "parent")), "loop");
    /* another thread's kernel is not inside the Loop */
    EXPECT(json_object_get(mm, "parent") == NULL);
    EXPECT_EQ_INT(geti(mm, "total_ns", NULL), 40000);
    /* kernel sum: 25 + 11 + 59 + 5 + 40 + 4 = 144 us = Loop + MatMul + Relu */
    EXPECT_EQ_INT(geti(p, "reconcile", "kernel_sum_mean_ns"), 144000);
    EXPECT_EQ_INT(geti(p, "reconcile", "framework_overhead_mean_ns"), 56000);
    EXPECT_EQ_INT(geti(p, "reconcile", "subgraph_kernel_mean_ns"),
                  11000 + 59000 + 5000);
    mb__buf b = MB_BUF_INIT;
    mb__profile_folded(p, "g", &b);
    EXPECT_CONTAINS(b.data, "g;Loop;loop;If;inner_if;Conv;conv_a 59\n");
    EXPECT_CONTAINS(b.data, "g;Loop;loop;If;inner_if 11\n");
    EXPECT_CONTAINS(b.data, "g;Loop;loop 25\n");
    mb__buf_free(&b);
    json_decref(p);
}

/* "0.001 GFLOP (0.000 GMAC)" said nothing for small models: the unit
 * follows the size. */
static void flop_counts_scale_their_unit(void)
{
    struct {
        double v;
        const char *unit, *want;
    } c[] = {{4.089e9, "MAC", "4.089 GMAC"},  {1048576, "FLOP", "1.049 MFLOP"},
             {524288, "MAC", "524.288 KMAC"}, {1.5e12, "FLOP", "1.500 TFLOP"},
             {12, "FLOP", "12 FLOP"},         {0, "MAC", "0 MAC"}};
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        mb__buf b = MB_BUF_INIT;
        mb__profile_si_count(&b, c[i].v, c[i].unit);
        EXPECT_STR(b.data, c[i].want);
        mb__buf_free(&b);
    }
}

int main(void)
{
    RUN(the_first_run_and_everything_inside_it_is_skipped);
    RUN(events_outside_any_run_and_fence_events_are_ignored);
    RUN(op_types_are_sorted_by_total_time_with_mean_median_and_share);
    RUN(kernel_sums_reconcile_with_model_run);
    RUN(nodes_carry_provider_and_shapes);
    RUN(macs_per_run_add_conv_and_gemm);
    RUN(skipping_every_run_is_an_error_naming_the_fix);
    RUN(a_trace_without_model_run_is_rejected);
    RUN(nested_subgraph_kernels_count_once);
    RUN(flop_counts_scale_their_unit);
    RUN(conv_macs_use_the_weight_and_the_output_shape);
    RUN(grouped_convs_count_only_their_group);
    RUN(a_prepacked_qlinearconv_weight_makes_the_estimate_unknown);
    RUN(conv_transpose_without_weight_assumes_kernel_equal_stride);
    RUN(matmul_family_uses_the_reduction_dim_of_a);
    RUN(other_operators_do_no_counted_work);
    RUN(folded_stacks_name_graph_op_type_and_node);
    RUN(svg_and_html_escape_names);
    RUN(a_narrow_blas_explains_a_share_above_peak);
    RUN(compare_rows_add_up_to_the_change_of_the_run);
    return T_DONE();
}
