/* engine.h - the profile engine behind `mbench profile` and
 * mb_runner_profile: it measures a model in separate passes (a timing pass
 * that is not profiled, a pass under ONNX Runtime's profiler, a pass
 * counted with hardware counters), aggregates the trace per operator type
 * and node, estimates FLOPs, relates them to the machine's peaks and
 * builds the result document (kind "profile", docs/PROFILE.md).  It also
 * profiles a saved trace, and compares the op-type profiles of two models
 * or saved documents.  No printing: warnings go to a callback and into the
 * document's "warnings". */
#ifndef MB_PROFILE_ENGINE_H
#define MB_PROFILE_ENGINE_H

#include "mbench.h"

#include "plan/plan.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* Profiled runs after the cold run and the warmup, unless --iterations. */
#define MB_PROFILE_DEFAULT_ITERS 50

typedef void (*mb__profile_warn_fn)(void *user, const char *msg);

typedef struct mb__profile_opts {
    int no_timing;            /* skip the non-profiled timing pass */
    int no_counters;          /* skip the hardware-counter pass */
    int no_peak;              /* neither measure nor read the machine's peaks */
    size_t skip;              /* mb__profile_trace_file: leading runs to skip */
    int keep_trace;           /* hand the raw ORT trace text back */
    mb__profile_warn_fn warn; /* optional; called for each warning */
    void *warn_user;
} mb__profile_opts;

/* The outcome of one profile.  doc (kind "profile", one run carrying a
 * "profile" object) is owned by the result; trace is the raw Chrome-trace
 * text when keep_trace was set (else NULL).  Free with
 * mb__profile_result_free. */
typedef struct mb__profile_result {
    json_t *doc;
    char *trace;
    size_t trace_len;
} mb__profile_result;

void mb__profile_result_free(mb__profile_result *r);

/* Profiled runs a plan asks for: --iterations, else the default. */
int64_t mb__profile_iterations(const mb__plan *plan);

/* Profiles plan->model_path at its first batch size (a plan with several
 * batch sizes is profiled at the first, with a warning).  Runs the timing
 * pass (mb__run_plan with as many fixed iterations as are profiled), the
 * profiling pass and the counter pass in that order, checking
 * plan->cancel between them (MB_EINTERRUPTED).  A timing pass that does
 * not finish fails with MB_EBACKEND naming why; a backend that writes no
 * trace (only ort profiles) with MB_EBACKEND.  Machine peaks that cannot
 * be had are a warning, not an error. */
mb_status mb__profile_model(const mb__plan *plan, const mb__profile_opts *o,
                            mb__profile_result *out, mb_err *err);

/* Profiles a saved ONNX Runtime trace: runs [o->skip, runs) are used;
 * nothing is measured except (unless no_peak) the machine's peaks. */
mb_status mb__profile_trace_file(const char *path, const mb__profile_opts *o,
                                 mb__profile_result *out, mb_err *err);

/* Compares the op-type profiles of two models: each of models[0..1] is a
 * saved result document with a profile (a path ending in .json) or a model
 * profiled now with plan's options (profiling pass only).  *doc (caller
 * json_decref) is kind "profile" with both runs and "profile_comparison"
 * (mb__profile_compare). */
mb_status mb__profile_compare_models(const mb__plan *plan,
                                     const char *const models[2],
                                     const mb__profile_opts *o, json_t **doc,
                                     mb_err *err);

/* The one call of `mbench profile`: from_trace set (n_models 0) profiles
 * that trace file, two models compare (out->doc only), one model is
 * profiled with plan's options (plan->model_path is ignored). */
mb_status mb__profile_run(const mb__plan *plan, const char *const *models,
                          size_t n_models, const char *from_trace,
                          const mb__profile_opts *o, mb__profile_result *out,
                          mb_err *err);

#endif
