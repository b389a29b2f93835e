/* suiterep.h - the console table of a suite comparison (exec/suite.h
 * mb__suite_comparison: groups of entries with speedups against a
 * baseline), for `suite --compare` and `merge --compare`. */
#ifndef MB_REPORT_SUITEREP_H
#define MB_REPORT_SUITEREP_H

#include "core/buf.h"

#include <jansson.h>

/* One block per group: its baseline, then per entry (branch, else
 * variant) the total speedup with its 95% CI and p-value and each
 * phase's speedup and median; "FAILED or not comparable" without one. */
void mb__suite_comparison_console(mb__buf *b, const json_t *cmp);

#endif
