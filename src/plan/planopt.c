/* planopt.c - the plan's option table and its one setter (planopt.h). */
#include "plan/planopt.h"

#include "core/imageprep.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/parse.h"
#include "core/tlimit.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Which field an option writes. */
enum {
    F_THREADS,
    F_INTER,
    F_EXECMODE,
    F_OPTLEVEL,
    F_EP,
    F_DEVICE,
    F_ORTCONFIG,
    F_NOARENA,
    F_SAVEOPT,
    F_ORTLIB,
    F_BACKEND,
    F_BACKENDOPT,
    F_VERBOSE,
    F_BATCH,
    F_DIM,
    F_RANGE,
    F_SHAPE,
    F_RENAME,
    F_SEED,
    F_DATA,
    F_MAXTB,
    F_MAXRATIO,
    F_WARMUP,
    F_WARMUPTIME,
    F_MINITER,
    F_MINTIME,
    F_MAXITER,
    F_MAXTIME,
    F_PROCS,
    F_TARGETCI,
    F_ITER,
    F_PCT,
    F_LEAK,
    F_SAMPLES,
    F_RESIZE,
    F_CROP,
    F_SCALE,
    F_MEAN,
    F_STD,
    F_CHORDER,
    F_LAYOUT,
    F_COUNT
};

#define RT "Runtime options"
#define IN "Inputs"
#define ME "Measurement"
#define BE MB__PO_BACKEND
#define RE MB__PO_REPEAT
/* Accepted forms that several options share. */
#define DURATION "a duration such as 2s, 500ms or 1m"
#define ITERATIONS "a positive iteration count"
#define SWITCH "no value (a switch)"

static const mb__planopt table[] = {
    {"threads", MB__PO_INT, "N", RT, "intra-op threads (0 = runtime default)",
     "an integer from 0 (runtime default) to 4096", NULL, 0, 4096, BE,
     F_THREADS},
    {"inter-threads", MB__PO_INT, "N", RT, "inter-op threads (parallel mode)",
     "an integer from 0 (runtime default) to 4096", NULL, 0, 4096, BE, F_INTER},
    {"execution-mode", MB__PO_ENUM, "MODE", RT, "sequential | parallel",
     "sequential or parallel", "sequential|parallel", 0, 0, BE, F_EXECMODE},
    {"opt-level", MB__PO_ENUM, "LEVEL", RT,
     "graph optimization: disable | basic | extended | layout | all",
     "disable, basic, extended, layout or all",
     "disable|basic|extended|layout|all", 0, 0, BE, F_OPTLEVEL},
    {"ep", MB__PO_STRING, "NAME", RT,
     "execution provider: cpu (default), cuda, ...",
     "cpu, cuda or a provider name", NULL, 0, 0, BE, F_EP},
    {"device-id", MB__PO_INT, "N", RT, "device for the execution provider",
     "a device number 0..1024", NULL, 0, 1024, BE, F_DEVICE},
    {"ort-config", MB__PO_KV, "KEY=VALUE", RT,
     "ONNX Runtime session config entry (repeatable)", "KEY=VALUE", NULL, 0, 0,
     BE | RE, F_ORTCONFIG},
    {"no-arena", MB__PO_SWITCH, NULL, RT, "disable the CPU memory arena",
     SWITCH, NULL, 0, 0, BE, F_NOARENA},
    {"save-optimized", MB__PO_OUTFILE, "PATH", RT, "save the optimized graph",
     "a file path", NULL, 0, 0, BE, F_SAVEOPT},
    {"ort-lib", MB__PO_FILE, "PATH", RT, "libonnxruntime.so.1 to load",
     "a file path", NULL, 0, 0, 0, F_ORTLIB},
    {"backend", MB__PO_STRING, "NAME|PATH", RT,
     "ort (default), null, or a plugin .so",
     "ort, null, or the path of a plugin .so", NULL, 0, 0, 0, F_BACKEND},
    {"backend-opt", MB__PO_KV, "KEY=VALUE", RT, "a backend option (repeatable)",
     "KEY=VALUE", NULL, 0, 0, RE, F_BACKENDOPT},
    {"verbose", MB__PO_SWITCH, NULL, RT, "show the runtime's own log lines",
     SWITCH, NULL, 0, 0, 0, F_VERBOSE},
    {"batch", MB__PO_INTLIST, "LIST", IN,
     "batch sizes, e.g. 1,2,4,8 (default 1)",
     "positive batch sizes, comma-separated (1,2,4,8)", NULL, 1, 1 << 20, 0,
     F_BATCH},
    {"dim", MB__PO_KV, "NAME=VALUE", IN,
     "value of a symbolic dimension (repeatable); also given to backends "
     "that specialise the graph (ort)",
     "NAME=VALUE with a positive integer", NULL, 1, (double)(1LL << 40), RE,
     F_DIM},
    {"input-range", MB__PO_KV, "NAME=LO:HI", IN,
     "value range of synthetic input NAME (repeatable)",
     "NAME=LO:HI with numbers and LO <= HI", NULL, -1e300, 1e300, RE, F_RANGE},
    {"shape", MB__PO_KV, "[NAME=]D0,D1,...", IN,
     "whole shape of input NAME (NAME= for a scalar; without NAME=: the "
     "model's only input; repeatable)",
     "NAME=D0,D1,... (NAME= for a scalar), or D0,D1,... for a model with "
     "one input",
     NULL, 0, (double)(1LL << 40), RE, F_SHAPE},
    {"input-name", MB__PO_KV, "NAME=MODELNAME", IN,
     "the input --data, --shape and --input-range call NAME is the model's "
     "MODELNAME (repeatable; for variants whose inputs are named "
     "differently)",
     "NAME=MODELNAME", NULL, 0, 0, RE, F_RENAME},
    {"seed", MB__PO_INT, "N", IN, "seed of synthetic inputs (default 42)",
     "a non-negative integer", NULL, 0, 9.2e18, 0, F_SEED},
    {"data", MB__PO_FILE, "PATH", IN,
     "real inputs (.npy, .npz, .pb, directory)", "a file or directory", NULL, 0,
     0, 0, F_DATA},
    {"max-tensor-bytes", MB__PO_STRING, "SIZE", IN, MB__TLIMIT_BYTES_HELP,
     MB__TLIMIT_BYTES_EXPECT, NULL, 0, 0, 0, F_MAXTB},
    {"max-compression-ratio", MB__PO_DOUBLE, "R", IN, MB__TLIMIT_RATIO_HELP,
     MB__TLIMIT_RATIO_EXPECT, NULL, 0, 1e12, 0, F_MAXRATIO},
    {"resize", MB__PO_STRING, "N|HxW", IN,
     "image data: resize the shorter side to N, or to HxW (Pillow's "
     "bilinear; default: none)",
     "a size such as 256 or 224x224", NULL, 0, 0, 0, F_RESIZE},
    {"center-crop", MB__PO_STRING, "N|HxW", IN,
     "image data: crop the center N x N or H x W after --resize",
     "a size such as 224 or 224x224", NULL, 0, 0, 0, F_CROP},
    {"scale", MB__PO_DOUBLE, "F", IN,
     "image data: pixel value x F (default 1/255: [0, 1])",
     "a number such as 0.00392156862745098", NULL, -1e30, 1e30, 0, F_SCALE},
    {"mean", MB__PO_STRING, "M[,M,M]", IN,
     "image data: subtract per channel after scaling (default none)",
     "one number or one per channel, e.g. 0.485,0.456,0.406", NULL, 0, 0, 0,
     F_MEAN},
    {"std", MB__PO_STRING, "S[,S,S]", IN,
     "image data: divide per channel after --mean (default none)",
     "one number or one per channel, e.g. 0.229,0.224,0.225", NULL, 0, 0, 0,
     F_STD},
    {"channel-order", MB__PO_ENUM, "ORDER", IN,
     "image data: rgb (default) or bgr", "rgb or bgr", "rgb|bgr", 0, 0, 0,
     F_CHORDER},
    {"layout", MB__PO_ENUM, "LAYOUT", IN,
     "image data: nchw or nhwc (default: from the input's shape)",
     "nchw or nhwc", "nchw|nhwc", 0, 0, 0, F_LAYOUT},
    {"warmup", MB__PO_INT, "N", ME, "warmup iterations (default 10)",
     "a non-negative iteration count", NULL, 0, 1e9, 0, F_WARMUP},
    {"warmup-time", MB__PO_DURATION, "D", ME,
     "and warm up at least this long (default 0)", DURATION, NULL, 0, 0, 0,
     F_WARMUPTIME},
    {"min-iterations", MB__PO_INT, "N", ME,
     "at least N iterations in total, split over the processes (default "
     "100)",
     ITERATIONS, NULL, 1, 1e9, 0, F_MINITER},
    {"min-time", MB__PO_DURATION, "D", ME,
     "and at least this long in total (default 1s)", DURATION, NULL, 0, 0, 0,
     F_MINTIME},
    {"max-iterations", MB__PO_INT, "N", ME,
     "at most N iterations (default 100000)", ITERATIONS, NULL, 1, 1e9, 0,
     F_MAXITER},
    {"max-time", MB__PO_DURATION, "D", ME, "at most this long (default 30s)",
     DURATION, NULL, 0, 0, 0, F_MAXTIME},
    {"processes", MB__PO_INT, "K", ME,
     "measure in K fresh processes, the unit of replication of every CI "
     "(default 40; 1 = one process, CI of within-run noise only)",
     "a process count from 1 to 1000", NULL, 1, 1000, 0, F_PROCS},
    {"target-ci", MB__PO_FRACTION, "F", ME,
     "with --processes 1: stop when the CI of the median is within F of it "
     "(default 1%)",
     "a relative half-width such as 0.01 or 1%", NULL, 0, 1, 0, F_TARGETCI},
    {"iterations", MB__PO_INT, "N", ME,
     "exactly N iterations (split over the processes)", ITERATIONS, NULL, 1,
     1e9, 0, F_ITER},
    {"percentile", MB__PO_DOUBLE, "Q", ME,
     "also report percentile Q (repeatable)", "a percentile in [0, 100]", NULL,
     0, 100, RE, F_PCT},
    {"leak-check", MB__PO_SWITCH, NULL, ME, "fit the RSS slope and flag growth",
     SWITCH, NULL, 0, 0, 0, F_LEAK},
    {"save-samples", MB__PO_SWITCH, NULL, ME, "keep raw samples in the JSON",
     SWITCH, NULL, 0, 0, 0, F_SAMPLES},
};

const mb__planopt *mb__planopt_table(size_t *n)
{
    *n = sizeof table / sizeof table[0];
    return table;
}

const mb__planopt *mb__planopt_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].name, name) == 0)
            return &table[i];
    return NULL;
}

static mb_status bad(mb_err *err, const char *shown, const char *value,
                     const char *expect)
{
    return mb__fail(err, MB_EINVAL, "invalid value '%s' for %s: expected %s",
                    value ? value : "", shown, expect);
}

static mb_status oom(mb_err *err)
{
    return mb__fail(err, MB_ENOMEM, "out of memory");
}

static mb_status set_str(char **dst, const char *v, mb_err *err)
{
    char *c = mb__strdup(v);
    if (!c)
        return oom(err);
    free(*dst);
    *dst = c;
    return MB_OK;
}

static mb_status set_opt(mb__plan *p, const char *k, const char *v, mb_err *err)
{
    return mb__plan_set_opt(p, k, v) ? MB_OK : oom(err);
}

/* "NAME=REST": *name malloc'ed; false when there is no "NAME=" (or no
 * memory for the name). */
static bool split(const char *v, char **name, const char **rest)
{
    const char *eq = v ? strchr(v, '=') : NULL;
    *name = NULL;
    if (!eq || eq == v)
        return false;
    *name = mb__strndup(v, (size_t)(eq - v));
    *rest = eq + 1;
    return *name != NULL;
}

/* "1%" -> 0.01, "0.01" -> 0.01; false unless the result is in (0, hi]. */
static mb_status set_switch(int *dst, const mb__planopt *o, const char *shown,
                            const char *v, mb_err *err)
{
    if (!v || !*v || !strcmp(v, "1") || !strcmp(v, "true"))
        *dst = 1;
    else if (!strcmp(v, "0") || !strcmp(v, "false"))
        *dst = 0;
    else
        return bad(err, shown, v, "1 or true (on), 0 or false (off)");
    (void)o;
    return MB_OK;
}

static mb_status set_dim(mb__plan *p, const mb__planopt *o, const char *shown,
                         const char *value, mb_err *err)
{
    char *name;
    const char *rest;
    int64_t v;
    if (!split(value, &name, &rest) ||
        !mb__parse_i64(rest, (int64_t)o->lo, (int64_t)o->hi, &v)) {
        free(name);
        return bad(err, shown, value, o->expect);
    }
    for (size_t i = 0; i < p->n_dims; i++)
        if (strcmp(p->dims[i].name, name) == 0) { /* the last one wins */
            free(name);
            p->dims[i].value = v;
            return MB_OK;
        }
    mb__dim_override *n = mb__realloc_array(p->dims, p->n_dims + 1, sizeof *n);
    if (!n) {
        free(name);
        return oom(err);
    }
    p->dims = n;
    p->dims[p->n_dims++] = (mb__dim_override){name, v};
    return MB_OK;
}

static mb_status set_range(mb__plan *p, const mb__planopt *o, const char *shown,
                           const char *value, mb_err *err)
{
    char *name, *lo_s = NULL;
    const char *rest, *colon;
    double lo, hi;
    if (!split(value, &name, &rest) || !(colon = strchr(rest, ':'))) {
        free(name);
        return bad(err, shown, value, o->expect);
    }
    lo_s = mb__strndup(rest, (size_t)(colon - rest));
    int wrong = !lo_s || !mb__parse_double(lo_s, o->lo, o->hi, &lo) ||
                !mb__parse_double(colon + 1, o->lo, o->hi, &hi) || hi < lo;
    free(lo_s);
    if (wrong) {
        free(name);
        return bad(err, shown, value, o->expect);
    }
    mb__input_bounds *n =
        mb__realloc_array(p->ranges, p->n_ranges + 1, sizeof *n);
    if (!n) {
        free(name);
        return oom(err);
    }
    p->ranges = n;
    p->ranges[p->n_ranges++] = (mb__input_bounds){name, lo, hi};
    return MB_OK;
}

static mb_status set_shape(mb__plan *p, const mb__planopt *o, const char *shown,
                           const char *value, mb_err *err)
{
    char *name;
    const char *rest;
    int64_t *list = NULL;
    size_t n = 0;
    /* D0,D1,... without NAME=: the model's only input (runner.c) */
    bool bare = value && *value && !strchr(value, '=');
    if (bare) {
        name = mb__strdup("");
        rest = value;
    }
    if ((!bare && !split(value, &name, &rest)) || !name ||
        (*rest && !mb__parse_i64_list(rest, (int64_t)o->lo, (int64_t)o->hi,
                                      &list, &n)) ||
        n > MB_MAX_RANK) {
        free(name);
        free(list);
        return bad(err, shown, value, o->expect);
    }
    bool ok = mb__plan_set_shape(p, name, list, (int)n);
    free(name);
    free(list);
    return ok ? MB_OK : oom(err);
}

/* KEY=VALUE forwarded to the backend as prefix+KEY. */
static mb_status set_prefixed(mb__plan *p, const mb__planopt *o,
                              const char *shown, const char *prefix,
                              const char *value, mb_err *err)
{
    char *k;
    const char *v;
    if (!split(value, &k, &v))
        return bad(err, shown, value, o->expect);
    size_t n = strlen(prefix) + strlen(k) + 1;
    char *key = mb__malloc(n);
    if (!key) {
        free(k);
        return oom(err);
    }
    snprintf(key, n, "%s%s", prefix, k);
    mb_status s = set_opt(p, key, v, err);
    free(key);
    free(k);
    return s;
}

/* Where an option whose value is stored as it is goes: the int64_t,
 * switch or string field of p that option id writes (the others NULL). */
typedef struct plain {
    int64_t *i64;
    int *sw;
    char **str;
} plain;

static plain plain_field(mb__plan *p, int id)
{
    int64_t *const i64[F_COUNT] = {
        [F_WARMUP] = &p->warmup_iters, [F_WARMUPTIME] = &p->warmup_time_ns,
        [F_MINITER] = &p->min_iters,   [F_MINTIME] = &p->min_time_ns,
        [F_MAXITER] = &p->max_iters,   [F_MAXTIME] = &p->max_time_ns,
        [F_ITER] = &p->fixed_iters,
    };
    int *const sw[F_COUNT] = {[F_VERBOSE] = &p->verbose,
                              [F_LEAK] = &p->leak_check,
                              [F_SAMPLES] = &p->save_samples};
    char **const str[F_COUNT] = {[F_ORTLIB] = &p->ort_lib,
                                 [F_BACKEND] = &p->backend,
                                 [F_DATA] = &p->data_path};
    if (id < 0 || id >= F_COUNT)
        return (plain){NULL, NULL, NULL};
    return (plain){i64[id], sw[id], str[id]};
}

/* The value's form, by the option's type: an integer or duration into
 * *i, a number or fraction into *d; MB_EINVAL saying what is expected. */
static mb_status parse_form(const mb__planopt *o, const char *shown,
                            const char *value, int64_t *i, double *d,
                            mb_err *err)
{
    switch (o->type) {
    case MB__PO_SWITCH:
        break;
    case MB__PO_INT:
        if (!value ||
            !mb__parse_i64(value, (int64_t)o->lo,
                           o->hi >= 9e18 ? INT64_MAX : (int64_t)o->hi, i))
            return bad(err, shown, value, o->expect);
        break;
    case MB__PO_DOUBLE:
        if (!value || !mb__parse_double(value, o->lo, o->hi, d))
            return bad(err, shown, value, o->expect);
        break;
    case MB__PO_FRACTION:
        if (!value || !mb__parse_fraction(value, o->hi, d) || *d <= 0)
            return bad(err, shown, value, o->expect);
        break;
    case MB__PO_DURATION:
        if (!value || !mb__parse_duration_ns(value, i))
            return bad(err, shown, value, o->expect);
        break;
    case MB__PO_ENUM: {
        size_t L = value ? strlen(value) : 0;
        const char *c = o->choices;
        int found = 0;
        while (L && c && *c) {
            size_t cl = strcspn(c, "|");
            if (cl == L && strncmp(c, value, L) == 0)
                found = 1;
            c += cl + (c[cl] == '|');
        }
        if (!found)
            return bad(err, shown, value, o->expect);
        break;
    }
    default:
        if (!value || !*value)
            return bad(err, shown, value, o->expect);
        break;
    }
    return MB_OK;
}

/* The options of image preprocessing (p->image). */
static mb_status set_image(mb__plan *p, const mb__planopt *o, const char *shown,
                           const char *value, double d, mb_err *err)
{
    switch (o->id) {
    case F_RESIZE:
        return mb__image_size_parse(shown, value, &p->image.resize_h,
                                    &p->image.resize_w, err);
    case F_CROP: {
        mb_status cs = mb__image_size_parse(shown, value, &p->image.crop_h,
                                            &p->image.crop_w, err);
        if (!cs && !p->image.crop_w)
            p->image.crop_w = p->image.crop_h;
        return cs;
    }
    case F_SCALE:
        p->image.scale = d;
        p->image.have_scale = 1;
        return MB_OK;
    case F_MEAN:
        return mb__image_triple_parse(shown, value, p->image.mean,
                                      &p->image.n_mean, err);
    case F_STD: {
        mb_status ss = mb__image_triple_parse(shown, value, p->image.std,
                                              &p->image.n_std, err);
        for (int k = 0; !ss && k < p->image.n_std; k++)
            if (p->image.std[k] == 0)
                ss = bad(err, shown, value, "numbers other than 0");
        return ss;
    }
    case F_CHORDER:
        p->image.bgr = !strcmp(value, "bgr");
        return MB_OK;
    case F_LAYOUT:
        p->image.layout = !strcmp(value, "nchw") ? 1 : 2;
        return MB_OK;
    }
    return mb__fail(err, MB_EINVAL, "option %s has no setter", shown);
}

/* --batch: a list of sizes, replacing the plan's. */
static mb_status set_batches(mb__plan *p, const mb__planopt *o,
                             const char *shown, const char *value, mb_err *err)
{
    int64_t *list;
    size_t n;
    if (!mb__parse_i64_list(value, (int64_t)o->lo, (int64_t)o->hi, &list, &n))
        return bad(err, shown, value, o->expect);
    free(p->batches);
    p->batches = list;
    p->n_batches = n;
    return MB_OK;
}

/* OLD=NEW: an input renamed. */
static mb_status set_rename(mb__plan *p, const mb__planopt *o,
                            const char *shown, const char *value, mb_err *err)
{
    char *name;
    const char *rest;
    if (!split(value, &name, &rest) || !*rest) {
        free(name);
        return bad(err, shown, value, o->expect);
    }
    bool ok = mb__plan_set_rename(p, name, rest);
    free(name);
    return ok ? MB_OK : oom(err);
}

static mb_status add_percentile(mb__plan *p, double d, mb_err *err)
{
    double *n =
        mb__realloc_array(p->percentiles, p->n_percentiles + 1, sizeof *n);
    if (!n)
        return oom(err);
    p->percentiles = n;
    p->percentiles[p->n_percentiles++] = d;
    return MB_OK;
}

mb_status mb__planopt_set(mb__plan *p, const mb__planopt *o, const char *shown,
                          const char *value, mb_err *err)
{
    int64_t i = 0;
    double d = 0;
    if (!shown)
        shown = o->name;
    mb_status fs = parse_form(o, shown, value, &i, &d, err);
    if (fs)
        return fs;
    plain f = plain_field(p, o->id);
    if (o->id == F_WARMUP)
        p->warmup_default = 0; /* a count asked for is run in full */
    if (f.i64) {
        *f.i64 = i;
        return MB_OK;
    }
    if (f.sw)
        return set_switch(f.sw, o, shown, value, err);
    if (f.str)
        return set_str(f.str, value, err);
    switch (o->id) {
    case F_THREADS:
    case F_INTER:
    case F_EXECMODE:
    case F_OPTLEVEL:
    case F_EP:
    case F_DEVICE:
    case F_SAVEOPT:
        return set_opt(p, o->name, value, err);
    case F_ORTCONFIG:
        return set_prefixed(p, o, shown, "config:", value, err);
    case F_BACKENDOPT:
        return set_prefixed(p, o, shown, "", value, err);
    case F_NOARENA: {
        int on = 1;
        mb_status s = set_switch(&on, o, shown, value, err);
        return s ? s : set_opt(p, "arena", on ? "0" : "1", err);
    }
    case F_BATCH:
        return set_batches(p, o, shown, value, err);
    case F_DIM:
        return set_dim(p, o, shown, value, err);
    case F_RANGE:
        return set_range(p, o, shown, value, err);
    case F_SHAPE:
        return set_shape(p, o, shown, value, err);
    case F_RENAME:
        return set_rename(p, o, shown, value, err);
    case F_SEED:
        p->seed = (uint64_t)i;
        return MB_OK;
    case F_MAXTB:
        return mb__tlimit_set_bytes(&p->tlimit, value)
                   ? MB_OK
                   : bad(err, shown, value, o->expect);
    case F_MAXRATIO:
        mb__tlimit_set_ratio(&p->tlimit, d);
        return MB_OK;
    case F_PROCS:
        p->processes = (int)i;
        return MB_OK;
    case F_TARGETCI:
        p->target_ci = d;
        return MB_OK;
    case F_PCT:
        return add_percentile(p, d, err);
    }
    return set_image(p, o, shown, value, d, err);
}

mb_status mb__planopt_finish(const mb__plan *p, const char *dashes, mb_err *err)
{
    if (!dashes)
        dashes = "";
    if (p->fixed_iters == 0 && p->min_iters > p->max_iters)
        return mb__fail(err, MB_EINVAL,
                        "%smin-iterations (%lld) is larger than "
                        "%smax-iterations (%lld)",
                        dashes, (long long)p->min_iters, dashes,
                        (long long)p->max_iters);
    if (p->min_time_ns > p->max_time_ns)
        return mb__fail(err, MB_EINVAL, "%smin-time is longer than %smax-time",
                        dashes, dashes);
    return MB_OK;
}
