/* valrun.c - the validate engine (valrun.h): options, running both models
 * over the same inputs, the metrics of every output, and the document.
 * The verdict itself is valjudge.c. */
#include "accuracy/valrun.h"

#include "accuracy/metrics_json.h"
#include "accuracy/pick.h"
#include "accuracy/folderinfo.h"
#include "accuracy/heatmap.h"
#include "accuracy/valjudge.h"
#include "core/buf.h"
#include "core/alloc.h"
#include "core/err.h"
#include "core/fileio.h"
#include "core/parse.h"
#include "core/rng.h"
#include "data/dataset.h"
#include "data/imagedir.h"
#include "data/labels.h"
#include "data/npy.h"
#include "data/synthetic.h"
#include "plan/planopt.h"
#include "runner/runner.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GATES 64

/* Outputs of one model, concatenated over batches. */
typedef struct outset {
    mb_tensor *t;
    size_t n;
} outset;

static void outset_free(outset *o)
{
    for (size_t i = 0; o->t && i < o->n; i++)
        mb_tensor_clear(&o->t[i]);
    free(o->t);
    memset(o, 0, sizeof *o);
}

/* Appends batch outputs `add` (taken over) to o along axis 0. */
static mb_status outset_append(outset *o, mb_tensor *add, size_t n,
                               const mb_io_desc *desc, int first, mb_err *err)
{
    if (first) {
        o->t = add;
        o->n = n;
        for (size_t i = 0; i < n; i++) {
            free(o->t[i].name);
            o->t[i].name = mb__strdup(desc[i].name);
        }
        return MB_OK;
    }
    mb_status st = MB_OK;
    for (size_t i = 0; i < n && st == MB_OK; i++) {
        mb_tensor *a = &o->t[i], *b = &add[i];
        int ok = a->rank >= 1 && a->rank == b->rank && a->dtype == b->dtype;
        for (int k = 1; ok && k < a->rank; k++)
            ok = a->dims[k] == b->dims[k];
        if (!ok) {
            char sa[256], sb[256];
            st = mb__fail(err, MB_EDATA,
                          "output %s changes shape between batches (%s, "
                          "then %s); it has no batch axis, so run with "
                          "--batch equal to the sample count",
                          desc[i].name,
                          mb_shape_str(a->dims, a->rank, sa, sizeof sa),
                          mb_shape_str(b->dims, b->rank, sb, sizeof sb));
            break;
        }
        size_t nb = a->nbytes + b->nbytes;
        void *p = realloc(a->data, nb ? nb : 1);
        if (!p) {
            st = mb__fail(err, MB_ENOMEM, "out of memory keeping outputs");
            break;
        }
        memcpy((char *)p + a->nbytes, b->data, b->nbytes);
        a->data = p;
        a->nbytes = nb;
        a->dims[0] += b->dims[0];
    }
    for (size_t i = 0; i < n; i++)
        mb_tensor_clear(&add[i]);
    free(add);
    return st;
}

/* Converts src to dtype `to` (floats and integers through double). */
static mb_status convert(const mb_tensor *src, mb_dtype to, mb_tensor *dst,
                         mb_err *err)
{
    if (!mb__metrics_dtype_ok(src->dtype) ||
        (to != MB_DTYPE_FLOAT32 && to != MB_DTYPE_FLOAT16 &&
         to != MB_DTYPE_FLOAT64 && to != MB_DTYPE_BFLOAT16))
        return mb__fail(err, MB_EDATA,
                        "input %s: the baseline takes %s, the candidate %s; "
                        "only float inputs are converted",
                        src->name ? src->name : "?", mb_dtype_name(src->dtype),
                        mb_dtype_name(to));
    mb_status st =
        mb_tensor_alloc(dst, to, src->rank, src->dims, src->name, err);
    if (st)
        return st;
    size_t n = mb_tensor_count(src);
    double *tmp = mb__calloc(n ? n : 1, sizeof *tmp);
    if (!tmp) {
        mb_tensor_clear(dst);
        return mb__fail(err, MB_ENOMEM, "out of memory converting inputs");
    }
    mb__tensor_load_f64(src, 0, n, tmp);
    for (size_t i = 0; i < n; i++) {
        switch (to) {
        case MB_DTYPE_FLOAT32:
            ((float *)dst->data)[i] = (float)tmp[i];
            break;
        case MB_DTYPE_FLOAT64:
            ((double *)dst->data)[i] = tmp[i];
            break;
        case MB_DTYPE_FLOAT16:
            ((uint16_t *)dst->data)[i] = mb_f32_to_f16((float)tmp[i]);
            break;
        default:
            ((uint16_t *)dst->data)[i] = mb_f32_to_bf16((float)tmp[i]);
            break;
        }
    }
    free(tmp);
    return MB_OK;
}

/* Binds `in` to the candidate, converting dtypes the candidate wants
 * differently (an fp16 model with fp16 inputs). */
static mb_status bind_candidate(mb__bench *b, const mb_tensor *in, size_t n,
                                mb_err *err)
{
    size_t nd;
    const mb_io_desc *d = mb__bench_describe(b, 0, &nd);
    if (nd != n)
        return mb__fail(err, MB_EDATA,
                        "the baseline takes %zu inputs, the candidate %zu; "
                        "validate models with the same inputs",
                        n, nd);
    int need = 0;
    for (size_t i = 0; i < n; i++)
        need |= d[i].dtype != in[i].dtype;
    if (!need)
        return mb__bench_set_inputs(b, in, n, err);
    mb_tensor *conv = mb__calloc(n, sizeof *conv);
    if (!conv)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    mb_status st = MB_OK;
    for (size_t i = 0; i < n && !st; i++) {
        if (d[i].dtype == in[i].dtype)
            st = mb_tensor_copy(&conv[i], &in[i], err);
        else
            st = convert(&in[i], d[i].dtype, &conv[i], err);
    }
    if (!st)
        st = mb__bench_set_inputs(b, conv, n, err);
    for (size_t i = 0; i < n; i++)
        mb_tensor_clear(&conv[i]);
    free(conv);
    return st;
}

static mb_status save_outputs(const char *dir, const char *sub, const outset *o,
                              mb_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    if (mb__mkdirs(path, err))
        return err->code;
    for (size_t i = 0; i < o->n; i++) {
        char name[256];
        snprintf(name, sizeof name, "%s",
                 o->t[i].name && *o->t[i].name ? o->t[i].name : "output");
        for (char *p = name; *p; p++)
            if (*p == '/' || *p == '\\')
                *p = '_';
        snprintf(path, sizeof path, "%s/%s/%s.npy", dir, sub, name);
        mb_status st = mb__npy_write(path, &o->t[i], err);
        if (st)
            return st;
    }
    return MB_OK;
}

/* Frees the batch outputs of one model. */
static void free_batch(mb_tensor *t, size_t n)
{
    for (size_t i = 0; t && i < n; i++)
        mb_tensor_clear(&t[i]);
    free(t);
}

/* Fails (MB_EINVAL, a usage error) when --output names none of the
 * baseline's outputs, before any sample runs. */
static mb_status check_output_name(const char *name, const mb_io_desc *d,
                                   size_t n, mb_err *err)
{
    if (!name)
        return MB_OK;
    mb__out_shape *shp = mb__calloc(n ? n : 1, sizeof *shp);
    if (!shp)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        shp[i].name = d[i].name;
        shp[i].dtype = d[i].dtype;
        shp[i].rank = d[i].rank;
        shp[i].dims = d[i].dims;
    }
    mb__judged j;
    mb_status st = mb__judged_output(shp, n, name, &j, err);
    free(shp);
    return st;
}

/* Runs both models over every batch; fills the output sets.  *n_samples
 * receives the number of samples run.  With --data each model gets the
 * samples in its own input dtypes (a float32 file feeds a float16 input,
 * converted by the data set); synthetic inputs are made for the baseline
 * and converted for the candidate. */
/* What run_both's phases share: both models' sessions, their inputs
 * and the data they read. */
typedef struct both {
    const mb__val_req *rq;
    int64_t batch;
    mb__bench *ba, *bb;
    mb__dataset *ds, *dsb; /* NULL on synthetic inputs */
    const mb_io_desc *din, *dinb, *douta, *doutb;
    size_t n_in, n_in_b;
    mb__outpairs *pairs;   /* the candidate output of each baseline output */
    json_t **runtime;      /* the candidate's runtime facts after the run */
    const int64_t *labels; /* --labels or the image folder's, or NULL */
    size_t n_labels;
    const mb_tensor *masks; /* --masks, or NULL */
    mb_tensor *in, *inb;    /* one batch of inputs of each model */
    size_t total;           /* samples */
} both;

/* Pairs the outputs of both models (outpair.h, the one rule of validate,
 * compare and diff) into *c->pairs, before any sample runs. */
static mb_status pair_outputs(both *c, size_t na, size_t nb, mb_err *err)
{
    mb__outname *a = mb__calloc(na + nb + 1, sizeof *a);
    if (!a)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    for (size_t i = 0; i < na; i++)
        a[i].name = c->douta[i].name;
    for (size_t i = 0; i < nb; i++)
        a[na + i].name = c->doutb[i].name;
    mb__pair_req pr = {a,
                       a + na,
                       na,
                       nb,
                       c->rq->maps,
                       c->rq->n_maps,
                       "the baseline",
                       "the candidate",
                       0};
    mb_status st = mb__outputs_pair(&pr, c->pairs, err);
    free(a);
    return st;
}

/* Opens both models; their outputs must pair, and --output must name one
 * of the baseline's. */
static mb_status open_both(both *c, mb_err *err)
{
    const mb__plan *pa = c->rq->baseline, *pb = c->rq->candidate;
    mb_status st = mb__bench_open(pa, c->batch, &c->ba, err);
    if (st) {
        mb__fail_prefix(err, "baseline %s", pa->model_path);
        return st;
    }
    st = mb__bench_open(pb, c->batch, &c->bb, err);
    if (st) {
        mb__fail_prefix(err, "candidate %s", pb->model_path);
        return st;
    }
    c->din = mb__bench_describe(c->ba, 0, &c->n_in);
    c->dinb = mb__bench_describe(c->bb, 0, &c->n_in_b);
    size_t n_out_a, n_out_b;
    c->douta = mb__bench_describe(c->ba, 1, &n_out_a);
    c->doutb = mb__bench_describe(c->bb, 1, &n_out_b);
    st = check_output_name(c->rq->output, c->douta, n_out_a, err);
    return st ? st : pair_outputs(c, n_out_a, n_out_b, err);
}

/* The samples: --data read for each model's inputs (both must read as
 * many), else rq->samples synthetic ones; source says which. */
static mb_status load_data(both *c, char *source, size_t slen, mb_err *err)
{
    const mb__plan *pa = c->rq->baseline, *pb = c->rq->candidate;
    if (!pa->data_path) {
        c->total = (size_t)c->rq->samples;
        snprintf(source, slen,
                 "%zu synthetic samples (seed %llu): RANDOM INPUTS", c->total,
                 (unsigned long long)pa->seed);
        return MB_OK;
    }
    mb_status st = mb__dataset_load_prep(pa->data_path, c->din, c->n_in,
                                         &pa->tlimit, &pa->image, &c->ds, err);
    if (st) {
        mb__fail_prefix(err, "baseline %s", pa->model_path);
        return st;
    }
    st = mb__dataset_load_prep(pa->data_path, c->dinb, c->n_in_b, &pa->tlimit,
                               &pb->image, &c->dsb, err);
    if (st) {
        mb__fail_prefix(err, "candidate %s", pb->model_path);
        return st;
    }
    c->total = mb__dataset_count(c->ds);
    if (mb__dataset_count(c->dsb) != c->total)
        /* (a model of unknown input rank once took the whole array as
         * one sample: every batch then ran all of it again) */
        return mb__fail(err, MB_EDATA,
                        "--data %s holds %zu samples for the baseline's "
                        "inputs but %zu for the candidate's; give the "
                        "candidate its input shapes (--shape) so that both "
                        "read the same samples",
                        pa->data_path, c->total, mb__dataset_count(c->dsb));
    const char *da = mb__dataset_describe(c->ds),
               *db = mb__dataset_describe(c->dsb);
    if (strcmp(da, db) == 0)
        snprintf(source, slen, "%s", da);
    else
        snprintf(source, slen, "%s; candidate: %s", da, db);
    return MB_OK;
}

/* Labels and masks against the samples and the model, before any sample
 * runs (not after minutes of running both models). */
static mb_status check_before(const both *c, size_t n_out, mb_err *err)
{
    const mb__val_req *rq = c->rq;
    if (c->masks && c->masks->rank > 0 && (size_t)c->masks->dims[0] != c->total)
        return mb__fail(err, MB_EDATA,
                        "--masks %s: %lld masks for %zu samples; give one "
                        "mask per sample (checked before measuring)",
                        rq->masks, (long long)c->masks->dims[0], c->total);
    if (!c->labels)
        return MB_OK;
    mb__out_shape *shp = mb__calloc(n_out ? n_out : 1, sizeof *shp);
    if (!shp)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    for (size_t i = 0; i < n_out; i++)
        shp[i] = (mb__out_shape){c->douta[i].name, c->douta[i].dtype,
                                 c->douta[i].rank, c->douta[i].dims};
    char what[700];
    snprintf(what, sizeof what, "%s%s", rq->labels_optional ? "" : "--labels ",
             rq->labels);
    mb_status st = mb__val_labels_check(c->labels, c->n_labels, c->total, shp,
                                        n_out, rq->output, what, err);
    free(shp);
    return st;
}

/* Binds the bs samples from `first` to both models: the data's, or
 * synthetic inputs of the baseline's converted for the candidate. */
static mb_status bind_batch(both *c, size_t first, int64_t bs, mb__rng *rng,
                            mb_err *err)
{
    const mb__plan *pa = c->rq->baseline;
    mb_status st = MB_OK;
    if (c->ds) {
        st = mb__dataset_batch(c->ds, first, bs, c->in, err);
        if (!st)
            st = mb__dataset_batch(c->dsb, first, bs, c->inb, err);
    } else {
        for (size_t i = 0; i < c->n_in && !st; i++)
            st = mb__synthetic_input(&c->din[i], bs, pa, rng, &c->in[i], err);
    }
    if (!st)
        st = mb__bench_set_inputs(c->ba, c->in, c->n_in, err);
    if (!st)
        st = c->ds ? mb__bench_set_inputs(c->bb, c->inb, c->n_in_b, err)
                   : bind_candidate(c->bb, c->in, c->n_in, err);
    for (size_t i = 0; i < c->n_in; i++)
        mb_tensor_clear(&c->in[i]);
    for (size_t i = 0; i < c->n_in_b; i++)
        mb_tensor_clear(&c->inb[i]);
    return st;
}

/* Runs both models on the bound batch and appends their outputs. */
static mb_status run_batch(both *c, outset *oa, outset *ob, size_t first,
                           mb_err *err)
{
    const mb__plan *pa = c->rq->baseline, *pb = c->rq->candidate;
    mb_tensor *ta = NULL, *tb = NULL;
    size_t na = 0, nb = 0;
    mb_status st = mb__bench_outputs(c->ba, &ta, &na, err);
    if (st)
        mb__fail_prefix(err, "baseline %s", pa->model_path);
    if (!st) {
        st = mb__bench_outputs(c->bb, &tb, &nb, err);
        if (st)
            mb__fail_prefix(err, "candidate %s", pb->model_path);
    }
    if (!st)
        st = outset_append(oa, ta, na, c->douta, first == 0, err);
    else
        free_batch(ta, na);
    if (!st)
        st = outset_append(ob, tb, nb, c->doutb, first == 0, err);
    else
        free_batch(tb, nb);
    return st;
}

/* Runs both models over every sample in batches, their outputs into oa
 * and ob; source describes the inputs. */
static mb_status run_both(const mb__val_req *rq, outset *oa, outset *ob,
                          mb__outpairs *pairs, json_t **runtime,
                          const int64_t *labels, size_t n_labels,
                          const mb_tensor *masks, size_t *n_samples,
                          char *source, size_t slen, mb_err *err)
{
    const mb__plan *pa = rq->baseline;
    both c = {.rq = rq,
              .batch = pa->n_batches ? pa->batches[0] : 1,
              .pairs = pairs,
              .runtime = runtime,
              .labels = labels,
              .n_labels = n_labels,
              .masks = masks};
    mb_status st;
    size_t n_out = 0;
    if ((st = open_both(&c, err)) || (st = load_data(&c, source, slen, err)))
        goto done;
    mb__bench_describe(c.ba, 1, &n_out);
    if ((st = check_before(&c, n_out, err)))
        goto done;
    c.in = mb__calloc(c.n_in ? c.n_in : 1, sizeof *c.in);
    c.inb = mb__calloc(c.n_in_b ? c.n_in_b : 1, sizeof *c.inb);
    if (!c.in || !c.inb) {
        st = mb__fail(err, MB_ENOMEM, "out of memory");
        goto done;
    }
    mb__rng rng;
    mb__rng_seed(&rng, pa->seed);
    for (size_t first = 0; first < c.total; first += (size_t)c.batch) {
        int64_t bs = c.batch;
        if ((size_t)bs > c.total - first)
            bs = (int64_t)(c.total - first);
        if ((st = bind_batch(&c, first, bs, &rng, err)) ||
            (st = run_batch(&c, oa, ob, first, err)))
            goto done;
    }
    *n_samples = c.total;
    *c.runtime = mb__bench_runtime_now(c.bb);
done:
    free(c.in);
    free(c.inb);
    mb__dataset_free(c.ds);
    mb__dataset_free(c.dsb);
    mb__bench_close(c.ba);
    mb__bench_close(c.bb);
    return st;
}

void mb__val_req_defaults(mb__val_req *rq)
{
    memset(rq, 0, sizeof *rq);
    rq->tolerance = 0.01;
    rq->samples = 8;
    mb__metric_opts_defaults(&rq->metrics);
    rq->metrics.per_sample_max = 0;
    rq->heatmap_sample = -1;
}

static const char *bare(const char *key)
{
    while (key && *key == '-')
        key++;
    return key ? key : "";
}

static const char *const val_keys[] = {
    "labels",       "masks", "output",        "save-outputs",
    "tolerance",    "gate",  "precision",     "samples",
    "atol",         "rtol",  "data-range",    "ssim-3d",
    "ignore-index", "map",   "heatmap-sample"};

bool mb__val_is_option(const char *key)
{
    for (size_t i = 0; i < sizeof val_keys / sizeof *val_keys; i++)
        if (!strcmp(bare(key), val_keys[i]))
            return true;
    return false;
}

static mb_status bad(mb_err *err, const char *key, const char *value,
                     const char *expect)
{
    return mb__fail(err, MB_EINVAL, "invalid value '%s' for %s: expected %s",
                    value ? value : "", key, expect);
}

mb_status mb__val_set(mb__val_req *rq, const char *key, const char *value,
                      mb_err *err)
{
    const char *k = bare(key);
    if (!value)
        return bad(err, key, value, "a value");
    if (!strcmp(k, "labels"))
        rq->labels = value;
    else if (!strcmp(k, "masks"))
        rq->masks = value;
    else if (!strcmp(k, "output"))
        rq->output = value;
    else if (!strcmp(k, "save-outputs"))
        rq->save_outputs = value;
    else if (!strcmp(k, "tolerance")) {
        if (!mb__parse_double(value, 0, 1, &rq->tolerance))
            return bad(err, key, value, "a number in [0, 1]");
    } else if (!strcmp(k, "gate")) {
        if (rq->n_gates >= MB__VAL_MAX_GATES)
            return mb__fail(err, MB_EINVAL, "too many gates (at most %d)",
                            MB__VAL_MAX_GATES);
        mb_status s = mb__gate_parse(value, &rq->gates[rq->n_gates], err);
        if (s)
            return s;
        rq->n_gates++;
    } else if (!strcmp(k, "precision")) {
        if (!mb__precision_parse(value, &rq->precision))
            return bad(err, key, value, "fp32, fp16, bf16 or int8");
        rq->have_precision = 1;
    } else if (!strcmp(k, "samples")) {
        if (!mb__parse_i64(value, 1, 1 << 24, &rq->samples))
            return bad(err, key, value, "an integer in 1..16777216");
    } else if (!strcmp(k, "atol") || !strcmp(k, "rtol")) {
        if (!mb__parse_double(value, 0, 1e300,
                              k[0] == 'a' ? &rq->metrics.atol
                                          : &rq->metrics.rtol))
            return bad(err, key, value, "a number >= 0");
    } else if (!strcmp(k, "data-range")) {
        if (!mb__parse_double(value, 1e-300, 1e300, &rq->metrics.data_range))
            return bad(err, key, value, "a number > 0");
    } else if (!strcmp(k, "ssim-3d")) {
        int64_t v;
        if (!mb__parse_i64(value, 0, 1, &v))
            return bad(err, key, value, "0 or 1");
        rq->metrics.ssim_3d = (int)v;
    } else if (!strcmp(k, "ignore-index")) {
        if (!mb__parse_i64(value, INT64_MIN, INT64_MAX, &rq->ignore_index))
            return bad(err, key, value, "an integer mask value such as 255");
        rq->have_ignore = 1;
    } else if (!strcmp(k, "map")) {
        if (rq->n_maps >= MB__MAX_OUTMAPS)
            return mb__fail(err, MB_EINVAL, "too many --map (at most %d)",
                            MB__MAX_OUTMAPS);
        mb_status s = mb__outmap_parse(value, &rq->maps[rq->n_maps], err);
        if (s)
            return s;
        rq->n_maps++;
    } else if (!strcmp(k, "heatmap-sample")) {
        if (!mb__parse_i64(value, 0, INT64_MAX, &rq->heatmap_sample))
            return bad(err, key, value, "a sample index >= 0");
    } else {
        return mb__fail(err, MB_EINVAL, "%s is not a validate option", key);
    }
    return MB_OK;
}

mb_status mb__val_plans(mb__plan *pa, mb__plan *pb, const char *baseline,
                        const char *candidate, const char *const *cand_opts,
                        size_t n_cand, mb_err *err)
{
    mb__plan_defaults(pb);
    char *a = mb__strdup(baseline);
    if (!a)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    free(pa->model_path);
    pa->model_path = a;
    if (!mb__plan_copy(pb, pa))
        return mb__fail(err, MB_ENOMEM, "out of memory");
    mb_status s = MB_OK;
    free(pb->model_path);
    if (!(pb->model_path = mb__strdup(candidate)))
        s = mb__fail(err, MB_ENOMEM, "out of memory");
    for (size_t i = 0; !s && i < n_cand; i++) {
        const char *eq = strchr(cand_opts[i], '=');
        char key[64];
        snprintf(key, sizeof key, "%.*s", eq ? (int)(eq - cand_opts[i]) : 0,
                 cand_opts[i]);
        const mb__planopt *o = mb__planopt_find(key);
        if (!eq || !o)
            s = mb__fail(err, MB_EINVAL,
                         "unknown variant option '%s'; variant options are "
                         "the run options without dashes (threads=2, "
                         "opt-level=all, ...)",
                         eq ? key : cand_opts[i]);
        else
            s = mb__planopt_set(pb, o, key, eq + 1, err);
    }
    if (!s && n_cand && mb__planopt_finish(pb, "", err)) {
        char msg[sizeof err->msg]; /* min <= max with the candidate's own */
        snprintf(msg, sizeof msg, "%s", err->msg);
        s = mb__fail(err, MB_EINVAL, "--candidate-opt: %s", msg);
    }
    if (s) {
        mb__plan_free(pb);
        mb__plan_defaults(pb);
    }
    return s;
}

/* The "validation" object up to the verdict: what ran on what. */
static json_t *validation_head(const mb__val_req *rq, const char *source,
                               size_t n_samples)
{
    const mb__plan *pa = rq->baseline;
    json_t *v = json_object();
    json_object_set_new(v, "baseline", json_string(pa->model_path));
    json_object_set_new(v, "candidate", json_string(rq->candidate->model_path));
    json_object_set_new(v, "inputs", json_string(source));
    json_object_set_new(v, "synthetic_inputs",
                        json_boolean(pa->data_path == NULL));
    json_object_set_new(v, "samples", json_integer((json_int_t)n_samples));
    json_object_set_new(v, "batch",
                        json_integer(pa->n_batches ? pa->batches[0] : 1));
    json_object_set_new(v, "labels",
                        rq->labels ? json_string(rq->labels) : json_null());
    json_object_set_new(v, "models", mb__val_models_json(pa, rq->candidate));
    json_object_set_new(v, "tolerance", json_real(rq->tolerance));
    return v;
}

/* The request's options that need one another. */
static mb_status check_val_req(const mb__val_req *rq, mb_err *err)
{
    const mb__plan *pa = rq->baseline, *pb = rq->candidate;
    if (!pa || !pb || !pa->model_path || !pb->model_path)
        return mb__fail(err, MB_EINVAL,
                        "validate needs BASELINE and CANDIDATE models");
    if (pa->n_batches > 1)
        return mb__fail(err, MB_EINVAL,
                        "validate takes one --batch size, not a list");
    if (rq->labels && !pa->data_path)
        return mb__fail(err, MB_EINVAL,
                        "--labels needs --data: labels describe real "
                        "samples, not random inputs");
    if (rq->have_ignore && !rq->masks)
        return mb__fail(err, MB_EINVAL,
                        "--ignore-index needs --masks: it names a mask "
                        "value to leave out of Dice and IoU");
    if (rq->masks && !pa->data_path)
        return mb__fail(err, MB_EINVAL,
                        "--masks needs --data: masks describe real "
                        "samples, not random inputs");
    return MB_OK;
}

/* The metrics of every output pair (baseline i against the candidate's
 * output paired with it, b[i]), into a new array *outs; a pair of two
 * names keeps the candidate's as "candidate_name". */
static mb_status output_metrics(const mb__val_req *rq, const outset *oa,
                                const mb_tensor *b, json_t **outs, mb_err *err)
{
    mb_status st = MB_OK;
    *outs = json_array();
    for (size_t i = 0; i < oa->n && !st; i++) {
        json_t *m = NULL;
        st = mb__metrics_compute(&oa->t[i], &b[i], &rq->metrics, &m, err);
        if (st)
            mb__fail_prefix(err, "output %s",
                            oa->t[i].name ? oa->t[i].name : "?");
        else
            json_array_append_new(*outs, m);
        if (!st && b[i].name && oa->t[i].name &&
            strcmp(b[i].name, oa->t[i].name))
            json_object_set_new(m, "candidate_name", json_string(b[i].name));
    }
    return st;
}

/* The candidate's outputs in the baseline's order (shallow copies: the
 * tensors stay ob's); NULL when memory runs out. */
static mb_tensor *aligned(const outset *ob, const mb__outpairs *p)
{
    mb_tensor *b = mb__calloc(p->n ? p->n : 1, sizeof *b);
    for (size_t i = 0; b && i < p->n; i++)
        b[i] = ob->t[p->cand[i]];
    return b;
}

/* The pairing of the outputs as the document keeps it. */
static json_t *pairing_json(const mb__val_req *rq, const outset *oa,
                            const outset *ob, const mb__outpairs *p)
{
    mb__outname *nms = mb__calloc(oa->n + ob->n + 1, sizeof *nms);
    if (!nms)
        return json_null();
    for (size_t i = 0; i < oa->n; i++)
        nms[i].name = oa->t[i].name;
    for (size_t i = 0; i < ob->n; i++)
        nms[oa->n + i].name = ob->t[i].name;
    mb__pair_req pr = {nms,      nms + oa->n, oa->n,          ob->n,
                       rq->maps, rq->n_maps,  "the baseline", "the candidate",
                       0};
    json_t *j = mb__outpairs_json(&pr, p);
    free(nms);
    return j;
}

/* The heat map of the output that differs most, at the chosen or worst
 * sample (accuracy/heatmap.h), as v's "heatmap"; MB_EINVAL for a sample
 * outside that output. */
static mb_status embed_heatmap(int64_t sample, const mb_tensor *a,
                               const mb_tensor *b, size_t n, const json_t *outs,
                               json_t *v, mb_err *err)
{
    json_t *h = NULL;
    mb_status st = mb__heatmap_embed(a, b, n, outs, NULL, sample, &h, err);
    if (st)
        mb__fail_prefix(err, "--heatmap-sample");
    else if (h)
        json_object_set_new(v, "heatmap", h);
    return st == MB_EINVAL || st == MB_ENOMEM ? st : MB_OK;
}

/* The warning compare gives as a recommendation (cmpverdict.c): top-1
 * accuracy within the tolerance while its paired 95% CI reaches below
 * -tolerance, so the samples cannot show it is maintained. */
static void small_n_warning(const json_t *v, double tol, json_t *warnings)
{
    const json_t *acc = json_object_get(v, "accuracy");
    const json_t *ci = json_object_get(acc, "top1_delta_ci95");
    double d = json_number_value(json_object_get(acc, "top1_delta"));
    double lo = json_number_value(json_array_get(ci, 0)),
           hi = json_number_value(json_array_get(ci, 1));
    if (json_array_size(ci) != 2 || d < -tol - 1e-12 || lo >= -tol - 1e-12)
        return;
    json_array_append_new(
        warnings,
        json_sprintf(
            "top-1 accuracy on %s within the tolerance on these "
            "%lld samples (%+.4f), but the paired 95%% CI %+.4f to "
            "%+.4f reaches below -%g: the data cannot show it is "
            "maintained; score more samples",
            json_string_value(json_object_get(acc, "output")),
            (long long)json_integer_value(json_object_get(acc, "samples")), d,
            lo, hi, tol));
}

/* An image folder's class map and the files of the worst samples
 * (folderinfo.h) as v's "image_folder" and the outputs' worst.*.file. */
static mb_status add_folder_info(const char *data_path, json_t *outs, json_t *v,
                                 mb_err *err)
{
    json_t *info = NULL;
    mb_status st = mb__folder_info(data_path, outs, &info, err);
    if (info) {
        json_object_del(info, "files");
        json_object_set_new(v, "image_folder", info);
    }
    return st;
}

mb_status mb__validate_run(const mb__val_req *rq, json_t **doc, mb_err *err)
{
    *doc = NULL;
    mb_status st = check_val_req(rq, err);
    if (st)
        return st;
    const mb__plan *pa = rq->baseline;
    /* Made and tried now, not after the run. */
    st = rq->save_outputs ? mb__mkdirs(rq->save_outputs, err) : MB_OK;
    if (st) {
        mb__fail_prefix(err, "--save-outputs %s", rq->save_outputs);
        return st;
    }
    int64_t *labels = NULL;
    size_t n_labels = 0;
    if (rq->labels &&
        (st = mb__labels_load(rq->labels, &labels, &n_labels, err)))
        return st;
    /* An image folder's class folders are its labels (ImageFolder). */
    mb__val_req with_folders;
    char folder_labels[600];
    size_t n_classes = 0;
    if (!rq->labels && pa->data_path &&
        (st = mb__image_dir_labels(pa->data_path, &labels, &n_labels,
                                   &n_classes, err)))
        return st;
    if (labels && !rq->labels) {
        snprintf(folder_labels, sizeof folder_labels,
                 "%s (the %zu class folders, in sorted order)", pa->data_path,
                 n_classes);
        with_folders = *rq;
        with_folders.labels = folder_labels;
        with_folders.labels_optional = 1;
        rq = &with_folders;
    }
    mb_tensor masks = {0};
    if (rq->masks && (st = mb__npy_read(rq->masks, &masks, err))) {
        mb__fail_prefix(err, "--masks %s", rq->masks);
        free(labels);
        return st;
    }

    outset oa = {0}, ob = {0};
    mb__outpairs pairs = {0};
    mb_tensor *bal = NULL; /* the candidate's outputs, paired */
    json_t *outs = NULL, *v = NULL;
    char source[1100] = "";
    size_t n_samples = 0;
    json_t *rt = NULL; /* the candidate's runtime: its compute precision */
    mb__val_req with_rt;
    if ((st = run_both(rq, &oa, &ob, &pairs, &rt, labels, n_labels,
                       rq->masks ? &masks : NULL, &n_samples, source,
                       sizeof source, err)))
        goto done;
    with_rt = *rq;
    with_rt.runtime = rt;
    rq = &with_rt;
    if (!(bal = aligned(&ob, &pairs))) {
        st = mb__fail(err, MB_ENOMEM, "out of memory");
        goto done;
    }
    if ((st = output_metrics(rq, &oa, bal, &outs, err)))
        goto done;
    v = validation_head(rq, source, n_samples);
    json_object_set_new(v, "output_pairing",
                        pairing_json(rq, &oa, &ob, &pairs));
    if ((st = mb__val_judge(rq, oa.t, bal, oa.n, outs, labels, n_labels,
                            rq->masks ? &masks : NULL, v, err)))
        goto done;
    json_object_set_new(v, "outputs", json_incref(outs));
    if ((st = embed_heatmap(rq->heatmap_sample, oa.t, bal, oa.n, outs, v,
                            err)) ||
        (st = add_folder_info(pa->data_path, outs, v, err)))
        goto done;
    if (rq->save_outputs &&
        ((st = save_outputs(rq->save_outputs, "baseline", &oa, err)) ||
         (st = save_outputs(rq->save_outputs, "candidate", &ob, err))))
        goto done;
    *doc = mb__doc_new("validate", rq->command_line);
    if (!*doc) {
        st = mb__fail(err, MB_ENOMEM, "out of memory");
        goto done;
    }
    if (!pa->data_path)
        json_array_append_new(
            json_object_get(*doc, "warnings"),
            json_sprintf("inputs are random (synthetic): %s; the verdict "
                         "rests on random inputs only",
                         source));
    /* the judge's warnings (a baseline with some NaN/Inf) */
    json_array_extend(json_object_get(*doc, "warnings"),
                      json_object_get(v, "warnings"));
    json_object_del(v, "warnings");
    small_n_warning(v, rq->tolerance, json_object_get(*doc, "warnings"));
    json_object_set_new(*doc, "validation", v);
    v = NULL;
done:
    json_decref(v);
    json_decref(outs);
    json_decref(rt);
    free(bal);
    mb__outpairs_free(&pairs);
    outset_free(&oa);
    outset_free(&ob);
    free(labels);
    mb_tensor_clear(&masks);
    return st;
}
