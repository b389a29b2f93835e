/* fuzz_onnx_tensor.c - libFuzzer harness for mb__onnx_tensor_decode (a
 * serialized TensorProto, as in ONNX's test_data_set_N/input_0.pb).  A decoded
 * tensor is encoded again and must decode to the same tensor.  Inputs
 * whose top-level data_location is EXTERNAL are skipped: they would read
 * arbitrary files named by the input.  Built by `make fuzz`. */
#include "core/buf.h"
#include "model/onnx.h"
#include "model/pb.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int is_external(const uint8_t *data, size_t size)
{
    mb__pb r;
    mb__pb_field f;
    mb_err err;
    mb__pb_init(&r, size ? data : NULL, size);
    while (mb__pb_next(&r, &f, &err) == MB_OK && f.num)
        if (f.num == 14 && f.wire == MB_PB_VARINT && f.u64 == 1)
            return 1;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (is_external(data, size))
        return 0;
    mb_tensor t;
    mb_err err;
    if (mb__onnx_tensor_decode(size ? data : NULL, size, "/nonexistent", &t,
                               &err) != MB_OK)
        return 0;
    mb__buf b = MB_BUF_INIT;
    if (mb__onnx_tensor_encode(&t, &b, &err) == MB_OK) {
        mb_tensor u;
        if (mb__onnx_tensor_decode((const uint8_t *)b.data, b.len,
                                   "/nonexistent", &u, &err) != MB_OK)
            abort(); /* what we wrote must read back */
        if (u.dtype != t.dtype || u.rank != t.rank ||
            memcmp(u.dims, t.dims, sizeof t.dims) != 0 ||
            u.nbytes != t.nbytes ||
            (t.nbytes && memcmp(u.data, t.data, t.nbytes) != 0))
            abort();
        mb_tensor_clear(&u);
    }
    mb__buf_free(&b);
    mb_tensor_clear(&t);
    return 0;
}
