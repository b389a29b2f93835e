/* vreport.h - Markdown and HTML reports of a validation (and of a diff,
 * below): pure writers from
 * a `mbench validate` result document ("kind": "validate", its
 * "validation" object; docs/ACCURACY.md) to bytes.  They show the verdict,
 * the two models run and their options, the inputs fed, which output was
 * read as class scores and why, every check of every output with its
 * value, and the metrics of every output.  Every string from the document
 * is escaped.  No I/O: the caller writes the bytes atomically. */
#ifndef MB_REPORT_VREPORT_H
#define MB_REPORT_VREPORT_H

#include "core/buf.h"
#include "mbench.h"

#include <jansson.h>

/* Appends the report of doc to out.  MB_EINVAL when doc has no
 * "validation" object; MB_ENOMEM when out ran out of memory. */
mb_status mb__validation_md(const json_t *doc, mb__buf *out, mb_err *err);
mb_status mb__validation_html(const json_t *doc, mb__buf *out, mb_err *err);

/* The same for a `mbench diff` document (schema "mbench.diff/1"): the
 * verdict, every gate on every tensor, the metrics table.  MB_EINVAL for
 * another document. */
int mb__diff_doc_is(const json_t *doc);
mb_status mb__diff_md(const json_t *doc, mb__buf *out, mb_err *err);
mb_status mb__diff_html(const json_t *doc, mb__buf *out, mb_err *err);
/* CSV (RFC 4180) of a diff document: a header, then one line per tensor
 * with every scalar metric unformatted ("inf"/"nan" where they are). */
void mb__diff_csv(const json_t *doc, mb__buf *out);

#endif
