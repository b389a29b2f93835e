/* flops.h - the arithmetic work of one operator call, estimated from the
 * tensor shapes ONNX Runtime records in its profiling trace.
 *
 * Rules (docs/PROFILE.md, "FLOP rules"); MACs are multiply-accumulates,
 * FLOPs = 2 x MACs; bias additions and fused activations are not counted
 * (they are one add per output element, under 1% for the ops below):
 *  - Conv, FusedConv, QLinearConv, ConvInteger (any layout, any group):
 *      MACs = numel(Y) * prod(W.dims[1..])   (W = [Cout, Cin/group, k...])
 *    strides and padding enter through Y's shape.  When the weight is not in
 *    the trace (ORT pre-packed it) the kernel size is unknown: basis UNKNOWN.
 *  - ConvTranspose: MACs = numel(X) * prod(W.dims[1..])
 *    (W = [Cin, Cout/group, k...]); without W the kernel is assumed equal to
 *    the stride with group 1, which gives MACs = numel(Y) * Cin (basis
 *    ASSUMED).
 *  - MatMul, FusedMatMul, QLinearMatMul, MatMulInteger, Gemm, FusedGemm:
 *      MACs = numel(Y) * K, K = the reduction dim of A (A's last dim, or the
 *      one before it when A is transposed: A.dims[-2] != Y.dims[-2]).
 * Every other operator does no counted work (basis NONE). */
#ifndef MB_PROFILE_FLOPS_H
#define MB_PROFILE_FLOPS_H

#include "mbench.h"

#include <stddef.h>
#include <stdint.h>

/* One tensor's element type name (borrowed) and shape. */
typedef struct mb__tshape {
    const char *dtype;
    int rank;
    int64_t dims[MB_MAX_RANK];
} mb__tshape;

typedef enum mb__flops_basis {
    MB_FLOPS_NONE = 0, /* not a counted operator */
    MB_FLOPS_EXACT,    /* from the full shapes */
    MB_FLOPS_ASSUMED,  /* a stated assumption filled a missing shape */
    MB_FLOPS_UNKNOWN   /* a counted operator whose shapes do not suffice */
} mb__flops_basis;

/* Static name: "none", "exact", "assumed", "unknown". */
const char *mb__flops_basis_name(mb__flops_basis b);

/* Estimates the MACs of one call of op_type with these input and output
 * shapes into *macs (0 unless the basis is EXACT or ASSUMED).  Never fails:
 * shapes that do not fit the rule give MB_FLOPS_UNKNOWN. */
mb__flops_basis mb__flops_macs(const char *op_type, const mb__tshape *in,
                               size_t n_in, const mb__tshape *out, size_t n_out,
                               int64_t *macs);

/* Whether op_type is one of the counted operators above. */
int mb__flops_counted_op(const char *op_type);

#endif
