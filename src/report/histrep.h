/* histrep.h - the writers of `mbench history`: a console table, a
 * GitHub-flavoured Markdown report and a self-contained HTML page with one
 * inline SVG chart per series, CSV rows, all over the series of
 * regress/history.h (borrowed).  Pure: they append to a buffer. */
#ifndef MB_REPORT_HISTREP_H
#define MB_REPORT_HISTREP_H

#include "core/buf.h"

#include <jansson.h>
#include <stddef.h>

/* A value of metric in its unit: "1.23 ms", "812 us" (console.h
 * mb__fmt_duration), "123.4/s" (throughput), "12.3 MiB" (memory); "-" for
 * NAN. */
char *mb__history_fmt(const char *metric, double x, char *out, size_t len);

void mb__history_console(mb_buf *b, const json_t *series, const char *metric);
void mb__history_md(mb_buf *b, const json_t *series, const char *metric);
void mb__history_html(mb_buf *b, const json_t *series, const char *metric);
/* CSV (RFC 4180): a header, then one line per stored result of every
 * series, the value unformatted in the metric's unit (ns, bytes,
 * inferences/s), and where a change point starts its relative change and
 * score. */
void mb__history_csv(mb_buf *b, const json_t *series, const char *metric);

#endif
