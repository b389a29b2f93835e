/* fuzz_pb.c - libFuzzer harness for the protobuf wire reader (pb.h): walks
 * the input as a message, descending into every length-delimited payload
 * as if it were a message too, and reads packed varints and strings, as
 * the ONNX and TensorProto readers do.  Built by `make fuzz`. */
#include "model/pb.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk(const mb__pb *msg, int depth)
{
    mb__pb r = *msg;
    mb__pb_field f;
    mb_err err;
    size_t fields = 0;
    while (mb__pb_next(&r, &f, &err) == MB_OK && f.num) {
        if (++fields > 4096)
            return; /* keeps one input's cost bounded */
        if (f.wire == MB_PB_VARINT)
            (void)mb__pb_zigzag64(f.u64);
        else if (f.wire == MB_PB_I32)
            (void)mb__pb_f32(f.u64);
        else if (f.wire == MB_PB_I64)
            (void)mb__pb_f64(f.u64);
        if (f.wire != MB_PB_LEN && f.wire != MB_PB_SGROUP)
            continue;
        size_t n;
        (void)mb__pb_count_varints(&f, &n, &err);
        (void)mb__pb_streq(&f, "location");
        char *s = mb__pb_strdup(&f);
        free(s);
        if (depth < 8) {
            mb__pb sub = mb__pb_sub(&r, &f);
            walk(&sub, depth + 1);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mb__pb r;
    mb__pb_init(&r, size ? data : NULL, size);
    walk(&r, 0);
    /* The primitive reads at every start offset of a short prefix. */
    mb_err err;
    for (size_t i = 0; i < size && i < 16; i++) {
        mb__pb p;
        mb__pb_init(&p, data, size);
        p.pos = i;
        uint64_t v;
        uint32_t w;
        (void)mb__pb_read_varint(&p, &v, &err);
        (void)mb__pb_read_fixed32(&p, &w, &err);
        (void)mb__pb_read_fixed64(&p, &v, &err);
    }
    return 0;
}
