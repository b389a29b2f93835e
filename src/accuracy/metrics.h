/* metrics.h - how far a candidate tensor is from a baseline tensor: the one
 * accuracy library behind `mbench compare`, `mbench validate` and
 * `mbench diff`.
 *
 * For a baseline `a` and a candidate `b` of the same shape (any numeric
 * dtypes, read as double) it computes MAE, MSE, RMSE, PSNR, cosine
 * similarity, SSIM (Wang et al. 2004, defined exactly as scikit-image's
 * structural_similarity with gaussian_weights=True, sigma=1.5,
 * use_sample_covariance=False, data_range given), max absolute difference,
 * relative L2 error, Pearson correlation, the count of elements outside
 * numpy's isclose(b, a, rtol, atol), NaN/Inf counts on each side and, for
 * classifier-shaped [N, C] outputs, top-1/top-5 agreement and the mean KL
 * divergence of the softmaxes.  Every definition, the aggregation and the
 * JSON fields are in docs/ACCURACY.md.
 *
 * Per sample (the leading axis) and for the whole tensor, in one streaming
 * pass whose memory does not grow with the tensor.  Sums are in double:
 * plain within blocks of 1024 pairs, compensated (Neumaier) across them;
 * block statistics are merged with Chan's pairwise formulas in a fixed
 * order, so the figures do not depend on the thread count.  Tensors of at least
 * opts->parallel_min elements use all online CPUs.  Never prints, never exits.
 */
#ifndef MB_ACCURACY_METRICS_H
#define MB_ACCURACY_METRICS_H

#include "accuracy/mvalue.h"
#include "mbench.h"

#include <stdbool.h>
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* How the data range for PSNR and SSIM was chosen. */
typedef enum mb__range_source {
    MB_RANGE_BASELINE = 0, /* max(a) - min(a) over finite baseline values */
    MB_RANGE_GIVEN = 1,    /* opts->data_range */
    MB_RANGE_FALLBACK = 2  /* the baseline is constant or empty: 1.0 */
} mb__range_source;

/*
 * Metrics of one tensor or one sample.  Doubles are NAN when the metric is
 * undefined (no finite pairs, zero variance for Pearson, no SSIM for this
 * shape); psnr and rel_l2 may be +INFINITY.
 */
typedef struct mb__metrics {
    size_t count;  /* elements compared */
    size_t finite; /* pairs where both a and b are finite */
    size_t nan_a, nan_b, inf_a, inf_b;
    size_t nonfinite_new; /* a finite but b NaN or Inf */
    size_t allclose_fail; /* elements with !isclose(b, a, rtol, atol) */
    double mae, mse, rmse, psnr, cosine, max_abs, rel_l2, pearson;
    size_t max_abs_index; /* flat element index of max_abs (whole tensor) */
    double ssim;          /* mean over the images; NAN when not applicable */
    size_t ssim_images;   /* images (or volumes) averaged; 0: no SSIM */
    /* classifier outputs ([N, C], C >= 2) */
    int classifier;
    size_t rows, classes, kl_rows;
    double top1_agreement, top5_agreement, kl_mean, kl_max;
} mb__metrics;

/* The metrics that name a worst sample (docs/ACCURACY.md), in the order
 * the JSON writes them. */
enum {
    MB_WORST_MAE,
    MB_WORST_MSE,
    MB_WORST_RMSE,
    MB_WORST_PSNR,
    MB_WORST_COSINE,
    MB_WORST_MAX_ABS,
    MB_WORST_REL_L2,
    MB_WORST_PEARSON,
    MB_WORST_SSIM,
    MB_WORST_KL,
    MB_WORST_ALLCLOSE,
    MB_WORST_N
};

/* Per-sample results (the leading axis; one sample for rank <= 1). */
typedef struct mb__metrics_result {
    mb__metrics total;
    double data_range;
    mb__range_source range_source;
    size_t n_samples;
    /* every sample's figures, kept only when the per-sample arrays are
     * written (n_samples <= opts->per_sample_max, or <= 64); else NULL */
    mb__metrics *samples;
    /* with n_samples > 1: the worst sample of each MB_WORST_* metric and
     * its value (first index on ties; SIZE_MAX when every sample's value
     * is undefined) */
    size_t worst_index[MB_WORST_N];
    double worst_value[MB_WORST_N];
} mb__metrics_result;

/*
 * Computes every metric of candidate b against baseline a into *res
 * (overwritten; free with mb__metrics_result_free).  Fails with MB_EDATA
 * when the shapes differ (naming both) and MB_EUNSUPPORTED for string or
 * complex tensors.  opts may be NULL (defaults).
 */
mb_status mb__metrics_compute_struct(const mb_tensor *a, const mb_tensor *b,
                                     const mb__metric_opts *opts,
                                     mb__metrics_result *res, mb_err *err);
void mb__metrics_result_free(mb__metrics_result *res);

/*
 * Accuracy against labels: logits is [N, C] (trailing dims of size 1 are
 * ignored), labels has n == N class ids.  top1 is the fraction of rows
 * whose argmax (first index on ties, as numpy) equals the label; top5 the
 * fraction whose label is among the min(5, C) largest (ties to the lower
 * index).  Rows with a non-finite logit count as wrong.  MB_EDATA when the
 * counts differ or a label is outside [0, C).
 */
mb_status mb__topk_accuracy(const mb_tensor *logits, const int64_t *labels,
                            size_t n, double *top1, double *top5, mb_err *err);
/* The same, and hit1 (NULL, or room for n) gets 1 for each row whose
 * top-1 is right, 0 otherwise: the per-sample outcomes a paired interval
 * of two models' accuracy difference needs (core/pairci.h). */
mb_status mb__topk_hits(const mb_tensor *logits, const int64_t *labels,
                        size_t n, double *top1, double *top5, uint8_t *hit1,
                        mb_err *err);

/*
 * Segmentation against label masks (docs/ACCURACY.md, "Segmentation"):
 * scores is [N, C, spatial...] (float, C >= 2, rank >= 3), masks holds
 * one integer class id per pixel, [N, spatial...] or [N, 1, spatial...].
 * Each pixel is predicted as the argmax over the class axis (first index
 * on ties, as numpy); a pixel with a NaN score is predicted as no class.
 * Over every pixel of every sample, per class c: I (predicted c and mask
 * c), P (predicted c), G (mask c); IoU_c = I / (P + G - I), Dice_c = 2I /
 * (P + G), undefined (null) when P + G = 0; mean_iou and mean_dice are the
 * means over the classes where they are defined.  *out is a new object
 * {classes, pixels, ignored, pixel_accuracy, mean_iou, mean_dice, iou:
 * [C], dice: [C]}.  ignore (NULL: none) is an ignore index (torchmetrics'
 * and mmseg's ignore_index, e.g. 255): pixels whose mask holds it are
 * left out of every count ("ignored" says how many; "pixels" counts the
 * others), and when it is a class in [0, C) that class's IoU and Dice are
 * null and left out of the means.  MB_EDATA when the shapes do not fit
 * (naming both), the masks are not integers or another mask value is
 * outside [0, C).
 */
mb_status mb__segmentation_scores(const mb_tensor *scores,
                                  const mb_tensor *masks, const int64_t *ignore,
                                  json_t **out, mb_err *err);
/* Non-zero when scores can be scored against masks by
 * mb__segmentation_scores (shapes and dtypes). */
bool mb__segmentation_fits(const mb_tensor *scores, const mb_tensor *masks);

#endif
