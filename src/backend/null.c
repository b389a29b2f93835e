/* null.c - the null backend: run() returns at once (or after a fixed,
 * configurable busy-wait), so the harness can be measured by itself and a
 * planted slowdown can test the regression gate.  It can also imitate
 * what real models do to statistics: a level of its own in every process
 * and autocorrelated noise within one.
 *
 * The "model" path is ignored.  It describes one float32 input "x" of shape
 * [batch, 4] and one output "y" of the same shape (y = x).
 * Options: delay=DURATION_NS (busy-wait per run, default 0),
 *          sleep=DURATION_NS (a fixed service time spent waiting: run()
 *            waits until its start + sleep on CLOCK_MONOTONIC, asleep but
 *            for a last margin that it spins (core/waiter.h: the margin
 *            follows how late this session's wake-ups come, at most
 *            min(200 us, sleep/4)), so the service time's mean is the
 *            nominal one rather than that plus the wake-up overshoot, it
 *            uses little CPU and many threads can serve at once; for the
 *            queueing checks of `mbench load`; default 0),
 *          stall=DURATION_NS with stall_every=N (every Nth run of a
 *            session, counting from its first) or stall_prob=P (each run
 *            with probability P): that run waits stall ns more, the same
 *            way as sleep (no CPU), on top of sleep and delay,
 *          jitter=FRACTION (uniform extra delay in [0, delay*jitter)),
 *          process_sd=F (each process runs at delay * exp(F * Z), Z
 *            standard normal, drawn once per process),
 *          modes=P:F (with probability P a process is F times slower),
 *          ar=PHI and noise=SD (each run is multiplied by exp(e_t), e_t an
 *            AR(1) series: e_t = PHI e_{t-1} + sqrt(1 - PHI^2) SD N(0,1),
 *            so its sd is SD and its lag-1 autocorrelation PHI),
 *          seed=N (default: the run's --seed).
 * The within-run stream is seeded from the seed; the per-process level
 * from the seed mixed with the process id and the clock, so that every
 * process differs (that is the point).  The true median of a process is
 * delay * level; the geometric mean of the levels is delay * F^P. */
#include "mbench_backend.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/rng.h"
#include "core/waiter.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

typedef struct {
    uint64_t seed;
} null_state;

typedef struct {
    int64_t delay_ns;
    int64_t sleep_ns;
    int64_t stall_ns, stall_every, runs;
    double stall_prob;
    mb__waiter wait;
    double jitter;
    double process_sd, mode_p, mode_f, ar, noise, level, e;
    mb__rng rng;
    mb_io_desc in, out;
    const mb_tensor *x;
    volatile uint64_t sink;
} null_session;

static int null_load(const mb_backend_config *cfg, void **state, mb_err *err)
{
    null_state *st = mb__calloc(1, sizeof *st);
    if (!st)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    st->seed = cfg ? cfg->seed : 1;
    *state = st;
    return MB_OK;
}

static void null_info(void *state, mb_info_fn emit, void *user)
{
    (void)state;
    emit(user, "version", MB_VERSION_STRING);
    emit(user, "providers", "none");
}

static int null_open(void *state, const char *model, const mb_kv *opts,
                     size_t n, void **out, mb_err *err)
{
    (void)model;
    null_session *s = mb__calloc(1, sizeof *s);
    if (!s)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    uint64_t seed = state ? ((null_state *)state)->seed : 1;
    for (size_t i = 0; i < n; i++) {
        char *end;
        if (strcmp(opts[i].key, "delay") == 0) {
            s->delay_ns = strtoll(opts[i].value, &end, 10);
            if (*end || s->delay_ns < 0)
                goto bad;
        } else if (strcmp(opts[i].key, "sleep") == 0) {
            s->sleep_ns = strtoll(opts[i].value, &end, 10);
            if (*end || s->sleep_ns < 0 || s->sleep_ns > 3600000000000LL)
                goto bad;
        } else if (strcmp(opts[i].key, "stall") == 0 ||
                   strcmp(opts[i].key, "stall_every") == 0) {
            int64_t v = strtoll(opts[i].value, &end, 10);
            if (*end || v < 0 || v > 3600000000000LL)
                goto bad;
            *(opts[i].key[5] ? &s->stall_every : &s->stall_ns) = v;
        } else if (strcmp(opts[i].key, "stall_prob") == 0) {
            s->stall_prob = strtod(opts[i].value, &end);
            if (*end || !(s->stall_prob >= 0 && s->stall_prob <= 1))
                goto bad;
        } else if (strcmp(opts[i].key, "jitter") == 0) {
            s->jitter = strtod(opts[i].value, &end);
            if (*end || s->jitter < 0)
                goto bad;
        } else if (strcmp(opts[i].key, "seed") == 0) {
            seed = strtoull(opts[i].value, &end, 10);
            if (*end)
                goto bad;
        } else if (strcmp(opts[i].key, "process_sd") == 0 ||
                   strcmp(opts[i].key, "noise") == 0) {
            double d = strtod(opts[i].value, &end);
            if (*end || d < 0 || d > 5)
                goto bad;
            *(opts[i].key[0] == 'p' ? &s->process_sd : &s->noise) = d;
        } else if (strcmp(opts[i].key, "ar") == 0) {
            s->ar = strtod(opts[i].value, &end);
            if (*end || s->ar < 0 || s->ar >= 1)
                goto bad;
        } else if (strcmp(opts[i].key, "modes") == 0) {
            s->mode_p = strtod(opts[i].value, &end);
            if (*end != ':' || s->mode_p < 0 || s->mode_p > 1)
                goto bad;
            s->mode_f = strtod(end + 1, &end);
            if (*end || s->mode_f <= 0)
                goto bad;
        } else {
            free(s);
            return mb__fail(
                err, MB_EINVAL,
                "the null backend has no option '%s' (it takes "
                "delay=NS, sleep=NS, stall=NS with stall_every=N or "
                "stall_prob=P, jitter=FRACTION, process_sd=F, "
                "modes=P:F, ar=PHI, noise=SD, seed=N)",
                opts[i].key);
        }
        continue;
    bad:
        free(s);
        return mb__fail(err, MB_EINVAL,
                        "bad value '%s' for null backend option '%s'",
                        opts[i].value, opts[i].key);
    }
    if (s->stall_ns > 0 && !s->stall_every && !(s->stall_prob > 0)) {
        long long stall = (long long)s->stall_ns;
        free(s);
        return mb__fail(err, MB_EINVAL,
                        "the null backend's stall=%lld needs stall_every=N "
                        "(every Nth run) or stall_prob=P (each run with "
                        "probability P)",
                        stall);
    }
    {
        int64_t cap = s->sleep_ns / 4 < 200000 ? s->sleep_ns / 4 : 200000;
        mb__waiter_init(&s->wait, -1, cap > 0 ? cap : 0, 1);
    }
    /* The process's own level, from a stream that differs per process. */
    mb__rng proc;
    mb__rng_seed(&proc,
                 seed ^ ((uint64_t)getpid() << 32) ^ (uint64_t)mb_now_ns());
    s->level = exp(s->process_sd * mb__rng_normal(&proc));
    if (s->mode_p > 0 && mb__rng_uniform(&proc) < s->mode_p)
        s->level *= s->mode_f;
    mb__rng_seed(&s->rng, seed ^ (uint64_t)getpid());
    s->in = (mb_io_desc){.name = "x",
                         .dtype = MB_DTYPE_FLOAT32,
                         .rank = 2,
                         .dims = {-1, 4},
                         .dim_names = {"batch", ""}};
    s->out = s->in;
    s->out.name = "y";
    *out = s;
    return MB_OK;
}

static int null_describe(void *session, const mb_io_desc **in, size_t *nin,
                         const mb_io_desc **out, size_t *nout, mb_err *err)
{
    (void)err;
    null_session *s = session;
    *in = &s->in;
    *nin = 1;
    *out = &s->out;
    *nout = 1;
    return MB_OK;
}

static int null_prepare(void *session, const mb_tensor *inputs, size_t n,
                        mb_err *err)
{
    null_session *s = session;
    if (n != 1)
        return mb__fail(err, MB_EDATA,
                        "the null backend takes 1 input, got %zu", n);
    s->x = &inputs[0];
    return MB_OK;
}

/* The time this run waits (asleep but for a spun margin): sleep, plus a
 * stall when this run is one. */
static int64_t wait_of(null_session *s)
{
    int64_t ns = s->sleep_ns;
    s->runs++;
    if (s->stall_ns > 0 &&
        ((s->stall_every > 0 && s->runs % s->stall_every == 0) ||
         (s->stall_prob > 0 && mb__rng_uniform(&s->rng) < s->stall_prob)))
        ns += s->stall_ns;
    return ns;
}

static int null_run(void *session, mb_err *err)
{
    (void)err;
    null_session *s = session;
    int64_t t0 = mb_now_ns(); /* the service time counts from here */
    int64_t ns = s->sleep_ns > 0 || s->stall_ns > 0 ? wait_of(s) : 0;
    if (ns > 0) {
        mb__waiter_thread_setup();
        mb__waiter_until(&s->wait, t0 + ns);
    }
    if (s->delay_ns > 0) {
        int64_t d = s->delay_ns;
        if (s->level != 1 || s->noise > 0) {
            s->e = s->ar * s->e +
                   sqrt(1 - s->ar * s->ar) * s->noise * mb__rng_normal(&s->rng);
            d = (int64_t)((double)d * s->level * exp(s->e));
        }
        if (s->jitter > 0)
            d += (int64_t)(mb__rng_uniform(&s->rng) * s->jitter *
                           (double)s->delay_ns);
        int64_t end = mb_now_ns() + d;
        while (mb_now_ns() < end)
            s->sink++;
    }
    return MB_OK;
}

static int null_fetch(void *session, size_t index, mb_tensor *out, mb_err *err)
{
    null_session *s = session;
    if (index != 0 || !s->x)
        return mb__fail(err, MB_EINVAL, "no output %zu", index);
    mb_status st = mb_tensor_copy(out, s->x, err);
    if (!st) {
        free(out->name);
        out->name = mb__strdup("y");
    }
    return st;
}

/* A twin: the same settings, its own stream and bound input. */
static int null_share(void *session, void **twin, mb_err *err)
{
    null_session *s = session, *t = mb__calloc(1, sizeof *t);
    if (!t)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    *t = *s;
    t->x = NULL;
    t->e = 0;
    t->runs = 0;
    mb__waiter_init(&t->wait, s->wait.fixed_ns, s->wait.cap_ns, 1);
    mb__rng_seed(&t->rng, mb__rng_u64(&s->rng));
    *twin = t;
    return MB_OK;
}

static void null_close(void *session)
{
    free(session);
}
static void null_unload(void *state)
{
    free(state);
}

static const char *const null_options[] = {
    "delay", "sleep",      "stall", "stall_every", "stall_prob", "jitter",
    "seed",  "process_sd", "noise", "ar",          "modes",      NULL};

static const mb_backend null_backend = {
    .abi_version = MB_BACKEND_ABI_VERSION,
    .struct_size = sizeof(mb_backend),
    .name = "null",
    .load = null_load,
    .info = null_info,
    .open = null_open,
    .describe = null_describe,
    .prepare = null_prepare,
    .run = null_run,
    .fetch = null_fetch,
    .close = null_close,
    .unload = null_unload,
    .share = null_share,
    .caps = MB_BACKEND_CAP_SIMULATED,
    .options = null_options,
};

const mb_backend *mb__backend_null(void);
const mb_backend *mb__backend_null(void)
{
    return &null_backend;
}
