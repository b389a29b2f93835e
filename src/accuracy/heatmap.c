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

/* The geometry of what is drawn: image W x H, `images` of them from
 * element `first`, pooled by f into gw x gh. */
typedef struct heat_geom {
    size_t W, H, images, first, f, gw, gh;
} heat_geom;

static mb_status check_pair(const mb_tensor *a, const mb_tensor *b, mb_err *err)
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
    return MB_OK;
}

/* The geometry of o->sample of a (checked by check_pair) into *g and
 * info's sample fields. */
static mb_status geometry(const mb_tensor *a, const mb__heat_opts *o,
                          heat_geom *g, mb__heat_info *info, mb_err *err)
{
    memset(g, 0, sizeof *g);
    g->W = (size_t)a->dims[a->rank - 1];
    g->H = a->rank >= 2 ? (size_t)a->dims[a->rank - 2] : 1;
    if (g->W == 0 || g->H == 0 || g->W > 100000 || g->H > 100000)
        return mb__fail(err, MB_EDATA,
                        "heatmap: image of %zux%zu pixels cannot be drawn",
                        g->H, g->W);
    size_t numel = 1;
    for (int k = 0; k < a->rank; k++)
        numel *= (size_t)a->dims[k];
    info->samples = (size_t)a->dims[0];
    info->sample = -1;
    g->images = 1;
    if (a->rank >= 3) {
        if (info->samples == 0)
            return mb__fail(err, MB_EDATA,
                            "heatmap: the output has no samples");
        if (o->sample < 0 || (uint64_t)o->sample >= info->samples)
            return mb__fail(err, MB_EINVAL,
                            "heatmap sample %lld is outside the output: it "
                            "has %zu samples (0..%zu)",
                            (long long)o->sample, info->samples,
                            info->samples - 1);
        size_t per = numel / info->samples;
        g->images = per / (g->W * g->H);
        g->first = (size_t)o->sample * per;
        info->sample = o->sample;
    }
    size_t side = g->W > g->H ? g->W : g->H;
    g->f = o->max_side && side > o->max_side
               ? (side + o->max_side - 1) / o->max_side
               : 1;
    g->gw = (g->W + g->f - 1) / g->f;
    g->gh = (g->H + g->f - 1) / g->f;
    info->width = g->W;
    info->height = g->H;
    return MB_OK;
}

/* |b - a| pooled into grid (g->gw x g->gh, zeroed): each cell the largest
 * difference of its block over every image, NAN when any pair there is
 * not finite.  Returns the largest finite cell; MB_ENOMEM in *st. */
static double fill_grid(const mb_tensor *a, const mb_tensor *b,
                        const heat_geom *g, double *grid, mb_status *st)
{
    double *x = mb__calloc(g->W, sizeof *x), *y = mb__calloc(g->W, sizeof *y);
    *st = x && y ? MB_OK : MB_ENOMEM;
    for (size_t im = 0; !*st && im < g->images; im++)
        for (size_t r = 0; r < g->H; r++) {
            size_t off = g->first + (im * g->H + r) * g->W;
            mb__tensor_load_f64(a, off, g->W, x);
            mb__tensor_load_f64(b, off, g->W, y);
            double *cell = grid + (r / g->f) * g->gw;
            for (size_t c = 0; c < g->W; c++) {
                double *v = cell + c / g->f;
                if (!isfinite(x[c]) || !isfinite(y[c]))
                    *v = NAN;
                else if (!isnan(*v) && fabs(y[c] - x[c]) > *v)
                    *v = fabs(y[c] - x[c]);
            }
        }
    free(x);
    free(y);
    double mx = 0;
    for (size_t i = 0; i < g->gw * g->gh; i++)
        if (!isnan(grid[i]) && grid[i] > mx)
            mx = grid[i];
    return mx;
}

/* Encodes grid (gw x gh, scaled up by `scale`) into png. */
static mb_status encode(const double *grid, size_t gw, size_t gh, size_t scale,
                        double mx, mb__buf *png, mb_err *err)
{
    size_t ow = gw * scale, oh = gh * scale;
    unsigned char *row = mb__calloc(ow, 3);
    if (!row)
        return mb__fail(err, MB_ENOMEM, "out of memory for the heatmap");
    png_structp p =
        png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = p ? png_create_info_struct(p) : NULL;
    if (!p || !info) {
        png_destroy_write_struct(&p, &info);
        free(row);
        return mb__fail(err, MB_ENOMEM, "libpng could not start");
    }
    if (setjmp(png_jmpbuf(p))) {
        png_destroy_write_struct(&p, &info);
        free(row);
        return mb__fail(err, MB_EIO, "libpng failed to encode the heatmap");
    }
    png_set_write_fn(p, png, png_write_buf, png_flush_nop);
    png_set_IHDR(p, info, (png_uint_32)ow, (png_uint_32)oh, 8,
                 PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(p, info);
    for (size_t r = 0; r < oh; r++) {
        const double *src = grid + (r / scale) * gw;
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
    free(row);
    if (png->oom)
        return mb__fail(err, MB_ENOMEM, "out of memory encoding the heatmap");
    return MB_OK;
}

mb_status mb__heatmap_draw(const mb_tensor *a, const mb_tensor *b,
                           const mb__heat_opts *o, mb__buf *png,
                           mb__heat_info *info, mb_err *err)
{
    mb__heat_info local;
    info = info ? info : &local;
    memset(info, 0, sizeof *info);
    heat_geom g;
    mb_status st = check_pair(a, b, err);
    if (st || (st = geometry(a, o, &g, info, err)))
        return st;
    double *grid = mb__calloc(g.gw * g.gh, sizeof *grid);
    if (!grid)
        return mb__fail(err, MB_ENOMEM, "out of memory for the heatmap");
    info->max_abs = fill_grid(a, b, &g, grid, &st);
    for (size_t i = 0; i < g.gw * g.gh; i++)
        info->nonfinite += isnan(grid[i]) != 0;
    size_t scale = 1;
    while (o->enlarge && g.gw * scale < 256 && g.gh * scale < 4096 &&
           scale < 64)
        scale++;
    info->png_w = g.gw * scale;
    info->png_h = g.gh * scale;
    if (st)
        st = mb__fail(err, st, "out of memory for the heatmap");
    else
        st = encode(grid, g.gw, g.gh, scale, info->max_abs, png, err);
    free(grid);
    return st;
}

mb_status mb__heatmap_png(const mb_tensor *a, const mb_tensor *b, mb__buf *png,
                          double *max_abs, mb_err *err)
{
    mb__heat_opts o = {0, 0, 1};
    mb__heat_info info;
    mb_status st = mb__heatmap_draw(a, b, &o, png, &info, err);
    if (max_abs)
        *max_abs = info.max_abs;
    return st;
}

static double metric_or(const json_t *m, const char *key, double none)
{
    double v = NAN;
    mb__json_metric_get(json_object_get(m, key), &v);
    return isnan(v) ? none : v; /* "inf" is the most */
}

static const char *pair_name(const mb_tensor *a, const json_t *outs, size_t i)
{
    const char *nm =
        json_string_value(json_object_get(json_array_get(outs, i), "name"));
    return nm ? nm : a[i].name ? a[i].name : "";
}

size_t mb__heatmap_pick(const mb_tensor *a, const mb_tensor *b, size_t n,
                        const json_t *outs, const char *want)
{
    size_t k = n, first = n;
    double best_rel = -1, best_abs = -1;
    for (size_t i = 0; i < n; i++) {
        if (!a[i].data || !b[i].data || a[i].rank < 1 ||
            a[i].rank != b[i].rank ||
            memcmp(a[i].dims, b[i].dims, sizeof(int64_t) * (size_t)a[i].rank) !=
                0 ||
            !mb__metrics_dtype_ok(a[i].dtype) ||
            !mb__metrics_dtype_ok(b[i].dtype))
            continue; /* nothing to draw */
        if (want) {
            if (!strcmp(pair_name(a, outs, i), want))
                return i;
            continue;
        }
        first = first < n ? first : i;
        const json_t *m = json_array_get(outs, i);
        double rel = metric_or(m, "rel_l2", -1),
               mx = metric_or(m, "max_abs", -1);
        if (a[i].rank >= 2 &&
            (k == n || rel > best_rel || (rel == best_rel && mx > best_abs))) {
            k = i;
            best_rel = rel;
            best_abs = mx;
        }
    }
    return k < n ? k : first;
}

int64_t mb__heatmap_worst(const json_t *metrics)
{
    static const char *const keys[] = {"rel_l2", "max_abs", "mae"};
    const json_t *w = json_object_get(metrics, "worst");
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        const json_t *s =
            json_object_get(json_object_get(w, keys[i]), "sample");
        if (json_is_integer(s) && json_integer_value(s) >= 0)
            return (int64_t)json_integer_value(s);
    }
    return 0;
}

mb_status mb__heatmap_embed(const mb_tensor *a, const mb_tensor *b, size_t n,
                            const json_t *outs, const char *want,
                            int64_t sample, json_t **out, mb_err *err)
{
    *out = NULL;
    size_t k = mb__heatmap_pick(a, b, n, outs, want);
    if (k == n && want)
        return mb__fail(err, MB_EINVAL, "heatmap: no output named '%s' to draw",
                        want);
    if (k == n)
        return MB_OK;
    const json_t *m = json_array_get(outs, k);
    mb__heat_opts o = {sample < 0 ? mb__heatmap_worst(m) : sample, 160, 0};
    mb__heat_info info;
    mb__buf png = MB_BUF_INIT, b64 = MB_BUF_INIT;
    mb_status st = mb__heatmap_draw(&a[k], &b[k], &o, &png, &info, err);
    if (!st) {
        mb__buf_base64(&b64, png.data, png.len);
        if (b64.oom)
            st = mb__fail(err, MB_ENOMEM, "out of memory for the heatmap");
    }
    if (!st) {
        *out = json_object();
        json_object_set_new(*out, "output", json_string(pair_name(a, outs, k)));
        json_object_set_new(*out, "sample",
                            info.sample < 0 ? json_null()
                                            : json_integer(info.sample));
        json_object_set_new(*out, "samples",
                            json_integer((json_int_t)info.samples));
        json_object_set_new(*out, "chosen",
                            json_string(info.sample < 0 ? "whole tensor"
                                        : sample < 0    ? "worst sample"
                                                        : "--heatmap-sample"));
        json_object_set_new(*out, "max_abs", json_real(info.max_abs));
        json_object_set_new(*out, "width",
                            json_integer((json_int_t)info.width));
        json_object_set_new(*out, "height",
                            json_integer((json_int_t)info.height));
        json_object_set_new(*out, "png_base64", json_string(b64.data));
    }
    mb__buf_free(&png);
    mb__buf_free(&b64);
    return st;
}
