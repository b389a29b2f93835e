/*
 * mbench.h - public API of libmbench, a library that benchmarks and validates
 * machine-learning model inference.
 *
 * Conventions (see docs/DESIGN.md):
 *  - Every fallible function returns an mb_status (MB_OK == 0) and, when the
 *    caller passes a non-NULL mb_err, writes a one-line message into it that
 *    names the thing that was wrong and what would fix it.  err may be NULL
 *    in every call: the status is then the same, the message dropped.
 *  - Handles are opaque; every create has a destroy, and destroy(NULL) is a
 *    no-op.  Ownership is stated at each declaration.
 *  - Times are int64_t nanoseconds from CLOCK_MONOTONIC.
 *  - The library has no global mutable state and never exits.  It prints
 *    nothing, except the runtime's log lines when the option verbose is 1
 *    and no log callback is set (mb_runner_set_log): those go to stderr.
 *  - Processes and signals: mb_runner_run with processes > 1 (its default
 *    is 40) and mb_runner_compare fork(2) child processes of the caller,
 *    one per variant and round, and talk to them over pipes.  stdout and
 *    stderr are flushed before each fork; a child runs library code only,
 *    ignores SIGINT and SIGPIPE, dies with its parent (PR_SET_PDEATHSIG)
 *    and ends with _exit, so no atexit handler or stdio buffer of the host
 *    runs twice.  Call these from a process that may fork: a host whose
 *    other threads hold locks (an allocator's, a logger's) should set
 *    processes=1 for run, which measures in the calling process.  The
 *    library waits only for its own children (waitpid on their pids, never
 *    -1) and kills one that outlives its timeout with SIGKILL.  It installs
 *    no signal handler in the host and changes none of its dispositions;
 *    a child that dies while the host writes to its pipe raises SIGPIPE in
 *    the host, so a host should ignore SIGPIPE (signal(SIGPIPE, SIG_IGN))
 *    to get MB_ECHILD instead.  mb_runner_load uses threads, not processes.
 */
#ifndef MBENCH_H
#define MBENCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with -fvisibility=hidden: only declarations marked
 * MB_API are exported from libmbench.so (internal mb__ names are not). */
#if defined(__GNUC__)
#define MB_API __attribute__((visibility("default")))
#else
#define MB_API
#endif

#define MB_VERSION_MAJOR 0
#define MB_VERSION_MINOR 1
#define MB_VERSION_PATCH 0
#define MB_VERSION_STRING "0.1.0"
/* The version as one number, MAJOR * 10000 + MINOR * 100 + PATCH (0.1.0 is
 * 100), for #if checks; mb_version_number() is the library's own at run
 * time (it differs when a program runs against another libmbench). */
#define MB_VERSION_NUMBER                                                      \
    (MB_VERSION_MAJOR * 10000 + MB_VERSION_MINOR * 100 + MB_VERSION_PATCH)

/* Status codes.  Stable: the CLI maps them to exit codes. */
typedef enum mb_status {
    MB_OK = 0,
    MB_EINVAL = 1,       /* a bad argument or option value */
    MB_ENOMEM = 2,       /* allocation failed or a size overflowed */
    MB_EIO = 3,          /* a file could not be read or written */
    MB_EFORMAT = 4,      /* a file is corrupt, truncated or of the wrong kind */
    MB_EMODEL = 5,       /* the model is unusable (rejected, unresolved dims) */
    MB_EBACKEND = 6,     /* the runtime failed or is unavailable */
    MB_EDATA = 7,        /* input data does not match the model */
    MB_EUNSUPPORTED = 8, /* a valid request this build cannot serve */
    MB_ECHILD = 9,       /* a child process crashed, hung or was killed */
    MB_EINTERRUPTED = 10 /* stopped by a signal (Ctrl-C) */
} mb_status;

/* Error detail.  Callers allocate it (usually on the stack). */
typedef struct mb_err {
    mb_status code;
    char msg[1024];
} mb_err;

/* Returns a static, lower-case name for a status ("invalid argument"). */
MB_API const char *mb_status_name(mb_status s);

/* A log sink: level is the runtime's severity (0 verbose, 1 info,
 * 2 warning, 3 error, 4 fatal), message one line without a newline. */
typedef void (*mb_log_fn)(void *user, int level, const char *message);

/* Tensor element types; numbers are ONNX TensorProto.DataType values. */
typedef enum mb_dtype {
    MB_DTYPE_UNDEFINED = 0,
    MB_DTYPE_FLOAT32 = 1,
    MB_DTYPE_UINT8 = 2,
    MB_DTYPE_INT8 = 3,
    MB_DTYPE_UINT16 = 4,
    MB_DTYPE_INT16 = 5,
    MB_DTYPE_INT32 = 6,
    MB_DTYPE_INT64 = 7,
    MB_DTYPE_STRING = 8,
    MB_DTYPE_BOOL = 9,
    MB_DTYPE_FLOAT16 = 10,
    MB_DTYPE_FLOAT64 = 11,
    MB_DTYPE_UINT32 = 12,
    MB_DTYPE_UINT64 = 13,
    MB_DTYPE_COMPLEX64 = 14,
    MB_DTYPE_COMPLEX128 = 15,
    MB_DTYPE_BFLOAT16 = 16
} mb_dtype;

/* Static name of a dtype ("float32", "float16", ...); "unknown(N)" style
 * names are never returned: unknown values give "undefined". */
MB_API const char *mb_dtype_name(mb_dtype t);
/* Parses "float32", "float", "fp16", "int64", ... ; returns MB_DTYPE_UNDEFINED
 * when the name is unknown. */
MB_API mb_dtype mb_dtype_parse(const char *name);
/* Bytes per element, 0 for types without a fixed size (string, undefined). */
MB_API size_t mb_dtype_size(mb_dtype t);

#define MB_MAX_RANK 16

/*
 * A dense tensor in host memory, C order.  A plain struct: the library
 * allocates `data` in mb_tensor_alloc and frees it in mb_tensor_clear.
 * `name` is owned by the tensor (may be NULL).
 */
typedef struct mb_tensor {
    mb_dtype dtype;
    int rank;
    int64_t dims[MB_MAX_RANK];
    void *data;
    size_t nbytes;
    char *name;
} mb_tensor;

/* Element count of a shape; returns 0 and sets *overflow when the product
 * does not fit a size_t or a dim is negative. */
MB_API size_t mb_shape_count(const int64_t *dims, int rank, int *overflow);
/* Allocates zeroed storage for a tensor of this dtype and shape into *t
 * (which is overwritten).  Caller frees with mb_tensor_clear. */
MB_API mb_status mb_tensor_alloc(mb_tensor *t, mb_dtype dtype, int rank,
                                 const int64_t *dims, const char *name,
                                 mb_err *err);
/* Frees what mb_tensor_alloc allocated and zeroes *t.  NULL is a no-op. */
MB_API void mb_tensor_clear(mb_tensor *t);
/* Number of elements of t. */
MB_API size_t mb_tensor_count(const mb_tensor *t);
/* Deep copy of src into *dst.  Caller frees with mb_tensor_clear. */
MB_API mb_status mb_tensor_copy(mb_tensor *dst, const mb_tensor *src,
                                mb_err *err);
/* Reads element i of any numeric dtype as a double (float16/bfloat16
 * widened exactly). */
MB_API double mb_tensor_get_f64(const mb_tensor *t, size_t i);
/* Formats a shape as "[1,3,224,224]" into buf; returns buf. */
MB_API char *mb_shape_str(const int64_t *dims, int rank, char *buf, size_t len);

/* IEEE half and bfloat16 conversions (round to nearest even). */
MB_API float mb_f16_to_f32(uint16_t h);
MB_API uint16_t mb_f32_to_f16(float f);
MB_API float mb_bf16_to_f32(uint16_t h);
MB_API uint16_t mb_f32_to_bf16(float f);

/*
 * Running a benchmark: the library side of `mbench run`.
 *
 *   mb_runner *r = mb_runner_new();
 *   mb_runner_set(r, "threads", "1", &err);
 *   mb_runner_set(r, "batch", "1,8", &err);
 *   char *json;
 *   if (mb_runner_run(r, "model.onnx", &json, &err) == MB_OK) { ...;
 * free(json); } mb_runner_free(r);
 *
 * Options are named like the run flags without dashes (docs/CLI.md):
 * backend, ort-lib, batch, seed, data, dim (NAME=VALUE, repeatable),
 * shape (NAME=D0,D1,..., repeatable),
 * input-range (NAME=LO:HI, repeatable), warmup, warmup-time, min-iterations,
 * max-iterations, min-time, max-time, iterations, target-ci, leak-check,
 * save-samples, verbose; any other key is a backend option (threads,
 * inter-threads, execution-mode, opt-level, ep, device-id, arena,
 * save-optimized, config:KEY, ...) validated when the model is opened.
 */
typedef struct mb_runner mb_runner;

/* A runner with the defaults of `mbench run`; NULL when memory runs out.
 * Caller frees with mb_runner_free. */
MB_API mb_runner *mb_runner_new(void);
/* Frees r; NULL is a no-op. */
MB_API void mb_runner_free(mb_runner *r);
/* Sends the runtime's log lines (with the option verbose=1) to fn(user,
 * level, line) instead of stderr; fn NULL restores stderr.  fn is called
 * from the thread that runs the measurement, or in a child process when
 * processes > 1 (then it must not rely on the host's state).  Variants of
 * mb_runner_compare and both models of mb_runner_validate inherit it. */
MB_API void mb_runner_set_log(mb_runner *r, mb_log_fn fn, void *user);
/* Sets one option (strings are copied).  MB_EINVAL names a bad value. */
MB_API mb_status mb_runner_set(mb_runner *r, const char *key, const char *value,
                               mb_err *err);
/* Benchmarks model and hands the result document (JSON text, schema
 * "mbench.result/1", docs/FORMATS.md) to *json; caller frees it with
 * free().  Thread-compatible: one runner per thread. */
MB_API mb_status mb_runner_run(mb_runner *r, const char *model, char **json,
                               mb_err *err);

/* Compares variants, each "NAME=MODEL[,key=value...]" (keys as for
 * mb_runner_set, applied after the runner's own options), like `mbench
 * compare`: --processes rounds of fresh processes, speedups paired by
 * round with Student-t CIs, memory, size, accuracy and agreement.  The
 * runner's keys baseline (a NAME; default the first), labels, output,
 * tolerance and threshold apply.  *json receives the result document
 * ("kind": "compare"); caller frees it with free().  A variant that fails
 * is FAILED in the document, not an error of the call. */
MB_API mb_status mb_runner_compare(mb_runner *r, const char *const *variants,
                                   size_t n, char **json, mb_err *err);

/* Profiles model like `mbench profile MODEL`: a timing pass that is not
 * profiled, --iterations runs (default 50) under ONNX Runtime's profiler
 * after the cold run and the warmup, and a pass with hardware counters;
 * times per operator type and per node, FLOPs from the traced shapes and
 * the share of the machine's peak (measured once and cached, see `mbench
 * machine`).  The runner's keys no-timing, no-counters and no-peak (0 or
 * 1) skip those passes.  Only the ort backend profiles.  *json receives
 * the result document ("kind": "profile", docs/PROFILE.md); caller frees
 * it with free(). */
MB_API mb_status mb_runner_profile(mb_runner *r, const char *model, char **json,
                                   mb_err *err);
/* Validates candidate against baseline (model paths), like `mbench
 * validate` (docs/ACCURACY.md): both run on the same inputs (the runner's
 * data, every sample in batches of its one batch size, else `samples`
 * seeded synthetic ones, which the document flags as random), every
 * output is compared with the accuracy metrics and judged by the gates
 * (given, else the defaults of the candidate's weight precision), and the
 * output read as class scores also by accuracy against labels, else by
 * top-1 agreement >= 1 - tolerance.  Both models get the runner's options;
 * the candidate also its candidate-opt ones.  Runner keys that apply:
 * labels, output, tolerance (as for compare), and gate (repeatable),
 * precision (fp32, fp16, int8), samples, save-outputs (a directory),
 * atol, rtol, data-range, ssim-3d (0 or 1), candidate-opt (KEY=VALUE,
 * repeatable), each checked when set.  *passed (may be NULL) receives 1
 * when the verdict passed, 0 when it failed; a failed verdict is not an
 * error of the call.  *json receives the result document ("kind":
 * "validate", verdict in validation.passed); caller frees it with free().
 * MB_EINVAL: a bad request (labels without data, several batch sizes, an
 * output name the baseline lacks); MB_EMODEL/MB_EBACKEND/MB_EDATA/MB_EIO:
 * a model, data or labels that cannot be used, naming which. */
MB_API mb_status mb_runner_validate(mb_runner *r, const char *baseline,
                                    const char *candidate, int *passed,
                                    char **json, mb_err *err);
/* Serving load, like `mbench load` (docs/LOAD.md): requests in flight
 * from several threads against model, with the runner's options (backend,
 * threads, batch, warmup, min-time, max-time, min-iterations, ...) and
 * load options as "KEY=VALUE" strings: concurrency=N[,N...],
 * qps=R[,R...], offline=1, slo=p99=20ms, sessions=N, cpus=0-3, requests=N,
 * repeat=K (default 5), confidence=0.99, tolerance=0.05, max-steps=N,
 * queued=1ms, records=N, spin=auto|DURATION, realtime=auto|none|wait|serve,
 * slo-basis=model|measured, early-stopping=exact|loadgen.  *json receives the
 * result document ("kind": "load"); caller frees it with free(). */
MB_API mb_status mb_runner_load(mb_runner *r, const char *model,
                                const char *const *load_opts, size_t n,
                                char **json, mb_err *err);

/* Renders a result document -- the JSON text an mb_runner_* call hands
 * out, or a file `mbench ... --json` wrote -- as format "md", "html",
 * "csv" or "json" into *out (NUL-terminated; the caller frees it with
 * free()), with the writers the CLI's --md, --html, --csv and --json use,
 * chosen by the document's kind (a run, a comparison, a validation, a
 * load run, a gate verdict, a diff, a profile).  CSV starts with its
 * header line.  MB_EINVAL when json is not a JSON object or format is
 * none of those four; MB_ENOMEM.  On failure *out is NULL. */
MB_API mb_status mb_render(const char *json, const char *format, char **out,
                           mb_err *err);

/* Writes the static benchmark site of the results store db (a SQLite
 * path, postgresql:// URL or libpq keyword string) into the directory
 * out_dir, like `mbench site` (docs/STORE.md, "mbench site"): an index of
 * every series (one per benchmark, metric and machine), a page per series,
 * the regressions (HTML and regressions.json) and a branch view.  opts
 * holds n "KEY=VALUE" strings (NULL when n is 0): commit-url=TEMPLATE
 * (holding {sha}), git-dir=DIR (first-parent order from that repository;
 * without it points are ordered by commit date), branch=NAME,
 * compare=NAME, baseline=REF.  Incremental and deterministic: a page
 * whose input did not change is not written again, and the same store
 * gives byte-identical files.  *written (may be NULL) receives the number
 * of files written.  MB_EINVAL: a bad option, or a branch or baseline the
 * store lacks; MB_EIO: a store that does not exist or an unwritable
 * directory; MB_EFORMAT: a damaged store. */
MB_API mb_status mb_site(const char *db, const char *out_dir,
                         const char *const *opts, size_t n, size_t *written,
                         mb_err *err);

/* Monotonic time in nanoseconds (CLOCK_MONOTONIC). */
MB_API int64_t mb_now_ns(void);

/* The version of this library ("0.1.0") and the git commit it was built
 * from ("unknown" outside a checkout).  Static strings. */
MB_API const char *mb_version(void);
MB_API const char *mb_build_commit(void);
/* MB_VERSION_NUMBER of the library that is running (0.1.0: 100). */
MB_API int mb_version_number(void);

#ifdef __cplusplus
}
#endif
#endif /* MBENCH_H */
