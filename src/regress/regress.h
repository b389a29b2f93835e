/* regress.h - the regression gate: judges a current result document against
 * a baseline, run by run (matched by model sha256, variant and batch size),
 * metric by metric, and says pass, regression, improvement or
 * inconclusive with the figures behind each verdict.
 *
 * Latency rule (docs/GATE.md): the unit of replication is the process.
 * Each side's figure (median, p99, mean) is taken per process; a metric
 * regresses only when BOTH Welch's t test on the log figures rejects
 * equality at alpha (0.01) AND the lower bound of the 95% CI of the ratio
 * of geometric means current/baseline exceeds 1 + threshold.  It improves
 * when the test rejects AND the upper bound is below 1 / (1 + threshold).
 * It passes when the upper bound is at most 1 + threshold.  Anything else
 * (one process on a side, a CI straddling the threshold, a large but
 * non-significant change) is inconclusive, with the processes per side
 * that would decide it.
 * Memory and model size are single figures: plain thresholds (memory with
 * a 1 MiB noise floor).  The output is a "mbench.gate/1" JSON object. */
#ifndef MB_REGRESS_REGRESS_H
#define MB_REGRESS_REGRESS_H

#include "mbench.h"

#include "core/rng.h"

#include <jansson.h>
#include <stddef.h>

#define MB_REGRESS_ALPHA 0.01
#define MB_REGRESS_MEMORY_FLOOR_BYTES (1024.0 * 1024.0)
/* The between-run term of a two-run gate (docs/GATE.md, "Two runs"):
 * estimated from at least HISTORY_MIN stored runs of the benchmark (the
 * newest HISTORY_MAX) as a random effect, else DRIFT_DEFAULT, the sd of
 * one run's log level measured on this project's shared machine. */
#define MB_REGRESS_HISTORY_MIN 5
#define MB_REGRESS_HISTORY_MAX 20
#define MB_REGRESS_DRIFT_DEFAULT 0.05

typedef enum mb__verdict {
    MB_VERDICT_PASS = 0,
    MB_VERDICT_REGRESSION,
    MB_VERDICT_IMPROVEMENT,
    MB_VERDICT_INCONCLUSIVE,
    MB_VERDICT_SKIPPED /* not measured on one side: not counted */
} mb__verdict;

/* "pass", "regression", "improvement", "inconclusive", "skipped". */
const char *mb__verdict_name(mb__verdict v);

/* Gated metrics, in display order. */
enum {
    MB_GM_P50,
    MB_GM_P90,
    MB_GM_P95,
    MB_GM_P99,
    MB_GM_MEAN,
    MB_GM_THROUGHPUT,
    MB_GM_MEMORY,
    MB_GM_SIZE,
    MB_GM_COUNT
};
/* Name of metric m ("p50", ..., "size"). */
const char *mb__regress_metric_name(int m);

typedef struct mb__regress_opts {
    /* Allowed relative change per metric (0.05 = 5%); < 0: not gated. */
    double threshold[MB_GM_COUNT];
    double alpha;  /* significance level of the U test */
    uint64_t seed; /* accepted (--seed) for old scripts; nothing resamples */
    /* Accuracy gates "metric>=x" (borrowed strings), checked against
     * numeric fields of the current document's "comparison" and the runs'
     * "accuracy" objects. */
    const char *const *accuracy;
    size_t n_accuracy;
    /* Stored history (mb__store_history rows, borrowed, may be NULL): the
     * run-to-run spread of earlier runs of the same benchmark widens the
     * p50 and p99 thresholds (docs/GATE.md, "Thresholds from history"). */
    const json_t *history;
    /* Shown in the output (borrowed, may be NULL). */
    const char *baseline_source;
    const char *current_source;
} mb__regress_opts;

/* Defaults: p50 5%, memory 10%, size 1%, others (p90, p95, p99, mean,
 * throughput)
 * off; alpha 0.01. */
void mb__regress_defaults(mb__regress_opts *o);
/* Parses "p50=5%,p99=10%,mean=off" into o->threshold (keys not named keep
 * their value).  MB_EINVAL with a message naming the bad item. */
mb_status mb__regress_parse_thresholds(const char *spec, mb__regress_opts *o,
                                       mb_err *err);

/* One latency-like comparison over per-replicate figures (one per
 * process: median, p99 or mean): Welch's t on the log figures, ratio
 * current/baseline of the geometric means.  With fewer than 2 processes on
 * either side the verdict is inconclusive and the reason says what to do. */
mb__verdict mb__regress_replicates(const char *metric, const double *fb,
                                   size_t kb, const double *fc, size_t kc,
                                   double threshold, int higher_is_better,
                                   const mb__regress_opts *o, json_t **out);

/* Checks that doc is a result document this gate reads ("mbench.result/1"
 * with a "runs" array); `what` names it in the message ("baseline
 * base.json"). */
mb_status mb__regress_check_doc(const json_t *doc, const char *what,
                                mb_err *err);

/* Judges cur against base (both borrowed) into a new "mbench.gate/1"
 * object *out (caller json_decref) and sets *exit_code to 0 (all pass),
 * 1 (a regression), 5 (an accuracy gate failed) or 4 (inconclusive).
 * Fails (MB_EINVAL/MB_EFORMAT) when the documents cannot be compared: a
 * wrong schema, no run of one matching the other (the message says what
 * differs), or an accuracy gate naming a metric neither has. */
mb_status mb__regress_run(const json_t *base, const json_t *cur,
                          const mb__regress_opts *o, json_t **out,
                          int *exit_code, mb_err *err);

#endif
