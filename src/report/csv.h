/* csv.h - the CSV of a document, by the writer its kind has (writers.h):
 * for a result document one row per run (model, variant, batch size),
 * columns as docs/FORMATS.md lists.  Pure. */
#ifndef MB_REPORT_CSV_H
#define MB_REPORT_CSV_H

#include "core/buf.h"
#include "doc/docfmt.h" /* mb__csv_field, mb__csv_num */

#include <jansson.h>

/* The entry points that pick a document's writers by its kind. */
#include "report/render.h"

#endif
