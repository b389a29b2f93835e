/* plan.h - what a measurement is asked to do: plain structs filled by the
 * CLI (cli/runopts.c) or by library users, read by the runner. */
#ifndef MB_RUNNER_PLAN_H
#define MB_RUNNER_PLAN_H

#include "core/tlimit.h"
#include "core/imageprep.h"
#include "mbench_backend.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* NAME=VALUE symbolic dimension, and NAME=lo:hi value range. */
typedef struct mb__dim_override {
    char *name;
    int64_t value;
} mb__dim_override;

typedef struct mb__input_bounds {
    char *name;
    double lo, hi;
} mb__input_bounds;

/* NAME=D0,D1,...: the whole shape of one input. */
typedef struct mb__shape_override {
    char *name;
    int rank;
    int64_t dims[MB_MAX_RANK];
} mb__shape_override;

/* Default process count of run and compare (docs/STATISTICS.md says how
 * it was chosen). */
#define MB_DEFAULT_PROCESSES 40
/* The time a default warmup may take (past its first iteration). */
#define MB_WARMUP_BUDGET_NS 2000000000LL

/* Should a default warmup stop now, after `warm` iterations in
 * elapsed_ns? */
#define MB_WARMUP_DONE(p, warm, elapsed_ns)                                    \
    ((p)->warmup_default && (warm) >= 1 && (elapsed_ns) >= MB_WARMUP_BUDGET_NS)

typedef struct mb__plan {
    /* what */
    char *backend; /* "ort", "null", a plugin name or path; NULL: by the
                      model (mb__plan_backend) */
    char *model_path;
    char *variant; /* display name; defaults to the model's basename */
    char *ort_lib; /* --ort-lib, or NULL */
    int verbose;
    mb_kv *opts; /* backend options: threads, opt-level, ep, ... */
    size_t n_opts;
    /* inputs */
    int64_t *batches; /* batch sizes to sweep (default {1}) */
    size_t n_batches;
    mb__dim_override *dims;
    size_t n_dims;
    mb__input_bounds *ranges;
    size_t n_ranges;
    mb__shape_override *shapes;
    size_t n_shapes;
    /* --input-name NAME=MODELNAME: the input that --data, --shape and
     * --input-range call NAME is the model's input MODELNAME (key NAME,
     * value MODELNAME), so that models whose inputs are named differently
     * (an ONNX export and its PyTorch source) take the same inputs. */
    mb_kv *renames;
    size_t n_renames;
    uint64_t seed;
    char *data_path;      /* --data: real inputs instead of synthetic */
    mb__tlimit tlimit;    /* --max-tensor-bytes, --max-compression-ratio */
    mb__image_prep image; /* preprocessing of image data (all plain) */
    /* warmup and stopping */
    int64_t warmup_iters; /* default 10 */
    /* The warmup count is the default (not --warmup): warming also stops
     * once it has taken MB_WARMUP_BUDGET_NS (at least one iteration), so
     * that a model at seconds per inference is not warmed for a minute. */
    int warmup_default;
    int64_t warmup_time_ns; /* default 0: warm up by count only */
    int64_t min_iters;      /* default 100 */
    int64_t min_time_ns;    /* default 1 s */
    int64_t max_iters;      /* default 100000 */
    int64_t max_time_ns;    /* default 30 s */
    int64_t fixed_iters;    /* --iterations: exactly this many, or 0 */
    double target_ci;       /* default 0.01: CI half-width / median */
    /* Processes per variant and batch size (--processes): each a fresh
     * runtime load and session, the unit of replication of every CI.
     * 0 means the default of the command (MB_DEFAULT_PROCESSES); 1 means
     * one process, measured in-process by `run`, whose CI covers only
     * within-run noise. */
    int processes;
    double *percentiles; /* extra --percentile values */
    size_t n_percentiles;
    /* extras */
    int leak_check;
    int save_samples; /* keep raw samples in the document */
    int keep_outputs; /* fetch outputs of the last run */
    /* Set non-zero (by a signal handler, say) to stop measuring soon; the
     * result is then marked "interrupted".  Borrowed; may be NULL. */
    volatile int *cancel;
    /* Called between chunks of the measurement loop (never inside the
     * timed region): batch size, iterations so far, elapsed ns, and the
     * last relative half-width of the median's CI (INFINITY before the
     * first check).  May be NULL. */
    void (*progress)(void *user, int64_t batch, int64_t iters,
                     int64_t elapsed_ns, double ci_rel);
    void *progress_user;
    /* The same for measurements replicated over processes: called after
     * every slot with the round (process) index, the round count and the
     * elapsed ns.  May be NULL. */
    void (*progress_rounds)(void *user, size_t round, size_t rounds,
                            int64_t elapsed_ns);
    /* Where the runtime's log lines go when verbose is set (the public
     * mb_runner_set_log); NULL: stderr.  Borrowed; also in children. */
    mb_log_fn log;
    void *log_user;
} mb__plan;

/* Fills *p with the defaults above (all pointers NULL). */
void mb__plan_defaults(mb__plan *p);
/* Frees every owned member and zeroes *p. */
void mb__plan_free(mb__plan *p);
/* Sets (or replaces) backend option key=value; copies both.  False when
 * memory runs out. */
bool mb__plan_set_opt(mb__plan *p, const char *key, const char *value);
/* Value of a backend option, or NULL. */
const char *mb__plan_get_opt(const mb__plan *p, const char *key);
/* Adds (or replaces) a --shape override; copies name.  False when memory
 * runs out. */
bool mb__plan_set_shape(mb__plan *p, const char *name, const int64_t *dims,
                        int rank);
/* Adds an --input-name NAME=MODELNAME rename (copies both).  False when
 * memory runs out. */
bool mb__plan_set_rename(mb__plan *p, const char *name, const char *model_name);
/* The options to give backend open(): p->opts, then "dim:NAME"=VALUE for
 * every --dim when caps has MB_BACKEND_CAP_DIM_OVERRIDE (so the order of
 * --dim and --backend never matters).  *kv is one allocation holding the
 * strings it points to; caller frees it with free().  0 or -1 (OOM). */
bool mb__plan_backend_opts(const mb__plan *p, uint32_t caps, mb_kv **kv,
                           size_t *n);
/* Deep copy (for per-variant plans). */
bool mb__plan_copy(mb__plan *dst, const mb__plan *src);

#endif
