/* npz.c - .npz archives read and written with libzip. */
#include "data/npz.h"

#include "core/parse.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/fileio.h"
#include "data/npy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zip.h>

void mb__npz_free(mb_tensor *tensors, size_t n)
{
    if (!tensors)
        return;
    for (size_t i = 0; i < n; i++)
        mb_tensor_clear(&tensors[i]);
    free(tensors);
}

/* Reads member i (of `size` bytes) whole into a new buffer. */
static mb_status read_member(zip_t *za, zip_uint64_t i, const char *path,
                             const char *name, zip_uint64_t size,
                             uint8_t **data, mb_err *err)
{
    *data = NULL;
    if (size > SIZE_MAX - 1)
        return mb__fail(err, MB_ENOMEM,
                        "%s: member %s is too large (%llu "
                        "bytes)",
                        path, name, (unsigned long long)size);
    zip_file_t *zf = zip_fopen_index(za, i, 0);
    if (!zf)
        return mb__fail(err, MB_EFORMAT,
                        "%s: cannot open member %s: %s (the archive is "
                        "damaged or uses an unsupported compression)",
                        path, name, zip_strerror(za));
    uint8_t *buf = mb__malloc((size_t)size + 1);
    if (!buf) {
        zip_fclose(zf);
        return mb__fail(err, MB_ENOMEM, "out of memory reading %s member %s",
                        path, name);
    }
    zip_uint64_t got = 0;
    while (got < size) {
        zip_int64_t r = zip_fread(zf, buf + got, size - got);
        if (r < 0) {
            mb_status s =
                mb__fail(err, MB_EFORMAT, "%s: member %s is corrupt: %s", path,
                         name, zip_file_strerror(zf));
            free(buf);
            zip_fclose(zf);
            return s;
        }
        if (r == 0)
            break;
        got += (zip_uint64_t)r;
    }
    /* Reading to the end is what makes libzip check the CRC. */
    uint8_t extra;
    zip_int64_t r = got == size ? zip_fread(zf, &extra, 1) : 0;
    if (got != size || r != 0) {
        mb_status s = mb__fail(err, MB_EFORMAT, "%s: member %s is corrupt: %s",
                               path, name,
                               r < 0 ? zip_file_strerror(zf)
                                     : "its size does not match the "
                                       "directory");
        free(buf);
        zip_fclose(zf);
        return s;
    }
    int rc = zip_fclose(zf);
    if (rc != 0) {
        zip_error_t ze;
        zip_error_init_with_code(&ze, rc);
        mb_status s = mb__fail(err, MB_EFORMAT, "%s: member %s is corrupt: %s",
                               path, name, zip_error_strerror(&ze));
        zip_error_fini(&ze);
        free(buf);
        return s;
    }
    *data = buf;
    return MB_OK;
}

static mb_status read_archive(zip_t *za, const char *path, uint64_t packed,
                              const mb__tlimit *lim, mb_tensor **out, size_t *n,
                              mb_err *err);

mb_status mb__npz_read(const char *path, mb_tensor **out, size_t *n,
                       mb_err *err)
{
    return mb__npz_read_lim(path, NULL, out, n, err);
}

mb_status mb__npz_read_lim(const char *path, const mb__tlimit *lim,
                           mb_tensor **out, size_t *n, mb_err *err)
{
    *out = NULL;
    *n = 0;
    struct stat st;
    if (stat(path, &st) != 0)
        return mb__fail(err, MB_EIO, "cannot open %s: %s", path,
                        strerror(errno));
    int zerr = 0;
    zip_t *za = zip_open(path, ZIP_RDONLY | ZIP_CHECKCONS, &zerr);
    if (!za) {
        zip_error_t ze;
        zip_error_init_with_code(&ze, zerr);
        mb_status s = mb__fail(
            err,
            zerr == ZIP_ER_OPEN || zerr == ZIP_ER_READ ? MB_EIO : MB_EFORMAT,
            "%s is not a readable .npz (zip) archive: %s", path,
            zip_error_strerror(&ze));
        zip_error_fini(&ze);
        return s;
    }
    return read_archive(za, path, (uint64_t)st.st_size, lim, out, n, err);
}

mb_status mb__npz_read_mem(const void *buf, size_t len, const char *what,
                           mb_tensor **out, size_t *n, mb_err *err)
{
    return mb__npz_read_mem_lim(buf, len, what, NULL, out, n, err);
}

mb_status mb__npz_read_mem_lim(const void *buf, size_t len, const char *what,
                               const mb__tlimit *lim, mb_tensor **out,
                               size_t *n, mb_err *err)
{
    *out = NULL;
    *n = 0;
    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *src = zip_source_buffer_create(len ? buf : NULL, len, 0, &ze);
    if (!src) {
        zip_error_fini(&ze);
        return mb__fail(err, MB_ENOMEM, "out of memory reading %s", what);
    }
    zip_t *za = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &ze);
    if (!za) {
        mb_status s = mb__fail(err, MB_EFORMAT,
                               "%s is not a readable .npz (zip) archive: %s",
                               what, zip_error_strerror(&ze));
        zip_source_free(src);
        zip_error_fini(&ze);
        return s;
    }
    zip_error_fini(&ze);
    return read_archive(za, what, len, lim, out, n, err);
}

/* Checks what the directory of za declares against the limits before
 * any member is decompressed: the ratio of the whole archive (packed
 * bytes on disk) and the size of each .npy member. */
static mb_status check_declared(zip_t *za, zip_int64_t entries,
                                const char *path, uint64_t packed,
                                const mb__tlimit *lim, mb_err *err)
{
    uint64_t unpacked = 0, npy = 0;
    for (zip_int64_t i = 0; i < entries; i++) {
        zip_stat_t zs;
        if (zip_stat_index(za, (zip_uint64_t)i, 0, &zs) != 0 ||
            !(zs.valid & ZIP_STAT_SIZE))
            continue; /* reported when the member is read */
        unpacked =
            zs.size > UINT64_MAX - unpacked ? UINT64_MAX : unpacked + zs.size;
        if (!(zs.valid & ZIP_STAT_NAME) || !mb__ends_with(zs.name, ".npy"))
            continue;
        char what[512];
        snprintf(what, sizeof what, "%s member %s", path, zs.name);
        mb_status s = mb__tlimit_check(lim, zs.size, what, err);
        if (s)
            return s;
        npy = zs.size > UINT64_MAX - npy ? UINT64_MAX : npy + zs.size;
    }
    /* every member is held at once: their sum is what is allocated */
    char all[512];
    snprintf(all, sizeof all, "%s (all .npy members together)", path);
    mb_status s = mb__tlimit_check(lim, npy, all, err);
    if (s)
        return s;
    return mb__tlimit_check_ratio(lim, unpacked, packed, path, err);
}

/* Reads every member of the open archive za and discards it. */
static mb_status read_archive(zip_t *za, const char *path, uint64_t packed,
                              const mb__tlimit *lim, mb_tensor **out, size_t *n,
                              mb_err *err)
{
    zip_int64_t entries = zip_get_num_entries(za, 0);
    mb_status cs = check_declared(za, entries, path, packed, lim, err);
    if (cs) {
        zip_discard(za);
        return cs;
    }
    mb_tensor *ts =
        entries > 0 ? mb__calloc((size_t)entries, sizeof *ts) : NULL;
    if (entries > 0 && !ts) {
        zip_discard(za);
        return mb__fail(err, MB_ENOMEM, "out of memory reading %s", path);
    }
    size_t k = 0;
    mb_status s = MB_OK;
    for (zip_int64_t i = 0; i < entries && s == MB_OK; i++) {
        zip_stat_t zs;
        if (zip_stat_index(za, (zip_uint64_t)i, 0, &zs) != 0 ||
            !(zs.valid & ZIP_STAT_NAME) || !(zs.valid & ZIP_STAT_SIZE)) {
            s = mb__fail(err, MB_EFORMAT, "%s: entry %lld is unreadable: %s",
                         path, (long long)i, zip_strerror(za));
            break;
        }
        if (mb__ends_with(zs.name, "/"))
            continue;
        if (!mb__ends_with(zs.name, ".npy")) {
            s = mb__fail(err, MB_EFORMAT,
                         "%s: member '%s' is not a .npy array (an .npz "
                         "archive holds only NAME.npy members)",
                         path, zs.name);
            break;
        }
        uint8_t *data;
        s = read_member(za, (zip_uint64_t)i, path, zs.name, zs.size, &data,
                        err);
        if (s)
            break;
        size_t wlen = strlen(path) + strlen(zs.name) + 16;
        char *what = mb__malloc(wlen);
        if (!what) {
            free(data);
            s = mb__fail(err, MB_ENOMEM, "out of memory reading %s", path);
            break;
        }
        snprintf(what, wlen, "%s member %s", path, zs.name);
        s = mb__npy_read_mem_lim(data, (size_t)zs.size, what, lim, &ts[k], err);
        free(what);
        free(data);
        if (s)
            break;
        ts[k].name = mb__strndup(zs.name, strlen(zs.name) - 4);
        if (!ts[k].name) {
            mb_tensor_clear(&ts[k]);
            s = mb__fail(err, MB_ENOMEM, "out of memory reading %s", path);
            break;
        }
        k++;
    }
    zip_discard(za);
    if (s) {
        mb__npz_free(ts, k);
        return s;
    }
    if (k == 0) {
        mb__npz_free(ts, k);
        return mb__fail(err, MB_EFORMAT, "%s: the archive holds no arrays",
                        path);
    }
    *out = ts;
    *n = k;
    return MB_OK;
}

/* Builds the archive in memory through a libzip buffer source. */
static mb_status build_archive(const char *path, const mb_tensor *tensors,
                               size_t n, mb__buf *bufs, mb__buf *zipped,
                               mb_err *err)
{
    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *src = zip_source_buffer_create(NULL, 0, 0, &ze);
    if (!src) {
        zip_error_fini(&ze);
        return mb__fail(err, MB_ENOMEM, "cannot write %s: out of memory", path);
    }
    zip_source_keep(src);
    zip_t *za = zip_open_from_source(src, ZIP_TRUNCATE, &ze);
    if (!za) {
        mb_status s = mb__fail(err, MB_EIO, "cannot write %s: %s", path,
                               zip_error_strerror(&ze));
        zip_source_free(src);
        zip_error_fini(&ze);
        return s;
    }
    mb_status s = MB_OK;
    for (size_t i = 0; i < n && s == MB_OK; i++) {
        size_t nlen = strlen(tensors[i].name) + 5;
        char *mname = mb__malloc(nlen);
        if (!mname) {
            s = mb__fail(err, MB_ENOMEM, "cannot write %s: out of memory",
                         path);
            break;
        }
        snprintf(mname, nlen, "%s.npy", tensors[i].name);
        zip_source_t *ms = zip_source_buffer(za, bufs[i].data, bufs[i].len, 0);
        zip_int64_t idx =
            ms ? zip_file_add(za, mname, ms, ZIP_FL_ENC_UTF_8) : -1;
        if (idx < 0) {
            if (ms)
                zip_source_free(ms);
            s = mb__fail(err, MB_EIO, "cannot write %s: member %s: %s", path,
                         mname, zip_strerror(za));
        } else if (zip_set_file_compression(za, (zip_uint64_t)idx, ZIP_CM_STORE,
                                            0) != 0) {
            s = mb__fail(err, MB_EIO, "cannot write %s: member %s: %s", path,
                         mname, zip_strerror(za));
        }
        free(mname);
    }
    if (s) {
        zip_discard(za);
        zip_source_free(src);
        zip_error_fini(&ze);
        return s;
    }
    if (zip_close(za) != 0) {
        s = mb__fail(err, MB_EIO, "cannot write %s: %s", path,
                     zip_strerror(za));
        zip_discard(za);
        zip_source_free(src);
        zip_error_fini(&ze);
        return s;
    }
    zip_stat_t st;
    if (zip_source_open(src) != 0) {
        zip_source_free(src);
        zip_error_fini(&ze);
        return mb__fail(err, MB_EIO,
                        "cannot write %s: the archive buffer "
                        "cannot be read back",
                        path);
    }
    zip_stat_init(&st);
    if (zip_source_stat(src, &st) == 0 && (st.valid & ZIP_STAT_SIZE)) {
        char chunk[65536];
        zip_int64_t r;
        while ((r = zip_source_read(src, chunk, sizeof chunk)) > 0)
            mb__buf_append(zipped, chunk, (size_t)r);
        if (r < 0 || zipped->len != st.size)
            s = mb__fail(err, MB_EIO,
                         "cannot write %s: reading the archive "
                         "buffer back failed",
                         path);
    } else {
        s = mb__fail(err, MB_EIO,
                     "cannot write %s: the archive buffer has "
                     "no size",
                     path);
    }
    zip_source_close(src);
    zip_source_free(src);
    zip_error_fini(&ze);
    if (!s && zipped->oom)
        s = mb__fail(err, MB_ENOMEM, "cannot write %s: out of memory", path);
    return s;
}

mb_status mb__npz_write(const char *path, const mb_tensor *tensors, size_t n,
                        mb_err *err)
{
    for (size_t i = 0; i < n; i++) {
        if (!tensors[i].name || !tensors[i].name[0])
            return mb__fail(err, MB_EINVAL,
                            "cannot write %s: tensor %zu has no name (every "
                            ".npz member needs one)",
                            path, i);
        for (size_t j = 0; j < i; j++)
            if (strcmp(tensors[i].name, tensors[j].name) == 0)
                return mb__fail(err, MB_EINVAL,
                                "cannot write %s: two tensors are named "
                                "'%s'",
                                path, tensors[i].name);
    }
    mb__buf *bufs = mb__calloc(n ? n : 1, sizeof *bufs);
    if (!bufs)
        return mb__fail(err, MB_ENOMEM, "cannot write %s: out of memory", path);
    mb_status s = MB_OK;
    for (size_t i = 0; i < n && s == MB_OK; i++) {
        s = mb__npy_encode(&tensors[i], &bufs[i], err);
        if (s)
            mb__fail_prefix(err, "cannot write %s", path);
    }
    mb__buf zipped = MB_BUF_INIT;
    if (s == MB_OK)
        s = build_archive(path, tensors, n, bufs, &zipped, err);
    if (s == MB_OK)
        s = mb__write_file_atomic(path, zipped.data, zipped.len, err);
    mb__buf_free(&zipped);
    for (size_t i = 0; i < n; i++)
        mb__buf_free(&bufs[i]);
    free(bufs);
    return s;
}
