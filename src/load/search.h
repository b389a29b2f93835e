/* search.h - the SLO search of `mbench load --slo` (docs/LOAD.md, "The
 * search"): independent searches on one geometric grid of rates
 * (calibrate, bracket, bisect to adjacent grid points), and their summary:
 * the geometric mean answer with a Student-t interval over searches, the
 * pass rate at each probed rate, outlier searches and the direction of
 * the answer's bias. */
#ifndef MB_LOAD_SEARCH_H
#define MB_LOAD_SEARCH_H

#include "load/engine.h"

/* Runs search number `index` (0-based) with `threads` serving threads and
 * appends its entry to searches.  Search 0 fixes the grid from its
 * calibrated capacity. */
mb_status mb__load_search(mb__load_engine *g, size_t threads, size_t index,
                          json_t *searches, mb_err *err);

/* The "search" object over the searches (takes the reference); appends
 * document-level warnings (outlier searches, answers the harness limits)
 * to g->warnings. */
json_t *mb__load_search_summary(mb__load_engine *g, json_t *searches);

#endif
