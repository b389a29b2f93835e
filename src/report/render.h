/* render.h - any document as Markdown, HTML or CSV: the entry points that
 * pick the writers of a document by its kind in the one table of writers
 * (writers.h) and call them.  The writers themselves (markdown.c, html.c,
 * csv.c and each kind's file) never come back here. */
#ifndef MB_REPORT_RENDER_H
#define MB_REPORT_RENDER_H

#include "core/buf.h"
#include "mbench.h"

#include <jansson.h>
#include <stddef.h>

/* Renders n_docs result documents (borrowed; runs side by side) as
 * Markdown, appended to out.  Every string taken from a document is
 * escaped (mb__md_escape).  Returns MB_EINVAL when n_docs is 0 or a
 * document is not an object, MB_ENOMEM when memory runs out. */
mb_status mb__report_md(const json_t *const *docs, size_t n_docs, mb__buf *out,
                        mb_err *err);
/* Renders n_docs result documents (borrowed) as one HTML page appended to
 * out.  Every string from a document is HTML-escaped; the embedded JSON
 * has < > & escaped as \u sequences.  Returns MB_EINVAL when n_docs is 0
 * or a document is not an object, MB_ENOMEM when memory runs out. */
mb_status mb__report_html(const json_t *const *docs, size_t n_docs,
                          mb__buf *out, mb_err *err);
/* Appends the rows of doc (after a header line when with_header; a gate
 * verdict's or a diff's CSV, a whole file, always has its header). */
void mb__report_csv(const json_t *doc, int with_header, mb__buf *out);

#endif
