/* execprint.h - the console form of whole-program documents (kind "exec"
 * and "suite", docs/EXEC.md): per run its wall time with the CI of the
 * median, user and system time, peak RSS, exit codes, phases, counters,
 * metrics, loops, derived throughput and event problems; exec's
 * comparison (the speedup of each command against the first); one
 * finished suite task with its git commit; the closing line of a suite.
 * The Markdown and HTML sections of the same documents are execsec.h,
 * the suite comparison's table suiterep.h.  Pure functions: document ->
 * bytes appended to b; the commands print them. */
#ifndef MB_REPORT_EXECPRINT_H
#define MB_REPORT_EXECPRINT_H

#include "core/buf.h"

#include <jansson.h>
#include <stddef.h>

/* A ladder of units: a number is printed with the format of the first
 * step whose `at` it reaches, divided by that step's div ("%.2f ms",
 * 1e6).  The last step has fmt NULL. */
typedef struct mb__unit_step {
    double at, div;
    const char *fmt;
} mb__unit_step;
/* x through the ladder into out; "-" for NAN or when no step is reached.
 * Returns out. */
char *mb__fmt_steps(double x, const mb__unit_step *steps, char *out,
                    size_t len);
/* A duration in ns as the exec console shows it: "812 ns", "51.2 us",
 * "51.23 ms", "1.530 s", "1.2 min"; "-" for NAN.  Returns out. */
char *mb__fmt_ns(double ns, char *out, size_t len);

/* One run of kind exec (an element of "runs"). */
void mb__exec_run_console(mb__buf *b, const json_t *run);
/* A document of kind exec: every run, a blank line between them, then
 * its "comparison" (speedups against the baseline, per phase and loop). */
void mb__exec_doc_console(mb__buf *b, const json_t *doc);
/* "[K/N] " and the run of a finished suite task, its git branch and
 * commit, and "FAILED" when it did not succeed. */
void mb__suite_run_console(mb__buf *b, size_t k, size_t selected,
                           const json_t *run);
/* The closing line of a suite: "\nR of N task(s) run[ in this shard], F
 * FAILED[, interrupted]\n". */
void mb__suite_summary_console(mb__buf *b, size_t ran, size_t selected,
                               int sharded, size_t failed, int interrupted);

#endif
