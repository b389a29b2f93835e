/* fuzz_ov_ir.c - libFuzzer harness for the OpenVINO IR parameter count
 * (plugins/openvino/ir_consts.c, included here: the plugin is not part of
 * libmbench).  The input is the .xml text, not NUL-terminated; no more
 * types than room, and every element type found a NUL-terminated name.
 * Built by `make fuzz`. */
#include "../../plugins/openvino/ir_consts.c"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mb_ov_ir_count c[4];
    size_t n = mb_ov_ir_consts((const char *)data, size, c, 4);
    if (n > 4)
        abort();
    for (size_t i = 0; i < n; i++) {
        if (memchr(c[i].type, 0, sizeof c[i].type) == NULL)
            abort();
        if (!mb_ov_ir_dtype(c[i].type))
            abort();
    }
    return 0;
}
