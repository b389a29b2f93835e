/* fuzz_onnx.c - libFuzzer harness for mb__onnx_inspect (onnx.c over the
 * sparse image of onnx_image.c).  The inspector takes a path because the
 * image loader reads the file with pread; the input goes into one memfd
 * (created once, rewritten per input) named by /proc/self/fd/N, so no file
 * is written to disk.  Built by `make fuzz`. */
#include "model/onnx.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int g_fd = -1;
static char g_path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (g_fd < 0) {
        g_fd = memfd_create("fuzz_onnx", MFD_CLOEXEC);
        if (g_fd < 0)
            abort();
        snprintf(g_path, sizeof g_path, "/proc/self/fd/%d", g_fd);
    }
    if (ftruncate(g_fd, 0) != 0)
        abort();
    size_t done = 0;
    while (done < size) {
        ssize_t w = pwrite(g_fd, data + done, size - done, (off_t)done);
        if (w <= 0)
            abort();
        done += (size_t)w;
    }
    json_t *o = NULL;
    mb_err err;
    if (mb__onnx_inspect(g_path, &o, &err) == MB_OK) {
        char *s = json_dumps(o, JSON_COMPACT);
        free(s);
        json_decref(o);
    }
    return 0;
}
