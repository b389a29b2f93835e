/* rebuild.h - `mbench report` as one library call: loads saved result
 * documents (resultdoc.h) and rebuilds the reports asked for from them
 * alone: Markdown and HTML of all documents together, a CSV with a row
 * per run (the file replaced), and the merged document as JSON.  Files
 * are written by the output manager's atomic writer (output.h). */
#ifndef MB_REPORT_REBUILD_H
#define MB_REPORT_REBUILD_H

#include "core/buf.h"
#include "mbench.h"
#include "report/output.h"

#include <stddef.h>

/* Where failures and warnings go (either function may be NULL). */
typedef struct mb__rebuild_cb {
    mb__out_fail_fn fail;                      /* per failure */
    void (*warn)(void *user, const char *msg); /* per merge note */
    void *user;
} mb__rebuild_cb;

/* Loads paths[0..n) (stopping at the first that fails; none is
 * MB_EINVAL) and writes every
 * report of o; with md_out and no o->md, the Markdown report goes to
 * md_out instead.  One output that fails does not stop the others.
 * Returns MB_OK or the first failure (each reported through cb->fail). */
mb_status mb__report_rebuild(char *const *paths, size_t n, const mb__outset *o,
                             mb__buf *md_out, const mb__rebuild_cb *cb);

#endif
