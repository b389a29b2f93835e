/* profile.c - derived figures and the comparison of per-operator profiles
 * (see profile.h); their views are in src/report/profprint.c. */
#include "profile/profile.h"

#include "core/alloc.h"
#include "doc/docfmt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_t *real_or_null(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

/* A figure in whole units, or null when it is not a finite number within
 * the range of an integer (a profile missing it, a hand-made one). */
static json_t *int_or_null(double x)
{
    return isfinite(x) && fabs(x) < 9e18 ? json_integer((json_int_t)x)
                                         : json_null();
}

/* The peak that fits the thread count: one core for 1 thread, else all. */
static double pick_peak(const json_t *machine, int threads, const char **basis)
{
    const json_t *g = json_object_get(machine, "sgemm");
    double one = mb__jnum(g, "one_core_gflops"),
           all = mb__jnum(g, "all_cores_gflops");
    if (threads == 1) {
        *basis = "sgemm, one core (mbench machine)";
        return one;
    }
    *basis = "sgemm, all cores (mbench machine)";
    return all;
}

/* A deep copy of v, or JSON null when v is NULL. */
static json_t *copy_or_null(const json_t *v)
{
    return v ? json_deep_copy(v) : json_null();
}

void mb__profile_finish(json_t *p, const mb__profile_ctx *ctx)
{
    json_t *rec = json_object_get(p, "reconcile");
    json_t *work = json_object_get(p, "work");
    double lat = ctx->latency_median_ns > 0 ? ctx->latency_median_ns : NAN;
    double run = mb__jnum(rec, "model_run_median_ns");
    double kern = mb__jnum(rec, "kernel_sum_median_ns");
    json_object_set_new(rec, "latency_median_ns", int_or_null(lat));
    json_object_set_new(rec, "profiler_inflation", real_or_null(run / lat));
    json_object_set_new(rec, "unaccounted_vs_latency_ns",
                        int_or_null(lat - kern));
    json_object_set_new(rec, "kernel_share_of_latency",
                        real_or_null(kern / lat));

    const char *basis = NULL;
    double peak =
        ctx->machine ? pick_peak(ctx->machine, ctx->threads, &basis) : NAN;
    double flops = mb__jnum(work, "flops_per_run");
    /* achieved rate at the unprofiled latency; else at the profiled run */
    double t = isfinite(lat) ? lat : run;
    double gf = flops > 0 && t > 0 ? flops / t : NAN;
    int64_t batch = ctx->batch > 0 ? ctx->batch : 1;
    json_object_set_new(work, "batch", json_integer(batch));
    json_object_set_new(work, "flops_per_sample",
                        int_or_null(flops / (double)batch));
    json_object_set_new(work, "gflops_per_s", real_or_null(gf));
    json_object_set_new(work, "gflops_time_basis",
                        json_string(isfinite(lat)
                                        ? "median latency (not profiled)"
                                        : "median model_run (profiled)"));
    json_object_set_new(work, "peak_gflops_per_s", real_or_null(peak));
    json_object_set_new(work, "peak_basis",
                        basis ? json_string(basis) : json_null());
    json_object_set_new(work, "peak_share", real_or_null(gf / peak));

    size_t i;
    json_t *row;
    json_array_foreach(json_object_get(p, "op_types"), i, row)
    {
        double f = mb__jnum(row, "flops_per_run"),
               pr = mb__jnum(row, "per_run_ns");
        double g = f > 0 && pr > 0 ? f / pr : NAN;
        json_object_set_new(row, "gflops_per_s", real_or_null(g));
        json_object_set_new(row, "peak_share", real_or_null(g / peak));
    }
    json_object_set_new(p, "machine", copy_or_null(ctx->machine));
    json_object_set_new(p, "counters", copy_or_null(ctx->counters));
}
/* ---- comparison --------------------------------------------------------- */

typedef struct crow {
    const char *op;
    double a, b;
} crow;

static int cmp_contrib(const void *x, const void *y)
{
    const crow *p = x, *q = y;
    double dp = fabs(p->b - p->a), dq = fabs(q->b - q->a);
    return (dp < dq) - (dp > dq);
}

static int is_qdq(const char *op)
{
    return strcmp(op, "QuantizeLinear") == 0 ||
           strcmp(op, "DequantizeLinear") == 0 ||
           strcmp(op, "DynamicQuantizeLinear") == 0;
}

/* Operator types that replace each other between a float model and its
 * quantized form. */
static const char *const PAIRS[][2] = {
    {"Conv", "QLinearConv"},
    {"Conv", "ConvInteger"},
    {"FusedConv", "QLinearConv"},
    {"MatMul", "QLinearMatMul"},
    {"MatMul", "MatMulInteger"},
    {"MatMul", "MatMulIntegerToFloat"},
    {"MatMul", "DynamicQuantizeMatMul"},
    {"Gemm", "QGemm"},
    {"FusedGemm", "QGemm"},
    {"Add", "QLinearAdd"},
    {"Mul", "QLinearMul"},
    {"GlobalAveragePool", "QLinearGlobalAveragePool"},
    {"AveragePool", "QLinearAveragePool"},
    {"Concat", "QLinearConcat"},
    {"Sigmoid", "QLinearSigmoid"},
    {"LeakyRelu", "QLinearLeakyRelu"},
};

static const json_t *find_op(const json_t *p, const char *op)
{
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(p, "op_types"), i, r)
    {
        const char *v = json_string_value(json_object_get(r, "op_type"));
        if (v && strcmp(v, op) == 0)
            return r;
    }
    return NULL;
}

/* Float op in one profile only, its quantized form in the other only:
 * [{from, to, a_ns, b_ns, speedup}] in the direction a -> b. */
static json_t *quant_pairs(const json_t *a, const json_t *b)
{
    json_t *out = json_array();
    for (size_t i = 0; i < sizeof PAIRS / sizeof PAIRS[0]; i++) {
        for (int dir = 0; dir < 2; dir++) {
            const char *x = PAIRS[i][dir], *y = PAIRS[i][1 - dir];
            const json_t *ax = find_op(a, x), *by = find_op(b, y);
            if (!ax || !by || find_op(b, x) || find_op(a, y))
                continue;
            double ta = mb__jnum(ax, "per_run_ns"),
                   tb = mb__jnum(by, "per_run_ns");
            json_array_append_new(
                out, json_pack("{s:s, s:s, s:o, s:o, s:o}", "from", x, "to", y,
                               "a_ns", int_or_null(ta), "b_ns", int_or_null(tb),
                               "speedup", real_or_null(ta / tb)));
        }
    }
    return out;
}

json_t *mb__profile_compare(const json_t *a, const char *name_a,
                            const json_t *b, const char *name_b)
{
    const json_t *oa = json_object_get(a, "op_types");
    const json_t *ob = json_object_get(b, "op_types");
    size_t na = json_array_size(oa), nb = json_array_size(ob), n = 0;
    crow *rows = mb__calloc(na + nb + 1, sizeof *rows);
    if (!rows)
        return NULL;
    size_t i, j;
    json_t *r;
    double qa = 0, qb = 0;
    json_array_foreach(oa, i, r)
    {
        rows[n++] = (crow){json_string_value(json_object_get(r, "op_type")),
                           mb__jnum(r, "per_run_ns"), 0};
        if (is_qdq(rows[n - 1].op))
            qa += rows[n - 1].a;
    }
    json_array_foreach(ob, i, r)
    {
        const char *op = json_string_value(json_object_get(r, "op_type"));
        double v = mb__jnum(r, "per_run_ns");
        if (is_qdq(op))
            qb += v;
        for (j = 0; j < n && strcmp(rows[j].op, op) != 0; j++)
            ;
        if (j == n)
            rows[n++] = (crow){op, 0, v};
        else
            rows[j].b = v;
    }
    const json_t *ra = json_object_get(a, "reconcile");
    const json_t *rb = json_object_get(b, "reconcile");
    rows[n++] = (crow){"(framework overhead)",
                       mb__jnum(ra, "framework_overhead_mean_ns"),
                       mb__jnum(rb, "framework_overhead_mean_ns")};
    qsort(rows, n, sizeof *rows, cmp_contrib);
    double ta = mb__jnum(ra, "model_run_mean_ns"),
           tb = mb__jnum(rb, "model_run_mean_ns");
    double total = tb - ta;
    json_t *out = json_object();
    json_object_set_new(out, "a", json_string(name_a ? name_a : "A"));
    json_object_set_new(out, "b", json_string(name_b ? name_b : "B"));
    json_object_set_new(out, "basis",
                        json_string("mean profiled time per run (kernel "
                                    "time per op type, model_run)"));
    json_object_set_new(out, "a_model_run_ns", int_or_null(ta));
    json_object_set_new(out, "b_model_run_ns", int_or_null(tb));
    json_object_set_new(out, "delta_ns", int_or_null(total));
    json_object_set_new(out, "speedup", real_or_null(ta / tb));
    json_t *arr = json_array();
    for (i = 0; i < n; i++) {
        double d = rows[i].b - rows[i].a;
        json_array_append_new(
            arr, json_pack("{s:s, s:o, s:o, s:o, s:o}", "op_type", rows[i].op,
                           "a_ns", int_or_null(rows[i].a), "b_ns",
                           int_or_null(rows[i].b), "delta_ns", int_or_null(d),
                           "contribution",
                           total != 0 ? real_or_null(d / total) : json_null()));
    }
    free(rows);
    json_object_set_new(out, "rows", arr);
    json_object_set_new(out, "pairs", quant_pairs(a, b));
    json_object_set_new(out, "qdq",
                        json_pack("{s:o, s:o, s:o, s:o}", "a_ns",
                                  int_or_null(qa), "b_ns", int_or_null(qb),
                                  "a_share", real_or_null(qa / ta), "b_share",
                                  real_or_null(qb / tb)));
    return out;
}
