/* rutil.h - the one place for what every writer shares: escaping of
 * untrusted strings (HTML, Markdown, terminal, JSON in a <script>).  The
 * document layer below the writers gives the rest, included here for the
 * writers that used to find it in this header: dotted-path lookups and
 * number formatting (doc/docfmt.h) and the typed view (doc/view.h).
 * Pure functions: no I/O, no global state. */
#ifndef MB_REPORT_RUTIL_H
#define MB_REPORT_RUTIL_H

#include "core/buf.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "doc/docfmt.h"
#include "doc/view.h"

/* HTML-escapes s (& < > " ' and control characters) into b, for text and
 * attribute values alike.  NULL appends nothing. */
void mb__html_escape(mb__buf *b, const char *s);
/* Escapes s for a GitHub-flavoured Markdown table cell: backslash-escapes
 * \ ` * _ | [ ] # ~ $, writes < > & as entities and folds newlines, tabs
 * and other control characters into spaces.  NULL appends "-". */
void mb__md_escape(mb__buf *b, const char *s);
/* s as a Markdown code span: fenced with one backtick more than the
 * longest run of backticks in s, control characters folded into spaces.
 * NULL appends "-". */
void mb__md_code(mb__buf *b, const char *s);
/* s for a terminal: every control character (C0, DEL, and the C1 range
 * U+0080..U+009F, which some terminals obey) shown as an escape -- newline
 * as \n, tab \t, carriage return \r, ESC \e, others \xNN or \u00NN --
 * so a name from a model, a file or the command line can neither break a
 * console table nor send terminal escapes.  NULL appends nothing. */
void mb__console_put(mb__buf *b, const char *s);
/* The same into buf (always NUL-terminated, cut at len); returns buf. */
const char *mb__console_safe(const char *s, char *buf, size_t len);
/* Display columns of UTF-8 text s (a code point is one column, a colour
 * escape ESC [ ... none). */
size_t mb__console_cols(const char *s);
/* s made safe as mb__console_put does, wrapped at `width` columns on
 * spaces: the first line goes on after `col` columns already printed,
 * the next lines start with `indent` spaces; a word longer than a line is
 * cut.  Ends with a newline.  width <= indent + 8: no wrapping. */
void mb__console_wrap(mb__buf *b, const char *s, int width, int col,
                      int indent);
/* Wraps the lines of b from byte `from` on that are wider than width
 * columns (text already made safe: table notes, warnings), on spaces,
 * continuation lines indented two more than the line.  Lines that fit
 * are kept as they are. */
void mb__console_fit(mb__buf *b, size_t from, int width);
/* Appends the JSON text of doc for a <script type="application/json">
 * block: < > & and U+2028/U+2029 become \u escapes, so "</script>" can
 * never appear, and JSON.parse gives back the same document. */
void mb__json_script_embed(mb__buf *b, const json_t *doc);

/* An embedded heat map (accuracy/heatmap.h's object h: output, sample,
 * samples, chosen, max_abs, width, height, png_base64) as an HTML
 * <figure>: the PNG as a data: URL (the page's Content-Security-Policy
 * must allow img-src data:), enlarged without smoothing, and a caption
 * saying which output and sample it draws and what its brightest colour
 * stands for.  `who` (may be NULL) names the comparison ("fp16 against
 * base").  Appends nothing when h is not such an object or its base64 is
 * not plain base64. */
void mb__html_heatmap(mb__buf *b, const json_t *h, const char *who);
/* Its caption as plain text, into buf (cut at len); returns buf. */
const char *mb__heatmap_caption(const json_t *h, char *buf, size_t len);

#endif
