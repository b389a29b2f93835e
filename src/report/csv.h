/* csv.h - the CSV of a document, by the writer its kind has (writers.h):
 * for a result document one row per run (model, variant, batch size),
 * columns as docs/FORMATS.md lists.  Pure. */
#ifndef MB_REPORT_CSV_H
#define MB_REPORT_CSV_H

#include "core/buf.h"
#include "doc/docfmt.h" /* mb__csv_field, mb__csv_num */

#include <jansson.h>

/* Appends the rows of doc (after a header line when with_header; a gate
 * verdict's or a diff's CSV, a whole file, always has its header). */
void mb__report_csv(const json_t *doc, int with_header, mb_buf *out);

#endif
