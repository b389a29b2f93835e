/* fuzz_npy.c - libFuzzer harness for the .npy reader.  Each input is read
 * twice: from memory (mb__npy_read_mem, what .npz members and labels use)
 * and as a file (mb__npy_read, which reads the header and the data with
 * pread: its own code path), through one memfd named /proc/self/fd/N, so
 * nothing is written to disk, and mapped from that file (mb__npy_map, what
 * `mbench diff` uses).  All three must agree on success and on the
 * tensor.  A decoded tensor is encoded again (mb__npy_encode) and must
 * read back identical.  Built by `make fuzz`. */
#include "core/buf.h"
#include "data/npy.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int g_fd = -1;
static char g_path[64];

static int same(const mb_tensor *a, const mb_tensor *b)
{
    return a->dtype == b->dtype && a->rank == b->rank &&
           memcmp(a->dims, b->dims, sizeof a->dims) == 0 &&
           a->nbytes == b->nbytes &&
           (a->nbytes == 0 || memcmp(a->data, b->data, a->nbytes) == 0);
}

static mb_status read_as_file(const uint8_t *data, size_t size, mb_tensor *t,
                              mb_err *err)
{
    if (g_fd < 0) {
        g_fd = memfd_create("fuzz_npy", MFD_CLOEXEC);
        if (g_fd < 0)
            abort();
        snprintf(g_path, sizeof g_path, "/proc/self/fd/%d", g_fd);
    }
    if (ftruncate(g_fd, 0) != 0)
        abort();
    for (size_t done = 0; done < size;) {
        ssize_t w = pwrite(g_fd, data + done, size - done, (off_t)done);
        if (w <= 0)
            abort();
        done += (size_t)w;
    }
    return mb__npy_read(g_path, t, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mb_tensor t, f;
    mb_err err, ferr;
    mb_status s =
        mb__npy_read_mem(size ? data : NULL, size, "fuzz.npy", &t, &err);
    mb_status fs = read_as_file(data, size, &f, &ferr);
    if ((s == MB_OK) != (fs == MB_OK) || (s == MB_OK && !same(&t, &f))) {
        fprintf(stderr, "memory: %d %s\nfile:   %d %s\n", s, s ? err.msg : "ok",
                fs, fs ? ferr.msg : "ok");
        abort(); /* the two readers disagree */
    }
    mb_tensor_clear(&f);
    void *map = NULL;
    size_t map_len = 0;
    mb_status ms = mb__npy_map(g_path, &f, &map, &map_len, &ferr);
    if ((s == MB_OK) != (ms == MB_OK) || (s == MB_OK && !same(&t, &f)))
        abort(); /* mapping disagrees with reading */
    mb__npy_unmap(&f, map, map_len);
    mb_tensor_clear(&f);
    if (s != MB_OK)
        return 0;
    mb__buf b = MB_BUF_INIT;
    if (mb__npy_encode(&t, &b, &err) == MB_OK) {
        mb_tensor u;
        if (mb__npy_read_mem(b.data, b.len, "re-encoded", &u, &err) != MB_OK)
            abort(); /* what we wrote must read back */
        if (!same(&u, &t))
            abort();
        mb_tensor_clear(&u);
    }
    mb__buf_free(&b);
    mb_tensor_clear(&t);
    return 0;
}
