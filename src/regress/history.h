/* history.h - the engine of `mbench history`: stored result rows
 * (mb__store_history) grouped into one series per (model, variant, batch
 * size), with the change points of each (changepoint.h), and the
 * "mbench.history/1" document that holds them.  Rendering is in
 * report/histrep.h. */
#ifndef MB_REGRESS_HISTORY_H
#define MB_REGRESS_HISTORY_H

#include <jansson.h>

/* Groups rows (borrowed) into a new array of series
 *   {model, variant, batch_size, points: [{run_id, created_utc, git_commit,
 *    git_branch, git_dirty, git_commit_date, value}],
 *    change_points: [{index, run_id, git_commit, before, after, change,
 *    score}]}
 * keeping rows whose status is "ok" and whose `metric` is a number, in
 * row order.  NULL when memory runs out. */
json_t *mb__history_series(const json_t *rows, const char *metric);

/* The change point of series s at point index k, or NULL.  Borrowed. */
const json_t *mb__history_cp_at(const json_t *s, size_t k);

/* The "mbench.history/1" document around series (a reference is taken),
 * created at now (ISO 8601), with the change point method and constants.
 * NULL when memory runs out. */
json_t *mb__history_doc(json_t *series, const char *metric, const char *now);

#endif
