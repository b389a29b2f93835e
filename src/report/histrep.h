/* histrep.h - the writers of `mbench history`: a console table, a
 * GitHub-flavoured Markdown report and a self-contained HTML page with one
 * inline SVG chart per series, CSV rows, all over the series of
 * regress/history.h (borrowed).  Pure: they append to a buffer.  And the
 * history's files (histout.c): those writers and the "mbench.history/1"
 * JSON document, written by the output manager's atomic writer. */
#ifndef MB_REPORT_HISTREP_H
#define MB_REPORT_HISTREP_H

#include "core/buf.h"
#include "report/output.h"

#include <jansson.h>
#include <stddef.h>

/* A value of metric in its unit: "1.23 ms", "812 us" (console.h
 * mb__fmt_duration), "123.4/s" (throughput), "12.3 MiB" (memory); "-" for
 * NAN. */
char *mb__history_fmt(const char *metric, double x, char *out, size_t len);

void mb__history_console(mb__buf *b, const json_t *series, const char *metric);
void mb__history_md(mb__buf *b, const json_t *series, const char *metric);
void mb__history_html(mb__buf *b, const json_t *series, const char *metric);
/* CSV (RFC 4180): a header, then one line per stored result of every
 * series, the value unformatted in the metric's unit (ns, bytes,
 * inferences/s), and where a change point starts its relative change and
 * score. */
void mb__history_csv(mb__buf *b, const json_t *series, const char *metric);

/* Writes o->html, o->md, o->csv and o->json (the document stamped with
 * the time now; NULL paths are skipped; the CSV file is replaced, not
 * appended to).  Every output is
 * tried: fail (may be NULL) is called for each that fails; returns MB_OK
 * or the first failure. */
mb_status mb__history_write(json_t *series, const char *metric,
                            const mb__outset *o, mb__out_fail_fn fail,
                            void *user);

#endif
