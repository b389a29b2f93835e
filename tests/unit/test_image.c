/* test_image.c - PNG decoding, its bounds and the preprocessing of
 * data/image.h on images built here (zlib writes the PNG chunks), and
 * the option parsers.  torchvision equality on real files is
 * tests/integration/images.sh. */
#include "data/image.h"
#include "t.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static size_t put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
    return 4;
}

static size_t chunk(uint8_t *out, const char *type, const uint8_t *d, size_t n)
{
    size_t k = put32(out, (uint32_t)n);
    memcpy(out + k, type, 4);
    if (n)
        memcpy(out + k + 4, d, n);
    uLong crc = crc32(0, out + k, (uInt)(n + 4));
    return k + 4 + n + put32(out + k + 4 + n, (uint32_t)crc);
}

/* An 8-bit PNG of w x h pixels of color type ct (0 gray, 2 RGB) from
 * px (no filter); returns its length in out (room for 4096). */
static size_t png(uint8_t *out, uint32_t w, uint32_t h, int ct,
                  const uint8_t *px)
{
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    size_t c = ct == 2 ? 3 : 1, n = 8;
    memcpy(out, sig, 8);
    uint8_t ihdr[13];
    put32(ihdr, w);
    put32(ihdr + 4, h);
    ihdr[8] = 8, ihdr[9] = (uint8_t)ct, ihdr[10] = ihdr[11] = ihdr[12] = 0;
    n += chunk(out + n, "IHDR", ihdr, 13);
    uint8_t raw[1024], z[2048];
    size_t r = 0;
    for (uint32_t y = 0; px && y < h; y++) {
        raw[r++] = 0; /* filter: none */
        memcpy(raw + r, px + y * w * c, w * c);
        r += w * c;
    }
    uLongf zl = sizeof z;
    compress(z, &zl, raw, r);
    n += chunk(out + n, "IDAT", z, zl);
    return n + chunk(out + n, "IEND", NULL, 0);
}

static void a_png_decodes_to_its_pixels(void)
{
    uint8_t px[6] = {1, 2, 3, 4, 5, 6}, buf[4096];
    size_t n = png(buf, 3, 2, 0, px);
    mb__image im;
    mb_err e = {0};
    EXPECT_EQ_INT(mb__image_decode(buf, n, "t.png", &im, &e), MB_OK);
    EXPECT_EQ_INT(im.w, 3);
    EXPECT_EQ_INT(im.h, 2);
    EXPECT_EQ_INT(im.c, 1);
    EXPECT(im.px && memcmp(im.px, px, 6) == 0);
    mb__image_free(&im);
}

static void damaged_and_huge_images_are_refused_without_allocating(void)
{
    uint8_t buf[4096];
    size_t n = png(buf, 3, 2, 0, (const uint8_t[6]){0});
    mb__image im;
    mb_err e = {0};
    EXPECT_EQ_INT(mb__image_decode(buf, n - 20, "cut.png", &im, &e),
                  MB_EFORMAT);
    EXPECT_CONTAINS(e.msg, "image cut.png is not a readable PNG");
    EXPECT(im.px == NULL);
    EXPECT_EQ_INT(
        mb__image_decode((const uint8_t *)"GIF89a..", 8, "x.gif", &im, &e),
        MB_EFORMAT);
    EXPECT_CONTAINS(e.msg, "neither PNG nor JPEG");
    /* 9000 x 9000 is within the side limit but beyond 2^26 pixels: the
     * header alone is read (the IDAT would be far too short anyway) */
    n = png(buf, 9000, 9000, 2, NULL);
    EXPECT_EQ_INT(mb__image_decode(buf, n, "big.png", &im, &e),
                  MB_EUNSUPPORTED);
    EXPECT_CONTAINS(e.msg, "9000x9000 pixels, beyond mbench's limit");
    n = png(buf, 100, 100, 2, NULL);
    EXPECT_EQ_INT(mb__image_decode_max(buf, n, "small.png", 5000, &im, &e),
                  MB_EUNSUPPORTED);
}

/* Issue 37: libpng's warnings are errors (image data beyond the rows the
 * header declares), and a PNG far too short for its declared size is
 * refused before decoding. */
static void png_warnings_and_impossible_lengths_are_refused(void)
{
    uint8_t buf[4096], px[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    size_t n = png(buf, 3, 3, 0, px);
    /* the same stream under a header of 3 x 2: one row too many */
    buf[8 + 8 + 7] = 2;
    uLong crc = crc32(0, buf + 12, 17);
    put32(buf + 29, (uint32_t)crc);
    mb__image im;
    mb_err e = {0};
    EXPECT_EQ_INT(mb__image_decode(buf, n, "extra.png", &im, &e), MB_EFORMAT);
    EXPECT_CONTAINS(e.msg, "image extra.png is not a readable PNG");
    EXPECT(im.px == NULL);
    n = png(buf, 8192, 8192, 2, NULL);
    EXPECT_EQ_INT(mb__image_decode(buf, n, "short.png", &im, &e), MB_EFORMAT);
    EXPECT_CONTAINS(e.msg, "declares 8192x8192 pixels, which take at least");
    mb__tlimit lim = {.max_bytes = 8};
    n = png(buf, 3, 3, 0, px);
    EXPECT_EQ_INT(mb__image_decode_lim(buf, n, "cap.png", MB_IMAGE_MAX_PIXELS,
                                       &lim, &im, &e),
                  MB_EDATA);
    EXPECT_CONTAINS(e.msg, "--max-tensor-bytes");
    lim.max_bytes = 9;
    EXPECT_EQ_INT(mb__image_decode_lim(buf, n, "cap.png", MB_IMAGE_MAX_PIXELS,
                                       &lim, &im, &e),
                  MB_OK);
    mb__image_free(&im);
}

static void rgb_becomes_gray_by_pillows_luma_and_gray_becomes_rgb(void)
{
    uint8_t rgb[6] = {255, 0, 0, 10, 200, 30};
    mb__image im = {rgb, 2, 1, 3};
    mb__image_geometry g = {1, 1, 2, 0, MB_DTYPE_UINT8};
    uint8_t out[6];
    mb_err e = {0};
    EXPECT_EQ_INT(mb__image_prepare(&im, "t", NULL, &g, out, &e), MB_OK);
    /* (19595 R + 38470 G + 7471 B + 32768) >> 16 */
    EXPECT_EQ_INT(out[0], 76);
    EXPECT_EQ_INT(out[1], (19595 * 10 + 38470 * 200 + 7471 * 30 + 32768) >> 16);
    uint8_t gray[2] = {7, 9};
    mb__image gi = {gray, 2, 1, 1};
    mb__image_geometry g3 = {3, 1, 2, 1, MB_DTYPE_UINT8};
    EXPECT_EQ_INT(mb__image_prepare(&gi, "t", NULL, &g3, out, &e), MB_OK);
    EXPECT(out[0] == 7 && out[1] == 7 && out[2] == 7 && out[3] == 9);
}

static void scale_mean_std_layout_and_channel_order(void)
{
    uint8_t px[6] = {0, 51, 255, 102, 153, 204}; /* 2 pixels, RGB */
    mb__image im = {px, 2, 1, 3};
    mb__image_prep p = {
        .n_mean = 1, .mean = {0.5}, .n_std = 1, .std = {0.5}, .bgr = 1};
    mb__image_geometry g = {3, 1, 2, 0, MB_DTYPE_FLOAT32}; /* NCHW */
    float out[6];
    mb_err e = {0};
    EXPECT_EQ_INT(mb__image_prepare(&im, "t", &p, &g, out, &e), MB_OK);
    /* channel 0 is blue (bgr), planar: [B0, B1, G0, G1, R0, R1] */
    EXPECT_NEAR(out[0], (255.0f / 255.0f - 0.5f) / 0.5f, 1e-7);
    EXPECT_NEAR(out[1], (204.0f / 255.0f - 0.5f) / 0.5f, 1e-7);
    EXPECT_NEAR(out[4], (0.0f - 0.5f) / 0.5f, 1e-7);
    EXPECT_NEAR(out[5], (102.0f / 255.0f - 0.5f) / 0.5f, 1e-7);
    p = (mb__image_prep){.have_scale = 1, .scale = 1.0};
    g.nhwc = 1;
    EXPECT_EQ_INT(mb__image_prepare(&im, "t", &p, &g, out, &e), MB_OK);
    EXPECT(out[0] == 0 && out[1] == 51 && out[3] == 102);
}

static void resize_and_center_crop_follow_torchvision(void)
{
    /* a constant image stays constant through resampling */
    uint8_t px[10 * 6];
    memset(px, 77, sizeof px);
    mb__image im = {px, 10, 6, 1};      /* w 10, h 6 */
    mb__image_prep p = {.resize_h = 3}; /* shorter side 3: 3 x int(3*10/6) */
    mb__image_geometry any = {1, 0, 0, 0, MB_DTYPE_UINT8};
    mb__image_out_size(&im, &p, &any);
    EXPECT_EQ_INT(any.h, 3);
    EXPECT_EQ_INT(any.w, 5);
    uint8_t out[15];
    mb__image_geometry g = {1, 3, 5, 0, MB_DTYPE_UINT8};
    mb_err e = {0};
    EXPECT_EQ_INT(mb__image_prepare(&im, "t", &p, &g, out, &e), MB_OK);
    for (int i = 0; i < 15; i++)
        EXPECT_EQ_INT(out[i], 77);
    /* a crop of 2 from 5 starts at round(1.5) = 2 (half to even) */
    uint8_t row[5] = {10, 20, 30, 40, 50};
    mb__image r = {row, 5, 1, 1};
    mb__image_prep c = {.crop_h = 1, .crop_w = 2};
    mb__image_geometry g2 = {1, 1, 2, 0, MB_DTYPE_UINT8};
    EXPECT_EQ_INT(mb__image_prepare(&r, "t", &c, &g2, out, &e), MB_OK);
    EXPECT(out[0] == 30 && out[1] == 40);
    /* a size the model does not take names the flags */
    mb__image_geometry g3 = {1, 4, 4, 0, MB_DTYPE_UINT8};
    EXPECT_EQ_INT(mb__image_prepare(&r, "r.png", NULL, &g3, out, &e), MB_EDATA);
    EXPECT_CONTAINS(e.msg, "image r.png is 1x5 (HxW) but the model takes 4x4");
}

static void option_values_are_checked(void)
{
    int64_t h, w;
    double v[4];
    int n;
    mb_err e = {0};
    EXPECT_EQ_INT(mb__image_size_parse("--resize", "256", &h, &w, &e), MB_OK);
    EXPECT(h == 256 && w == 0);
    EXPECT_EQ_INT(mb__image_size_parse("--resize", "224x200", &h, &w, &e),
                  MB_OK);
    EXPECT(h == 224 && w == 200);
    EXPECT_EQ_INT(mb__image_size_parse("--resize", "0", &h, &w, &e), MB_EINVAL);
    EXPECT_EQ_INT(mb__image_size_parse("--resize", "2x", &h, &w, &e),
                  MB_EINVAL);
    EXPECT_CONTAINS(e.msg, "invalid value '2x' for --resize");
    EXPECT_EQ_INT(
        mb__image_triple_parse("--mean", "0.485,0.456,0.406", v, &n, &e),
        MB_OK);
    EXPECT(n == 3 && v[2] == 0.406);
    EXPECT_EQ_INT(mb__image_triple_parse("--mean", "1,2", v, &n, &e),
                  MB_EINVAL);
    EXPECT_EQ_INT(mb__image_triple_parse("--mean", "1,,2", v, &n, &e),
                  MB_EINVAL);
}

int main(void)
{
    RUN(a_png_decodes_to_its_pixels);
    RUN(damaged_and_huge_images_are_refused_without_allocating);
    RUN(png_warnings_and_impossible_lengths_are_refused);
    RUN(rgb_becomes_gray_by_pillows_luma_and_gray_becomes_rgb);
    RUN(scale_mean_std_layout_and_channel_order);
    RUN(resize_and_center_crop_follow_torchvision);
    RUN(option_values_are_checked);
    return T_DONE();
}
