/* flops.c - MAC estimates per operator call from trace shapes (rules in
 * flops.h and docs/PROFILE.md). */
#include "profile/flops.h"

#include <string.h>

static const char *const basis_names[] = {[MB_FLOPS_NONE] = "none",
                                          [MB_FLOPS_EXACT] = "exact",
                                          [MB_FLOPS_ASSUMED] = "assumed",
                                          [MB_FLOPS_UNKNOWN] = "unknown"};

const char *mb__flops_basis_name(mb__flops_basis b)
{
    size_t n = sizeof basis_names / sizeof basis_names[0];
    return (size_t)b < n ? basis_names[b] : "none";
}

static const char *const CONV_OPS[] = {
    "Conv", "FusedConv", "QLinearConv", "ConvInteger", "NhwcFusedConv", NULL};
static const char *const MATMUL_OPS[] = {
    "MatMul", "FusedMatMul", "QLinearMatMul",        "MatMulInteger",
    "Gemm",   "FusedGemm",   "MatMulIntegerToFloat", "DynamicQuantizeMatMul",
    NULL};

static int in_list(const char *s, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (strcmp(s, list[i]) == 0)
            return 1;
    return 0;
}

int mb__flops_counted_op(const char *op)
{
    return op && (in_list(op, CONV_OPS) || in_list(op, MATMUL_OPS) ||
                  strcmp(op, "ConvTranspose") == 0);
}

/* numel of a shape, or -1 when its rank is unknown (a shape the trace
 * gave as no array: rank -1), a dim is negative or it overflows. */
static int64_t numel(const mb__tshape *s)
{
    if (s->rank < 0)
        return -1;
    int64_t n = 1;
    for (int i = 0; i < s->rank; i++) {
        if (s->dims[i] < 0 || (s->dims[i] && n > INT64_MAX / s->dims[i]))
            return -1;
        n *= s->dims[i];
    }
    return n;
}

/* prod(dims[1..]) of a weight, or -1. */
static int64_t tail_prod(const mb__tshape *w)
{
    int64_t n = 1;
    for (int i = 1; i < w->rank; i++) {
        if (w->dims[i] <= 0 || n > INT64_MAX / w->dims[i])
            return -1;
        n *= w->dims[i];
    }
    return n;
}

static int mul_ok(int64_t a, int64_t b, int64_t *out)
{
    if (a < 0 || b < 0 || (b && a > INT64_MAX / b))
        return 0;
    *out = a * b;
    return 1;
}

/* Index of the weight among the recorded inputs, or -1 when ORT left it
 * out (pre-packed).  The weight has the data's rank (>= 3). */
static int weight_index(const char *op, const mb__tshape *in, size_t n_in)
{
    size_t wi = strcmp(op, "QLinearConv") == 0 ? 3 : 1;
    if (n_in <= wi || in[0].rank < 3 || in[wi].rank != in[0].rank)
        return -1;
    return (int)wi;
}

mb__flops_basis mb__flops_macs(const char *op, const mb__tshape *in,
                               size_t n_in, const mb__tshape *out, size_t n_out,
                               int64_t *macs)
{
    *macs = 0;
    if (!mb__flops_counted_op(op))
        return MB_FLOPS_NONE;
    if (n_in < 1 || n_out < 1)
        return MB_FLOPS_UNKNOWN;
    int64_t ny = numel(&out[0]), nx = numel(&in[0]), m;
    if (ny < 0 || nx < 0)
        return MB_FLOPS_UNKNOWN;

    if (in_list(op, CONV_OPS)) {
        int wi = weight_index(op, in, n_in);
        if (wi < 0)
            return MB_FLOPS_UNKNOWN;
        int64_t t = tail_prod(&in[wi]);
        if (t < 0 || !mul_ok(ny, t, &m))
            return MB_FLOPS_UNKNOWN;
        *macs = m;
        return MB_FLOPS_EXACT;
    }
    if (strcmp(op, "ConvTranspose") == 0) {
        int wi = weight_index(op, in, n_in);
        if (wi >= 0) {
            int64_t t = tail_prod(&in[wi]);
            if (t < 0 || !mul_ok(nx, t, &m))
                return MB_FLOPS_UNKNOWN;
            *macs = m;
            return MB_FLOPS_EXACT;
        }
        /* kernel == stride, group 1, NCHW: each output gets Cin terms */
        if (in[0].rank < 3 || in[0].dims[1] <= 0 ||
            !mul_ok(ny, in[0].dims[1], &m))
            return MB_FLOPS_UNKNOWN;
        *macs = m;
        return MB_FLOPS_ASSUMED;
    }
    /* the MatMul family: Y = A x B, K is A's reduction dim */
    const mb__tshape *a = &in[0], *y = &out[0];
    int64_t k;
    if (a->rank == 0)
        return MB_FLOPS_UNKNOWN;
    if (a->rank == 1 || y->rank < 2) {
        k = a->dims[a->rank - 1];
    } else {
        int64_t rows = y->dims[y->rank - 2];
        k = a->dims[a->rank - 2] == rows ? a->dims[a->rank - 1]
                                         : a->dims[a->rank - 2];
    }
    if (k <= 0 || !mul_ok(ny, k, &m))
        return MB_FLOPS_UNKNOWN;
    *macs = m;
    return MB_FLOPS_EXACT;
}
