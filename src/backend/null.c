/* null.c - the null backend: run() returns at once (or after a fixed,
 * configurable busy-wait), so the harness can be measured by itself and a
 * planted slowdown can test the regression gate.
 *
 * The "model" path is ignored.  It describes one float32 input "x" of shape
 * [batch, 4] and one output "y" of the same shape (y = x).
 * Options: delay=DURATION_NS (busy-wait per run, default 0),
 *          jitter=FRACTION (uniform extra delay in [0, delay*jitter)),
 *          seed=N. */
#include "mbench_backend.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/rng.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    int64_t delay_ns;
    double jitter;
    mb_rng rng;
    mb_io_desc in, out;
    const mb_tensor *x;
    volatile uint64_t sink;
} null_session;

static int null_load(const mb_backend_config *cfg, void **state, mb_err *err)
{
    (void)cfg;
    (void)err;
    *state = NULL;
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
    (void)state;
    (void)model;
    null_session *s = mb__calloc(1, sizeof *s);
    if (!s)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    mb__rng_seed(&s->rng, 1);
    for (size_t i = 0; i < n; i++) {
        char *end;
        if (strcmp(opts[i].key, "delay") == 0) {
            s->delay_ns = strtoll(opts[i].value, &end, 10);
            if (*end || s->delay_ns < 0)
                goto bad;
        } else if (strcmp(opts[i].key, "jitter") == 0) {
            s->jitter = strtod(opts[i].value, &end);
            if (*end || s->jitter < 0)
                goto bad;
        } else if (strcmp(opts[i].key, "seed") == 0) {
            mb__rng_seed(&s->rng, strtoull(opts[i].value, &end, 10));
        } else {
            free(s);
            return mb__fail(err, MB_EINVAL,
                            "the null backend has no option '%s' (it takes "
                            "delay=NS, jitter=FRACTION, seed=N)",
                            opts[i].key);
        }
        continue;
    bad:
        free(s);
        return mb__fail(err, MB_EINVAL,
                        "bad value '%s' for null backend option '%s'",
                        opts[i].value, opts[i].key);
    }
    s->in = (mb_io_desc){.name = "x", .dtype = MB_DTYPE_FLOAT32, .rank = 2,
                         .dims = {-1, 4}, .dim_names = {"batch", ""}};
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
        return mb__fail(err, MB_EDATA, "the null backend takes 1 input, got %zu",
                        n);
    s->x = &inputs[0];
    return MB_OK;
}

static int null_run(void *session, mb_err *err)
{
    (void)err;
    null_session *s = session;
    if (s->delay_ns > 0) {
        int64_t d = s->delay_ns;
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

static void null_close(void *session) { free(session); }
static void null_unload(void *state) { (void)state; }

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
};

const mb_backend *mb__backend_null(void);
const mb_backend *mb__backend_null(void) { return &null_backend; }
