/* mkernel.h - the inner loops of the accuracy metrics (metrics.c): one block
 * of at most MB_MK_BLOCK element pairs, already widened to double, reduced
 * to the sums the elementwise metrics need, and to the streamed softmax
 * state of a classifier row.  Blocks are small enough to stay in L1, so a
 * second pass over one (centred sums, exponentials after the block's
 * maximum is known) costs no memory traffic.  The loops keep MB_MK_LANES
 * independent partial sums in a fixed order, so the compiler vectorises
 * them without reassociating anything: the figures do not depend on the
 * machine's vector width or on the number of threads.
 *
 * Error: a block sum adds at most MB_MK_BLOCK / MB_MK_LANES terms per lane
 * in plain double (relative error below 1e-13 for finite data); blocks are
 * added to compensated (Neumaier) sums by the caller. */
#ifndef MB_ACCURACY_MKERNEL_H
#define MB_ACCURACY_MKERNEL_H

#include <stdbool.h>
#include <stddef.h>

#define MB_MK_BLOCK 1024
#define MB_MK_LANES 8
#define MB_MK_TOPK 5

/* Sums over one all-finite block (x baseline, y candidate, d = y - x). */
typedef struct mb__mk_blockstats {
    double sx, sy;           /* sum x, sum y */
    double sad, ssd;         /* sum |d|, sum d^2 */
    double sxx, syy, sxy;    /* sum x^2, y^2, xy */
    double cxx, cyy, cxy;    /* centred on the block's means */
    double maxd, minx, maxx; /* max |d|, min x, max x */
    double miny, maxy;       /* min y, max y */
    size_t maxd_i;           /* first index of max |d| in the block */
    size_t fail;             /* pairs with |d| > atol + rtol |x| */
    int nonfinite;           /* a NaN or Inf: the other fields are void */
} mb__mk_blockstats;

/* dst[i] = src[i] widened (exactly) to double, i < n. */
void mb__mk_widen_f32(const float *src, size_t n, double *dst);

/* The sums of a block of n >= 1 pairs into *o; when the block holds a NaN
 * or Inf, o->nonfinite is set and the rest is not meaningful. */
void mb__mk_block(const double *x, const double *y, size_t n, double atol,
                  double rtol, mb__mk_blockstats *o);

/* A classifier row streamed in blocks: the running maxima and their first
 * indices, the softmax denominators relative to them, and the sums the
 * mean KL divergence and top-k agreement need.  Rows with a non-finite
 * value are marked and judged apart (metrics.c). */
typedef struct mb__mk_row {
    size_t n;      /* elements seen */
    int nonfinite; /* a NaN or Inf was seen */
    double ma, mb; /* max of x, of y (-inf before any) */
    size_t ia, ib; /* their first indices */
    double za, zb; /* sum exp(x - ma), sum exp(y - mb) */
    double t;      /* sum exp(x - ma) (x - y) */
    double sx, sy; /* plain sums (is it already a distribution?) */
    double minx, miny;
    int nk;                  /* entries in top (at most MB_MK_TOPK) */
    double topv[MB_MK_TOPK]; /* the largest y, value desc then index asc */
    size_t topi[MB_MK_TOPK];
} mb__mk_row;

void mb__mk_row_init(mb__mk_row *r);
/* Adds an all-finite block of n pairs whose first element is element
 * `base` of the row; b is the block's mb__mk_block. */
void mb__mk_row_block(mb__mk_row *r, const double *x, const double *y, size_t n,
                      size_t base, const mb__mk_blockstats *b);
/* r := r followed by o (o's elements come after r's). */
void mb__mk_row_merge(mb__mk_row *r, const mb__mk_row *o);
/* Whether class t is among the min(k, n) largest of y (ties to the lower
 * index), from the kept top list. */
bool mb__mk_row_in_topk(const mb__mk_row *r, size_t t, size_t k);
/* KL(softmax(x) || softmax(y)) of the row (finite rows only). */
double mb__mk_row_kl(const mb__mk_row *r);

/* exp(x) for x <= 0 to within 2 ulp (exp(-708) below -708, a term too
 * small to change any sum it enters): range reduction by
 * ln 2 and a degree-11 polynomial, branch-free so that loops over it
 * vectorise. */
double mb__mk_exp(double x);

#endif
