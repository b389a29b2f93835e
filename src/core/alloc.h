/* alloc.h - the checked allocation wrappers every module uses.
 * They return NULL on failure or size overflow; they never abort. */
#ifndef MB_CORE_ALLOC_H
#define MB_CORE_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

void *mb__malloc(size_t n);
/* Zeroed array of count*size bytes; NULL on overflow. */
void *mb__calloc(size_t count, size_t size);
/* Resizes p to count*size bytes; NULL on overflow (p is then untouched). */
void *mb__realloc_array(void *p, size_t count, size_t size);
/* Copy of s, or NULL when s is NULL or memory runs out. */
char *mb__strdup(const char *s);
char *mb__strndup(const char *s, size_t n);
/* a*b into *out; returns 0 on overflow. */
bool mb__mul_ok(size_t a, size_t b, size_t *out);

/* Grows *arr (of *cap elements of `size` bytes) to hold at least `need`;
 * returns 0 on failure with *arr untouched. */
bool mb__grow(void **arr, size_t *cap, size_t need, size_t size);

#endif
