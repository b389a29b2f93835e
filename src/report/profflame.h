/* profflame.h - pictures of a profile drawn by mbench itself: an SVG icicle
 * chart (graph -> operator type -> node, widths proportional to kernel
 * time) and a self-contained HTML report holding it with the tables and
 * the share-of-peak figures.  Every string from the model or the trace is
 * escaped; no scripts, no external resources.  Pure: bytes into an mb__buf. */
#ifndef MB_REPORT_PROFFLAME_H
#define MB_REPORT_PROFFLAME_H

#include "core/buf.h"

#include <jansson.h>

/* A standalone SVG document (also valid inline in HTML). */
void mb__profile_svg(const json_t *profile, const char *title, mb__buf *out);

/* A self-contained HTML page.  env is the result document's "environment"
 * object or NULL. */
void mb__profile_html(const json_t *profile, const char *title,
                      const json_t *env, mb__buf *out);

/* A self-contained HTML page of a comparison (mb__profile_compare). */
void mb__profile_compare_html(const json_t *cmp, const json_t *env,
                              mb__buf *out);

#endif
