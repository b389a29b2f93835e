/* The preprocessing of image data, as the plan holds it: a plain type
 * of its own so that the plan (src/plan) needs nothing of the image
 * decoder (src/data/image.h), which is at the plan's level. */
#ifndef MB_CORE_IMAGEPREP_H
#define MB_CORE_IMAGEPREP_H

#include "mbench.h"

#include <stdint.h>

/* The largest image side an image file or a --resize may ask for. */
#define MB_IMAGE_MAX_SIDE 32768

/* Preprocessing (run options --resize, --center-crop, --scale, --mean,
 * --std, --channel-order, --layout).  Zero-initialised means the
 * defaults: no resize, no crop, pixel / 255, no mean or std, RGB, the
 * layout read from the model's input shape. */
typedef struct mb__image_prep {
    int64_t resize_h, resize_w; /* both 0: none; resize_w 0: shorter side */
    int64_t crop_h, crop_w;     /* 0: none */
    int have_scale;
    double scale; /* multiplies the 8-bit value (default 1/255) */
    int n_mean, n_std;
    double mean[4], std[4]; /* per channel, or one for all */
    int bgr;                /* channel order BGR */
    int layout;             /* 0 from the model, 1 NCHW, 2 NHWC */
} mb__image_prep;

/* Parsers of the option values ("256" or "224x224"; "0.485,0.456,0.406"
 * or one number).  MB_EINVAL naming flag, the value and the form. */
mb_status mb__image_size_parse(const char *flag, const char *v, int64_t *h,
                               int64_t *w, mb_err *err);
mb_status mb__image_triple_parse(const char *flag, const char *v, double *out,
                                 int *n, mb_err *err);

#endif
