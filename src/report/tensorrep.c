/* tensorrep.c - tensor-dump's lines (tensorrep.h). */
#include "report/tensorrep.h"

#include "report/rutil.h"

#include "data/tensorfile.h"

#include <inttypes.h>

static void value(mb__buf *b, const mb_tensor *t, size_t i)
{
    const void *d = t->data;
    switch (t->dtype) {
    case MB_DTYPE_FLOAT32:
        mb__buf_printf(b, "%.9g", (double)((const float *)d)[i]);
        break;
    case MB_DTYPE_FLOAT16:
        mb__buf_printf(b, "%.5g",
                       (double)mb_f16_to_f32(((const uint16_t *)d)[i]));
        break;
    case MB_DTYPE_INT64:
        mb__buf_printf(b, "%" PRId64, ((const int64_t *)d)[i]);
        break;
    case MB_DTYPE_UINT64:
        mb__buf_printf(b, "%" PRIu64, ((const uint64_t *)d)[i]);
        break;
    case MB_DTYPE_COMPLEX64:
        mb__buf_printf(b, "(%.9g,%.9g)", (double)((const float *)d)[2 * i],
                       (double)((const float *)d)[2 * i + 1]);
        break;
    case MB_DTYPE_COMPLEX128:
        mb__buf_printf(b, "(%.17g,%.17g)", ((const double *)d)[2 * i],
                       ((const double *)d)[2 * i + 1]);
        break;
    default: /* float64 and every narrower integer */
        mb__buf_printf(b, "%.17g", mb_tensor_get_f64(t, i));
        break;
    }
}

void mb__tensor_describe(mb__buf *b, const mb_tensor *t, const char *fallback,
                         int values, int64_t limit)
{
    char shp[512], hex[65];
    mb__tensor_sha256_le(t, hex);
    mb__console_put(b, t->name && t->name[0] ? t->name : fallback);
    mb__buf_printf(b, " dtype=%s shape=%s sha256=%s\n", mb_dtype_name(t->dtype),
                   mb_shape_str(t->dims, t->rank, shp, sizeof shp), hex);
    if (!values)
        return;
    size_t n = mb_tensor_count(t);
    if (limit >= 0 && (uint64_t)limit < n)
        n = (size_t)limit;
    mb__buf_puts(b, "values:");
    for (size_t i = 0; i < n; i++) {
        mb__buf_putc(b, ' ');
        value(b, t, i);
    }
    mb__buf_putc(b, '\n');
}

void mb__labels_describe(mb__buf *b, const int64_t *ids, size_t n)
{
    mb__buf_printf(b, "labels %zu:", n);
    for (size_t i = 0; i < n; i++)
        mb__buf_printf(b, " %" PRId64, ids[i]);
    mb__buf_putc(b, '\n');
}
