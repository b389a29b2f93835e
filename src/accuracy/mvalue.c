/* mvalue.c - the metric options, any numeric tensor read as doubles, and
 * metric values as JSON and text (mvalue.h). */
#include "accuracy/mvalue.h"

#include "accuracy/mkernel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mb__metric_opts_defaults(mb__metric_opts *o)
{
    memset(o, 0, sizeof *o);
    o->atol = 1e-8;
    o->rtol = 1e-5;
    o->data_range = 0;
    o->ssim_3d = 0;
    o->threads = 0;
    o->parallel_min = (size_t)1 << 20;
    o->per_sample_max = 1024;
}

bool mb__metrics_dtype_ok(mb_dtype t)
{
    switch (t) {
    case MB_DTYPE_FLOAT32:
    case MB_DTYPE_FLOAT64:
    case MB_DTYPE_FLOAT16:
    case MB_DTYPE_BFLOAT16:
    case MB_DTYPE_UINT8:
    case MB_DTYPE_INT8:
    case MB_DTYPE_UINT16:
    case MB_DTYPE_INT16:
    case MB_DTYPE_INT32:
    case MB_DTYPE_INT64:
    case MB_DTYPE_UINT32:
    case MB_DTYPE_UINT64:
    case MB_DTYPE_BOOL:
        return true;
    default:
        return false;
    }
}

void mb__tensor_load_f64(const mb_tensor *t, size_t off, size_t n, double *dst)
{
    const unsigned char *p = t->data;
    size_t i;
    if (t->dtype == MB_DTYPE_FLOAT32) { /* the common case, vectorised */
        mb__mk_widen_f32((const float *)(const void *)p + off, n, dst);
        return;
    }
#define LOAD_AS(T)                                                             \
    do {                                                                       \
        const T *s = (const T *)(const void *)p + off;                         \
        for (i = 0; i < n; i++)                                                \
            dst[i] = (double)s[i];                                             \
    } while (0)
    switch (t->dtype) {
    case MB_DTYPE_FLOAT32:
        LOAD_AS(float);
        break;
    case MB_DTYPE_FLOAT64:
        LOAD_AS(double);
        break;
    case MB_DTYPE_UINT8:
        LOAD_AS(uint8_t);
        break;
    case MB_DTYPE_INT8:
        LOAD_AS(int8_t);
        break;
    case MB_DTYPE_UINT16:
        LOAD_AS(uint16_t);
        break;
    case MB_DTYPE_INT16:
        LOAD_AS(int16_t);
        break;
    case MB_DTYPE_INT32:
        LOAD_AS(int32_t);
        break;
    case MB_DTYPE_INT64:
        LOAD_AS(int64_t);
        break;
    case MB_DTYPE_UINT32:
        LOAD_AS(uint32_t);
        break;
    case MB_DTYPE_UINT64:
        LOAD_AS(uint64_t);
        break;
    case MB_DTYPE_BOOL: {
        const uint8_t *s = p + off;
        for (i = 0; i < n; i++)
            dst[i] = s[i] ? 1.0 : 0.0;
        break;
    }
    case MB_DTYPE_FLOAT16: {
        const uint16_t *s = (const uint16_t *)(const void *)p + off;
        for (i = 0; i < n; i++)
            dst[i] = (double)mb_f16_to_f32(s[i]);
        break;
    }
    case MB_DTYPE_BFLOAT16: {
        const uint16_t *s = (const uint16_t *)(const void *)p + off;
        for (i = 0; i < n; i++)
            dst[i] = (double)mb_bf16_to_f32(s[i]);
        break;
    }
    default:
        for (i = 0; i < n; i++)
            dst[i] = NAN;
        break;
    }
#undef LOAD_AS
}

json_t *mb__json_metric(double v)
{
    if (isnan(v))
        return json_null();
    if (isinf(v))
        return json_string(v > 0 ? "inf" : "-inf");
    return json_real(v);
}

bool mb__json_metric_get(const json_t *v, double *out)
{
    *out = NAN;
    if (json_is_real(v) || json_is_integer(v)) {
        *out = json_number_value(v);
        return true;
    }
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        if (strcmp(s, "inf") == 0 || strcmp(s, "+inf") == 0) {
            *out = INFINITY;
            return true;
        }
        if (strcmp(s, "-inf") == 0) {
            *out = -INFINITY;
            return true;
        }
        if (strcmp(s, "nan") == 0)
            return true;
    }
    return false;
}

const char *mb__json_metric_text(const json_t *v, const char *yes,
                                 const char *no, char *buf, size_t len)
{
    if (json_is_string(v))
        snprintf(buf, len, "%s", json_string_value(v));
    else if (json_is_integer(v))
        snprintf(buf, len, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, len, "%.6g", json_real_value(v));
    else if (json_is_boolean(v))
        snprintf(buf, len, "%s", json_is_true(v) ? yes : no);
    else
        snprintf(buf, len, "n/a");
    return buf;
}
