/* rutil.h - the one place for what every writer shares: escaping of
 * untrusted strings (HTML, Markdown, JSON in a <script>), dotted-path
 * lookups in a document, and number formatting (durations, bytes, counts,
 * p-values, ratios).  The typed view of a document is report/view.h
 * (included here for the writers that used to find it in this header).
 * Pure functions: no I/O, no global state. */
#ifndef MB_REPORT_RUTIL_H
#define MB_REPORT_RUTIL_H

#include "core/buf.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "report/view.h"

/* HTML-escapes s (& < > " ' and control characters) into b, for text and
 * attribute values alike.  NULL appends nothing. */
void mb__html_escape(mb_buf *b, const char *s);
/* Escapes s for a GitHub-flavoured Markdown table cell: backslash-escapes
 * \ ` * _ | [ ] # ~ $, writes < > & as entities and folds newlines, tabs
 * and other control characters into spaces.  NULL appends "-". */
void mb__md_escape(mb_buf *b, const char *s);
/* Appends the JSON text of doc for a <script type="application/json">
 * block: < > & and U+2028/U+2029 become \u escapes, so "</script>" can
 * never appear, and JSON.parse gives back the same document. */
void mb__json_script_embed(mb_buf *b, const json_t *doc);

/* Dotted-path lookups ("latency.median_ci95.lo"); NULL/NAN when missing or
 * of another type.  Borrowed from o. */
const json_t *mb__jget(const json_t *o, const char *path);
double mb__jnum(const json_t *o, const char *path);
const char *mb__jstr(const json_t *o, const char *path);

/* "p < 0.0001" style p-value text ("-" for NAN) into out; returns out. */
char *mb__fmt_p(double p, char *out, size_t len);
/* The median speedup of a comparison entry in words, into out:
 * "2.10× faster (95% CI 1.90–2.30×)" or, below 1, "2.50× slower (95% CI
 * 2.45–2.54×)" (the inverse ratio, easier to read), "" when absent. */
char *mb__speedup_words(const json_t *speedup, char *out, size_t len);

/* Formats a duration in ns as milliseconds with 3-4 significant digits
 * ("1.234", "12.35", "123.4") into out; "-" for NAN. Returns out. */
char *mb__fmt_ms(double ns, char *out, size_t len);
/* Formats a byte count as "12.3 MiB"; "-" for NAN. Returns out. */
char *mb__fmt_bytes(double b, char *out, size_t len);
/* General number with `sig` significant digits, "-" for NAN. */
char *mb__fmt_num(double x, int sig, char *out, size_t len);

#endif
