/* trace.h - ONNX Runtime's profiling trace (a Chrome-trace JSON array of
 * "ph":"X" events) read and aggregated into a per-operator profile.
 *
 * The trace holds one Session "model_run" event per Run and one Node event
 * per kernel call (name "<node>_kernel_time", args op_name, provider,
 * input_type_shape, output_type_shape; numbers inside args are strings).
 * A Node event belongs to the model_run whose [ts, ts+dur] holds its ts.
 * The first runs (cold start, warm-up) are skipped with everything inside
 * them; the rest are the steady state the profile is computed over.
 * The layout of the profile object is in docs/PROFILE.md. */
#ifndef MB_PROFILE_TRACE_H
#define MB_PROFILE_TRACE_H

#include "mbench.h"

#include <jansson.h>
#include <stddef.h>

typedef struct mb__trace mb__trace;

/* Parses trace text (a JSON array of events, or an object with a
 * "traceEvents" array).  Caller frees *out with mb__trace_free.  Fails
 * with MB_EFORMAT naming what is wrong (not JSON, no events, no model_run),
 * prefixed with `what` (a path or "trace"). */
mb_status mb__trace_parse(const char *text, size_t len, const char *what,
                          mb__trace **out, mb_err *err);
/* Reads and parses the file at path (MB_EIO when unreadable). */
mb_status mb__trace_load(const char *path, mb__trace **out, mb_err *err);
void mb__trace_free(mb__trace *t);

/* Number of model_run events in the trace. */
size_t mb__trace_runs(const mb__trace *t);

/* Aggregates runs [skip, runs) into a new "profile" JSON object (caller
 * json_decref): "runs" {total, skipped, used}, "reconcile" (model_run and
 * per-run kernel sums), "op_types" and "nodes" (sorted by total time,
 * with count, total_ns, mean_ns, median_ns, per_run_ns, calls_per_run,
 * share, macs_per_run, flops_basis; nodes also op_type, provider, inputs,
 * outputs) and "work" {macs_per_run, flops_per_run, unestimated_share}.
 * Fails with MB_EFORMAT when no run is left after skipping. */
mb_status mb__trace_profile(const mb__trace *t, size_t skip, json_t **out,
                            mb_err *err);

#endif
