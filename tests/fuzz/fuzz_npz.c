/* fuzz_npz.c - libFuzzer harness for mb__npz_read_mem (the archive through
 * libzip, each member through the .npy reader).  Built by `make fuzz`. */
#include "data/npz.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mb_tensor *ts;
    size_t n;
    mb_err err;
    if (mb__npz_read_mem(size ? data : NULL, size, "fuzz.npz", &ts, &n,
                         &err) == MB_OK)
        mb__npz_free(ts, n);
    return 0;
}
