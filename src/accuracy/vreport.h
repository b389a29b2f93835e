/* vreport.h - Markdown and HTML reports of a validation: pure writers from
 * a `mbench validate` result document ("kind": "validate", its
 * "validation" object; docs/ACCURACY.md) to bytes.  They show the verdict,
 * the two models run and their options, the inputs fed, which output was
 * read as class scores and why, every check of every output with its
 * value, and the metrics of every output.  Every string from the document
 * is escaped.  No I/O: the caller writes the bytes atomically. */
#ifndef MB_ACCURACY_VREPORT_H
#define MB_ACCURACY_VREPORT_H

#include "core/buf.h"
#include "mbench.h"

#include <jansson.h>

/* Appends the report of doc to out.  MB_EINVAL when doc has no
 * "validation" object; MB_ENOMEM when out ran out of memory. */
mb_status mb__validation_md(const json_t *doc, mb_buf *out, mb_err *err);
mb_status mb__validation_html(const json_t *doc, mb_buf *out, mb_err *err);

#endif
