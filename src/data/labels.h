/* labels.h - ground-truth class ids for --labels: an .npy of integers (any
 * integer dtype; shape [N], [N,1] or a scalar) or a text file with one
 * integer per line (blank lines and '#' comments ignored). */
#ifndef MB_DATA_LABELS_H
#define MB_DATA_LABELS_H

#include "mbench.h"

#include <stddef.h>
#include <stdint.h>

/* Reads the labels at path into a new array *labels of *n values (caller
 * frees with free()).  Fails with MB_EIO (missing file), MB_EFORMAT (a bad
 * line, named by number; a corrupt .npy; no labels at all) or MB_EDATA (a
 * non-integer dtype or a shape that is not a list).  On failure *labels is
 * NULL and *n is 0. */
mb_status mb__labels_load(const char *path, int64_t **labels, size_t *n,
                          mb_err *err);

/* The same from the len bytes at data (copied; `what` names them in
 * messages). */
mb_status mb__labels_parse(const void *data, size_t len, const char *what,
                           int64_t **labels, size_t *n, mb_err *err);

#endif
