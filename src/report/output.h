/* output.h - the one output manager: renders a document in every format
 * asked for and writes each file atomically (core/fileio.h: temp file,
 * fsync, rename; "-" and /dev/fd/N are written through to that
 * descriptor).  The writers are chosen by what the document is: a result
 * document (run, compare, validate, ...) or a gate verdict
 * (mbench.gate/1).  Commands call this instead of rendering and writing
 * themselves. */
#ifndef MB_REPORT_OUTPUT_H
#define MB_REPORT_OUTPUT_H

#include "core/buf.h"
#include "mbench.h"

#include <jansson.h>

/* The paths of the formats wanted; NULL: not wanted. */
typedef struct mb__outset {
    const char *json, *csv, *md, *html;
} mb__outset;

/* Called once per output that failed, with the reason (err->msg names
 * the path).  user is the caller's. */
typedef void (*mb__out_fail_fn)(void *user, const mb_err *err);

/* Writes the bytes of b to path atomically and frees b.  A buffer that
 * ran out of memory is not written (MB_ENOMEM). */
mb_status mb__output_buf(const char *path, mb_buf *b, mb_err *err);
/* The JSON text of doc (2-space indent, 17 significant digits, 10 for a
 * gate verdict, a final newline) to path. */
mb_status mb__output_json(const char *path, const json_t *doc, mb_err *err);
/* The same with jansson's dump flags as given (a NULL doc is
 * MB_ENOMEM, as json_dumps failing is). */
mb_status mb__output_json_flags(const char *path, const json_t *doc,
                                size_t flags, mb_err *err);
/* Every format of o for doc.  The CSV is appended, with its header when
 * the file is new or empty.  One output that fails does not stop the
 * others: fail (may be NULL) is called for each; returns MB_OK or the
 * status of the first failure. */
mb_status mb__output_all(const mb__outset *o, const json_t *doc,
                         mb__out_fail_fn fail, void *user);

#endif
