/*
 * openvino_backend.c - the OpenVINO backend plugin: ONNX and OpenVINO IR
 * (.xml + .bin) models on OpenVINO Runtime, through its C API
 * (libopenvino_c.so from the `openvino` wheel on PyPI) loaded with dlopen.
 * The declarations it calls are the project's own (ov_abi.h).
 *
 * Built as build/plugins/mbench_openvino.so where `make frameworks` made
 * the openvino venv (Makefile); the library is found, in order, at
 * $MBENCH_OPENVINO_LIB, in $MBENCH_FRAMEWORKS_DIR/openvino (the venv's
 * site-packages/openvino/libs), at the path the build found, and through
 * the dynamic loader (libopenvino_c.so).
 *
 * Sessions: open() reads the model (phase "read_model_ns") and, when every
 * input shape is static, compiles it (phase "compile_ns").  A model with
 * dynamic dims is compiled in prepare() for the concrete shapes of the
 * batch (shapes=static, the default: OpenVINO plans memory and kernels for
 * a static shape, as benchmark_app's -shape does), again only when the
 * shapes change; shapes=dynamic compiles once with the dynamic dims.  The
 * first inference is the runner's own phase.  run() is one synchronous
 * ov_infer_request_infer on the inputs bound in prepare() (zero copy).
 *
 * Options: threads (INFERENCE_NUM_THREADS), streams (NUM_STREAMS, a count
 * or AUTO), hint (PERFORMANCE_HINT: latency, throughput,
 * cumulative_throughput or none), precision (INFERENCE_PRECISION_HINT:
 * f32, bf16 or f16), pinning (ENABLE_CPU_PINNING), exec-mode
 * (EXECUTION_MODE_HINT: performance or accuracy), cache-dir (CACHE_DIR),
 * device (CPU by default), shapes (static|dynamic) and profile=PREFIX
 * (PERF_COUNT: each inference's per-node counters, written on close as a
 * Chrome trace that `mbench profile` reads).  Docs: docs/FRAMEWORKS.md.
 */
#include "mbench_backend.h"
#include "../common/plugin_util.h"
#include "ir_consts.h"
#include "ov_abi.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef MB_OV_DEFAULT_LIB
#define MB_OV_DEFAULT_LIB ""
#endif

#define MAX_PROPS 8

typedef struct ovx_state {
    void *dl;
    ov_api f;
    ov_keys k;
    int base;    /* element-type numbering: 0 (2026) or 1 (2025) */
    int verbose; /* let OpenVINO's frontends write to stderr */
    char lib[4096];
    char version[128];
    char description[256];
    char devices[512];
    ov_core_t *core;
} ovx_state;

/* One input or output: its name and the description the runner sees. */
typedef struct ovx_io {
    char *name;
    mb_io_desc d;
} ovx_io;

/* Trace text being written. */
typedef struct tbuf {
    char *s;
    size_t n, cap;
    int oom;
} tbuf;

/* What profiling keeps until close (see record_run). */
typedef struct prof {
    int64_t *at; /* per inference: start (from t_origin) and duration, ns */
    size_t n, cap;
    int oom;
    ov_profiling_info_list_t first; /* the counters after inference 1 */
} prof;

typedef struct ovx_session {
    ovx_state *st;
    ov_model_t *model;
    ov_compiled_model_t *compiled;
    ov_infer_request_t *req;
    ovx_io *in, *out;
    size_t n_in, n_out;
    mb_io_desc *in_desc, *out_desc;
    ov_tensor_t **bound;           /* n_in input tensors over host memory */
    int64_t (*shape)[MB_MAX_RANK]; /* n_in shapes compiled for */
    int *rank;                     /* n_in ranks compiled for (-1: none) */
    const char *pk[MAX_PROPS];     /* compile properties */
    char pv[MAX_PROPS][64];
    size_t np;
    char device[64];
    char cache_dir[1024];
    int dynamic_model, dynamic_mode;
    int64_t read_ns, compile_ns;
    size_t compiles;
    struct ovx_session *owner; /* a twin (share): the session whose model,
                                  compiled model and descriptions it
                                  borrows; NULL for a session of its own */
    char *profile;             /* trace prefix, or NULL */
    prof prof;
    int64_t t_origin;
    char *path;
} ovx_session;

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* OpenVINO's reason for the last failure, first line only (the rest is a
 * C++ source location), into buf. */
static const char *reason(const ovx_state *st, ov_status_e s, char *buf,
                          size_t len)
{
    const char *m = st->f.ov_get_last_err_msg();
    if (m && *m) {
        snprintf(buf, len, "%s", m);
        st->f.ov_free(m);
    } else {
        const char *e = st->f.ov_get_error_info(s);
        snprintf(buf, len, "%s (status %d)", e ? e : "error", s);
        if (m)
            st->f.ov_free(m);
    }
    /* OpenVINO prefixes messages with "Exception from src/...:NN:\n" */
    char *nl;
    while ((nl = strchr(buf, '\n')) != NULL) {
        if (!strncmp(buf, "Exception from", 14) || !strncmp(buf, "Check '", 7))
            memmove(buf, nl + 1, strlen(nl + 1) + 1);
        else {
            *nl = 0;
            break;
        }
    }
    return buf;
}

/* ---- element types ------------------------------------------------------ */

static const struct {
    mb_dtype mb;
    int ov;      /* OVX_* in the 2026 numbering */
    size_t size; /* names: plugins/common/plugin_util.h */
} kTypes[] = {
    {MB_DTYPE_FLOAT32, OVX_F32, 4},   {MB_DTYPE_FLOAT16, OVX_F16, 2},
    {MB_DTYPE_BFLOAT16, OVX_BF16, 2}, {MB_DTYPE_FLOAT64, OVX_F64, 8},
    {MB_DTYPE_INT64, OVX_I64, 8},     {MB_DTYPE_INT32, OVX_I32, 4},
    {MB_DTYPE_INT16, OVX_I16, 2},     {MB_DTYPE_INT8, OVX_I8, 1},
    {MB_DTYPE_UINT8, OVX_U8, 1},      {MB_DTYPE_UINT16, OVX_U16, 2},
    {MB_DTYPE_UINT32, OVX_U32, 4},    {MB_DTYPE_UINT64, OVX_U64, 8},
    {MB_DTYPE_BOOL, OVX_BOOLEAN, 1},
};
#define N_TYPES (sizeof kTypes / sizeof kTypes[0])

static mb_dtype from_ov(const ovx_state *st, ov_element_type_e t)
{
    for (size_t i = 0; i < N_TYPES; i++)
        if (kTypes[i].ov + st->base == t)
            return kTypes[i].mb;
    return MB_DTYPE_UNDEFINED;
}

static int to_ov(const ovx_state *st, mb_dtype t, ov_element_type_e *out)
{
    for (size_t i = 0; i < N_TYPES; i++)
        if (kTypes[i].mb == t) {
            *out = kTypes[i].ov + st->base;
            return 1;
        }
    return 0;
}

static const char *dtype_name(mb_dtype t)
{
    const char *n = mb_plugin_dtype_str(t);
    return n ? n : "unsupported";
}

/* Whether every mapped type has its byte size under numbering `base`. */
static int numbering_fits(ovx_state *st, int base)
{
    int64_t one = 1;
    ov_shape_t sh;
    if (st->f.ov_shape_create(1, &one, &sh))
        return 0;
    int ok = 1;
    for (size_t i = 0; ok && i < N_TYPES; i++) {
        ov_tensor_t *t = NULL;
        size_t bytes = 0;
        ok = st->f.ov_tensor_create(kTypes[i].ov + base, sh, &t) == 0 &&
             st->f.ov_tensor_get_byte_size(t, &bytes) == 0 &&
             bytes == kTypes[i].size;
        if (t)
            st->f.ov_tensor_free(t);
    }
    st->f.ov_shape_free(&sh);
    return ok;
}

/* ---- loading the library --------------------------------------------------
 */

/* The first libopenvino_c.so* under a venv's site-packages/openvino/libs. */
static int venv_lib(const char *venv, char *out, size_t len)
{
    char pat[4096];
    snprintf(pat, sizeof pat,
             "%s/lib/python3*/site-packages/openvino/libs/libopenvino_c.so*",
             venv);
    glob_t g;
    int found = 0;
    if (glob(pat, 0, NULL, &g) == 0 && g.gl_pathc > 0) {
        snprintf(out, len, "%s", g.gl_pathv[0]);
        found = 1;
    }
    globfree(&g);
    return found;
}

/* Candidate library paths in order; returns how many were written. */
static size_t candidates(char out[][4096], size_t max)
{
    size_t n = 0;
    const char *env = getenv("MBENCH_OPENVINO_LIB");
    if (env && *env && n < max)
        snprintf(out[n++], 4096, "%s", env);
    const char *fw = getenv("MBENCH_FRAMEWORKS_DIR");
    if (fw && *fw && n < max) {
        char venv[4096];
        snprintf(venv, sizeof venv, "%s/openvino", fw);
        n += (size_t)venv_lib(venv, out[n], 4096);
    }
    if (*MB_OV_DEFAULT_LIB && n < max)
        snprintf(out[n++], 4096, "%s", MB_OV_DEFAULT_LIB);
    if (n < max)
        snprintf(out[n++], 4096, "libopenvino_c.so");
    return n;
}

static int resolve(ovx_state *st, mb_err *err)
{
#define MB_OV_RESOLVE(name, ret, params)                                       \
    *(void **)&st->f.name = dlsym(st->dl, #name);                              \
    if (!st->f.name)                                                           \
        return mb_plugin_fail(                                                 \
            err, MB_EBACKEND,                                                  \
            "%s has no function %s: not OpenVINO's C library, or "             \
            "one older than 2024.0; install openvino==2026.4.1 "               \
            "(make frameworks)",                                               \
            st->lib, #name);
    MB_OV_FUNCS(MB_OV_RESOLVE)
#undef MB_OV_RESOLVE
#define MB_OV_KEY_RESOLVE(key)                                                 \
    {                                                                          \
        const char *const *p = dlsym(st->dl, "ov_property_key_" #key);         \
        st->k.key = p ? *p : NULL;                                             \
    }
    MB_OV_KEYS(MB_OV_KEY_RESOLVE)
#undef MB_OV_KEY_RESOLVE
    return MB_OK;
}

/* The runtime's version and devices, and the element-type numbering. */
static int introduce(ovx_state *st, mb_err *err)
{
    ov_version_t v = {0};
    if (st->f.ov_get_openvino_version(&v) == 0) {
        snprintf(st->version, sizeof st->version, "%s",
                 v.build_number ? v.build_number : "");
        snprintf(st->description, sizeof st->description, "%s",
                 v.description ? v.description : "");
        st->f.ov_version_free(&v);
    }
    char why[1024];
    ov_status_e s = st->f.ov_core_create(&st->core);
    if (s)
        return mb_plugin_fail(err, MB_EBACKEND,
                              "OpenVINO (%s) cannot start: %s", st->lib,
                              reason(st, s, why, sizeof why));
    ov_available_devices_t dev = {0};
    if (st->f.ov_core_get_available_devices(st->core, &dev) == 0) {
        size_t used = 0;
        for (size_t i = 0; i < dev.size; i++)
            used += (size_t)snprintf(
                st->devices + used,
                used < sizeof st->devices ? sizeof st->devices - used : 0,
                "%s%s", i ? "," : "", dev.devices[i]);
        st->f.ov_available_devices_free(&dev);
    }
    if (numbering_fits(st, 0))
        st->base = 0;
    else if (numbering_fits(st, 1))
        st->base = 1;
    else
        return mb_plugin_fail(
            err, MB_EBACKEND,
            "OpenVINO %s at %s numbers its element types in a way "
            "this plugin does not know; use openvino 2025.x or "
            "2026.x (make frameworks installs 2026.4.1)",
            st->version, st->lib);
    return MB_OK;
}

static void ov_unload(void *state);

static int ov_load(const mb_backend_config *cfg, void **state, mb_err *err)
{
    *state = NULL;
    ovx_state *st = calloc(1, sizeof *st);
    if (!st)
        return mb_plugin_fail(err, MB_ENOMEM, "out of memory");
    st->verbose = cfg && cfg->verbose;
    char paths[4][4096], tried[8192] = "";
    size_t n = candidates(paths, 4);
    const char *env = getenv("MBENCH_OPENVINO_LIB");
    if (env && *env)
        n = 1; /* asked for: that one or an error, no fallback */
    for (size_t i = 0; i < n && !st->dl; i++) {
        st->dl = dlopen(paths[i], RTLD_NOW | RTLD_LOCAL);
        if (st->dl)
            snprintf(st->lib, sizeof st->lib, "%s", paths[i]);
        else {
            size_t used = strlen(tried);
            snprintf(tried + used, sizeof tried - used, "%s%s",
                     used ? "; " : "", dlerror());
        }
    }
    if (!st->dl && env && *env) {
        free(st);
        return mb_plugin_fail(
            err, MB_EBACKEND,
            "MBENCH_OPENVINO_LIB=%s cannot be loaded (%s); point it "
            "at a libopenvino_c.so or unset it",
            env, tried);
    }
    if (!st->dl) {
        free(st);
        return mb_plugin_fail(
            err, MB_EBACKEND,
            "OpenVINO's C library was not found (%s); run 'make "
            "frameworks' (the openvino venv), or set "
            "MBENCH_OPENVINO_LIB to a libopenvino_c.so",
            tried);
    }
    Dl_info di; /* the file the loader actually used */
    void *sym = dlsym(st->dl, "ov_core_create");
    if (sym && dladdr(sym, &di) && di.dli_fname)
        snprintf(st->lib, sizeof st->lib, "%s", di.dli_fname);
    int rc = resolve(st, err);
    if (!rc)
        rc = introduce(st, err);
    if (rc) {
        ov_unload(st);
        return rc;
    }
    *state = st;
    return MB_OK;
}

static void ov_info(void *state, mb_info_fn emit, void *user)
{
    ovx_state *st = state;
    emit(user, "name", "openvino");
    emit(user, "version", st->version);
    emit(user, "build_info", st->description);
    emit(user, "providers", st->devices);
    emit(user, "library_path", st->lib);
}

static void ov_unload(void *state)
{
    ovx_state *st = state;
    if (!st)
        return;
    if (st->core)
        st->f.ov_core_free(st->core);
    /* The library stays loaded: OpenVINO's TBB threads outlive the core
     * and would run unmapped code after dlclose. */
    free(st);
}

/* ---- options ------------------------------------------------------------- */

static const char *const kOptions[] = {
    "threads", "streams", "hint",      "precision", "pinning", "exec-mode",
    "device",  "shapes",  "cache-dir", "profile",   NULL};

/* Adds property key=value for compile_model; 0 when the key is missing
 * from this library or there is no room. */
static int add_prop(ovx_session *s, const char *key, const char *value)
{
    for (size_t i = 0; i < s->np; i++)
        if (s->pk[i] == key) {
            snprintf(s->pv[i], sizeof s->pv[i], "%s", value);
            return 1;
        }
    if (!key || s->np >= MAX_PROPS)
        return 0;
    s->pk[s->np] = key;
    snprintf(s->pv[s->np], sizeof s->pv[s->np], "%s", value);
    s->np++;
    return 1;
}

/* value must be one of the '|'-separated words of `choices`; the
 * property value is the matching word of `values` (same order). */
static const char *pick(const char *value, const char *choices,
                        const char *values, char *buf, size_t len)
{
    const char *c = choices, *v = values;
    while (*c) {
        size_t cl = strcspn(c, "|"), vl = strcspn(v, "|");
        if (strlen(value) == cl && !strncmp(value, c, cl)) {
            snprintf(buf, len, "%.*s", (int)vl, v);
            return buf;
        }
        c += cl + (c[cl] == '|');
        v += vl + (v[vl] == '|');
    }
    return NULL;
}

static int parse_count(const char *v, long lo, long hi, long *out)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (!*v || *end || n < lo || n > hi)
        return 0;
    *out = n;
    return 1;
}

/* The options that are not compile properties; -1 when k is none of
 * them, else MB_OK or an error naming the bad value. */
static int session_option(ovx_session *s, const char *k, const char *v,
                          mb_err *err)
{
    ovx_state *st = s->st;
    if (!strcmp(k, "cache-dir")) {
        if (!st->k.cache_dir)
            return mb_plugin_fail(err, MB_EUNSUPPORTED,
                                  "this OpenVINO (%s) has no property for %s",
                                  st->version, k);
        if (!*v || strlen(v) >= sizeof s->cache_dir)
            return mb_plugin_fail(
                err, MB_EINVAL,
                "invalid cache-dir '%s': expected a directory path", v);
        snprintf(s->cache_dir, sizeof s->cache_dir, "%s", v);
    } else if (!strcmp(k, "device")) {
        if (!*v || strlen(v) >= sizeof s->device)
            return mb_plugin_fail(
                err, MB_EINVAL,
                "invalid device '%s': expected a device name such "
                "as CPU (available: %s)",
                v, st->devices);
        snprintf(s->device, sizeof s->device, "%s", v);
    } else if (!strcmp(k, "shapes")) {
        if (strcmp(v, "static") && strcmp(v, "dynamic"))
            return mb_plugin_fail(
                err, MB_EINVAL,
                "invalid shapes '%s': expected static (compile "
                "for each batch's shapes) or dynamic",
                v);
        s->dynamic_mode = v[0] == 'd';
    } else if (!strcmp(k, "profile")) {
        if (!st->k.enable_profiling)
            return mb_plugin_fail(
                err, MB_EUNSUPPORTED,
                "this OpenVINO (%s) has no property for profiling",
                st->version);
        free(s->profile);
        s->profile = strdup(v);
        if (!s->profile || !add_prop(s, st->k.enable_profiling, "YES"))
            return mb_plugin_fail(err, MB_ENOMEM, "out of memory");
    } else {
        return -1;
    }
    return MB_OK;
}

/* Drops property `key` from the compile properties (hint=none). */
static void drop_prop(ovx_session *s, const char *key)
{
    for (size_t i = 0; i < s->np; i++)
        if (s->pk[i] == key) {
            s->pk[i] = s->pk[--s->np];
            memcpy(s->pv[i], s->pv[s->np], sizeof s->pv[i]);
        }
}

/* One option into s; MB_EINVAL naming a bad key or value. */
static int apply_option(ovx_session *s, const char *k, const char *v,
                        mb_err *err)
{
    int rc = session_option(s, k, v, err);
    if (rc >= 0)
        return rc;
    ovx_state *st = s->st;
    char buf[64];
    long n;
    const char *pv = NULL, *key = NULL, *expect = NULL;
    if (!strcmp(k, "threads")) {
        key = st->k.inference_num_threads;
        expect = "an integer from 0 (OpenVINO's default) to 4096";
        if (parse_count(v, 0, 4096, &n) && n == 0)
            return MB_OK;
        if (parse_count(v, 1, 4096, &n))
            pv = (snprintf(buf, sizeof buf, "%ld", n), buf);
    } else if (!strcmp(k, "streams")) {
        key = st->k.num_streams;
        expect = "a stream count from 1 to 4096, or AUTO";
        if (!strcmp(v, "AUTO") || !strcmp(v, "auto"))
            pv = "AUTO";
        else if (parse_count(v, 1, 4096, &n))
            pv = (snprintf(buf, sizeof buf, "%ld", n), buf);
    } else if (!strcmp(k, "hint")) {
        key = st->k.hint_performance_mode;
        expect = "latency, throughput, cumulative_throughput or none";
        if (!strcmp(v, "none")) {
            drop_prop(s, key);
            return MB_OK;
        }
        pv = pick(v, "latency|throughput|cumulative_throughput",
                  "LATENCY|THROUGHPUT|CUMULATIVE_THROUGHPUT", buf, sizeof buf);
    } else if (!strcmp(k, "precision")) {
        key = st->k.hint_inference_precision;
        expect = "f32, bf16 or f16 (float32, bfloat16, float16)";
        pv = pick(v, "f32|float32|bf16|bfloat16|f16|float16",
                  "f32|f32|bf16|bf16|f16|f16", buf, sizeof buf);
    } else if (!strcmp(k, "pinning")) {
        key = st->k.hint_enable_cpu_pinning;
        expect = "0 or 1";
        pv = pick(v, "0|1", "NO|YES", buf, sizeof buf);
    } else if (!strcmp(k, "exec-mode")) {
        key = st->k.hint_execution_mode;
        expect = "performance or accuracy";
        pv = pick(v, "performance|accuracy", "PERFORMANCE|ACCURACY", buf,
                  sizeof buf);
    } else {
        return mb_plugin_fail(
            err, MB_EINVAL,
            "unknown openvino backend option '%s'; the options are "
            "threads, streams, hint, precision, pinning, exec-mode, "
            "device, shapes, cache-dir, profile",
            k);
    }
    if (!pv)
        return mb_plugin_fail(err, MB_EINVAL, "invalid %s '%s': expected %s", k,
                              v, expect);
    if (!key)
        return mb_plugin_fail(err, MB_EUNSUPPORTED,
                              "this OpenVINO (%s) has no property for %s",
                              st->version, k);
    if (!add_prop(s, key, pv))
        return mb_plugin_fail(err, MB_EINVAL, "too many openvino options");
    return MB_OK;
}

/* ---- inputs and outputs ------------------------------------------------- */

/* Describes port p into *io: its name, dtype and (partial) shape. */
static int describe_port(ovx_session *s, ov_output_const_port_t *p,
                         size_t index, const char *kind, ovx_io *io,
                         int *dynamic, mb_err *err)
{
    ovx_state *st = s->st;
    char why[1024], *nm = NULL;
    ov_element_type_e t = 0;
    ov_partial_shape_t ps = {{0, 0}, NULL};
    ov_status_e e = st->f.ov_port_get_any_name(p, &nm);
    if (!e) {
        io->name = strdup(nm);
        st->f.ov_free(nm);
    } else {
        char gen[32];
        snprintf(gen, sizeof gen, "%s%zu", kind, index);
        io->name = strdup(gen);
    }
    if (!io->name)
        return mb_plugin_fail(err, MB_ENOMEM, "out of memory");
    if ((e = st->f.ov_port_get_element_type(p, &t)) ||
        (e = st->f.ov_port_get_partial_shape(p, &ps)))
        return mb_plugin_fail(err, MB_EMODEL, "%s: %s '%s': %s", s->path, kind,
                              io->name, reason(st, e, why, sizeof why));
    io->d.dtype = from_ov(st, t);
    io->d.rank =
        ps.rank.min == ps.rank.max && ps.rank.min >= 0 ? (int)ps.rank.min : -1;
    if (io->d.rank > MB_MAX_RANK)
        io->d.rank = -1;
    for (int i = 0; i < io->d.rank; i++) {
        ov_dimension_t d = ps.dims[i];
        io->d.dims[i] = d.min == d.max ? d.min : -1;
        *dynamic |= d.min != d.max;
    }
    *dynamic |= io->d.rank < 0;
    for (int i = 0; i < MB_MAX_RANK; i++)
        io->d.dim_names[i] = "";
    st->f.ov_partial_shape_free(&ps);
    if (io->d.dtype == MB_DTYPE_UNDEFINED && !strcmp(kind, "input"))
        return mb_plugin_fail(
            err, MB_EUNSUPPORTED,
            "%s: input '%s' has an element type (%d) mbench cannot "
            "feed",
            s->path, io->name, t);
    return MB_OK;
}

static int describe_model(ovx_session *s, mb_err *err)
{
    ovx_state *st = s->st;
    char why[1024];
    ov_status_e e;
    if ((e = st->f.ov_model_inputs_size(s->model, &s->n_in)) ||
        (e = st->f.ov_model_outputs_size(s->model, &s->n_out)))
        return mb_plugin_fail(err, MB_EMODEL, "%s: %s", s->path,
                              reason(st, e, why, sizeof why));
    size_t nin = s->n_in ? s->n_in : 1, nout = s->n_out ? s->n_out : 1;
    s->in = calloc(nin, sizeof *s->in);
    s->out = calloc(nout, sizeof *s->out);
    s->in_desc = calloc(nin, sizeof *s->in_desc);
    s->out_desc = calloc(nout, sizeof *s->out_desc);
    s->bound = calloc(nin, sizeof *s->bound);
    s->shape = calloc(nin, sizeof *s->shape);
    s->rank = calloc(nin, sizeof *s->rank);
    if (!s->in || !s->out || !s->in_desc || !s->out_desc || !s->bound ||
        !s->shape || !s->rank)
        return mb_plugin_fail(err, MB_ENOMEM, "out of memory");
    for (size_t i = 0; i < s->n_in + s->n_out; i++) {
        int is_in = i < s->n_in;
        size_t k = is_in ? i : i - s->n_in;
        ov_output_const_port_t *p = NULL;
        e = is_in ? st->f.ov_model_const_input_by_index(s->model, k, &p)
                  : st->f.ov_model_const_output_by_index(s->model, k, &p);
        if (e)
            return mb_plugin_fail(err, MB_EMODEL, "%s: %s", s->path,
                                  reason(st, e, why, sizeof why));
        int dyn = 0;
        ovx_io *io = is_in ? &s->in[k] : &s->out[k];
        int rc =
            describe_port(s, p, k, is_in ? "input" : "output", io, &dyn, err);
        st->f.ov_output_const_port_free(p);
        if (rc)
            return rc;
        io->d.name = io->name;
        if (is_in) {
            s->dynamic_model |= dyn;
            s->in_desc[k] = io->d;
            s->rank[k] = -1;
        } else {
            s->out_desc[k] = io->d;
        }
    }
    return MB_OK;
}

/* ---- compiling -------------------------------------------------------------
 */

static void drop_compiled(ovx_session *s)
{
    if (s->req)
        s->st->f.ov_infer_request_free(s->req);
    if (s->compiled)
        s->st->f.ov_compiled_model_free(s->compiled);
    s->req = NULL;
    s->compiled = NULL;
}

static void prof_clear(ovx_session *s);

/* Compiles the model as it is now (shapes included) and creates the
 * infer request; times it into compile_ns. */
static int compile(ovx_session *s, mb_err *err)
{
    ovx_state *st = s->st;
    prof_clear(s); /* a new compiled model counts from zero */
    drop_compiled(s);
    const char *a[2 * (MAX_PROPS + 1)] = {0};
    size_t na = 0;
    for (size_t i = 0; i < s->np; i++)
        if (s->pk[i]) {
            a[na++] = s->pk[i];
            a[na++] = s->pv[i];
        }
    if (s->cache_dir[0]) {
        a[na++] = st->k.cache_dir;
        a[na++] = s->cache_dir;
    }
    char why[1024];
    int64_t t0 = now_ns();
    /* The callee reads na of the variadic arguments; the rest are unused. */
    ov_status_e e = st->f.ov_core_compile_model(
        st->core, s->model, s->device, na, &s->compiled, a[0], a[1], a[2], a[3],
        a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14],
        a[15], a[16], a[17]);
    if (!e)
        e = st->f.ov_compiled_model_create_infer_request(s->compiled, &s->req);
    s->compile_ns = now_ns() - t0;
    s->compiles++;
    if (e) {
        drop_compiled(s);
        return mb_plugin_fail(
            err, MB_EMODEL, "%s: OpenVINO cannot compile it for %s: %s",
            s->path, s->device, reason(st, e, why, sizeof why));
    }
    return MB_OK;
}

/* The output shapes after a reshape (static now), rewritten in place:
 * the runner holds the descriptions describe() gave it. */
static void refresh_outputs(ovx_session *s)
{
    ovx_state *st = s->st;
    for (size_t k = 0; k < s->n_out; k++) {
        ov_output_const_port_t *p = NULL;
        ov_partial_shape_t ps = {{0, 0}, NULL};
        if (st->f.ov_model_const_output_by_index(s->model, k, &p))
            continue;
        if (!st->f.ov_port_get_partial_shape(p, &ps)) {
            if (ps.rank.min == ps.rank.max && ps.rank.min >= 0 &&
                ps.rank.min <= MB_MAX_RANK) {
                s->out[k].d.rank = (int)ps.rank.min;
                for (int i = 0; i < s->out[k].d.rank; i++)
                    s->out[k].d.dims[i] =
                        ps.dims[i].min == ps.dims[i].max ? ps.dims[i].min : -1;
                s->out_desc[k] = s->out[k].d;
            }
            st->f.ov_partial_shape_free(&ps);
        }
        st->f.ov_output_const_port_free(p);
    }
}

/* Reshapes the model to the inputs' shapes when they differ from what was
 * compiled (shapes=static) and compiles; nothing when they match. */
static int fit_shapes(ovx_session *s, const mb_tensor *inputs, mb_err *err)
{
    int same = s->compiled != NULL;
    for (size_t i = 0; same && i < s->n_in; i++) {
        same = s->rank[i] == inputs[i].rank;
        for (int a = 0; same && a < inputs[i].rank; a++)
            same = s->shape[i][a] == inputs[i].dims[a];
    }
    if (same || (s->compiled && s->dynamic_mode))
        return MB_OK;
    if (s->owner)
        return mb_plugin_fail(
            err, MB_EINVAL,
            "a shared openvino session runs the shapes its session "
            "was compiled for; give every thread the same batch, or "
            "use --sessions (one per thread)");
    ovx_state *st = s->st;
    char why[1024];
    if (s->dynamic_model && !s->dynamic_mode) {
        size_t *idx = calloc(s->n_in, sizeof *idx);
        ov_partial_shape_t *ps = calloc(s->n_in, sizeof *ps);
        ov_status_e e = idx && ps ? 0 : -1;
        size_t made = 0;
        for (; !e && made < s->n_in; made++) {
            idx[made] = made;
            e = st->f.ov_partial_shape_create_static(
                inputs[made].rank, inputs[made].dims, &ps[made]);
        }
        if (!e)
            e = st->f.ov_model_reshape_by_port_indexes(s->model, idx, ps,
                                                       s->n_in);
        for (size_t i = 0; ps && i < made; i++)
            st->f.ov_partial_shape_free(&ps[i]);
        free(idx);
        free(ps);
        if (e)
            return mb_plugin_fail(
                err, MB_EDATA,
                "%s: OpenVINO cannot reshape the model to the "
                "inputs' shapes: %s",
                s->path, reason(st, e, why, sizeof why));
        refresh_outputs(s);
    }
    int rc = compile(s, err);
    if (rc)
        return rc;
    for (size_t i = 0; i < s->n_in; i++) {
        s->rank[i] = inputs[i].rank;
        memcpy(s->shape[i], inputs[i].dims, sizeof s->shape[i]);
    }
    return MB_OK;
}

/* ---- the session -----------------------------------------------------------
 */

static void ov_close(void *session);

static int ov_open(void *state, const char *path, const mb_kv *opts,
                   size_t n_opts, void **out, mb_err *err)
{
    ovx_state *st = state;
    *out = NULL;
    ovx_session *s = calloc(1, sizeof *s);
    if (!s || !(s->path = strdup(path))) {
        free(s);
        return mb_plugin_fail(err, MB_ENOMEM, "out of memory");
    }
    s->st = st;
    snprintf(s->device, sizeof s->device, "CPU");
    /* mbench times one request at a time: the latency hint by default,
     * as benchmark_app -hint latency */
    add_prop(s, st->k.hint_performance_mode, "LATENCY");
    int rc = MB_OK;
    for (size_t i = 0; !rc && i < n_opts; i++)
        rc = apply_option(s, opts[i].key, opts[i].value, err);
    char why[1024];
    /* A file no frontend takes is offered to each of them, and the
     * TensorFlow one logs its parse errors to stderr: silenced unless
     * --verbose (OpenVINO's own message is the error). */
    int saved = st->verbose ? -1 : dup(2), devnull = -1;
    if (saved >= 0 && (devnull = open("/dev/null", O_WRONLY)) >= 0)
        dup2(devnull, 2);
    int64_t t0 = now_ns();
    ov_status_e e =
        rc ? 0 : st->f.ov_core_read_model(st->core, path, NULL, &s->model);
    s->read_ns = now_ns() - t0;
    if (saved >= 0) {
        dup2(saved, 2);
        close(saved);
    }
    if (devnull >= 0)
        close(devnull);
    if (!rc && e)
        rc = mb_plugin_fail(
            err, MB_EMODEL,
            "%s: OpenVINO cannot read it (%s); give an ONNX file or "
            "an OpenVINO IR .xml with its .bin beside it",
            path, reason(st, e, why, sizeof why));
    if (!rc)
        rc = describe_model(s, err);
    /* A static model compiles now (session creation); a dynamic one for
     * the first batch's shapes in prepare(), unless shapes=dynamic. */
    if (!rc && (!s->dynamic_model || s->dynamic_mode)) {
        rc = compile(s, err);
        for (size_t i = 0; !rc && i < s->n_in; i++) {
            s->rank[i] = s->in[i].d.rank;
            memcpy(s->shape[i], s->in[i].d.dims, sizeof s->shape[i]);
        }
    }
    if (rc) {
        ov_close(s);
        return rc;
    }
    s->t_origin = now_ns();
    *out = s;
    return MB_OK;
}

static int ov_describe(void *session, const mb_io_desc **in, size_t *n_in,
                       const mb_io_desc **out, size_t *n_out, mb_err *err)
{
    (void)err;
    ovx_session *s = session;
    *in = s->in_desc;
    *n_in = s->n_in;
    *out = s->out_desc;
    *n_out = s->n_out;
    return MB_OK;
}

static void unbind(ovx_session *s)
{
    for (size_t i = 0; s->bound && i < s->n_in; i++) {
        if (s->bound[i])
            s->st->f.ov_tensor_free(s->bound[i]);
        s->bound[i] = NULL;
    }
}

static int ov_prepare(void *session, const mb_tensor *inputs, size_t n,
                      mb_err *err)
{
    ovx_session *s = session;
    ovx_state *st = s->st;
    if (n != s->n_in)
        return mb_plugin_fail(
            err, MB_EDATA, "the model takes %zu inputs, got %zu", s->n_in, n);
    for (size_t i = 0; i < n; i++)
        if (inputs[i].dtype != s->in[i].d.dtype)
            return mb_plugin_fail(
                err, MB_EDATA, "input '%s' is %s in the model, the data is %s",
                s->in[i].name, dtype_name(s->in[i].d.dtype),
                dtype_name(inputs[i].dtype));
    int rc = fit_shapes(s, inputs, err);
    if (rc)
        return rc;
    unbind(s);
    char why[1024];
    for (size_t i = 0; i < n; i++) {
        ov_element_type_e t = 0;
        ov_shape_t sh;
        to_ov(st, inputs[i].dtype, &t);
        ov_status_e e =
            st->f.ov_shape_create(inputs[i].rank, inputs[i].dims, &sh);
        if (!e) {
            /* borrowed until the next prepare or close, as the
             * interface promises: no copy */
            e = st->f.ov_tensor_create_from_host_ptr(t, sh, inputs[i].data,
                                                     &s->bound[i]);
            st->f.ov_shape_free(&sh);
        }
        if (!e)
            e = st->f.ov_infer_request_set_input_tensor_by_index(s->req, i,
                                                                 s->bound[i]);
        if (e)
            return mb_plugin_fail(err, MB_EDATA, "input '%s': %s",
                                  s->in[i].name,
                                  reason(st, e, why, sizeof why));
    }
    return MB_OK;
}

/* ---- profiling -------------------------------------------------------------
 */

static void tb_printf(tbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void tb_printf(tbuf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = b->cap - b->n;
        int k = vsnprintf(b->s ? b->s + b->n : NULL, room, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->oom = 1;
            return;
        }
        if ((size_t)k < room) {
            b->n += (size_t)k;
            return;
        }
        size_t cap = (b->cap ? b->cap * 2 : 65536) + (size_t)k;
        char *p = realloc(b->s, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->s = p;
        b->cap = cap;
    }
}

/* A JSON string of s (names are layer names: quote and escape them). */
static void tb_str(tbuf *b, const char *s)
{
    tb_printf(b, "\"");
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            tb_printf(b, "\\%c", c);
        else if (c < 0x20)
            tb_printf(b, "\\u%04x", c);
        else
            tb_printf(b, "%c", c);
    }
    tb_printf(b, "\"");
}

/* Profiling.  OpenVINO's CPU counters are not each inference's times but
 * each node's running mean since compilation, in whole microseconds.  The
 * plugin keeps every inference's start and duration, the counters after
 * the first (cold) inference, and reads them again on close: a node's time
 * in inferences 2..N is then (N * mean_N - mean_1) / (N - 1), exact to
 * about a microsecond over the whole window, where differencing two
 * consecutive running means would carry an error of N microseconds.  The
 * trace gives every inference after the first that mean, laid end to end
 * from the inference's start in OpenVINO's order (the counters say how
 * long, not when): docs/FRAMEWORKS.md. */
static void record_run(ovx_session *s, int64_t t0, int64_t t1)
{
    prof *p = &s->prof;
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 1024;
        int64_t *a = realloc(p->at, 2 * cap * sizeof *a);
        if (!a) {
            p->oom = 1;
            return;
        }
        p->at = a;
        p->cap = cap;
    }
    p->at[2 * p->n] = t0 - s->t_origin;
    p->at[2 * p->n + 1] = t1 - t0;
    p->n++;
    if (p->n == 1 &&
        s->st->f.ov_infer_request_get_profiling_info(s->req, &p->first))
        p->first.size = 0, p->first.infos = NULL;
}

/* The node's running mean after the first inference, in us (0 when the
 * node was not listed then). */
static double first_mean(const prof *p, const char *name)
{
    for (size_t i = 0; i < p->first.size; i++)
        if (p->first.infos[i].node_name && name &&
            !strcmp(p->first.infos[i].node_name, name))
            return (double)p->first.infos[i].real_time;
    return 0;
}

/* One model_run event and its node events; `mean` selects the mean over
 * inferences 2..N (else the first inference's own counters). */
static void trace_run(ovx_session *s, tbuf *t, size_t k,
                      const ov_profiling_info_list_t *last)
{
    const prof *p = &s->prof;
    double ts = (double)p->at[2 * k] / 1e3,
           dur = (double)p->at[2 * k + 1] / 1e3;
    double N = (double)p->n;
    tb_printf(t,
              "%s{\"cat\":\"Session\",\"name\":\"model_run\",\"ph\":\"X\","
              "\"pid\":%d,\"tid\":0,\"ts\":%.3f,\"dur\":%.3f}",
              k ? ",\n" : "[\n", (int)getpid(), ts, dur);
    const ov_profiling_info_list_t *l = k == 0 ? &p->first : last;
    double at = ts;
    for (size_t i = 0; i < l->size; i++) {
        const ov_profiling_info_t *q = &l->infos[i];
        if (q->status != OVX_NODE_EXECUTED)
            continue;
        double d = (double)q->real_time;
        if (k > 0) {
            d = (N * d - first_mean(p, q->node_name)) / (N - 1);
            d = d > 0 ? d : 0;
        }
        double start = at < ts + dur ? at : ts + dur;
        char nm[1024];
        snprintf(nm, sizeof nm, "%s_kernel_time",
                 q->node_name ? q->node_name : "node");
        tb_printf(t, ",\n{\"cat\":\"Node\",\"name\":");
        tb_str(t, nm);
        tb_printf(t,
                  ",\"ph\":\"X\",\"pid\":%d,\"tid\":0,\"ts\":%.3f,"
                  "\"dur\":%.3f,\"args\":{\"op_name\":",
                  (int)getpid(), start, d);
        tb_str(t, q->node_type ? q->node_type : "unknown");
        tb_printf(t, ",\"provider\":");
        tb_str(t, s->device);
        tb_printf(t, ",\"exec_type\":");
        tb_str(t, q->exec_type ? q->exec_type : "");
        tb_printf(t, "}}");
        at += d;
    }
}

static void prof_clear(ovx_session *s)
{
    if (s->prof.first.infos)
        s->st->f.ov_profiling_info_list_free(&s->prof.first);
    free(s->prof.at);
    memset(&s->prof, 0, sizeof s->prof);
}

/* Writes the trace as PREFIX_<pid>.json (ONNX Runtime's naming), from
 * the counters as they are now (before the request is freed). */
static void write_trace(ovx_session *s)
{
    prof *p = &s->prof;
    ov_profiling_info_list_t last = {0};
    if (!s->profile || !p->n || p->oom || !s->req ||
        s->st->f.ov_infer_request_get_profiling_info(s->req, &last))
        return;
    tbuf t = {0};
    for (size_t k = 0; k < p->n; k++)
        trace_run(s, &t, k, &last);
    tb_printf(&t, "\n]\n");
    s->st->f.ov_profiling_info_list_free(&last);
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s_%d.json", s->profile, (int)getpid());
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = t.oom ? NULL : fopen(tmp, "w");
    if (f) {
        int ok = fwrite(t.s, 1, t.n, f) == t.n;
        ok &= fclose(f) == 0;
        if (!ok || rename(tmp, path) != 0)
            unlink(tmp);
    }
    free(t.s);
}

/* ---- running ----------------------------------------------------------------
 */

static int ov_run(void *session, mb_err *err)
{
    ovx_session *s = session;
    if (!s->req)
        return mb_plugin_fail(err, MB_EINVAL, "run before prepare");
    int64_t t0 = s->profile ? now_ns() : 0;
    ov_status_e e = s->st->f.ov_infer_request_infer(s->req);
    if (e) {
        char why[1024];
        return mb_plugin_fail(err, MB_EBACKEND, "%s: inference failed: %s",
                              s->path, reason(s->st, e, why, sizeof why));
    }
    if (s->profile)
        record_run(s, t0, now_ns());
    return MB_OK;
}

static int ov_fetch(void *session, size_t index, mb_tensor *out, mb_err *err)
{
    ovx_session *s = session;
    ovx_state *st = s->st;
    memset(out, 0, sizeof *out);
    if (index >= s->n_out || !s->req)
        return mb_plugin_fail(err, MB_EINVAL,
                              "no output %zu (the model has %zu)", index,
                              s->n_out);
    ov_tensor_t *t = NULL;
    ov_shape_t sh = {0, NULL};
    ov_element_type_e et = 0;
    size_t bytes = 0;
    void *data = NULL;
    char why[1024];
    ov_status_e e =
        st->f.ov_infer_request_get_output_tensor_by_index(s->req, index, &t);
    if (!e)
        e = st->f.ov_tensor_get_shape(t, &sh);
    if (!e)
        e = st->f.ov_tensor_get_element_type(t, &et);
    if (!e)
        e = st->f.ov_tensor_get_byte_size(t, &bytes);
    if (!e)
        e = st->f.ov_tensor_data(t, &data);
    int rc = MB_OK;
    mb_dtype dt = e ? MB_DTYPE_UNDEFINED : from_ov(st, et);
    if (e)
        rc = mb_plugin_fail(err, MB_EBACKEND, "output %zu: %s", index,
                            reason(st, e, why, sizeof why));
    else if (dt == MB_DTYPE_UNDEFINED || sh.rank > MB_MAX_RANK)
        rc = mb_plugin_fail(
            err, MB_EUNSUPPORTED,
            "output '%s' has an element type (%d) or rank (%lld) "
            "mbench cannot hold",
            s->out[index].name, et, (long long)sh.rank);
    if (!rc) {
        out->data = malloc(bytes ? bytes : 1);
        out->name = strdup(s->out[index].name);
        if (!out->data || !out->name) {
            free(out->data);
            free(out->name);
            memset(out, 0, sizeof *out);
            rc = mb_plugin_fail(err, MB_ENOMEM, "out of memory");
        } else {
            memcpy(out->data, data, bytes);
            out->nbytes = bytes;
            out->dtype = dt;
            out->rank = (int)sh.rank;
            for (int a = 0; a < out->rank; a++)
                out->dims[a] = sh.dims[a];
        }
    }
    if (sh.dims)
        st->f.ov_shape_free(&sh);
    if (t)
        st->f.ov_tensor_free(t);
    return rc;
}

/* ---- parameters of an IR ----------------------------------------------------
 */

static void emit_ir_params(const char *path, mb_info_fn emit, void *user)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    rewind(f);
    size_t want =
        size > 0 && (size_t)size < IR_XML_MAX ? (size_t)size : IR_XML_MAX;
    char *x = size > 0 ? malloc(want) : NULL;
    size_t len = x ? fread(x, 1, want, f) : 0;
    fclose(f);
    mb_ov_ir_count c[16];
    size_t nc = x ? mb_ov_ir_consts(x, len, c, 16) : 0;
    free(x);
    unsigned long long n = 0, b = 0;
    char k[64], v[64];
    for (size_t i = 0; i < nc; i++) {
        n += c[i].count;
        b += c[i].bytes;
        snprintf(k, sizeof k, "params_by_dtype:%s", mb_ov_ir_dtype(c[i].type));
        snprintf(v, sizeof v, "%llu %llu", c[i].count, c[i].bytes);
        emit(user, k, v);
    }
    snprintf(v, sizeof v, "%llu", n);
    emit(user, "params", v);
    snprintf(v, sizeof v, "%llu", b);
    emit(user, "param_bytes", v);
}

/* A compiled-model property as a fact (what OpenVINO chose: threads,
 * streams, precision). */
static void emit_prop(ovx_session *s, mb_info_fn emit, void *user,
                      const char *fact, const char *key)
{
    char *v = NULL;
    if (!key || !s->compiled ||
        s->st->f.ov_compiled_model_get_property(s->compiled, key, &v))
        return;
    emit(user, fact, v ? v : "");
    s->st->f.ov_free(v);
}

static void ov_model_info(void *session, mb_info_fn emit, void *user)
{
    ovx_session *s = session;
    size_t L = strlen(s->path);
    int ir = L > 4 && !strcmp(s->path + L - 4, ".xml");
    emit(user, "format", ir ? "OpenVINO IR" : "ONNX");
    if (ir)
        emit_ir_params(s->path, emit, user);
    emit(user, "device", s->device);
    emit(user, "shapes",
         s->dynamic_model ? (s->dynamic_mode ? "dynamic"
                                             : "static (compiled for "
                                               "each batch's shapes)")
                          : "static (the model's)");
    char num[32];
    snprintf(num, sizeof num, "%lld", (long long)s->read_ns);
    emit(user, "phase:read_model_ns", num);
    if (s->compiles) {
        snprintf(num, sizeof num, "%lld", (long long)s->compile_ns);
        emit(user, "phase:compile_ns", num);
    }
    ovx_state *st = s->st;
    emit_prop(s, emit, user, "session:inference_precision",
              st->k.hint_inference_precision);
    emit_prop(s, emit, user, "session:performance_hint",
              st->k.hint_performance_mode);
    emit_prop(s, emit, user, "session:num_streams", st->k.num_streams);
    emit_prop(s, emit, user, "session:inference_num_threads",
              st->k.inference_num_threads);
    emit_prop(s, emit, user, "session:execution_mode",
              st->k.hint_execution_mode);
    emit_prop(s, emit, user, "session:cpu_pinning",
              st->k.hint_enable_cpu_pinning);
}

/* A second infer request on the same compiled model, for another thread
 * (mbench load): OpenVINO runs requests of one compiled model at the same
 * time, on its streams.  The twin borrows the model, the compiled model and
 * the descriptions; it has its own request and bound inputs, and runs the
 * shapes the session was compiled for. */
static int ov_share(void *session, void **out, mb_err *err)
{
    ovx_session *o = session, *t = NULL;
    *out = NULL;
    if (!o->compiled)
        return mb_plugin_fail(
            err, MB_EINVAL,
            "share an openvino session after its first prepare "
            "(it is compiled for the batch's shapes then)");
    t = calloc(1, sizeof *t);
    if (t) {
        *t = (ovx_session){0};
        t->st = o->st;
        t->owner = o;
        t->compiled = o->compiled;
        t->in = o->in;
        t->out = o->out;
        t->n_in = o->n_in;
        t->n_out = o->n_out;
        t->in_desc = o->in_desc;
        t->out_desc = o->out_desc;
        t->path = o->path;
        t->dynamic_model = o->dynamic_model;
        t->dynamic_mode = o->dynamic_mode;
        memcpy(t->device, o->device, sizeof t->device);
        size_t n = o->n_in ? o->n_in : 1;
        t->bound = calloc(n, sizeof *t->bound);
        t->shape = calloc(n, sizeof *t->shape);
        t->rank = calloc(n, sizeof *t->rank);
    }
    if (!t || !t->bound || !t->shape || !t->rank) {
        if (t) {
            free(t->bound);
            free(t->shape);
            free(t->rank);
        }
        free(t);
        return mb_plugin_fail(err, MB_ENOMEM, "out of memory");
    }
    memcpy(t->shape, o->shape, o->n_in * sizeof *t->shape);
    memcpy(t->rank, o->rank, o->n_in * sizeof *t->rank);
    char why[1024];
    ov_status_e e =
        o->st->f.ov_compiled_model_create_infer_request(o->compiled, &t->req);
    if (e) {
        free(t->bound);
        free(t->shape);
        free(t->rank);
        free(t);
        return mb_plugin_fail(err, MB_EBACKEND,
                              "%s: a second infer request: %s", o->path,
                              reason(o->st, e, why, sizeof why));
    }
    *out = t;
    return MB_OK;
}

static void ov_close(void *session)
{
    ovx_session *s = session;
    if (!s)
        return;
    if (s->owner) { /* a twin: only its own request and inputs */
        unbind(s);
        s->st->f.ov_infer_request_free(s->req);
        free(s->bound);
        free(s->shape);
        free(s->rank);
        free(s);
        return;
    }
    write_trace(s);
    prof_clear(s);
    unbind(s);
    drop_compiled(s);
    if (s->model)
        s->st->f.ov_model_free(s->model);
    for (size_t i = 0; s->in && i < s->n_in; i++)
        free(s->in[i].name);
    for (size_t i = 0; s->out && i < s->n_out; i++)
        free(s->out[i].name);
    free(s->in);
    free(s->out);
    free(s->in_desc);
    free(s->out_desc);
    free(s->bound);
    free(s->shape);
    free(s->rank);
    free(s->profile);
    free(s->path);
    free(s);
}

static const mb_backend kBackend = {
    .abi_version = MB_BACKEND_ABI_VERSION,
    .struct_size = sizeof(mb_backend),
    .name = "openvino",
    .load = ov_load,
    .info = ov_info,
    .open = ov_open,
    .describe = ov_describe,
    .prepare = ov_prepare,
    .run = ov_run,
    .fetch = ov_fetch,
    .close = ov_close,
    .unload = ov_unload,
    .share = ov_share,
    .caps = MB_BACKEND_CAP_MODEL_FILE,
    .options = kOptions,
    .model_info = ov_model_info,
};

__attribute__((visibility("default"))) const mb_backend *mb_backend_entry(void);

__attribute__((visibility("default"))) const mb_backend *mb_backend_entry(void)
{
    return &kBackend;
}
