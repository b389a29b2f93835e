/* mkernel.c - block kernels of the accuracy metrics (mkernel.h). */
#if defined(__GNUC__) && !defined(__clang__)
/* -O2 vectorises only the cheapest loops; these are the hot ones. */
#pragma GCC optimize("O3")
/* 32-byte vectors pass between static inline helpers only (no ABI). */
#pragma GCC diagnostic ignored "-Wpsabi"
#endif
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpsabi"
#endif
#include "accuracy/mkernel.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* The x86-64 baseline has 2-wide doubles; AVX2 machines get a 4-wide copy
 * of the hot loops, chosen once at load time.  Results are identical:
 * every lane keeps its own order and no multiply-add is contracted
 * (ISO C mode). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) &&         \
    !defined(__SANITIZE_ADDRESS__)
/* (GCC only: clang refuses 32-byte vectors between a clone and helpers
 * compiled for the baseline) */
#define MK_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define MK_CLONES
#endif

#define L MB_MK_LANES

/* Explicit vectors (GCC and clang vector extensions): two of 4 doubles
 * make the MB_MK_LANES = 8 lanes, on SSE2 and AVX2 alike. */
typedef double v4d __attribute__((vector_size(32)));
typedef int64_t v4l __attribute__((vector_size(32)));

static inline v4d ld(const double *p)
{
    v4d v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline v4d splat(double x)
{
    return (v4d){x, x, x, x};
}

/* m ? a : b, lanewise, m from a comparison (all ones or zero). */
static inline v4d sel(v4l m, v4d a, v4d b)
{
    return (v4d)((m & (v4l)a) | (~m & (v4l)b));
}

/* (a macro: 32-byte vectors are not passed to functions, whose ABI for
 * them differs between the baseline and AVX) */
#define HSUM(a, b)                                                             \
    (((a)[0] + (a)[1]) + ((a)[2] + (a)[3])) +                                  \
        (((b)[0] + (b)[1]) + ((b)[2] + (b)[3]))

typedef float v4f __attribute__((vector_size(16)));

/* (clones are static: GCC gives a cloned function's dispatcher default
 * visibility, which would export an internal name from libmbench.so) */
MK_CLONES
static void widen_f32(const float *src, size_t n, double *dst)
{
    size_t full = n / 4 * 4;
    for (size_t i = 0; i < full; i += 4) {
        v4f f;
        memcpy(&f, src + i, sizeof f);
        v4d d = __builtin_convertvector(f, v4d);
        memcpy(dst + i, &d, sizeof d);
    }
    for (size_t i = full; i < n; i++)
        dst[i] = (double)src[i];
}

/* The first index of the largest |y - x| (NaN-free input). */
static size_t first_maxd(const double *x, const double *y, size_t n, double m)
{
    for (size_t i = 0; i < n; i++)
        if (fabs(y[i] - x[i]) == m)
            return i;
    return 0;
}

/* Sums of one 4-lane vector of pairs into the accumulators. */
typedef struct bacc {
    v4d sx, sy, sad, ssd, sxx, syy, sxy, md, mn, mx, mny, mxy, fl, nf;
} bacc;

static inline void bacc_init(bacc *a)
{
    memset(a, 0, sizeof *a);
    a->md = splat(-1);
    a->mn = a->mny = splat(INFINITY);
    a->mx = a->mxy = splat(-INFINITY);
}

static inline void bacc_add(bacc *s, v4d a, v4d b, v4d atol, v4d rtol)
{
    const v4l absmask = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
    v4d d = b - a, ad = (v4d)((v4l)d & absmask), aa = (v4d)((v4l)a & absmask);
    s->sx += a;
    s->sy += b;
    s->sad += ad;
    s->ssd += d * d;
    s->sxx += a * a;
    s->syy += b * b;
    s->sxy += a * b;
    s->md = sel(ad > s->md, ad, s->md);
    s->mn = sel(a < s->mn, a, s->mn);
    s->mx = sel(a > s->mx, a, s->mx);
    s->mny = sel(b < s->mny, b, s->mny);
    s->mxy = sel(b > s->mxy, b, s->mxy);
    s->fl += sel(ad <= atol + rtol * aa, splat(0), splat(1));
    s->nf += (a - a) + (b - b); /* 0 while finite, NaN after a NaN or Inf */
}

void mb__mk_widen_f32(const float *src, size_t n, double *dst)
{
    widen_f32(src, n, dst);
}

MK_CLONES
static void mk_block(const double *x, const double *y, size_t n, double atol,
                     double rtol, mb__mk_blockstats *o)
{
    bacc A, B;
    bacc_init(&A);
    bacc_init(&B);
    v4d vat = splat(atol), vrt = splat(rtol);
    size_t full = n / L * L;
    for (size_t i = 0; i < full; i += L) {
        bacc_add(&A, ld(x + i), ld(y + i), vat, vrt);
        bacc_add(&B, ld(x + i + 4), ld(y + i + 4), vat, vrt);
    }
    memset(o, 0, sizeof *o);
    o->sx = HSUM(A.sx, B.sx);
    o->sy = HSUM(A.sy, B.sy);
    o->sad = HSUM(A.sad, B.sad);
    o->ssd = HSUM(A.ssd, B.ssd);
    o->sxx = HSUM(A.sxx, B.sxx);
    o->syy = HSUM(A.syy, B.syy);
    o->sxy = HSUM(A.sxy, B.sxy);
    double fails = HSUM(A.fl, B.fl), nf = HSUM(A.nf, B.nf);
    o->maxd = -1;
    o->minx = o->miny = INFINITY;
    o->maxx = o->maxy = -INFINITY;
    for (int k = 0; k < 4; k++) {
        double md = A.md[k] > B.md[k] ? A.md[k] : B.md[k];
        double mn = A.mn[k] < B.mn[k] ? A.mn[k] : B.mn[k];
        double mx = A.mx[k] > B.mx[k] ? A.mx[k] : B.mx[k];
        double mny = A.mny[k] < B.mny[k] ? A.mny[k] : B.mny[k];
        double mxy = A.mxy[k] > B.mxy[k] ? A.mxy[k] : B.mxy[k];
        o->maxd = md > o->maxd ? md : o->maxd;
        o->minx = mn < o->minx ? mn : o->minx;
        o->maxx = mx > o->maxx ? mx : o->maxx;
        o->miny = mny < o->miny ? mny : o->miny;
        o->maxy = mxy > o->maxy ? mxy : o->maxy;
    }
    for (size_t i = full; i < n; i++) {
        double a = x[i], b = y[i], d = b - a, ad = fabs(d);
        o->sx += a;
        o->sy += b;
        o->sad += ad;
        o->ssd += d * d;
        o->sxx += a * a;
        o->syy += b * b;
        o->sxy += a * b;
        o->maxd = ad > o->maxd ? ad : o->maxd;
        o->minx = a < o->minx ? a : o->minx;
        o->maxx = a > o->maxx ? a : o->maxx;
        o->miny = b < o->miny ? b : o->miny;
        o->maxy = b > o->maxy ? b : o->maxy;
        fails += ad <= atol + rtol * fabs(a) ? 0.0 : 1.0;
        nf += (a - a) + (b - b);
    }
    o->nonfinite = nf != 0;
    if (o->nonfinite)
        return; /* the caller redoes the block element by element */
    o->fail = (size_t)fails;
    o->maxd_i = first_maxd(x, y, n, o->maxd);
    /* centred sums: a second pass over the block, still in L1 */
    double ma = o->sx / (double)n, mb = o->sy / (double)n;
    v4d vma = splat(ma), vmb = splat(mb);
    v4d c1 = {0}, c2 = {0}, c3 = {0}, d1 = {0}, d2 = {0}, d3 = {0};
    for (size_t i = 0; i < full; i += L) {
        v4d u = ld(x + i) - vma, v = ld(y + i) - vmb;
        v4d u2 = ld(x + i + 4) - vma, v2 = ld(y + i + 4) - vmb;
        c1 += u * u;
        c2 += v * v;
        c3 += u * v;
        d1 += u2 * u2;
        d2 += v2 * v2;
        d3 += u2 * v2;
    }
    o->cxx = HSUM(c1, d1);
    o->cyy = HSUM(c2, d2);
    o->cxy = HSUM(c3, d3);
    for (size_t i = full; i < n; i++) {
        double u = x[i] - ma, v = y[i] - mb;
        o->cxx += u * u;
        o->cyy += v * v;
        o->cxy += u * v;
    }
}

void mb__mk_block(const double *x, const double *y, size_t n, double atol,
                  double rtol, mb__mk_blockstats *o)
{
    mk_block(x, y, n, atol, rtol, o);
}

/* ---- exp ------------------------------------------------------------------
 */

/* exp(z) for z in [-708, 0], four lanes: z = k ln2 + r, |r| <= 0.35,
 * exp(r) by a polynomial, 2^k built in the exponent bits. */
static inline v4d vexp(v4d x)
{
    const v4d SHIFT = splat(0x1.8p52); /* adding it rounds to an integer */
    v4d z = sel(x < splat(-708.0), splat(-708.0), x);
    v4d kd = z * splat(1.4426950408889634) + SHIFT;
    v4d k = kd - SHIFT;
    v4d r = (z - k * splat(6.93147180369123816490e-01)) -
            k * splat(1.90821492927058770002e-10);
    /* exp(r) on |r| <= 0.347: a degree-11 polynomial fitted at Chebyshev
     * nodes (relative error 2e-17 before rounding; Taylor would need
     * degree 13) */
    v4d p = splat(0x1.af76cbb962bc0p-26);
    p = p * r + splat(0x1.28b40f0bb8bb1p-22);
    p = p * r + splat(0x1.71dde836fbfbep-19);
    p = p * r + splat(0x1.a01991a214687p-16);
    p = p * r + splat(0x1.a01a01b7c3e71p-13);
    p = p * r + splat(0x1.6c16c187ffe22p-10);
    p = p * r + splat(0x1.111111110dbb8p-7);
    p = p * r + splat(0x1.555555554f0bap-5);
    p = p * r + splat(0x1.5555555555562p-3);
    p = p * r + splat(0x1.0000000000011p-1);
    p = p * r + splat(1.0);
    p = p * r + splat(1.0);
    const v4l magic = {0x4338000000000000LL, 0x4338000000000000LL,
                       0x4338000000000000LL, 0x4338000000000000LL};
    const v4l bias = {1023, 1023, 1023, 1023};
    v4l e = (((v4l)kd - magic) + bias) << 52;
    return p * (v4d)e;
}

static inline double exp_le0(double x)
{
    v4d v = vexp(splat(x));
    return v[0];
}

double mb__mk_exp(double x)
{
    return exp_le0(x);
}

/* ---- classifier rows -------------------------------------------------------
 */

void mb__mk_row_init(mb__mk_row *r)
{
    memset(r, 0, sizeof *r);
    r->ma = r->mb = -INFINITY;
    r->minx = r->miny = INFINITY;
}

/* Whether (v, i) comes before (w, j) in the order of top-k: larger value
 * first, then lower index. */
static bool before(double v, size_t i, double w, size_t j)
{
    return v > w || (v == w && i < j);
}

static void top_insert(mb__mk_row *r, double v, size_t i)
{
    int k = r->nk;
    if (k == MB_MK_TOPK) {
        if (!before(v, i, r->topv[k - 1], r->topi[k - 1]))
            return;
        k--;
    } else {
        r->nk++;
    }
    while (k > 0 && before(v, i, r->topv[k - 1], r->topi[k - 1])) {
        r->topv[k] = r->topv[k - 1];
        r->topi[k] = r->topi[k - 1];
        k--;
    }
    r->topv[k] = v;
    r->topi[k] = i;
}

/* sum exp(x - ma), sum exp(y - mb), sum exp(x - ma) (x - y). */
MK_CLONES
static void row_exps(const double *x, const double *y, size_t n, double ma,
                     double mb, double *o)
{
    v4d za = {0}, zb = {0}, t = {0}, za2 = {0}, zb2 = {0}, t2 = {0};
    v4d vma = splat(ma), vmb = splat(mb);
    size_t full = n / L * L;
    for (size_t i = 0; i < full; i += L) {
        v4d a = ld(x + i), b = ld(y + i), a2 = ld(x + i + 4),
            b2 = ld(y + i + 4);
        v4d ea = vexp(a - vma), ea2 = vexp(a2 - vma);
        za += ea;
        za2 += ea2;
        zb += vexp(b - vmb);
        zb2 += vexp(b2 - vmb);
        t += ea * (a - b);
        t2 += ea2 * (a2 - b2);
    }
    o[0] = HSUM(za, za2);
    o[1] = HSUM(zb, zb2);
    o[2] = HSUM(t, t2);
    for (size_t i = full; i < n; i++) {
        double ea = exp_le0(x[i] - ma);
        o[0] += ea;
        o[1] += exp_le0(y[i] - mb);
        o[2] += ea * (x[i] - y[i]);
    }
}

static size_t first_eq(const double *v, size_t n, double m)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] == m)
            return i;
    return 0;
}

void mb__mk_row_block(mb__mk_row *r, const double *x, const double *y, size_t n,
                      size_t base, const mb__mk_blockstats *b)
{
    double e[3];
    /* the block's maxima, sums and minima of x and y */
    const double s[6] = {b->maxx, b->maxy, b->sx, b->sy, b->minx, b->miny};
    /* new maxima: rescale what was summed against the old ones */
    if (s[0] > r->ma) {
        double f = r->n ? exp_le0(r->ma - s[0]) : 0;
        r->za *= f;
        r->t *= f;
        r->ma = s[0];
        r->ia = base + first_eq(x, n, s[0]);
    }
    if (s[1] > r->mb) {
        r->zb *= r->n ? exp_le0(r->mb - s[1]) : 0;
        r->mb = s[1];
        r->ib = base + first_eq(y, n, s[1]);
    }
    row_exps(x, y, n, r->ma, r->mb, e);
    r->za += e[0];
    r->zb += e[1];
    r->t += e[2];
    r->sx += s[2];
    r->sy += s[3];
    r->minx = s[4] < r->minx ? s[4] : r->minx;
    r->miny = s[5] < r->miny ? s[5] : r->miny;
    /* top-k of y: only values that beat the current k-th enter */
    double thr = r->nk == MB_MK_TOPK ? r->topv[MB_MK_TOPK - 1] : -INFINITY;
    if (s[1] >= thr)
        for (size_t i = 0; i < n; i++)
            if (y[i] >= thr)
                top_insert(r, y[i], base + i);
    r->n += n;
}

void mb__mk_row_merge(mb__mk_row *r, const mb__mk_row *o)
{
    if (o->n == 0)
        return;
    if (r->n == 0) {
        *r = *o;
        return;
    }
    r->nonfinite |= o->nonfinite;
    double ma = o->ma > r->ma ? o->ma : r->ma;
    double mb = o->mb > r->mb ? o->mb : r->mb;
    double fr = exp_le0(r->ma - ma), fo = exp_le0(o->ma - ma);
    r->za = r->za * fr + o->za * fo;
    r->t = r->t * fr + o->t * fo;
    r->zb = r->zb * exp_le0(r->mb - mb) + o->zb * exp_le0(o->mb - mb);
    if (o->ma > r->ma) {
        r->ia = o->ia;
        r->ma = o->ma;
    }
    if (o->mb > r->mb) {
        r->ib = o->ib;
        r->mb = o->mb;
    }
    r->sx += o->sx;
    r->sy += o->sy;
    r->minx = o->minx < r->minx ? o->minx : r->minx;
    r->miny = o->miny < r->miny ? o->miny : r->miny;
    for (int k = 0; k < o->nk; k++)
        top_insert(r, o->topv[k], o->topi[k]);
    r->n += o->n;
}

bool mb__mk_row_in_topk(const mb__mk_row *r, size_t t, size_t k)
{
    if (k > (size_t)r->nk)
        k = (size_t)r->nk;
    for (size_t i = 0; i < k; i++)
        if (r->topi[i] == t)
            return true;
    return false;
}

double mb__mk_row_kl(const mb__mk_row *r)
{
    /* KL = E_p[x - y] - (la - lb), la = ma + log za, lb = mb + log zb */
    return r->t / r->za - (r->ma - r->mb) - log(r->za / r->zb);
}
