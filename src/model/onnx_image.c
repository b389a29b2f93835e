/* onnx_image.c - the sparse image of an ONNX file (see onnx_image.h). */
#include "model/onnx_image.h"

#include "model/onnx.h"

#include "core/err.h"
#include "core/fileio.h"

#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define WIN 65536
#define MAX_DEPTH 64

/* What a length-delimited field holds, by (message kind, field number). */
enum { K_COPY, K_SKIP, K_MODEL, K_GRAPH, K_NODE, K_ATTR, K_TENSOR, K_SPARSE };

static int child_kind(int kind, uint64_t num)
{
    switch (kind) {
    case K_MODEL:
        return num == 7 ? K_GRAPH : K_COPY;
    case K_GRAPH:
        return num == 1    ? K_NODE
               : num == 5  ? K_TENSOR
               : num == 15 ? K_SPARSE
                           : K_COPY;
    case K_NODE:
        return num == 5 ? K_ATTR : K_COPY;
    case K_ATTR:
        return (num == 5 || num == 10)    ? K_TENSOR
               : (num == 6 || num == 11)  ? K_GRAPH
               : (num == 22 || num == 23) ? K_SPARSE
                                          : K_COPY;
    case K_SPARSE:
        return (num == 1 || num == 2) ? K_TENSOR : K_COPY;
    case K_TENSOR: /* float, int32, string, int64, raw, double, uint64 data */
        return (num >= 4 && num <= 7) || (num >= 9 && num <= 11) ? K_SKIP
                                                                 : K_COPY;
    default:
        return K_COPY;
    }
}

typedef struct rd {
    int fd;
    uint8_t *img;
    uint64_t size;
    uint64_t woff;
    size_t wlen;
    size_t copied;
    int eno; /* first read error */
    uint8_t win[WIN];
} rd;

/* Byte at off (through the window), also stored into the image. */
static bool byte_at(rd *r, uint64_t off, uint8_t *b)
{
    if (off < r->woff || off >= r->woff + r->wlen) {
        if (off >= r->size)
            return false;
        ssize_t n;
        do
            n = pread(r->fd, r->win, WIN, (off_t)off);
        while (n < 0 && errno == EINTR);
        if (n <= 0) {
            if (n < 0 && !r->eno)
                r->eno = errno;
            r->wlen = 0;
            return false;
        }
        r->woff = off;
        r->wlen = (size_t)n;
    }
    *b = r->win[off - r->woff];
    if (r->img[off] != *b) /* zero bytes need no write (no page touched) */
        r->img[off] = *b;
    r->copied++;
    return true;
}

/* Copies file bytes [off, off+len) into the image. */
static void copy_range(rd *r, uint64_t off, uint64_t len)
{
    while (len) {
        ssize_t n;
        do
            n = pread(r->fd, r->img + off, len, (off_t)off);
        while (n < 0 && errno == EINTR);
        if (n <= 0) {
            if (n < 0 && !r->eno)
                r->eno = errno;
            return;
        }
        off += (uint64_t)n;
        len -= (uint64_t)n;
        r->copied += (size_t)n;
    }
}

static bool varint(rd *r, uint64_t *pos, uint64_t end, uint64_t *v)
{
    uint64_t x = 0;
    for (int i = 0; i < 10; i++) {
        uint8_t b;
        if (*pos >= end || !byte_at(r, *pos, &b))
            return false;
        (*pos)++;
        x |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *v = x;
            return true;
        }
    }
    return false;
}

/* Walks the message of this kind at [start, end), copying what is not a
 * tensor payload.  Anything malformed from a field on is copied verbatim. */
static void walk(rd *r, int kind, uint64_t start, uint64_t end, int depth)
{
    uint64_t pos = start, at = start;
    while (pos < end) {
        uint64_t tag, v, len;
        uint8_t b;
        at = pos;
        if (!varint(r, &pos, end, &tag))
            goto verbatim;
        switch (tag & 7) {
        case 0:
            if (!varint(r, &pos, end, &v))
                goto verbatim;
            break;
        case 1:
        case 5:
            len = (tag & 7) == 1 ? 8 : 4;
            if (end - pos < len)
                goto verbatim;
            for (uint64_t i = 0; i < len; i++)
                if (!byte_at(r, pos + i, &b))
                    goto verbatim;
            pos += len;
            break;
        case 2: {
            if (!varint(r, &pos, end, &len) || len > end - pos)
                goto verbatim;
            int k = child_kind(kind, tag >> 3);
            /* a field longer than any string mbench reads (a length bomb,
             * an opaque blob) stays zeros: the parser refuses the strings
             * it would copy (MB_ONNX_MAX_STRING) and skips the others */
            if (k == K_COPY && len > MB_ONNX_MAX_STRING)
                ;
            else if (k == K_COPY || (k != K_SKIP && depth >= MAX_DEPTH))
                copy_range(r, pos, len);
            else if (k != K_SKIP)
                walk(r, k, pos, pos + len, depth + 1);
            pos += len;
            break;
        }
        default: /* groups and invalid wire types: leave them to the parser */
            goto verbatim;
        }
    }
    return;
verbatim: /* enough for the parser to see the defect */
    copy_range(r, at,
               end - at > MB_ONNX_MAX_STRING ? MB_ONNX_MAX_STRING : end - at);
}

mb_status mb__onnx_image_load(const char *path, mb__onnx_image *img,
                              mb_err *err)
{
    memset(img, 0, sizeof *img);
    int fd;
    size_t size;
    mb_status s = mb__open_regular(path, &fd, &size, err);
    if (s || size == 0) {
        if (!s)
            close(fd);
        return s;
    }
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    rd *r = p == MAP_FAILED ? NULL
                            : mmap(NULL, sizeof *r, PROT_READ | PROT_WRITE,
                                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED || r == MAP_FAILED) {
        if (p != MAP_FAILED)
            munmap(p, size);
        close(fd);
        return mb__fail(err, MB_ENOMEM,
                        "cannot reserve %zu bytes of address "
                        "space for %s",
                        size, path);
    }
    /* One huge page per touched header would defeat the point. */
    madvise(p, size, MADV_NOHUGEPAGE);
    r->fd = fd;
    r->img = p;
    r->size = size;
    walk(r, K_MODEL, 0, size, 0);
    int eno = r->eno;
    img->copied = r->copied;
    munmap(r, sizeof *r);
    close(fd);
    if (eno) {
        munmap(p, size);
        return mb__fail(err, MB_EIO, "cannot read %s: %s", path, strerror(eno));
    }
    mprotect(p, size, PROT_READ);
    img->map = (mb__map){p, size};
    return MB_OK;
}

void mb__onnx_image_free(mb__onnx_image *img)
{
    if (img) {
        mb__unmap(&img->map);
        img->copied = 0;
    }
}
