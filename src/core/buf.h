/* buf.h - a growable byte buffer; writers render documents into one. */
#ifndef MB_CORE_BUF_H
#define MB_CORE_BUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct mb__buf {
    char *data; /* always NUL-terminated when non-NULL */
    size_t len;
    size_t cap;
    int oom; /* set once an append failed; later appends are no-ops */
} mb__buf;

#define MB_BUF_INIT                                                            \
    {                                                                          \
        NULL, 0, 0, 0                                                          \
    }

void mb__buf_append(mb__buf *b, const void *data, size_t n);
void mb__buf_puts(mb__buf *b, const char *s);
void mb__buf_putc(mb__buf *b, char c);
void mb__buf_printf(mb__buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void mb__buf_vprintf(mb__buf *b, const char *fmt, va_list ap);
/* Appends n bytes of data as base64 (RFC 4648, padded). */
void mb__buf_base64(mb__buf *b, const void *data, size_t n);
/* Hands the bytes to the caller (free()), leaving b empty. */
char *mb__buf_take(mb__buf *b, size_t *len);
void mb__buf_free(mb__buf *b);

#endif
