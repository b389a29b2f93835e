/* csv.h - the CSV rows of a result document: one row per run (model,
 * variant, batch size), columns as docs/FORMATS.md lists.  Pure. */
#ifndef MB_REPORT_CSV_H
#define MB_REPORT_CSV_H

#include "core/buf.h"
#include "doc/docfmt.h" /* mb__csv_field, mb__csv_num */

#include <jansson.h>

/* Appends the rows of doc (after a header line when with_header). */
void mb__report_csv(const json_t *doc, int with_header, mb_buf *out);

#endif
