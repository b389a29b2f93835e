/* valjudge.h - the verdict of a validation (valrun.h): which output is
 * read as class scores (pick.h), NaN/Inf the candidate created, accuracy
 * against labels or top-1 agreement on the class scores, and the gates
 * (given, or the defaults of the candidate's weight precision) on every
 * judged output; each output's checks with their values.  The rules are
 * in docs/ACCURACY.md ("Verdict").  Internal to the validate engine. */
#ifndef MB_ACCURACY_VALJUDGE_H
#define MB_ACCURACY_VALJUDGE_H

#include "accuracy/pick.h"
#include "accuracy/valrun.h"

/* The two models run and their run options ([{role, path, options}]).
 * New reference. */
json_t *mb__val_models_json(const mb__plan *pa, const mb__plan *pb);

/* Top-1/top-5 accuracy of class scores a (baseline) and b (candidate)
 * against the same labels, their difference and its paired 95% CI
 * (core/pairci.h: Tango's score interval over samples): a new object
 * {output, samples, baseline: {top1, top5}, candidate: {top1, top5},
 * top1_delta, top1_delta_ci95: [lo, hi], paired: {both_right,
 * baseline_only, candidate_only, both_wrong}, ci_method}.  Errors as
 * mb__topk_accuracy's. */
mb_status mb__val_accuracy(const mb_tensor *a, const mb_tensor *b,
                           const int64_t *labels, size_t n, json_t **out,
                           mb_err *err);

/*
 * Judges outputs a[0..n) (baseline) against b[0..n) (candidate), whose
 * metrics objects are outs (borrowed).  labels (n_labels of them) and
 * masks (class ids per pixel) may be NULL.  Adds to v the judged parts of
 * the "validation" object (output_choice, rule, precision,
 * precision_reason, accuracy, segmentation, gates, criteria, per_output,
 * passed).  MB_EINVAL for an --output no output has; MB_EDATA when labels
 * or masks have no output to score or do not fit it.
 */
mb_status mb__val_judge(const mb__val_req *rq, const mb_tensor *a,
                        const mb_tensor *b, size_t n, const json_t *outs,
                        const int64_t *labels, size_t n_labels,
                        const mb_tensor *masks, json_t *v, mb_err *err);

/* Checks labels before anything runs: their count against samples (0:
 * not known yet) and their ids against the class count C of the output
 * the rule reads as class scores (pick.h, requested as --output) when its
 * C is known from the model's shapes.  what names the labels in the
 * message ("--labels y.npy").  MB_EDATA naming the first problem and the
 * fix. */
mb_status mb__val_labels_check(const int64_t *labels, size_t n, size_t samples,
                               const mb__out_shape *outs, size_t n_outs,
                               const char *requested, const char *what,
                               mb_err *err);

#endif
