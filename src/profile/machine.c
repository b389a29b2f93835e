/* machine.c - practical peaks (OpenBLAS sgemm, STREAM-like triad) and
 * their cache (machine.h).  OpenBLAS is loaded with dlopen only when a
 * measurement is made: linked into mbench, its constructor would start a
 * thread pool in every mbench process (mbench exec among them). */
#include "profile/machine.h"

#include "core/alloc.h"
#include "core/clock.h"
#include "core/err.h"
#include "core/fileio.h"
#include "core/sysinfo.h"
#include "profile/counters.h"

#include <math.h>
#include <stdbool.h>
#include <cblas.h>
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SCHEMA "mbench.machine/1"
#define SGEMM_N 1536
#define SGEMM_REPS 4
#define TRIAD_REPS 6

/* ---- sgemm ---------------------------------------------------------- */

/* The OpenBLAS entry points, typed by cblas.h, found at run time. */
typedef struct blas {
    __typeof__(&cblas_sgemm) sgemm;
    __typeof__(&openblas_set_num_threads) set_threads;
    __typeof__(&openblas_get_num_threads) get_threads;
    __typeof__(&openblas_get_config) get_config;
    __typeof__(&openblas_get_corename) get_corename; /* may be NULL */
} blas;

/* Loads libopenblas.so.0 (kept loaded: unloading a library whose worker
 * threads are running is not safe).  MB_EUNSUPPORTED when it is missing. */
static mb_status blas_load(blas *b, mb_err *err)
{
    void *h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return mb__fail(err, MB_EUNSUPPORTED,
                        "cannot load OpenBLAS for the sgemm peak (%s): "
                        "install libopenblas0",
                        dlerror());
    b->sgemm = (__typeof__(b->sgemm))(uintptr_t)dlsym(h, "cblas_sgemm");
    b->set_threads = (__typeof__(b->set_threads))(uintptr_t)dlsym(
        h, "openblas_set_num_threads");
    b->get_threads = (__typeof__(b->get_threads))(uintptr_t)dlsym(
        h, "openblas_get_num_threads");
    b->get_config =
        (__typeof__(b->get_config))(uintptr_t)dlsym(h, "openblas_get_config");
    b->get_corename = (__typeof__(b->get_corename))(uintptr_t)dlsym(
        h, "openblas_get_corename");
    if (!b->sgemm || !b->set_threads || !b->get_threads || !b->get_config)
        return mb__fail(err, MB_EUNSUPPORTED,
                        "libopenblas.so.0 lacks cblas_sgemm or "
                        "openblas_*_num_threads: install Debian's "
                        "libopenblas0");
    return MB_OK;
}

static double sgemm_gflops(const blas *bl, const float *a, const float *b,
                           float *c, int n, int threads)
{
    bl->set_threads(threads);
    double best = 0;
    for (int r = 0; r < SGEMM_REPS + 1; r++) {
        int64_t t0 = mb_now_ns();
        bl->sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a,
                  n, b, n, 0.0f, c, n);
        int64_t dt = mb_now_ns() - t0;
        double g = 2.0 * n * (double)n * n / (double)dt;
        if (r > 0 && g > best) /* the first call warms up */
            best = g;
    }
    return best;
}

/* The vector width of the kernels OpenBLAS picked for this CPU (its core
 * name, openblas_get_corename), 0 for a name not listed.  An OpenBLAS older
 * than the CPU falls back to an older core's kernels: Debian 12's 0.3.21
 * runs its Haswell (256-bit) kernels on AMD Zen 5, whose FMA units are
 * 512 bits wide, and its sgemm figure is then about half of what kernels
 * using the whole vector reach (ONNX Runtime's do). */
static int blas_core_bits(const char *core)
{
    /* OpenBLAS's core names by the width of their kernels, space-separated
     * and lower case, with a space at each end for a whole-word search */
    static const struct {
        int bits;
        const char *names;
    } by_width[] = {
        {512, " skylakex cooperlake sapphirerapids "},
        {256, " haswell zen sandybridge excavator steamroller piledriver "
              "bulldozer "},
        {128, " nehalem core2 penryn dunnington atom prescott barcelona "
              "opteron opteron_sse3 "}};
    char word[40];
    size_t n = core ? strlen(core) : 0;
    if (n == 0 || n + 3 > sizeof word)
        return 0;
    word[0] = ' ';
    for (size_t i = 0; i < n; i++)
        word[i + 1] = (char)tolower((unsigned char)core[i]);
    word[n + 1] = ' ';
    word[n + 2] = '\0';
    for (size_t w = 0; w < sizeof by_width / sizeof by_width[0]; w++)
        if (strstr(by_width[w].names, word))
            return by_width[w].bits;
    return 0;
}

/* The widest single-precision vector unit of this CPU, 0 off x86. */
static int cpu_vector_bits(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return 512;
    if (__builtin_cpu_supports("avx"))
        return 256;
    return 128;
#else
    return 0;
#endif
}

/* ---- triad ------------------------------------------------------------ */

typedef struct triad_ctl {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int state; /* 0 wait, 1 go, 2 abort */
    pthread_barrier_t start, done;
} triad_ctl;

/* Each worker times its own passes: the main thread, one more thread than
 * there are cores, may not be running when a pass starts or ends, so a
 * clock read there could miss most of a pass. */
typedef struct triad_job {
    double *a, *b, *c;
    size_t lo, hi;
    triad_ctl *ctl;
    int64_t t0[TRIAD_REPS], t1[TRIAD_REPS];
} triad_job;

static void *triad_thread(void *arg)
{
    triad_job *j = arg;
    triad_ctl *ctl = j->ctl;
    pthread_mutex_lock(&ctl->mu);
    while (ctl->state == 0)
        pthread_cond_wait(&ctl->cv, &ctl->mu);
    int go = ctl->state == 1;
    pthread_mutex_unlock(&ctl->mu);
    if (!go)
        return NULL;
    for (size_t i = j->lo; i < j->hi; i++) { /* first touch */
        j->a[i] = 0.0;
        j->b[i] = 1.0;
        j->c[i] = 2.0;
    }
    for (int r = 0; r < TRIAD_REPS; r++) {
        pthread_barrier_wait(&ctl->start);
        j->t0[r] = mb_now_ns();
        double *restrict a = j->a;
        const double *restrict b = j->b, *restrict c = j->c;
        for (size_t i = j->lo; i < j->hi; i++)
            a[i] = b[i] + 3.0 * c[i];
        j->t1[r] = mb_now_ns();
        pthread_barrier_wait(&ctl->done);
    }
    return NULL;
}

/* Best triad bandwidth in GB/s with nt threads over n elements; -1 when
 * the threads cannot be started. */
static double triad_gbps(double *a, double *b, double *c, size_t n, int nt)
{
    pthread_t th[256];
    triad_job jobs[256];
    triad_ctl ctl;
    if (nt > 256)
        nt = 256;
    pthread_mutex_init(&ctl.mu, NULL);
    pthread_cond_init(&ctl.cv, NULL);
    ctl.state = 0;
    int started = 0;
    for (int t = 0; t < nt; t++) {
        jobs[t] = (triad_job){a,
                              b,
                              c,
                              n * (size_t)t / (size_t)nt,
                              n * (size_t)(t + 1) / (size_t)nt,
                              &ctl,
                              {0},
                              {0}};
        if (pthread_create(&th[t], NULL, triad_thread, &jobs[t]) != 0)
            break;
        started++;
    }
    double best = -1;
    if (started == nt) {
        pthread_barrier_init(&ctl.start, NULL, (unsigned)nt + 1);
        pthread_barrier_init(&ctl.done, NULL, (unsigned)nt + 1);
    }
    pthread_mutex_lock(&ctl.mu);
    ctl.state = started == nt ? 1 : 2;
    pthread_cond_broadcast(&ctl.cv);
    pthread_mutex_unlock(&ctl.mu);
    if (started == nt) {
        for (int r = 0; r < TRIAD_REPS; r++) {
            pthread_barrier_wait(&ctl.start);
            pthread_barrier_wait(&ctl.done);
        }
        /* A pass lasts from its first worker's start to its last
         * worker's end. */
        for (int r = 1; r < TRIAD_REPS; r++) { /* the first pass warms up */
            int64_t lo = jobs[0].t0[r], hi = jobs[0].t1[r];
            for (int t = 1; t < nt; t++) {
                if (jobs[t].t0[r] < lo)
                    lo = jobs[t].t0[r];
                if (jobs[t].t1[r] > hi)
                    hi = jobs[t].t1[r];
            }
            double g = 24.0 * (double)n / (double)(hi > lo ? hi - lo : 1);
            if (g > best)
                best = g;
        }
    }
    for (int t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    if (started == nt) {
        pthread_barrier_destroy(&ctl.start);
        pthread_barrier_destroy(&ctl.done);
    }
    pthread_mutex_destroy(&ctl.mu);
    pthread_cond_destroy(&ctl.cv);
    return best;
}

static size_t llc_bytes(void)
{
    size_t best = 0;
    for (int i = 0; i < 8; i++) {
        char p[96], buf[64];
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu0/cache/index%d/size",
                 i);
        FILE *f = fopen(p, "r");
        if (!f)
            continue;
        if (fgets(buf, sizeof buf, f)) {
            char *end;
            size_t v = strtoul(buf, &end, 10);
            if (*end == 'K')
                v *= 1024;
            else if (*end == 'M')
                v *= 1024 * 1024;
            if (v > best)
                best = v;
        }
        fclose(f);
    }
    return best ? best : 32u * 1024 * 1024;
}

static json_t *machine_key(void)
{
    json_t *si = mb__sysinfo_json();
    json_t *key =
        json_pack("{s:O?, s:O?}", "cpu_model", json_object_get(si, "cpu_model"),
                  "logical_cores", json_object_get(si, "logical_cores"));
    json_decref(si);
    return key;
}

mb_status mb__machine_measure(json_t **out, mb_err *err)
{
    *out = NULL;
    int ncpu = mb__cpu_logical();
    if (ncpu < 1)
        ncpu = 1;
    int n = SGEMM_N;
    blas bl;
    mb_status bst = blas_load(&bl, err);
    if (bst != MB_OK)
        return bst;
    size_t nn = (size_t)n * (size_t)n;
    float *a = mb__calloc(nn, sizeof *a), *b = mb__calloc(nn, sizeof *b);
    float *c = mb__calloc(nn, sizeof *c);
    if (!a || !b || !c) {
        free(a);
        free(b);
        free(c);
        return mb__fail(err, MB_ENOMEM, "out of memory for the sgemm test");
    }
    for (size_t i = 0; i < nn; i++) {
        a[i] = (float)(i % 17) * 0.01f;
        b[i] = (float)(i % 13) * 0.02f;
    }
    int saved = bl.get_threads();
    double g1 = sgemm_gflops(&bl, a, b, c, n, 1);
    double gall = sgemm_gflops(&bl, a, b, c, n, ncpu);
    bl.set_threads(saved);
    free(a);
    free(b);
    free(c);

    size_t llc = llc_bytes(), per = 4 * llc;
    if (per < (size_t)64 << 20)
        per = (size_t)64 << 20;
    size_t ne = per / sizeof(double);
    double *x = mb__calloc(ne, sizeof *x), *y = mb__malloc(ne * sizeof *y);
    double *z = mb__malloc(ne * sizeof *z);
    if (!x || !y || !z) {
        free(x);
        free(y);
        free(z);
        return mb__fail(err, MB_ENOMEM,
                        "out of memory for the triad test (3 x %zu MiB)",
                        per >> 20);
    }
    double t1 = triad_gbps(x, y, z, ne, 1);
    double tall = triad_gbps(x, y, z, ne, ncpu);
    free(x);
    free(y);
    free(z);
    if (t1 < 0 || tall < 0)
        return mb__fail(err, MB_EUNSUPPORTED,
                        "cannot start the triad threads: %s", strerror(errno));

    char when[32];
    mb__utc_iso8601(when, sizeof when);
    json_t *m = json_object();
    json_object_set_new(m, "schema", json_string(SCHEMA));
    json_object_set_new(m, "key", machine_key());
    json_object_set_new(m, "measured_utc", json_string(when));
    json_object_set_new(m, "blas", json_string(bl.get_config()));
    const char *core = bl.get_corename ? bl.get_corename() : NULL;
    int kbits = blas_core_bits(core), cbits = cpu_vector_bits();
    json_object_set_new(
        m, "sgemm",
        json_pack("{s:i, s:f, s:f, s:i, s:s, s:s?, s:o?, s:o?}", "n", n,
                  "one_core_gflops", g1, "all_cores_gflops", gall, "threads",
                  ncpu, "method",
                  "cblas_sgemm n x n x n, 2n^3 FLOPs per call, best of 4 "
                  "after one warm-up call",
                  "blas_core", core, "blas_vector_bits",
                  kbits ? json_integer(kbits) : NULL, "cpu_vector_bits",
                  cbits ? json_integer(cbits) : NULL));
    json_object_set_new(
        m, "triad",
        json_pack("{s:I, s:I, s:f, s:f, s:i, s:s}", "bytes_per_array",
                  (json_int_t)(ne * sizeof(double)), "llc_bytes",
                  (json_int_t)llc, "one_core_gbps", t1, "all_cores_gbps", tall,
                  "threads", ncpu, "method",
                  "a[i] = b[i] + 3 c[i] over doubles, 24 bytes per element "
                  "(no write-allocate), best of 5 after one warm-up pass"));
    json_object_set_new(m, "counters", mb__counters_probe());
    double load[1];
    json_object_set_new(m, "loadavg_1min",
                        getloadavg(load, 1) == 1 ? json_real(load[0])
                                                 : json_null());
    *out = m;
    return MB_OK;
}

mb_status mb__machine_cache_path(char *buf, size_t len, mb_err *err)
{
    const char *x = getenv("XDG_CACHE_HOME");
    int w;
    if (x && *x == '/')
        w = snprintf(buf, len, "%s/mbench/machine.json", x);
    else if (getenv("HOME") && *getenv("HOME"))
        w = snprintf(buf, len, "%s/.cache/mbench/machine.json", getenv("HOME"));
    else
        return mb__fail(err, MB_EINVAL,
                        "no cache directory for machine peaks: set "
                        "XDG_CACHE_HOME or HOME");
    if (w < 0 || (size_t)w >= len)
        return mb__fail(err, MB_EINVAL,
                        "the machine cache path is too long; set a shorter "
                        "XDG_CACHE_HOME");
    return MB_OK;
}

mb_status mb__machine_load(const char *path, json_t **out, mb_err *err)
{
    (void)err;
    *out = NULL;
    json_t *m = json_load_file(path, 0, NULL);
    if (!m)
        return MB_OK;
    json_t *key = machine_key();
    if (!mb__machine_accept(m, key)) {
        json_decref(m);
        m = NULL;
    }
    json_decref(key);
    *out = m;
    return MB_OK;
}

/* A number that is finite and >= 0, or absent/null. */
static bool fine_or_absent(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    if (!v || json_is_null(v))
        return true;
    double d = json_number_value(v);
    return json_is_number(v) && isfinite(d) && d >= 0;
}

bool mb__machine_accept(const json_t *m, const json_t *key)
{
    const char *schema = json_string_value(json_object_get(m, "schema"));
    const json_t *sg = json_object_get(m, "sgemm");
    const json_t *tr = json_object_get(m, "triad");
    static const char *const sgk[] = {"one_core_gflops", "all_cores_gflops",
                                      "n", "threads"};
    static const char *const trk[] = {"one_core_gbps", "all_cores_gbps",
                                      "bytes_per_array", "threads"};
    if (!schema || strcmp(schema, SCHEMA) != 0 ||
        !json_equal(key, json_object_get(m, "key")) ||
        !json_is_number(json_object_get(sg, "all_cores_gflops")))
        return false;
    /* a hand-edited cache must not put negative or infinite peaks into
     * the profile's shares */
    for (size_t i = 0; i < 4; i++)
        if (!fine_or_absent(sg, sgk[i]) || !fine_or_absent(tr, trk[i]))
            return false;
    return true;
}

/* mkdir -p of the directory part of path; false (errno set) on failure. */
static bool make_parent(const char *path)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", path);
    char *slash = strrchr(tmp, '/');
    if (!slash || slash == tmp)
        return true;
    *slash = '\0';
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
            return false;
        *p = '/';
    }
    return mkdir(tmp, 0755) == 0 || errno == EEXIST;
}

mb_status mb__machine_save(const char *path, const json_t *m, mb_err *err)
{
    if (!make_parent(path))
        return mb__fail(err, MB_EIO, "cannot create the directory of %s: %s",
                        path, strerror(errno));
    char *text = json_dumps(m, JSON_INDENT(2) | JSON_SORT_KEYS);
    if (!text)
        return mb__fail(err, MB_ENOMEM, "out of memory writing %s", path);
    size_t len = strlen(text);
    mb_status s = mb__write_file_atomic(path, text, len, err);
    free(text);
    return s;
}

mb_status mb__machine_get(int refresh, json_t **out, int *from_cache,
                          mb_err *err)
{
    char path[4096];
    *out = NULL;
    *from_cache = 0;
    int have_path = mb__machine_cache_path(path, sizeof path, NULL) == MB_OK;
    if (have_path && !refresh) {
        mb__machine_load(path, out, NULL);
        if (*out) {
            *from_cache = 1;
            json_object_set_new(*out, "cache_path", json_string(path));
            return MB_OK;
        }
    }
    mb_status s = mb__machine_measure(out, err);
    if (s)
        return s;
    if (have_path && mb__machine_save(path, *out, NULL) == MB_OK)
        json_object_set_new(*out, "cache_path", json_string(path));
    else
        json_object_set_new(*out, "cache_path", json_null());
    return MB_OK;
}
