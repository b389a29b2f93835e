/* buf.c - growable byte buffer. */
#include "buf.h"

#include "alloc.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool reserve(mb__buf *b, size_t extra)
{
    if (b->oom)
        return false;
    if (extra > (size_t)-1 - b->len - 1 ||
        !mb__grow((void **)&b->data, &b->cap, b->len + extra + 1, 1)) {
        b->oom = 1;
        return false;
    }
    return true;
}

void mb__buf_append(mb__buf *b, const void *data, size_t n)
{
    if (!reserve(b, n))
        return;
    if (n)
        memcpy(b->data + b->len, data, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void mb__buf_puts(mb__buf *b, const char *s)
{
    mb__buf_append(b, s, strlen(s));
}

void mb__buf_putc(mb__buf *b, char c)
{
    mb__buf_append(b, &c, 1);
}

void mb__buf_vprintf(mb__buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0 || !reserve(b, (size_t)n))
        return;
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void mb__buf_printf(mb__buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mb__buf_vprintf(b, fmt, ap);
    va_end(ap);
}

char *mb__buf_take(mb__buf *b, size_t *len)
{
    if (!b->data && reserve(b, 0))
        b->data[0] = '\0';
    char *d = b->data;
    if (len)
        *len = b->len;
    b->data = NULL;
    b->len = b->cap = 0;
    return d;
}

void mb__buf_free(mb__buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
    b->oom = 0;
}

void mb__buf_base64(mb__buf *b, const void *data, size_t n)
{
    static const char tab[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *p = data;
    char q[4];
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16;
        if (i + 1 < n)
            v |= (unsigned)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        q[0] = tab[(v >> 18) & 63];
        q[1] = tab[(v >> 12) & 63];
        q[2] = i + 1 < n ? tab[(v >> 6) & 63] : '=';
        q[3] = i + 2 < n ? tab[v & 63] : '=';
        mb__buf_append(b, q, 4);
    }
}
