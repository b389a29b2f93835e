/* metrics.c - elementwise, per-sample and classifier metrics of a candidate
 * tensor against a baseline (definitions in docs/ACCURACY.md).
 *
 * Work is cut into items of at most CHUNK elements that never straddle a
 * sample; each item converts its elements to double once and keeps
 * compensated sums plus its own mean and centred sums (two passes over
 * data that is still in cache).  Items merge per sample, in order, with
 * Chan's pairwise update, and samples merge into the tensor the same way,
 * so the result is independent of how many threads ran the items. */
#include "accuracy/metrics.h"

#include "accuracy/ksum.h"
#include "accuracy/par.h"
#include "accuracy/pick.h"
#include "core/alloc.h"
#include "core/err.h"

#include <stdbool.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK ((size_t)65536)
#define ROWS_PER_ITEM ((size_t)64)

void mb__metric_opts_defaults(mb_metric_opts *o)
{
    memset(o, 0, sizeof *o);
    o->atol = 1e-8;
    o->rtol = 1e-5;
    o->data_range = 0;
    o->ssim_3d = 0;
    o->threads = 0;
    o->parallel_min = (size_t)1 << 20;
    o->per_sample_max = 1024;
}

bool mb__metrics_dtype_ok(mb_dtype t)
{
    switch (t) {
    case MB_DTYPE_FLOAT32:
    case MB_DTYPE_FLOAT64:
    case MB_DTYPE_FLOAT16:
    case MB_DTYPE_BFLOAT16:
    case MB_DTYPE_UINT8:
    case MB_DTYPE_INT8:
    case MB_DTYPE_UINT16:
    case MB_DTYPE_INT16:
    case MB_DTYPE_INT32:
    case MB_DTYPE_INT64:
    case MB_DTYPE_UINT32:
    case MB_DTYPE_UINT64:
    case MB_DTYPE_BOOL:
        return true;
    default:
        return false;
    }
}

void mb__tensor_load_f64(const mb_tensor *t, size_t off, size_t n, double *dst)
{
    const unsigned char *p = t->data;
    size_t i;
#define LOAD_AS(T)                                                             \
    do {                                                                       \
        const T *s = (const T *)(const void *)p + off;                         \
        for (i = 0; i < n; i++)                                                \
            dst[i] = (double)s[i];                                             \
    } while (0)
    switch (t->dtype) {
    case MB_DTYPE_FLOAT32:
        LOAD_AS(float);
        break;
    case MB_DTYPE_FLOAT64:
        LOAD_AS(double);
        break;
    case MB_DTYPE_UINT8:
        LOAD_AS(uint8_t);
        break;
    case MB_DTYPE_INT8:
        LOAD_AS(int8_t);
        break;
    case MB_DTYPE_UINT16:
        LOAD_AS(uint16_t);
        break;
    case MB_DTYPE_INT16:
        LOAD_AS(int16_t);
        break;
    case MB_DTYPE_INT32:
        LOAD_AS(int32_t);
        break;
    case MB_DTYPE_INT64:
        LOAD_AS(int64_t);
        break;
    case MB_DTYPE_UINT32:
        LOAD_AS(uint32_t);
        break;
    case MB_DTYPE_UINT64:
        LOAD_AS(uint64_t);
        break;
    case MB_DTYPE_BOOL: {
        const uint8_t *s = p + off;
        for (i = 0; i < n; i++)
            dst[i] = s[i] ? 1.0 : 0.0;
        break;
    }
    case MB_DTYPE_FLOAT16: {
        const uint16_t *s = (const uint16_t *)(const void *)p + off;
        for (i = 0; i < n; i++)
            dst[i] = (double)mb_f16_to_f32(s[i]);
        break;
    }
    case MB_DTYPE_BFLOAT16: {
        const uint16_t *s = (const uint16_t *)(const void *)p + off;
        for (i = 0; i < n; i++)
            dst[i] = (double)mb_bf16_to_f32(s[i]);
        break;
    }
    default:
        for (i = 0; i < n; i++)
            dst[i] = NAN;
        break;
    }
#undef LOAD_AS
}

/* ---- accumulators ------------------------------------------------------ */

/* Mean and centred sums of the finite pairs of a stretch of elements. */
typedef struct moments {
    size_t n;                     /* finite pairs */
    double ma, mb, caa, cbb, cab; /* means and centred sums */
} moments;

typedef struct acc {
    mb_metrics c; /* the element counts (count, nan_a, ..., allclose_fail);
                     the other fields stay 0 until acc_finish */
    mb_ksum sad, ssd, saa, sbb, sab;
    moments mo;
    double maxd; /* -1 when no finite pair */
    size_t maxi;
    double amin, amax; /* over every finite baseline value */
} acc;

static void acc_init(acc *r)
{
    memset(r, 0, sizeof *r);
    r->maxd = -1;
    r->amin = INFINITY;
    r->amax = -INFINITY;
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
}

/* Accumulates x (baseline) and y (candidate), n elements whose first one is
 * element `base` of the tensor. */
static void acc_chunk(acc *r, const double *x, const double *y, size_t n,
                      size_t base, double atol, double rtol)
{
    acc_init(r);
    r->c.count = n;
    mb_ksum sa = {0, 0}, sb = {0, 0};
    size_t fin = 0;
    for (size_t i = 0; i < n; i++) {
        double xa = x[i], yb = y[i];
        int fa = isfinite(xa), fb = isfinite(yb);
        if (!(fa && fb)) {
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
            continue;
        }
        fin++;
        double d = yb - xa, ad = fabs(d);
        r->c.allclose_fail += !(ad <= atol + rtol * fabs(xa));
        mb__ksum_add(&r->sad, ad);
        mb__ksum_add(&r->ssd, d * d);
        mb__ksum_add(&r->saa, xa * xa);
        mb__ksum_add(&r->sbb, yb * yb);
        mb__ksum_add(&r->sab, xa * yb);
        mb__ksum_add(&sa, xa);
        mb__ksum_add(&sb, yb);
        if (ad > r->maxd) {
            r->maxd = ad;
            r->maxi = base + i;
        }
        if (xa < r->amin)
            r->amin = xa;
        if (xa > r->amax)
            r->amax = xa;
    }
    r->mo.n = fin;
    if (fin == 0)
        return;
    double ma = mb__ksum_get(&sa) / (double)fin;
    double mb = mb__ksum_get(&sb) / (double)fin;
    mb_ksum caa = {0, 0}, cbb = {0, 0}, cab = {0, 0};
    for (size_t i = 0; i < n; i++) {
        double xa = x[i], yb = y[i];
        if (!(isfinite(xa) && isfinite(yb)))
            continue;
        double u = xa - ma, v = yb - mb;
        mb__ksum_add(&caa, u * u);
        mb__ksum_add(&cbb, v * v);
        mb__ksum_add(&cab, u * v);
    }
    r->mo = (moments){fin,
                      ma,
                      mb,
                      mb__ksum_get(&caa),
                      mb__ksum_get(&cbb),
                      mb__ksum_get(&cab)};
}

static void acc_finish(const acc *r, double range, mb_metrics *m)
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

/* ---- the parallel passes ----------------------------------------------- */

typedef struct elem_job {
    const mb_tensor *a, *b;
    size_t sample_len, chunks_per_sample;
    double atol, rtol;
    double **scratch; /* per worker: 2 * CHUNK doubles */
    acc *items;
} elem_job;

static void elem_item(void *user, size_t item, int worker)
{
    elem_job *j = user;
    size_t s = item / j->chunks_per_sample, c = item % j->chunks_per_sample;
    size_t off = s * j->sample_len + c * CHUNK;
    size_t len = j->sample_len - c * CHUNK;
    if (len > CHUNK)
        len = CHUNK;
    double *x = j->scratch[worker], *y = x + CHUNK;
    mb__tensor_load_f64(j->a, off, len, x);
    mb__tensor_load_f64(j->b, off, len, y);
    acc_chunk(&j->items[item], x, y, len, off, j->atol, j->rtol);
}

/* Per-row classifier figures. */
typedef struct row_res {
    int top1, top5;
    double kl; /* NAN when a value of the row is not finite */
} row_res;

typedef struct row_job {
    const mb_tensor *a, *b;
    size_t rows, classes;
    double **scratch; /* per worker: 2 * classes doubles */
    row_res *res;
} row_job;

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

/* Whether x and y hold the same values, NaN where the other has NaN. */
static bool same_row(const double *x, const double *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(x[i] == y[i] || (isnan(x[i]) && isnan(y[i]))))
            return false;
    return true;
}

/* log-sum-exp of x after subtracting its max. */
static double lse(const double *x, size_t n, double mx)
{
    mb_ksum s = {0, 0};
    for (size_t i = 0; i < n; i++)
        mb__ksum_add(&s, exp(x[i] - mx));
    return mx + log(mb__ksum_get(&s));
}

/* A probability vector: no negative value and a sum within 1e-3 of 1. */
static bool is_distribution(const double *x, size_t n)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (x[i] < 0)
            return false;
        sum += x[i];
    }
    return fabs(sum - 1) <= 1e-3;
}

static void row_item(void *user, size_t item, int worker)
{
    row_job *j = user;
    size_t C = j->classes;
    double *x = j->scratch[worker], *y = x + C;
    size_t r0 = item * ROWS_PER_ITEM, r1 = r0 + ROWS_PER_ITEM;
    if (r1 > j->rows)
        r1 = j->rows;
    for (size_t r = r0; r < r1; r++) {
        row_res *o = &j->res[r];
        mb__tensor_load_f64(j->a, r * C, C, x);
        mb__tensor_load_f64(j->b, r * C, C, y);
        if (!all_finite(x, C) || !all_finite(y, C)) {
            /* a row with NaN or Inf agrees only when the candidate
             * reproduces it exactly (the same model on the same input) */
            o->top1 = o->top5 = same_row(x, y, C);
            o->kl = NAN;
            continue;
        }
        size_t ta = argmax_first(x, C), tb = argmax_first(y, C);
        o->top1 = ta == tb;
        o->top5 = in_topk(y, C, ta, C < 5 ? C : 5);
        mb_ksum kl = {0, 0};
        if (is_distribution(x, C) && is_distribution(y, C)) {
            /* already probabilities (a softmax output): KL of them, not of
             * their softmax, which would shrink it ~100-fold */
            for (size_t i = 0; i < C; i++)
                if (x[i] > 0)
                    mb__ksum_add(
                        &kl,
                        x[i] * (log(x[i]) - log(y[i] > 1e-30 ? y[i] : 1e-30)));
        } else {
            double la = lse(x, C, x[ta]), lb = lse(y, C, y[tb]);
            for (size_t i = 0; i < C; i++) {
                double lpa = x[i] - la, lpb = y[i] - lb;
                mb__ksum_add(&kl, exp(lpa) * (lpa - lpb));
            }
        }
        o->kl = mb__ksum_get(&kl);
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
    mb_out_shape o;
    mb__out_shapes_from_tensors(t, 1, &o);
    return mb__classifier_shaped(&o) && t->dims[0] >= 1;
}

static mb_status classifier_pass(const mb_tensor *a, const mb_tensor *b,
                                 int threads, mb_metrics_result *res,
                                 mb_err *err)
{
    size_t rows = (size_t)a->dims[0], C = (size_t)a->dims[1];
    size_t n_items = (rows + ROWS_PER_ITEM - 1) / ROWS_PER_ITEM;
    if ((size_t)threads > n_items)
        threads = (int)n_items;
    row_job j = {a, b, rows, C, NULL, NULL};
    size_t each;
    if (!mb__mul_ok(C, 2, &each))
        return mb__fail(err, MB_ENOMEM, "classifier rows are too wide");
    j.scratch = scratch_new(threads, each);
    j.res = mb__calloc(rows, sizeof *j.res);
    if (!j.scratch || !j.res) {
        scratch_free(j.scratch, threads);
        free(j.res);
        return mb__fail(err, MB_ENOMEM, "out of memory for classifier metrics");
    }
    mb__par_for(n_items, threads, row_item, &j);
    scratch_free(j.scratch, threads);

    mb_metrics *t = &res->total;
    mb_ksum kl = {0, 0};
    size_t top1 = 0, top5 = 0, kl_rows = 0;
    double kl_max = NAN;
    for (size_t r = 0; r < rows; r++) {
        const row_res *o = &j.res[r];
        top1 += (size_t)o->top1;
        top5 += (size_t)o->top5;
        if (!isnan(o->kl)) {
            mb__ksum_add(&kl, o->kl);
            kl_rows++;
            if (isnan(kl_max) || o->kl > kl_max)
                kl_max = o->kl;
        }
        if (res->samples && res->n_samples == rows) {
            mb_metrics *s = &res->samples[r];
            s->classifier = 1;
            s->rows = 1;
            s->classes = C;
            s->kl_rows = !isnan(o->kl);
            s->top1_agreement = o->top1;
            s->top5_agreement = o->top5;
            s->kl_mean = s->kl_max = o->kl;
        }
    }
    free(j.res);
    t->classifier = 1;
    t->rows = rows;
    t->classes = C;
    t->kl_rows = kl_rows;
    t->top1_agreement = (double)top1 / (double)rows;
    t->top5_agreement = (double)top5 / (double)rows;
    t->kl_mean = kl_rows ? mb__ksum_get(&kl) / (double)kl_rows : NAN;
    t->kl_max = kl_max;
    return MB_OK;
}

static mb_status ssim_pass(const mb_tensor *a, const mb_tensor *b,
                           const mb_metric_opts *o, int threads,
                           mb_metrics_result *res, mb_err *err)
{
    size_t n_img = 0;
    if (!mb__ssim_applicable(a, o->ssim_3d, &n_img))
        return MB_OK;
    double *per = mb__calloc(n_img, sizeof *per);
    if (!per)
        return mb__fail(err, MB_ENOMEM, "out of memory for SSIM");
    mb_status st = mb__ssim_images(a, b, o->ssim_3d, res->data_range, threads,
                                   per, n_img, err);
    if (st != MB_OK) {
        free(per);
        return st;
    }
    mb_ksum s = {0, 0};
    for (size_t i = 0; i < n_img; i++)
        mb__ksum_add(&s, per[i]);
    res->total.ssim = mb__ksum_get(&s) / (double)n_img;
    res->total.ssim_images = n_img;
    size_t S = res->n_samples;
    if (res->samples && S > 0 && n_img >= S && n_img % S == 0) {
        size_t k = n_img / S;
        for (size_t i = 0; i < S; i++) {
            mb_ksum q = {0, 0};
            for (size_t u = 0; u < k; u++)
                mb__ksum_add(&q, per[i * k + u]);
            res->samples[i].ssim = mb__ksum_get(&q) / (double)k;
            res->samples[i].ssim_images = k;
        }
    }
    free(per);
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

void mb__metrics_result_free(mb_metrics_result *res)
{
    if (!res)
        return;
    free(res->samples);
    memset(res, 0, sizeof *res);
}

mb_status mb__metrics_compute_struct(const mb_tensor *a, const mb_tensor *b,
                                     const mb_metric_opts *opts,
                                     mb_metrics_result *res, mb_err *err)
{
    mb_metric_opts defs;
    if (!opts) {
        mb__metric_opts_defaults(&defs);
        opts = &defs;
    }
    memset(res, 0, sizeof *res);
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
    size_t m = count / S;
    size_t cps = (m + CHUNK - 1) / CHUNK;
    size_t n_items = S * cps;
    int threads = count >= opts->parallel_min ? opts->threads : 1;
    if (threads <= 0)
        threads = mb__par_cpus();
    if ((size_t)threads > n_items)
        threads = (int)n_items;

    elem_job j = {a, b, m, cps, opts->atol, opts->rtol, NULL, NULL};
    j.scratch = scratch_new(threads, 2 * CHUNK);
    j.items = mb__calloc(n_items, sizeof *j.items);
    res->samples = S > 1 ? mb__calloc(S, sizeof *res->samples) : NULL;
    if (!j.scratch || !j.items || (S > 1 && !res->samples)) {
        scratch_free(j.scratch, threads);
        free(j.items);
        mb__metrics_result_free(res);
        return mb__fail(err, MB_ENOMEM,
                        "out of memory computing metrics of %s (%zu samples)",
                        tname(a), S);
    }
    mb__par_for(n_items, threads, elem_item, &j);
    scratch_free(j.scratch, threads);

    /* Merge items into samples, samples into the tensor, in order. */
    acc *sacc = j.items; /* sample s's merged acc ends up in items[s*cps] */
    acc total;
    acc_init(&total);
    for (size_t s = 0; s < S; s++) {
        acc *first = &sacc[s * cps];
        for (size_t c = 1; c < cps; c++)
            acc_merge(first, &sacc[s * cps + c]);
        acc_merge(&total, first);
    }
    if (opts->data_range > 0) {
        res->data_range = opts->data_range;
        res->range_source = MB_RANGE_GIVEN;
    } else if (total.amax > total.amin) {
        res->data_range = total.amax - total.amin;
        res->range_source = MB_RANGE_BASELINE;
    } else {
        res->data_range = 1.0;
        res->range_source = MB_RANGE_FALLBACK;
    }
    acc_finish(&total, res->data_range, &res->total);
    res->n_samples = S;
    if (res->samples)
        for (size_t s = 0; s < S; s++)
            acc_finish(&sacc[s * cps], res->data_range, &res->samples[s]);
    free(j.items);

    mb_status st = MB_OK;
    if (classifier_shape(a))
        st = classifier_pass(a, b, count >= opts->parallel_min ? threads : 1,
                             res, err);
    if (st == MB_OK)
        st = ssim_pass(a, b, opts, threads, res, err);
    if (st != MB_OK)
        mb__metrics_result_free(res);
    return st;
}

/* ---- accuracy against labels ------------------------------------------- */

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
        mb_ksum si = {0, 0}, sd = {0, 0};
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
