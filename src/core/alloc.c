/* alloc.c - overflow-checked allocation. */
#include "alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool mb__mul_ok(size_t a, size_t b, size_t *out)
{
    if (a && b > SIZE_MAX / a)
        return false;
    *out = a * b;
    return true;
}

void *mb__malloc(size_t n)
{
    return malloc(n ? n : 1);
}

void *mb__calloc(size_t count, size_t size)
{
    size_t n;
    if (!mb__mul_ok(count, size, &n))
        return NULL;
    return calloc(n ? n : 1, 1);
}

void *mb__realloc_array(void *p, size_t count, size_t size)
{
    size_t n;
    if (!mb__mul_ok(count, size, &n))
        return NULL;
    return realloc(p, n ? n : 1);
}

char *mb__strdup(const char *s)
{
    if (!s)
        return NULL;
    return mb__strndup(s, strlen(s));
}

char *mb__strndup(const char *s, size_t n)
{
    if (!s)
        return NULL;
    size_t len = strnlen(s, n);
    char *d = malloc(len + 1);
    if (!d)
        return NULL;
    memcpy(d, s, len);
    d[len] = '\0';
    return d;
}

bool mb__grow(void **arr, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return true;
    size_t ncap = *cap ? *cap : 8;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2)
            return false;
        ncap *= 2;
    }
    void *p = mb__realloc_array(*arr, ncap, size);
    if (!p)
        return false;
    *arr = p;
    *cap = ncap;
    return true;
}
