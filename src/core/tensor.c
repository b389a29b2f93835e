/* tensor.c - element types, host tensors and half-precision conversions. */
#include "mbench.h"

#include "alloc.h"
#include "err.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct {
    mb_dtype t;
    const char *name;
    size_t size;
} dtypes[] = {
    {MB_DTYPE_FLOAT32, "float32", 4},
    {MB_DTYPE_UINT8, "uint8", 1},
    {MB_DTYPE_INT8, "int8", 1},
    {MB_DTYPE_UINT16, "uint16", 2},
    {MB_DTYPE_INT16, "int16", 2},
    {MB_DTYPE_INT32, "int32", 4},
    {MB_DTYPE_INT64, "int64", 8},
    {MB_DTYPE_STRING, "string", 0},
    {MB_DTYPE_BOOL, "bool", 1},
    {MB_DTYPE_FLOAT16, "float16", 2},
    {MB_DTYPE_FLOAT64, "float64", 8},
    {MB_DTYPE_UINT32, "uint32", 4},
    {MB_DTYPE_UINT64, "uint64", 8},
    {MB_DTYPE_COMPLEX64, "complex64", 8},
    {MB_DTYPE_COMPLEX128, "complex128", 16},
    {MB_DTYPE_BFLOAT16, "bfloat16", 2},
};

const char *mb_dtype_name(mb_dtype t)
{
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (dtypes[i].t == t)
            return dtypes[i].name;
    return "undefined";
}

size_t mb_dtype_size(mb_dtype t)
{
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (dtypes[i].t == t)
            return dtypes[i].size;
    return 0;
}

mb_dtype mb_dtype_parse(const char *name)
{
    static const struct {
        const char *alias;
        mb_dtype t;
    } aliases[] = {{"float", MB_DTYPE_FLOAT32},  {"fp32", MB_DTYPE_FLOAT32},
                   {"f32", MB_DTYPE_FLOAT32},    {"half", MB_DTYPE_FLOAT16},
                   {"fp16", MB_DTYPE_FLOAT16},   {"f16", MB_DTYPE_FLOAT16},
                   {"double", MB_DTYPE_FLOAT64}, {"fp64", MB_DTYPE_FLOAT64},
                   {"bf16", MB_DTYPE_BFLOAT16}};
    if (!name)
        return MB_DTYPE_UNDEFINED;
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (strcasecmp(dtypes[i].name, name) == 0)
            return dtypes[i].t;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcasecmp(aliases[i].alias, name) == 0)
            return aliases[i].t;
    return MB_DTYPE_UNDEFINED;
}

size_t mb_shape_count(const int64_t *dims, int rank, int *overflow)
{
    size_t n = 1;
    if (overflow)
        *overflow = 0;
    for (int i = 0; i < rank; i++) {
        if (dims[i] < 0 || !mb__mul_ok(n, (size_t)dims[i], &n)) {
            if (overflow)
                *overflow = 1;
            return 0;
        }
    }
    return n;
}

size_t mb_tensor_count(const mb_tensor *t)
{
    return mb_shape_count(t->dims, t->rank, NULL);
}

mb_status mb_tensor_alloc(mb_tensor *t, mb_dtype dtype, int rank,
                          const int64_t *dims, const char *name, mb_err *err)
{
    memset(t, 0, sizeof *t);
    if (rank < 0 || rank > MB_MAX_RANK)
        return mb__fail(err, MB_EINVAL, "tensor rank %d is outside 0..%d", rank,
                        MB_MAX_RANK);
    size_t esize = mb_dtype_size(dtype);
    if (esize == 0)
        return mb__fail(err, MB_EUNSUPPORTED,
                        "element type %s has no fixed size and cannot be "
                        "used as a dense tensor here",
                        mb_dtype_name(dtype));
    int of;
    size_t n = mb_shape_count(dims, rank, &of), bytes;
    if (of || !mb__mul_ok(n, esize, &bytes)) {
        char s[256];
        return mb__fail(err, MB_EINVAL,
                        "tensor shape %s is negative or too "
                        "large",
                        mb_shape_str(dims, rank, s, sizeof s));
    }
    t->data = mb__calloc(bytes ? bytes : 1, 1);
    t->name = name ? mb__strdup(name) : NULL;
    if (!t->data || (name && !t->name)) {
        free(t->data);
        free(t->name);
        memset(t, 0, sizeof *t);
        return mb__fail(err, MB_ENOMEM, "out of memory for a %zu-byte tensor",
                        bytes);
    }
    t->dtype = dtype;
    t->rank = rank;
    for (int i = 0; i < rank; i++)
        t->dims[i] = dims[i];
    t->nbytes = bytes;
    return MB_OK;
}

void mb_tensor_clear(mb_tensor *t)
{
    if (!t)
        return;
    free(t->data);
    free(t->name);
    memset(t, 0, sizeof *t);
}

mb_status mb_tensor_copy(mb_tensor *dst, const mb_tensor *src, mb_err *err)
{
    mb_status s =
        mb_tensor_alloc(dst, src->dtype, src->rank, src->dims, src->name, err);
    if (s)
        return s;
    if (src->nbytes)
        memcpy(dst->data, src->data, src->nbytes);
    return MB_OK;
}

double mb_tensor_get_f64(const mb_tensor *t, size_t i)
{
    const void *d = t->data;
    switch (t->dtype) {
    case MB_DTYPE_FLOAT32:
        return ((const float *)d)[i];
    case MB_DTYPE_FLOAT64:
        return ((const double *)d)[i];
    case MB_DTYPE_FLOAT16:
        return mb_f16_to_f32(((const uint16_t *)d)[i]);
    case MB_DTYPE_BFLOAT16:
        return mb_bf16_to_f32(((const uint16_t *)d)[i]);
    case MB_DTYPE_UINT8:
        return ((const uint8_t *)d)[i];
    case MB_DTYPE_INT8:
        return ((const int8_t *)d)[i];
    case MB_DTYPE_UINT16:
        return ((const uint16_t *)d)[i];
    case MB_DTYPE_INT16:
        return ((const int16_t *)d)[i];
    case MB_DTYPE_INT32:
        return ((const int32_t *)d)[i];
    case MB_DTYPE_INT64:
        return (double)((const int64_t *)d)[i];
    case MB_DTYPE_UINT32:
        return ((const uint32_t *)d)[i];
    case MB_DTYPE_UINT64:
        return (double)((const uint64_t *)d)[i];
    case MB_DTYPE_BOOL:
        return ((const uint8_t *)d)[i] ? 1.0 : 0.0;
    default:
        return NAN;
    }
}

char *mb_shape_str(const int64_t *dims, int rank, char *buf, size_t len)
{
    size_t off = 0;
    if (len == 0)
        return buf;
    buf[0] = '\0';
    off += (size_t)snprintf(buf, len, "[");
    for (int i = 0; i < rank && off < len; i++)
        off += (size_t)snprintf(buf + off, len - off, "%s%" PRId64,
                                i ? "," : "", dims[i]);
    if (off < len)
        snprintf(buf + off, len - off, "]");
    return buf;
}

float mb_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else { /* subnormal: renormalise */
            int e = -1;
            do {
                e++;
                man <<= 1;
            } while (!(man & 0x400));
            bits =
                sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3ff) << 13);
        }
    } else if (exp == 31) {
        bits = sign | 0x7f800000u | (man << 13);
    } else {
        bits = sign | ((exp + 112) << 23) | (man << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/* x >> shift (1 <= shift <= 31) rounded to nearest, ties to even. */
static uint32_t shift_rne(uint32_t x, int shift)
{
    uint32_t q = x >> shift;
    uint32_t rem = x & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (q & 1)))
        q++;
    return q;
}

uint16_t mb_f32_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000;
    uint32_t exp = (x >> 23) & 0xff;
    uint32_t man = x & 0x7fffff;
    if (exp == 0xff) /* inf or nan */
        return (uint16_t)(sign | 0x7c00 | (man ? 0x200 | (man >> 13) : 0));
    int e = (int)exp - 127 + 15;
    if (e >= 31)
        return (uint16_t)(sign | 0x7c00);
    if (e <= 0) {
        if (e < -10)
            return (uint16_t)sign;
        /* subnormal half: the implicit bit joins the shifted mantissa */
        return (uint16_t)(sign | shift_rne(man | 0x800000, 14 - e));
    }
    /* a carry out of the mantissa goes into the exponent: that is correct
     * rounding (up to infinity, too) */
    return (uint16_t)(sign | (((uint32_t)e << 10) + shift_rne(man, 13)));
}

float mb_bf16_to_f32(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

uint16_t mb_f32_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffff) > 0x7f800000)
        return (uint16_t)((x >> 16) | 0x40);
    uint32_t rounding = 0x7fff + ((x >> 16) & 1);
    return (uint16_t)((x + rounding) >> 16);
}
