/* cmprun.c - the compare engine (cmprun.h). */
#include "compare/cmprun.h"
#include "backend/registry.h"

#include "core/alloc.h"
#include "core/clock.h"
#include "core/err.h"
#include "core/fileio.h"
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
    mb_out_shape *shp =
        mb__calloc(v->n_outputs ? v->n_outputs : 1, sizeof *shp);
    if (!shp)
        return -1;
    mb__out_shapes_from_tensors(v->outputs, v->n_outputs, shp);
    mb_judged j;
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
        json_object_set_new(
            m, "name",
            json_string(base->outputs[i].name ? base->outputs[i].name : ""));
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
                               const mb__compare_req *rq, const mb_plan *bp,
                               const mb_plan *vp, const int64_t *labels,
                               size_t n_labels, const char *labels_what,
                               mb_err *err)
{
    size_t n = v->n_outputs < base->n_outputs ? v->n_outputs : base->n_outputs;
    json_t *outs = output_metrics(v, base, rq, n);
    mb__val_req vr;
    mb__val_req_defaults(&vr);
    vr.baseline = bp;
    vr.candidate = vp;
    vr.labels = labels ? labels_what : NULL;
    vr.output = rq->output;
    vr.judge_all = 1; /* compare's --output names the class scores only */
    vr.tolerance = rq->tolerance;
    vr.metrics = rq->metrics;
    vr.n_gates =
        rq->n_gates < MB__VAL_MAX_GATES ? rq->n_gates : MB__VAL_MAX_GATES;
    if (vr.n_gates)
        memcpy(vr.gates, rq->gates, vr.n_gates * sizeof *vr.gates);
    vr.weights =
        json_object_get(json_object_get(run, "model"), "params_by_dtype");
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
        "passed",   "rule",     "precision", "precision_reason",
        "accuracy", "criteria", "per_output"};
    v->verdict = json_object();
    for (size_t k = 0; k < sizeof keep / sizeof *keep; k++)
        json_object_set(v->verdict, keep[k], json_object_get(vj, keep[k]));
    json_decref(vj);
    return MB_OK;
}

static mb_status save_outputs(const char *root, const mb__compare_req *rq,
                              const vstate *vs, mb_err *err)
{
    mb_status ms = mb__mkdirs(root, err);
    if (ms)
        return ms;
    for (size_t i = 0; i < rq->n; i++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/%s", root, rq->variants[i].name);
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
static mb_status check_output_name(const mb_plan *p, const char *want,
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
    /* Every variant at every batch size of the first: an arm per
     * (batch, variant), batch-major, so that arms [b*n, b*n+n) are one
     * comparison. */
    static const int64_t one = 1;
    const mb_plan *p0 = rq->variants[0].plan;
    const int64_t *batches = p0->n_batches ? p0->batches : &one;
    size_t nb = p0->n_batches ? p0->n_batches : 1, n = rq->n;
    for (size_t i = 1; i < n; i++) {
        const mb_plan *p = rq->variants[i].plan;
        size_t pn = p->n_batches ? p->n_batches : 1;
        const int64_t *pb = p->n_batches ? p->batches : &one;
        if (pn != nb || memcmp(pb, batches, nb * sizeof *pb))
            return mb__fail(err, MB_EINVAL,
                            "variant %s has other batch sizes than %s: "
                            "compare measures every variant at the same "
                            "sizes; give --batch once for all",
                            rq->variants[i].name ? rq->variants[i].name : "?",
                            rq->variants[0].name ? rq->variants[0].name
                                                 : "the first");
    }
    if (nb > SIZE_MAX / n)
        return mb__fail(err, MB_EINVAL, "too many batch sizes");
    size_t na = nb * n;
    /* A missing model file fails now, not after the other variants have
     * been measured for minutes. */
    for (size_t i = 0; i < rq->n; i++) {
        const mb_plan *p = rq->variants[i].plan;
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
    mb_status cs =
        check_output_name(rq->variants[rq->baseline].plan, rq->output, err);
    if (cs)
        return cs;
    int64_t *labels = NULL;
    size_t n_labels = 0;
    if (rq->labels_path &&
        mb__labels_load(rq->labels_path, &labels, &n_labels, err))
        return err->code ? err->code : MB_EIO;
    /* An image folder's class folders are its labels (ImageFolder). */
    size_t n_classes = 0;
    const char *data0 = rq->variants[rq->baseline].plan->data_path;
    mb_status ls = !labels ? mb__image_dir_labels(data0, &labels, &n_labels,
                                                  &n_classes, err)
                           : MB_OK;
    if (ls)
        return ls;
    char folder_labels[600] = "";
    if (labels && !rq->labels_path)
        snprintf(folder_labels, sizeof folder_labels,
                 "%s (the %zu class folders, in sorted order)", data0,
                 n_classes);
    const char *labels_what = rq->labels_path ? rq->labels_path : folder_labels;
    int k = rq->processes > 0 ? rq->processes : MB_DEFAULT_PROCESSES;
    for (size_t i = 0; i < rq->n; i++) { /* a process measures >= 1 */
        int64_t f = rq->variants[i].plan->fixed_iters;
        if (f > 0 && f < k)
            k = (int)f;
    }
    mb__arm *arms = mb__calloc(na, sizeof *arms);
    vstate *vs = mb__calloc(na, sizeof *vs);
    mb__cmp_variant *cv = mb__calloc(na, sizeof *cv);
    mb_status rc = MB_OK;
    json_t *doc = NULL;
    if (!arms || !vs || !cv) {
        rc = mb__fail(err, MB_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t j = 0; j < na; j++) {
        arms[j].plan = rq->variants[j % n].plan;
        arms[j].batch = batches[j / n];
    }
    if (rq->progress)
        rq->progress(rq->progress_user, "loading", 0, (size_t)k, 0);
    int used = k;
    mb__repl_opts o = mb__repl_opts_for(k, rq->processes, &used, rq->cancel);
    o.timeout_ns = rq->timeout_ns;
    o.fail_fast = rq->fail_fast;
    o.keep_last = 1;
    int64_t start_ns = 0;
    o.round_start_ns = &start_ns;
    o.progress = on_round;
    o.progress_user = (void *)rq;
    if ((rc = mb__replicate(arms, na, &o, err)))
        goto done;
    int cancelled = rq->cancel && *rq->cancel;
    collect(arms, vs, na, rq, cancelled);
    for (size_t j = 0; rq->fail_fast && j < na; j++)
        if (arms[j].error) {
            rc = mb__fail(err, MB_ECHILD, "variant %s FAILED: %s",
                          rq->variants[j % n].name, arms[j].error);
            goto done;
        }
    doc = mb__doc_new("compare", rq->command_line);
    json_t *runs = json_object_get(doc, "runs");
    for (size_t i = 0; i < na; i++) {
        mb__arm *a = &arms[i];
        if (a->error || !a->run) {
            json_array_append_new(
                runs, json_pack("{s:s,s:s,s:s,s:I}", "status", "failed",
                                "variant", rq->variants[i % n].name, "error",
                                a->error ? a->error : "interrupted",
                                "batch_size", (json_int_t)a->batch));
            continue;
        }
        json_t *run =
            mb__arm_run_json(a,
                             cancelled                   ? "interrupted"
                             : arms[i].plan->fixed_iters ? "fixed_iterations"
                                                         : "fixed_budget",
                             1);
        if (cancelled)
            json_object_set_new(run, "status", json_string("interrupted"));
        /* Output tensors take the model's output names. */
        for (size_t o2 = 0; o2 < vs[i].n_outputs; o2++) {
            const char *nm = json_string_value(json_object_get(
                json_array_get(json_object_get(run, "outputs"), o2), "name"));
            if (nm) {
                free(vs[i].outputs[o2].name);
                vs[i].outputs[o2].name = mb__strdup(nm);
            }
        }
        json_array_append_new(runs, run);
    }
    /* Accuracy against labels, agreement with the baseline. */
    size_t bi = rq->baseline;
    char why[600] = "";
    int co = arms[bi].error
                 ? -1
                 : classifier_output(&vs[bi], rq->output, why, sizeof why);
    if (!arms[bi].error)
        json_object_set_new(doc, "judged_output",
                            json_pack("{s:o,s:s}", "name",
                                      co >= 0 && vs[bi].outputs[co].name
                                          ? json_string(vs[bi].outputs[co].name)
                                          : json_null(),
                                      "reason", why));
    /* Labels are scored on the output the rule chose for the baseline. */
    for (size_t i = 0; labels && co >= 0 && i < na; i++) {
        if (arms[i].error || (size_t)co >= vs[i].n_outputs ||
            !vs[i].outputs[co].data)
            continue;
        double t1, t5;
        if (mb__topk_accuracy(&vs[i].outputs[co], labels, n_labels, &t1, &t5,
                              err)) {
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%s", err->msg);
            rc = mb__fail(err, MB_EDATA, "--labels %s: %s", labels_what, msg);
            goto done;
        }
        vs[i].accuracy =
            json_pack("{s:f,s:f,s:I,s:s}", "top1", t1, "top5", t5, "samples",
                      (json_int_t)n_labels, "output",
                      vs[i].outputs[co].name ? vs[i].outputs[co].name : "");
    }
    /* The verdict of each variant against the baseline at the same batch
     * size: every output and the labels, as validate judges them. */
    for (size_t b = 0; b < nb; b++) {
        size_t bj = b * n + bi;
        if (arms[bj].error)
            continue;
        for (size_t i = b * n; i < b * n + n; i++) {
            if (i == bj || arms[i].error || !vs[i].n_outputs)
                continue;
            if ((rc = judge_variant(&vs[i], json_array_get(runs, i), &vs[bj],
                                    rq, arms[bj].plan, arms[i].plan,
                                    co >= 0 ? labels : NULL, n_labels,
                                    labels_what, err))) {
                mb__fail_prefix(err, "variant %s", rq->variants[i % n].name);
                goto done;
            }
            /* the paired interval of the accuracy difference */
            const json_t *va = json_object_get(vs[i].verdict, "accuracy");
            if (vs[i].accuracy && json_is_object(va)) {
                json_object_set(vs[i].accuracy, "delta_top1_ci95",
                                json_object_get(va, "top1_delta_ci95"));
                json_object_set(vs[i].accuracy, "paired",
                                json_object_get(va, "paired"));
            }
        }
    }
    for (size_t i = 0; i < na; i++) {
        mb__arm *a = &arms[i];
        cv[i] = (mb__cmp_variant){rq->variants[i % n].name,
                                  a->error,
                                  a->samples,
                                  a->n,
                                  a->proc_n,
                                  a->k,
                                  a->error ? NULL : json_array_get(runs, i),
                                  vs[i].accuracy,
                                  vs[i].agreement,
                                  vs[i].agreement ? vs[i].agreement_pass : -1,
                                  vs[i].verdict};
    }
    mb__cmp_opts copts = {rq->tolerance, rq->alpha, rq->threshold,
                          arms[0].plan->data_path == NULL, cancelled};
    /* One comparison per batch size; "comparison" is the first's. */
    json_t *cmps = json_array();
    for (size_t b = 0; b < nb; b++) {
        json_t *c = mb__compare_analyze(cv + b * n, n, bi, &copts);
        json_object_set_new(c, "batch_size", json_integer(batches[b]));
        json_array_append_new(cmps, c);
    }
    json_object_set(doc, "comparison", json_array_get(cmps, 0));
    json_object_set_new(doc, "comparisons", cmps);
    json_t *warn = json_object_get(doc, "warnings");
    if (!arms[0].plan->data_path)
        json_array_append_new(
            warn, json_string("RANDOM INPUTS ONLY: every variant saw the same "
                              "seeded synthetic inputs; latency is "
                              "representative, but output agreement on random "
                              "data says little about accuracy; use --data "
                              "and --labels"));
    for (size_t i = 0; i < na; i++) {
        const json_t *rep =
            json_object_get(json_array_get(runs, i), "replication");
        double rcv = json_number_value(json_object_get(rep, "run_to_run_cv"));
        if (json_is_number(json_object_get(rep, "run_to_run_cv")) &&
            rcv > 0.05) {
            char w[300], at[48] = "";
            if (nb > 1)
                snprintf(at, sizeof at, " at batch %" PRId64, arms[i].batch);
            snprintf(
                w, sizeof w,
                "%s%s is noisy from process to process "
                "(run-to-run CV %.1f%% over %d processes): the CIs are "
                "wide; pin threads (threads=1), close other programs or "
                "add --processes",
                rq->variants[i % n].name, at, rcv * 100,
                (int)json_integer_value(json_object_get(rep, "processes")));
            json_array_append_new(warn, json_string(w));
        }
        const json_t *md = json_object_get(rep, "modes");
        if (json_is_object(md)) {
            char w[300], at[48] = "";
            if (nb > 1)
                snprintf(at, sizeof at, " at batch %" PRId64, arms[i].batch);
            const json_t *f = json_object_get(md, "fast"),
                         *sl = json_object_get(md, "slow");
            snprintf(
                w, sizeof w,
                "%s%s: processes settle in two modes: %" JSON_INTEGER_FORMAT
                " at about %.4g ms, %" JSON_INTEGER_FORMAT " at about %.4g ms",
                rq->variants[i % n].name, at,
                json_integer_value(json_object_get(f, "processes")),
                json_number_value(json_object_get(f, "median")) / 1e6,
                json_integer_value(json_object_get(sl, "processes")),
                json_number_value(json_object_get(sl, "median")) / 1e6);
            json_array_append_new(warn, json_string(w));
        }
    }
    if (used < 2)
        json_array_append_new(
            warn, json_string("ONE PROCESS PER VARIANT: the intervals cover "
                              "within-run noise only, and no speed "
                              "difference is claimed; use --processes 40 or "
                              "more"));
    if (cancelled) {
        char w[400];
        snprintf(w, sizeof w,
                 "INTERRUPTED after %zu of %d rounds: the figures, intervals "
                 "and verdicts are of the rounds that finished, not of the "
                 "planned measurement; mbench gate refuses this document",
                 arms[0].n_rounds, used);
        json_array_append_new(warn, json_string(w));
        json_object_set_new(doc, "interrupted", json_true());
    }
    mb__warn_processes_lowered(doc, k, used, start_ns);
    mb__warn_load_changed(doc, arms[0].rounds, arms[0].n_rounds);
    if (rq->save_outputs && (rc = save_outputs(rq->save_outputs, rq, vs, err)))
        goto done;
    *doc_out = doc;
    doc = NULL;
done:
    json_decref(doc);
    for (size_t i = 0; vs && i < na; i++) {
        for (size_t k2 = 0; k2 < vs[i].n_outputs; k2++)
            mb_tensor_clear(&vs[i].outputs[k2]);
        free(vs[i].outputs);
        json_decref(vs[i].accuracy);
        json_decref(vs[i].agreement);
        json_decref(vs[i].verdict);
    }
    for (size_t i = 0; arms && i < na; i++)
        mb__arm_clear(&arms[i]);
    free(arms);
    free(vs);
    free(cv);
    free(labels);
    return rc;
}
