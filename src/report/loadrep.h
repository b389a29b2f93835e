/* loadrep.h - every rendering of a "load" result document (docs/LOAD.md):
 * the console table, Markdown, CSV rows (one per step) and a
 * self-contained HTML page with the latency-against-throughput ("hockey
 * stick") chart.  Pure functions of the document; the generic writers
 * (csv.c, markdown.c, html.c) hand load documents to these. */
#ifndef MB_REPORT_LOADREP_H
#define MB_REPORT_LOADREP_H

#include "core/buf.h"
#include "mbench.h"

#include <stdbool.h>
#include <jansson.h>

/* 1 when doc is a load document (kind "load" with a "load" object). */
bool mb__is_load_doc(const json_t *doc);
/* The console summary: one row per step, the search's answer, warnings.
 * width is the terminal width (0: 100). */
void mb__report_load_console(const json_t *doc, int width, mb__buf *out);
void mb__report_load_md(const json_t *doc, mb__buf *out);
void mb__report_load_csv(const json_t *doc, int with_header, mb__buf *out);
/* What went wrong in a finished load document: MB_EIO with "step N
 * failed: why" for the first step that failed, else MB_EINTERRUPTED when
 * the run was interrupted, else MB_OK. */
mb_status mb__load_doc_outcome(const json_t *doc, mb_err *err);
/* The HTML page; MB_ENOMEM when memory runs out. */
mb_status mb__report_load_html(const json_t *doc, mb__buf *out, mb_err *err);

#endif
