/* html.h - the HTML report: one self-contained page (inline CSS, inline
 * SVG charts drawn by mbench, a few lines of inline script, no network
 * request of any kind) with the summary table, speedups, charts, accuracy,
 * metadata, warnings and the full result documents embedded for download.
 * Light and dark mode, printable.  A pure function of the documents. */
#ifndef MB_REPORT_HTML_H
#define MB_REPORT_HTML_H

#include "core/buf.h"
#include "mbench.h"

#include <jansson.h>
#include <stddef.h>

/* Renders n_docs result documents (borrowed) as one HTML page appended to
 * out.  Every string from a document is HTML-escaped; the embedded JSON
 * has < > & escaped as \u sequences.  Returns MB_EINVAL when n_docs is 0
 * or a document is not an object, MB_ENOMEM when memory runs out. */
mb_status mb__report_html(const json_t *const *docs, size_t n_docs, mb_buf *out,
                          mb_err *err);

#endif
