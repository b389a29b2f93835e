/* cmprun.c - the compare engine (cmprun.h). */
#include "compare/cmprun.h"
#include "backend/registry.h"

#include "core/alloc.h"
#include "core/clock.h"
#include "core/err.h"
#include "core/fileio.h"
#include "accuracy/metrics_json.h"
#include "accuracy/folderinfo.h"
#include "accuracy/heatmap.h"
#include "accuracy/pick.h"
#include "accuracy/valjudge.h"
#include "data/imagedir.h"
#include "data/labels.h"
#include "data/npy.h"
#include "model/onnx.h"
#include "runner/child.h"
#include "compare/compare.h"
#include "runner/replicate.h"
#include "runner/runner.h"

#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The defaults cmprun.h documents; every other member is zero or NULL
 * (the metric options come from their own module). */
static const mb__compare_req compare_defaults = {
    .tolerance = 0.01,
    .threshold = 0.01,
    .alpha = 0.05,
    .timeout_ns = 600000000000LL,
    .heatmap_sample = -1,
};

void mb__compare_req_defaults(mb__compare_req *rq)
{
    *rq = compare_defaults;
    mb__metric_opts_defaults(&rq->metrics);
}

/* What the engine keeps per variant besides its arm. */
typedef struct vstate {
    mb_tensor *outputs; /* concatenated over batches, one per model output */
    size_t n_outputs;
    json_t *accuracy, *agreement, *verdict;
    json_t *pairing; /* how its outputs pair with the baseline's */
    int agreement_pass;
} vstate;

static int rm_entry(const char *path, const struct stat *st, int flag,
                    struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

static mb_status push_output(vstate *v, mb_tensor *t, mb_err *err)
{
    mb_tensor *o = mb__realloc_array(v->outputs, v->n_outputs + 1, sizeof *o);
    if (!o) {
        mb_tensor_clear(t);
        return mb__fail(err, MB_ENOMEM, "out of memory");
    }
    v->outputs = o;
    v->outputs[v->n_outputs++] = *t;
    return MB_OK;
}

/* Concatenates batch files dir/b<i>_o<k>.npy along axis 0 and keeps the
 * first `samples` rows when the outputs are batched. */
static mb_status load_outputs(vstate *v, const char *dir, size_t batches,
                              size_t samples, int64_t batch, mb_err *err)
{
    for (size_t k = 0;; k++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/b%06d_o%02zu.skip", dir, 0, k);
        if (access(path, F_OK) == 0) { /* not a tensor: kept empty */
            mb_tensor none = {0};
            mb_status s = push_output(v, &none, err);
            if (s)
                return s;
            continue;
        }
        snprintf(path, sizeof path, "%s/b%06d_o%02zu.npy", dir, 0, k);
        if (access(path, F_OK) != 0)
            break;
        mb_tensor *parts = mb__calloc(batches, sizeof *parts);
        if (!parts)
            return mb__fail(err, MB_ENOMEM, "out of memory");
        mb_status s = MB_OK;
        size_t rows = 0;
        for (size_t i = 0; i < batches && !s; i++) {
            snprintf(path, sizeof path, "%s/b%06zu_o%02zu.npy", dir, i, k);
            s = mb__npy_read(path, &parts[i], err);
            if (!s && parts[i].rank > 0)
                rows += (size_t)parts[i].dims[0];
        }
        mb_tensor t = {0};
        if (!s) {
            const mb_tensor *p0 = &parts[0];
            int batched = p0->rank > 0 && p0->dims[0] == batch;
            int64_t dims[MB_MAX_RANK];
            memcpy(dims, p0->dims, sizeof dims);
            if (batched && batches > 1)
                dims[0] = (int64_t)(rows < samples ? rows : samples);
            else if (batched && samples < (size_t)batch)
                dims[0] = (int64_t)samples;
            s = mb_tensor_alloc(&t, p0->dtype, p0->rank, dims, p0->name, err);
            size_t row_bytes = p0->rank > 0 && p0->dims[0] > 0
                                   ? p0->nbytes / (size_t)p0->dims[0]
                                   : p0->nbytes;
            size_t off = 0;
            for (size_t i = 0; !s && i < batches && off < t.nbytes; i++) {
                size_t rows_i = parts[i].rank > 0 && parts[i].dims[0] > 0
                                    ? (size_t)parts[i].dims[0]
                                    : 1;
                if (parts[i].dtype != p0->dtype ||
                    parts[i].nbytes / rows_i != row_bytes)
                    break;
                size_t n = parts[i].nbytes;
                if (off + n > t.nbytes)
                    n = t.nbytes - off;
                memcpy((char *)t.data + off, parts[i].data, n);
                off += n;
                if (!batched)
                    break;
            }
        }
        for (size_t i = 0; i < batches; i++)
            mb_tensor_clear(&parts[i]);
        free(parts);
        if (s || (s = push_output(v, &t, err)))
            return s;
    }
    return MB_OK;
}

/* Index of the output read as class scores (top-1 agreement, --labels):
 * the library's one rule (accuracy/pick.h); -1 when none.  The reason is
 * copied to why. */
static int classifier_output(const vstate *v, const char *want, char *why,
                             size_t len)
{
    mb__out_shape *shp =
        mb__calloc(v->n_outputs ? v->n_outputs : 1, sizeof *shp);
    if (!shp)
        return -1;
    mb__out_shapes_from_tensors(v->outputs, v->n_outputs, shp);
    mb__judged j;
    mb_err e = {0};
    mb_status s = mb__judged_output(shp, v->n_outputs, want, &j, &e);
    free(shp);
    if (why)
        snprintf(why, len, "%s", s ? e.msg : j.reason);
    return !s && j.classifier && j.index < v->n_outputs ? (int)j.index : -1;
}

/* The metrics of every output of v against base (per_sample dropped);
 * outputs that are not tensors are marked skipped. */
static json_t *output_metrics(const vstate *v, const vstate *base,
                              const mb__compare_req *rq, size_t n)
{
    json_t *outs = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *m = NULL;
        mb_err e = {0};
        if (!base->outputs[i].data || !v->outputs[i].data) {
            m = json_pack("{s:s}", "skipped",
                          "not a tensor (a sequence or map): not compared");
        } else if (mb__metrics_compute(&base->outputs[i], &v->outputs[i],
                                       &rq->metrics, &m, &e)) {
            m = json_pack("{s:s}", "error", e.msg);
        } else {
            json_object_del(m, "per_sample");
        }
        const char *bn = base->outputs[i].name ? base->outputs[i].name : "",
                   *vn = v->outputs[i].name;
        json_object_set_new(m, "name", json_string(bn));
        if (vn && strcmp(vn, bn))
            json_object_set_new(m, "candidate_name", json_string(vn));
        json_array_append_new(outs, m);
    }
    return outs;
}

/* The verdict of variant v against base: validate's judge (valjudge.h)
 * on every output, with the labels when given, the gates of rq or the
 * defaults of the variant's weight precision (its run's params_by_dtype,
 * the one rule of validate and compare).  Fills v->agreement (the metrics
 * of every output, top-1 agreement of the class scores, the gates) and
 * v->verdict; MB_EDATA when labels have no output to score. */
static mb_status judge_variant(vstate *v, const json_t *run, const vstate *base,
                               const mb__compare_req *rq, const mb__plan *bp,
                               const mb__plan *vp, const int64_t *labels,
                               size_t n_labels, const char *labels_what,
                               mb_err *err)
{
    size_t n = base->n_outputs; /* paired: v's outputs are in its order */
    json_t *outs = output_metrics(v, base, rq, n);
    mb__val_req vr;
    mb__val_req_defaults(&vr);
    vr.baseline = bp;
    vr.candidate = vp;
    vr.labels = labels ? labels_what : NULL;
    vr.output = rq->output;
    vr.tolerance = rq->tolerance;
    vr.metrics = rq->metrics;
    vr.n_gates =
        rq->n_gates < MB__VAL_MAX_GATES ? rq->n_gates : MB__VAL_MAX_GATES;
    if (vr.n_gates)
        memcpy(vr.gates, rq->gates, vr.n_gates * sizeof *vr.gates);
    vr.weights =
        json_object_get(json_object_get(run, "model"), "params_by_dtype");
    vr.runtime = json_object_get(run, "runtime");
    json_t *vj = json_object();
    mb_status st = mb__val_judge(&vr, base->outputs, v->outputs, n, outs,
                                 labels, n_labels, NULL, vj, err);
    if (st) {
        json_decref(vj);
        json_decref(outs);
        return st;
    }
    v->agreement = json_object();
    const json_t *oc = json_object_get(vj, "output_choice");
    if (json_is_true(json_object_get(oc, "classifier")))
        json_object_set(
            v->agreement, "top1",
            json_object_get(
                json_array_get(outs, (size_t)json_integer_value(
                                         json_object_get(oc, "index"))),
                "top1_agreement"));
    json_object_set_new(v->agreement, "outputs", outs);
    json_object_set(v->agreement, "gates", json_object_get(vj, "gates"));
    json_object_set(v->agreement, "precision",
                    json_object_get(vj, "precision"));
    v->agreement_pass = json_is_true(json_object_get(vj, "passed"));
    static const char *const keep[] = {
        "passed",           "rule",     "precision", "precision_reason",
        "precision_source", "accuracy", "criteria",  "per_output"};
    v->verdict = json_object();
    for (size_t k = 0; k < sizeof keep / sizeof *keep; k++)
        json_object_set(v->verdict, keep[k], json_object_get(vj, keep[k]));
    json_object_set(v->verdict, "output_pairing",
                    v->pairing ? v->pairing : json_null());
    json_decref(vj);
    return MB_OK;
}

/* name as one file name inside --save-outputs: '/', '\\' and control
 * characters become '_', a leading '.' gets a '_' before it (so neither
 * "../../escape" nor ".." leaves the folder), at most 200 bytes. */
static void safe_file_name(char *dst, size_t cap, const char *name)
{
    size_t o = 0;
    if (!name || !*name)
        name = "_";
    if (name[0] == '.')
        dst[o++] = '_';
    for (; *name && o + 1 < cap && o < 200; name++) {
        unsigned char c = (unsigned char)*name;
        dst[o++] =
            (c == '/' || c == '\\' || c < 0x20 || c == 0x7f) ? '_' : (char)c;
    }
    dst[o] = '\0';
}

static mb_status save_outputs(const char *root, const mb__compare_req *rq,
                              const vstate *vs, mb_err *err)
{
    mb_status ms = mb__mkdirs(root, err);
    if (ms)
        return ms;
    for (size_t i = 0; i < rq->n; i++) {
        char dir[4096], leaf[256];
        safe_file_name(leaf, sizeof leaf, rq->variants[i].name);
        snprintf(dir, sizeof dir, "%s/%s", root, leaf);
        mkdir(dir, 0755);
        for (size_t k = 0; k < vs[i].n_outputs; k++) {
            if (!vs[i].outputs[k].data)
                continue;
            char path[8192];
            snprintf(path, sizeof path, "%s/%s.npy", dir,
                     vs[i].outputs[k].name ? vs[i].outputs[k].name : "output");
            for (char *p = path + strlen(dir) + 1; *p; p++)
                if (*p == '/')
                    *p = '_';
            mb_status s = mb__npy_write(path, &vs[i].outputs[k], err);
            if (s)
                return s;
        }
    }
    return MB_OK;
}

static void on_round(void *user, size_t round, size_t rounds,
                     int64_t elapsed_ns)
{
    const mb__compare_req *rq = user;
    if (rq->progress)
        rq->progress(rq->progress_user, "measuring", round, rounds, elapsed_ns);
}

/* Collects outputs and RUN objects of the processes kept open (n_arms
 * arms, each at its own batch size). */
static void collect(mb__arm *arms, vstate *vs, size_t n_arms,
                    const mb__compare_req *rq, int cancelled)
{
    char tmpdir[] = "/tmp/mbench-compare.XXXXXX";
    int have_tmp = !cancelled && mkdtemp(tmpdir) != NULL;
    for (size_t i = 0; i < n_arms; i++) {
        mb__arm *a = &arms[i];
        if (a->error || !a->child)
            continue;
        mb_err e = {0};
        if (have_tmp) {
            char dir[4096];
            snprintf(dir, sizeof dir, "%s/v%zu", tmpdir, i);
            mkdir(dir, 0700);
            size_t nb = 0, ns = 0;
            if (mb__child_outputs(a->child, dir, rq->timeout_ns, &nb, &ns,
                                  &e) ||
                load_outputs(&vs[i], dir, nb, ns, a->batch, &e)) {
                mb__arm_fail(a, &e);
                continue;
            }
        }
        if (mb__arm_finish(a, rq->timeout_ns, &e))
            mb__arm_fail(a, &e);
    }
    if (have_tmp)
        nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* --output NAME must name an output of the baseline model: checked
 * before measuring, from the ONNX file (other models are checked when the
 * outputs are there). */
static mb_status check_output_name(const mb__plan *p, const char *want,
                                   mb_err *err)
{
    json_t *info = NULL;
    mb_err e = {0};
    if (!want || !p->model_path || mb__onnx_inspect(p->model_path, &info, &e))
        return MB_OK;
    const json_t *outs = json_object_get(info, "outputs"), *o;
    size_t i;
    char names[512] = "";
    size_t len = 0;
    int found = 0;
    json_array_foreach(outs, i, o)
    {
        const char *nm = json_string_value(json_object_get(o, "name"));
        found |= nm && !strcmp(nm, want);
        if (nm && len < sizeof names)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%s",
                                    len ? ", " : "", nm);
    }
    mb_status s = found || !json_array_size(outs)
                      ? MB_OK
                      : mb__fail(err, MB_EINVAL,
                                 "--output %s: the model has no output of that "
                                 "name; its outputs are: %s",
                                 want, names);
    json_decref(info);
    return s;
}

/* What mb__compare_run's phases share: the request, the arms (one per
 * (batch, variant), batch-major, so that arms [b*n, b*n+n) are one
 * comparison), their outputs and the document being built. */
typedef struct cmp_ctx {
    const mb__compare_req *rq;
    const int64_t *batches; /* the batch sizes of the first variant */
    size_t nb, n, na;       /* batch sizes, variants, arms (nb * n) */
    int64_t *labels;        /* --labels or the image folder's; owned */
    size_t n_labels;
    char folder_labels[600];
    const char *labels_what; /* how the labels are named in messages */
    int k, used;             /* processes asked for, processes used */
    int64_t start_ns;
    int cancelled;
    int co; /* the judged output of the baseline, or -1 */
    mb__arm *arms;
    vstate *vs;
    mb__cmp_variant *cv;
    json_t *doc, *runs; /* runs borrowed from doc */
} cmp_ctx;

/* Every variant at every batch size of the first: fills c->batches, nb
 * and na; MB_EINVAL when the sizes differ or there are too many. */
static mb_status plan_arms(cmp_ctx *c, mb_err *err)
{
    static const int64_t one = 1;
    const mb__compare_req *rq = c->rq;
    const mb__plan *p0 = rq->variants[0].plan;
    c->batches = p0->n_batches ? p0->batches : &one;
    c->nb = p0->n_batches ? p0->n_batches : 1;
    c->n = rq->n;
    for (size_t i = 1; i < c->n; i++) {
        const mb__plan *p = rq->variants[i].plan;
        size_t pn = p->n_batches ? p->n_batches : 1;
        const int64_t *pb = p->n_batches ? p->batches : &one;
        if (pn != c->nb || memcmp(pb, c->batches, c->nb * sizeof *pb))
            return mb__fail(err, MB_EINVAL,
                            "variant %s has other batch sizes than %s: "
                            "compare measures every variant at the same "
                            "sizes; give --batch once for all",
                            rq->variants[i].name ? rq->variants[i].name : "?",
                            rq->variants[0].name ? rq->variants[0].name
                                                 : "the first");
    }
    if (c->nb > SIZE_MAX / c->n)
        return mb__fail(err, MB_EINVAL, "too many batch sizes");
    c->na = c->nb * c->n;
    return MB_OK;
}

/* The output names of an ONNX file as outpair.h takes them, into *names
 * (strings borrowed from *info, which the caller frees); 0 when the model
 * is not an ONNX file or cannot be read now (checked after the run). */
static size_t onnx_out_names(const mb__plan *p, json_t **info,
                             mb__outname **names)
{
    mb_err e = {0};
    *info = NULL;
    *names = NULL;
    size_t L = p->model_path ? strlen(p->model_path) : 0;
    if (L < 5 || strcmp(p->model_path + L - 5, ".onnx") ||
        mb__onnx_inspect(p->model_path, info, &e))
        return 0;
    const json_t *outs = json_object_get(*info, "outputs"), *o;
    size_t n = json_array_size(outs), i;
    *names = mb__calloc(n + 1, sizeof **names);
    if (!*names)
        return 0;
    json_array_foreach(outs, i, o)(*names)[i].name =
        json_string_value(json_object_get(o, "name"));
    return n;
}

/* Outputs that cannot pair (outpair.h) fail before anything is measured,
 * when the baseline and a variant are ONNX files. */
static mb_status check_pairs(const mb__compare_req *rq, mb_err *err)
{
    json_t *ia;
    mb__outname *na;
    size_t ca = onnx_out_names(rq->variants[rq->baseline].plan, &ia, &na);
    mb_status st = MB_OK;
    for (size_t i = 0; ca && !st && i < rq->n; i++) {
        json_t *ib;
        mb__outname *nb;
        size_t cb = onnx_out_names(rq->variants[i].plan, &ib, &nb);
        char wa[300], wb[300];
        snprintf(wa, sizeof wa, "the baseline %s",
                 rq->variants[rq->baseline].name);
        snprintf(wb, sizeof wb, "variant %s", rq->variants[i].name);
        mb__pair_req pr = {na, nb, ca, cb, rq->maps, rq->n_maps, wa, wb, 1};
        mb__outpairs p;
        if (i != rq->baseline && cb && !(st = mb__outputs_pair(&pr, &p, err)))
            mb__outpairs_free(&p);
        free(nb);
        json_decref(ib);
    }
    free(na);
    json_decref(ia);
    return st;
}

/* A missing model file fails now, not after the other variants have been
 * measured for minutes; so does --output naming no output. */
static mb_status check_models(const mb__compare_req *rq, mb_err *err)
{
    for (size_t i = 0; i < rq->n; i++) {
        const mb__plan *p = rq->variants[i].plan;
        mb_err e = {0};
        const mb_backend *be = mb_backend_find(mb__plan_backend(p), &e);
        char what[300];
        snprintf(what, sizeof what, "variant %s: model file",
                 rq->variants[i].name ? rq->variants[i].name : "?");
        mb_status ms;
        if (be && (mb__backend_caps(be) & MB_BACKEND_CAP_MODEL_FILE) &&
            p->model_path &&
            (ms = mb__model_file_check(p->model_path, what, err)))
            return ms;
    }
    mb_status st =
        check_output_name(rq->variants[rq->baseline].plan, rq->output, err);
    return st ? st : check_pairs(rq, err);
}

/* The labels of --labels or, without it, an image folder's class folders
 * (ImageFolder); none is not an error. */
static mb_status load_labels(cmp_ctx *c, mb_err *err)
{
    const mb__compare_req *rq = c->rq;
    if (rq->labels_path &&
        mb__labels_load(rq->labels_path, &c->labels, &c->n_labels, err))
        return err->code ? err->code : MB_EIO;
    size_t n_classes = 0;
    const char *data0 = rq->variants[rq->baseline].plan->data_path;
    mb_status ls = !c->labels
                       ? mb__image_dir_labels(data0, &c->labels, &c->n_labels,
                                              &n_classes, err)
                       : MB_OK;
    if (ls)
        return ls;
    if (c->labels && !rq->labels_path)
        snprintf(c->folder_labels, sizeof c->folder_labels,
                 "%s (the %zu class folders, in sorted order)", data0,
                 n_classes);
    c->labels_what = rq->labels_path ? rq->labels_path : c->folder_labels;
    return MB_OK;
}

/* The samples of a single-input model's .npy data whose rank is the
 * input's (its leading dim), else 0 (not known before the children load
 * the data). */
static size_t npy_samples(const char *data, const json_t *info)
{
    const json_t *ins = json_object_get(info, "inputs");
    size_t L = data ? strlen(data) : 0;
    if (json_array_size(ins) != 1 || L < 5 || strcmp(data + L - 4, ".npy"))
        return 0;
    mb_tensor t = {0};
    void *map = NULL;
    size_t len = 0, n = 0;
    mb_err e = {0};
    if (mb__npy_map(data, &t, &map, &len, &e))
        return 0;
    if (t.rank > 0 && (size_t)t.rank == json_array_size(json_object_get(
                                            json_array_get(ins, 0), "shape")))
        n = (size_t)t.dims[0];
    mb__npy_unmap(&t, map, len);
    return n;
}

/* Labels against the baseline's class-score output (its class count from
 * the ONNX file) and, where the data tells, the sample count: before
 * anything is measured. */
static mb_status check_labels(cmp_ctx *c, mb_err *err)
{
    const mb__compare_req *rq = c->rq;
    const mb__plan *p = rq->variants[rq->baseline].plan;
    json_t *info = NULL;
    mb_err e = {0};
    size_t L = p->model_path ? strlen(p->model_path) : 0;
    if (!c->labels || L < 5 || strcmp(p->model_path + L - 5, ".onnx") ||
        mb__onnx_inspect(p->model_path, &info, &e))
        return MB_OK;
    const json_t *outs = json_object_get(info, "outputs"), *o;
    size_t n = json_array_size(outs), i;
    mb__out_shape *shp = mb__calloc(n + 1, sizeof *shp);
    int64_t(*dims)[MB_MAX_RANK] = mb__calloc(n + 1, sizeof *dims);
    mb_status st = MB_OK;
    json_array_foreach(outs, i, o)
    {
        if (!shp || !dims)
            break;
        const json_t *sh = json_object_get(o, "shape");
        size_t r = json_array_size(sh);
        shp[i] = (mb__out_shape){
            json_string_value(json_object_get(o, "name")),
            mb_dtype_parse(json_string_value(json_object_get(o, "dtype"))),
            json_is_array(sh) && r <= MB_MAX_RANK ? (int)r : -1, dims[i]};
        for (size_t k = 0; k < r && k < MB_MAX_RANK; k++)
            dims[i][k] = json_is_integer(json_array_get(sh, k))
                             ? json_integer_value(json_array_get(sh, k))
                             : -1;
    }
    char what[700];
    snprintf(what, sizeof what, "%s%s", rq->labels_path ? "--labels " : "",
             c->labels_what);
    if (shp && dims)
        st = mb__val_labels_check(c->labels, c->n_labels,
                                  npy_samples(p->data_path, info), shp, n,
                                  rq->output, what, err);
    free(shp);
    free(dims);
    json_decref(info);
    return st;
}

/* Runs every arm in interleaved rounds and collects its outputs; with
 * fail_fast the first failed arm is MB_ECHILD. */
static mb_status measure(cmp_ctx *c, mb_err *err)
{
    const mb__compare_req *rq = c->rq;
    c->k = rq->processes > 0 ? rq->processes : MB_DEFAULT_PROCESSES;
    for (size_t i = 0; i < rq->n; i++) { /* a process measures >= 1 */
        int64_t f = rq->variants[i].plan->fixed_iters;
        if (f > 0 && f < c->k)
            c->k = (int)f;
    }
    c->arms = mb__calloc(c->na, sizeof *c->arms);
    c->vs = mb__calloc(c->na, sizeof *c->vs);
    c->cv = mb__calloc(c->na, sizeof *c->cv);
    if (!c->arms || !c->vs || !c->cv)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    for (size_t j = 0; j < c->na; j++) {
        c->arms[j].plan = rq->variants[j % c->n].plan;
        c->arms[j].batch = c->batches[j / c->n];
    }
    if (rq->progress)
        rq->progress(rq->progress_user, "loading", 0, (size_t)c->k, 0);
    c->used = c->k;
    mb__repl_opts o =
        mb__repl_opts_for(c->k, rq->processes, &c->used, rq->cancel);
    o.timeout_ns = rq->timeout_ns;
    o.fail_fast = rq->fail_fast;
    o.keep_last = 1;
    o.round_start_ns = &c->start_ns;
    o.progress = on_round;
    o.progress_user = (void *)rq;
    mb_status rc = mb__replicate(c->arms, c->na, &o, err);
    if (rc)
        return rc;
    c->cancelled = rq->cancel && *rq->cancel;
    collect(c->arms, c->vs, c->na, rq, c->cancelled);
    for (size_t j = 0; rq->fail_fast && j < c->na; j++)
        if (c->arms[j].error)
            return mb__fail(err, MB_ECHILD, "variant %s FAILED: %s",
                            rq->variants[j % c->n].name, c->arms[j].error);
    return MB_OK;
}

/* The document with a RUN object per arm (a failed one says why); the
 * output tensors take the model's output names. */
static void add_runs(cmp_ctx *c)
{
    const mb__compare_req *rq = c->rq;
    c->doc = mb__doc_new("compare", rq->command_line);
    c->runs = json_object_get(c->doc, "runs");
    for (size_t i = 0; i < c->na; i++) {
        mb__arm *a = &c->arms[i];
        vstate *v = &c->vs[i];
        if (a->error || !a->run) {
            json_array_append_new(
                c->runs, json_pack("{s:s,s:s,s:s,s:I}", "status", "failed",
                                   "variant", rq->variants[i % c->n].name,
                                   "error", a->error ? a->error : "interrupted",
                                   "batch_size", (json_int_t)a->batch));
            continue;
        }
        json_t *run =
            mb__arm_run_json(a,
                             c->cancelled           ? "interrupted"
                             : a->plan->fixed_iters ? "fixed_iterations"
                                                    : "fixed_budget",
                             1);
        if (c->cancelled)
            json_object_set_new(run, "status", json_string("interrupted"));
        for (size_t o2 = 0; o2 < v->n_outputs; o2++) {
            const char *nm = json_string_value(json_object_get(
                json_array_get(json_object_get(run, "outputs"), o2), "name"));
            if (nm) {
                free(v->outputs[o2].name);
                v->outputs[o2].name = mb__strdup(nm);
            }
        }
        json_array_append_new(c->runs, run);
    }
}

/* The names of n outputs for outpair.h (borrowed from t); NULL when
 * memory runs out.  extra: room for as many more. */
static mb__outname *out_names(const mb_tensor *t, size_t n, size_t extra)
{
    mb__outname *o = mb__calloc(n + extra + 1, sizeof *o);
    for (size_t i = 0; o && i < n; i++)
        o[i].name = t[i].name;
    return o;
}

/* Pairs v's outputs with base's (outpair.h: validate's and diff's rule)
 * and puts them in base's order; v->pairing says how they paired. */
static mb_status pair_variant(vstate *v, const vstate *base, const char *bname,
                              const char *vname, const mb__compare_req *rq,
                              mb_err *err)
{
    size_t na = base->n_outputs, nb = v->n_outputs;
    mb__outname *nms = out_names(base->outputs, na, nb);
    mb_tensor *o = mb__calloc(na ? na : 1, sizeof *o);
    if (!nms || !o) {
        free(nms);
        free(o);
        return mb__fail(err, MB_ENOMEM, "out of memory");
    }
    for (size_t j = 0; j < nb; j++)
        nms[na + j].name = v->outputs[j].name;
    char wa[300], wb[300];
    snprintf(wa, sizeof wa, "the baseline %s", bname);
    snprintf(wb, sizeof wb, "variant %s", vname);
    mb__pair_req pr = {nms, nms + na, na, nb, rq->maps, rq->n_maps, wa, wb, 1};
    mb__outpairs p;
    mb_status st = mb__outputs_pair(&pr, &p, err);
    if (!st) {
        v->pairing = mb__outpairs_json(&pr, &p);
        for (size_t i = 0; i < na; i++)
            o[i] = v->outputs[p.cand[i]];
        free(v->outputs);
        v->outputs = o;
        o = NULL;
        mb__outpairs_free(&p);
    }
    free(o);
    free(nms);
    return st;
}

/* Every variant's outputs paired with the baseline's at its batch size
 * (by name; a missing or extra output is an error naming the variant). */
static mb_status pair_variants(cmp_ctx *c, mb_err *err)
{
    const mb__compare_req *rq = c->rq;
    size_t n = c->n;
    for (size_t b = 0; b < c->nb; b++) {
        size_t bj = b * n + rq->baseline;
        if (c->arms[bj].error)
            continue;
        for (size_t i = b * n; i < b * n + n; i++) {
            if (i == bj || c->arms[i].error || !c->vs[i].n_outputs)
                continue;
            mb_status st = pair_variant(&c->vs[i], &c->vs[bj],
                                        rq->variants[rq->baseline].name,
                                        rq->variants[i % n].name, rq, err);
            if (st)
                return st;
        }
    }
    return MB_OK;
}

/* The judged output (the rule chosen on the baseline) and the accuracy of
 * every arm against the labels on it; MB_EDATA when they do not fit. */
static mb_status score_labels(cmp_ctx *c, mb_err *err)
{
    const mb__compare_req *rq = c->rq;
    size_t bi = rq->baseline;
    const vstate *b = &c->vs[bi];
    char why[600] = "";
    c->co = c->arms[bi].error
                ? -1
                : classifier_output(b, rq->output, why, sizeof why);
    if (!c->arms[bi].error)
        json_object_set_new(
            c->doc, "judged_output",
            json_pack("{s:o,s:s,s:b,s:o}", "name",
                      c->co >= 0 && b->outputs[c->co].name
                          ? json_string(b->outputs[c->co].name)
                          : json_null(),
                      "reason", why, "requested", rq->output != NULL, "output",
                      rq->output ? json_string(rq->output) : json_null()));
    for (size_t i = 0; c->labels && c->co >= 0 && i < c->na; i++) {
        vstate *v = &c->vs[i];
        if (c->arms[i].error || (size_t)c->co >= v->n_outputs ||
            !v->outputs[c->co].data)
            continue;
        const mb_tensor *t = &v->outputs[c->co];
        double t1, t5;
        if (mb__topk_accuracy(t, c->labels, c->n_labels, &t1, &t5, err)) {
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%s", err->msg);
            return mb__fail(err, MB_EDATA, "--labels %s: %s", c->labels_what,
                            msg);
        }
        v->accuracy = json_pack("{s:f,s:f,s:I,s:s}", "top1", t1, "top5", t5,
                                "samples", (json_int_t)c->n_labels, "output",
                                t->name ? t->name : "");
    }
    return MB_OK;
}

/* What a variant's agreement shows besides the verdict: the heat map of
 * the output that differs most (heatmap.h) and, on an image folder
 * (folder, from mb__folder_info, or NULL), the files of the worst
 * samples.  MB_EINVAL for a heatmap sample outside the output. */
static mb_status variant_extras(vstate *v, const vstate *base, int64_t sample,
                                const json_t *folder, mb_err *err)
{
    if (!v->agreement)
        return MB_OK;
    json_t *outs = json_object_get(v->agreement, "outputs"), *heat = NULL;
    size_t n = v->n_outputs < base->n_outputs ? v->n_outputs : base->n_outputs;
    mb_status st = mb__heatmap_embed(base->outputs, v->outputs, n, outs, NULL,
                                     sample, &heat, err);
    if (heat)
        json_object_set_new(v->agreement, "heatmap", heat);
    mb__folder_worst_files(folder, outs);
    /* a heat map that cannot be drawn is no failure of the variant */
    return st == MB_EINVAL || st == MB_ENOMEM ? st : MB_OK;
}

/* The verdict of each variant against the baseline at the same batch
 * size: every output and the labels, as validate judges them; a failure
 * names the variant. */
static mb_status judge_variants(cmp_ctx *c, mb_err *err)
{
    const mb__compare_req *rq = c->rq;
    size_t n = c->n;
    /* an image folder: its class map, the files of the worst samples */
    json_t *folder = NULL;
    mb_status fs = mb__folder_info(rq->variants[rq->baseline].plan->data_path,
                                   NULL, &folder, err);
    if (fs)
        return fs;
    for (size_t b = 0; b < c->nb; b++) {
        size_t bj = b * n + rq->baseline;
        if (c->arms[bj].error)
            continue;
        for (size_t i = b * n; i < b * n + n; i++) {
            vstate *v = &c->vs[i];
            if (i == bj || c->arms[i].error || !v->n_outputs)
                continue;
            mb_status rc = judge_variant(
                v, json_array_get(c->runs, i), &c->vs[bj], rq, c->arms[bj].plan,
                c->arms[i].plan, c->co >= 0 ? c->labels : NULL, c->n_labels,
                c->labels_what, err);
            if (!rc)
                rc = variant_extras(v, &c->vs[bj], rq->heatmap_sample, folder,
                                    err);
            if (rc) {
                json_decref(folder);
                mb__fail_prefix(err, "variant %s", rq->variants[i % n].name);
                return rc;
            }
            /* the paired interval of the accuracy difference */
            const json_t *va = json_object_get(v->verdict, "accuracy");
            if (v->accuracy && json_is_object(va)) {
                json_object_set(v->accuracy, "delta_top1_ci95",
                                json_object_get(va, "top1_delta_ci95"));
                json_object_set(v->accuracy, "paired",
                                json_object_get(va, "paired"));
            }
        }
    }
    if (folder) {
        json_object_del(folder, "files");
        json_object_set_new(c->doc, "image_folder", folder);
    }
    return MB_OK;
}

/* One comparison per batch size; "comparison" is the first's. */
static void add_comparisons(cmp_ctx *c)
{
    const mb__compare_req *rq = c->rq;
    for (size_t i = 0; i < c->na; i++) {
        mb__arm *a = &c->arms[i];
        vstate *v = &c->vs[i];
        c->cv[i] =
            (mb__cmp_variant){rq->variants[i % c->n].name,
                              a->error,
                              a->samples,
                              a->n,
                              a->proc_n,
                              a->k,
                              a->error ? NULL : json_array_get(c->runs, i),
                              v->accuracy,
                              v->agreement,
                              v->agreement ? v->agreement_pass : -1,
                              v->verdict};
    }
    mb__cmp_opts copts = {rq->tolerance, rq->alpha, rq->threshold,
                          c->arms[0].plan->data_path == NULL, c->cancelled};
    json_t *cmps = json_array();
    for (size_t b = 0; b < c->nb; b++) {
        json_t *cmp =
            mb__compare_analyze(c->cv + b * c->n, c->n, rq->baseline, &copts);
        json_object_set_new(cmp, "batch_size", json_integer(c->batches[b]));
        json_array_append_new(cmps, cmp);
    }
    json_object_set(c->doc, "comparison", json_array_get(cmps, 0));
    json_object_set_new(c->doc, "comparisons", cmps);
}

/* The warnings of one arm's replication: noisy from process to process,
 * or settled in two modes. */
static void warn_replication(const cmp_ctx *c, size_t i, json_t *warn)
{
    const char *name = c->rq->variants[i % c->n].name;
    const json_t *rep =
        json_object_get(json_array_get(c->runs, i), "replication");
    char at[48] = "";
    if (c->nb > 1)
        snprintf(at, sizeof at, " at batch %" PRId64, c->arms[i].batch);
    double rcv = json_number_value(json_object_get(rep, "run_to_run_cv"));
    if (json_is_number(json_object_get(rep, "run_to_run_cv")) && rcv > 0.05) {
        char w[300];
        snprintf(w, sizeof w,
                 "%s%s is noisy from process to process "
                 "(run-to-run CV %.1f%% over %d processes): the CIs are "
                 "wide; pin threads (threads=1), close other programs or "
                 "add --processes",
                 name, at, rcv * 100,
                 (int)json_integer_value(json_object_get(rep, "processes")));
        json_array_append_new(warn, json_string(w));
    }
    const json_t *md = json_object_get(rep, "modes");
    if (json_is_object(md)) {
        char w[300];
        const json_t *f = json_object_get(md, "fast"),
                     *sl = json_object_get(md, "slow");
        snprintf(w, sizeof w,
                 "%s%s: processes settle in two modes: %" JSON_INTEGER_FORMAT
                 " at about %.4g ms, %" JSON_INTEGER_FORMAT " at about %.4g ms",
                 name, at, json_integer_value(json_object_get(f, "processes")),
                 json_number_value(json_object_get(f, "median")) / 1e6,
                 json_integer_value(json_object_get(sl, "processes")),
                 json_number_value(json_object_get(sl, "median")) / 1e6);
        json_array_append_new(warn, json_string(w));
    }
}

/* A run's intra-op threads as its runtime reports them (runtime.threads,
 * a number or a string of digits), or -1 when it reports none. */
static long run_threads(const json_t *run)
{
    const json_t *t =
        json_object_get(json_object_get(run, "runtime"), "threads");
    if (json_is_integer(t))
        return (long)json_integer_value(t);
    const char *s = json_string_value(t);
    char *end;
    long v = s && *s ? strtol(s, &end, 10) : -1;
    return s && *s && !*end && v >= 0 ? v : -1;
}

/* Frameworks compared at different intra-op thread counts (Python models
 * all take --threads, or the same default: docs/FRAMEWORKS.md); one
 * warning naming each variant's count at the first batch size where they
 * differ. */
static void warn_threads(const cmp_ctx *c, json_t *warn)
{
    for (size_t b = 0; b < c->nb; b++) {
        char w[600];
        int off = 0, differ = 0;
        long first = -1;
        for (size_t v = 0; v < c->n; v++) {
            long t = run_threads(json_array_get(c->runs, b * c->n + v));
            if (t < 0)
                continue;
            if (first >= 0 && t != first)
                differ = 1;
            if (first < 0)
                first = t;
            if (off < (int)sizeof w - 80)
                off += snprintf(w + off, sizeof w - (size_t)off, "%s%s %ld",
                                off ? ", " : "", c->rq->variants[v].name, t);
        }
        if (!differ)
            continue;
        char msg[800];
        snprintf(msg, sizeof msg,
                 "THREADS DIFFER: the variants ran different intra-op thread "
                 "counts (%s): the latencies compare thread pools as well as "
                 "frameworks; give --threads N (every framework takes it)",
                 w);
        json_array_append_new(warn, json_string(msg));
        return;
    }
}

/* Built-in models (torchvision:, flax:) with different weights: random
 * weights of two frameworks are two functions, so their agreement says
 * nothing.  runtime.model_weights says where each variant's came from. */
static void warn_weights(const cmp_ctx *c, json_t *warn)
{
    const json_t *r0 = json_array_get(c->runs, c->rq->baseline);
    const char *w0 = json_string_value(
        json_object_get(json_object_get(r0, "runtime"), "model_weights"));
    for (size_t v = 0; w0 && v < c->n; v++) {
        const json_t *m =
            json_object_get(json_array_get(c->runs, v), "runtime");
        const char *w = json_string_value(json_object_get(m, "model_weights"));
        if (v == c->rq->baseline || !w || !strcmp(w, w0) ||
            (strncmp(w, "random", 6) && strncmp(w0, "random", 6)))
            continue;
        char msg[1200];
        snprintf(msg, sizeof msg,
                 "DIFFERENT WEIGHTS: %s has %s, %s has %s: two functions, so "
                 "their agreement says nothing of the frameworks; share one "
                 "set: python -m mbench.models export torchvision:NAME w.npz "
                 "(in the torch environment), then weights=w.npz on both "
                 "variants (docs/FRAMEWORKS.md, \"Agreement across "
                 "frameworks\")",
                 c->rq->variants[c->rq->baseline].name, w0,
                 c->rq->variants[v].name, w);
        json_array_append_new(warn, json_string(msg));
    }
}

/* The document's warnings: random inputs, noisy or bimodal arms, one
 * process, an interruption, fewer processes or a changed load. */
static void add_warnings(cmp_ctx *c)
{
    json_t *warn = json_object_get(c->doc, "warnings");
    if (!c->arms[0].plan->data_path)
        json_array_append_new(
            warn, json_string("RANDOM INPUTS ONLY: every variant saw the same "
                              "seeded synthetic inputs; latency is "
                              "representative, but output agreement on random "
                              "data says little about accuracy; use --data "
                              "and --labels"));
    for (size_t i = 0; i < c->na; i++)
        warn_replication(c, i, warn);
    /* the judge's (a baseline with some NaN/Inf), once each */
    for (size_t i = 0; i < c->na; i++) {
        size_t k, j;
        const json_t *w, *x;
        json_array_foreach(json_object_get(c->vs[i].verdict, "warnings"), k, w)
        {
            int seen = 0;
            json_array_foreach(warn, j, x) seen |= json_equal(w, x);
            if (!seen)
                json_array_append(warn, (json_t *)w);
        }
    }
    warn_threads(c, warn);
    warn_weights(c, warn);
    if (c->used < 2)
        json_array_append_new(
            warn, json_string("ONE PROCESS PER VARIANT: the intervals cover "
                              "within-run noise only, and no speed "
                              "difference is claimed; use --processes 40 or "
                              "more"));
    if (c->cancelled) {
        char w[400];
        snprintf(w, sizeof w,
                 "INTERRUPTED after %zu of %d rounds: the figures, intervals "
                 "and verdicts are of the rounds that finished, not of the "
                 "planned measurement; mbench gate refuses this document",
                 c->arms[0].n_rounds, c->used);
        json_array_append_new(warn, json_string(w));
        json_object_set_new(c->doc, "interrupted", json_true());
    }
    mb__warn_processes_lowered(c->doc, c->k, c->used, c->start_ns);
    mb__warn_load_changed(c->doc, c->arms[0].rounds, c->arms[0].n_rounds);
}

static void cmp_ctx_clear(cmp_ctx *c)
{
    json_decref(c->doc);
    for (size_t i = 0; c->vs && i < c->na; i++) {
        for (size_t k2 = 0; k2 < c->vs[i].n_outputs; k2++)
            mb_tensor_clear(&c->vs[i].outputs[k2]);
        free(c->vs[i].outputs);
        json_decref(c->vs[i].accuracy);
        json_decref(c->vs[i].agreement);
        json_decref(c->vs[i].verdict);
        json_decref(c->vs[i].pairing);
    }
    for (size_t i = 0; c->arms && i < c->na; i++)
        mb__arm_clear(&c->arms[i]);
    free(c->arms);
    free(c->vs);
    free(c->cv);
    free(c->labels);
}

mb_status mb__compare_run(const mb__compare_req *rq, json_t **doc_out,
                          mb_err *err)
{
    *doc_out = NULL;
    if (rq->n < 2)
        return mb__fail(err, MB_EINVAL,
                        "compare needs at least two variants (NAME=MODEL "
                        "...), got %zu",
                        rq->n);
    if (rq->baseline >= rq->n)
        return mb__fail(err, MB_EINVAL,
                        "the baseline index %zu names no "
                        "variant",
                        rq->baseline);
    cmp_ctx c = {.rq = rq, .co = -1};
    mb_status rc;
    if ((rc = plan_arms(&c, err)) || (rc = check_models(rq, err)) ||
        (rc = load_labels(&c, err)) || (rc = check_labels(&c, err)) ||
        (rc = measure(&c, err)))
        goto done;
    add_runs(&c);
    /* Accuracy against labels, agreement with the baseline. */
    if ((rc = pair_variants(&c, err)) || (rc = score_labels(&c, err)) ||
        (rc = judge_variants(&c, err)))
        goto done;
    add_comparisons(&c);
    add_warnings(&c);
    if (rq->save_outputs &&
        (rc = save_outputs(rq->save_outputs, rq, c.vs, err)))
        goto done;
    *doc_out = c.doc;
    c.doc = NULL;
done:
    cmp_ctx_clear(&c);
    return rc;
}
