/* csv.h - the CSV rows of a result document: one row per run (model,
 * variant, batch size), columns as docs/FORMATS.md lists.  Pure. */
#ifndef MB_REPORT_CSV_H
#define MB_REPORT_CSV_H

#include "core/buf.h"

#include <jansson.h>

/* Appends the rows of doc (after a header line when with_header). */
void mb__report_csv(const json_t *doc, int with_header, mb_buf *out);
/* Appends s as one RFC 4180 field (quoted when needed). */
void mb__csv_field(mb_buf *out, const char *s);
/* Appends a comma, then x in fmt (e.g. "%.9g"), or nothing when x is not
 * finite (an empty field: absent). */
void mb__csv_num(mb_buf *out, const char *fmt, double x);

#endif
