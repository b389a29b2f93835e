/* metrics.c - elementwise, per-sample and classifier metrics of a candidate
 * tensor against a baseline (definitions in docs/ACCURACY.md).
 *
 * One streaming pass: work items are chunks of at most CHUNK elements of
 * one sample (long samples) or groups of whole samples (short ones); an
 * item reads its elements block by block (mkernel.h: MB_MK_BLOCK pairs
 * widened to double, reduced to sums, a classifier row's softmax state
 * streamed alongside), so memory is a few blocks per thread whatever the
 * tensor's shape.  Items merge per sample, in order, with Chan's pairwise
 * update for the centred sums and compensated sums for the rest, and
 * samples merge into the tensor the same way, so the result does not depend
 * on how many threads ran the items.  The worst sample of each metric is
 * tracked as samples complete; every sample's figures are kept only when
 * the per-sample arrays will be written. */
#include "accuracy/metrics.h"
#include "accuracy/ssim.h"

#include "accuracy/ksum.h"
#include "accuracy/mkernel.h"
#include "accuracy/par.h"
#include "accuracy/pick.h"
#include "core/alloc.h"
#include "core/err.h"

#include <stdbool.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- accumulators ------------------------------------------------------ */

/* Mean and centred sums of the finite pairs of a stretch of elements. */
typedef struct moments {
    size_t n;                     /* finite pairs */
    double ma, mb, caa, cbb, cab; /* means and centred sums */
} moments;

typedef struct acc {
    mb__metrics c; /* the element counts (count, nan_a, ..., allclose_fail);
                     the other fields stay 0 until acc_finish */
    mb__ksum sad, ssd, saa, sbb, sab;
    moments mo;
    double maxd; /* -1 when no finite pair */
    size_t maxi;
    double amin, amax; /* over every finite baseline value */
    mb__mk_row row;    /* a classifier row's streamed softmax state */
} acc;

static void acc_init(acc *r)
{
    memset(r, 0, sizeof *r);
    r->maxd = -1;
    r->amin = INFINITY;
    r->amax = -INFINITY;
    mb__mk_row_init(&r->row);
}

/* r := r followed by o, by Chan's pairwise update. */
static void moments_merge(moments *r, const moments *o)
{
    if (o->n == 0)
        return;
    if (r->n == 0) {
        *r = *o;
        return;
    }
    double n = (double)r->n + (double)o->n;
    double da = o->ma - r->ma, db = o->mb - r->mb;
    double f = (double)r->n * (double)o->n / n;
    r->caa += o->caa + da * da * f;
    r->cbb += o->cbb + db * db * f;
    r->cab += o->cab + da * db * f;
    r->ma += da * (double)o->n / n;
    r->mb += db * (double)o->n / n;
    r->n += o->n;
}

/* r := r followed by o. */
static void acc_merge(acc *r, const acc *o)
{
    r->c.count += o->c.count;
    r->c.nan_a += o->c.nan_a;
    r->c.nan_b += o->c.nan_b;
    r->c.inf_a += o->c.inf_a;
    r->c.inf_b += o->c.inf_b;
    r->c.nonfinite_new += o->c.nonfinite_new;
    r->c.allclose_fail += o->c.allclose_fail;
    mb__ksum_merge(&r->sad, &o->sad);
    mb__ksum_merge(&r->ssd, &o->ssd);
    mb__ksum_merge(&r->saa, &o->saa);
    mb__ksum_merge(&r->sbb, &o->sbb);
    mb__ksum_merge(&r->sab, &o->sab);
    if (o->maxd > r->maxd) {
        r->maxd = o->maxd;
        r->maxi = o->maxi;
    }
    if (o->amin < r->amin)
        r->amin = o->amin;
    if (o->amax > r->amax)
        r->amax = o->amax;
    moments_merge(&r->mo, &o->mo);
    mb__mk_row_merge(&r->row, &o->row);
}

/* Adds the sums of a block of n finite pairs whose element `maxd_at` (a
 * tensor index) holds its largest |d|. */
static void acc_block(acc *r, const mb__mk_blockstats *b, size_t n,
                      size_t maxd_at)
{
    mb__ksum_add(&r->sad, b->sad);
    mb__ksum_add(&r->ssd, b->ssd);
    mb__ksum_add(&r->saa, b->sxx);
    mb__ksum_add(&r->sbb, b->syy);
    mb__ksum_add(&r->sab, b->sxy);
    r->c.allclose_fail += b->fail;
    if (b->maxd > r->maxd) {
        r->maxd = b->maxd;
        r->maxi = maxd_at;
    }
    if (b->minx < r->amin)
        r->amin = b->minx;
    if (b->maxx > r->amax)
        r->amax = b->maxx;
    moments m = {n,     b->sx / (double)n, b->sy / (double)n, b->cxx, b->cyy,
                 b->cxy};
    moments_merge(&r->mo, &m);
}

/* A block holding a NaN or Inf, element by element as the definitions
 * say; its finite pairs go through the block kernel (compacted into fx,
 * fy, with their positions in at). */
static void acc_nonfinite(acc *r, const double *x, const double *y, size_t n,
                          size_t base, double atol, double rtol, double *fx,
                          double *fy, size_t *at)
{
    size_t fin = 0;
    for (size_t i = 0; i < n; i++) {
        double xa = x[i], yb = y[i];
        int fa = isfinite(xa), fb = isfinite(yb);
        if (fa && fb) {
            fx[fin] = xa;
            fy[fin] = yb;
            at[fin++] = i;
            continue;
        }
        if (fa && xa < r->amin)
            r->amin = xa;
        if (fa && xa > r->amax)
            r->amax = xa;
        r->c.nan_a += isnan(xa) != 0;
        r->c.inf_a += isinf(xa) != 0;
        r->c.nan_b += isnan(yb) != 0;
        r->c.inf_b += isinf(yb) != 0;
        r->c.nonfinite_new += fa && !fb;
        /* numpy isclose: infinities are close only to themselves. */
        if (!(isinf(xa) && isinf(yb) && (xa > 0) == (yb > 0)))
            r->c.allclose_fail++;
    }
    if (fin == 0)
        return;
    mb__mk_blockstats b;
    mb__mk_block(fx, fy, fin, atol, rtol, &b);
    acc_block(r, &b, fin, base + at[b.maxd_i]);
}

/* Per-worker scratch: x, y and the compacted finite pairs of one block. */
#define SCRATCH_DOUBLES (4 * MB_MK_BLOCK + MB_MK_BLOCK)

/* Accumulates elements [off, off + n) of the tensors into r, in blocks;
 * `col` is off's position within its classifier row. */
static void acc_stretch(acc *r, const mb_tensor *a, const mb_tensor *b,
                        size_t off, size_t n, size_t col, int classifier,
                        double atol, double rtol, double *scratch)
{
    double *x = scratch, *y = x + MB_MK_BLOCK;
    double *fx = y + MB_MK_BLOCK, *fy = fx + MB_MK_BLOCK;
    size_t *at = (size_t *)(void *)(fy + MB_MK_BLOCK);
    for (size_t k = 0; k < n; k += MB_MK_BLOCK) {
        size_t len = n - k < MB_MK_BLOCK ? n - k : MB_MK_BLOCK;
        mb__tensor_load_f64(a, off + k, len, x);
        mb__tensor_load_f64(b, off + k, len, y);
        r->c.count += len;
        mb__mk_blockstats blk;
        mb__mk_block(x, y, len, atol, rtol, &blk);
        if (!blk.nonfinite) {
            acc_block(r, &blk, len, off + k + blk.maxd_i);
            if (classifier)
                mb__mk_row_block(&r->row, x, y, len, col + k, &blk);
        } else {
            acc_nonfinite(r, x, y, len, off + k, atol, rtol, fx, fy, at);
            if (classifier) {
                r->row.nonfinite = 1;
                r->row.n += len;
            }
        }
    }
}

static void acc_finish(const acc *r, double range, mb__metrics *m)
{
    *m = r->c;
    m->finite = r->mo.n;
    m->ssim = NAN;
    m->top1_agreement = m->top5_agreement = m->kl_mean = m->kl_max = NAN;
    if (r->mo.n == 0) {
        m->mae = m->mse = m->rmse = m->psnr = m->cosine = NAN;
        m->max_abs = m->rel_l2 = m->pearson = NAN;
        return;
    }
    double n = (double)r->mo.n;
    double ssd = mb__ksum_get(&r->ssd);
    double saa = mb__ksum_get(&r->saa), sbb = mb__ksum_get(&r->sbb);
    double sab = mb__ksum_get(&r->sab);
    m->mae = mb__ksum_get(&r->sad) / n;
    m->mse = ssd / n;
    m->rmse = sqrt(m->mse);
    m->psnr = m->mse == 0 ? INFINITY : 10.0 * log10(range * range / m->mse);
    double na = sqrt(saa), nb = sqrt(sbb);
    if (na == 0 && nb == 0)
        m->cosine = 1.0;
    else if (na == 0 || nb == 0)
        m->cosine = 0.0;
    else
        m->cosine = sab / (na * nb);
    m->max_abs = r->maxd;
    m->max_abs_index = r->maxi;
    if (saa == 0)
        m->rel_l2 = ssd == 0 ? 0.0 : INFINITY;
    else
        m->rel_l2 = sqrt(ssd) / na;
    const moments *mo = &r->mo;
    m->pearson =
        (mo->caa > 0 && mo->cbb > 0) ? mo->cab / sqrt(mo->caa * mo->cbb) : NAN;
}

/* ---- classifier rows ----------------------------------------------------- */

/* Whether x and y hold the same values, NaN where the other has NaN. */
static bool same_row(const double *x, const double *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(x[i] == y[i] || (isnan(x[i]) && isnan(y[i]))))
            return false;
    return true;
}

/* A probability vector: no negative value and a sum within 1e-3 of 1. */
static bool is_distribution(double sum, double min)
{
    return min >= 0 && fabs(sum - 1) <= 1e-3;
}

/* Row r (C classes) judged from its streamed state: top-1 and top-5
 * agreement and KL.  A row with NaN or Inf agrees only when the candidate
 * reproduces it exactly (the same model on the same input) and has no KL;
 * rows that are probabilities already (a softmax output) get the KL of
 * those probabilities, not of their softmax.  Those two cases read the
 * row again, in blocks. */
static void row_finish(const mb_tensor *a, const mb_tensor *b, size_t r,
                       size_t C, const mb__mk_row *st, double *scratch,
                       mb__metrics *m)
{
    double *x = scratch, *y = x + MB_MK_BLOCK;
    m->classifier = 1;
    m->rows = 1;
    m->classes = C;
    if (st->nonfinite) {
        bool same = true;
        for (size_t k = 0; same && k < C; k += MB_MK_BLOCK) {
            size_t len = C - k < MB_MK_BLOCK ? C - k : MB_MK_BLOCK;
            mb__tensor_load_f64(a, r * C + k, len, x);
            mb__tensor_load_f64(b, r * C + k, len, y);
            same = same_row(x, y, len);
        }
        m->top1_agreement = m->top5_agreement = same;
        m->kl_mean = m->kl_max = NAN;
        m->kl_rows = 0;
        return;
    }
    m->top1_agreement = st->ia == st->ib;
    m->top5_agreement = mb__mk_row_in_topk(st, st->ia, C < 5 ? C : 5);
    double kl;
    if (is_distribution(st->sx, st->minx) &&
        is_distribution(st->sy, st->miny)) {
        mb__ksum s = {0, 0};
        for (size_t k = 0; k < C; k += MB_MK_BLOCK) {
            size_t len = C - k < MB_MK_BLOCK ? C - k : MB_MK_BLOCK;
            mb__tensor_load_f64(a, r * C + k, len, x);
            mb__tensor_load_f64(b, r * C + k, len, y);
            for (size_t i = 0; i < len; i++)
                if (x[i] > 0)
                    mb__ksum_add(&s, x[i] * (log(x[i]) -
                                             log(y[i] > 1e-30 ? y[i] : 1e-30)));
        }
        kl = mb__ksum_get(&s);
    } else {
        kl = mb__mk_row_kl(st);
    }
    m->kl_mean = m->kl_max = kl;
    m->kl_rows = 1;
}

/* ---- the parallel pass ----------------------------------------------------
 */

/* Samples longer than this are cut into chunks (one work item each, merged
 * in order); shorter ones are grouped, up to GROUP_MAX samples an item. */
#define CHUNK ((size_t)65536)
#define GROUP_MAX ((size_t)1024)
/* Work items per window of group items: the per-sample accumulators of one
 * window are all the memory the samples take (the figures of every sample
 * are kept only for the per-sample arrays). */
#define WINDOW_ITEMS ((size_t)64)

typedef struct elem_job {
    const mb_tensor *a, *b;
    size_t m;       /* elements per sample */
    size_t cps;     /* chunk items: chunks per sample (0: group items) */
    size_t gps;     /* group items: samples per item */
    size_t s_first; /* group items: first sample of the window */
    size_t s_end;   /* and one past its last */
    int classifier;
    double atol, rtol;
    double **scratch; /* per worker: SCRATCH_DOUBLES */
    acc *accs;        /* chunk items: one per item; groups: one per sample
                         of the window */
} elem_job;

static void elem_item(void *user, size_t item, int worker)
{
    elem_job *j = user;
    double *sc = j->scratch[worker];
    if (j->cps) {
        size_t s = item / j->cps, c = item % j->cps;
        size_t col = c * CHUNK, len = j->m - col;
        if (len > CHUNK)
            len = CHUNK;
        acc_init(&j->accs[item]);
        acc_stretch(&j->accs[item], j->a, j->b, s * j->m + col, len, col,
                    j->classifier, j->atol, j->rtol, sc);
        return;
    }
    size_t s0 = j->s_first + item * j->gps, s1 = s0 + j->gps;
    if (s1 > j->s_end)
        s1 = j->s_end;
    for (size_t s = s0; s < s1; s++) {
        acc *r = &j->accs[s - j->s_first];
        acc_init(r);
        acc_stretch(r, j->a, j->b, s * j->m, j->m, 0, j->classifier, j->atol,
                    j->rtol, sc);
    }
}

/* Allocates `threads` scratch buffers of `each` doubles. */
static double **scratch_new(int threads, size_t each)
{
    double **s = mb__calloc((size_t)threads, sizeof *s);
    if (!s)
        return NULL;
    for (int t = 0; t < threads; t++) {
        s[t] = mb__calloc(each, sizeof(double));
        if (!s[t]) {
            for (int u = 0; u < t; u++)
                free(s[u]);
            free(s);
            return NULL;
        }
    }
    return s;
}

static void scratch_free(double **s, int threads)
{
    if (!s)
        return;
    for (int t = 0; t < threads; t++)
        free(s[t]);
    free(s);
}

/* Class scores by the one rule of pick.h (a float [N, C], C > 1, trailing
 * dims of size 1 ignored), so that every output the verdict may read as
 * class scores gets its top-1 agreement, and no other. */
static bool classifier_shape(const mb_tensor *t)
{
    mb__out_shape o;
    mb__out_shapes_from_tensors(t, 1, &o);
    return mb__classifier_shaped(&o) && t->dims[0] >= 1;
}

/* The worst sample of each metric, tracked as the samples stream by. */
static void worst_see(mb__metrics_result *res, size_t s, const mb__metrics *m)
{
    static const struct {
        size_t off;
        int high;
    } f[MB_WORST_N] = {
        [MB_WORST_MAE] = {offsetof(mb__metrics, mae), 1},
        [MB_WORST_MSE] = {offsetof(mb__metrics, mse), 1},
        [MB_WORST_RMSE] = {offsetof(mb__metrics, rmse), 1},
        /* the lowest PSNR is the largest MSE (the range comes later) */
        [MB_WORST_PSNR] = {offsetof(mb__metrics, mse), 1},
        [MB_WORST_COSINE] = {offsetof(mb__metrics, cosine), 0},
        [MB_WORST_MAX_ABS] = {offsetof(mb__metrics, max_abs), 1},
        [MB_WORST_REL_L2] = {offsetof(mb__metrics, rel_l2), 1},
        [MB_WORST_PEARSON] = {offsetof(mb__metrics, pearson), 0},
        [MB_WORST_SSIM] = {offsetof(mb__metrics, ssim), 0},
        [MB_WORST_KL] = {offsetof(mb__metrics, kl_mean), 1},
    };
    for (int k = 0; k < MB_WORST_N; k++) {
        if (k == MB_WORST_ALLCLOSE) {
            double v = (double)m->allclose_fail;
            if (res->worst_index[k] == SIZE_MAX || v > res->worst_value[k]) {
                res->worst_index[k] = s;
                res->worst_value[k] = v;
            }
            continue;
        }
        if (k == MB_WORST_SSIM)
            continue; /* ssim_pass */
        double v;
        memcpy(&v, (const char *)m + f[k].off, sizeof v);
        if (isnan(v))
            continue;
        double w = res->worst_value[k];
        if (res->worst_index[k] == SIZE_MAX || (f[k].high ? v > w : v < w)) {
            res->worst_index[k] = s;
            res->worst_value[k] = v;
        }
    }
}

/* The running classifier totals of a result. */
typedef struct cls_tot {
    size_t top1, top5, kl_rows;
    mb__ksum kl;
    double kl_max;
} cls_tot;

/* Sample s is done: its figures (PSNR with a provisional range; fixed in
 * finish_samples), the worst trackers, the classifier totals. */
static void sample_done(mb__metrics_result *res, const elem_job *j, size_t s,
                        const acc *r, cls_tot *ct, double *scratch)
{
    mb__metrics m;
    acc_finish(r, 1.0, &m);
    if (j->classifier) {
        row_finish(j->a, j->b, s, j->m, &r->row, scratch, &m);
        ct->top1 += m.top1_agreement == 1.0;
        ct->top5 += m.top5_agreement == 1.0;
        if (m.kl_rows) {
            mb__ksum_add(&ct->kl, m.kl_mean);
            ct->kl_rows++;
            if (isnan(ct->kl_max) || m.kl_mean > ct->kl_max)
                ct->kl_max = m.kl_mean;
        }
    }
    if (res->n_samples > 1)
        worst_see(res, s, &m);
    if (res->samples)
        res->samples[s] = m;
}

/* Runs the items of the element pass (all chunk items at once; group
 * items a window at a time) and folds the samples into total in order. */
static mb_status element_pass(elem_job *j, size_t S, int threads,
                              mb__metrics_result *res, acc *total, cls_tot *ct,
                              mb_err *err)
{
    size_t n_acc = j->cps ? S * j->cps : WINDOW_ITEMS * j->gps;
    if (!j->cps && n_acc > S)
        n_acc = S;
    j->accs = mb__calloc(n_acc, sizeof *j->accs);
    if (!j->accs)
        return mb__fail(err, MB_ENOMEM, "out of memory computing metrics");
    if (j->cps) {
        mb__par_for(S * j->cps, threads, elem_item, j);
        for (size_t s = 0; s < S; s++) {
            acc *first = &j->accs[s * j->cps];
            for (size_t c = 1; c < j->cps; c++)
                acc_merge(first, &j->accs[s * j->cps + c]);
            sample_done(res, j, s, first, ct, j->scratch[0]);
            acc_merge(total, first);
        }
    } else {
        for (size_t s0 = 0; s0 < S; s0 += WINDOW_ITEMS * j->gps) {
            j->s_first = s0;
            j->s_end =
                s0 + WINDOW_ITEMS * j->gps < S ? s0 + WINDOW_ITEMS * j->gps : S;
            size_t items = (j->s_end - s0 + j->gps - 1) / j->gps;
            mb__par_for(items, threads, elem_item, j);
            for (size_t s = s0; s < j->s_end; s++) {
                sample_done(res, j, s, &j->accs[s - s0], ct, j->scratch[0]);
                acc_merge(total, &j->accs[s - s0]);
            }
        }
    }
    free(j->accs);
    j->accs = NULL;
    return MB_OK;
}

static mb_status ssim_pass(const mb_tensor *a, const mb_tensor *b,
                           const mb__metric_opts *o, int threads,
                           mb__metrics_result *res, mb_err *err)
{
    size_t n_img = 0;
    if (!mb__ssim_applicable(a, o->ssim_3d, &n_img))
        return MB_OK;
    size_t S = res->n_samples;
    /* per-sample SSIM when the samples hold whole images */
    size_t k = S > 1 && n_img >= S && n_img % S == 0 ? n_img / S : 0;
    mb__ksum all = {0, 0};
    /* images in slices of at most 4096, so memory does not grow with them */
    double *per = mb__calloc(n_img < 4096 ? n_img : 4096, sizeof *per);
    if (!per)
        return mb__fail(err, MB_ENOMEM, "out of memory for SSIM");
    mb__ksum q = {0, 0};
    for (size_t i0 = 0; i0 < n_img; i0 += 4096) {
        size_t cnt = n_img - i0 < 4096 ? n_img - i0 : 4096;
        mb_status st = mb__ssim_images(a, b, o->ssim_3d, res->data_range,
                                       threads, i0, per, cnt, err);
        if (st != MB_OK) {
            free(per);
            return st;
        }
        for (size_t i = 0; i < cnt; i++) {
            mb__ksum_add(&all, per[i]);
            if (!k)
                continue;
            mb__ksum_add(&q, per[i]);
            size_t img = i0 + i;
            if ((img + 1) % k)
                continue;
            size_t s = img / k;
            double v = mb__ksum_get(&q) / (double)k;
            q = (mb__ksum){0, 0};
            if (res->samples) {
                res->samples[s].ssim = v;
                res->samples[s].ssim_images = k;
            }
            size_t w = res->worst_index[MB_WORST_SSIM];
            if (!isnan(v) &&
                (w == SIZE_MAX || v < res->worst_value[MB_WORST_SSIM])) {
                res->worst_index[MB_WORST_SSIM] = s;
                res->worst_value[MB_WORST_SSIM] = v;
            }
        }
    }
    free(per);
    res->total.ssim = mb__ksum_get(&all) / (double)n_img;
    res->total.ssim_images = n_img;
    return MB_OK;
}

static bool same_shape(const mb_tensor *a, const mb_tensor *b)
{
    if (a->rank != b->rank)
        return false;
    for (int i = 0; i < a->rank; i++)
        if (a->dims[i] != b->dims[i])
            return false;
    return true;
}

static const char *tname(const mb_tensor *t)
{
    return t->name && *t->name ? t->name : "tensor";
}

void mb__metrics_result_free(mb__metrics_result *res)
{
    if (!res)
        return;
    free(res->samples);
    memset(res, 0, sizeof *res);
}

/* Checks shapes, dtypes and options; MB_OK when the pair can be compared. */
static mb_status check_pair(const mb_tensor *a, const mb_tensor *b,
                            const mb__metric_opts *opts, mb_err *err)
{
    if (!same_shape(a, b)) {
        char sa[256], sb[256];
        return mb__fail(err, MB_EDATA,
                        "%s: baseline shape %s differs from candidate shape "
                        "%s; compare outputs of the same shape",
                        tname(a), mb_shape_str(a->dims, a->rank, sa, sizeof sa),
                        mb_shape_str(b->dims, b->rank, sb, sizeof sb));
    }
    if (!mb__metrics_dtype_ok(a->dtype) || !mb__metrics_dtype_ok(b->dtype))
        return mb__fail(err, MB_EUNSUPPORTED,
                        "%s: cannot compare %s with %s tensors; metrics need "
                        "real numeric dtypes",
                        tname(a), mb_dtype_name(a->dtype),
                        mb_dtype_name(b->dtype));
    if (!(opts->atol >= 0) || !(opts->rtol >= 0) || !(opts->data_range >= 0) ||
        !isfinite(opts->data_range))
        return mb__fail(err, MB_EINVAL,
                        "atol, rtol and data range must be finite and >= 0");
    return MB_OK;
}

/* The data range, then PSNR (which needs it) of the total and the kept
 * samples, and the worst PSNR. */
static void apply_range(const mb__metric_opts *opts, const acc *total,
                        mb__metrics_result *res)
{
    if (opts->data_range > 0) {
        res->data_range = opts->data_range;
        res->range_source = MB_RANGE_GIVEN;
    } else if (total->amax > total->amin) {
        res->data_range = total->amax - total->amin;
        res->range_source = MB_RANGE_BASELINE;
    } else {
        res->data_range = 1.0;
        res->range_source = MB_RANGE_FALLBACK;
    }
    double R2 = res->data_range * res->data_range;
#define PSNR(mse) ((mse) == 0 ? INFINITY : 10.0 * log10(R2 / (mse)))
    for (size_t s = 0; res->samples && s < res->n_samples; s++)
        if (!isnan(res->samples[s].mse))
            res->samples[s].psnr = PSNR(res->samples[s].mse);
    if (res->worst_index[MB_WORST_PSNR] != SIZE_MAX)
        res->worst_value[MB_WORST_PSNR] = PSNR(res->worst_value[MB_WORST_PSNR]);
#undef PSNR
}

mb_status mb__metrics_compute_struct(const mb_tensor *a, const mb_tensor *b,
                                     const mb__metric_opts *opts,
                                     mb__metrics_result *res, mb_err *err)
{
    mb__metric_opts defs;
    if (!opts) {
        mb__metric_opts_defaults(&defs);
        opts = &defs;
    }
    memset(res, 0, sizeof *res);
    for (int k = 0; k < MB_WORST_N; k++)
        res->worst_index[k] = SIZE_MAX;
    mb_status st = check_pair(a, b, opts, err);
    if (st)
        return st;
    size_t count = mb_tensor_count(a);
    size_t S = a->rank >= 2 ? (size_t)a->dims[0] : 1;
    if (count == 0 || S == 0) {
        acc z;
        acc_init(&z);
        acc_finish(&z, 1.0, &res->total);
        res->data_range = opts->data_range > 0 ? opts->data_range : 1.0;
        res->range_source =
            opts->data_range > 0 ? MB_RANGE_GIVEN : MB_RANGE_FALLBACK;
        return MB_OK;
    }
    elem_job j = {a,          b,          count / S, 0,
                  0,          0,          0,         classifier_shape(a),
                  opts->atol, opts->rtol, NULL,      NULL};
    if (j.m > CHUNK / 16) {
        j.cps = (j.m + CHUNK - 1) / CHUNK;
    } else {
        j.gps = CHUNK / j.m;
        j.gps = j.gps > GROUP_MAX ? GROUP_MAX : j.gps;
    }
    int threads = count >= opts->parallel_min ? opts->threads : 1;
    if (threads <= 0)
        threads = mb__par_cpus();
    res->n_samples = S;
    /* every sample's figures for the per-sample arrays, when they are
     * written (the worst samples are tracked either way) */
    bool keep = S > 1 && (S <= opts->per_sample_max || S <= 64);
    res->samples = keep ? mb__calloc(S, sizeof *res->samples) : NULL;
    j.scratch = scratch_new(threads, SCRATCH_DOUBLES);
    if (!j.scratch || (keep && !res->samples)) {
        scratch_free(j.scratch, threads);
        mb__metrics_result_free(res);
        return mb__fail(err, MB_ENOMEM,
                        "out of memory computing metrics of %s (%zu samples)",
                        tname(a), S);
    }
    acc total;
    acc_init(&total);
    cls_tot ct = {0, 0, 0, {0, 0}, NAN};
    st = element_pass(&j, S, threads, res, &total, &ct, err);
    scratch_free(j.scratch, threads);
    if (!st) {
        apply_range(opts, &total, res);
        acc_finish(&total, res->data_range, &res->total);
    }
    if (!st && j.classifier) {
        mb__metrics *t = &res->total;
        t->classifier = 1;
        t->rows = S;
        t->classes = j.m;
        t->kl_rows = ct.kl_rows;
        t->top1_agreement = (double)ct.top1 / (double)S;
        t->top5_agreement = (double)ct.top5 / (double)S;
        t->kl_mean =
            ct.kl_rows ? mb__ksum_get(&ct.kl) / (double)ct.kl_rows : NAN;
        t->kl_max = ct.kl_max;
    }
    if (!st)
        st = ssim_pass(a, b, opts, threads, res, err);
    if (st != MB_OK)
        mb__metrics_result_free(res);
    return st;
}

/* ---- accuracy against labels ------------------------------------------- */

static size_t argmax_first(const double *x, size_t n)
{
    size_t k = 0;
    for (size_t i = 1; i < n; i++)
        if (x[i] > x[k])
            k = i;
    return k;
}

/* Whether class t is among the k largest of x (ties go to lower index). */
static bool in_topk(const double *x, size_t n, size_t t, size_t k)
{
    size_t above = 0;
    for (size_t j = 0; j < n; j++)
        if (x[j] > x[t] || (x[j] == x[t] && j < t))
            above++;
    return above < k;
}

static bool all_finite(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return false;
    return true;
}

mb_status mb__topk_accuracy(const mb_tensor *logits, const int64_t *labels,
                            size_t n, double *top1, double *top5, mb_err *err)
{
    return mb__topk_hits(logits, labels, n, top1, top5, NULL, err);
}

mb_status mb__topk_hits(const mb_tensor *logits, const int64_t *labels,
                        size_t n, double *top1, double *top5, uint8_t *hit1,
                        mb_err *err)
{
    int rank = logits->rank;
    while (rank > 2 && logits->dims[rank - 1] == 1)
        rank--;
    if (rank != 2 || !mb__metrics_dtype_ok(logits->dtype)) {
        char sh[256];
        return mb__fail(
            err, MB_EDATA,
            "%s: accuracy against labels needs [N, C] scores, got "
            "%s %s",
            tname(logits), mb_dtype_name(logits->dtype),
            mb_shape_str(logits->dims, logits->rank, sh, sizeof sh));
    }
    size_t N = (size_t)logits->dims[0], C = (size_t)logits->dims[1];
    if (n != N)
        return mb__fail(err, MB_EDATA,
                        "%zu labels for %zu rows of %s; give one label per "
                        "sample",
                        n, N, tname(logits));
    if (N == 0)
        return mb__fail(err, MB_EDATA, "%s has no rows to score",
                        tname(logits));
    for (size_t i = 0; i < n; i++)
        if (labels[i] < 0 || (uint64_t)labels[i] >= C)
            return mb__fail(err, MB_EDATA,
                            "label %lld of sample %zu is outside [0, %zu) "
                            "for %s",
                            (long long)labels[i], i, C, tname(logits));
    double *x = mb__calloc(C, sizeof *x);
    if (!x)
        return mb__fail(err, MB_ENOMEM, "out of memory scoring labels");
    size_t h1 = 0, h5 = 0;
    for (size_t r = 0; r < N; r++) {
        mb__tensor_load_f64(logits, r * C, C, x);
        if (hit1)
            hit1[r] = 0;
        if (!all_finite(x, C))
            continue;
        size_t t = (size_t)labels[r];
        int right = argmax_first(x, C) == t;
        if (hit1)
            hit1[r] = (uint8_t)right;
        h1 += (size_t)right;
        h5 += (size_t)in_topk(x, C, t, C < 5 ? C : 5);
    }
    free(x);
    *top1 = (double)h1 / (double)N;
    *top5 = (double)h5 / (double)N;
    return MB_OK;
}

/* ---- segmentation against masks ---------------------------------------- */

static bool is_float(mb_dtype t)
{
    return t == MB_DTYPE_FLOAT32 || t == MB_DTYPE_FLOAT16 ||
           t == MB_DTYPE_FLOAT64 || t == MB_DTYPE_BFLOAT16;
}

static bool is_int(mb_dtype t)
{
    return mb__metrics_dtype_ok(t) && !is_float(t) && t != MB_DTYPE_BOOL;
}

/* The masks' spatial dims start at *first (after N, and a class axis of
 * size 1); 0 when their shape does not fit scores. */
static bool seg_shape_fits(const mb_tensor *s, const mb_tensor *m, int *first)
{
    if (s->rank < 3 || s->dims[1] < 2 || m->rank < 1 ||
        m->dims[0] != s->dims[0])
        return false;
    int f = m->rank == s->rank ? 2 : 1;
    if (f == 2 && m->dims[1] != 1)
        return false;
    if (m->rank - f != s->rank - 2)
        return false;
    for (int k = 2; k < s->rank; k++)
        if (m->dims[f + k - 2] != s->dims[k])
            return false;
    *first = f;
    return true;
}

bool mb__segmentation_fits(const mb_tensor *scores, const mb_tensor *masks)
{
    int f;
    return scores->data && is_float(scores->dtype) && is_int(masks->dtype) &&
           seg_shape_fits(scores, masks, &f);
}

/* Per-class counts of one sample: argmax over the C planes of S pixels. */
static mb_status seg_sample(const mb_tensor *t, size_t n, size_t C, size_t S,
                            const mb_tensor *m, const int64_t *ignore,
                            size_t *I, size_t *P, size_t *G, size_t *correct,
                            size_t *ignored, double *best, double *plane,
                            size_t *idx, mb_err *err)
{
    for (size_t c = 0; c < C; c++) {
        mb__tensor_load_f64(t, (n * C + c) * S, S, plane);
        for (size_t p = 0; p < S; p++) {
            double v = plane[p];
            if (c == 0) {
                best[p] = v;
                idx[p] = isnan(v) ? C : 0; /* C: no class */
            } else if (isnan(best[p])) {
                continue;
            } else if (isnan(v)) {
                best[p] = v;
                idx[p] = C;
            } else if (v > best[p]) {
                best[p] = v;
                idx[p] = c;
            }
        }
    }
    for (size_t p = 0; p < S; p++) {
        double g = mb_tensor_get_f64(m, n * S + p);
        if (ignore && g == (double)*ignore) { /* left out of every count */
            (*ignored)++;
            continue;
        }
        if (!(g >= 0) || g >= (double)C || g != floor(g))
            return mb__fail(err, MB_EDATA,
                            "mask value %.17g of sample %zu (flat pixel "
                            "index %zu) is outside [0, %zu), the classes of "
                            "%s; an ignore label (such as 255) needs "
                            "--ignore-index",
                            g, n, p, C, tname(t));
        size_t gc = (size_t)g, pc = idx[p];
        G[gc]++;
        if (pc < C) {
            P[pc]++;
            if (pc == gc) {
                I[gc]++;
                (*correct)++;
            }
        }
    }
    return MB_OK;
}

mb_status mb__segmentation_scores(const mb_tensor *scores,
                                  const mb_tensor *masks, const int64_t *ignore,
                                  json_t **out, mb_err *err)
{
    *out = NULL;
    char sa[256], sb[256];
    int f;
    if (!is_float(scores->dtype) || !is_int(masks->dtype) ||
        !seg_shape_fits(scores, masks, &f))
        return mb__fail(err, MB_EDATA,
                        "%s %s %s cannot be scored against masks %s %s: "
                        "needs float [N, C, H, W] scores (C > 1) and integer "
                        "masks [N, H, W] or [N, 1, H, W]",
                        tname(scores), mb_dtype_name(scores->dtype),
                        mb_shape_str(scores->dims, scores->rank, sa, sizeof sa),
                        mb_dtype_name(masks->dtype),
                        mb_shape_str(masks->dims, masks->rank, sb, sizeof sb));
    size_t N = (size_t)scores->dims[0], C = (size_t)scores->dims[1], S = 1;
    for (int k = 2; k < scores->rank; k++)
        S *= (size_t)scores->dims[k];
    if (N == 0 || S == 0)
        return mb__fail(err, MB_EDATA, "%s has no pixels to score",
                        tname(scores));
    size_t *cnt = mb__calloc(3 * C + S, sizeof *cnt);
    double *best = mb__calloc(2 * S, sizeof *best);
    if (!cnt || !best) {
        free(cnt);
        free(best);
        return mb__fail(err, MB_ENOMEM, "out of memory scoring masks");
    }
    size_t *I = cnt, *P = cnt + C, *G = cnt + 2 * C, *idx = cnt + 3 * C;
    size_t correct = 0, ignored = 0;
    mb_status st = MB_OK;
    for (size_t n = 0; n < N && !st; n++)
        st = seg_sample(scores, n, C, S, masks, ignore, I, P, G, &correct,
                        &ignored, best, best + S, idx, err);
    /* An ignore index that is a class leaves that class out too
     * (torchmetrics' ignore_index). */
    size_t skip_class =
        ignore && *ignore >= 0 && (uint64_t)*ignore < C ? (size_t)*ignore : C;
    if (!st) {
        json_t *iou = json_array(), *dice = json_array();
        mb__ksum si = {0, 0}, sd = {0, 0};
        size_t defined = 0;
        for (size_t c = 0; c < C; c++) {
            size_t pg = c == skip_class ? 0 : P[c] + G[c];
            double vi = pg ? (double)I[c] / (double)(pg - I[c]) : NAN;
            double vd = pg ? 2.0 * (double)I[c] / (double)pg : NAN;
            json_array_append_new(iou, mb__json_metric(vi));
            json_array_append_new(dice, mb__json_metric(vd));
            if (pg) {
                mb__ksum_add(&si, vi);
                mb__ksum_add(&sd, vd);
                defined++;
            }
        }
        size_t counted = N * S - ignored;
        *out = json_pack(
            "{s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o}", "classes",
            (json_int_t)C, "pixels", (json_int_t)counted, "ignored",
            (json_int_t)ignored, "pixel_accuracy",
            mb__json_metric(counted ? (double)correct / (double)counted : NAN),
            "mean_iou",
            mb__json_metric(defined ? mb__ksum_get(&si) / (double)defined
                                    : NAN),
            "mean_dice",
            mb__json_metric(defined ? mb__ksum_get(&sd) / (double)defined
                                    : NAN),
            "iou", iou, "dice", dice);
        if (!*out)
            st = mb__fail(err, MB_ENOMEM, "out of memory");
    }
    free(cnt);
    free(best);
    return st;
}
