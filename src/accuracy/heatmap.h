/* heatmap.h - |a - b| of an image-like output drawn as a PNG (libpng).
 *
 * The image is the last two dims of the tensors (rank 1 is one row).  A
 * tensor of rank 3 or more is drawn one sample (the leading axis) at a
 * time: its image, or, when a sample holds several images (channels of
 * [N, C, H, W]), the largest |b - a| over them at each pixel.  Tensors of
 * rank 1 and 2 are one image, each sample a row.  Pixel values are
 * |b - a| / max|b - a| through a perceptual colour map of our own: a ramp
 * in OKLab whose lightness rises linearly from 0.20 (dark violet, no
 * difference) to 0.95 (yellow, the largest difference), so equal steps
 * look equal and the map survives greyscale printing.  Pixels where
 * either side is NaN or Inf are magenta.  Images narrower than 256 pixels
 * may be scaled up by an integer factor (nearest neighbour) so single
 * pixels stay visible; images larger than a bound are scaled down by an
 * integer factor, each pixel the largest difference of its block.
 *
 * Which pair and which sample a report draws (mb__heatmap_pick,
 * mb__heatmap_worst, mb__heatmap_embed): the output that differs most
 * (largest rel_l2, then max_abs) among those of rank >= 2, and its worst
 * sample (largest rel_l2, then max_abs, then MAE), unless named. */
#ifndef MB_ACCURACY_HEATMAP_H
#define MB_ACCURACY_HEATMAP_H

#include "core/buf.h"
#include "mbench.h"

#include <jansson.h>
#include <stdint.h>

/* How to draw. */
typedef struct mb__heat_opts {
    int64_t sample;  /* the sample of a rank >= 3 tensor (0 .. dims[0]-1) */
    size_t max_side; /* 0, or the largest width and height drawn */
    int enlarge;     /* scale images narrower than 256 pixels up */
} mb__heat_opts;

/* What was drawn. */
typedef struct mb__heat_info {
    double max_abs;       /* the value the brightest colour stands for */
    size_t width, height; /* of the image (before any scaling) */
    size_t png_w, png_h;  /* of the PNG */
    int64_t sample;       /* the sample drawn, -1: the whole tensor */
    size_t samples;       /* dims[0] (1 for rank 0 and 1) */
    size_t nonfinite;     /* pixels drawn magenta (before scaling) */
} mb__heat_info;

/* Appends the PNG bytes to *png (caller frees with mb__buf_free); info
 * (may be NULL) says what was drawn.  MB_EDATA for shapes that differ,
 * rank 0 or an image too large; MB_EINVAL for a sample outside the
 * tensor (naming how many it has). */
mb_status mb__heatmap_draw(const mb_tensor *a, const mb_tensor *b,
                           const mb__heat_opts *o, mb__buf *png,
                           mb__heat_info *info, mb_err *err);

/* The same with sample 0, enlarged, no bound (the first image). */
mb_status mb__heatmap_png(const mb_tensor *a, const mb_tensor *b, mb__buf *png,
                          double *max_abs, mb_err *err);

/* Colour of t in [0, 1] (clamped) as 8-bit sRGB. */
void mb__heatmap_color(double t, unsigned char rgb[3]);

/* The pair to draw among a[i], b[i] (i < n) whose metrics objects are
 * outs[i]: the one named want (by its "name" in outs, else a[i].name),
 * else the one of rank >= 2 that differs most (largest rel_l2, then
 * max_abs; the first on ties), else the first with data.  Pairs without
 * data (a[i].data or b[i].data NULL) are never chosen.  n when want
 * names none or no pair has data. */
size_t mb__heatmap_pick(const mb_tensor *a, const mb_tensor *b, size_t n,
                        const json_t *outs, const char *want);

/* The worst sample of a metrics object (accuracy/metrics.h "worst"):
 * of rel_l2, else max_abs, else mae; 0 when it names none. */
int64_t mb__heatmap_worst(const json_t *metrics);

/* The heat map a report embeds: the pair mb__heatmap_pick chooses (want
 * may be NULL), at `sample` (< 0: its worst), drawn at most 160 pixels a
 * side, as a new object {output, sample, samples, chosen, max_abs, width,
 * height, png_base64} (docs/FORMATS.md) into *out; *out NULL when no pair
 * has data.  MB_EINVAL for a want no pair has or a sample outside the
 * output; MB_EDATA / MB_ENOMEM as mb__heatmap_draw. */
mb_status mb__heatmap_embed(const mb_tensor *a, const mb_tensor *b, size_t n,
                            const json_t *outs, const char *want,
                            int64_t sample, json_t **out, mb_err *err);

#endif
