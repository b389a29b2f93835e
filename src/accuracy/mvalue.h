/* mvalue.h - what every metric file shares, below all of them: the
 * metric options, reading any numeric tensor as doubles, and metric
 * values as JSON and text (mvalue.c).  metrics.c, metrics_json.c and
 * ssim.c call these and never each other in a circle. */
#ifndef MB_ACCURACY_MVALUE_H
#define MB_ACCURACY_MVALUE_H

#include "mbench.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* SSIM constants (Wang et al. 2004; scikit-image's defaults). */
#define MB_SSIM_WIN 11 /* 2 * int(3.5 * 1.5 + 0.5) + 1 */
#define MB_SSIM_SIGMA 1.5
#define MB_SSIM_K1 0.01
#define MB_SSIM_K2 0.03

typedef struct mb__metric_opts {
    double atol;           /* isclose absolute tolerance (default 1e-8) */
    double rtol;           /* isclose relative tolerance (default 1e-5) */
    double data_range;     /* > 0: use it for PSNR and SSIM; 0: the
                              baseline's max - min (default 0) */
    int ssim_3d;           /* SSIM over the last three dims (volumes) */
    int threads;           /* 0: all online CPUs (sysconf) */
    size_t parallel_min;   /* use threads from this element count (1<<20) */
    size_t per_sample_max; /* JSON "per_sample" arrays up to this many
                              samples (default 1024; 0: never) */
} mb__metric_opts;

void mb__metric_opts_defaults(mb__metric_opts *o);

/* Element i..i+n of any numeric tensor as doubles into dst (float16 and
 * bfloat16 widened exactly; bool as 0/1). */
void mb__tensor_load_f64(const mb_tensor *t, size_t off, size_t n, double *dst);
/* Non-zero when dtype can be read by the metrics (numeric, not complex). */
bool mb__metrics_dtype_ok(mb_dtype t);

/* A double as JSON: a real, "inf"/"-inf", or null for NaN (new ref). */
json_t *mb__json_metric(double v);
/* Reads a metric back: reals and integers, "inf", "-inf", "nan"; returns
 * 0 and NAN for null or anything else. */
bool mb__json_metric_get(const json_t *v, double *out);
/* A metric value of a document as text into buf: strings as they are,
 * integers, reals with 6 significant digits, booleans as yes/no (the
 * words given), anything else "n/a".  Returns buf. */
const char *mb__json_metric_text(const json_t *v, const char *yes,
                                 const char *no, char *buf, size_t len);

#endif
