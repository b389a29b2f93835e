/* site.h - the engine of `mbench site`: every series in a results store
 * (store/siteq.h rows), its points in commit order, change points and
 * requirement (gate) verdicts, the regressions list and the latest point
 * of each series per branch, as one "mbench.site/1" document.  Pure: it
 * reads no file and writes none (the pages are report/sitewr.h's).
 *
 * A series is one figure (metric) of one benchmark (kind model, exec or
 * suite; model, variant, batch size) on one machine (a fingerprint of CPU
 * model, architecture, logical cores and memory): results of different
 * machines are never mixed.  A point is one commit of one branch; several
 * runs of that commit are pooled (geometric mean with its 95% t interval;
 * one run keeps its own CI).  Points are ordered by the first-parent depth
 * of their commit (when the repository is known), then commit date, then
 * commit.  Change points (changepoint.h) are found per branch (a lane). */
#ifndef MB_REGRESS_SITE_H
#define MB_REGRESS_SITE_H

#include "mbench.h"

#include <jansson.h>

typedef struct mb__site_opts {
    /* The branch whose lane the index shows; NULL: main, else master,
     * else the branch with the most points. */
    const char *default_branch;
    /* The second branch of the branch view; NULL: the other branch with
     * the newest commit. */
    const char *compare_branch;
    /* What "change since baseline" compares with: a branch (its latest
     * point of the series) or a commit prefix; NULL: the first point of
     * the lane shown. */
    const char *baseline;
    /* {commit: first-parent depth} (may be NULL: dates order commits). */
    const json_t *order;
} mb__site_opts;

/* The newest commit stored for each branch: a new object {branch: commit}
 * over rows (mb__store_site_runs), for the first-parent walks. */
json_t *mb__site_branch_tips(const json_t *rows);

/* Builds the "mbench.site/1" document (docs/STORE.md, "mbench site") from
 * rows and docs (mb__store_site_runs, mb__store_site_docs; borrowed) into
 * *site (new).  MB_ENOMEM when memory runs out; MB_EINVAL when a named
 * branch or baseline matches nothing in the store. */
mb_status mb__site_build(const json_t *rows, const json_t *docs,
                         const mb__site_opts *o, json_t **site, mb_err *err);

#endif
