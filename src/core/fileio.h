/* fileio.h - reading files, mapping them, and writing them atomically
 * (temp file in the same directory, fsync, rename): a reader never sees a
 * half-written result, and a failed write never destroys the old file. */
#ifndef MB_CORE_FILEIO_H
#define MB_CORE_FILEIO_H

#include "mbench.h"

#include <stddef.h>
#include <stdint.h>

/* Writes len bytes to path atomically.  On failure (disk full, no
 * permission, missing directory) the old file is untouched and err names
 * the path and the reason. */
mb_status mb__write_file_atomic(const char *path, const void *data, size_t len,
                                mb_err *err);
/* Appends to path (creating it): used for CSV row appends.  Writes the
 * whole new file atomically (old contents + data). */
mb_status mb__append_file_atomic(const char *path, const void *data,
                                 size_t len, mb_err *err);
/* Reads a whole file; *data is NUL-terminated and freed by the caller. */
mb_status mb__read_file(const char *path, char **data, size_t *len,
                        mb_err *err);

/* A read-only mapping of a whole file (empty files map to len 0). */
typedef struct mb_map {
    const uint8_t *data;
    size_t len;
} mb_map;
mb_status mb__map_file(const char *path, mb_map *m, mb_err *err);
void mb__unmap(mb_map *m);

/* sha256 of a file as 64 lowercase hex characters (+NUL) in hex. Streams. */
mb_status mb__sha256_file(const char *path, char hex[65], mb_err *err);
void mb__sha256_hex(const void *data, size_t len, char hex[65]);

/* Size of a file in bytes, or -1 (errno set). */
int64_t mb__file_size(const char *path);
/* Pointer to the last path component of p (inside p). */
const char *mb__basename(const char *p);

#endif
