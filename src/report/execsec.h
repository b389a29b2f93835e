/* execsec.h - the report sections of whole programs (exec, suite and
 * merged suites) and of requirements (any document with --require):
 * speedups with CIs (exec's and suite's comparisons, per phase), per-phase
 * tables and a phase chart, counters and metrics, per-iteration loops,
 * throughput derived from counters, git facts per branch, and the
 * requirement verdicts.  Pure functions of the documents; every string
 * from a document is escaped.  Called once by the Markdown and the HTML
 * writer. */
#ifndef MB_REPORT_EXECSEC_H
#define MB_REPORT_EXECSEC_H

#include "core/buf.h"

#include <jansson.h>
#include <stddef.h>

/* Appends the sections (nothing when the documents have none of it). */
void mb__md_exec_sections(mb__buf *b, const json_t *const *docs, size_t n);
/* The same as HTML; the ids of the charts drawn are appended to expect
 * (space-separated), which the page checks in the browser. */
void mb__html_exec_sections(mb__buf *b, const json_t *const *docs, size_t n,
                            mb__buf *expect);

#endif
