/* slurmrep.h - the console lines of a job sent to Slurm (exec/slurm.h,
 * docs/SCALE.md): a task that ended (with the tail of its log when it did
 * not succeed), the one-line progress, the status table, what did not
 * finish.  Pure functions: job -> bytes appended to b; `mbench slurm` and
 * `--slurm` print them. */
#ifndef MB_REPORT_SLURMREP_H
#define MB_REPORT_SLURMREP_H

#include "core/buf.h"
#include "exec/slurm.h"

#include <stddef.h>

/* "[F/N] task K done on NODE (job J, 1.2 s)", or its failure with the
 * reason, the log's path and its last three lines.  quiet: failures
 * only. */
void mb__slurm_task_console(mb__buf *b, const mb__slurm_job *j, size_t k,
                            size_t finished, int quiet);
/* "[slurm] 3 done, 1 failed, 2 running, 0 pending" (no newline). */
void mb__slurm_progress_console(mb__buf *b, const mb__slurm_counts *c);
/* One line per task (state, attempt, job, node, reason), then the
 * counts. */
void mb__slurm_status_console(mb__buf *b, const mb__slurm_job *j);
/* The counts of a finished job as one line: "3 of 3 run: 2 done, 1
 * timeout". */
void mb__slurm_counts_console(mb__buf *b, const mb__slurm_counts *c, size_t n);
/* How many tasks did not finish and how to resubmit them (nothing when
 * every task did); returns that count. */
size_t mb__slurm_unfinished_console(mb__buf *b, const mb__slurm_job *j);

#endif
