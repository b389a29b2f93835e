/* cmprun.h - the compare engine: a baseline and its variants, each in its
 * own processes, replicated over K rounds of interleaved processes
 * (replicate.h), then outputs on the same inputs for accuracy and
 * agreement, and the comparison (compare.h).  The CLI's `mbench compare`
 * and the public mb_runner_compare both call mb__compare_run. */
#ifndef MB_RUNNER_CMPRUN_H
#define MB_RUNNER_CMPRUN_H

#include "accuracy/gate.h"
#include "accuracy/metrics.h"
#include "accuracy/outpair.h"
#include "plan/plan.h"

#include <jansson.h>

typedef struct mb__cmp_spec {
    const char *name;     /* borrowed */
    const mb__plan *plan; /* borrowed: model, options, budget */
} mb__cmp_spec;

typedef struct mb__compare_req {
    const mb__cmp_spec *variants;
    size_t n;
    size_t baseline;         /* index of the baseline */
    int processes;           /* K (0: MB_DEFAULT_PROCESSES) */
    const char *labels_path; /* or NULL */
    const char *output;      /* --output NAME: the judged output, or NULL */
    double tolerance;        /* accuracy loss allowed (0.01) */
    double threshold;        /* noise threshold of speed verdicts (0.01) */
    double alpha;            /* significance level (0.05) */
    const mb__gate *gates;   /* agreement gates (none: by precision) */
    size_t n_gates;
    mb__metric_opts metrics;
    int64_t timeout_ns; /* per step of a variant's process */
    int fail_fast;
    const char *save_outputs; /* directory for every variant's outputs */
    int64_t heatmap_sample;   /* the sample each variant's heat map draws
                                 (accuracy/heatmap.h), -1: its worst */
    const char *command_line;
    /* --map BASE=CAND: a baseline output and its name in the variants
     * that renamed it (outpair.h); borrowed. */
    const mb__outmap *maps;
    size_t n_maps;
    volatile int *cancel;
    /* Progress: what is happening ("loading", "measuring"), the round and
     * the number of rounds, the elapsed ns.  May be NULL. */
    void (*progress)(void *user, const char *what, size_t round, size_t rounds,
                     int64_t elapsed_ns);
    void *progress_user;
} mb__compare_req;

/* Fills the defaults above (no variants). */
void mb__compare_req_defaults(mb__compare_req *rq);

/* Runs the comparison into a new result document *doc ("kind":
 * "compare").  A variant that fails is recorded as FAILED in the document
 * (the call still returns MB_OK); with fail_fast the first failure returns
 * MB_ECHILD.  Every variant is measured at every batch size of its plan
 * (an arm per size and variant) and judged per size: "comparisons" holds
 * one comparison per size, "comparison" the first.  Bad requests (fewer
 * than two variants, variants with different batch sizes, an unreadable
 * --labels file) return MB_EINVAL/MB_EIO. */
mb_status mb__compare_run(const mb__compare_req *rq, json_t **doc, mb_err *err);

#endif
