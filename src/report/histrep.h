/* histrep.h - the Markdown writer of `mbench history`: one section per
 * series (model, variant, batch size) with a table of its results over
 * commits and time and the change points marked (the series array built by
 * cmd_history, schema mbench.history/1).  Pure: series -> bytes. */
#ifndef MB_REPORT_HISTREP_H
#define MB_REPORT_HISTREP_H

#include "core/buf.h"
#include "mbench.h"

#include <jansson.h>

/* Appends the report of series (an array of {model, variant, batch_size,
 * points: [{created_utc, git_commit, git_branch, git_dirty,
 * git_commit_date, value}], change_points: [{index, change, score,
 * before, after}]}) for metric ("p50", "memory", ...).  MB_EINVAL when
 * series is not an array, MB_ENOMEM when out ran out of memory. */
mb_status mb__report_history_md(const json_t *series, const char *metric,
                                mb_buf *out, mb_err *err);

/* The report of series written to path atomically ("-" and /dev/fd/N
 * through): the one call `mbench history --md FILE` needs. */
mb_status mb__write_history_md(const char *path, const json_t *series,
                               const char *metric, mb_err *err);

#endif
