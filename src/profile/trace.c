/* trace.c - reading ORT's Chrome-trace JSON and aggregating kernel times
 * per operator type and per node over the steady-state runs. */
#include "profile/trace.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/fileio.h"
#include "profile/flops.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct tev {
    char *node;     /* name without "_kernel_time" (owned) */
    const char *op; /* borrowed from the JSON */
    const char *provider;
    json_t *args; /* borrowed */
    int64_t ts_ns, dur_ns;
    int64_t self_ns;    /* dur_ns minus the nested kernels (exclusive) */
    int64_t child_ns;   /* sum of the directly nested kernels' dur_ns */
    int64_t tid;        /* thread, -1 when the trace does not say */
    const char *parent; /* node of the enclosing If/Loop/Scan, or NULL */
    const char *parent_op;
    int container; /* an operator that runs subgraphs */
    size_t run;    /* index into runs, or SIZE_MAX */
    int64_t macs;
    mb__flops_basis basis;
} tev;

typedef struct trun {
    int64_t ts_ns, dur_ns;
    int64_t kernel_ns;   /* sum of exclusive kernel times inside */
    int64_t subgraph_ns; /* the part of it inside If/Loop/Scan subgraphs */
} trun;

struct mb__trace {
    json_t *root;
    tev *ev;
    size_t n_ev, cap_ev;
    trun *runs;
    size_t n_runs, cap_runs;
};

/* An integer that ORT may write as a number or as a string. */
static int json_i64(const json_t *v, int64_t *out)
{
    if (json_is_integer(v)) {
        *out = json_integer_value(v);
        return 1;
    }
    if (json_is_real(v)) {
        /* outside int64's range (or NaN) is no integer: converting it
         * would be undefined */
        double d = json_real_value(v);
        if (!(d > -9.2e18 && d < 9.2e18))
            return 0;
        *out = (int64_t)(d + 0.5);
        return 1;
    }
    if (json_is_string(v)) {
        char *end;
        const char *s = json_string_value(v);
        long long x = strtoll(s, &end, 10);
        if (end != s && *end == '\0') {
            *out = x;
            return 1;
        }
    }
    return 0;
}

/* Microseconds (the trace's unit) as a number or a numeric string to ns. */
static int json_us_to_ns(const json_t *v, int64_t *out)
{
    if (json_is_real(v)) {
        /* as the integers below: negative, too large (or NaN) is no time */
        double us = json_real_value(v);
        if (!(us >= 0 && us < 9.2e15))
            return 0;
        *out = (int64_t)(us * 1000.0 + 0.5);
        return 1;
    }
    int64_t us;
    if (!json_i64(v, &us) || us < 0 || us > INT64_MAX / 1000)
        return 0;
    *out = us * 1000;
    return 1;
}

/* Reads [{"float": [1,3,224,224]}, ...] into at most max shapes. */
static size_t read_shapes(const json_t *arr, mb__tshape *out, size_t max)
{
    size_t n = 0, i;
    json_t *item;
    if (!json_is_array(arr))
        return 0;
    json_array_foreach(arr, i, item)
    {
        const char *key;
        json_t *dims;
        if (n == max)
            break;
        json_object_foreach((json_t *)item, key, dims)
        {
            mb__tshape *s = &out[n];
            memset(s, 0, sizeof *s);
            s->dtype = key;
            size_t j;
            json_t *d;
            if (!json_is_array(dims) || json_array_size(dims) > MB_MAX_RANK) {
                s->rank = -1;
            } else {
                json_array_foreach(dims, j, d)
                {
                    if (!json_i64(d, &s->dims[j]))
                        s->dims[j] = -1;
                }
                s->rank = (int)json_array_size(dims);
            }
            n++;
            break;
        }
    }
    return n;
}

#define MAX_IO 32

static void estimate(tev *e)
{
    mb__tshape in[MAX_IO], out[MAX_IO];
    size_t ni =
        read_shapes(json_object_get(e->args, "input_type_shape"), in, MAX_IO);
    size_t no =
        read_shapes(json_object_get(e->args, "output_type_shape"), out, MAX_IO);
    e->basis = mb__flops_macs(e->op, in, ni, out, no, &e->macs);
}

/* Operators that run subgraphs: ONNX Runtime's profiler writes an event
 * for the operator and one for every kernel of its subgraph, nested inside
 * it in time on the same thread. */
static int has_subgraphs(const char *op)
{
    static const char *const OPS[] = {
        "If",         "Loop",         "Scan",     "SequenceMap",
        "BeamSearch", "GreedySearch", "Sampling", "WhisperBeamSearch"};
    for (size_t i = 0; i < sizeof OPS / sizeof *OPS; i++)
        if (strcmp(op, OPS[i]) == 0)
            return 1;
    return 0;
}

static mb_status add_event(mb__trace *t, json_t *e, mb_err *err)
{
    const char *cat = json_string_value(json_object_get(e, "cat"));
    const char *name = json_string_value(json_object_get(e, "name"));
    const char *ph = json_string_value(json_object_get(e, "ph"));
    int64_t ts, dur;
    if (!cat || !name || (ph && strcmp(ph, "X") != 0))
        return MB_OK;
    if (!json_us_to_ns(json_object_get(e, "ts"), &ts) ||
        !json_us_to_ns(json_object_get(e, "dur"), &dur))
        return MB_OK;
    int64_t tid;
    if (!json_i64(json_object_get(e, "tid"), &tid))
        tid = -1;
    if (strcmp(cat, "Session") == 0 && strcmp(name, "model_run") == 0) {
        if (!mb__grow((void **)&t->runs, &t->cap_runs, t->n_runs + 1,
                      sizeof *t->runs))
            return mb__fail(err, MB_ENOMEM, "out of memory reading a trace");
        t->runs[t->n_runs++] = (trun){ts, dur, 0, 0};
        return MB_OK;
    }
    if (strcmp(cat, "Node") != 0)
        return MB_OK;
    static const char SUFFIX[] = "_kernel_time";
    size_t len = strlen(name), sl = sizeof SUFFIX - 1;
    if (len <= sl || strcmp(name + len - sl, SUFFIX) != 0)
        return MB_OK; /* fence events of older runtimes */
    json_t *args = json_object_get(e, "args");
    const char *op = json_string_value(json_object_get(args, "op_name"));
    const char *prov = json_string_value(json_object_get(args, "provider"));
    if (!mb__grow((void **)&t->ev, &t->cap_ev, t->n_ev + 1, sizeof *t->ev))
        return mb__fail(err, MB_ENOMEM, "out of memory reading a trace");
    tev *v = &t->ev[t->n_ev];
    memset(v, 0, sizeof *v);
    v->node = mb__strndup(name, len - sl);
    if (!v->node)
        return mb__fail(err, MB_ENOMEM, "out of memory reading a trace");
    t->n_ev++;
    v->op = op ? op : "unknown";
    v->provider = prov ? prov : "unknown";
    v->args = args;
    v->ts_ns = ts;
    v->dur_ns = dur;
    v->self_ns = dur;
    v->tid = tid;
    v->container = has_subgraphs(v->op);
    v->run = SIZE_MAX;
    estimate(v);
    return MB_OK;
}

static int cmp_run(const void *a, const void *b)
{
    const trun *x = a, *y = b;
    return (x->ts_ns > y->ts_ns) - (x->ts_ns < y->ts_ns);
}

/* The run whose window holds ts, or SIZE_MAX. */
static size_t find_run(const mb__trace *t, int64_t ts)
{
    size_t lo = 0, hi = t->n_runs;
    while (lo < hi) { /* first run starting after ts */
        size_t mid = lo + (hi - lo) / 2;
        if (t->runs[mid].ts_ns <= ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return SIZE_MAX;
    const trun *r = &t->runs[lo - 1];
    return ts <= r->ts_ns + r->dur_ns ? lo - 1 : SIZE_MAX;
}

typedef struct tord {
    const tev *e;
    size_t i;
} tord;

static int cmp_tord(const void *a, const void *b)
{
    const tev *x = ((const tord *)a)->e, *y = ((const tord *)b)->e;
    if (x->tid != y->tid)
        return (x->tid > y->tid) - (x->tid < y->tid);
    if (x->ts_ns != y->ts_ns)
        return (x->ts_ns > y->ts_ns) - (x->ts_ns < y->ts_ns);
    if (x->dur_ns != y->dur_ns)
        return (x->dur_ns < y->dur_ns) - (x->dur_ns > y->dur_ns);
    size_t p = ((const tord *)a)->i, q = ((const tord *)b)->i;
    return (p > q) - (p < q);
}

/* ONNX Runtime rounds ts and dur to microseconds separately, so an inner
 * kernel may appear to end up to a microsecond after its If/Loop/Scan. */
#define NEST_SLACK_NS 1000

/* Finds, for every kernel, the If/Loop/Scan (on the same thread) whose
 * span holds it, and gives every If/Loop/Scan its exclusive time: its
 * span minus the kernels of its subgraphs, which are counted under their
 * own rows.  Nothing is then counted twice. */
static mb_status nest_events(mb__trace *t, mb_err *err)
{
    if (t->n_ev == 0)
        return MB_OK;
    tord *o = mb__calloc(t->n_ev, sizeof *o);
    size_t *stack = mb__calloc(t->n_ev, sizeof *stack);
    if (!o || !stack) {
        free(o);
        free(stack);
        return mb__fail(err, MB_ENOMEM, "out of memory reading a trace");
    }
    for (size_t i = 0; i < t->n_ev; i++)
        o[i] = (tord){&t->ev[i], i};
    qsort(o, t->n_ev, sizeof *o, cmp_tord);
    size_t depth = 0;
    for (size_t k = 0; k < t->n_ev; k++) {
        tev *e = &t->ev[o[k].i];
        while (depth > 0) {
            const tev *c = &t->ev[stack[depth - 1]];
            if (c->tid == e->tid && e->ts_ns < c->ts_ns + c->dur_ns &&
                e->ts_ns + e->dur_ns <= c->ts_ns + c->dur_ns + NEST_SLACK_NS)
                break;
            depth--;
        }
        if (depth > 0) {
            tev *c = &t->ev[stack[depth - 1]];
            e->parent = c->node;
            e->parent_op = c->op;
            c->child_ns += e->dur_ns;
        }
        if (e->container)
            stack[depth++] = o[k].i;
    }
    for (size_t i = 0; i < t->n_ev; i++) {
        tev *e = &t->ev[i];
        e->self_ns = e->dur_ns > e->child_ns ? e->dur_ns - e->child_ns : 0;
    }
    free(o);
    free(stack);
    return MB_OK;
}

mb_status mb__trace_parse(const char *text, size_t len, const char *what,
                          mb__trace **out, mb_err *err)
{
    *out = NULL;
    json_error_t je;
    json_t *root = json_loadb(text, len, 0, &je);
    if (!root)
        return mb__fail(err, MB_EFORMAT,
                        "%s: not a JSON trace (line %d: %s); pass the file "
                        "ONNX Runtime's profiler wrote",
                        what, je.line, je.text);
    json_t *events =
        json_is_object(root) ? json_object_get(root, "traceEvents") : root;
    if (!json_is_array(events)) {
        json_decref(root);
        return mb__fail(err, MB_EFORMAT,
                        "%s: not a Chrome trace (expected an array of "
                        "events or {\"traceEvents\": [...]})",
                        what);
    }
    mb__trace *t = mb__calloc(1, sizeof *t);
    if (!t) {
        json_decref(root);
        return mb__fail(err, MB_ENOMEM, "out of memory reading %s", what);
    }
    t->root = root;
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e)
    {
        if (!json_is_object(e))
            continue;
        mb_status s = add_event(t, e, err);
        if (s) {
            mb__trace_free(t);
            return s;
        }
    }
    if (t->n_runs == 0) {
        mb__trace_free(t);
        return mb__fail(err, MB_EFORMAT,
                        "%s: no Session model_run event in the trace; was "
                        "the session run with profiling enabled?",
                        what);
    }
    qsort(t->runs, t->n_runs, sizeof *t->runs, cmp_run);
    mb_status ns = nest_events(t, err);
    if (ns) {
        mb__trace_free(t);
        return ns;
    }
    for (i = 0; i < t->n_ev; i++) {
        t->ev[i].run = find_run(t, t->ev[i].ts_ns);
        if (t->ev[i].run != SIZE_MAX) {
            t->runs[t->ev[i].run].kernel_ns += t->ev[i].self_ns;
            if (t->ev[i].parent)
                t->runs[t->ev[i].run].subgraph_ns += t->ev[i].self_ns;
        }
    }
    *out = t;
    return MB_OK;
}

mb_status mb__trace_load(const char *path, mb__trace **out, mb_err *err)
{
    char *text;
    size_t len;
    *out = NULL;
    mb_status s = mb__read_file(path, &text, &len, err);
    if (s)
        return s;
    s = mb__trace_parse(text, len, path, out, err);
    free(text);
    return s;
}

void mb__trace_free(mb__trace *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n_ev; i++)
        free(t->ev[i].node);
    free(t->ev);
    free(t->runs);
    json_decref(t->root);
    free(t);
}

size_t mb__trace_runs(const mb__trace *t)
{
    return t ? t->n_runs : 0;
}

/* ---- aggregation ---------------------------------------------------- */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Median of n values (sorted in place). */
static double median_i64(int64_t *v, size_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, cmp_i64);
    return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + v[n / 2]) / 2.0;
}

static const char *g_key_op(const tev *e)
{
    return e->op;
}
static const char *g_key_node(const tev *e)
{
    return e->node;
}

typedef const char *(*key_fn)(const tev *);

/* qsort has no user pointer; the key is chosen by a flag in the array. */
typedef struct sref {
    const tev *e;
    const char *key;
} sref;

static int cmp_sref(const void *a, const void *b)
{
    const sref *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    if (c)
        return c;
    return (x->e > y->e) - (x->e < y->e); /* stable: trace order */
}

static int cmp_total_desc(const void *a, const void *b)
{
    json_int_t x =
        json_integer_value(json_object_get(*(json_t *const *)a, "total_ns"));
    json_int_t y =
        json_integer_value(json_object_get(*(json_t *const *)b, "total_ns"));
    return (x < y) - (x > y);
}

static json_t *shapes_json(const json_t *arr)
{
    json_t *out = json_array();
    size_t i;
    json_t *item;
    json_array_foreach(arr, i, item)
    {
        const char *key;
        json_t *dims;
        json_object_foreach((json_t *)item, key, dims)
        {
            json_array_append_new(
                out, json_pack("{s:s, s:O}", "dtype", key, "shape", dims));
            break;
        }
    }
    return out;
}

/* What the events of one group add up to. */
typedef struct gsum {
    int64_t total, macs, unest_ns, inner;
    int exact, assumed, unknown, container;
} gsum;

/* The row of the cnt events s[0..cnt) of one group (d: scratch for cnt
 * durations). */
static json_t *group_row(const sref *s, size_t cnt, int64_t *d, int with_node,
                         size_t nruns, int64_t run_total_ns)
{
    gsum g = {0};
    for (size_t j = 0; j < cnt; j++) {
        const tev *e = s[j].e;
        d[j] = e->self_ns;
        g.total += e->self_ns;
        g.inner += e->child_ns;
        g.container |= e->container;
        g.macs += e->macs;
        g.exact += e->basis == MB_FLOPS_EXACT;
        g.assumed += e->basis == MB_FLOPS_ASSUMED;
        if (e->basis == MB_FLOPS_UNKNOWN) {
            g.unknown++;
            g.unest_ns += e->self_ns;
        }
    }
    const char *basis = g.unknown
                            ? (g.exact + g.assumed ? "partial" : "unknown")
                        : g.assumed ? "assumed"
                        : g.exact   ? "exact"
                                    : "none";
    json_t *row = json_object();
    json_object_set_new(row, with_node ? "name" : "op_type",
                        json_string(s[0].key));
    if (with_node) {
        const tev *e = s[0].e;
        json_object_set_new(row, "op_type", json_string(e->op));
        json_object_set_new(row, "provider", json_string(e->provider));
        json_object_set_new(
            row, "inputs",
            shapes_json(json_object_get(e->args, "input_type_shape")));
        json_object_set_new(
            row, "outputs",
            shapes_json(json_object_get(e->args, "output_type_shape")));
        if (e->parent) {
            json_object_set_new(row, "parent", json_string(e->parent));
            json_object_set_new(row, "parent_op_type",
                                json_string(e->parent_op));
        }
    }
    if (g.container) {
        /* total_ns is the operator's own time; its subgraphs' kernels are
         * rows of their own */
        json_object_set_new(row, "subgraph_ns", json_integer(g.inner));
        json_object_set_new(row, "inclusive_ns",
                            json_integer(g.total + g.inner));
    }
    int64_t total = g.total, macs = g.macs;
    json_object_set_new(row, "count", json_integer((json_int_t)cnt));
    json_object_set_new(row, "calls_per_run",
                        json_real((double)cnt / (double)nruns));
    json_object_set_new(row, "total_ns", json_integer(total));
    json_object_set_new(
        row, "mean_ns",
        json_integer((total + (int64_t)cnt / 2) / (int64_t)cnt));
    json_object_set_new(row, "median_ns",
                        json_integer((json_int_t)(median_i64(d, cnt) + 0.5)));
    json_object_set_new(row, "per_run_ns",
                        json_integer(total / (int64_t)nruns));
    json_object_set_new(
        row, "share",
        json_real(run_total_ns > 0 ? (double)total / run_total_ns : 0.0));
    json_object_set_new(row, "macs_per_run",
                        json_integer(macs / (int64_t)nruns));
    json_object_set_new(row, "flops_per_run",
                        json_integer(2 * (macs / (int64_t)nruns)));
    json_object_set_new(row, "flops_basis", json_string(basis));
    json_object_set_new(row, "unestimated_ns", json_integer(g.unest_ns));
    return row;
}

/* Appends the rows of list to rows by total time, largest first; false
 * when memory runs out.  Takes list. */
static bool append_by_total(json_t *list, json_t *rows)
{
    size_t nr = json_array_size(list);
    json_t **tmp = mb__calloc(nr ? nr : 1, sizeof *tmp);
    if (!tmp) {
        json_decref(list);
        return false;
    }
    for (size_t i = 0; i < nr; i++)
        tmp[i] = json_array_get(list, i);
    qsort(tmp, nr, sizeof *tmp, cmp_total_desc);
    for (size_t i = 0; i < nr; i++)
        json_array_append(rows, tmp[i]);
    free(tmp);
    json_decref(list);
    return true;
}

/* Groups events by key and appends one row per group to rows; false when
 * memory runs out. */
static bool group_rows(const tev *ev, size_t n, key_fn key, int with_node,
                       size_t nruns, int64_t run_total_ns, json_t *rows)
{
    sref *s = mb__calloc(n ? n : 1, sizeof *s);
    int64_t *d = mb__calloc(n ? n : 1, sizeof *d);
    if (!s || !d) {
        free(s);
        free(d);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        s[i] = (sref){&ev[i], key(&ev[i])};
    qsort(s, n, sizeof *s, cmp_sref);
    json_t *list = json_array();
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && strcmp(s[j].key, s[i].key) == 0)
            j++;
        json_array_append_new(
            list, group_row(s + i, j - i, d, with_node, nruns, run_total_ns));
        i = j;
    }
    free(s);
    free(d);
    return append_by_total(list, rows);
}

/* What the used events add up to. */
typedef struct ev_sums {
    int64_t macs, unest;
    int nchwc; /* the NCHWc layout's reorders or nodes were seen */
} ev_sums;

/* Copies the events of the runs after skip into ev; returns how many. */
static size_t used_events(const mb__trace *t, size_t skip, tev *ev, ev_sums *es)
{
    size_t n = 0;
    for (size_t i = 0; i < t->n_ev; i++) {
        const tev *e = &t->ev[i];
        if (e->run == SIZE_MAX || e->run < skip)
            continue;
        ev[n++] = *e;
        es->macs += e->macs;
        size_t nl = strlen(e->node);
        if (strcmp(e->op, "ReorderInput") == 0 ||
            strcmp(e->op, "ReorderOutput") == 0 ||
            (nl > 6 && strcmp(e->node + nl - 6, "_nchwc") == 0))
            es->nchwc = 1;
        if (e->basis == MB_FLOPS_UNKNOWN)
            es->unest += e->self_ns;
    }
    return n;
}

/* The "reconcile" object: model_run times against the sum of kernels,
 * medians and means over the used runs; the totals into *run_total and
 * *kern_total.  NULL when memory runs out. */
static json_t *reconcile_json(const mb__trace *t, size_t skip,
                              int64_t *run_total, int64_t *kern_total)
{
    size_t nruns = t->n_runs - skip;
    int64_t *rd = mb__calloc(nruns, sizeof *rd);
    int64_t *rk = mb__calloc(nruns, sizeof *rk);
    int64_t *ro = mb__calloc(nruns, sizeof *ro);
    int64_t *rs = mb__calloc(nruns, sizeof *rs);
    json_t *rec = NULL;
    int64_t sub = 0, rt = 0, kt = 0, nr = (int64_t)nruns;
    if (!rd || !rk || !ro || !rs)
        goto done;
    for (size_t r = 0; r < nruns; r++) {
        const trun *x = &t->runs[skip + r];
        rd[r] = x->dur_ns;
        rk[r] = x->kernel_ns;
        ro[r] = x->dur_ns - x->kernel_ns;
        rt += x->dur_ns;
        kt += x->kernel_ns;
        sub += x->subgraph_ns;
        rs[r] = x->subgraph_ns;
    }
    rec = json_pack(
        "{s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:I, s:I}", "model_run_median_ns",
        (json_int_t)median_i64(rd, nruns), "model_run_mean_ns",
        (json_int_t)(rt / nr), "kernel_sum_median_ns",
        (json_int_t)median_i64(rk, nruns), "kernel_sum_mean_ns",
        (json_int_t)(kt / nr), "framework_overhead_median_ns",
        (json_int_t)median_i64(ro, nruns), "framework_overhead_mean_ns",
        (json_int_t)((rt - kt) / nr), "kernel_share_of_model_run",
        rt > 0 ? (double)kt / rt : 0.0, "subgraph_kernel_median_ns",
        (json_int_t)median_i64(rs, nruns), "subgraph_kernel_mean_ns",
        (json_int_t)(sub / nr));
    *run_total = rt;
    *kern_total = kt;
done:
    free(rd);
    free(rk);
    free(ro);
    free(rs);
    return rec;
}

mb_status mb__trace_profile(const mb__trace *t, size_t skip, json_t **out,
                            mb_err *err)
{
    *out = NULL;
    if (t->n_runs <= skip)
        return mb__fail(err, MB_EFORMAT,
                        "the trace has %zu model_run event(s), none left "
                        "after skipping %zu warm-up run(s); profile more "
                        "iterations",
                        t->n_runs, skip);
    size_t nruns = t->n_runs - skip;
    int64_t run_total = 0, kern_total = 0;
    tev *ev = mb__calloc(t->n_ev ? t->n_ev : 1, sizeof *ev);
    json_t *rec = ev ? reconcile_json(t, skip, &run_total, &kern_total) : NULL;
    if (!ev || !rec) {
        free(ev);
        return mb__fail(err, MB_ENOMEM, "out of memory aggregating a trace");
    }
    ev_sums es = {0};
    size_t n = used_events(t, skip, ev, &es);
    json_t *p = json_object();
    json_object_set_new(p, "source", json_string("onnxruntime profiler"));
    json_object_set_new(p, "runs",
                        json_pack("{s:I, s:I, s:I}", "total",
                                  (json_int_t)t->n_runs, "skipped",
                                  (json_int_t)skip, "used", (json_int_t)nruns));
    json_object_set_new(p, "reconcile", rec);
    json_t *ops = json_array(), *nodes = json_array();
    bool bad = !group_rows(ev, n, g_key_op, 0, nruns, run_total, ops) ||
               !group_rows(ev, n, g_key_node, 1, nruns, run_total, nodes);
    free(ev);
    json_object_set_new(p, "op_types", ops);
    json_object_set_new(p, "nodes", nodes);
    json_object_set_new(
        p, "work",
        json_pack("{s:I, s:I, s:f, s:b, s:s}", "macs_per_run",
                  (json_int_t)(es.macs / (int64_t)nruns), "flops_per_run",
                  (json_int_t)(2 * (es.macs / (int64_t)nruns)),
                  "unestimated_share",
                  kern_total > 0 ? (double)es.unest / kern_total : 0.0,
                  "nchwc_layout", es.nchwc, "rule",
                  "FLOPs = 2 x MACs of Conv/ConvTranspose/MatMul/Gemm and "
                  "their fused and quantized forms; see docs/PROFILE.md"));
    if (bad) {
        json_decref(p);
        return mb__fail(err, MB_ENOMEM, "out of memory aggregating a trace");
    }
    *out = p;
    return MB_OK;
}
