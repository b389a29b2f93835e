/* siterun.h - the request of `mbench site` and of mb_site(): reads the
 * store (store/siteq.h), orders commits by the repository's first-parent
 * history, builds the site document (regress/site.h) and writes the pages
 * (report/sitewr.h) into a directory, re-rendering only what changed.
 *
 * Incremental: DIR/.mbench-site.json records, for every page, the sha256
 * of what it was rendered from (a series page: the series, its machine,
 * the commit link template and the mbench build); a page whose input is
 * unchanged and whose file is still there is not rendered again, a page
 * whose bytes did not change is not rewritten, and a series page whose
 * series is gone is removed (only files the manifest lists, named
 * s/<12 hex digits>.html).  Pages are replaced by rename, so a web server
 * never serves half a file. */
#ifndef MB_REPORT_SITERUN_H
#define MB_REPORT_SITERUN_H

#include "mbench.h"

#include <stddef.h>

typedef struct mb__site_req {
    const char *db;         /* the store (required) */
    const char *out_dir;    /* the site's directory (required) */
    const char *commit_url; /* "https://.../commit/{sha}" or NULL */
    const char *git_dir;    /* the measured repository, for first-parent
                               order; NULL: commit dates only */
    const char *branch;     /* the default branch (NULL: main, master, ...) */
    const char *compare;    /* the branch view's second branch (NULL: auto) */
    const char *baseline;   /* branch or commit prefix (NULL: first point) */
} mb__site_req;

typedef struct mb__site_result {
    size_t runs, series, regressions, machines;
    size_t written, unchanged, removed; /* files */
    int first_parent;                   /* commits ordered by git history */
} mb__site_result;

/* Checks rq: a store and a directory given, a commit URL template that
 * holds {sha} and is http(s) or relative.  MB_EINVAL with the fix. */
mb_status mb__site_check(const mb__site_req *rq, mb_err *err);

/* Writes the site of rq->db into rq->out_dir; *res (may be NULL) gets the
 * counts.  Errors: MB_EINVAL (a bad request, a branch or baseline the
 * store lacks), MB_EIO (the store or the directory), MB_EFORMAT (a
 * damaged store), MB_ENOMEM. */
mb_status mb__site_request(const mb__site_req *rq, mb__site_result *res,
                           mb_err *err);

#endif
