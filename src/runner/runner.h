/* runner.h - the measurement core.
 *
 * Two levels:
 *  - mb__bench_*: a stepwise session (load the runtime, open the model,
 *    make the inputs for one batch size, then time any number of
 *    iterations on request).  compare and profile drive this directly,
 *    for example in interleaved rounds across child processes.
 *  - mb__run_plan: the whole `mbench run` flow for every batch size:
 *    warmup, adaptive stopping, memory, statistics, into result documents.
 *
 * Result documents are jansson objects laid out as docs/FORMATS.md says.
 */
#ifndef MB_RUNNER_RUNNER_H
#define MB_RUNNER_RUNNER_H

#include "plan/plan.h"

#include <jansson.h>

typedef struct mb__bench mb__bench;

/* Phase timings of one bench session (ns; -1 when not measured). */
typedef struct mb__phases {
    int64_t library_load_ns;
    int64_t session_create_ns;
    int64_t first_inference_ns;
    /* JIT/XLA/TorchScript compilation for the bound input shapes, as the
     * backend reports it (session_info "compile_ns"); -1: none */
    int64_t compile_ns;
} mb__phases;

/* Loads the backend, opens the model, builds the inputs for `batch`
 * (synthetic, or from plan->data_path), prepares them, and runs the first
 * (cold) inference.  Caller frees with mb__bench_close. */
mb_status mb__bench_open(const mb__plan *plan, int64_t batch, mb__bench **out,
                         mb_err *err);
/* Times n iterations, writing each latency (ns) to samples[0..n). */
mb_status mb__bench_iterate(mb__bench *b, int64_t n, int64_t *samples,
                            mb_err *err);
/* Re-binds the inputs for another batch size on the same session. */
mb_status mb__bench_set_batch(mb__bench *b, int64_t batch, mb_err *err);
/* Binds caller-made inputs instead (one tensor per model input, in
 * describe() order; copied).  Used for real data, batch by batch. */
mb_status mb__bench_set_inputs(mb__bench *b, const mb_tensor *inputs, size_t n,
                               mb_err *err);
/* The model's input/output descriptions (borrowed until close). */
const mb_io_desc *mb__bench_describe(const mb__bench *b, int outputs,
                                     size_t *n);
/* Runs once more and copies the outputs (caller frees each with
 * mb_tensor_clear and the array with free()). */
mb_status mb__bench_outputs(mb__bench *b, mb_tensor **outs, size_t *n,
                            mb_err *err);
/* Samples in the --data set (0 without data), and binding the batch that
 * starts at sample `first` (wrapping around at the end). */
size_t mb__bench_data_samples(const mb__bench *b);
mb_status mb__bench_bind_data(mb__bench *b, size_t first, mb_err *err);
/* The batch size currently bound. */
int64_t mb__bench_batch(const mb__bench *b);

/* The backend a plan runs on: --backend, else by the model's extension
 * (mb_backend_for_model).  Borrowed. */
const char *mb__plan_backend(const mb__plan *p);

/* The "model" object of a result document for plan->model_path (path,
 * name, sha256, file_bytes, params, ...).  New reference. */
json_t *mb__model_json(const mb__plan *plan);
/* A RUN object with everything known before measuring: variant, model
 * (borrowed, a reference is taken), runtime, device, config, batch, inputs,
 * outputs, phases, memory before/after.  New reference. */
json_t *mb__bench_run_skeleton(const mb__plan *p, mb__bench *b, int64_t batch,
                               json_t *model, int64_t rss_before,
                               int64_t rss_after);

/* Like mb__bench_outputs, but an output that is not a tensor (a sequence
 * or a map) is left empty (data NULL, rank 0, its name set) instead of
 * failing the call. */
mb_status mb__bench_outputs_lenient(mb__bench *b, mb_tensor **outs, size_t *n,
                                    mb_err *err);

/* The inputs currently bound (borrowed). */
const mb_tensor *mb__bench_inputs(const mb__bench *b, size_t *n);
const mb__phases *mb__bench_phases(const mb__bench *b);
/* JSON descriptions (new references): "inputs", "outputs" arrays and the
 * runtime facts ("runtime" object: name, version, build_info, providers,
 * library_path). */
json_t *mb__bench_io_json(const mb__bench *b);
json_t *mb__bench_runtime_json(const mb__bench *b);
/* The backend's facts about the model (parameter counts of a format the
 * ONNX reader cannot see) into model, once per model object. */
void mb__bench_model_facts(mb__bench *b, json_t *model);
/* The backend's facts about the session into run: "phase:NAME" joins
 * run's phases, "session:NAME" its runtime's "session" object. */
void mb__bench_session_facts(mb__bench *b, json_t *run);
/* What open() was given (mb__plan_backend_opts), *n of them; NULL before
 * open. */
const mb_kv *mb__bench_opts(const mb__bench *b, size_t *n);
/* The runtime object with the session facts the backend reports now
 * ("session": {inference_precision, ...}), as a run's "runtime" holds
 * them; call after a batch ran (a runtime may compile on the first).
 * New reference. */
json_t *mb__bench_runtime_now(mb__bench *b);
void mb__bench_close(mb__bench *b);
/* The backend and session of b (borrowed until close), for engines that
 * drive run() themselves from several threads (src/load). */
void *mb__bench_session(const mb__bench *b, const mb_backend **be);

/* Runs the whole plan.  *doc is a new result document ("kind": "run") with
 * one entry in "runs" per batch size.  A run that fails after the session
 * opened is recorded with "status": "failed" and its error; a failure to
 * open returns an error. */
mb_status mb__run_plan(const mb__plan *plan, json_t **doc, mb_err *err);
/* The processes a plan is measured in: --processes, else the default;
 * 1 with --leak-check (a leak shows in one long process). */
int mb__plan_processes(const mb__plan *plan);
/* Adds a warning to doc when a default process count was lowered from
 * asked to used (a slow-loading model whose first round of processes took
 * start_ns to start). */
void mb__warn_processes_lowered(json_t *doc, int asked, int used,
                                int64_t start_ns);

/* A new, empty result document of the given kind with schema, mbench,
 * environment, timer, created_utc and command_line filled in.  The caller
 * adds "runs" (and anything kind-specific). */
json_t *mb__doc_new(const char *kind, const char *command_line);

/* Summary object "latency" for samples (docs/FORMATS.md): all in ns. */
json_t *mb__latency_json(const int64_t *samples, size_t n,
                         const double *extra_q, size_t n_extra);
/* Replaces lat's "median_ci95" (and sets "p99_ci95") with the intervals
 * of a "replication" object (replicate.h): over processes, or over blocks
 * of one process.  Where the replication has no interval, the binomial
 * one stays, marked as assuming independent samples. */
void mb__latency_apply_replication(json_t *lat, const json_t *rep);

#endif
