/* sitewr.h - the pages of `mbench site`, written from the
 * "mbench.site/1" document (regress/site.h) into buffers: the index of
 * every series, one page per series, the regressions page (and its JSON
 * for bots) and the branch view.  Static HTML with inline SVG, an inline
 * stylesheet and a small inline script (filter, sort, branch choice, the
 * in-page check the browser tests read); no network at view time.  Every
 * string from the store is HTML-escaped; embedded JSON is script-safe.
 * Deterministic: the same document gives the same bytes. */
#ifndef MB_REPORT_SITEWR_H
#define MB_REPORT_SITEWR_H

#include "core/buf.h"

#include <jansson.h>

/* What every page needs besides the document: the commit link template
 * ("https://forge/commit/{sha}", checked by the caller; NULL: no links). */
typedef struct mb__site_ctx {
    const json_t *site;
    const char *commit_url;
} mb__site_ctx;

/* A value of unit ("ns", "B", "1/s" or "" for a count) as text. */
char *mb__site_fmt(const char *unit, double x, char *out, size_t len);

/* index.html */
void mb__site_index_html(const mb__site_ctx *c, mb__buf *out);
/* s/ID.html for one series of c->site */
void mb__site_series_html(const mb__site_ctx *c, const json_t *series,
                          mb__buf *out);
/* regressions.html */
void mb__site_regressions_html(const mb__site_ctx *c, mb__buf *out);
/* regressions.json: {"schema": "mbench.regressions/1", "entries": [...]}
 * (new; NULL when memory runs out) */
json_t *mb__site_regressions_json(const json_t *site);
/* branches.html */
void mb__site_branches_html(const mb__site_ctx *c, mb__buf *out);

#endif
