/* fuzz_child.c - libFuzzer harness for the worker protocol of run and
 * compare (src/runner/child.c): the parent's reading of replies
 * (mb__child_read_reply: header {int32 status, uint64 len}, then len
 * bytes) from a stream a worker wrote, and what the parent does with each
 * payload -- samples of a measurement, "BATCHES SAMPLES" of the outputs
 * command, the RUN object as JSON.  The input is the stream, read through
 * a memfd.  Invariants: a length above the 1 GiB bound allocates nothing
 * and is refused; a payload has the length its header says.  Built by
 * `make fuzz`. */
#include "runner/child.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int g_fd = -1;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (g_fd < 0 && (g_fd = memfd_create("fuzz_child", MFD_CLOEXEC)) < 0)
        abort();
    if (ftruncate(g_fd, 0) != 0 || lseek(g_fd, 0, SEEK_SET) != 0)
        abort();
    for (size_t done = 0; done < size;) {
        ssize_t w = write(g_fd, data + done, size - done);
        if (w <= 0)
            abort();
        done += (size_t)w;
    }
    if (lseek(g_fd, 0, SEEK_SET) != 0)
        abort();
    for (int k = 0; k < 64; k++) {
        int32_t status;
        char *payload;
        size_t len;
        int r = mb__child_read_reply(g_fd, &status, &payload, &len);
        if (r)
            break;
        if (len > size || payload[len] != '\0')
            abort();
        if (status == 0) {
            size_t batches, samples;
            (void)sscanf(payload, "%zu %zu", &batches, &samples);
            json_error_t je;
            json_decref(json_loads(payload, 0, &je));
        }
        free(payload);
    }
    return 0;
}
