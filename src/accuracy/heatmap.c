/* heatmap.c - PNG heat maps of |a - b| through libpng, into memory. */
#include "accuracy/heatmap.h"

#include "accuracy/metrics.h"
#include "core/alloc.h"
#include "core/err.h"

#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

/* OKLab -> linear sRGB (Ottosson's published matrices). */
static void oklab_to_lin(double L, double a, double b, double out[3])
{
    double l_ = L + 0.3963377774 * a + 0.2158037573 * b;
    double m_ = L - 0.1055613458 * a - 0.0638541728 * b;
    double s_ = L - 0.0894841775 * a - 1.2914855480 * b;
    double l = l_ * l_ * l_, m = m_ * m_ * m_, s = s_ * s_ * s_;
    out[0] = 4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s;
    out[1] = -1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s;
    out[2] = -0.0041960863 * l - 0.7034186147 * m + 1.7076147010 * s;
}

static unsigned char srgb8(double x)
{
    if (!(x > 0))
        x = 0;
    if (x > 1)
        x = 1;
    double e = x <= 0.0031308 ? 12.92 * x : 1.055 * pow(x, 1 / 2.4) - 0.055;
    return (unsigned char)lround(e * 255.0);
}

void mb__heatmap_color(double t, unsigned char rgb[3])
{
    if (!(t > 0))
        t = 0;
    if (t > 1)
        t = 1;
    const double pi = 3.14159265358979323846;
    double L = 0.20 + 0.75 * t;
    double C = 0.11 + 0.07 * t * t - 0.05 * sin(pi * t);
    double h = (290.0 - 195.0 * t) * pi / 180.0;
    double lin[3];
    oklab_to_lin(L, C * cos(h), C * sin(h), lin);
    for (int i = 0; i < 3; i++)
        rgb[i] = srgb8(lin[i]);
}

static void png_write_buf(png_structp p, png_bytep data, png_size_t len)
{
    mb__buf_append(png_get_io_ptr(p), data, len);
}

static void png_flush_nop(png_structp p)
{
    (void)p;
}

mb_status mb__heatmap_png(const mb_tensor *a, const mb_tensor *b, mb_buf *png,
                          double *max_abs, mb_err *err)
{
    if (a->rank < 1 || a->rank != b->rank ||
        memcmp(a->dims, b->dims, sizeof(int64_t) * (size_t)a->rank) != 0) {
        char sa[256], sb[256];
        return mb__fail(err, MB_EDATA,
                        "heatmap needs two tensors of one shape with rank "
                        ">= 1, got %s and %s",
                        mb_shape_str(a->dims, a->rank, sa, sizeof sa),
                        mb_shape_str(b->dims, b->rank, sb, sizeof sb));
    }
    if (!mb__metrics_dtype_ok(a->dtype) || !mb__metrics_dtype_ok(b->dtype))
        return mb__fail(err, MB_EUNSUPPORTED,
                        "heatmap: cannot draw %s against %s tensors",
                        mb_dtype_name(a->dtype), mb_dtype_name(b->dtype));
    size_t W = (size_t)a->dims[a->rank - 1];
    size_t H = a->rank >= 2 ? (size_t)a->dims[a->rank - 2] : 1;
    if (W == 0 || H == 0 || W > 100000 || H > 100000)
        return mb__fail(err, MB_EDATA,
                        "heatmap: image of %zux%zu pixels cannot be drawn", H,
                        W);
    size_t n = W * H;
    double *x = mb__calloc(n, sizeof *x), *y = mb__calloc(n, sizeof *y);
    if (!x || !y) {
        free(x);
        free(y);
        return mb__fail(err, MB_ENOMEM, "out of memory for the heatmap");
    }
    mb__tensor_load_f64(a, 0, n, x);
    mb__tensor_load_f64(b, 0, n, y);
    double mx = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs(y[i] - x[i]);
        if (isfinite(x[i]) && isfinite(y[i]) && d > mx)
            mx = d;
        x[i] = (isfinite(x[i]) && isfinite(y[i])) ? d : NAN;
    }
    free(y);
    if (max_abs)
        *max_abs = mx;
    size_t scale = 1;
    while (W * scale < 256 && H * scale < 4096 && scale < 64)
        scale++;
    size_t ow = W * scale, oh = H * scale;
    unsigned char *row = mb__calloc(ow, 3);
    if (!row) {
        free(x);
        return mb__fail(err, MB_ENOMEM, "out of memory for the heatmap");
    }
    png_structp p =
        png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = p ? png_create_info_struct(p) : NULL;
    if (!p || !info) {
        png_destroy_write_struct(&p, &info);
        free(x);
        free(row);
        return mb__fail(err, MB_ENOMEM, "libpng could not start");
    }
    if (setjmp(png_jmpbuf(p))) {
        png_destroy_write_struct(&p, &info);
        free(x);
        free(row);
        return mb__fail(err, MB_EIO, "libpng failed to encode the heatmap");
    }
    png_set_write_fn(p, png, png_write_buf, png_flush_nop);
    png_set_IHDR(p, info, (png_uint_32)ow, (png_uint_32)oh, 8,
                 PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(p, info);
    for (size_t r = 0; r < oh; r++) {
        const double *src = x + (r / scale) * W;
        for (size_t c = 0; c < ow; c++) {
            double v = src[c / scale];
            unsigned char *px = row + 3 * c;
            if (isnan(v)) {
                px[0] = 255;
                px[1] = 0;
                px[2] = 255;
            } else {
                mb__heatmap_color(mx > 0 ? v / mx : 0, px);
            }
        }
        png_write_row(p, row);
    }
    png_write_end(p, info);
    png_destroy_write_struct(&p, &info);
    free(x);
    free(row);
    if (png->oom)
        return mb__fail(err, MB_ENOMEM, "out of memory encoding the heatmap");
    return MB_OK;
}
