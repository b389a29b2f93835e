/* tensorfile.c - reading, writing and hashing tensor files
 * (tensorfile.h). */
#include "data/tensorfile.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/fileio.h"
#include "core/parse.h"
#include "data/npy.h"
#include "data/npz.h"
#include "model/onnx.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Names the unnamed tensors after path's base name, less its extension. */
static mb_status name_after(const char *path, mb_tensor *ts, size_t n,
                            mb_err *err)
{
    char *base = mb__strdup(mb__basename(path));
    if (!base)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    char *dot = strrchr(base, '.');
    if (dot && dot != base)
        *dot = '\0';
    for (size_t i = 0; i < n; i++)
        if (!ts[i].name || !ts[i].name[0]) {
            free(ts[i].name);
            if (!(ts[i].name = mb__strdup(base))) {
                free(base);
                return mb__fail(err, MB_ENOMEM, "out of memory");
            }
        }
    free(base);
    return MB_OK;
}

mb_status mb__tensor_file_read(const char *path, mb_tensor **out, size_t *n,
                               mb_err *err)
{
    return mb__tensor_file_read_lim(path, NULL, out, n, err);
}

mb_status mb__tensor_file_read_lim(const char *path, const mb__tlimit *lim,
                                   mb_tensor **out, size_t *n, mb_err *err)
{
    char magic[6] = {0};
    *out = NULL;
    *n = 0;
    FILE *f = fopen(path, "rb");
    if (f) {
        if (fread(magic, 1, sizeof magic, f) != sizeof magic)
            magic[0] = '\0';
        fclose(f);
    }
    mb_status s;
    if (mb__ends_with(path, ".npz") || (magic[0] == 'P' && magic[1] == 'K')) {
        s = mb__npz_read_lim(path, lim, out, n, err);
    } else {
        mb_tensor *t = mb__calloc(1, sizeof *t);
        if (!t)
            return mb__fail(err, MB_ENOMEM, "out of memory");
        s = memcmp(magic, "\x93NUMPY", 6) == 0 || mb__ends_with(path, ".npy")
                ? mb__npy_read_lim(path, lim, t, err)
                : mb__onnx_tensor_read_file_lim(path, lim, t, err);
        if (s) {
            free(t);
            return s;
        }
        *out = t;
        *n = 1;
    }
    if (!s && (s = name_after(path, *out, *n, err)) != MB_OK) {
        mb__npz_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return s;
}

mb_status mb__tensor_file_write(const char *path, const mb_tensor *ts, size_t n,
                                mb_err *err)
{
    if (mb__ends_with(path, ".npz"))
        return mb__npz_write(path, ts, n, err);
    if (n != 1)
        return mb__fail(err, MB_EINVAL,
                        "--save %s: %zu tensors need an .npz path", path, n);
    return mb__npy_write(path, &ts[0], err);
}

mb_status mb__tensor_list_take(mb__tensor_list *l, mb_tensor *t,
                               const char *fallback, mb_err *err)
{
    if ((!t->name || !t->name[0]) && fallback) {
        free(t->name);
        t->name = mb__strdup(fallback);
    }
    if (!t->name ||
        !mb__grow((void **)&l->t, &l->cap, l->n + 1, sizeof *l->t)) {
        mb_tensor_clear(t);
        return mb__fail(err, MB_ENOMEM, "out of memory");
    }
    l->t[l->n++] = *t;
    memset(t, 0, sizeof *t);
    return MB_OK;
}

void mb__tensor_list_free(mb__tensor_list *l)
{
    mb__npz_free(l->t, l->n);
    memset(l, 0, sizeof *l);
}

void mb__tensor_sha256_le(const mb_tensor *t, char hex[65])
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    size_t unit = t->dtype == MB_DTYPE_COMPLEX64    ? 4
                  : t->dtype == MB_DTYPE_COMPLEX128 ? 8
                                                    : mb_dtype_size(t->dtype);
    uint8_t *c = mb__malloc(t->nbytes);
    if (c && unit > 1) {
        for (size_t i = 0; i + unit <= t->nbytes; i += unit)
            for (size_t b = 0; b < unit; b++)
                c[i + b] = ((const uint8_t *)t->data)[i + unit - 1 - b];
        mb__sha256_hex(c, t->nbytes, hex);
    } else {
        mb__sha256_hex(t->data, t->nbytes, hex);
    }
    free(c);
#else
    mb__sha256_hex(t->data, t->nbytes, hex);
#endif
}

bool mb__io_desc_parse(char *spec, mb_io_desc *d)
{
    memset(d, 0, sizeof *d);
    char *c1 = strchr(spec, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (!c1 || !c2 || c1 == spec)
        return false;
    *c1 = *c2 = '\0';
    d->name = spec;
    d->dtype = mb_dtype_parse(c1 + 1);
    if (d->dtype == MB_DTYPE_UNDEFINED)
        return false;
    if (strcmp(c2 + 1, "?") == 0) {
        d->rank = -1;
        return true;
    }
    char *save = NULL;
    for (char *tok = strtok_r(c2 + 1, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (d->rank >= MB_MAX_RANK)
            return false;
        int64_t v;
        int symbolic = !mb__parse_i64(tok, -1, INT64_MAX, &v);
        d->dims[d->rank] = symbolic ? -1 : v;
        d->dim_names[d->rank] = symbolic ? tok : "";
        d->rank++;
    }
    return true;
}
