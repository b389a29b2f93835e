/* ssim.h - SSIM per image (ssim.c), as scikit-image's
 * structural_similarity with gaussian_weights=True (docs/ACCURACY.md). */
#ifndef MB_ACCURACY_SSIM_H
#define MB_ACCURACY_SSIM_H

#include "accuracy/mvalue.h"
#include "mbench.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * SSIM per image (ssim.c).  The tensors (same shape) are seen as
 * count / image_size images of the last two dims, or volumes of the last
 * three when `volume`; images [first, first + n_images) are computed.  Each dim
 * of the image must be >= 11 (MB_EUNSUPPORTED otherwise).  per_image[n_images]
 * receives the mean SSIM of each image over its valid interior (scikit-image's
 * crop of (11 - 1) / 2 on every side).  Uses `threads` threads (0: all CPUs).
 */
mb_status mb__ssim_images(const mb_tensor *a, const mb_tensor *b, int volume,
                          double data_range, int threads, size_t first,
                          double *per_image, size_t n_images, mb_err *err);
/* Whether a tensor shape has an SSIM (2-D: rank >= 2, last two dims >= 11;
 * 3-D: rank >= 3 and last three dims >= 11); *n_images is set. */
bool mb__ssim_applicable(const mb_tensor *t, int volume, size_t *n_images);

#endif
