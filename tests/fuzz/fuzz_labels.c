/* fuzz_labels.c - libFuzzer harness for mb__labels_parse (.npy of integers
 * or text, one integer per line).  Built by `make fuzz`. */
#include "data/labels.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int64_t *v;
    size_t n;
    mb_err err;
    if (mb__labels_parse(data, size, "fuzz.labels", &v, &n, &err) == MB_OK)
        free(v);
    return 0;
}
