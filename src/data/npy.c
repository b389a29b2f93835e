/* npy.c - NumPy .npy reading and writing (see npy.h for what is accepted). */
#include "data/npy.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/fileio.h"

#include <stdbool.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <unistd.h>

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_BIG 1
#else
#define HOST_BIG 0
#endif

/* What the header says. */
typedef struct npy_header {
    mb_dtype dtype;
    int swap; /* elements must be byte-swapped to host order */
    int fortran;
    int rank;
    int64_t dims[MB_MAX_RANK];
    int have_descr, have_fortran, have_shape;
} npy_header;

/* A cursor over the header text, for messages and parsing. */
typedef struct cursor {
    const char *p, *end;
    const char *what;
    mb_err *err;
} cursor;

static void skip_ws(cursor *c)
{
    while (c->p < c->end &&
           (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static mb_status bad_header(cursor *c, const char *why)
{
    return mb__fail(c->err, MB_EFORMAT,
                    "%s: corrupt .npy header: %s (re-save it with "
                    "numpy.save)",
                    c->what, why);
}

/* Parses a quoted Python string literal (no escapes needed by .npy) into
 * out (NUL-terminated, truncated to cap-1). */
static mb_status parse_str(cursor *c, char *out, size_t cap)
{
    skip_ws(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
        return bad_header(c, "expected a quoted string");
    char q = *c->p++;
    size_t n = 0;
    while (c->p < c->end && *c->p != q) {
        if (*c->p == '\\')
            return bad_header(c, "escaped characters are not expected");
        if (n + 1 < cap)
            out[n++] = *c->p;
        c->p++;
    }
    if (c->p >= c->end)
        return bad_header(c, "unterminated string");
    c->p++;
    out[n] = '\0';
    return MB_OK;
}

static bool take_word(cursor *c, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(c->end - c->p) >= n && memcmp(c->p, w, n) == 0) {
        c->p += n;
        return true;
    }
    return false;
}

/* The numpy descr of each dtype numpy has, as written (little-endian);
 * read back with any byte order ('<', '>', '|', '='). */
static const struct {
    mb_dtype dtype;
    const char *descr;
} descrs[] = {
    {MB_DTYPE_BOOL, "|b1"},      {MB_DTYPE_INT8, "|i1"},
    {MB_DTYPE_UINT8, "|u1"},     {MB_DTYPE_INT16, "<i2"},
    {MB_DTYPE_UINT16, "<u2"},    {MB_DTYPE_INT32, "<i4"},
    {MB_DTYPE_UINT32, "<u4"},    {MB_DTYPE_INT64, "<i8"},
    {MB_DTYPE_UINT64, "<u8"},    {MB_DTYPE_FLOAT16, "<f2"},
    {MB_DTYPE_FLOAT32, "<f4"},   {MB_DTYPE_FLOAT64, "<f8"},
    {MB_DTYPE_COMPLEX64, "<c8"}, {MB_DTYPE_COMPLEX128, "<c16"},
};
#define N_DESCRS (sizeof descrs / sizeof descrs[0])

/* Maps a numpy descr ("<f4", ">i8", "|b1", "=u2") to a dtype and whether
 * it needs byte swapping on this host. */
static mb_status parse_descr(cursor *c, const char *d, npy_header *h)
{
    char order = '|';
    const char *s = d;
    if (*s == '<' || *s == '>' || *s == '|' || *s == '=')
        order = *s++;
    char kind = *s ? *s++ : '\0';
    char *end;
    long size = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0')
        size = -1;
    mb_dtype t = kind == '?' ? MB_DTYPE_BOOL : MB_DTYPE_UNDEFINED;
    for (size_t i = 0; i < N_DESCRS && t == MB_DTYPE_UNDEFINED; i++)
        if (descrs[i].descr[1] == kind &&
            strtol(descrs[i].descr + 2, NULL, 10) == size)
            t = descrs[i].dtype;
    if (t == MB_DTYPE_UNDEFINED)
        return mb__fail(c->err, MB_EUNSUPPORTED,
                        "%s: numpy dtype '%s' is not supported (use a "
                        "numeric dtype: bool, int8..int64, uint8..uint64, "
                        "float16, float32, float64)",
                        c->what, d);
    h->dtype = t;
    int big = order == '>' || (order == '=' && HOST_BIG);
    h->swap = mb_dtype_size(t) > 1 && big != HOST_BIG;
    return MB_OK;
}

static mb_status parse_shape(cursor *c, npy_header *h)
{
    skip_ws(c);
    if (c->p >= c->end || *c->p != '(')
        return bad_header(c, "'shape' is not a tuple");
    c->p++;
    h->rank = 0;
    for (;;) {
        skip_ws(c);
        if (c->p < c->end && *c->p == ')') {
            c->p++;
            return MB_OK;
        }
        if (c->p >= c->end || !isdigit((unsigned char)*c->p))
            return bad_header(c, "'shape' holds something other than "
                                 "non-negative integers");
        int64_t v = 0;
        while (c->p < c->end && isdigit((unsigned char)*c->p)) {
            if (v > (INT64_MAX - 9) / 10)
                return bad_header(c, "a dimension in 'shape' is too large");
            v = v * 10 + (*c->p++ - '0');
        }
        if (c->p < c->end && (*c->p == 'L' || *c->p == 'l'))
            c->p++; /* Python 2 long suffix */
        if (h->rank >= MB_MAX_RANK)
            return mb__fail(c->err, MB_EUNSUPPORTED,
                            "%s: arrays of more than %d dimensions are not "
                            "supported",
                            c->what, MB_MAX_RANK);
        h->dims[h->rank++] = v;
        skip_ws(c);
        if (c->p < c->end && *c->p == ',')
            c->p++;
        else if (c->p >= c->end || *c->p != ')')
            return bad_header(c, "'shape' tuple is malformed");
    }
}

static mb_status parse_header(cursor *c, npy_header *h)
{
    memset(h, 0, sizeof *h);
    skip_ws(c);
    if (c->p >= c->end || *c->p != '{')
        return bad_header(c, "it does not start with '{'");
    c->p++;
    for (;;) {
        skip_ws(c);
        if (c->p < c->end && *c->p == '}')
            break;
        char key[32], val[64];
        mb_status s = parse_str(c, key, sizeof key);
        if (s)
            return s;
        skip_ws(c);
        if (c->p >= c->end || *c->p != ':')
            return bad_header(c, "expected ':' after a key");
        c->p++;
        skip_ws(c);
        if (strcmp(key, "descr") == 0) {
            if (c->p < c->end && *c->p == '[')
                return mb__fail(c->err, MB_EUNSUPPORTED,
                                "%s: structured (record) dtypes are not "
                                "supported; save each field as its own "
                                "array",
                                c->what);
            if ((s = parse_str(c, val, sizeof val)) ||
                (s = parse_descr(c, val, h)))
                return s;
            h->have_descr = 1;
        } else if (strcmp(key, "fortran_order") == 0) {
            if (take_word(c, "True"))
                h->fortran = 1;
            else if (take_word(c, "False"))
                h->fortran = 0;
            else
                return bad_header(c, "'fortran_order' is not True or False");
            h->have_fortran = 1;
        } else if (strcmp(key, "shape") == 0) {
            if ((s = parse_shape(c, h)))
                return s;
            h->have_shape = 1;
        } else {
            char why[96];
            snprintf(why, sizeof why, "unexpected key '%s'", key);
            return bad_header(c, why);
        }
        skip_ws(c);
        if (c->p < c->end && *c->p == ',') {
            c->p++;
            continue;
        }
        skip_ws(c);
        if (c->p < c->end && *c->p == '}')
            break;
        return bad_header(c, "expected ',' or '}'");
    }
    if (!h->have_descr || !h->have_fortran || !h->have_shape)
        return bad_header(c, !h->have_descr   ? "'descr' is missing"
                             : !h->have_shape ? "'shape' is missing"
                                              : "'fortran_order' is missing");
    return MB_OK;
}

static void byteswap(void *data, size_t count, size_t esize)
{
    uint8_t *p = data;
    for (size_t i = 0; i < count; i++, p += esize)
        for (size_t lo = 0, hi = esize - 1; lo < hi; lo++, hi--) {
            uint8_t t = p[lo];
            p[lo] = p[hi];
            p[hi] = t;
        }
}

/* Element size that byte swapping works on (complex: each component). */
static size_t swap_unit(mb_dtype t)
{
    if (t == MB_DTYPE_COMPLEX64)
        return 4;
    if (t == MB_DTYPE_COMPLEX128)
        return 8;
    return mb_dtype_size(t);
}

/* One tile of the transposition: rows i0 in [a0, b0) of the first axis
 * (contiguous in src) and columns iz in [az, bz) of the last axis
 * (contiguous in dst).  ES is the element size, a constant per caller so
 * that the copies compile to plain loads and stores. */
#define TILE_COPY(ES)                                                          \
    for (size_t iz = az; iz < bz; iz++)                                        \
        for (size_t i0 = a0; i0 < b0; i0++)                                    \
    memcpy(dst + i0 * c0 + iz * (ES), src + i0 * (ES) + iz * fz, (ES))

/* Copies Fortran-ordered src (column-major) into C-ordered dst (rank > 1).
 * The first and last axes are transposed in 32x32 tiles, so that both the
 * reads and the writes stay within a few cache lines per tile; the middle
 * axes are walked by an odometer. */
static void fortran_to_c(uint8_t *dst_base, const uint8_t *src_base,
                         const int64_t *dims, int rank, size_t esize,
                         size_t count)
{
    enum { B = 32 };
    if (count == 0)
        return;
    size_t fstride[MB_MAX_RANK], cstride[MB_MAX_RANK], idx[MB_MAX_RANK] = {0};
    size_t st = esize;
    for (int k = 0; k < rank; k++) {
        fstride[k] = st;
        st *= (size_t)dims[k];
    }
    st = esize;
    for (int k = rank - 1; k >= 0; k--) {
        cstride[k] = st;
        st *= (size_t)dims[k];
    }
    size_t n0 = (size_t)dims[0], nz = (size_t)dims[rank - 1];
    size_t c0 = cstride[0], fz = fstride[rank - 1];
    size_t soff = 0, doff = 0;
    for (;;) {
        uint8_t *dst = dst_base + doff;
        const uint8_t *src = src_base + soff;
        for (size_t a0 = 0; a0 < n0; a0 += B) {
            size_t b0 = a0 + B < n0 ? a0 + B : n0;
            for (size_t az = 0; az < nz; az += B) {
                size_t bz = az + B < nz ? az + B : nz;
                switch (esize) {
                case 1:
                    TILE_COPY(1);
                    break;
                case 2:
                    TILE_COPY(2);
                    break;
                case 4:
                    TILE_COPY(4);
                    break;
                case 8:
                    TILE_COPY(8);
                    break;
                default:
                    TILE_COPY(esize);
                    break;
                }
            }
        }
        /* next combination of the middle axes 1..rank-2 */
        int k = rank - 2;
        for (; k >= 1; k--) {
            idx[k]++;
            soff += fstride[k];
            doff += cstride[k];
            if (idx[k] < (size_t)dims[k])
                break;
            soff -= idx[k] * fstride[k];
            doff -= idx[k] * cstride[k];
            idx[k] = 0;
        }
        if (k < 1)
            return;
    }
}
#undef TILE_COPY

/* Checks the magic and version of the first `avail` bytes of a source of
 * `total` bytes; sets the preamble length and the header length. */
static mb_status parse_preamble(const uint8_t *b, size_t avail, size_t total,
                                const char *what, size_t *pre, size_t *hlen,
                                mb_err *err)
{
    if (avail < NPY_MAGIC_LEN || memcmp(b, NPY_MAGIC, NPY_MAGIC_LEN) != 0)
        return mb__fail(err, MB_EFORMAT,
                        "%s is not a .npy file: it does not start with the "
                        "\\x93NUMPY magic (%s)",
                        what,
                        avail < NPY_MAGIC_LEN ? "file too short"
                                              : "wrong magic bytes");
    unsigned major = avail > 6 ? b[6] : 0, minor = avail > 7 ? b[7] : 0;
    size_t need = major == 1 ? 10 : 12;
    if (avail < need)
        return mb__fail(err, MB_EFORMAT,
                        "%s is truncated: the .npy preamble is incomplete "
                        "(%zu bytes)",
                        what, avail);
    if (major == 1) {
        *hlen = (size_t)b[8] | (size_t)b[9] << 8;
    } else if (major == 2 || major == 3) {
        *hlen = (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 |
                (size_t)b[11] << 24;
    } else {
        return mb__fail(err, MB_EFORMAT,
                        "%s: .npy format version %u.%u is not supported "
                        "(1.0, 2.0 and 3.0 are)",
                        what, major, minor);
    }
    *pre = need;
    if (*hlen > total - need)
        return mb__fail(err, MB_EFORMAT,
                        "%s is truncated: the .npy header claims %zu bytes "
                        "but only %zu follow",
                        what, *hlen, total - need);
    return MB_OK;
}

/* Parses the header text and checks that exactly `avail` data bytes
 * follow it; sets *nbytes. */
static mb_status parse_body(const uint8_t *hdr, size_t hlen, size_t avail,
                            const char *what, const mb__tlimit *lim,
                            npy_header *h, size_t *nbytes, mb_err *err)
{
    cursor c = {(const char *)hdr, (const char *)hdr + hlen, what, err};
    mb_status s = parse_header(&c, h);
    if (s)
        return s;
    size_t esize = mb_dtype_size(h->dtype), count;
    int of;
    count = mb_shape_count(h->dims, h->rank, &of);
    if (of || !mb__mul_ok(count, esize, nbytes))
        return mb__fail(err, MB_EFORMAT,
                        "%s: corrupt .npy header: the shape's size "
                        "overflows",
                        what);
    char shp[256];
    if (avail < *nbytes)
        return mb__fail(err, MB_EFORMAT,
                        "%s is truncated: the header promises %s %s "
                        "(%zu bytes of data) but only %zu bytes follow "
                        "(re-create the file)",
                        what, mb_dtype_name(h->dtype),
                        mb_shape_str(h->dims, h->rank, shp, sizeof shp),
                        *nbytes, avail);
    if (avail > *nbytes)
        return mb__fail(err, MB_EFORMAT,
                        "%s is corrupt: %zu unexpected bytes follow the "
                        "%zu bytes of %s %s data",
                        what, avail - *nbytes, *nbytes, mb_dtype_name(h->dtype),
                        mb_shape_str(h->dims, h->rank, shp, sizeof shp));
    return mb__tlimit_check(lim, *nbytes, what, err);
}

/* Puts the file-order data src into out (allocated): C order, host byte
 * order.  When src is NULL the data is already in out->data (C order). */
static void finish_data(mb_tensor *out, const npy_header *h, const uint8_t *src)
{
    size_t esize = mb_dtype_size(h->dtype);
    if (src && h->fortran && h->rank > 1)
        fortran_to_c(out->data, src, h->dims, h->rank, esize,
                     out->nbytes / esize);
    else if (src && out->nbytes)
        memcpy(out->data, src, out->nbytes);
    if (h->swap) {
        size_t unit = swap_unit(h->dtype);
        byteswap(out->data, out->nbytes / unit, unit);
    }
}

mb_status mb__npy_read_mem(const void *buf, size_t len, const char *what,
                           mb_tensor *out, mb_err *err)
{
    return mb__npy_read_mem_lim(buf, len, what, NULL, out, err);
}

mb_status mb__npy_read_mem_lim(const void *buf, size_t len, const char *what,
                               const mb__tlimit *lim, mb_tensor *out,
                               mb_err *err)
{
    const uint8_t *b = buf;
    memset(out, 0, sizeof *out);
    if (!what)
        what = "(memory)";
    size_t pre, hlen, nbytes;
    npy_header h;
    mb_status s = parse_preamble(b, len, len, what, &pre, &hlen, err);
    if (s == MB_OK)
        s = parse_body(b + pre, hlen, len - pre - hlen, what, lim, &h, &nbytes,
                       err);
    if (s == MB_OK)
        s = mb_tensor_alloc(out, h.dtype, h.rank, h.dims, NULL, err);
    if (s)
        return s;
    finish_data(out, &h, b + pre + hlen);
    return MB_OK;
}

/* Reads exactly n bytes at offset off; returns 0 or an errno value (EIO
 * for an early end of file). */
static int read_at(int fd, void *dst, size_t n, off_t off)
{
    uint8_t *p = dst;
    while (n) {
        ssize_t r = pread(fd, p, n > (1u << 30) ? (1u << 30) : n, off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return r < 0 ? errno : EIO;
        p += r;
        n -= (size_t)r;
        off += r;
    }
    return 0;
}

/* Reads the header with small reads, then the data straight into the
 * tensor (no mapping, no intermediate copy for C-order files). */
mb_status mb__npy_read(const char *path, mb_tensor *out, mb_err *err)
{
    return mb__npy_read_lim(path, NULL, out, err);
}

mb_status mb__npy_read_lim(const char *path, const mb__tlimit *lim,
                           mb_tensor *out, mb_err *err)
{
    memset(out, 0, sizeof *out);
    int fd;
    size_t total, pre, hlen, nbytes;
    mb_status s = mb__open_regular(path, &fd, &total, err);
    if (s)
        return s;
    uint8_t head[4096];
    size_t have = total < sizeof head ? total : sizeof head;
    uint8_t *hbuf = head, *fdata = NULL;
    npy_header h;
    int e = read_at(fd, head, have, 0);
    s = e ? mb__fail(err, MB_EIO, "cannot read %s: %s", path, strerror(e))
          : parse_preamble(head, have, total, path, &pre, &hlen, err);
    if (s == MB_OK && pre + hlen > have) {
        hbuf = mb__malloc(pre + hlen);
        if (!hbuf)
            s = mb__fail(err, MB_ENOMEM, "out of memory reading %s", path);
        else if ((e = read_at(fd, hbuf, pre + hlen, 0)))
            s = mb__fail(err, MB_EIO, "cannot read %s: %s", path, strerror(e));
    }
    if (s == MB_OK)
        s = parse_body(hbuf + pre, hlen, total - pre - hlen, path, lim, &h,
                       &nbytes, err);
    if (hbuf != head)
        free(hbuf);
    if (s == MB_OK)
        s = mb_tensor_alloc(out, h.dtype, h.rank, h.dims, NULL, err);
    if (s == MB_OK) {
        int transpose = h.fortran && h.rank > 1;
        if (transpose && !(fdata = mb__malloc(nbytes)))
            s = mb__fail(err, MB_ENOMEM, "out of memory reading %s", path);
        else if ((e = read_at(fd, transpose ? fdata : out->data, nbytes,
                              (off_t)(pre + hlen))))
            s = mb__fail(err, e == EIO ? MB_EFORMAT : MB_EIO,
                         "cannot read %s: %s", path,
                         e == EIO ? "it shrank while being read" : strerror(e));
        if (s == MB_OK)
            finish_data(out, &h, fdata);
        free(fdata);
        if (s)
            mb_tensor_clear(out);
    }
    close(fd);
    return s;
}

/* Maps the file read-only and points out->data at its elements when they
 * can be used in place (C order, host byte order, aligned to their size);
 * otherwise reads it as mb__npy_read does and *map stays NULL. */
mb_status mb__npy_map(const char *path, mb_tensor *out, void **map,
                      size_t *map_len, mb_err *err)
{
    memset(out, 0, sizeof *out);
    *map = NULL;
    *map_len = 0;
    int fd;
    size_t total, pre, hlen, nbytes;
    mb_status s = mb__open_regular(path, &fd, &total, err);
    if (s)
        return s;
    uint8_t head[4096];
    size_t have = total < sizeof head ? total : sizeof head;
    npy_header h;
    int e = read_at(fd, head, have, 0);
    s = e ? mb__fail(err, MB_EIO, "cannot read %s: %s", path, strerror(e))
          : parse_preamble(head, have, total, path, &pre, &hlen, err);
    int in_place = s == MB_OK && pre + hlen <= have;
    if (in_place)
        s = parse_body(head + pre, hlen, total - pre - hlen, path, NULL, &h,
                       &nbytes, err);
    in_place = in_place && s == MB_OK && nbytes > 0 && !h.swap &&
               !(h.fortran && h.rank > 1) &&
               (pre + hlen) % mb_dtype_size(h.dtype) == 0;
    void *m =
        in_place ? mmap(NULL, total, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
    close(fd);
    if (s)
        return s;
    if (m == MAP_FAILED) /* a header of another shape, or no mmap here */
        return mb__npy_read(path, out, err);
    madvise(m, total, MADV_SEQUENTIAL);
    out->dtype = h.dtype;
    out->rank = h.rank;
    memcpy(out->dims, h.dims, sizeof out->dims);
    out->data = (uint8_t *)m + pre + hlen;
    out->nbytes = nbytes;
    *map = m;
    *map_len = total;
    return MB_OK;
}

void mb__npy_unmap(mb_tensor *t, void *map, size_t map_len)
{
    if (map) {
        munmap(map, map_len);
        t->data = NULL;
        t->nbytes = 0;
    }
}

const char *mb__npy_descr(mb_dtype t)
{
    for (size_t i = 0; i < N_DESCRS; i++)
        if (descrs[i].dtype == t)
            return descrs[i].descr;
    return NULL;
}

mb_status mb__npy_encode(const mb_tensor *t, mb__buf *out, mb_err *err)
{
    const char *descr = mb__npy_descr(t->dtype);
    if (!descr)
        return mb__fail(err, MB_EUNSUPPORTED,
                        "tensor '%s' of type %s cannot be saved as .npy: "
                        "numpy has no such dtype",
                        t->name ? t->name : "", mb_dtype_name(t->dtype));
    if (t->rank < 0 || t->rank > MB_MAX_RANK)
        return mb__fail(err, MB_EINVAL, "tensor rank %d is outside 0..%d",
                        t->rank, MB_MAX_RANK);
    size_t esize = mb_dtype_size(t->dtype), nbytes;
    int of;
    size_t count = mb_shape_count(t->dims, t->rank, &of);
    if (of || !mb__mul_ok(count, esize, &nbytes) || nbytes > t->nbytes)
        return mb__fail(err, MB_EINVAL,
                        "tensor '%s': its shape needs more bytes than it "
                        "holds (%zu)",
                        t->name ? t->name : "", t->nbytes);
    mb__buf h = MB_BUF_INIT;
    mb__buf_printf(&h, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                   descr);
    for (int i = 0; i < t->rank; i++)
        mb__buf_printf(&h, "%s%" PRId64, i ? ", " : "", t->dims[i]);
    mb__buf_puts(&h, t->rank == 1 ? ",), }" : "), }");
    /* pad with spaces so that data starts on a 64-byte boundary */
    size_t pre = 10;
    if (h.len + 1 + 64 > 65535)
        pre = 12;
    while ((pre + h.len + 1) % 64 != 0)
        mb__buf_putc(&h, ' ');
    mb__buf_putc(&h, '\n');
    if (h.oom) {
        mb__buf_free(&h);
        return mb__fail(err, MB_ENOMEM, "out of memory encoding .npy");
    }
    uint8_t preamble[12];
    memcpy(preamble, NPY_MAGIC, NPY_MAGIC_LEN);
    preamble[6] = pre == 10 ? 1 : 2;
    preamble[7] = 0;
    for (size_t i = 0; i < pre - 8; i++)
        preamble[8 + i] = (uint8_t)(h.len >> (8 * i));
    mb__buf_append(out, preamble, pre);
    mb__buf_append(out, h.data, h.len);
    mb__buf_free(&h);
    size_t start = out->len;
    mb__buf_append(out, t->data, nbytes);
    if (HOST_BIG && !out->oom) {
        size_t unit = swap_unit(t->dtype);
        byteswap(out->data + start, nbytes / unit, unit);
    }
    if (out->oom)
        return mb__fail(err, MB_ENOMEM,
                        "out of memory encoding a %zu-byte tensor as .npy",
                        nbytes);
    return MB_OK;
}

mb_status mb__npy_write(const char *path, const mb_tensor *t, mb_err *err)
{
    mb__buf b = MB_BUF_INIT;
    mb_status s = mb__npy_encode(t, &b, err);
    if (s == MB_OK)
        s = mb__write_file_atomic(path, b.data, b.len, err);
    else
        mb__fail_prefix(err, "cannot write %s", path);
    mb__buf_free(&b);
    return s;
}
