/* runtext.h - what `mbench run` shows besides its table (console.h): the
 * terminal histograms of --histogram, the progress line while a run
 * measures, and the run's outcome read from its result document (a failed
 * batch, the leak-check verdicts, an interruption).  Pure: document ->
 * bytes and facts; the caller prints and picks the exit code. */
#ifndef MB_REPORT_RUNTEXT_H
#define MB_REPORT_RUNTEXT_H

#include "core/buf.h"
#include "mbench.h"
#include "report/console.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* Appends, for every run of doc, "batch N latency distribution:" and the
 * terminal histogram of its samples_ns (termhist.h), fitting o->width. */
void mb__report_run_histograms(const json_t *doc, const mb__console_opts *o,
                               mb__buf *out);

/* The progress line of a run in one process, into buf (len bytes, always
 * terminated): "\rbatch B [====>   ] N iterations, T s, CI +-X% (target
 * Y%)" with the bar filled by target / ci_rel; ci_rel not finite is
 * "CI pending". */
void mb__run_progress_line(char *buf, size_t len, int64_t batch, int64_t iters,
                           int64_t elapsed_ns, double ci_rel, double target);

/* What a finished run document says beyond its figures. */
typedef struct mb__run_outcome {
    int failed;      /* a batch failed: failure->msg is "batch N failed: ..." */
    int leak;        /* --leak-check suspects a leak in some batch */
    int interrupted; /* the run was cut short (Ctrl-C) */
} mb__run_outcome;

/* Reads doc's outcome into *o; the first failed batch's message goes to
 * failure, and one line per leak-checked batch ("leak check, batch N: ...")
 * is appended to notes. */
void mb__run_outcome_of(const json_t *doc, mb__run_outcome *o, mb_err *failure,
                        mb__buf *notes);

#endif
