/* htmlpage.h - the shell of mbench's self-contained HTML pages (the result
 * report, the load report, the gate verdict): head, content security
 * policy, the inline stylesheet and script (html_assets.h), body.  Each
 * page writes its title and body between these calls. */
#ifndef MB_REPORT_HTMLPAGE_H
#define MB_REPORT_HTMLPAGE_H

#include "core/buf.h"

#include <stdbool.h>

/* "<!DOCTYPE html>...<title>mbench ": the caller appends the rest of the
 * title, escaped.  with_script: the policy allows the page's inline
 * script and data: images (the interactive reports); without, styles
 * only (the gate verdict). */
void mb__html_page_begin(mb__buf *out, bool with_script);
/* Ends the title; the stylesheet (and, with_script, the error collector
 * the browser tests read); "<body data-expect=EXPECT>" (escaped; no
 * attribute when NULL), then body's bytes. */
void mb__html_page_body(mb__buf *out, bool with_script, const char *expect,
                        const mb__buf *body);
/* Opens the script element that embeds the result document(s): the caller
 * writes the JSON (mb__json_script_embed) after it. */
void mb__html_page_data(mb__buf *out);
/* Closes the data element, adds the page's script and ends the page. */
void mb__html_page_end(mb__buf *out);

#endif
