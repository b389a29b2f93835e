/* ir_consts.c - the weights of an OpenVINO IR counted from its .xml text
 * (ir_consts.h).  Compiled into the openvino plugin and, by inclusion, into
 * the fuzz target tests/fuzz/fuzz_ov_ir.c. */
#include "ir_consts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The value of attribute `name` inside [p, end) into out; 0 when absent. */
static int attr(const char *p, const char *end, const char *name, char *out,
                size_t len)
{
    size_t nl = strlen(name);
    for (const char *q = p; q + nl + 2 < end; q++) {
        if (strncmp(q, name, nl) || q[nl] != '=' || q[nl + 1] != '"' ||
            (q > p && q[-1] != ' ' && q[-1] != '\t' && q[-1] != '\n'))
            continue;
        const char *v = q + nl + 2, *e = memchr(v, '"', (size_t)(end - v));
        if (!e || (size_t)(e - v) >= len)
            return 0;
        memcpy(out, v, (size_t)(e - v));
        out[e - v] = 0;
        return 1;
    }
    return 0;
}

/* The element count of shape text "10, 64" ("" is a scalar); 0 when it
 * does not parse or overflows. */
static unsigned long long shape_count(const char *s)
{
    unsigned long long n = 1;
    while (*s) {
        while (*s == ' ' || *s == ',')
            s++;
        if (!*s)
            break;
        char *end;
        unsigned long long d = strtoull(s, &end, 10);
        if (end == s || (d && n > ~0ULL / d))
            return 0;
        n *= d;
        s = end;
    }
    return n;
}

/* Scans the IR text for Const layers into counts (at most max types);
 * returns how many types were found. */
size_t mb_ov_ir_consts(const char *x, size_t len, mb_ov_ir_count *c, size_t max)
{
    size_t nc = 0;
    const char *end = x + len, *p = x;
    while ((p = memmem(p, (size_t)(end - p), "type=\"Const\"", 12)) != NULL) {
        const char *d = memmem(p, (size_t)(end - p), "<data", 5);
        const char *close = d ? memchr(d, '>', (size_t)(end - d)) : NULL;
        p += 12;
        if (!close)
            break;
        char et[16], shape[512], size[32];
        if (!attr(d, close, "element_type", et, sizeof et) ||
            !attr(d, close, "shape", shape, sizeof shape))
            continue;
        unsigned long long n = shape_count(shape);
        unsigned long long b = attr(d, close, "size", size, sizeof size)
                                   ? strtoull(size, NULL, 10)
                                   : 0;
        size_t k = 0;
        while (k < nc && strcmp(c[k].type, et))
            k++;
        if (k == nc && nc < max) {
            snprintf(c[nc].type, sizeof c[nc].type, "%s", et);
            c[nc].count = c[nc].bytes = 0;
            nc++;
        }
        if (k < nc) {
            c[k].count += n;
            c[k].bytes += b;
        }
    }
    return nc;
}

/* OpenVINO's element type names as mbench's dtype names. */
const char *mb_ov_ir_dtype(const char *t)
{
    static const char *const map[][2] = {
        {"f32", "float32"}, {"f16", "float16"}, {"bf16", "bfloat16"},
        {"f64", "float64"}, {"i64", "int64"},   {"i32", "int32"},
        {"i16", "int16"},   {"i8", "int8"},     {"u8", "uint8"},
        {"u16", "uint16"},  {"u32", "uint32"},  {"u64", "uint64"},
        {"boolean", "bool"}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(t, map[i][0]))
            return map[i][1];
    return t;
}
