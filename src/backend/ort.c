/*
 * ort.c - the ONNX Runtime backend, through the C API loaded with dlopen.
 *
 * Library lookup order (docs/BACKENDS.md): the configured path (--ort-lib),
 * $MBENCH_ORT_LIB, the installed copy beside libmbench (installed_ort), the
 * path the build fetched (build/ort), then the system's
 * libonnxruntime.so.1.  The runtime's own log lines go to the
 * configured log sink only when verbose; otherwise they are dropped, and the
 * last error-level line is kept to explain a failure.
 *
 * Options (strings, validated in open):
 *   threads=N  inter-threads=N  execution-mode=sequential|parallel
 *   opt-level=disable|basic|extended|layout|all  ep=cpu|cuda|<name>
 *   device-id=N  arena=0|1  save-optimized=PATH  profile=PREFIX
 *   config:KEY=VALUE (session config entry)  dim:NAME=N (free dim override)
 */
#include "mbench_backend.h"

#include "backend/ort_abi.h"
#include "build_info.h"
#include "core/alloc.h"
#include "core/err.h"
#include "core/fileio.h"
#include "model/onnx.h"

#include <stdbool.h>
#include <dlfcn.h>
#include <jansson.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct ort_state {
    void *dl;
    ort_api api;
    const ort_api_base *base;
    uint32_t api_version;
    OrtEnv *env;
    OrtMemoryInfo *cpu_mem;
    OrtAllocator *alloc;
    char *path;
    char *providers; /* comma list, as the library lists them */
    char *usable;    /* the listed ones that are not known to fail */
    char *unusable;  /* "Name (why); ..." for those that cannot load */
    mb_log_fn log;
    void *log_user;
    int verbose;
    char last_error[512];
} ort_state;

typedef struct ort_session {
    ort_state *st;
    OrtSession *sess;
    mb_io_desc *in, *out;
    size_t n_in, n_out;
    char **in_names, **out_names; /* ORT-allocated, freed with AllocatorFree */
    char **owned;                 /* our copies of symbolic dim names */
    size_t n_owned, owned_cap;
    OrtValue **in_vals;
    OrtValue **out_vals;
    int have_outputs;
    char *ep;
    /* A twin made by ort_share: borrows parent's OrtSession, names and
     * descriptions; owns only its input and output values. */
    const struct ort_session *parent;
} ort_session;

/* Copies an ONNX Runtime message as one line, without the source-file
 * prefix ("/path/x.cc:12 fn [ONNXRuntimeError] : 1 : FAIL : text"). */
static void clean_message(const char *m, char *out, size_t len)
{
    if (!m || !*m)
        m = "unknown ONNX Runtime error";
    const char *tag = strstr(m, "[ONNXRuntimeError] : ");
    if (tag) {
        const char *p = tag + 21;
        for (int k = 0; k < 2 && p; k++) { /* skip "code : NAME : " */
            const char *q = strstr(p, " : ");
            p = q ? q + 3 : NULL;
        }
        if (p)
            m = p;
    }
    size_t n = 0;
    for (; *m && n + 1 < len; m++)
        out[n++] = (*m == '\n' || *m == '\r' || *m == '\t') ? ' ' : *m;
    while (n > 0 && out[n - 1] == ' ')
        n--;
    out[n] = '\0';
}

/* Reads a status: 0 for NULL (success); otherwise fills err, frees it. */
static mb_status check(ort_state *st, OrtStatus *s, mb_err *err, mb_status code,
                       const char *what)
{
    if (!s)
        return MB_OK;
    char m[768];
    clean_message(st->api.GetErrorMessage(s), m, sizeof m);
    mb__fail(err, code, "%s: %s", what, m);
    st->api.ReleaseStatus(s);
    return code;
}

static void logger(void *param, int severity, const char *category,
                   const char *logid, const char *code_location,
                   const char *message)
{
    (void)logid;
    (void)code_location;
    ort_state *st = param;
    if (severity >= ORT_LOG_ERROR && message)
        snprintf(st->last_error, sizeof st->last_error, "%s", message);
    if (st->verbose && st->log) {
        char line[1024];
        snprintf(line, sizeof line, "onnxruntime [%s] %s",
                 category ? category : "", message ? message : "");
        st->log(st->log_user, severity, line);
    }
}

static int try_open(const char *path, void **dl, char *why, size_t whylen)
{
    *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!*dl) {
        const char *e = dlerror();
        snprintf(why, whylen, "%s", e ? e : "dlopen failed");
        return 0;
    }
    return 1;
}

/* Providers that ONNX Runtime builds as a library of their own, loaded at
 * session creation from the directory of libonnxruntime together with
 * libonnxruntime_providers_shared.so.  A library that lists one of them
 * without the file beside it cannot use it (the usual case for the
 * GPU-enabled Linux packages copied without their provider libraries). */
static const struct {
    const char *name, *file;
} SHARED_EPS[] = {
    {"CUDAExecutionProvider", "libonnxruntime_providers_cuda.so"},
    {"TensorrtExecutionProvider", "libonnxruntime_providers_tensorrt.so"},
    {"NvTensorRTRTXExecutionProvider",
     "libonnxruntime_providers_nv_tensorrt_rtx.so"},
    {"OpenVINOExecutionProvider", "libonnxruntime_providers_openvino.so"},
    {"DnnlExecutionProvider", "libonnxruntime_providers_dnnl.so"},
    {"ROCMExecutionProvider", "libonnxruntime_providers_rocm.so"},
    {"MIGraphXExecutionProvider", "libonnxruntime_providers_migraphx.so"},
    {"CANNExecutionProvider", "libonnxruntime_providers_cann.so"},
    {"VitisAIExecutionProvider", "libonnxruntime_providers_vitisai.so"},
};

/* 1 when dir/file exists. */
static int file_beside(const char *dir, const char *file)
{
    char p[4096];
    if (snprintf(p, sizeof p, "%s/%s", dir, file) >= (int)sizeof p)
        return 0;
    return access(p, F_OK) == 0;
}

static void append_list(char **list, const char *sep, const char *item)
{
    size_t a = *list ? strlen(*list) : 0, b = strlen(item);
    char *n = mb__realloc_array(*list, a + strlen(sep) + b + 1, 1);
    if (!n)
        return;
    if (a)
        strcpy(n + a, sep), a += strlen(sep);
    strcpy(n + a, item);
    *list = n;
}

/* Splits the listed providers into usable ones and those whose provider
 * library is missing (st->usable, st->unusable). */
static void sort_providers(ort_state *st, char **provs, int np)
{
    char dir[4096] = ".";
    Dl_info di;
    void *sym = dlsym(st->dl, "OrtGetApiBase");
    if (sym && dladdr(sym, &di) && di.dli_fname) {
        snprintf(dir, sizeof dir, "%s", di.dli_fname);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = '\0';
        else
            snprintf(dir, sizeof dir, ".");
    }
    st->usable = mb__strdup("");
    for (int i = 0; i < np; i++) {
        const char *missing = NULL;
        for (size_t k = 0; k < sizeof SHARED_EPS / sizeof *SHARED_EPS; k++)
            if (strcmp(provs[i], SHARED_EPS[k].name) == 0) {
                if (!file_beside(dir, "libonnxruntime_providers_shared.so"))
                    missing = "libonnxruntime_providers_shared.so";
                else if (!file_beside(dir, SHARED_EPS[k].file))
                    missing = SHARED_EPS[k].file;
            }
        if (!missing) {
            if (st->usable && *st->usable)
                append_list(&st->usable, ",", provs[i]);
            else
                append_list(&st->usable, "", provs[i]);
            continue;
        }
        char why[4096 + 512];
        snprintf(why, sizeof why, "%s (%s is not in %s)", provs[i], missing,
                 dir);
        append_list(&st->unusable, "; ", why);
    }
}

/* The copy `make install` put in <libdir>/mbench, found from where this
 * code is loaded from (dladdr on a symbol of libmbench): libmbench.so in
 * <libdir> -> <libdir>/mbench/libonnxruntime.so.1; libmbench linked into a
 * program (the mbench binary, or a static link) in <prefix>/bin ->
 * <prefix>/lib/mbench/libonnxruntime.so.1.  For the main program dladdr
 * names only argv[0], so its file is read from /proc/self/exe.  1 with
 * the path in buf when that file exists. */
static const char ort_anchor = 0;
static int installed_ort(char *buf, size_t len)
{
    Dl_info di;
    struct link_map *lm = NULL;
    char self[4096];
    const char *rel;
    if (!dladdr1(&ort_anchor, &di, (void **)&lm, RTLD_DL_LINKMAP))
        return 0;
    if (lm && lm->l_name && lm->l_name[0]) { /* a shared libmbench */
        if (!realpath(lm->l_name, self))
            return 0;
        rel = "/mbench/libonnxruntime.so.1";
    } else { /* linked into the program */
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n <= 0)
            return 0;
        self[n] = '\0';
        rel = "/../lib/mbench/libonnxruntime.so.1";
    }
    char *slash = strrchr(self, '/');
    if (!slash)
        return 0;
    *slash = '\0';
    if (snprintf(buf, len, "%s%s", self, rel) >= (int)len)
        return 0;
    return access(buf, F_OK) == 0;
}

/* dlopens the first library that loads of: the configured one, else
 * MBENCH_ORT_LIB, the one installed beside mbench, the build's default
 * and the loader's search; first gets the first candidate's name.
 * MB_EBACKEND saying what was tried. */
static mb_status open_library(ort_state *st, const mb_backend_config *cfg,
                              char *first, size_t flen, mb_err *err)
{
    const char *env = getenv("MBENCH_ORT_LIB");
    const char *cands[5];
    size_t nc = 0;
    char installed[4096];
    if (cfg && cfg->library_path)
        cands[nc++] = cfg->library_path;
    else {
        if (env && *env)
            cands[nc++] = env;
        if (installed_ort(installed, sizeof installed))
            cands[nc++] = installed;
        cands[nc++] = MB_ORT_DEFAULT_PATH;
        cands[nc++] = "libonnxruntime.so.1";
    }
    snprintf(first, flen, "%s", cands[0]);
    char tried[1536] = "";
    size_t off = 0;
    for (size_t i = 0; i < nc && !st->dl; i++) {
        char why[512];
        if (try_open(cands[i], &st->dl, why, sizeof why)) {
            st->path = mb__strdup(cands[i]);
        } else if (off < sizeof tried) {
            off += (size_t)snprintf(tried + off, sizeof tried - off, "%s%s",
                                    off ? "; " : "", why);
        }
    }
    if (!st->dl)
        return mb__fail(err, MB_EBACKEND,
                        "cannot load ONNX Runtime (%s); fetch it with "
                        "'make ort' (scripts/fetch-ort.sh) or pass --ort-lib "
                        "PATH / set MBENCH_ORT_LIB",
                        tried);
    return MB_OK;
}

/* The API table of the loaded library: the version of its minor version,
 * capped at the version mbench knows (asking for more prints to stderr).
 * MB_EBACKEND when it is no ONNX Runtime (`lib` names it) or too old. */
static mb_status resolve_api(ort_state *st, const char *lib, mb_err *err)
{
    ort_get_api_base_fn get_base;
    void *sym = dlsym(st->dl, "OrtGetApiBase");
    memcpy(&get_base, &sym, sizeof sym);
    if (!sym || !(st->base = get_base()))
        return mb__fail(err, MB_EBACKEND,
                        "%s is not an ONNX Runtime library (no OrtGetApiBase)",
                        lib);
    const char *ver = st->base->GetVersionString();
    unsigned major = 0, minor = 0;
    if (!ver || sscanf(ver, "%u.%u", &major, &minor) != 2 || major != 1)
        minor = MB_ORT_MAX_API;
    uint32_t want = minor > MB_ORT_MAX_API ? MB_ORT_MAX_API : minor;
    const void *const *tbl = NULL;
    if (want >= MB_ORT_MIN_API)
        tbl = st->base->GetApi(want);
    if (!tbl) {
        char v[64];
        snprintf(v, sizeof v, "%s", ver ? ver : "unknown");
        return mb__fail(err, MB_EBACKEND,
                        "ONNX Runtime %s is too old: mbench needs API version "
                        "%u (ONNX Runtime 1.%u) or newer",
                        v, MB_ORT_MIN_API, MB_ORT_MIN_API);
    }
    st->api_version = want;
#define MB_ORT_RESOLVE(slot, name, ret, params)                                \
    memcpy(&st->api.name, &tbl[slot], sizeof st->api.name);
    MB_ORT_SLOTS(MB_ORT_RESOLVE)
#undef MB_ORT_RESOLVE
    return MB_OK;
}

/* The environment (logging through ours), CPU memory info and default
 * allocator. */
static mb_status create_env(ort_state *st, mb_err *err)
{
    int sev = st->verbose ? ORT_LOG_WARNING : ORT_LOG_ERROR;
    if (check(st,
              st->api.CreateEnvWithCustomLogger(logger, st, sev, "mbench",
                                                &st->env),
              err, MB_EBACKEND, "cannot create the ONNX Runtime environment") ||
        check(st,
              st->api.CreateCpuMemoryInfo(ORT_ALLOC_DEVICE, ORT_MEM_DEFAULT,
                                          &st->cpu_mem),
              err, MB_EBACKEND, "cannot create CPU memory info") ||
        check(st, st->api.GetAllocatorWithDefaultOptions(&st->alloc), err,
              MB_EBACKEND, "cannot get the default allocator"))
        return err ? err->code : MB_EBACKEND;
    return MB_OK;
}

/* The execution providers the library lists, as a comma list and sorted
 * into usable and unusable ones. */
static void list_providers(ort_state *st)
{
    char **provs = NULL;
    int np = 0;
    if (st->api.GetAvailableProviders(&provs, &np))
        return;
    size_t len = 1;
    for (int i = 0; i < np; i++)
        len += strlen(provs[i]) + 1;
    st->providers = mb__calloc(len, 1);
    for (int i = 0; st->providers && i < np; i++) {
        if (i)
            strcat(st->providers, ",");
        strcat(st->providers, provs[i]);
    }
    sort_providers(st, provs, np);
    st->api.ReleaseAvailableProviders(provs, np);
}

static int ort_load(const mb_backend_config *cfg, void **out, mb_err *err)
{
    ort_state *st = mb__calloc(1, sizeof *st);
    if (!st)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    st->log = cfg ? cfg->log : NULL;
    st->log_user = cfg ? cfg->log_user : NULL;
    st->verbose = cfg ? cfg->verbose : 0;
    char first[4096];
    mb_status s = open_library(st, cfg, first, sizeof first, err);
    if (!s)
        s = resolve_api(st, first, err);
    if (!s)
        s = create_env(st, err);
    if (s) {
        if (st->env)
            st->api.ReleaseEnv(st->env);
        if (st->dl)
            dlclose(st->dl);
        free(st->path);
        free(st);
        return s;
    }
    list_providers(st);
    *out = st;
    return MB_OK;
}

static void ort_info(void *state, mb_info_fn emit, void *user)
{
    ort_state *st = state;
    emit(user, "name", "onnxruntime");
    emit(user, "version", st->base->GetVersionString());
    emit(user, "build_info", st->api.GetBuildInfoString());
    /* "providers" holds the ones that can be used; those the library lists
     * but cannot load (no provider library beside it) are apart */
    emit(user, "providers",
         st->usable      ? st->usable
         : st->providers ? st->providers
                         : "");
    emit(user, "providers_listed", st->providers ? st->providers : "");
    emit(user, "providers_unusable", st->unusable ? st->unusable : "");
    emit(user, "library_path", st->path ? st->path : "");
    char v[16];
    snprintf(v, sizeof v, "%u", st->api_version);
    emit(user, "api_version", v);
}

static int provider_compiled(const ort_state *st, const char *name)
{
    if (!st->providers)
        return 0;
    size_t n = strlen(name);
    for (const char *p = st->providers; (p = strcasestr(p, name)); p += n)
        if ((p == st->providers || p[-1] == ',') &&
            strncasecmp(p + n, "ExecutionProvider", 17) == 0)
            return 1;
    return 0;
}

static bool parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* Applies one option to the session options; fills err on failure. */
/* 0 when the runtime took a setting, else MB_EINVAL with its message
 * (what names the setting). */
static int applied(ort_state *st, OrtStatus *s, const char *what, mb_err *err)
{
    return check(st, s, err, MB_EINVAL, what) ? MB_EINVAL : 0;
}

/* opt-level NAME: the graph optimisation level. */
static int apply_opt_level(ort_state *st, OrtSessionOptions *so, const char *k,
                           const char *v, mb_err *err)
{
    static const struct {
        const char *name;
        int level;
    } levels[] = {{"disable", ORT_OPT_DISABLE_ALL},
                  {"basic", ORT_OPT_BASIC},
                  {"extended", ORT_OPT_EXTENDED},
                  {"layout", ORT_OPT_LAYOUT},
                  {"all", ORT_OPT_ALL}};
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++)
        if (strcmp(v, levels[i].name) == 0)
            return applied(
                st,
                st->api.SetSessionGraphOptimizationLevel(so, levels[i].level),
                k, err);
    return mb__fail(err, MB_EINVAL,
                    "invalid opt-level '%s': expected disable, basic, "
                    "extended, layout or all",
                    v);
}

/* threads, inter-threads and execution-mode. */
static int apply_threading(ort_state *st, OrtSessionOptions *so, const char *k,
                           const char *v, mb_err *err)
{
    if (strcmp(k, "execution-mode") == 0) {
        int m;
        if (strcmp(v, "sequential") == 0)
            m = ORT_EXEC_SEQUENTIAL;
        else if (strcmp(v, "parallel") == 0)
            m = ORT_EXEC_PARALLEL;
        else
            return mb__fail(err, MB_EINVAL,
                            "invalid execution-mode '%s': expected "
                            "sequential or parallel",
                            v);
        return applied(st, st->api.SetSessionExecutionMode(so, m), k, err);
    }
    long n;
    if (!parse_int(v, 0, 4096, &n))
        return mb__fail(err, MB_EINVAL,
                        "invalid %s '%s': expected an integer from 0 "
                        "(runtime default) to 4096",
                        k, v);
    OrtStatus *s = k[0] == 't' ? st->api.SetIntraOpNumThreads(so, (int)n)
                               : st->api.SetInterOpNumThreads(so, (int)n);
    return applied(st, s, k, err);
}

static int apply_opt(ort_state *st, OrtSessionOptions *so, const mb_kv *kv,
                     const char **ep, const char **device_id, mb_err *err)
{
    const char *k = kv->key, *v = kv->value;
    long n;
    if (strcmp(k, "threads") == 0 || strcmp(k, "inter-threads") == 0 ||
        strcmp(k, "execution-mode") == 0)
        return apply_threading(st, so, k, v, err);
    if (strcmp(k, "opt-level") == 0)
        return apply_opt_level(st, so, k, v, err);
    if (strcmp(k, "ep") == 0) {
        *ep = v;
        return 0;
    }
    if (strcmp(k, "device-id") == 0) {
        if (!parse_int(v, 0, 1024, &n))
            return mb__fail(err, MB_EINVAL,
                            "invalid device-id '%s': expected 0..1024", v);
        *device_id = v;
        return 0;
    }
    if (strcmp(k, "arena") == 0) {
        if (strcmp(v, "0") == 0)
            return applied(st, st->api.DisableCpuMemArena(so), k, err);
        if (strcmp(v, "1") == 0)
            return 0;
        return mb__fail(err, MB_EINVAL, "invalid arena '%s': expected 0 or 1",
                        v);
    }
    if (strcmp(k, "save-optimized") == 0)
        return applied(st, st->api.SetOptimizedModelFilePath(so, v), k, err);
    if (strcmp(k, "profile") == 0)
        return applied(st, st->api.EnableProfiling(so, v), k, err);
    if (strncmp(k, "config:", 7) == 0)
        return applied(st, st->api.AddSessionConfigEntry(so, k + 7, v),
                       "session config entry", err);
    if (strncmp(k, "dim:", 4) == 0) {
        if (!parse_int(v, 1, 1L << 40, &n))
            return mb__fail(err, MB_EINVAL,
                            "invalid value '%s' for dimension '%s': expected "
                            "a positive integer",
                            v, k + 4);
        return applied(st, st->api.AddFreeDimensionOverrideByName(so, k + 4, n),
                       "dimension override", err);
    }
    return mb__fail(err, MB_EINVAL,
                    "the ort backend has no option '%s' (see docs/BACKENDS.md)",
                    k);
}

static int append_ep(ort_state *st, OrtSessionOptions *so, const char *ep,
                     const char *device_id, mb_err *err)
{
    if (strcasecmp(ep, "cpu") == 0)
        return 0;
    if (strcasecmp(ep, "cuda") == 0) {
        if (!provider_compiled(st, "CUDA"))
            return mb__fail(err, MB_EUNSUPPORTED,
                            "the ONNX Runtime library %s has no CUDA "
                            "provider (it has: %s); use --ep cpu or a CUDA "
                            "build via --ort-lib",
                            st->path, st->providers ? st->providers : "none");
        OrtCUDAProviderOptionsV2 *co = NULL;
        const char *keys[] = {"device_id"};
        const char *vals[] = {device_id ? device_id : "0"};
        OrtStatus *s = st->api.CreateCUDAProviderOptions(&co);
        if (!s)
            s = st->api.UpdateCUDAProviderOptions(co, keys, vals, 1);
        if (!s)
            s = st->api.SessionOptionsAppendExecutionProvider_CUDA_V2(so, co);
        if (co)
            st->api.ReleaseCUDAProviderOptions(co);
        if (s) {
            char m[768];
            clean_message(st->api.GetErrorMessage(s), m, sizeof m);
            st->api.ReleaseStatus(s);
            return mb__fail(err, MB_EUNSUPPORTED,
                            "--ep cuda: %s lists CUDA but cannot load it (%s); "
                            "put libonnxruntime_providers_shared.so and "
                            "libonnxruntime_providers_cuda.so from a CUDA "
                            "build next to it, or use --ep cpu",
                            st->path, m);
        }
        return 0;
    }
    if (!provider_compiled(st, ep))
        return mb__fail(err, MB_EUNSUPPORTED,
                        "the ONNX Runtime library %s cannot provide "
                        "execution provider '%s' (it has: %s); use --ep cpu",
                        st->path, ep, st->providers ? st->providers : "none");
    OrtStatus *s =
        st->api.SessionOptionsAppendExecutionProvider(so, ep, NULL, NULL, 0);
    if (check(st, s, err, MB_EUNSUPPORTED, "execution provider"))
        return mb__fail_prefix(err, "--ep %s", ep) ? MB_EUNSUPPORTED
                                                   : MB_EUNSUPPORTED;
    return 0;
}

/* Releases the n values of v (NULL entries skipped), then v. */
static void release_values(ort_state *st, OrtValue **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        if (v[i])
            st->api.ReleaseValue(v[i]);
    free(v);
}

/* Frees the n ORT-allocated names of names (NULL entries skipped), then
 * names. */
static void free_names(ort_state *st, char **names, size_t n)
{
    for (size_t i = 0; names && i < n; i++)
        if (names[i])
            st->api.AllocatorFree(st->alloc, names[i]);
    free(names);
}

static void free_session(ort_session *s)
{
    ort_state *st = s->st;
    release_values(st, s->in_vals, s->n_in);
    release_values(st, s->out_vals, s->n_out);
    if (!s->parent) { /* a twin borrows everything else */
        free_names(st, s->in_names, s->n_in);
        free_names(st, s->out_names, s->n_out);
        if (s->sess)
            st->api.ReleaseSession(s->sess);
        free(s->in);
        free(s->out);
        for (size_t i = 0; i < s->n_owned; i++)
            free(s->owned[i]);
        free(s->owned);
        free(s->ep);
    }
    free(s);
}

/* Keeps a copy of s owned by the session; NULL when memory runs out. */
static const char *own_str(ort_session *s, const char *str)
{
    if (!mb__grow((void **)&s->owned, &s->owned_cap, s->n_owned + 1,
                  sizeof *s->owned))
        return NULL;
    char *c = mb__strdup(str);
    if (c)
        s->owned[s->n_owned++] = c;
    return c;
}

/* Fills d from a type info; symbolic dim names are copied. */
static mb_status describe_one(ort_session *s, OrtTypeInfo *ti, mb_io_desc *d,
                              mb_err *err)
{
    ort_state *st = s->st;
    int onnx_type = 0;
    mb_status c = check(st, st->api.GetOnnxTypeFromTypeInfo(ti, &onnx_type),
                        err, MB_EMODEL, "type info");
    if (c)
        return c;
    d->rank = -1;
    d->dtype = MB_DTYPE_UNDEFINED;
    if (onnx_type != ORT_TYPE_TENSOR)
        return MB_OK; /* sequences, maps: described as undefined */
    const OrtTensorTypeAndShapeInfo *tti = NULL;
    size_t rank = 0;
    int et = 0;
    if ((c = check(st, st->api.CastTypeInfoToTensorInfo(ti, &tti), err,
                   MB_EMODEL, "tensor info")))
        return c;
    if (!tti)
        return mb__fail(err, MB_EMODEL, "tensor info: none given");
    if ((c = check(st, st->api.GetTensorElementType(tti, &et), err, MB_EMODEL,
                   "element type")) ||
        (c = check(st, st->api.GetDimensionsCount(tti, &rank), err, MB_EMODEL,
                   "rank")))
        return c;
    if (rank > MB_MAX_RANK)
        return mb__fail(err, MB_EUNSUPPORTED,
                        "tensor '%s' has rank %zu; mbench supports up to %d",
                        d->name, rank, MB_MAX_RANK);
    const char *sym[MB_MAX_RANK] = {0};
    if ((c = check(st, st->api.GetDimensions(tti, d->dims, rank), err,
                   MB_EMODEL, "dimensions")) ||
        (c = check(st, st->api.GetSymbolicDimensions(tti, sym, rank), err,
                   MB_EMODEL, "symbolic dimensions")))
        return c;
    d->dtype = (mb_dtype)et;
    d->rank = (int)rank;
    for (size_t i = 0; i < rank; i++) {
        d->dim_names[i] = own_str(s, sym[i] ? sym[i] : "");
        if (!d->dim_names[i])
            return mb__fail(err, MB_ENOMEM, "out of memory");
    }
    return MB_OK;
}

/* After ONNX Runtime rejected model: when the cause is an external data
 * file that is not where the model says, fails with a message naming it
 * and returns 1; else 0 (err untouched). */
static int missing_external_data(const char *model, mb_err *err)
{
    json_t *info = NULL;
    mb_err e = {0};
    if (mb__onnx_inspect(model, &info, &e))
        return 0;
    const json_t *miss =
        json_object_get(json_object_get(info, "external_data"), "missing");
    size_t n = json_array_size(miss);
    if (n == 0) {
        json_decref(info);
        return 0;
    }
    char names[512] = "";
    size_t used = 0, i;
    json_t *v;
    json_array_foreach(miss, i, v)
    {
        const char *nm = json_string_value(v);
        if (!nm || used + strlen(nm) + 3 >= sizeof names)
            break;
        used += (size_t)snprintf(names + used, sizeof names - used, "%s%s",
                                 i ? ", " : "", nm);
    }
    const char *slash = strrchr(model, '/');
    int dl = !slash ? 1 : slash == model ? 1 : (int)(slash - model);
    mb__fail(err, MB_EIO,
             "model %s needs external data file%s %s, not found in %.*s: "
             "put %s beside the model (locations are relative to the "
             ".onnx file)",
             model, n > 1 ? "s" : "", names, dl, slash ? model : ".",
             n > 1 ? "them" : "it");
    json_decref(info);
    return 1;
}

/* The session options of opts, with the execution provider appended
 * (*ep: its name). */
static int session_options(ort_state *st, const mb_kv *opts, size_t n_opts,
                           OrtSessionOptions **so, const char **ep, mb_err *err)
{
    const char *device_id = NULL;
    *ep = "cpu";
    if (check(st, st->api.CreateSessionOptions(so), err, MB_EBACKEND,
              "cannot create session options"))
        return err ? err->code : MB_EBACKEND;
    st->api.SetSessionLogSeverityLevel(*so, st->verbose ? ORT_LOG_WARNING
                                                        : ORT_LOG_ERROR);
    int rc = 0;
    for (size_t i = 0; i < n_opts && !rc; i++)
        rc = apply_opt(st, *so, &opts[i], ep, &device_id, err);
    if (!rc)
        rc = append_ep(st, *so, *ep, device_id, err);
    if (rc) {
        st->api.ReleaseSessionOptions(*so);
        *so = NULL;
    }
    return rc;
}

/* Creates s->sess from the model file (so is released).  A directory is
 * refused as the shared check does; MB_EIO when the file cannot be read
 * or its external data is missing, else MB_EMODEL. */
static int create_session(ort_session *s, const char *model,
                          OrtSessionOptions *so, mb_err *err)
{
    ort_state *st = s->st;
    st->last_error[0] = '\0';
    struct stat ms;
    if (stat(model, &ms) == 0 && S_ISDIR(ms.st_mode)) {
        st->api.ReleaseSessionOptions(so);
        /* the shared check names the .onnx files in the directory */
        return mb__model_file_check(model, "model", err);
    }
    OrtStatus *cs = st->api.CreateSession(st->env, model, so, &s->sess);
    st->api.ReleaseSessionOptions(so);
    if (!cs)
        return 0;
    int code = st->api.GetErrorCode(cs);
    char msg[700];
    clean_message(st->api.GetErrorMessage(cs), msg, sizeof msg);
    st->api.ReleaseStatus(cs);
    if (code == 3)
        return mb__fail(err, MB_EIO, "cannot open model %s: %s", model, msg);
    if (missing_external_data(model, err))
        return MB_EIO;
    return mb__fail(err, MB_EMODEL,
                    "ONNX Runtime rejected model %s: %s (check that it "
                    "is a valid, complete ONNX file)",
                    model, msg);
}

/* The names and descriptions of the session's inputs and outputs. */
static int describe_io(ort_session *s, mb_err *err)
{
    ort_state *st = s->st;
    if (check(st, st->api.SessionGetInputCount(s->sess, &s->n_in), err,
              MB_EMODEL, "input count") ||
        check(st, st->api.SessionGetOutputCount(s->sess, &s->n_out), err,
              MB_EMODEL, "output count"))
        return err ? err->code : MB_EMODEL;
    s->in = mb__calloc(s->n_in + 1, sizeof *s->in);
    s->out = mb__calloc(s->n_out + 1, sizeof *s->out);
    s->in_names = mb__calloc(s->n_in + 1, sizeof *s->in_names);
    s->out_names = mb__calloc(s->n_out + 1, sizeof *s->out_names);
    s->in_vals = mb__calloc(s->n_in + 1, sizeof *s->in_vals);
    s->out_vals = mb__calloc(s->n_out + 1, sizeof *s->out_vals);
    if (!s->in || !s->out || !s->in_names || !s->out_names || !s->in_vals ||
        !s->out_vals)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    for (int o = 0; o < 2; o++) {
        size_t n = o ? s->n_out : s->n_in;
        for (size_t i = 0; i < n; i++) {
            OrtTypeInfo *ti = NULL;
            char **name = o ? &s->out_names[i] : &s->in_names[i];
            mb_io_desc *d = o ? &s->out[i] : &s->in[i];
            OrtStatus *q =
                o ? st->api.SessionGetOutputName(s->sess, i, st->alloc, name)
                  : st->api.SessionGetInputName(s->sess, i, st->alloc, name);
            if (!q)
                q = o ? st->api.SessionGetOutputTypeInfo(s->sess, i, &ti)
                      : st->api.SessionGetInputTypeInfo(s->sess, i, &ti);
            mb_status c = check(st, q, err, MB_EMODEL, "describing the model");
            if (!c) {
                d->name = *name;
                c = describe_one(s, ti, d, err);
                st->api.ReleaseTypeInfo(ti);
            }
            if (c)
                return c;
        }
    }
    return 0;
}

static int ort_open(void *state, const char *model, const mb_kv *opts,
                    size_t n_opts, void **out, mb_err *err)
{
    ort_state *st = state;
    ort_session *s = mb__calloc(1, sizeof *s);
    if (!s)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    s->st = st;
    OrtSessionOptions *so = NULL;
    const char *ep;
    int rc = session_options(st, opts, n_opts, &so, &ep, err);
    if (rc) {
        free(s);
        return rc;
    }
    s->ep = mb__strdup(ep);
    if ((rc = create_session(s, model, so, err))) {
        free(s->ep);
        free(s);
        return rc;
    }
    if ((rc = describe_io(s, err))) {
        free_session(s);
        return rc;
    }
    *out = s;
    return MB_OK;
}

static int ort_describe(void *session, const mb_io_desc **in, size_t *n_in,
                        const mb_io_desc **out, size_t *n_out, mb_err *err)
{
    (void)err;
    ort_session *s = session;
    *in = s->in;
    *n_in = s->n_in;
    *out = s->out;
    *n_out = s->n_out;
    return MB_OK;
}

static int ort_prepare(void *session, const mb_tensor *inputs, size_t n,
                       mb_err *err)
{
    ort_session *s = session;
    ort_state *st = s->st;
    if (n != s->n_in)
        return mb__fail(err, MB_EDATA, "the model takes %zu inputs, got %zu",
                        s->n_in, n);
    for (size_t i = 0; i < n; i++) {
        if (s->in_vals[i]) {
            st->api.ReleaseValue(s->in_vals[i]);
            s->in_vals[i] = NULL;
        }
        if (check(st,
                  st->api.CreateTensorWithDataAsOrtValue(
                      st->cpu_mem, inputs[i].data, inputs[i].nbytes,
                      inputs[i].dims, (size_t)inputs[i].rank,
                      (int)inputs[i].dtype, &s->in_vals[i]),
                  err, MB_EDATA, "cannot wrap an input tensor"))
            return mb__fail_prefix(err, "input '%s'", s->in[i].name);
    }
    return MB_OK;
}

static int ort_run(void *session, mb_err *err)
{
    ort_session *s = session;
    ort_state *st = s->st;
    for (size_t i = 0; i < s->n_out; i++) {
        if (s->out_vals[i]) {
            st->api.ReleaseValue(s->out_vals[i]);
            s->out_vals[i] = NULL;
        }
    }
    OrtStatus *r =
        st->api.Run(s->sess, NULL, (const char *const *)s->in_names,
                    (const OrtValue *const *)s->in_vals, s->n_in,
                    (const char *const *)s->out_names, s->n_out, s->out_vals);
    if (r) {
        s->have_outputs = 0;
        check(st, r, err, MB_EBACKEND, "inference failed");
        return MB_EBACKEND;
    }
    s->have_outputs = 1;
    return MB_OK;
}

static int ort_fetch(void *session, size_t index, mb_tensor *out, mb_err *err)
{
    ort_session *s = session;
    ort_state *st = s->st;
    if (index >= s->n_out || !s->have_outputs || !s->out_vals[index])
        return mb__fail(err, MB_EINVAL, "no output %zu from the last run",
                        index);
    OrtValue *v = s->out_vals[index];
    int vt = 0;
    if (check(st, st->api.GetValueType(v, &vt), err, MB_EBACKEND,
              "output type"))
        return MB_EBACKEND;
    if (vt != ORT_TYPE_TENSOR)
        return mb__fail(err, MB_EUNSUPPORTED,
                        "output '%s' is not a tensor (a sequence or map); "
                        "mbench compares tensor outputs only",
                        s->out[index].name);
    OrtTensorTypeAndShapeInfo *info = NULL;
    int et = 0;
    size_t rank = 0;
    int64_t dims[MB_MAX_RANK];
    void *data = NULL;
    if (check(st, st->api.GetTensorTypeAndShape(v, &info), err, MB_EBACKEND,
              "output shape"))
        return MB_EBACKEND;
    int bad = check(st, st->api.GetTensorElementType(info, &et), err,
                    MB_EBACKEND, "output type") ||
              check(st, st->api.GetDimensionsCount(info, &rank), err,
                    MB_EBACKEND, "output rank");
    if (!bad && rank > MB_MAX_RANK)
        bad = mb__fail(err, MB_EUNSUPPORTED, "output rank %zu is too large",
                       rank) != 0;
    if (!bad)
        bad = check(st, st->api.GetDimensions(info, dims, rank), err,
                    MB_EBACKEND, "output dims");
    st->api.ReleaseTensorTypeAndShapeInfo(info);
    if (bad)
        return err ? err->code : MB_EBACKEND;
    mb_status rc = mb_tensor_alloc(out, (mb_dtype)et, (int)rank, dims,
                                   s->out[index].name, err);
    if (rc) {
        if (rc == MB_EUNSUPPORTED)
            mb__fail_prefix(err, "output '%s'", s->out[index].name);
        return rc;
    }
    if (out->nbytes) {
        if (check(st, st->api.GetTensorMutableData(v, &data), err, MB_EBACKEND,
                  "output data")) {
            mb_tensor_clear(out);
            return MB_EBACKEND;
        }
        memcpy(out->data, data, out->nbytes);
    }
    return MB_OK;
}

static void ort_close(void *session)
{
    if (session)
        free_session(session);
}

static void ort_unload(void *state)
{
    ort_state *st = state;
    if (!st)
        return;
    if (st->cpu_mem)
        st->api.ReleaseMemoryInfo(st->cpu_mem);
    if (st->env)
        st->api.ReleaseEnv(st->env);
    /* The library stays mapped: ORT's thread-local destructors and atexit
     * handlers may still run, and unloading it under them crashes. */
    free(st->providers);
    free(st->usable);
    free(st->unusable);
    free(st->path);
    free(st);
}

/* A second handle on the same OrtSession (Run is thread-safe in ONNX
 * Runtime): its own input and output values, everything else borrowed. */
static int ort_share(void *session, void **twin, mb_err *err)
{
    const ort_session *p = session;
    while (p->parent)
        p = p->parent;
    ort_session *t = mb__calloc(1, sizeof *t);
    if (!t)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    *t = *p;
    t->parent = p;
    t->have_outputs = 0;
    t->in_vals = mb__calloc(p->n_in + 1, sizeof *t->in_vals);
    t->out_vals = mb__calloc(p->n_out + 1, sizeof *t->out_vals);
    if (!t->in_vals || !t->out_vals) {
        free(t->in_vals);
        free(t->out_vals);
        free(t);
        return mb__fail(err, MB_ENOMEM, "out of memory");
    }
    *twin = t;
    return MB_OK;
}
/* What apply_opt() takes. */
static const char *const ort_options[] = {
    "threads", "inter-threads", "execution-mode", "opt-level",
    "ep",      "device-id",     "arena",          "save-optimized",
    "profile", "config:*",      "dim:*",          NULL};

static const mb_backend ort_backend = {
    .abi_version = MB_BACKEND_ABI_VERSION,
    .struct_size = sizeof(mb_backend),
    .name = "ort",
    .load = ort_load,
    .info = ort_info,
    .open = ort_open,
    .describe = ort_describe,
    .prepare = ort_prepare,
    .run = ort_run,
    .fetch = ort_fetch,
    .close = ort_close,
    .unload = ort_unload,
    .share = ort_share,
    .caps = MB_BACKEND_CAP_MODEL_FILE | MB_BACKEND_CAP_DIM_OVERRIDE,
    .options = ort_options,
};

const mb_backend *mb__backend_ort(void);
const mb_backend *mb__backend_ort(void)
{
    return &ort_backend;
}
