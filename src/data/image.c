/* image.c - PNG/JPEG decoding and preprocessing (image.h). */
#include "data/image.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/fileio.h"
#include "core/parse.h"
#include "core/tlimit.h"

#include <inttypes.h>
#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* jpeglib.h needs stdio.h first */
#include <jpeglib.h>

void mb__image_free(mb__image *im)
{
    if (!im)
        return;
    free(im->px);
    memset(im, 0, sizeof *im);
}

static bool ends_ci(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcasecmp(s + a - b, suf) == 0;
}

bool mb__image_name(const char *name)
{
    return ends_ci(name, ".png") || ends_ci(name, ".jpg") ||
           ends_ci(name, ".jpeg");
}

bool mb__image_other_name(const char *name)
{
    static const char *const ext[] = {".bmp", ".ppm",  ".pgm",
                                      ".tif", ".tiff", ".webp"};
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++)
        if (ends_ci(name, ext[i]))
            return true;
    return false;
}

/* What a decode may allocate: pixels, and the decoded bytes against the
 * tensor cap (--max-tensor-bytes; NULL lim: the default). */
typedef struct img_limits {
    size_t max_px;
    const mb__tlimit *lim;
} img_limits;

/* The size a header announces, refused before anything is allocated
 * when a side, the pixel count or the decoded bytes (c channels) are
 * beyond the limits. */
static mb_status check_size(const char *what, size_t w, size_t h, int c,
                            const img_limits *lim, mb_err *err)
{
    size_t max_px = lim->max_px;
    if (w == 0 || h == 0)
        return mb__fail(err, MB_EFORMAT, "image %s is empty (%zux%zu)", what, w,
                        h);
    if (w > MB_IMAGE_MAX_SIDE || h > MB_IMAGE_MAX_SIDE || w * h > max_px)
        return mb__fail(err, MB_EUNSUPPORTED,
                        "image %s is %zux%zu pixels, beyond mbench's limit "
                        "(%d per side, %zu in all); resize it first",
                        what, w, h, MB_IMAGE_MAX_SIDE, max_px);
    char name[300];
    snprintf(name, sizeof name, "image %s (%zux%zu pixels)", what, w, h);
    return mb__tlimit_check(lim->lim, (uint64_t)w * h * (uint64_t)c, name, err);
}

/* A file shorter than any complete image of the size its header declares
 * is truncated or corrupt: refused before decoding (a 4 KB file declaring
 * 8192x8192 would otherwise cost gigabytes and seconds). */
static mb_status check_length(const char *what, const char *kind, size_t w,
                              size_t h, size_t len, uint64_t least, mb_err *err)
{
    if ((uint64_t)len >= least)
        return MB_OK;
    return mb__fail(err, MB_EFORMAT,
                    "image %s is not a readable %s: its header declares "
                    "%zux%zu pixels, which take at least %" PRIu64
                    " bytes, but the file has %zu: it is truncated or "
                    "corrupt",
                    what, kind, w, h, least, len);
}

/* ---- PNG ----------------------------------------------------------------- */

typedef struct png_src {
    const uint8_t *p;
    size_t len, off;
    char msg[160];
} png_src;

static void png_read_mem(png_structp png, png_bytep out, png_size_t n)
{
    png_src *s = png_get_io_ptr(png);
    if (n > s->len - s->off)
        png_error(png, "the file ends inside the image data");
    memcpy(out, s->p + s->off, n);
    s->off += n;
}

static void png_fail(png_structp png, png_const_charp msg)
{
    png_src *s = png_get_error_ptr(png);
    snprintf(s->msg, sizeof s->msg, "%s", msg);
    png_longjmp(png, 1);
}

/* libpng's warnings are errors (a damaged image is not data), except
 * those about ancillary chunks mbench does not use (color profiles, text,
 * time, physical size): libpng has skipped those chunks already. */
static void png_warn(png_structp png, png_const_charp msg)
{
    static const char *const ignored[] = {"iCCP", "sRGB", "cHRM", "gAMA",
                                          "tEXt", "zTXt", "iTXt", "tIME",
                                          "pHYs", "eXIf", "sBIT"};
    for (size_t i = 0; i < sizeof ignored / sizeof *ignored; i++)
        if (!strncmp(msg, ignored[i], 4))
            return;
    png_error(png, msg);
}

/* Expands palettes and low depths, cuts 16-bit channels to 8, drops
 * alpha: 1 (gray) or 3 (RGB) channels of 8 bits. */
static int png_transforms(png_structp png, png_infop info)
{
    int ct = png_get_color_type(png, info), bits = png_get_bit_depth(png, info);
    if (ct == PNG_COLOR_TYPE_PALETTE)
        png_set_palette_to_rgb(png);
    if (ct == PNG_COLOR_TYPE_GRAY && bits < 8)
        png_set_expand_gray_1_2_4_to_8(png);
    if (bits == 16)
        png_set_strip_16(png);
    if (ct & PNG_COLOR_MASK_ALPHA)
        png_set_strip_alpha(png);
    png_set_interlace_handling(png);
    return (ct & PNG_COLOR_MASK_COLOR) || ct == PNG_COLOR_TYPE_PALETTE ? 3 : 1;
}

/* The smallest file that can hold a w x h PNG of rowbytes-byte rows:
 * deflate packs at most about 1032:1. */
static uint64_t png_least(size_t h, size_t rowbytes)
{
    return (uint64_t)h * (rowbytes + 1) / 1040;
}

static mb_status png_decode(const uint8_t *buf, size_t len, const char *what,
                            const img_limits *lim, mb__image *out, mb_err *err)
{
    png_src src = {buf, len, 0, ""};
    png_structp png =
        png_create_read_struct(PNG_LIBPNG_VER_STRING, &src, png_fail, png_warn);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        png_destroy_read_struct(&png, NULL, NULL);
        return mb__fail(err, MB_ENOMEM, "out of memory decoding %s", what);
    }
    uint8_t *volatile px = NULL;
    png_bytep *volatile rows = NULL;
    volatile mb_status st = MB_OK;
    if (setjmp(png_jmpbuf(png))) {
        free(px);
        free(rows);
        png_destroy_read_struct(&png, &info, NULL);
        if (st)
            return st;
        return mb__fail(err, MB_EFORMAT, "image %s is not a readable PNG: %s",
                        what, src.msg);
    }
    png_set_user_limits(png, MB_IMAGE_MAX_SIDE, MB_IMAGE_MAX_SIDE);
    png_set_chunk_malloc_max(png, 8u << 20);
    png_set_read_fn(png, &src, png_read_mem);
    png_read_info(png, info);
    size_t w = png_get_image_width(png, info),
           h = png_get_image_height(png, info);
    int c = png_transforms(png, info);
    if ((st = check_size(what, w, h, c, lim, err)) ||
        (st = check_length(what, "PNG", w, h, len,
                           png_least(h, png_get_rowbytes(png, info)), err)))
        png_longjmp(png, 1);
    png_read_update_info(png, info);
    size_t rb = png_get_rowbytes(png, info);
    if (rb != w * (size_t)c) {
        snprintf(src.msg, sizeof src.msg, "unexpected row size %zu", rb);
        png_longjmp(png, 1);
    }
    px = mb__malloc(w * h * (size_t)c);
    rows = mb__calloc(h, sizeof *rows);
    if (!px || !rows) {
        st = mb__fail(err, MB_ENOMEM, "out of memory decoding %s", what);
        png_longjmp(png, 1);
    }
    for (size_t y = 0; y < h; y++)
        rows[y] = px + y * rb;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    free(rows);
    *out = (mb__image){px, w, h, c};
    return MB_OK;
}

/* ---- JPEG ---------------------------------------------------------------- */

typedef struct jpeg_fail {
    struct jpeg_error_mgr mgr;
    jmp_buf jb;
    char msg[JMSG_LENGTH_MAX];
} jpeg_fail;

static void jpeg_exit(j_common_ptr ci)
{
    jpeg_fail *f = (jpeg_fail *)ci->err;
    ci->err->format_message(ci, f->msg);
    longjmp(f->jb, 1);
}

/* libjpeg's warnings (level -1: premature end of data, corrupt data,
 * extraneous bytes) are errors: libjpeg would go on and fill the rest of
 * the image with grey.  Trace messages (level >= 0) are ignored. */
static void jpeg_warn(j_common_ptr ci, int level)
{
    if (level >= 0)
        return;
    jpeg_fail *f = (jpeg_fail *)ci->err;
    ci->err->format_message(ci, f->msg);
    longjmp(f->jb, 1);
}

/* The smallest Huffman-coded JPEG of this size: every 8x8 block of the
 * first component costs at least one bit in its DC scan (arithmetic
 * coding can go below: no bound then). */
static uint64_t jpeg_least(const struct jpeg_decompress_struct *ci)
{
    if (ci->arith_code || ci->num_components < 1 || !ci->comp_info)
        return 0;
    int hmax = 1, vmax = 1;
    for (int i = 0; i < ci->num_components; i++) {
        hmax = ci->comp_info[i].h_samp_factor > hmax
                   ? ci->comp_info[i].h_samp_factor
                   : hmax;
        vmax = ci->comp_info[i].v_samp_factor > vmax
                   ? ci->comp_info[i].v_samp_factor
                   : vmax;
    }
    uint64_t bw = (uint64_t)ci->image_width *
                  (uint64_t)ci->comp_info[0].h_samp_factor / (8u * hmax),
             bh = (uint64_t)ci->image_height *
                  (uint64_t)ci->comp_info[0].v_samp_factor / (8u * vmax);
    return bw * bh / 8;
}

/* Progressive JPEGs may hold any number of scans, each a pass over the
 * image: more than 500 is refused (libjpeg-turbo's advice against
 * denial of service). */
static void jpeg_scans(j_common_ptr ci)
{
    j_decompress_ptr d = (j_decompress_ptr)ci;
    if (ci->is_decompressor && d->progressive_mode &&
        d->input_scan_number > 500) {
        jpeg_fail *f = (jpeg_fail *)ci->err;
        snprintf(f->msg, sizeof f->msg, "more than 500 progressive scans");
        longjmp(f->jb, 1);
    }
}

static mb_status jpeg_decode(const uint8_t *buf, size_t len, const char *what,
                             const img_limits *lim, mb__image *out, mb_err *err)
{
    struct jpeg_decompress_struct ci;
    jpeg_fail f;
    struct jpeg_progress_mgr prog = {.progress_monitor = jpeg_scans};
    uint8_t *volatile px = NULL;
    volatile mb_status st = MB_OK;
    ci.err = jpeg_std_error(&f.mgr);
    f.mgr.error_exit = jpeg_exit;
    f.mgr.emit_message = jpeg_warn;
    f.msg[0] = '\0';
    if (setjmp(f.jb)) {
        jpeg_destroy_decompress(&ci);
        free(px);
        if (st)
            return st;
        return mb__fail(err, MB_EFORMAT, "image %s is not a readable JPEG: %s",
                        what, f.msg);
    }
    jpeg_create_decompress(&ci);
    ci.progress = &prog;
    ci.mem->max_memory_to_use = 256L << 20;
    jpeg_mem_src(&ci, buf, (unsigned long)len);
    jpeg_read_header(&ci, TRUE);
    if ((st = check_size(what, ci.image_width, ci.image_height,
                         ci.num_components == 1 ? 1 : 3, lim, err)) ||
        (st = check_length(what, "JPEG", ci.image_width, ci.image_height, len,
                           jpeg_least(&ci), err)))
        longjmp(f.jb, 1);
    if (ci.jpeg_color_space == JCS_CMYK || ci.jpeg_color_space == JCS_YCCK) {
        st = mb__fail(err, MB_EUNSUPPORTED,
                      "image %s is a CMYK JPEG; convert it to RGB", what);
        longjmp(f.jb, 1);
    }
    ci.out_color_space = ci.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_start_decompress(&ci);
    size_t w = ci.output_width, h = ci.output_height;
    int c = ci.output_components;
    px = mb__malloc(w * h * (size_t)c);
    if (!px) {
        st = mb__fail(err, MB_ENOMEM, "out of memory decoding %s", what);
        longjmp(f.jb, 1);
    }
    while (ci.output_scanline < ci.output_height) {
        JSAMPROW row = px + (size_t)ci.output_scanline * w * (size_t)c;
        jpeg_read_scanlines(&ci, &row, 1);
    }
    jpeg_finish_decompress(&ci);
    jpeg_destroy_decompress(&ci);
    *out = (mb__image){px, w, h, c};
    return MB_OK;
}

mb_status mb__image_decode(const uint8_t *buf, size_t len, const char *what,
                           mb__image *out, mb_err *err)
{
    return mb__image_decode_max(buf, len, what, MB_IMAGE_MAX_PIXELS, out, err);
}

mb_status mb__image_decode_max(const uint8_t *buf, size_t len, const char *what,
                               size_t max_pixels, mb__image *out, mb_err *err)
{
    return mb__image_decode_lim(buf, len, what, max_pixels, NULL, out, err);
}

mb_status mb__image_decode_lim(const uint8_t *buf, size_t len, const char *what,
                               size_t max_pixels, const mb__tlimit *tl,
                               mb__image *out, mb_err *err)
{
    memset(out, 0, sizeof *out);
    img_limits lim = {max_pixels, tl};
    if (lim.max_px > MB_IMAGE_MAX_PIXELS)
        lim.max_px = MB_IMAGE_MAX_PIXELS;
    if (len >= 8 && !png_sig_cmp(buf, 0, 8))
        return png_decode(buf, len, what, &lim, out, err);
    if (len >= 3 && buf[0] == 0xFF && buf[1] == 0xD8 && buf[2] == 0xFF)
        return jpeg_decode(buf, len, what, &lim, out, err);
    return mb__fail(err, MB_EFORMAT,
                    "image %s is neither PNG nor JPEG (by its first bytes); "
                    "convert it to PNG",
                    what);
}

mb_status mb__image_read(const char *path, mb__image *out, mb_err *err)
{
    return mb__image_read_lim(path, NULL, out, err);
}

mb_status mb__image_read_lim(const char *path, const mb__tlimit *lim,
                             mb__image *out, mb_err *err)
{
    memset(out, 0, sizeof *out);
    char *data = NULL;
    size_t len = 0;
    if (mb__file_size(path) > ((int64_t)1 << 30))
        return mb__fail(err, MB_EUNSUPPORTED,
                        "image %s is larger than 1 GiB; resize it first", path);
    mb_status st = mb__read_file(path, &data, &len, err);
    if (st)
        return st;
    st = mb__image_decode_lim((const uint8_t *)data, len, path,
                              MB_IMAGE_MAX_PIXELS, lim, out, err);
    free(data);
    return st;
}

/* ---- geometry ------------------------------------------------------------ */

static bool chan_ok(int64_t c)
{
    return c == 1 || c == 3 || c == 4;
}

mb_status mb__image_geom(const char *input, int rank, const int64_t *dims,
                         mb_dtype dtype, const mb__image_prep *prep,
                         mb__image_geometry *g, mb_err *err)
{
    memset(g, 0, sizeof *g);
    const int64_t *d = rank == 4 ? dims + 1 : dims;
    int ok_type = dtype == MB_DTYPE_FLOAT32 || dtype == MB_DTYPE_FLOAT16 ||
                  dtype == MB_DTYPE_FLOAT64 || dtype == MB_DTYPE_UINT8;
    int nhwc = -1;
    if ((rank == 3 || rank == 4) && ok_type) {
        if (prep && prep->layout)
            nhwc = prep->layout == 2;
        else if (chan_ok(d[0]))
            nhwc = 0;
        else if (chan_ok(d[2]))
            nhwc = 1;
    }
    if (nhwc < 0 || !chan_ok(nhwc ? d[2] : d[0]))
        return mb__fail(err, MB_EDATA,
                        "input '%s' is not an image input: images feed a "
                        "float or uint8 input [N, C, H, W] or [N, H, W, C] "
                        "with C = 1, 3 or 4 (--layout nchw|nhwc when the "
                        "shape does not tell)",
                        input);
    g->nhwc = nhwc;
    g->c = (int)(nhwc ? d[2] : d[0]);
    g->h = nhwc ? d[0] : d[1];
    g->w = nhwc ? d[1] : d[2];
    g->dtype = dtype;
    return MB_OK;
}

/* ---- preprocessing --------------------------------------------------------
 */

/* Pillow's resampling, 8 bits per channel: a separable triangle (bilinear)
 * filter whose support grows with the downscale factor (antialiasing),
 * coefficients in fixed point with 22 fraction bits, rounded to 8 bits
 * after each pass (Pillow's ImagingResample, which torchvision's Resize
 * calls on PIL images). */
#define PREC 22

static double tri(double x)
{
    x = fabs(x);
    return x < 1 ? 1 - x : 0;
}

static uint8_t clip8(int64_t v)
{
    if (v >= ((int64_t)255 << PREC))
        return 255;
    if (v <= 0)
        return 0;
    return (uint8_t)(v >> PREC);
}

/* Coefficients of every output position: bounds[2*o] the first input,
 * bounds[2*o+1] the count, k[o*ks ...] the weights; ks returned, 0 when
 * memory runs out. */
static size_t coeffs(size_t in, size_t outn, int64_t **bounds, int32_t **k)
{
    double scale = (double)in / (double)outn;
    double fs = scale < 1 ? 1 : scale, support = fs;
    size_t ks = (size_t)ceil(support) * 2 + 1;
    double *pre = mb__calloc(ks, sizeof *pre);
    *bounds = mb__calloc(2 * outn, sizeof **bounds);
    *k = mb__calloc(outn * ks, sizeof **k);
    if (!pre || !*bounds || !*k) {
        free(pre);
        free(*bounds);
        free(*k);
        *bounds = NULL;
        *k = NULL;
        return 0;
    }
    for (size_t o = 0; o < outn; o++) {
        double center = ((double)o + 0.5) * scale, ww = 0;
        int64_t lo = (int64_t)(center - support + 0.5),
                hi = (int64_t)(center + support + 0.5);
        if (lo < 0)
            lo = 0;
        if (hi > (int64_t)in)
            hi = (int64_t)in;
        int64_t n = hi - lo;
        for (int64_t x = 0; x < n; x++) {
            pre[x] = tri(((double)(x + lo) - center + 0.5) / fs);
            ww += pre[x];
        }
        for (int64_t x = 0; x < n; x++) {
            double v = ww != 0 ? pre[x] / ww : pre[x];
            (*k)[o * ks + (size_t)x] = (int32_t)(v < 0 ? -0.5 + v * (1 << PREC)
                                                       : 0.5 + v * (1 << PREC));
        }
        (*bounds)[2 * o] = lo;
        (*bounds)[2 * o + 1] = n;
    }
    free(pre);
    return ks;
}

/* One pass along x (horiz) or y of an h x w x c image into dst. */
static bool resample(const uint8_t *src, size_t w, size_t h, int c, size_t outn,
                     int horiz, uint8_t *dst)
{
    int64_t *b;
    int32_t *k;
    size_t ks = coeffs(horiz ? w : h, outn, &b, &k);
    if (!ks)
        return false;
    size_t ow = horiz ? outn : w, oh = horiz ? h : outn;
    for (size_t y = 0; y < oh; y++)
        for (size_t x = 0; x < ow; x++) {
            size_t o = horiz ? x : y;
            const int32_t *kk = k + o * ks;
            for (int ch = 0; ch < c; ch++) {
                int64_t ss = (int64_t)1 << (PREC - 1);
                for (int64_t i = 0; i < b[2 * o + 1]; i++) {
                    size_t sx = horiz ? (size_t)(b[2 * o] + i) : x,
                           sy = horiz ? y : (size_t)(b[2 * o] + i);
                    ss += (int64_t)src[(sy * w + sx) * (size_t)c + (size_t)ch] *
                          kk[i];
                }
                dst[(y * ow + x) * (size_t)c + (size_t)ch] = clip8(ss);
            }
        }
    free(b);
    free(k);
    return true;
}

/* im resized to h x w (horizontal pass first, as Pillow). */
static mb_status resize(mb__image *im, size_t h, size_t w, mb_err *err)
{
    if (im->w != w) {
        uint8_t *t = mb__malloc(im->h * w * (size_t)im->c);
        if (!t || !resample(im->px, im->w, im->h, im->c, w, 1, t)) {
            free(t);
            return mb__fail(err, MB_ENOMEM, "out of memory resizing");
        }
        free(im->px);
        im->px = t;
        im->w = w;
    }
    if (im->h != h) {
        uint8_t *t = mb__malloc(h * im->w * (size_t)im->c);
        if (!t || !resample(im->px, im->w, im->h, im->c, h, 0, t)) {
            free(t);
            return mb__fail(err, MB_ENOMEM, "out of memory resizing");
        }
        free(im->px);
        im->px = t;
        im->h = h;
    }
    return MB_OK;
}

/* The channels made c: gray replicated; RGB to gray by Pillow's luma
 * (L = (19595 R + 38470 G + 7471 B + 0x8000) >> 16); a fourth channel
 * (asked by a 4-channel model) is 255. */
static mb_status channels(mb__image *im, int c, mb_err *err)
{
    if (im->c == c)
        return MB_OK;
    size_t n = im->w * im->h;
    uint8_t *t = mb__malloc(n * (size_t)c);
    if (!t)
        return mb__fail(err, MB_ENOMEM, "out of memory converting channels");
    for (size_t i = 0; i < n; i++) {
        const uint8_t *s = im->px + i * (size_t)im->c;
        uint8_t *d = t + i * (size_t)c;
        if (c == 1)
            d[0] = (uint8_t)((19595u * s[0] + 38470u * s[1] + 7471u * s[2] +
                              0x8000u) >>
                             16);
        else
            for (int k = 0; k < c; k++)
                d[k] = k == 3 ? 255 : s[im->c == 1 ? 0 : k];
    }
    free(im->px);
    im->px = t;
    im->c = c;
    return MB_OK;
}

/* torchvision's Resize(int): the shorter side to s, the longer
 * int(s * long / short). */
static void resize_target(const mb__image *im, const mb__image_prep *p,
                          size_t *h, size_t *w)
{
    *h = im->h;
    *w = im->w;
    if (p->resize_h && p->resize_w) {
        *h = (size_t)p->resize_h;
        *w = (size_t)p->resize_w;
    } else if (p->resize_h) {
        size_t s = (size_t)p->resize_h;
        if (im->w <= im->h) {
            *w = s;
            *h = (size_t)((double)s * (double)im->h / (double)im->w);
        } else {
            *h = s;
            *w = (size_t)((double)s * (double)im->w / (double)im->h);
        }
    }
}

/* torchvision's CenterCrop (offsets rounded half to even, as Python's
 * round); pads nothing: a crop larger than the image is an error. */
static mb_status crop(mb__image *im, const char *what, size_t ch, size_t cw,
                      mb_err *err)
{
    if (ch > im->h || cw > im->w)
        return mb__fail(err, MB_EDATA,
                        "image %s is %zux%zu after --resize, smaller than "
                        "--center-crop %zux%zu",
                        what, im->h, im->w, ch, cw);
    size_t top = (size_t)nearbyint((double)(im->h - ch) / 2.0),
           left = (size_t)nearbyint((double)(im->w - cw) / 2.0);
    size_t c = (size_t)im->c;
    for (size_t y = 0; y < ch; y++)
        memmove(im->px + y * cw * c, im->px + ((top + y) * im->w + left) * c,
                cw * c);
    im->h = ch;
    im->w = cw;
    return MB_OK;
}

static void store(const mb__image_geometry *g, void *out, size_t i, double v)
{
    switch (g->dtype) {
    case MB_DTYPE_FLOAT64:
        ((double *)out)[i] = v;
        break;
    case MB_DTYPE_FLOAT16:
        ((uint16_t *)out)[i] = mb_f32_to_f16((float)v);
        break;
    case MB_DTYPE_UINT8:
        ((uint8_t *)out)[i] = (uint8_t)v;
        break;
    default:
        ((float *)out)[i] = (float)v;
    }
}

/* ToTensor and Normalize in float32, as torchvision computes them: the
 * pixel / 255 (or * --scale), then (x - mean) / std. */
static float normalized(const mb__image_prep *p, uint8_t px, int ch)
{
    float x =
        p->have_scale ? (float)((double)px * p->scale) : (float)px / 255.0f;
    if (p->n_mean)
        x -= (float)p->mean[p->n_mean == 1 ? 0 : ch];
    if (p->n_std)
        x /= (float)p->std[p->n_std == 1 ? 0 : ch];
    return x;
}

void mb__image_out_size(const mb__image *im, const mb__image_prep *prep,
                        mb__image_geometry *g)
{
    static const mb__image_prep none = {0};
    const mb__image_prep *p = prep ? prep : &none;
    size_t h, w;
    resize_target(im, p, &h, &w);
    if (p->crop_h) {
        h = (size_t)p->crop_h;
        w = (size_t)(p->crop_w ? p->crop_w : p->crop_h);
    }
    g->h = (int64_t)h;
    g->w = (int64_t)w;
}

mb_status mb__image_prepare(const mb__image *src, const char *what,
                            const mb__image_prep *prep,
                            const mb__image_geometry *g, void *out, mb_err *err)
{
    static const mb__image_prep none = {0};
    const mb__image_prep *p = prep ? prep : &none;
    if ((p->n_mean > 1 && p->n_mean != g->c) ||
        (p->n_std > 1 && p->n_std != g->c))
        return mb__fail(err, MB_EINVAL,
                        "--mean/--std give %d values but the model's images "
                        "have %d channels",
                        p->n_mean > 1 ? p->n_mean : p->n_std, g->c);
    mb__image im = {mb__malloc(src->w * src->h * (size_t)src->c), src->w,
                    src->h, src->c};
    if (!im.px)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    memcpy(im.px, src->px, src->w * src->h * (size_t)src->c);
    size_t rh, rw;
    resize_target(&im, p, &rh, &rw);
    mb_status st = channels(&im, g->c == 4 ? 3 : g->c, err);
    if (!st && (rh != im.h || rw != im.w))
        st = resize(&im, rh, rw, err);
    if (!st && p->crop_h)
        st = crop(&im, what, (size_t)p->crop_h,
                  (size_t)(p->crop_w ? p->crop_w : p->crop_h), err);
    if (!st && g->c == 4)
        st = channels(&im, 4, err);
    if (!st && ((g->h > 0 && (size_t)g->h != im.h) ||
                (g->w > 0 && (size_t)g->w != im.w)))
        st = mb__fail(err, MB_EDATA,
                      "image %s is %zux%zu (HxW)%s but the model takes "
                      "%lldx%lld; give --resize %lldx%lld, or --resize N "
                      "--center-crop %lldx%lld",
                      what, im.h, im.w,
                      p->resize_h || p->crop_h ? " after resizing and cropping"
                                               : "",
                      (long long)g->h, (long long)g->w, (long long)g->h,
                      (long long)g->w, (long long)g->h, (long long)g->w);
    if (st) {
        mb__image_free(&im);
        return st;
    }
    size_t hw = im.h * im.w, c = (size_t)g->c;
    for (size_t i = 0; i < hw; i++)
        for (size_t k = 0; k < c; k++) {
            size_t from = p->bgr && c >= 3 && k < 3 ? 2 - k : k;
            uint8_t px = im.px[i * c + from];
            double v =
                g->dtype == MB_DTYPE_UINT8 ? px : normalized(p, px, (int)k);
            store(g, out, g->nhwc ? i * c + k : k * hw + i, v);
        }
    mb__image_free(&im);
    return MB_OK;
}
