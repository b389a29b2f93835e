/* valjudge.c - the verdict of a validation (valjudge.h). */
#include "accuracy/valjudge.h"

#include "accuracy/pick.h"
#include "core/alloc.h"
#include "core/err.h"
#include "core/pairci.h"
#include "model/onnx.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The two models run and their run options, for the reports. */
json_t *mb__val_models_json(const mb__plan *pa, const mb__plan *pb)
{
    json_t *a = json_array();
    const mb__plan *p[2] = {pa, pb};
    static const char *const role[2] = {"baseline", "candidate"};
    for (int k = 0; k < 2; k++) {
        json_t *o = json_object();
        for (size_t i = 0; i < p[k]->n_opts; i++)
            json_object_set_new(o, p[k]->opts[i].key,
                                json_string(p[k]->opts[i].value));
        json_array_append_new(a, json_pack("{s:s, s:s, s:o}", "role", role[k],
                                           "path", p[k]->model_path, "options",
                                           o));
    }
    return a;
}

/* One check of one output, for "per_output". */
static json_t *check_json(const char *check, double value, int result)
{
    static const char *const words[] = {"pass", "fail", "n/a"};
    return json_pack("{s:s, s:o, s:s}", "check", check, "value",
                     mb__json_metric(value), "result", words[result]);
}

/* The value of the candidate's backend option key, or NULL. */
static const char *cand_opt(const mb__val_req *rq, const char *key)
{
    const mb__plan *p = rq->candidate;
    for (size_t i = p ? p->n_opts : 0; i-- > 0;)
        if (p->opts[i].key && !strcmp(p->opts[i].key, key))
            return p->opts[i].value;
    return NULL;
}

/* The candidate's precision from its weights; the reason into prec_why. */
static void weights_precision(const mb__val_req *rq, mb__precision *prec,
                              char *prec_why, size_t why_len)
{
    json_t *info = NULL;
    mb_err e;
    char what[128];
    const json_t *w = rq->weights;
    if (!w && !mb__onnx_inspect(rq->candidate->model_path, &info, &e))
        w = json_object_get(info, "params_by_dtype");
    if (!json_is_object(w))
        snprintf(prec_why, why_len,
                 "fp32 assumed: the candidate's "
                 "weights could not be read; pass --precision");
    else if (!mb__precision_of_weights(w, prec, what, sizeof what))
        snprintf(prec_why, why_len,
                 "fp32 assumed: the candidate has no "
                 "weights to tell its precision; pass --precision");
    else
        snprintf(prec_why, why_len, "from the candidate's weights (%s)", what);
    json_decref(info);
}

/* The gates: rq's, or the defaults of the candidate's precision: given,
 * else what its runtime says it computes in, else of its weights;
 * prec_why stays "" with rq's gates, *source says which ("given",
 * "runtime", "weights"). */
static size_t pick_gates(const mb__val_req *rq, mb__gate *gates,
                         mb__precision *prec, char *prec_why, size_t why_len,
                         const char **source)
{
    prec_why[0] = '\0';
    *source = NULL;
    if (rq->n_gates) {
        memcpy(gates, rq->gates, rq->n_gates * sizeof *gates);
        return rq->n_gates;
    }
    *prec = rq->precision;
    const char *asked = cand_opt(rq, "precision");
    if (!asked)
        asked = cand_opt(rq, "dtype");
    if (rq->have_precision) {
        snprintf(prec_why, why_len, "from --precision");
        *source = "given";
    } else if (mb__precision_of_runtime(rq->runtime, asked, prec, prec_why,
                                        why_len)) {
        *source = "runtime";
    } else {
        weights_precision(rq, prec, prec_why, why_len);
        *source = "weights";
    }
    return mb__gate_defaults(*prec, gates, MB__VAL_MAX_GATES);
}

/* A number at a dotted path of o, NAN when absent. */
static double jnum_path(const json_t *o, const char *path)
{
    char key[64];
    while (o && *path) {
        size_t n = strcspn(path, ".");
        if (n >= sizeof key)
            return NAN;
        memcpy(key, path, n);
        key[n] = '\0';
        o = json_object_get(o, key);
        path += n + (path[n] == '.');
    }
    return json_is_number(o) ? json_number_value(o) : NAN;
}

mb_status mb__val_accuracy(const mb_tensor *a, const mb_tensor *b,
                           const int64_t *labels, size_t n, json_t **out,
                           mb_err *err)
{
    *out = NULL;
    uint8_t *ha = mb__calloc(n ? 2 * n : 1, 1);
    if (!ha)
        return mb__fail(err, MB_ENOMEM, "out of memory scoring labels");
    uint8_t *hb = ha + n;
    double a1, a5, b1, b5, lo, hi;
    mb_status st = mb__topk_hits(a, labels, n, &a1, &a5, ha, err);
    if (!st)
        st = mb__topk_hits(b, labels, n, &b1, &b5, hb, err);
    if (st) {
        free(ha);
        return st;
    }
    mb__pair_counts pc;
    mb__pair_count(ha, hb, n, &pc);
    free(ha);
    bool ok = mb__tango_ci(&pc, 0.95, &lo, &hi);
    *out = json_pack(
        "{s:s, s:I, s:{s:f, s:f}, s:{s:f, s:f}, s:f, s:o, s:{s:I, s:I, s:I, "
        "s:I}, s:s}",
        "output", a->name ? a->name : "?", "samples", (json_int_t)n, "baseline",
        "top1", a1, "top5", a5, "candidate", "top1", b1, "top5", b5,
        "top1_delta", b1 - a1, "top1_delta_ci95",
        ok ? json_pack("[f, f]", lo, hi) : json_null(), "paired", "both_right",
        (json_int_t)pc.both, "baseline_only", (json_int_t)pc.a_only,
        "candidate_only", (json_int_t)pc.b_only, "both_wrong",
        (json_int_t)pc.neither, "ci_method",
        "Tango's score interval for a paired difference of proportions, "
        "95%, over samples");
    return *out ? MB_OK : mb__fail(err, MB_ENOMEM, "out of memory");
}

/* The segmentation verdict against label masks. */
typedef struct seg_verdict {
    size_t index; /* the scored output, n when no masks */
    int ok, iou_ok, dice_ok;
    double iou, dice; /* the candidate's means */
    char iou_check[64], dice_check[64];
    json_t *obj; /* the "segmentation" object (null without masks) */
} seg_verdict;

/* The output scored against masks: the requested one, else the first
 * that fits them (float [N, C, H, W] with the masks' N, H, W). */
static mb_status seg_output(const mb__val_req *rq, const mb__judged *pick,
                            const mb_tensor *a, size_t n,
                            const mb_tensor *masks, size_t *idx, mb_err *err)
{
    for (size_t i = 0; i < n; i++)
        if ((!pick->requested || i == pick->index) &&
            mb__segmentation_fits(&a[i], masks)) {
            *idx = i;
            return MB_OK;
        }
    char list[600] = "", sh[160];
    size_t off = 0;
    for (size_t i = 0; i < n && off < sizeof list; i++)
        off +=
            (size_t)snprintf(list + off, sizeof list - off, "%s%s %s %s",
                             i ? ", " : "", a[i].name ? a[i].name : "?",
                             mb_shape_str(a[i].dims, a[i].rank, sh, sizeof sh),
                             mb_dtype_name(a[i].dtype));
    return mb__fail(err, MB_EDATA,
                    "--masks %s (%s %s): no %soutput is float [N, C, H, W] "
                    "class scores with the masks' N, H and W; the outputs "
                    "are: %s",
                    rq->masks, mb_dtype_name(masks->dtype),
                    mb_shape_str(masks->dims, masks->rank, sh, sizeof sh),
                    pick->requested ? "--output " : "", list);
}

/* Dice and IoU of both models against the masks; the candidate passes
 * when its mean IoU and mean Dice are each at least the baseline's minus
 * the tolerance. */
static mb_status judge_masks(const mb__val_req *rq, const mb__judged *pick,
                             const mb_tensor *a, const mb_tensor *b, size_t n,
                             const mb_tensor *masks, json_t *criteria,
                             seg_verdict *sv, mb_err *err)
{
    memset(sv, 0, sizeof *sv);
    sv->index = n;
    sv->ok = 1;
    sv->obj = json_null();
    if (!masks)
        return MB_OK;
    mb_status st = seg_output(rq, pick, a, n, masks, &sv->index, err);
    if (st)
        return st;
    json_t *sa = NULL, *sb = NULL;
    const mb_tensor *o = &a[sv->index];
    const char *name = o->name ? o->name : "?";
    const int64_t *ign = rq->have_ignore ? &rq->ignore_index : NULL;
    st = mb__segmentation_scores(o, masks, ign, &sa, err);
    if (!st)
        st = mb__segmentation_scores(&b[sv->index], masks, ign, &sb, err);
    if (st) {
        json_decref(sa);
        mb__fail_prefix(err, "--masks %s (output %s)", rq->masks, name);
        return st;
    }
    double ia = NAN, da = NAN;
    mb__json_metric_get(json_object_get(sa, "mean_iou"), &ia);
    mb__json_metric_get(json_object_get(sa, "mean_dice"), &da);
    mb__json_metric_get(json_object_get(sb, "mean_iou"), &sv->iou);
    mb__json_metric_get(json_object_get(sb, "mean_dice"), &sv->dice);
    double tol = rq->tolerance;
    sv->iou_ok = sv->iou >= ia - tol - 1e-12;
    sv->dice_ok = sv->dice >= da - tol - 1e-12;
    sv->ok = sv->iou_ok && sv->dice_ok;
    snprintf(sv->iou_check, sizeof sv->iou_check, "mean_iou>=%.4f", ia - tol);
    snprintf(sv->dice_check, sizeof sv->dice_check, "mean_dice>=%.4f",
             da - tol);
    static const char *const what[2] = {"mean IoU", "mean Dice"};
    const double cv[2] = {sv->iou, sv->dice}, bv[2] = {ia, da};
    const int okv[2] = {sv->iou_ok, sv->dice_ok};
    for (int k = 0; k < 2; k++)
        json_array_append_new(
            criteria,
            json_sprintf("%s %s on %s against the masks %.4f vs baseline %.4f "
                         "(delta %+.4f, tolerance %g)",
                         okv[k] ? "PASS" : "FAIL", what[k], name, cv[k], bv[k],
                         cv[k] - bv[k], tol));
    sv->obj = json_pack(
        "{s:s, s:s, s:I, s:o, s:o, s:o, s:o, s:o}", "output", name, "masks",
        rq->masks, "samples", (json_int_t)masks->dims[0], "ignore_index",
        ign ? json_integer((json_int_t)*ign) : json_null(), "baseline", sa,
        "candidate", sb, "mean_iou_delta", mb__json_metric(sv->iou - ia),
        "mean_dice_delta", mb__json_metric(sv->dice - da));
    return MB_OK;
}

/* A baseline output that is NaN/Inf in every element is an error (there
 * is nothing to judge against); in some elements, a warning with the
 * counts, added to v's "warnings". */
static mb_status check_baseline_finite(const json_t *outs, json_t *v,
                                       mb_err *err)
{
    size_t i;
    const json_t *m;
    json_t *warn = json_array();
    json_array_foreach(outs, i, m)
    {
        json_int_t n = json_integer_value(json_object_get(m, "count")),
                   nan = json_integer_value(json_object_get(m, "nan_baseline")),
                   inf = json_integer_value(json_object_get(m, "inf_baseline"));
        const char *nm = json_string_value(json_object_get(m, "name"));
        if (n > 0 && nan + inf >= n) {
            json_decref(warn);
            return mb__fail(err, MB_EDATA,
                            "the baseline's output %s is NaN or Inf in all "
                            "%lld elements (NaN %lld, Inf %lld): there is "
                            "nothing to judge the candidate against; check "
                            "the baseline model and its inputs",
                            nm ? nm : "?", (long long)n, (long long)nan,
                            (long long)inf);
        }
        if (nan + inf > 0)
            json_array_append_new(
                warn,
                json_sprintf("the baseline's output %s is NaN or Inf in %lld "
                             "of %lld elements (NaN %lld, Inf %lld): the "
                             "metrics cover the other %lld",
                             nm ? nm : "?", (long long)(nan + inf),
                             (long long)n, (long long)nan, (long long)inf,
                             (long long)(n - nan - inf)));
    }
    json_object_set_new(v, "warnings", warn);
    return MB_OK;
}

/* The output the rule judges (pick.h), recorded as v's "output_choice". */
static mb_status choose_output(const mb__val_req *rq, const mb_tensor *a,
                               size_t n, mb__judged *pick, json_t *v,
                               mb_err *err)
{
    mb__out_shape *shp = mb__calloc(n ? n : 1, sizeof *shp);
    if (!shp)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    mb__out_shapes_from_tensors(a, n, shp);
    mb_status ps = mb__judged_output(shp, n, rq->output, pick, err);
    free(shp);
    if (ps)
        return ps;
    json_object_set_new(
        v, "output_choice",
        json_pack(
            "{s:o, s:o, s:b, s:b, s:s}", "output",
            pick->index < n
                ? json_string(a[pick->index].name ? a[pick->index].name : "")
                : json_null(),
            "index",
            pick->index < n ? json_integer((json_int_t)pick->index)
                            : json_null(),
            "classifier", pick->classifier, "requested", pick->requested,
            "reason", pick->reason));
    return MB_OK;
}

/* The candidate fails when it produced NaN/Inf where the baseline was
 * finite, on any judged output; returns 0 then (with a criterion). */
static int judge_nonfinite(const json_t *outs, size_t n, json_t *criteria)
{
    size_t nf_bad = 0;
    for (size_t i = 0; i < n; i++) /* every output is judged */
        nf_bad += (size_t)json_integer_value(
            json_object_get(json_array_get(outs, i), "nonfinite_new"));
    if (!nf_bad)
        return 1;
    char line[640];
    snprintf(line, sizeof line,
             "FAIL the candidate produced %zu NaN/Inf values where the "
             "baseline was finite",
             nf_bad);
    json_array_append_new(criteria, json_string(line));
    return 0;
}

typedef struct cls_verdict {
    size_t index;     /* the class scores, n when there are none */
    const char *rule; /* "labels", "top1_agreement" or "gates" */
    int ok;
    double value; /* top-1 accuracy or agreement of the candidate */
    char check[96];
    json_t *acc; /* the "accuracy" object (null without labels) */
} cls_verdict;

/* The class scores: top-1 accuracy against the labels (within the
 * tolerance of the baseline's), else top-1 agreement with the baseline
 * (at least 1 - tolerance); MB_EDATA when labels have no output. */
static mb_status judge_classifier(const mb__val_req *rq, const mb__judged *pick,
                                  const mb_tensor *a, const mb_tensor *b,
                                  size_t n, const json_t *outs,
                                  const int64_t *labels, size_t n_labels,
                                  json_t *criteria, cls_verdict *cv,
                                  mb_err *err)
{
    *cv = (cls_verdict){.index = pick->classifier ? pick->index : n,
                        .rule = "gates",
                        .ok = 1,
                        .value = NAN,
                        .acc = json_null()};
    size_t ci = cv->index;
    const char *ci_name = ci < n && a[ci].name ? a[ci].name : "?";
    char line[640];
    if (labels && ci == n && rq->labels_optional)
        labels = NULL; /* class folders, but no class scores to score */
    if (labels) {
        if (ci == n)
            return mb__fail(err, MB_EDATA,
                            "--labels %s: no output to score them against: "
                            "%s",
                            rq->labels, pick->reason);
        mb_status ts =
            mb__val_accuracy(&a[ci], &b[ci], labels, n_labels, &cv->acc, err);
        if (ts) {
            mb__fail_prefix(err, "--labels %s (output %s)", rq->labels,
                            ci_name);
            return ts;
        }
        cv->rule = "labels";
        double a1 = jnum_path(cv->acc, "baseline.top1"),
               b1 = jnum_path(cv->acc, "candidate.top1");
        cv->ok = b1 >= a1 - rq->tolerance - 1e-12;
        cv->value = b1;
        snprintf(cv->check, sizeof cv->check, "top1_accuracy>=%.4f",
                 a1 - rq->tolerance);
        const json_t *dci = json_object_get(cv->acc, "top1_delta_ci95");
        double lo = json_number_value(json_array_get(dci, 0)),
               hi = json_number_value(json_array_get(dci, 1));
        snprintf(line, sizeof line,
                 "%s top-1 accuracy on %s %.4f vs baseline %.4f (delta "
                 "%+.4f, paired 95%% CI %+.4f to %+.4f over %zu samples, "
                 "tolerance %g)",
                 cv->ok ? "PASS" : "FAIL", ci_name, b1, a1, b1 - a1, lo, hi,
                 n_labels, rq->tolerance);
        json_array_append_new(criteria, json_string(line));
    } else if (ci < n) {
        cv->rule = "top1_agreement";
        mb__json_metric_get(
            json_object_get(json_array_get(outs, ci), "top1_agreement"),
            &cv->value);
        cv->ok = cv->value >= 1 - rq->tolerance - 1e-12;
        snprintf(cv->check, sizeof cv->check, "top1_agreement>=%.4f",
                 1 - rq->tolerance);
        snprintf(line, sizeof line,
                 "%s top-1 agreement on %s %.4f (needs >= %.4f = 1 - "
                 "tolerance)",
                 cv->ok ? "PASS" : "FAIL", ci_name, cv->value,
                 1 - rq->tolerance);
        json_array_append_new(criteria, json_string(line));
    }
    return MB_OK;
}

/* The verdict of each output, check by check ("per_output"). */
static json_t *per_output(const mb_tensor *a, size_t n, const json_t *outs,
                          const cls_verdict *cv, const seg_verdict *sv,
                          const mb__gate *gates, size_t n_gates)
{
    json_t *per = json_array();
    for (size_t i = 0; i < n; i++) {
        const json_t *m = json_array_get(outs, i);
        int judged = 1; /* every output (--output never escapes it) */
        json_t *checks = json_array();
        int ok = 1;
        if (judged && i == cv->index) {
            json_array_append_new(
                checks, check_json(cv->check, cv->value, cv->ok ? 0 : 1));
            ok &= cv->ok;
        }
        if (judged && i == sv->index) {
            json_array_append_new(
                checks, check_json(sv->iou_check, sv->iou, !sv->iou_ok));
            json_array_append_new(
                checks, check_json(sv->dice_check, sv->dice, !sv->dice_ok));
            ok &= sv->ok;
        }
        for (size_t g = 0; judged && g < n_gates; g++) {
            double val = NAN;
            mb__gate_result r = mb__gate_eval(&gates[g], m, &val);
            json_array_append_new(checks,
                                  check_json(gates[g].text, val, (int)r));
            ok &= r != MB_GATE_FAIL;
        }
        json_array_append_new(
            per, json_pack("{s:s, s:b, s:b, s:b, s:o, s:o}", "name",
                           a[i].name ? a[i].name : "", "judged", judged,
                           "classifier", i == cv->index, "segmentation",
                           i == sv->index, "passed",
                           judged ? json_boolean(ok) : json_null(), "checks",
                           checks));
    }
    return per;
}

mb_status mb__val_judge(const mb__val_req *rq, const mb_tensor *a,
                        const mb_tensor *b, size_t n, const json_t *outs,
                        const int64_t *labels, size_t n_labels,
                        const mb_tensor *masks, json_t *v, mb_err *err)
{
    mb__judged pick;
    mb_status st = check_baseline_finite(outs, v, err);
    if (!st)
        st = choose_output(rq, a, n, &pick, v, err);
    if (st)
        return st;
    json_t *criteria = json_array();
    int passed = judge_nonfinite(outs, n, criteria);
    /* The classifier output: accuracy against labels, else agreement. */
    cls_verdict cv;
    seg_verdict sv;
    st = judge_classifier(rq, &pick, a, b, n, outs, labels, n_labels, criteria,
                          &cv, err);
    if (!st)
        st = judge_masks(rq, &pick, a, b, n, masks, criteria, &sv, err);
    if (st) {
        json_decref(cv.acc);
        json_decref(criteria);
        return st;
    }
    passed &= cv.ok & sv.ok;
    const char *rule = cv.rule;
    if (masks)
        rule = !strcmp(rule, "labels")           ? "labels+masks"
               : !strcmp(rule, "top1_agreement") ? "top1_agreement+masks"
                                                 : "masks";
    /* The gates, on every judged output. */
    mb__gate gates[MB__VAL_MAX_GATES];
    mb__precision prec = MB_PREC_FP32;
    char prec_why[200];
    const char *prec_src;
    size_t n_gates =
        pick_gates(rq, gates, &prec, prec_why, sizeof prec_why, &prec_src);
    int gp = 1; /* on every output */
    json_t *gv = mb__gates_eval_outputs(gates, n_gates, outs, &gp);
    passed &= gp;
    json_object_set_new(v, "rule", json_string(rule));
    json_object_set_new(v, "precision",
                        prec_why[0] ? json_string(mb__precision_name(prec))
                                    : json_null());
    json_object_set_new(v, "precision_reason",
                        prec_why[0] ? json_string(prec_why) : json_null());
    json_object_set_new(v, "precision_source",
                        prec_src ? json_string(prec_src) : json_null());
    json_object_set_new(v, "accuracy", cv.acc);
    json_object_set_new(v, "segmentation", sv.obj);
    json_object_set_new(v, "gates", gv);
    json_object_set_new(v, "criteria", criteria);
    json_object_set_new(v, "per_output",
                        per_output(a, n, outs, &cv, &sv, gates, n_gates));
    json_object_set_new(v, "passed", json_boolean(passed));
    return MB_OK;
}

mb_status mb__val_labels_check(const int64_t *labels, size_t n, size_t samples,
                               const mb__out_shape *outs, size_t n_outs,
                               const char *requested, const char *what,
                               mb_err *err)
{
    if (samples && n != samples)
        return mb__fail(err, MB_EDATA,
                        "%s: %zu labels for %zu samples; give one label per "
                        "sample (checked before measuring)",
                        what, n, samples);
    mb__judged j;
    mb_err e = {0};
    if (mb__judged_output(outs, n_outs, requested, &j, &e) || !j.classifier ||
        j.index >= n_outs)
        return MB_OK; /* no class scores: told when the verdict is made */
    const mb__out_shape *o = &outs[j.index];
    int rank = o->rank;
    while (rank > 2 && o->dims[rank - 1] == 1)
        rank--;
    int64_t C = rank == 2 ? o->dims[1] : -1;
    for (size_t i = 0; C > 0 && i < n; i++)
        if (labels[i] < 0 || labels[i] >= C)
            return mb__fail(err, MB_EDATA,
                            "%s: label %lld of sample %zu is outside [0, "
                            "%lld): %s has %lld classes (checked before "
                            "measuring)",
                            what, (long long)labels[i], i, (long long)C,
                            o->name ? o->name : "the class-score output",
                            (long long)C);
    return MB_OK;
}
