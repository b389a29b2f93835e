/* runopts.c - parsing of the shared run options into an mb_plan. */
#include "runopts.h"

#include "cli.h"
#include "outputs.h"

#include <stdlib.h>
#include <string.h>

enum {
    O_THREADS = MB_RUNOPT_BASE,
    O_INTER,
    O_EXECMODE,
    O_OPTLEVEL,
    O_EP,
    O_DEVICE,
    O_ORTCONFIG,
    O_NOARENA,
    O_SAVEOPT,
    O_ORTLIB,
    O_VERBOSE,
    O_BACKEND,
    O_BACKENDOPT,
    O_BATCH,
    O_DIM,
    O_RANGE,
    O_SEED,
    O_DATA,
    O_WARMUP,
    O_WARMUPTIME,
    O_MINITER,
    O_MINTIME,
    O_MAXITER,
    O_MAXTIME,
    O_ITER,
    O_TARGETCI,
    O_PCT,
    O_LEAK,
    O_SAMPLES,
    O_SHAPE,
    O_PROCS,
    O_END
};

static const struct option shared[] = {
    {"threads", required_argument, NULL, O_THREADS},
    {"inter-threads", required_argument, NULL, O_INTER},
    {"execution-mode", required_argument, NULL, O_EXECMODE},
    {"opt-level", required_argument, NULL, O_OPTLEVEL},
    {"ep", required_argument, NULL, O_EP},
    {"device-id", required_argument, NULL, O_DEVICE},
    {"ort-config", required_argument, NULL, O_ORTCONFIG},
    {"no-arena", no_argument, NULL, O_NOARENA},
    {"save-optimized", required_argument, NULL, O_SAVEOPT},
    {"ort-lib", required_argument, NULL, O_ORTLIB},
    {"verbose", no_argument, NULL, O_VERBOSE},
    {"backend", required_argument, NULL, O_BACKEND},
    {"backend-opt", required_argument, NULL, O_BACKENDOPT},
    {"batch", required_argument, NULL, O_BATCH},
    {"dim", required_argument, NULL, O_DIM},
    {"input-range", required_argument, NULL, O_RANGE},
    {"seed", required_argument, NULL, O_SEED},
    {"data", required_argument, NULL, O_DATA},
    {"warmup", required_argument, NULL, O_WARMUP},
    {"warmup-time", required_argument, NULL, O_WARMUPTIME},
    {"min-iterations", required_argument, NULL, O_MINITER},
    {"min-time", required_argument, NULL, O_MINTIME},
    {"max-iterations", required_argument, NULL, O_MAXITER},
    {"max-time", required_argument, NULL, O_MAXTIME},
    {"iterations", required_argument, NULL, O_ITER},
    {"target-ci", required_argument, NULL, O_TARGETCI},
    {"percentile", required_argument, NULL, O_PCT},
    {"leak-check", no_argument, NULL, O_LEAK},
    {"save-samples", no_argument, NULL, O_SAMPLES},
    {"shape", required_argument, NULL, O_SHAPE},
    {"processes", required_argument, NULL, O_PROCS},
};
#define N_SHARED (sizeof shared / sizeof shared[0])

struct option *mb_cli_runopts_merge(const struct option *own, size_t n_own)
{
    struct option *t = calloc(n_own + N_SHARED + 1, sizeof *t);
    if (!t)
        return NULL;
    if (n_own)
        memcpy(t, own, n_own * sizeof *t);
    memcpy(t + n_own, shared, sizeof shared);
    return t;
}

struct option *mb_cli_runopts_merge_outputs(const struct option *own,
                                            size_t n_own)
{
    struct option *t = calloc(n_own + N_SHARED + MB_CLI_N_OUTPUT_OPTIONS + 1,
                              sizeof *t);
    if (!t)
        return NULL;
    if (n_own)
        memcpy(t, own, n_own * sizeof *t);
    memcpy(t + n_own, shared, sizeof shared);
    memcpy(t + n_own + N_SHARED, mb_cli_output_options,
           (MB_CLI_N_OUTPUT_OPTIONS + 1) * sizeof *t);
    return t;
}

static int set_opt(mb_plan *p, const char *k, const char *v)
{
    if (mb__plan_set_opt(p, k, v) != 0)
        return mb_cli_error(MB_EXIT_RUNTIME, "out of memory"), -1;
    return 1;
}

/* "NAME=VALUE" split; returns 0 on success. */
static int split_kv(const char *arg, char **k, const char **v)
{
    const char *eq = arg ? strchr(arg, '=') : NULL;
    if (!eq || eq == arg)
        return -1;
    *k = strndup(arg, (size_t)(eq - arg));
    *v = eq + 1;
    return *k ? 0 : -1;
}

static int handle(mb_plan *p, int c, const char *flag, const char *arg)
{
    int64_t v;
    double d;
    char *k = NULL;
    const char *val;
    switch (c) {
    case O_THREADS:
    case O_INTER:
        if (mb_cli_parse_i64(arg, 0, 4096, &v))
            return mb_cli_bad_value(flag, arg,
                                    "an integer from 0 (runtime default) to "
                                    "4096"),
                   -1;
        return set_opt(p, c == O_THREADS ? "threads" : "inter-threads", arg);
    case O_EXECMODE:
        if (strcmp(arg, "sequential") && strcmp(arg, "parallel"))
            return mb_cli_bad_value(flag, arg, "sequential or parallel"), -1;
        return set_opt(p, "execution-mode", arg);
    case O_OPTLEVEL:
        if (strcmp(arg, "disable") && strcmp(arg, "basic") &&
            strcmp(arg, "extended") && strcmp(arg, "layout") &&
            strcmp(arg, "all"))
            return mb_cli_bad_value(flag, arg,
                                    "disable, basic, extended, layout or all"),
                   -1;
        return set_opt(p, "opt-level", arg);
    case O_EP:
        if (!*arg)
            return mb_cli_bad_value(flag, arg, "cpu, cuda or a provider name"),
                   -1;
        return set_opt(p, "ep", arg);
    case O_DEVICE:
        if (mb_cli_parse_i64(arg, 0, 1024, &v))
            return mb_cli_bad_value(flag, arg, "a device number 0..1024"), -1;
        return set_opt(p, "device-id", arg);
    case O_ORTCONFIG: {
        if (split_kv(arg, &k, &val))
            return mb_cli_bad_value(flag, arg, "KEY=VALUE"), -1;
        size_t n = strlen(k) + 8;
        char *key = malloc(n);
        if (!key) {
            free(k);
            return -1;
        }
        snprintf(key, n, "config:%s", k);
        int r = set_opt(p, key, val);
        free(key);
        free(k);
        return r;
    }
    case O_NOARENA:
        return set_opt(p, "arena", "0");
    case O_SAVEOPT:
        /* the runtime writes it after loading: check it now, and stop
         * at once like the other outputs (exit 3, outputs.h) */
        if (mb_cli_output_check(flag, arg))
            exit(MB_EXIT_RUNTIME);
        return set_opt(p, "save-optimized", arg);
    case O_ORTLIB:
        free(p->ort_lib);
        p->ort_lib = strdup(arg);
        return 1;
    case O_VERBOSE:
        p->verbose = 1;
        return 1;
    case O_BACKEND:
        free(p->backend);
        p->backend = strdup(arg);
        return 1;
    case O_BACKENDOPT: {
        if (split_kv(arg, &k, &val))
            return mb_cli_bad_value(flag, arg, "KEY=VALUE"), -1;
        int r = set_opt(p, k, val);
        free(k);
        return r;
    }
    case O_BATCH: {
        int64_t *list;
        size_t n;
        if (mb_cli_parse_i64_list(arg, 1, 1 << 20, &list, &n))
            return mb_cli_bad_value(flag, arg,
                                    "positive batch sizes, comma-separated "
                                    "(1,2,4,8)"),
                   -1;
        free(p->batches);
        p->batches = list;
        p->n_batches = n;
        return 1;
    }
    case O_DIM: {
        if (split_kv(arg, &k, &val) || mb_cli_parse_i64(val, 1, 1LL << 40, &v)) {
            free(k);
            return mb_cli_bad_value(flag, arg,
                                    "NAME=VALUE with a positive integer"),
                   -1;
        }
        mb_dim_override *n =
            realloc(p->dims, (p->n_dims + 1) * sizeof *p->dims);
        if (!n) {
            free(k);
            return -1;
        }
        p->dims = n;
        p->dims[p->n_dims++] = (mb_dim_override){k, v};
        /* also tell the runtime, so it can specialise the graph */
        size_t kl = strlen(k) + 5;
        char *key = malloc(kl);
        if (key) {
            snprintf(key, kl, "dim:%s", k);
            if (!p->backend || strcmp(p->backend, "ort") == 0)
                set_opt(p, key, val);
            free(key);
        }
        return 1;
    }
    case O_RANGE: {
        double lo, hi;
        char *colon;
        if (split_kv(arg, &k, &val) || !(colon = strchr(val, ':'))) {
            free(k);
            return mb_cli_bad_value(flag, arg, "NAME=LO:HI (e.g. ids=0:30521)"),
                   -1;
        }
        char *los = strndup(val, (size_t)(colon - val));
        int bad = !los ||
                  mb_cli_parse_double(los, -1e300, 1e300, &lo) ||
                  mb_cli_parse_double(colon + 1, -1e300, 1e300, &hi) ||
                  hi < lo;
        free(los);
        if (bad) {
            free(k);
            return mb_cli_bad_value(flag, arg,
                                    "NAME=LO:HI with numbers and LO <= HI"),
                   -1;
        }
        mb_input_range *n =
            realloc(p->ranges, (p->n_ranges + 1) * sizeof *p->ranges);
        if (!n) {
            free(k);
            return -1;
        }
        p->ranges = n;
        p->ranges[p->n_ranges++] = (mb_input_range){k, lo, hi};
        return 1;
    }
    case O_SEED:
        if (mb_cli_parse_i64(arg, 0, INT64_MAX, &v))
            return mb_cli_bad_value(flag, arg, "a non-negative integer"), -1;
        p->seed = (uint64_t)v;
        return 1;
    case O_DATA:
        free(p->data_path);
        p->data_path = strdup(arg);
        return 1;
    case O_WARMUP:
    case O_MINITER:
    case O_MAXITER:
    case O_ITER:
        if (mb_cli_parse_i64(arg, c == O_WARMUP ? 0 : 1, 1000000000, &v))
            return mb_cli_bad_value(flag, arg,
                                    c == O_WARMUP
                                        ? "a non-negative iteration count"
                                        : "a positive iteration count"),
                   -1;
        if (c == O_WARMUP)
            p->warmup_iters = v;
        else if (c == O_MINITER)
            p->min_iters = v;
        else if (c == O_MAXITER)
            p->max_iters = v;
        else
            p->fixed_iters = v;
        return 1;
    case O_PROCS:
        if (mb_cli_parse_i64(arg, 1, 1000, &v))
            return mb_cli_bad_value(flag, arg,
                                    "a process count from 1 to 1000"),
                   -1;
        p->processes = (int)v;
        return 1;
    case O_WARMUPTIME:
    case O_MINTIME:
    case O_MAXTIME:
        if (mb_cli_parse_duration_ns(arg, &v))
            return mb_cli_bad_value(flag, arg,
                                    "a duration such as 2s, 500ms or 1m"),
                   -1;
        if (c == O_WARMUPTIME)
            p->warmup_time_ns = v;
        else if (c == O_MINTIME)
            p->min_time_ns = v;
        else
            p->max_time_ns = v;
        return 1;
    case O_TARGETCI: {
        char buf[64];
        snprintf(buf, sizeof buf, "%s", arg);
        size_t L = strlen(buf);
        int pct = L && buf[L - 1] == '%';
        if (pct)
            buf[L - 1] = '\0';
        if (mb_cli_parse_double(buf, 0, pct ? 100 : 1, &d) || d <= 0)
            return mb_cli_bad_value(flag, arg,
                                    "a relative half-width such as 0.01 or "
                                    "1%"),
                   -1;
        p->target_ci = pct ? d / 100 : d;
        return 1;
    }
    case O_PCT: {
        if (mb_cli_parse_double(arg, 0, 100, &d))
            return mb_cli_bad_value(flag, arg, "a percentile in [0, 100]"), -1;
        double *n =
            realloc(p->percentiles, (p->n_percentiles + 1) * sizeof(double));
        if (!n)
            return -1;
        p->percentiles = n;
        p->percentiles[p->n_percentiles++] = d;
        return 1;
    }
    case O_LEAK:
        p->leak_check = 1;
        return 1;
    case O_SHAPE: {
        int64_t *list = NULL;
        size_t n = 0;
        if (split_kv(arg, &k, &val) ||
            (*val && mb_cli_parse_i64_list(val, 0, 1LL << 40, &list, &n)) ||
            n > MB_MAX_RANK) {
            free(k);
            free(list);
            return mb_cli_bad_value(flag, arg,
                                    "NAME=D0,D1,... (NAME= for a scalar)"),
                   -1;
        }
        int r = mb__plan_set_shape(p, k, list, (int)n);
        free(k);
        free(list);
        return r ? -1 : 1;
    }
    case O_SAMPLES:
        p->save_samples = 1;
        return 1;
    }
    return 0;
}

int mb_cli_runopts_handle(mb_plan *p, int c, const char *arg)
{
    if (c < MB_RUNOPT_BASE || c >= O_END)
        return 0;
    char flag[64];
    snprintf(flag, sizeof flag, "--%s", shared[c - MB_RUNOPT_BASE].name);
    return handle(p, c, flag, arg);
}

int mb_cli_runopts_apply_kv(mb_plan *p, const char *key, const char *value)
{
    for (size_t i = 0; i < N_SHARED; i++) {
        if (strcmp(shared[i].name, key) == 0) {
            if (shared[i].has_arg == no_argument && value && *value &&
                strcmp(value, "1") != 0 && strcmp(value, "true") != 0)
                return mb_cli_bad_value(key, value, "no value (a switch)"), -1;
            char flag[64];
            snprintf(flag, sizeof flag, "%s=", key);
            return handle(p, shared[i].val, key, value ? value : "") < 0 ? -1
                                                                          : 0;
        }
    }
    return mb_cli_error(MB_EXIT_USAGE,
                        "unknown variant option '%s'; variant options are "
                        "the run options without dashes (threads=2, "
                        "opt-level=all, ...)",
                        key),
           -1;
}

int mb_cli_runopts_finish(mb_plan *p)
{
    if (p->fixed_iters == 0 && p->min_iters > p->max_iters)
        return mb_cli_error(MB_EXIT_USAGE,
                            "--min-iterations (%lld) is larger than "
                            "--max-iterations (%lld)",
                            (long long)p->min_iters, (long long)p->max_iters),
               -1;
    if (p->min_time_ns > p->max_time_ns)
        return mb_cli_error(MB_EXIT_USAGE,
                            "--min-time is longer than --max-time"),
               -1;
    return 0;
}

void mb_cli_runopts_usage(FILE *f)
{
    fputs(
        "Runtime options:\n"
        "  --threads N             intra-op threads (0 = runtime default)\n"
        "  --inter-threads N       inter-op threads (parallel mode)\n"
        "  --execution-mode M      sequential | parallel\n"
        "  --opt-level L           disable | basic | extended | layout | all\n"
        "  --ep NAME               execution provider: cpu (default), cuda, ...\n"
        "  --device-id N           device for the execution provider\n"
        "  --ort-config KEY=VALUE  ONNX Runtime session config entry "
        "(repeatable)\n"
        "  --no-arena              disable the CPU memory arena\n"
        "  --save-optimized PATH   save the optimized graph\n"
        "  --ort-lib PATH          libonnxruntime.so.1 to load\n"
        "  --backend NAME|PATH     ort (default), null, or a plugin .so\n"
        "  --backend-opt KEY=VALUE a backend option (repeatable)\n"
        "  --verbose               show the runtime's own log lines\n"
        "Inputs:\n"
        "  --batch LIST            batch sizes, e.g. 1,2,4,8 (default 1)\n"
        "  --dim NAME=VALUE        value of a symbolic dimension (repeatable)\n"
        "  --input-range NAME=LO:HI  value range of synthetic input NAME\n"
        "  --shape NAME=D0,D1,...  whole shape of input NAME (NAME= for a "
        "scalar)\n"
        "  --seed N                seed of synthetic inputs (default 42)\n"
        "  --data PATH             real inputs (.npy, .npz, .pb, directory)\n"
        "Measurement:\n"
        "  --warmup N              warmup iterations (default 10)\n"
        "  --warmup-time D         and at least this long (default 0)\n"
        "  --min-iterations N      (default 100)   --min-time D (default 1s);\n"
        "                          totals, split over the processes\n"
        "  --max-iterations N      (default 100000) --max-time D (default "
        "30s)\n"
        "  --processes K           measure in K fresh processes, the unit of\n"
        "                          replication of every CI (default 40; 1 =\n"
        "                          one process, CI of within-run noise only)\n"
        "  --target-ci F           with --processes 1: stop when the CI of the\n"
        "                          median is within F of it (default 1%)\n"
        "  --iterations N          exactly N iterations (split over processes)\n"
        "  --percentile Q          also report percentile Q (repeatable)\n"
        "  --leak-check            fit the RSS slope and flag growth\n"
        "  --save-samples          keep raw samples in the JSON\n",
        f);
}
