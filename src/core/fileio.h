/* fileio.h - reading files, mapping them, and writing outputs: regular
 * files atomically (temp file in the same directory, fsync, rename: a
 * reader never sees a half-written result, and a failed write never
 * destroys the old file), "-" and devices through, symlinks followed. */
#ifndef MB_CORE_FILEIO_H
#define MB_CORE_FILEIO_H

#include "mbench.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* Writes len bytes to path, the right way for each kind of path:
 *  - "-", /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: written to
 *    that descriptor of this process (never reopened, never replaced);
 *  - a symlink: followed; the file it ends at is what gets written (the
 *    link stays a link);
 *  - a character device, FIFO or socket: written through, no temp file;
 *  - a regular file (or a new one): atomically, a temp file in the same
 *    directory, fsync, rename; a replaced file keeps its mode.  A missing
 *    directory is created.
 * On failure (disk full, no permission) the old file is untouched and err
 * names the path and the reason. */
mb_status mb__write_file_atomic(const char *path, const void *data, size_t len,
                                mb_err *err);
/* json_dumps(doc, flags) and a final newline to path, written as above (a
 * NULL doc, or one that cannot be dumped, is out of memory: MB_ENOMEM
 * naming path). */
mb_status mb__write_json_atomic(const char *path, const json_t *doc,
                                size_t flags, mb_err *err);
/* Appends to path (creating it): used for CSV row appends.  A regular file
 * is rewritten atomically (old contents + data); descriptors, devices and
 * FIFOs get data written through, as above. */
mb_status mb__append_file_atomic(const char *path, const void *data, size_t len,
                                 mb_err *err);
/* Checks before any work that path can be written as above: creates its
 * missing parent directories (mkdir -p), and fails with a one-line reason
 * and fix when it is a directory, a file stands in the way of its
 * directory, the directory takes no new files (tried for real, so it holds
 * for root and read-only mounts), or a device is not writable. */
mb_status mb__output_check(const char *path, mb_err *err);
/* The same for an output directory: created with its parents, and must
 * take new files. */
mb_status mb__output_dir_check(const char *dir, mb_err *err);
/* mkdir -p: dir and its missing parents (mode 0777 less the umask). */
mb_status mb__mkdirs(const char *dir, mb_err *err);
/* Reads a whole file; *data is NUL-terminated and freed by the caller. */
mb_status mb__read_file(const char *path, char **data, size_t *len,
                        mb_err *err);

/* Appends the lines of a list file (variants, tasks) to *lines (grown
 * with realloc; each line malloc'd; the caller frees both): blanks at
 * either end trimmed, empty lines and '#' comments (a whole line, or from
 * a '#' after a blank) dropped.  On failure *lines keeps what it had. */
mb_status mb__read_lines(const char *path, char ***lines, size_t *n,
                         mb_err *err);

/* Opens path for reading, close-on-exec; *fd (the caller closes it) and
 * *size.  Fails with MB_EIO naming path when it cannot be opened or is not
 * a regular file (*fd is then -1). */
mb_status mb__open_regular(const char *path, int *fd, size_t *size,
                           mb_err *err);

/* A read-only mapping of a whole file (empty files map to len 0). */
typedef struct mb__map {
    const uint8_t *data;
    size_t len;
} mb__map;
mb_status mb__map_file(const char *path, mb__map *m, mb_err *err);
void mb__unmap(mb__map *m);

/* sha256 of a file as 64 lowercase hex characters (+NUL) in hex. Streams. */
mb_status mb__sha256_file(const char *path, char hex[65], mb_err *err);
void mb__sha256_hex(const void *data, size_t len, char hex[65]);

/* Size of a file in bytes, or -1 (errno set). */
int64_t mb__file_size(const char *path);

/* Checks that path can be read as a model file, naming what is wrong:
 * missing (MB_EIO, "does not exist; check the path"), a directory, a FIFO,
 * a device or a socket (MB_EIO: models are read from regular files),
 * unreadable (MB_EIO with the system's reason, e.g. Permission denied),
 * empty (MB_EFORMAT).  `what` starts the message ("model file",
 * "variant b: model file"). */
mb_status mb__model_file_check(const char *path, const char *what, mb_err *err);
/* The directory part of p ("." when it has none, "/" for "/name"), a new
 * string the caller frees; NULL when memory runs out. */
char *mb__dir_of(const char *p);
/* Pointer to the last path component of p (inside p). */
const char *mb__basename(const char *p);

#endif
