/* profile.h - what `mbench profile` derives from an aggregated trace
 * (trace.h) and how it is shown: reconciliation with the separately
 * measured latency, achieved GFLOP/s and share of the machine's peak,
 * the console table, folded stacks, and the comparison of two profiles.
 * Pure functions over JSON: rendering never does I/O, so every view can be
 * rebuilt from a saved result document.  Layout in docs/PROFILE.md. */
#ifndef MB_PROFILE_PROFILE_H
#define MB_PROFILE_PROFILE_H

#include "mbench.h"

#include "core/buf.h"

#include <jansson.h>
#include <stdint.h>

typedef struct mb_profile_ctx {
    double latency_median_ns; /* separate, non-profiled pass; <= 0: none */
    int64_t batch;            /* inferences' batch size (>= 1) */
    int threads;              /* intra-op threads asked for; 0 = default */
    const json_t *machine;    /* mb__machine_* object, or NULL (borrowed) */
    const json_t *counters;   /* mb__counters_* object, or NULL (borrowed) */
} mb_profile_ctx;

/* Adds the derived figures to a profile from mb__trace_profile:
 * reconcile.{latency_median_ns, profiler_inflation,
 * unaccounted_vs_latency_ns}, work.{gflops_per_s, peak_gflops_per_s,
 * peak_basis, peak_share}, per op type gflops_per_s and peak_share, and
 * "counters" and "machine" copies.  Never fails (missing inputs give
 * nulls). */
void mb__profile_finish(json_t *profile, const mb_profile_ctx *ctx);

/* The console view: reconciliation, op types and the top nodes (top <= 0:
 * 10 op types, 15 nodes), work and peak, counters. */
/* Appends a count with its unit scaled to its size ("4.089 GFLOP",
 * "115.606 MFLOP", "1.500 KMAC", "12 FLOP"); "- unit" when not finite. */
void mb__profile_si_count(mb_buf *b, double v, const char *unit);

void mb__profile_text(const json_t *profile, const char *title, int top,
                      mb_buf *out);

/* Folded stacks, one line per node: "graph;op_type;node weight" with the
 * weight the node's total kernel time in whole microseconds (nodes that
 * round to 0 us get 1).  ';' and ' ' in names become '_'. */
void mb__profile_folded(const json_t *profile, const char *graph,
                        mb_buf *out);

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
void mb__profile_compare_text(const json_t *cmp, mb_buf *out);

#endif
