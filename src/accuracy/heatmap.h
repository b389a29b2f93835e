/* heatmap.h - |a - b| of an image-like output drawn as a PNG (libpng).
 *
 * The image is the last two dims of the tensors (rank 1 is one row), the
 * first one along the leading dims.  Pixel values are |b - a| / max|b - a|
 * through a perceptual colour map of our own: a ramp in OKLab whose
 * lightness rises linearly from 0.20 (dark violet, no difference) to 0.95
 * (yellow, the largest difference), so equal steps look equal and the map
 * survives greyscale printing.  Pixels where either side is NaN or Inf are
 * magenta.  Images narrower than 256 pixels are scaled up by an integer
 * factor (nearest neighbour) so single pixels stay visible. */
#ifndef MB_ACCURACY_HEATMAP_H
#define MB_ACCURACY_HEATMAP_H

#include "core/buf.h"
#include "mbench.h"

/* Appends the PNG bytes to *png (caller frees with mb__buf_free);
 * *max_abs (may be NULL) receives the value the brightest colour stands
 * for.  MB_EDATA for shapes that differ or rank 0. */
mb_status mb__heatmap_png(const mb_tensor *a, const mb_tensor *b, mb_buf *png,
                          double *max_abs, mb_err *err);

/* Colour of t in [0, 1] (clamped) as 8-bit sRGB. */
void mb__heatmap_color(double t, unsigned char rgb[3]);

#endif
