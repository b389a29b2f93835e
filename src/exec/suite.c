/* suite.c - speedup tables and shard merging for suite documents. */
#include "exec/suite.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/repstats.h"
#include "core/rng.h"
#include "core/stats.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double *samples_of(const json_t *run, size_t *n)
{
    const json_t *s = json_object_get(run, "samples_ns");
    *n = 0;
    if (json_array_size(s) == 0) {
        /* Fall back to the median alone (a model run without raw samples). */
        const json_t *m =
            json_object_get(json_object_get(run, "latency"), "median");
        if (!json_is_number(m))
            return NULL;
        double *v = mb__calloc(1, sizeof *v);
        if (v) {
            v[0] = json_number_value(m);
            *n = 1;
        }
        return v;
    }
    double *v = mb__calloc(json_array_size(s), sizeof *v);
    size_t i;
    json_t *x;
    json_array_foreach((json_t *)s, i, x) if (v) v[(*n)++] =
        json_number_value(x);
    return v;
}

static const char *group_of(const json_t *run)
{
    return json_string_value(
        json_object_get(json_object_get(run, "task"), "group"));
}

/* The k positive numbers of array arr into a new array (NULL when none). */
static double *positives(const json_t *arr, size_t *k)
{
    *k = 0;
    double *v =
        mb__calloc(json_array_size(arr) ? json_array_size(arr) : 1, sizeof *v);
    size_t i;
    json_t *x;
    json_array_foreach((json_t *)arr, i, x) if (v && json_number_value(x) > 0)
        v[(*k)++] = json_number_value(x);
    return v;
}

/* {speedup, speedup_ci95, p_value, runs} of per-run figures b against a:
 * ratio of geometric means with Welch's t over runs (repstats.h); only the
 * point estimate (ratio of medians) when a side has fewer than 2 runs. */
static json_t *ratio_entry(const json_t *ra, const json_t *rb, double med_a,
                           double med_b)
{
    size_t ka, kb;
    double *a = positives(ra, &ka), *b = positives(rb, &kb);
    mb__ratio r;
    json_t *o = NULL;
    if (a && b && ka >= 2 && kb >= 2 &&
        mb__ratio_welch(a, ka, b, kb, 0.95, &r) && r.ok && r.ratio > 0)
        o = json_pack("{s:f,s:{s:f,s:f},s:f,s:s}", "speedup", 1 / r.ratio,
                      "speedup_ci95", "lo", 1 / r.hi, "hi", 1 / r.lo, "p_value",
                      r.p, "method",
                      "ratio of geometric means of per-run figures, Welch t "
                      "over runs, 95%");
    else if (med_a > 0 && med_b > 0)
        o = json_pack("{s:f,s:n,s:n}", "speedup", med_a / med_b, "speedup_ci95",
                      "p_value");
    free(a);
    free(b);
    return o;
}

/* A phase's (loop's) point figure and per-run figures in a run's "exec"
 * section: phases carry median_ns and runs_ns, loops a latency median and
 * the per-process medians of their replication. */
static double section_figures(const json_t *x, bool phases, const json_t **runs)
{
    if (phases) {
        *runs = json_object_get(x, "runs_ns");
        return json_number_value(json_object_get(x, "median_ns"));
    }
    *runs = json_object_get(
        json_object_get(json_object_get(x, "replication"), "per_process"),
        "median");
    return json_number_value(
        json_object_get(json_object_get(x, "latency"), "median"));
}

/* Speedups of every entry of exec.phases (phases) or exec.loops that base
 * and run both report.  A phase needs a positive median on both sides and
 * also records both medians; a loop keeps any entry ratio_entry gives. */
static json_t *section_speedups(const json_t *base, const json_t *run,
                                bool phases)
{
    const char *section = phases ? "phases" : "loops";
    json_t *o = json_object();
    const json_t *sb = json_object_get(json_object_get(base, "exec"), section);
    const json_t *sr = json_object_get(json_object_get(run, "exec"), section);
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)sb, k, v)
    {
        const json_t *w = json_object_get(sr, k), *ra, *rb;
        if (!w)
            continue;
        double a = section_figures(v, phases, &ra);
        double b = section_figures(w, phases, &rb);
        if (phases && (!json_is_number(json_object_get(w, "median_ns")) ||
                       a <= 0 || b <= 0))
            continue;
        json_t *e = ratio_entry(ra, rb, a, b);
        if (!e)
            continue;
        if (phases) {
            json_object_set_new(e, "baseline_ns", json_real(a));
            json_object_set_new(e, "median_ns", json_real(b));
        }
        json_object_set_new(o, k, e);
    }
    return o;
}

json_t *mb__phase_speedups(const json_t *base, const json_t *run)
{
    return section_speedups(base, run, true);
}

json_t *mb__loop_speedups(const json_t *base, const json_t *run)
{
    return section_speedups(base, run, false);
}

/* s appended to the array a unless it is there (or NULL/empty). */
static void add_unique(json_t *a, const char *s)
{
    size_t i;
    const json_t *v;
    if (!s || !*s)
        return;
    json_array_foreach(a, i, v) if (!strcmp(json_string_value(v), s)) return;
    json_array_append_new(a, json_string(s));
}

/* The words of a (strings) joined with ", " into out. */
static void joined(const json_t *a, char *out, size_t len)
{
    size_t i, at = 0;
    const json_t *v;
    out[0] = '\0';
    json_array_foreach(a, i, v)
    {
        int w = snprintf(out + at, len - at, "%s'%s'", i ? ", " : "",
                         json_string_value(v));
        if (w < 0 || (size_t)w >= len - at)
            break;
        at += (size_t)w;
    }
}

/* Where the runs of group g ran: "cpu_models" and "nodes" of grp (a run's
 * slurm.cpu_model/node, else its machine.cpu_model/hostname from a merged
 * shard), and a "warning" when there is more than one of either: the
 * speedups then compare machines as well as branches. */
static void group_machines(json_t *grp, const json_t *runs, const char *g)
{
    json_t *models = json_array(), *nodes = json_array();
    size_t i;
    const json_t *r;
    json_array_foreach(runs, i, r)
    {
        const char *gx = group_of(r);
        if (!gx || strcmp(gx, g) != 0)
            continue;
        const json_t *sl = json_object_get(r, "slurm"),
                     *m = json_object_get(r, "machine");
        const char *c = json_string_value(json_object_get(sl, "cpu_model"));
        const char *h = json_string_value(json_object_get(sl, "node"));
        add_unique(models,
                   c ? c : json_string_value(json_object_get(m, "cpu_model")));
        add_unique(nodes,
                   h ? h : json_string_value(json_object_get(m, "hostname")));
    }
    char w[1024], list[700];
    int many_cpus = json_array_size(models) > 1;
    if (many_cpus || json_array_size(nodes) > 1) {
        joined(many_cpus ? models : nodes, list, sizeof list);
        snprintf(w, sizeof w,
                 "its tasks ran on different %s (%s): the speedups compare "
                 "the machines as well as the branches; run the group on one "
                 "machine (suite --compare measures a group in one task)",
                 many_cpus ? "CPU models" : "nodes", list);
        json_object_set_new(grp, "warning", json_string(w));
    }
    json_object_set_new(grp, "cpu_models", models);
    json_object_set_new(grp, "nodes", nodes);
}

/* Whether runs a and b were measured interleaved together (round r of
 * one beside round r of the other). */
static int paired(const json_t *a, const json_t *b)
{
    const json_t *ia = json_object_get(json_object_get(a, "interleaved"),
                                       "tasks"),
                 *ib = json_object_get(json_object_get(b, "interleaved"),
                                       "tasks");
    return ia && ib && json_equal(ia, ib);
}

/* The blocked paired ratio b/a of two runs measured in rounds (sample r
 * of each from round r), as compare computes it (STATISTICS.md): null
 * when their rounds differ in number or are fewer than 2. */
static json_t *paired_json(const double *a, size_t na, const double *b,
                           size_t nb)
{
    mb__ratio r;
    if (!a || !b || na != nb || na < 2 ||
        !mb__ratio_paired_blocks(a, b, na, mb__round_blocks(na), 0.95, &r) ||
        !(r.ratio > 0) || !(r.lo > 0) || !isfinite(r.p))
        return json_null();
    return json_pack("{s:f,s:f,s:{s:f,s:f},s:f,s:I,s:I}", "ratio", r.ratio,
                     "speedup", 1 / r.ratio, "speedup_ci95", "lo", 1 / r.hi,
                     "hi", 1 / r.lo, "p_value", r.p, "rounds", (json_int_t)na,
                     "blocks", (json_int_t)r.blocks);
}

json_t *mb__suite_comparison(const json_t *runs, uint64_t seed)
{
    json_t *out = json_object(), *groups = json_array();
    json_object_set_new(out, "by", json_string("experiment"));
    json_object_set_new(
        out, "ratio",
        json_string("median(task) / median(baseline); speedup = 1 / ratio"));
    mb__rng rng;
    mb__rng_seed(&rng, seed);
    size_t n = json_array_size(runs);
    char *done = mb__calloc(n ? n : 1, 1);
    for (size_t i = 0; done && i < n; i++) {
        const json_t *r = json_array_get(runs, i);
        const char *g = group_of(r);
        if (done[i] || !g)
            continue;
        /* baseline: the group's first successful run */
        const json_t *base = NULL;
        for (size_t j = i; j < n && !base; j++) {
            const json_t *x = json_array_get(runs, j);
            const char *gx = group_of(x);
            if (gx && !strcmp(gx, g) &&
                !strcmp(json_string_value(json_object_get(x, "status"))
                            ? json_string_value(json_object_get(x, "status"))
                            : "",
                        "ok"))
                base = x;
        }
        json_t *grp = json_object(), *entries = json_array();
        json_object_set_new(grp, "group", json_string(g));
        json_object_set_new(grp, "baseline",
                            base ? json_incref(json_object_get(base, "variant"))
                                 : json_null());
        json_object_set_new(grp, "baseline_branch",
                            base && json_object_get(base, "branch")
                                ? json_incref(json_object_get(base, "branch"))
                                : json_null());
        size_t na = 0;
        double *a = base ? samples_of(base, &na) : NULL;
        for (size_t j = i; j < n; j++) {
            const json_t *x = json_array_get(runs, j);
            const char *gx = group_of(x);
            if (!gx || strcmp(gx, g))
                continue;
            done[j] = 1;
            if (x == base)
                continue;
            json_t *e = json_object();
            json_object_set(e, "variant", json_object_get(x, "variant"));
            json_object_set_new(e, "branch",
                                json_object_get(x, "branch")
                                    ? json_incref(json_object_get(x, "branch"))
                                    : json_null());
            json_object_set(e, "status", json_object_get(x, "status"));
            json_object_set_new(e, "interleaved",
                                json_boolean(base && paired(base, x)));
            size_t nb = 0;
            double *b = samples_of(x, &nb);
            double est = NAN, lo = NAN, hi = NAN;
            int ok = a && b && na && nb &&
                     mb__bootstrap_ratio(a, na, b, nb, 50, 2000, &rng, &est,
                                         &lo, &hi) &&
                     isfinite(est) && est > 0;
            json_object_set_new(e, "ratio", ok ? json_real(est) : json_null());
            json_object_set_new(e, "speedup",
                                ok ? json_real(1 / est) : json_null());
            json_object_set_new(e, "ratio_ci95",
                                ok && na >= 2 && nb >= 2
                                    ? json_pack("{s:f,s:f}", "lo", lo, "hi", hi)
                                    : json_null());
            mb__mwu u;
            int mw =
                ok && na >= 2 && nb >= 2 && mb__mann_whitney(a, na, b, nb, &u);
            json_object_set_new(e, "p_value",
                                mw ? json_real(u.p) : json_null());
            json_object_set_new(e, "significant",
                                mw ? json_boolean(u.p < 0.05) : json_null());
            json_object_set_new(e, "paired",
                                base && paired(base, x)
                                    ? paired_json(a, na, b, nb)
                                    : json_null());
            json_object_set_new(e, "phases",
                                base ? mb__phase_speedups(base, x)
                                     : json_object());
            json_object_set_new(
                e, "loops", base ? mb__loop_speedups(base, x) : json_object());
            free(b);
            json_array_append_new(entries, e);
        }
        free(a);
        group_machines(grp, runs, g);
        json_object_set_new(grp, "entries", entries);
        json_array_append_new(groups, grp);
    }
    free(done);
    json_object_set_new(out, "groups", groups);
    return out;
}

static json_int_t task_index(const json_t *run)
{
    const json_t *t = json_object_get(json_object_get(run, "task"), "index");
    return json_is_integer(t) ? json_integer_value(t) : -1;
}

typedef struct tagged {
    json_t *run;
    json_int_t index;
    size_t pos;
} tagged;

/* Task order; runs without a task index keep the order of the files. */
static int cmp_runs(const void *a, const void *b)
{
    const tagged *x = a, *y = b;
    if (x->index != y->index)
        return (x->index > y->index) - (x->index < y->index);
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Document i must be a shard of the suite of document 0 (same kind, task
 * file and shard count), not seen before (seen: one flag per shard, or
 * NULL when the count is unknown). */
static mb_status check_shard(json_t *const *docs, const char *const *names,
                             size_t i, json_int_t count, char *seen,
                             mb_err *err)
{
    const char *kind = json_string_value(json_object_get(docs[0], "kind"));
    const json_t *suite0 = json_object_get(docs[0], "suite");
    const char *k = json_string_value(json_object_get(docs[i], "kind"));
    if (!k || !kind || strcmp(k, kind))
        return mb__fail(err, MB_EINVAL,
                        "%s is a \"%s\" document, %s is \"%s\": merge "
                        "shards of one suite",
                        names[i], k ? k : "?", names[0], kind ? kind : "?");
    const json_t *su = json_object_get(docs[i], "suite");
    const char *sha0 =
        json_string_value(json_object_get(suite0, "tasks_sha256"));
    const char *sha = json_string_value(json_object_get(su, "tasks_sha256"));
    if ((sha0 || sha) && (!sha0 || !sha || strcmp(sha0, sha)))
        return mb__fail(err, MB_EINVAL,
                        "%s and %s come from different task files (sha256 "
                        "differs): merge shards of one suite",
                        names[0], names[i]);
    const json_t *sh = json_object_get(su, "shard");
    json_int_t c = json_integer_value(json_object_get(sh, "count"));
    json_int_t idx = json_integer_value(json_object_get(sh, "index"));
    if (c != count)
        return mb__fail(err, MB_EINVAL,
                        "%s is shard of %lld, %s of %lld: merge shards of "
                        "one --shard I/N split",
                        names[i], (long long)c, names[0], (long long)count);
    if (!seen)
        return MB_OK;
    if (idx < 0 || idx >= count || seen[idx])
        return mb__fail(err, MB_EINVAL,
                        "%s repeats shard %lld/%lld: give each shard once",
                        names[i], (long long)idx, (long long)count);
    seen[idx] = 1;
    return MB_OK;
}

/* The runs of every document in task order (stable), into a new array;
 * NULL when out of memory. */
static json_t *sorted_runs(json_t *const *docs, size_t n)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += json_array_size(json_object_get(docs[i], "runs"));
    tagged *all = mb__calloc(total ? total : 1, sizeof *all);
    if (!all)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j;
        json_t *r;
        const json_t *env = json_object_get(docs[i], "environment");
        json_array_foreach(json_object_get(docs[i], "runs"), j, r)
        {
            if (!json_object_get(r, "machine") && json_is_object(env))
                json_object_set_new(
                    r, "machine",
                    json_pack("{s:O?,s:O?}", "hostname",
                              json_object_get(env, "hostname"), "cpu_model",
                              json_object_get(env, "cpu_model")));
            all[k] = (tagged){r, task_index(r), k};
            k++;
        }
    }
    qsort(all, total, sizeof *all, cmp_runs);
    json_t *runs = json_array();
    for (size_t i = 0; i < total; i++)
        json_array_append(runs, all[i].run);
    free(all);
    return runs;
}

static json_t *or_null(json_t *x)
{
    return x ? x : json_null();
}

/* One entry of "merged_from": the file, its shard, when and where. */
static json_t *shard_source(const json_t *doc, const char *name)
{
    return json_pack(
        "{s:s,s:O,s:O,s:O}", "file", name, "shard",
        or_null(json_object_get(json_object_get(doc, "suite"), "shard")),
        "created_utc", or_null(json_object_get(doc, "created_utc")), "hostname",
        or_null(
            json_object_get(json_object_get(doc, "environment"), "hostname")));
}

/* A warning for every shard not seen; 1 when there is one. */
static int warn_missing(json_t *warnings, const char *seen, json_int_t count)
{
    int incomplete = 0;
    for (json_int_t s = 0; seen && s < count; s++)
        if (!seen[s]) {
            char w[200];
            snprintf(
                w, sizeof w,
                "shard %lld/%lld is missing: the merged result is incomplete",
                (long long)s, (long long)count);
            json_array_append_new(warnings, json_string(w));
            incomplete = 1;
        }
    return incomplete;
}

mb_status mb__suite_merge(json_t *const *docs, const char *const *names,
                          size_t n, json_t **out, mb_err *err)
{
    *out = NULL;
    if (n == 0)
        return mb__fail(err, MB_EINVAL,
                        "nothing to merge: give shard result files");
    const json_t *suite0 = json_object_get(docs[0], "suite");
    json_int_t count = json_integer_value(
        json_object_get(json_object_get(suite0, "shard"), "count"));
    char *seen = NULL;
    if (count > 0 && count < 1000000)
        seen = mb__calloc((size_t)count, 1);
    mb_status st = MB_OK;
    for (size_t i = 0; i < n && !st; i++)
        st = check_shard(docs, names, i, count, seen, err);
    json_t *runs = st ? NULL : sorted_runs(docs, n);
    if (!st && !runs)
        st = mb__fail(err, MB_ENOMEM, "out of memory");
    if (st) {
        free(seen);
        return st;
    }
    json_t *d = json_deep_copy(docs[0]);
    json_object_set_new(d, "runs", runs);
    json_t *warnings = json_array(), *from = json_array();
    int interrupted = 0;
    for (size_t i = 0; i < n; i++) {
        json_array_extend(warnings, json_object_get(docs[i], "warnings"));
        interrupted |= json_is_true(json_object_get(docs[i], "interrupted"));
        json_array_append_new(from, shard_source(docs[i], names[i]));
    }
    int incomplete = warn_missing(warnings, seen, count);
    free(seen);
    json_object_set_new(d, "warnings", warnings);
    json_object_set_new(d, "interrupted", json_boolean(interrupted));
    json_object_set_new(d, "incomplete", json_boolean(incomplete));
    json_t *su = json_object_get(d, "suite");
    if (su)
        json_object_set_new(su, "shard", json_null());
    json_object_set_new(d, "merged_from", from);
    json_object_del(d, "comparison");
    *out = d;
    return MB_OK;
}
