/* fuzz_npz.c - libFuzzer harness for mb__npz_read_mem (the archive through
 * libzip, each member through the .npy reader).  Two modes, by the first
 * byte:
 *  - even: the rest is the archive itself (mutations of the zip layout);
 *  - odd: the rest is "NAME\0CONTENT..." pairs that are packed into a
 *    valid stored archive first, so member names and member contents
 *    reach mb__npz_read_mem past libzip's CRC check (a mutated archive
 *    almost never does).
 * Built by `make fuzz`. */
#include "data/npz.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Packs the NAME\0CONTENT\0NAME\0CONTENT... list at p into a new zip in
 * memory (*out, *len; free()).  Returns 0 on success. */
static int pack(const uint8_t *p, size_t n, uint8_t **out, size_t *len)
{
    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *src = zip_source_buffer_create(NULL, 0, 0, &ze);
    zip_error_fini(&ze);
    if (!src)
        return -1;
    zip_source_keep(src);
    zip_t *za = zip_open_from_source(src, ZIP_TRUNCATE, NULL);
    if (!za) {
        zip_source_free(src);
        return -1;
    }
    int members = 0;
    while (n && members < 8) {
        const uint8_t *z = memchr(p, '\0', n);
        if (!z)
            break;
        char name[256];
        size_t nl = (size_t)(z - p);
        if (nl == 0 || nl >= sizeof name)
            break;
        memcpy(name, p, nl);
        name[nl] = '\0';
        p = z + 1;
        n -= nl + 1;
        /* content runs to the next "\0\0" or the end */
        size_t cl = 0;
        while (cl < n && !(cl + 1 < n && p[cl] == 0 && p[cl + 1] == 0))
            cl++;
        zip_source_t *ms = zip_source_buffer(za, p, cl, 0);
        zip_int64_t idx = ms ? zip_file_add(za, name, ms, ZIP_FL_ENC_RAW) : -1;
        if (idx < 0) {
            if (ms)
                zip_source_free(ms);
            break;
        }
        zip_set_file_compression(za, (zip_uint64_t)idx,
                                 members % 2 ? ZIP_CM_DEFLATE : ZIP_CM_STORE,
                                 0);
        members++;
        size_t skip = cl + 2 <= n ? cl + 2 : n;
        p += skip;
        n -= skip;
    }
    if (zip_close(za) != 0) {
        zip_discard(za);
        zip_source_free(src);
        return -1;
    }
    int rc = -1;
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_source_open(src) == 0) {
        if (zip_source_stat(src, &st) == 0 && (st.valid & ZIP_STAT_SIZE) &&
            (*out = malloc(st.size ? st.size : 1))) {
            zip_int64_t r = zip_source_read(src, *out, st.size);
            if (r >= 0 && (zip_uint64_t)r == st.size) {
                *len = (size_t)st.size;
                rc = 0;
            } else {
                free(*out);
                *out = NULL;
            }
        }
        zip_source_close(src);
    }
    zip_source_free(src);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const uint8_t *buf = data + 1;
    size_t len = size - 1;
    uint8_t *packed = NULL;
    if (data[0] & 1) {
        if (pack(buf, len, &packed, &len) != 0)
            return 0;
        buf = packed;
    }
    mb_tensor *ts;
    size_t n;
    mb_err err;
    if (mb__npz_read_mem(len ? buf : NULL, len, "fuzz.npz", &ts, &n, &err) ==
        MB_OK)
        mb__npz_free(ts, n);
    free(packed);
    return 0;
}
