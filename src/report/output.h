/* output.h - the one output manager: renders a document in every format
 * asked for and writes each file atomically (core/fileio.h: temp file,
 * fsync, rename; "-" and /dev/fd/N are written through to that
 * descriptor), writes the timestamped set of an output directory and
 * appends the document to a store.  The writers are chosen by what the
 * document is: a result document (run, compare, validate, ...) or a gate
 * verdict (mbench.gate/1).  Commands call this instead of rendering and
 * writing themselves; they check each destination with the *_check calls
 * while parsing, so nothing is measured for an output that cannot be
 * written. */
#ifndef MB_REPORT_OUTPUT_H
#define MB_REPORT_OUTPUT_H

#include "core/buf.h"
#include "mbench.h"

#include <jansson.h>

/* Where a document goes; NULL: not wanted.  All borrowed. */
typedef struct mb__outset {
    const char *json, *csv, *md, *html;
    const char *db;      /* a store file or postgresql:// URL: appended */
    const char *git_dir; /* the project whose commit is stored (default .) */
    const char *outdir;  /* also every format, named by mb__output_reserve */
} mb__outset;

/* Called once per output that failed, with the reason (err->msg names
 * the path).  user is the caller's. */
typedef void (*mb__out_fail_fn)(void *user, const mb_err *err);

/* Writes the bytes of b to path atomically and frees b.  A buffer that
 * ran out of memory is not written (MB_ENOMEM). */
mb_status mb__output_buf(const char *path, mb__buf *b, mb_err *err);
/* json_dumps(doc, flags) and a final newline to path (a NULL doc is out
 * of memory). */
mb_status mb__output_json_as(const char *path, const json_t *doc, size_t flags,
                             mb_err *err);
/* The JSON text of doc (2-space indent, 17 significant digits, 10 for a
 * gate verdict). */
mb_status mb__output_json(const char *path, const json_t *doc, mb_err *err);
/* Opens the store at url once and closes it: a typo in a URL, a refused
 * password or a file that is not a store fails before the run. */
mb_status mb__output_store_check(const char *url, mb_err *err);
/* The four files of an output directory for one document of kind cmd:
 * DIR/mbench-CMD-YYYYmmddTHHMMSSZ.{json,csv,md,html} in UTC, with -2,
 * -3... before the extension when any of the four exists.  They are
 * created empty with O_EXCL (two processes never share a name) and then
 * replaced by the writers.  paths[0..3] (json, csv, md, html): caller
 * frees each.  MB_EIO naming the directory when they cannot be made. */
mb_status mb__output_reserve(const char *dir, const char *cmd, char *paths[4],
                             mb_err *err);
/* Every destination of o for doc: the files, the --outdir set (named by
 * doc's "kind") and the store.  The CSV is appended, with its header when
 * the file is new or empty.  One output that fails does not stop the
 * others: fail (may be NULL) is called for each; returns MB_OK or the
 * status of the first failure. */
mb_status mb__output_all(const mb__outset *o, const json_t *doc,
                         mb__out_fail_fn fail, void *user);

#endif
