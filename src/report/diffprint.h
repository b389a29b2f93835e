/* diffprint.h - the console report of `mbench diff` (accuracy/diff.h):
 * the metrics of every pair, the gates, and the verdict line
 * "PASS|FAIL|DONE: N tensors compared[, no gates]". */
#ifndef MB_REPORT_DIFFPRINT_H
#define MB_REPORT_DIFFPRINT_H

#include "accuracy/diff.h"
#include "core/buf.h"

#include <stddef.h>

/* Appends the report of res (n_gates gates were asked for) to out; with
 * quiet only the verdict line. */
void mb__diff_console(const mb__diff_result *res, size_t n_gates, int quiet,
                      mb__buf *out);

#endif
