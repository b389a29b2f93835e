/* compare.h - judging variants against a baseline: speedups as ratios of
 * medians (and of p99) with percentile-bootstrap 95% CIs, a two-sided
 * Mann-Whitney U test, memory and size ratios, accuracy and output
 * agreement, and recommendations derived from those figures and the
 * tolerance (never from names).  Pure: figures in, JSON out. */
#ifndef MB_RUNNER_COMPARE_H
#define MB_RUNNER_COMPARE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

typedef struct mb__cmp_variant {
    const char *name;
    const char *error;       /* NULL when the variant ran */
    const int64_t *samples;  /* latencies (ns) */
    size_t n;
    const json_t *run;       /* its RUN object (memory, model); borrowed */
    const json_t *accuracy;  /* {top1, top5} against labels, or NULL */
    const json_t *agreement; /* {top1, outputs: [...]}, or NULL */
    int agreement_pass;      /* -1 not judged, 0 failed the gates, 1 passed */
    const char *agreement_note; /* e.g. "cosine 0.99999, max_abs 2e-05" */
} mb__cmp_variant;

typedef struct mb__cmp_opts {
    double tolerance;    /* accuracy loss allowed (absolute, e.g. 0.01) */
    double alpha;        /* significance level of the U test (0.05) */
    int bootstrap_iters; /* resamples (2000) */
    uint64_t seed;
    int random_inputs;   /* the outputs came from synthetic inputs */
} mb__cmp_opts;

/* The "comparison" object of docs/FORMATS.md (new reference). */
json_t *mb__compare_analyze(const mb__cmp_variant *v, size_t n,
                            size_t baseline, const mb__cmp_opts *o);

#endif
