/* fuzz_image.c - libFuzzer harness for the PNG and JPEG decoders
 * (mb__image_decode) and the preprocessing behind them: every input is
 * decoded; a decoded image must have a size within the limits and its
 * pixel buffer must be readable in full; it is then prepared for a
 * 1-channel 28x28 and a 3-channel 16x16 NHWC input, resized and cropped,
 * so resampling, channel conversion and layout run on every decoded
 * image.  The sizes a header announces are bounded before allocating
 * (image.h; here at 1 Mpx, so that decodes stay fast), which is what
 * keeps this from running out of memory.  Built by `make fuzz`. */
#include "data/image.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mb__image im;
    mb_err err = {0};
    /* at most 1 Mpx: the limit check is the same code, decodes stay fast */
    if (mb__image_decode_max(data, size, "fuzz", (size_t)1 << 20, &im, &err) !=
        MB_OK) {
        if (im.px || !err.msg[0])
            abort(); /* a failure leaves nothing and says why */
        return 0;
    }
    if (!im.px || im.w == 0 || im.h == 0 || im.w > MB_IMAGE_MAX_SIDE ||
        im.h > MB_IMAGE_MAX_SIDE || (im.c != 1 && im.c != 3))
        abort();
    unsigned sum = 0;
    for (size_t i = 0; i < im.w * im.h * (size_t)im.c; i++)
        sum += im.px[i];
    if (im.w * im.h > ((size_t)1 << 20))
        abort(); /* the limit held */
    {
        float gray[28 * 28];
        uint8_t rgb[16 * 16 * 3];
        mb__image_prep p = {.resize_h = 28, .resize_w = 28};
        mb__image_geometry g = {1, 28, 28, 0, MB_DTYPE_FLOAT32};
        if (mb__image_prepare(&im, "fuzz", &p, &g, gray, &err) != MB_OK)
            abort();
        mb__image_prep q = {
            .resize_h = 20, .crop_h = 16, .crop_w = 16, .bgr = 1};
        mb__image_geometry h = {3, 16, 16, 1, MB_DTYPE_UINT8};
        mb_status st = mb__image_prepare(&im, "fuzz", &q, &h, rgb, &err);
        /* a very thin image stays thinner than the crop: refused, fine */
        if (st != MB_OK && st != MB_EDATA)
            abort();
    }
    mb__image_free(&im);
    return (int)(sum & 0);
}
