/* compare.h - judging variants against a baseline: speedups as ratios of
 * the geometric means of per-process medians (and p99), paired by round,
 * with Student-t 95% CIs and tests over processes (repstats.h), a noise
 * threshold below which a change is "same", memory and size ratios,
 * accuracy and output agreement, and recommendations derived from those
 * figures and the tolerance (never from names).  Pure: figures in, JSON
 * out. */
#ifndef MB_RUNNER_COMPARE_H
#define MB_RUNNER_COMPARE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

typedef struct mb__cmp_variant {
    const char *name;
    const char *error;      /* NULL when the variant ran */
    const int64_t *samples; /* latencies (ns), in time order */
    size_t n;
    const size_t *proc_n; /* samples of each process (k of them) */
    size_t k;
    const json_t *run;       /* its RUN object (memory, model); borrowed */
    const json_t *accuracy;  /* {top1, top5} against labels, or NULL */
    const json_t *agreement; /* {top1, outputs: [...]}, or NULL */
    int agreement_pass;      /* -1 not judged, 0 failed the gates, 1 passed */
    /* The verdict of validate's judge on every output and the labels
     * ({passed, rule, precision, precision_reason, accuracy, criteria,
     * per_output}), or NULL (the baseline, a failed variant); borrowed. */
    const json_t *verdict;
} mb__cmp_variant;

typedef struct mb__cmp_opts {
    double tolerance;  /* accuracy loss allowed (absolute, e.g. 0.01) */
    double alpha;      /* significance level (0.05) */
    double threshold;  /* noise threshold: smaller changes are "same" */
    int random_inputs; /* the outputs came from synthetic inputs */
    int interrupted;   /* the measurement was cancelled: status says so */
} mb__cmp_opts;

/* The "comparison" object of docs/FORMATS.md (new reference). */
json_t *mb__compare_analyze(const mb__cmp_variant *v, size_t n, size_t baseline,
                            const mb__cmp_opts *o);

#endif
