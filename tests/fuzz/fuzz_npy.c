/* fuzz_npy.c - libFuzzer harness for mb__npy_read_mem.  A decoded tensor
 * is encoded again (mb__npy_encode) and must read back identical.  Built
 * by `make fuzz`. */
#include "core/buf.h"
#include "data/npy.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mb_tensor t;
    mb_err err;
    if (mb__npy_read_mem(size ? data : NULL, size, "fuzz.npy", &t, &err) !=
        MB_OK)
        return 0;
    mb_buf b = MB_BUF_INIT;
    if (mb__npy_encode(&t, &b, &err) == MB_OK) {
        mb_tensor u;
        if (mb__npy_read_mem(b.data, b.len, "re-encoded", &u, &err) != MB_OK)
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
