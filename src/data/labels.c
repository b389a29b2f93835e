/* labels.c - reading --labels files (see labels.h). */
#include "data/labels.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/fileio.h"
#include "data/npy.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static mb_status from_npy(const char *path, const char *buf, size_t len,
                          int64_t **labels, size_t *n, mb_err *err)
{
    mb_tensor t;
    mb_status s = mb__npy_read_mem(buf, len, path, &t, err);
    if (s)
        return s;
    char shp[256];
    int is_int = 1;
    switch (t.dtype) {
    case MB_DTYPE_INT8:
    case MB_DTYPE_INT16:
    case MB_DTYPE_INT32:
    case MB_DTYPE_INT64:
    case MB_DTYPE_UINT8:
    case MB_DTYPE_UINT16:
    case MB_DTYPE_UINT32:
    case MB_DTYPE_UINT64:
        break;
    default:
        is_int = 0;
    }
    if (!is_int) {
        s = mb__fail(err, MB_EDATA,
                     "labels %s hold %s values; class ids must be integers "
                     "(save them with .astype(numpy.int64))",
                     path, mb_dtype_name(t.dtype));
        mb_tensor_clear(&t);
        return s;
    }
    if (!(t.rank <= 1 || (t.rank == 2 && t.dims[1] == 1))) {
        s = mb__fail(err, MB_EDATA,
                     "labels %s have shape %s; expected one class id per "
                     "sample: [N] or [N,1]",
                     path, mb_shape_str(t.dims, t.rank, shp, sizeof shp));
        mb_tensor_clear(&t);
        return s;
    }
    size_t count = mb_tensor_count(&t);
    if (count == 0) {
        mb_tensor_clear(&t);
        return mb__fail(err, MB_EFORMAT, "labels %s hold no values", path);
    }
    int64_t *v = mb__calloc(count, sizeof *v);
    if (!v) {
        mb_tensor_clear(&t);
        return mb__fail(err, MB_ENOMEM, "out of memory reading %s", path);
    }
    for (size_t i = 0; i < count; i++) {
        if (t.dtype == MB_DTYPE_UINT64) {
            uint64_t u = ((const uint64_t *)t.data)[i];
            if (u > (uint64_t)INT64_MAX) {
                free(v);
                mb_tensor_clear(&t);
                return mb__fail(err, MB_EDATA,
                                "labels %s: value %zu (%llu) is too large "
                                "for a class id",
                                path, i, (unsigned long long)u);
            }
            v[i] = (int64_t)u;
        } else if (t.dtype == MB_DTYPE_INT64) {
            v[i] = ((const int64_t *)t.data)[i];
        } else {
            v[i] = (int64_t)mb_tensor_get_f64(&t, i); /* exact below 2^53 */
        }
    }
    mb_tensor_clear(&t);
    *labels = v;
    *n = count;
    return MB_OK;
}

static mb_status from_text(const char *path, char *buf, size_t len,
                           int64_t **labels, size_t *n, mb_err *err)
{
    int64_t *v = NULL;
    size_t cap = 0, k = 0, line = 0;
    char *p = buf, *end = buf + len;
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *eol = nl ? nl : end;
        line++;
        *eol = '\0';
        char *hash = strchr(p, '#');
        if (hash)
            *hash = '\0';
        while (*p && isspace((unsigned char)*p))
            p++;
        char *q = p + strlen(p);
        while (q > p && isspace((unsigned char)q[-1]))
            *--q = '\0';
        if (*p) {
            char *e;
            errno = 0;
            long long x = strtoll(p, &e, 10);
            if (errno || *e || e == p) {
                free(v);
                return mb__fail(err, MB_EFORMAT,
                                "labels %s line %zu: '%.60s' is not an "
                                "integer class id (one integer per line; "
                                "'#' starts a comment)",
                                path, line, p);
            }
            if (!mb__grow((void **)&v, &cap, k + 1, sizeof *v)) {
                free(v);
                return mb__fail(err, MB_ENOMEM, "out of memory reading %s",
                                path);
            }
            v[k++] = x;
        }
        p = eol + 1;
    }
    if (k == 0) {
        free(v);
        return mb__fail(err, MB_EFORMAT,
                        "labels %s hold no class ids (one integer per line "
                        "expected)",
                        path);
    }
    *labels = v;
    *n = k;
    return MB_OK;
}

/* Parses the len bytes of buf (NUL-terminated at buf[len], modified in
 * place by the text reader). */
static mb_status parse_owned(const char *path, char *buf, size_t len,
                             int64_t **labels, size_t *n, mb_err *err)
{
    if (len >= 6 && memcmp(buf, "\x93NUMPY", 6) == 0)
        return from_npy(path, buf, len, labels, n, err);
    if (memchr(buf, '\0', len))
        return mb__fail(err, MB_EFORMAT,
                        "labels %s are neither a .npy file nor text (one "
                        "integer per line)",
                        path);
    return from_text(path, buf, len, labels, n, err);
}

/* The labels of the file at path, or (path NULL) of the len bytes at data;
 * either way read into a NUL-terminated buffer of ours first.  `what` names
 * them in messages. */
static mb_status labels_from(const char *path, const void *data, size_t len,
                             const char *what, int64_t **labels, size_t *n,
                             mb_err *err)
{
    *labels = NULL;
    *n = 0;
    char *buf = NULL;
    mb_status s = MB_OK;
    if (path) {
        s = mb__read_file(path, &buf, &len, err);
    } else if ((buf = mb__malloc(len + 1))) {
        if (len)
            memcpy(buf, data, len);
        buf[len] = '\0';
    } else {
        s = mb__fail(err, MB_ENOMEM, "out of memory reading %s", what);
    }
    if (s == MB_OK)
        s = parse_owned(what, buf, len, labels, n, err);
    free(buf);
    return s;
}

mb_status mb__labels_load(const char *path, int64_t **labels, size_t *n,
                          mb_err *err)
{
    return labels_from(path, NULL, 0, path, labels, n, err);
}

mb_status mb__labels_parse(const void *data, size_t len, const char *what,
                           int64_t **labels, size_t *n, mb_err *err)
{
    return labels_from(NULL, data, len, what, labels, n, err);
}
