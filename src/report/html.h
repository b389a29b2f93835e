/* html.h - the HTML report: one self-contained page (inline CSS, inline
 * SVG charts drawn by mbench, a few lines of inline script, no network
 * request of any kind) with the summary table, speedups, charts, accuracy,
 * metadata, warnings and the full result documents embedded for download.
 * Light and dark mode, printable.  A pure function of the documents. */
#ifndef MB_REPORT_HTML_H
#define MB_REPORT_HTML_H

#include "core/buf.h"
#include "mbench.h"

#include <jansson.h>
#include <stddef.h>

/* The entry points that pick a document's writers by its kind. */
#include "report/render.h"

#endif
