/* image.h - PNG and JPEG images as model inputs: decoding (libpng,
 * libjpeg from Debian) into 8-bit pixels with every size taken from the
 * file bounded before anything is allocated, and the preprocessing a
 * vision model expects (torchvision's conventions: resize, center crop,
 * ToTensor's scale, Normalize's mean and std; channel order and layout).
 * docs/DATA.md ("Images") states every rule.  Pure: no global state. */
#ifndef MB_DATA_IMAGE_H
#define MB_DATA_IMAGE_H

#include "core/imageprep.h"
#include "core/tlimit.h"
#include "mbench.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Limits on what an image file may ask for: per side and in pixels. */
#define MB_IMAGE_MAX_PIXELS ((size_t)1 << 26)

/* A decoded image: h rows of w pixels of c 8-bit channels (1 gray, 3
 * RGB), row-major, interleaved. */
typedef struct mb__image {
    uint8_t *px; /* owned */
    size_t w, h;
    int c;
} mb__image;

/* Decodes a PNG (any bit depth and color type; palettes and low depths
 * expanded, 16-bit channels cut to their high byte, alpha dropped) or a
 * baseline or progressive JPEG (gray or YCbCr; libjpeg's default
 * decoding: islow DCT, fancy upsampling, as Pillow) held in buf, told
 * apart by their signatures.  what names the image in messages.
 * MB_EFORMAT for data that is neither or is damaged (any libpng or libjpeg
 * warning is an error, but those about ancillary PNG chunks mbench does
 * not use; a file shorter than any complete image of its declared size is
 * refused before decoding); MB_EUNSUPPORTED for
 * CMYK JPEGs or a side above MB_IMAGE_MAX_SIDE or more pixels than
 * MB_IMAGE_MAX_PIXELS (checked from the header, before allocating);
 * MB_ENOMEM.  On failure *out is zeroed. */
mb_status mb__image_decode(const uint8_t *buf, size_t len, const char *what,
                           mb__image *out, mb_err *err);
/* The same with a lower pixel limit (the fuzz harness keeps decodes
 * fast with it); max_pixels above MB_IMAGE_MAX_PIXELS is lowered to it. */
mb_status mb__image_decode_max(const uint8_t *buf, size_t len, const char *what,
                               size_t max_pixels, mb__image *out, mb_err *err);

/* The same with the tensor cap on the decoded bytes (w * h * channels,
 * checked from the header; MB_EDATA naming --max-tensor-bytes; NULL lim:
 * the default cap). */
mb_status mb__image_decode_lim(const uint8_t *buf, size_t len, const char *what,
                               size_t max_pixels, const mb__tlimit *lim,
                               mb__image *out, mb_err *err);

/* Reads and decodes the file at path (at most 1 GiB).  Errors as
 * mb__image_decode, MB_EIO when unreadable. */
mb_status mb__image_read(const char *path, mb__image *out, mb_err *err);
/* The same under a tensor cap (mb__image_decode_lim). */
mb_status mb__image_read_lim(const char *path, const mb__tlimit *lim,
                             mb__image *out, mb_err *err);

void mb__image_free(mb__image *im);

/* Non-zero when name ends in .png, .jpg or .jpeg (any case). */
bool mb__image_name(const char *name);
/* Non-zero when name ends in another image extension torchvision's
 * ImageFolder reads (.bmp, .ppm, .pgm, .tif, .tiff, .webp), which mbench
 * refuses by name rather than skip. */
bool mb__image_other_name(const char *name);

/* The tensor geometry a model input wants: c channels (1, 3 or 4), h x w
 * pixels (-1 when symbolic), nhwc or not, and the element type. */
typedef struct mb__image_geometry {
    int c;
    int64_t h, w;
    int nhwc;
    mb_dtype dtype;
} mb__image_geometry;

/* The geometry of a model input of rank 4 ([N, C, H, W] with C in 1, 3,
 * 4, else [N, H, W, C]; prep->layout overrides) or rank 3 (one image,
 * [C, H, W] / [H, W, C]).  MB_EDATA naming the input when it is no image
 * input (another rank, no channel axis of 1, 3 or 4, a dtype other than
 * float32/float16/float64/uint8). */
mb_status mb__image_geom(const char *input, int rank, const int64_t *dims,
                         mb_dtype dtype, const mb__image_prep *prep,
                         mb__image_geometry *g, mb_err *err);

/* The size (g->h, g->w) im has after prep's resize and crop. */
void mb__image_out_size(const mb__image *im, const mb__image_prep *prep,
                        mb__image_geometry *g);

/* Preprocesses im (its channels made g->c: gray replicated, RGB to gray
 * by Pillow's ITU-R 601 luma; resized and cropped as prep says) into
 * out, g->c * H * W elements of g->dtype in g's layout, where H x W is
 * the result's size, which must be the model's fixed size (MB_EDATA
 * naming the image, both sizes and the flags that would fit it).  uint8
 * inputs take the pixels as they are (no scale, mean or std). */
mb_status mb__image_prepare(const mb__image *im, const char *what,
                            const mb__image_prep *prep,
                            const mb__image_geometry *g, void *out,
                            mb_err *err);

#endif
