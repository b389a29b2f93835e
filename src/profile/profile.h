/* profile.h - what `mbench profile` derives from an aggregated trace
 * (trace.h): reconciliation with the separately measured latency,
 * achieved GFLOP/s and share of the machine's peak, and the comparison of
 * two profiles.  Pure functions over JSON; the views (console, folded
 * stacks, Markdown, CSV, HTML) are in src/report/prof*.h, so every view
 * can be rebuilt from a saved result document.  Layout in
 * docs/PROFILE.md. */
#ifndef MB_PROFILE_PROFILE_H
#define MB_PROFILE_PROFILE_H

#include "mbench.h"

#include <jansson.h>
#include <stdint.h>

typedef struct mb__profile_ctx {
    double latency_median_ns; /* separate, non-profiled pass; <= 0: none */
    int64_t batch;            /* inferences' batch size (>= 1) */
    int threads;              /* intra-op threads asked for; 0 = default */
    const json_t *machine;    /* mb__machine_* object, or NULL (borrowed) */
    const json_t *counters;   /* mb__counters_* object, or NULL (borrowed) */
} mb__profile_ctx;

/* Adds the derived figures to a profile from mb__trace_profile:
 * reconcile.{latency_median_ns, profiler_inflation,
 * unaccounted_vs_latency_ns}, work.{gflops_per_s, peak_gflops_per_s,
 * peak_basis, peak_share}, per op type gflops_per_s and peak_share, and
 * "counters" and "machine" copies.  Never fails (missing inputs give
 * nulls). */
void mb__profile_finish(json_t *profile, const mb__profile_ctx *ctx);

/* Compares the op-type profiles of a (baseline) and b: a new object with
 * "a", "b" names, model_run means, "speedup" (a/b), "rows" sorted by the
 * size of their contribution to the change of the per-run time (each row:
 * op_type, a_ns, b_ns, delta_ns, contribution = delta / total delta,
 * "framework overhead" included so that the rows add up), "pairs" (a
 * float op type of A replaced by its quantized form in B, such as Conv ->
 * QLinearConv, with both times and the speedup) and "qdq" (the
 * Quantize/DequantizeLinear time of each side). */
json_t *mb__profile_compare(const json_t *a, const char *name_a,
                            const json_t *b, const char *name_b);

#endif
