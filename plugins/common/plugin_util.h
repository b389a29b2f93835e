/* plugin_util.h - what every backend plugin needs and cannot take from
 * libmbench (a plugin sees only the public headers, not the library's
 * symbols): the one-line error of mbench_backend.h's convention, and the
 * dtype names of the documents.  Header-only, for C and C++ alike. */
#ifndef MB_PLUGIN_UTIL_H
#define MB_PLUGIN_UTIL_H

#include "mbench.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Sets err (when not NULL) to code and the formatted one-line message;
 * returns code, so a plugin writes `return mb_plugin_fail(err, ...)`. */
static inline int mb_plugin_fail(mb_err *err, mb_status code, const char *fmt,
                                 ...) __attribute__((format(printf, 3, 4)));
static inline int mb_plugin_fail(mb_err *err, mb_status code, const char *fmt,
                                 ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

/* The dtype names of result documents and of mbench_backend.h, canonical
 * names first; a plugin adds its framework's own spellings after these. */
typedef struct mb_plugin_dtype_name {
    mb_dtype t;
    const char *name;
} mb_plugin_dtype_name;

static const mb_plugin_dtype_name mb_plugin_dtypes[] = {
    {MB_DTYPE_FLOAT32, "float32"},   {MB_DTYPE_FLOAT16, "float16"},
    {MB_DTYPE_BFLOAT16, "bfloat16"}, {MB_DTYPE_FLOAT64, "float64"},
    {MB_DTYPE_INT64, "int64"},       {MB_DTYPE_INT32, "int32"},
    {MB_DTYPE_INT16, "int16"},       {MB_DTYPE_INT8, "int8"},
    {MB_DTYPE_UINT8, "uint8"},       {MB_DTYPE_UINT16, "uint16"},
    {MB_DTYPE_UINT32, "uint32"},     {MB_DTYPE_UINT64, "uint64"},
    {MB_DTYPE_BOOL, "bool"}};

/* The canonical name of t, or NULL when it has none here. */
static inline const char *mb_plugin_dtype_str(mb_dtype t)
{
    for (size_t i = 0; i < sizeof mb_plugin_dtypes / sizeof mb_plugin_dtypes[0];
         i++)
        if (mb_plugin_dtypes[i].t == t)
            return mb_plugin_dtypes[i].name;
    return NULL;
}

/* The dtype a canonical name names; MB_DTYPE_UNDEFINED for any other
 * string (and NULL). */
static inline mb_dtype mb_plugin_dtype_of(const char *s)
{
    for (size_t i = 0;
         s && i < sizeof mb_plugin_dtypes / sizeof mb_plugin_dtypes[0]; i++)
        if (!strcmp(mb_plugin_dtypes[i].name, s))
            return mb_plugin_dtypes[i].t;
    return MB_DTYPE_UNDEFINED;
}

#endif
