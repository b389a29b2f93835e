/* termhist.h - a compact terminal histogram of a latency distribution
 * (unicode block characters, eighth-cell resolution) for `--histogram`:
 * about a dozen rows from the minimum to p99, one tail row beyond, with
 * the rows holding p50, p95 and p99 marked. */
#ifndef MB_REPORT_TERMHIST_H
#define MB_REPORT_TERMHIST_H

#include "core/buf.h"

#include <stddef.h>
#include <stdint.h>

/* Appends the histogram of n samples (ns, any order, not modified) to out,
 * fitting `width` columns (at least 40 are used).  With color, bars and
 * markers get ANSI colours.  n == 0 appends one line saying so.  When
 * memory runs out, out->oom is set. */
void mb__report_term_histogram(const int64_t *samples_ns, size_t n, int width,
                               int color, mb__buf *out);

#endif
