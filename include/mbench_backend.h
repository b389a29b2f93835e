/*
 * mbench_backend.h - the versioned vtable every inference backend implements.
 *
 * A backend turns "a model file plus string options" into something the
 * runner can time.  The runner calls, in this order:
 *
 *   load -> info -> open -> describe -> prepare -> run ... run -> fetch
 *        -> (prepare -> run ... for another batch) -> close -> unload
 *
 * Nothing here is ORT-shaped: options are string key/value pairs that the
 * backend validates itself (an unknown key is an error naming the key), and
 * tensors are plain mb_tensor structs.  Out-of-tree backends are shared
 * objects that export `const mb_backend *mb_backend_entry(void)`.
 *
 * Threading: a session is used by one thread at a time.  A backend whose
 * runtime can serve concurrent calls on one model (ONNX Runtime's Run is
 * thread-safe) may offer share(): a second handle over the same loaded
 * model with its own bound inputs and outputs, for another thread.
 * Errors: every int-returning slot returns an mb_status and fills `err`.
 */
#ifndef MBENCH_BACKEND_H
#define MBENCH_BACKEND_H

#include "mbench.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MB_BACKEND_ABI_VERSION 1u

/* One string option, borrowed for the duration of the call. */
typedef struct mb_kv {
    const char *key;
    const char *value;
} mb_kv;

/* Description of one model input or output.  dims[i] < 0 means symbolic;
 * dim_names[i] is then its name ("" when anonymous). */
typedef struct mb_io_desc {
    const char *name;
    mb_dtype dtype;
    int rank; /* -1 when the rank itself is unknown */
    int64_t dims[MB_MAX_RANK];
    const char *dim_names[MB_MAX_RANK];
} mb_io_desc;

/* Log sink handed to the backend (mb_log_fn, declared in mbench.h); may be
 * NULL (then the backend is silent). */

typedef struct mb_backend_config {
    const char *library_path; /* runtime library to load, or NULL: default */
    int verbose;              /* pass the runtime's own logs to `log` */
    mb_log_fn log;
    void *log_user;
    uint64_t seed; /* the run's --seed (added last: older
                      plugins never read it) */
} mb_backend_config;

/* Capabilities a backend declares (mb_backend.caps), so the runner never
 * special-cases a backend by name. */
enum {
    /* The model argument is a file: the runner checks that it exists and
     * is not empty before open(). */
    MB_BACKEND_CAP_MODEL_FILE = 1u << 0,
    /* open() takes "dim:NAME"=N options (fix symbolic dimension NAME to
     * N, so the runtime can specialise the graph): the runner passes every
     * --dim this way. */
    MB_BACKEND_CAP_DIM_OVERRIDE = 1u << 1,
    /* A simulated workload: what is timed does not depend on the input
     * values, so synthetic inputs draw no warning. */
    MB_BACKEND_CAP_SIMULATED = 1u << 2
};

/* Callback used by info(): one fact as key and value (both borrowed). */
typedef void (*mb_info_fn)(void *user, const char *key, const char *value);

typedef struct mb_backend {
    uint32_t abi_version; /* MB_BACKEND_ABI_VERSION; first, always */
    uint32_t struct_size; /* sizeof(mb_backend) of the backend's build */
    const char *name;     /* "ort", "null", ... */

    /* Loads the runtime (dlopen and global set-up).  *state is the
     * backend's; freed by unload.  Times of this call are reported as the
     * "library load" phase. */
    int (*load)(const mb_backend_config *cfg, void **state, mb_err *err);
    /* Reports facts about the runtime: "version", "build_info",
     * "providers", "library_path" and any others. */
    void (*info)(void *state, mb_info_fn emit, void *user);
    /* Creates a session for the model.  Options are validated here. */
    int (*open)(void *state, const char *model_path, const mb_kv *opts,
                size_t n_opts, void **session, mb_err *err);
    /* Borrowed descriptions, valid until close. */
    int (*describe)(void *session, const mb_io_desc **inputs, size_t *n_in,
                    const mb_io_desc **outputs, size_t *n_out, mb_err *err);
    /* Binds one batch of inputs (in describe() order).  The tensors are
     * borrowed and stay alive until the next prepare or close.  All the
     * per-call set-up happens here, never in run(). */
    int (*prepare)(void *session, const mb_tensor *inputs, size_t n_inputs,
                   mb_err *err);
    /* One inference on the prepared inputs: the timed call. */
    int (*run)(void *session, mb_err *err);
    /* Copies output `index` of the last run into *out (caller frees with
     * mb_tensor_clear). */
    int (*fetch)(void *session, size_t index, mb_tensor *out, mb_err *err);
    void (*close)(void *session);
    void (*unload)(void *state);
    /* Optional (NULL, or absent when struct_size ends before it): a new
     * handle sharing session's loaded model (weights, thread pools) with
     * its own inputs (prepare them again) and outputs, usable from another
     * thread at the same time as session.  Close it with close() before
     * session.  Used by `mbench load` for one session served by many
     * threads. */
    int (*share)(void *session, void **twin, mb_err *err);
    /* Also added after the first release: a plugin built before them has
     * a smaller struct_size, and the runner reads them as 0 / NULL. */
    uint32_t caps; /* MB_BACKEND_CAP_* bits */
    /* The option keys open() accepts, NULL-terminated ("dim:*" stands for
     * every "dim:NAME"), for help and documentation; NULL when not
     * declared.  open() still validates every option itself. */
    const char *const *options;
    /* Added after options: read only when struct_size covers it
     * (MB_BACKEND_HAS).  May be NULL.  Facts about the
     * opened model, as info() gives them for the runtime: "format",
     * "params", "param_bytes", "params_by_dtype:DTYPE" ("COUNT BYTES"),
     * "nodes", "op:NAME" (a count) and any others (mbench info prints
     * them; the run's "model" section takes the parameter counts). */
    void (*model_info)(void *session, mb_info_fn emit, void *user);
    /* Added after model_info: read only when struct_size covers it
     * (MB_BACKEND_HAS).  May be NULL.  Facts about the session as the last
     * prepare() left it: "compile_ns" (the nanoseconds prepare() spent
     * compiling for these input shapes - JIT, XLA, TorchScript's profiling
     * runs - an integer; absent when nothing was compiled) and runtime facts
     * known only once a model is open ("name" and "version" of the
     * framework, "sync": how run() waits for the result, "threads", ...),
     * which the run's "runtime" section takes over those of info(). */
    void (*session_info)(void *session, mb_info_fn emit, void *user);
} mb_backend;

/* 1 when backend b offers share() (checks struct_size for plugins built
 * against an older header). */
#define MB_BACKEND_HAS_SHARE(b)                                                \
    ((b)->struct_size >= offsetof(mb_backend, share) + sizeof(void *) &&       \
     (b)->share != NULL)

/* Does backend b provide the slot `field` (a plugin built against an
 * older header has a smaller struct_size)? */
#define MB_BACKEND_HAS(b, field)                                               \
    ((b)->struct_size >= offsetof(mb_backend, field) + sizeof((b)->field) &&   \
     (b)->field != NULL)

/* The built-in backends, and lookup by name ("ort", "null") or by the path
 * of a plugin .so (a name containing '/').  Any other NAME is looked for as
 * the plugin mbench_NAME.so in, in order: the directories of
 * $MBENCH_PLUGIN_PATH (colon-separated), `plugins/` beside the program or
 * libmbench.so or one level up (the build tree: build/mbench,
 * build/tests/...), <libdir>/mbench/plugins relative to it (an installed
 * tree) and PREFIX/lib/mbench/plugins.  Returns NULL and
 * fills err when nothing fits. */
MB_API const mb_backend *mb_backend_find(const char *name_or_path, mb_err *err);

/* The backend a model calls for when none is named: "python" for a Python
 * model spec (PATH.py:FACTORY, py:MODULE:FACTORY, torchvision:NAME,
 * flax:NAME, pickle:PATH), "torch" for a TorchScript file (.pt, .pth),
 * "openvino" for an OpenVINO IR (.xml), else "ort".  Static strings. */
MB_API const char *mb_backend_for_model(const char *model_path);

/* Symbol a plugin exports. */
typedef const mb_backend *(*mb_backend_entry_fn)(void);

#ifdef __cplusplus
}
#endif
#endif /* MBENCH_BACKEND_H */
