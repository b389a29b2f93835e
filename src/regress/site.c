/* site.c - the series, change points, gate verdicts and regressions of a
 * whole store (site.h). */
#include "regress/site.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/fileio.h"
#include "core/repstats.h"
#include "regress/changepoint.h"
#include "store/siteq.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the rows are gathered into. */
typedef struct acc {
    json_t *series; /* series key -> series (with "pts": point key -> point) */
    json_t *machines; /* machine id -> machine */
    json_t *commits;  /* commit key -> {date, depth} */
    json_t *runpts;   /* run id -> [[series key, point key], ...] */
    json_t *docruns;  /* document id -> [[run id, variant], ...] */
    const json_t *docs;
    size_t runs;
    int oom;
} acc;

/* One figure of one run. */
typedef struct fig {
    const char *metric, *unit, *better;
    double value, lo, hi;
} fig;

static const char *cellv(const json_t *row, int c)
{
    return json_string_value(json_array_get(row, c));
}

static double num(const char *s)
{
    return s && *s ? strtod(s, NULL) : NAN;
}

static const char *sv(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static json_t *real_or_null(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

/* Appends s to the array a unless it is there. */
static void add_unique(json_t *a, const char *s)
{
    size_t i;
    json_t *v;
    if (!s)
        return;
    json_array_foreach(a, i, v)
    {
        if (strcmp(json_string_value(v), s) == 0)
            return;
    }
    json_array_append_new(a, json_string(s));
}

/* ---- collecting -------------------------------------------------------- */

/* The machine fingerprint of row into id (room for 12): "m" and 8 hex
 * digits of the sha256 of CPU model, architecture, logical cores and
 * memory in whole GiB; registers the machine. */
static void machine_of(acc *a, const json_t *row, char id[12])
{
    const char *cpu = cellv(row, MB_SR_CPU_MODEL),
               *arch = cellv(row, MB_SR_ARCH);
    const char *cores = cellv(row, MB_SR_CORES);
    double mem = num(cellv(row, MB_SR_MEM_BYTES));
    long long gib = isfinite(mem) ? llround(mem / 1073741824.0) : -1;
    char text[600], hex[65];
    snprintf(text, sizeof text, "%.300s|%.100s|%.30s|%lld", cpu ? cpu : "",
             arch ? arch : "", cores ? cores : "", gib);
    mb__sha256_hex(text, strlen(text), hex);
    snprintf(id, 12, "m%.8s", hex);
    json_t *m = json_object_get(a->machines, id);
    if (!m) {
        m = json_pack("{s:s,s:s?,s:s?,s:o,s:o,s:[]}", "id", id, "cpu_model",
                      cpu, "arch", arch, "logical_cores",
                      cores ? json_integer(strtoll(cores, NULL, 10))
                            : json_null(),
                      "memory_gib", gib >= 0 ? json_integer(gib) : json_null(),
                      "hostnames");
        if (!m || json_object_set_new(a->machines, id, m)) {
            a->oom = 1;
            return;
        }
    }
    add_unique(json_object_get(m, "hostnames"), cellv(row, MB_SR_HOSTNAME));
}

/* The series of fig f of row (created when new); borrowed. */
static json_t *series_for(acc *a, const json_t *row, const char *kind,
                          const char *machine, const fig *f, char *key,
                          size_t key_len)
{
    const char *model = cellv(row, MB_SR_MODEL),
               *var = cellv(row, MB_SR_VARIANT);
    const char *batch = cellv(row, MB_SR_BATCH);
    snprintf(key, key_len, "%s\x1f%.300s\x1f%.300s\x1f%.20s\x1f%.300s\x1f%s",
             kind, model ? model : "", var ? var : "", batch ? batch : "",
             f->metric, machine);
    json_t *s = json_object_get(a->series, key);
    if (s)
        return s;
    char hex[65], id[16];
    mb__sha256_hex(key, strlen(key), hex);
    snprintf(id, sizeof id, "%.12s", hex);
    s = json_pack("{s:s,s:s,s:s?,s:s?,s:o,s:s,s:s,s:s,s:s,s:{}}", "id", id,
                  "kind", kind, "model", model, "variant", var, "batch_size",
                  batch ? json_integer(strtoll(batch, NULL, 10)) : json_null(),
                  "metric", f->metric, "unit", f->unit, "better", f->better,
                  "machine", machine, "pts");
    if (!s || json_object_set_new(a->series, key, s))
        return NULL;
    return s;
}

/* Adds fig f of row to its series' point of (branch, commit). */
static void add_fig(acc *a, const json_t *row, const char *kind,
                    const char *machine, const fig *f)
{
    if (!isfinite(f->value))
        return;
    char skey[1400], pkey[400];
    json_t *s = series_for(a, row, kind, machine, f, skey, sizeof skey);
    const char *commit = cellv(row, MB_SR_COMMIT),
               *br = cellv(row, MB_SR_BRANCH);
    const char *date = cellv(row, MB_SR_COMMIT_DATE);
    if (!date)
        date = cellv(row, MB_SR_CREATED);
    if (commit)
        snprintf(pkey, sizeof pkey, "%.200s\x1f%.70s", br ? br : "", commit);
    else
        snprintf(pkey, sizeof pkey, "\x1frun:%s", cellv(row, MB_SR_RUN_ID));
    const char *ckey = strchr(pkey, '\x1f') + 1;
    json_t *pts = json_object_get(s, "pts"), *p = json_object_get(pts, pkey);
    if (s && !p) {
        p = json_pack("{s:s?,s:s?,s:s?,s:s,s:[],s:o,s:o,s:[],s:[],s:{}}",
                      "commit", commit, "branch", br, "date", date, "ckey",
                      ckey, "v", "lo", real_or_null(f->lo), "hi",
                      real_or_null(f->hi), "runs", "hosts", "gate");
        if (!p || json_object_set_new(pts, pkey, p))
            p = NULL;
        if (!json_object_get(a->commits, ckey))
            json_object_set_new(a->commits, ckey,
                                json_pack("{s:s?}", "date", date));
    }
    if (!p) {
        a->oom = 1;
        return;
    }
    json_array_append_new(json_object_get(p, "v"), json_real(f->value));
    json_array_append_new(
        json_object_get(p, "runs"),
        json_integer(strtoll(cellv(row, MB_SR_RUN_ID), NULL, 10)));
    add_unique(json_object_get(p, "hosts"), cellv(row, MB_SR_HOSTNAME));
    /* where this run's figures went: only needed for requirement marks */
    const json_t *doc = json_object_get(a->docs, cellv(row, MB_SR_DOC_ID));
    if (!json_array_size(json_object_get(doc, "requirements")))
        return;
    json_t *rp = json_object_get(a->runpts, cellv(row, MB_SR_RUN_ID));
    if (!rp) {
        rp = json_array();
        json_object_set_new(a->runpts, cellv(row, MB_SR_RUN_ID), rp);
    }
    if (json_array_append_new(rp, json_pack("[s,s]", skey, pkey)))
        a->oom = 1;
}

/* The phases and counters of an exec run: figures from the stored
 * document's runs[run_index].exec. */
static void add_exec_figs(acc *a, const json_t *row, const char *kind,
                          const char *machine)
{
    const json_t *doc = json_object_get(a->docs, cellv(row, MB_SR_DOC_ID));
    const char *ix = cellv(row, MB_SR_RUN_INDEX);
    const json_t *ex = json_object_get(
        json_array_get(json_object_get(doc, "runs"),
                       ix ? (size_t)strtoull(ix, NULL, 10) : (size_t)-1),
        "exec");
    const char *name;
    const json_t *v;
    char metric[300];
    fig user = {"user",
                "ns",
                "lower",
                json_is_number(json_object_get(ex, "user_ns"))
                    ? json_number_value(json_object_get(ex, "user_ns"))
                    : NAN,
                NAN,
                NAN};
    add_fig(a, row, kind, machine, &user);
    json_object_foreach((json_t *)json_object_get(ex, "phases"), name, v)
    {
        const json_t *ci = json_object_get(v, "ci95");
        snprintf(metric, sizeof metric, "phase.%.280s", name);
        fig f = {metric,
                 "ns",
                 "lower",
                 json_number_value(json_object_get(v, "median_ns")),
                 ci ? json_number_value(json_object_get(ci, "lo")) : NAN,
                 ci ? json_number_value(json_object_get(ci, "hi")) : NAN};
        if (json_is_number(json_object_get(v, "median_ns")))
            add_fig(a, row, kind, machine, &f);
    }
    json_object_foreach((json_t *)json_object_get(ex, "counters"), name, v)
    {
        snprintf(metric, sizeof metric, "counter.%.280s", name);
        fig f = {metric, "",
                 "none", json_number_value(json_object_get(v, "median")),
                 NAN,    NAN};
        if (json_is_number(json_object_get(v, "median")))
            add_fig(a, row, kind, machine, &f);
    }
}

static void add_row(acc *a, const json_t *row)
{
    const char *status = cellv(row, MB_SR_STATUS);
    const char *backend = cellv(row, MB_SR_BACKEND);
    const char *dkind = cellv(row, MB_SR_KIND);
    if (!status || strcmp(status, "ok") != 0 || !cellv(row, MB_SR_RUN_ID))
        return;
    int is_exec = backend && strcmp(backend, "exec") == 0;
    const char *kind = dkind && strcmp(dkind, "suite") == 0 ? "suite"
                       : is_exec                            ? "exec"
                                                            : "model";
    char machine[12];
    machine_of(a, row, machine);
    a->runs++;
    const fig figs[] = {
        {"p50", "ns", "lower", num(cellv(row, MB_SR_P50)),
         num(cellv(row, MB_SR_CI_LO)), num(cellv(row, MB_SR_CI_HI))},
        {"p99", "ns", "lower", num(cellv(row, MB_SR_P99)), NAN, NAN},
        {"throughput", "1/s", "higher",
         is_exec ? NAN : num(cellv(row, MB_SR_THROUGHPUT)), NAN, NAN},
        {"memory", "B", "lower", num(cellv(row, MB_SR_MEMORY)), NAN, NAN},
    };
    for (size_t i = 0; i < sizeof figs / sizeof *figs; i++)
        add_fig(a, row, kind, machine, &figs[i]);
    if (is_exec)
        add_exec_figs(a, row, kind, machine);
    const char *doc = cellv(row, MB_SR_DOC_ID);
    if (!json_array_size(
            json_object_get(json_object_get(a->docs, doc), "requirements")))
        return; /* the runs of a document are only needed for its requirements
                 */
    json_t *dr = json_object_get(a->docruns, doc);
    if (!dr && doc) {
        dr = json_array();
        json_object_set_new(a->docruns, doc, dr);
    }
    json_array_append_new(dr, json_pack("[s,s?]", cellv(row, MB_SR_RUN_ID),
                                        cellv(row, MB_SR_VARIANT)));
}

/* ---- gate verdicts (requirements stored with the results) -------------- */

/* Sets requirement req's verdict on point p (a failure stays one). */
static void set_gate(json_t *p, const char *text, int passed, const char *value)
{
    json_t *g = json_object_get(p, "gate");
    const json_t *old = json_object_get(g, text);
    if (!g || (old && !json_is_true(json_object_get(old, "passed"))))
        return;
    json_object_set_new(g, text,
                        json_pack("{s:s,s:b,s:s?}", "requirement", text,
                                  "passed", passed, "value", value));
}

/* Marks requirement req's verdict for variant (NULL: every run) on every
 * point of the document's runs. */
static void mark_gate(acc *a, const json_t *runs, const json_t *req,
                      const char *variant, int passed, const char *value)
{
    size_t i, j;
    const json_t *r, *where;
    json_array_foreach(runs, i, r)
    {
        const char *rv = json_string_value(json_array_get(r, 1));
        if (variant && (!rv || strcmp(rv, variant) != 0))
            continue;
        json_array_foreach(
            json_object_get(a->runpts, json_string_value(json_array_get(r, 0))),
            j, where)
        {
            json_t *s = json_object_get(
                a->series, json_string_value(json_array_get(where, 0)));
            set_gate(
                json_object_get(json_object_get(s, "pts"),
                                json_string_value(json_array_get(where, 1))),
                sv(req, "requirement"), passed, value);
        }
    }
}

static void add_gates(acc *a)
{
    const char *id;
    const json_t *doc;
    json_object_foreach((json_t *)a->docs, id, doc)
    {
        const json_t *runs = json_object_get(a->docruns, id), *req;
        size_t i, j;
        json_array_foreach(json_object_get(doc, "requirements"), i, req)
        {
            const json_t *res = json_object_get(req, "results"), *r;
            if (!json_array_size(res))
                mark_gate(
                    a, runs, req, NULL,
                    json_is_true(json_object_get(req, "passed")),
                    json_string_value(json_object_get(req, "value_text")));
            json_array_foreach(res, j, r)
            {
                const char *var =
                    json_string_value(json_object_get(r, "variant"));
                mark_gate(a, runs, req, var,
                          json_is_true(json_object_get(r, "passed")),
                          json_string_value(json_object_get(r, "value_text")));
            }
        }
    }
}

/* ---- ordering ----------------------------------------------------------- */

typedef struct ckey {
    const char *key, *date;
    json_t *c;
} ckey;

static int by_date(const void *x, const void *y)
{
    const ckey *a = x, *b = y;
    int d = strcmp(a->date ? a->date : "", b->date ? b->date : "");
    return d ? d : strcmp(a->key, b->key);
}

/* Gives every commit a depth: its first-parent depth when order knows it,
 * else the depth of the last known commit before it by date (0). */
static int resolve_depths(acc *a, const json_t *order)
{
    size_t n = json_object_size(a->commits), k = 0;
    ckey *c = mb__calloc(n ? n : 1, sizeof *c);
    if (!c)
        return 0;
    const char *key;
    json_t *v;
    json_object_foreach(a->commits, key, v)
    {
        c[k++] = (ckey){key, json_string_value(json_object_get(v, "date")), v};
    }
    qsort(c, n, sizeof *c, by_date);
    json_int_t last = 0;
    for (size_t i = 0; i < n; i++) {
        const json_t *d = json_object_get(order, c[i].key);
        if (json_is_integer(d))
            last = json_integer_value(d);
        json_object_set_new(c[i].c, "depth", json_integer(last));
    }
    free(c);
    return 1;
}

typedef struct opt_pt {
    json_t *p;
    json_int_t depth;
    const char *date, *commit, *branch;
} opt_pt;

static int by_order(const void *x, const void *y)
{
    const opt_pt *a = x, *b = y;
    if (a->depth != b->depth)
        return a->depth < b->depth ? -1 : 1;
    int d = strcmp(a->date, b->date);
    if (!d)
        d = strcmp(a->commit, b->commit);
    return d ? d : strcmp(a->branch, b->branch);
}

/* ---- finishing a series ------------------------------------------------ */

/* The point's value from its runs: one run keeps its own value and CI;
 * several give the geometric mean with its 95% t interval (the median,
 * without interval, when a value is not positive). */
static void finish_point(json_t *p)
{
    json_t *v = json_object_get(p, "v");
    size_t k = json_array_size(v);
    double *x = mb__calloc(k ? k : 1, sizeof *x);
    if (x && k) {
        for (size_t i = 0; i < k; i++)
            x[i] = json_number_value(json_array_get(v, i));
        mb__gm g = {0};
        double value = x[0];
        if (k >= 2 && mb__gm_ci(x, k, 0.95, &g) && g.ok) {
            value = g.est;
            json_object_set_new(p, "lo", json_real(g.lo));
            json_object_set_new(p, "hi", json_real(g.hi));
        } else if (k >= 2) {
            for (size_t i = 1; i < k; i++) /* insertion sort: k is small */
                for (size_t j = i; j > 0 && x[j - 1] > x[j]; j--) {
                    double t = x[j];
                    x[j] = x[j - 1];
                    x[j - 1] = t;
                }
            value = k % 2 ? x[k / 2] : (x[k / 2 - 1] + x[k / 2]) / 2;
            json_object_set_new(p, "lo", json_null());
            json_object_set_new(p, "hi", json_null());
        }
        json_object_set_new(p, "value", json_real(value));
    }
    free(x);
    json_object_set_new(p, "n_runs", json_integer((json_int_t)k));
    json_object_del(p, "v");
    /* gate: {requirement: verdict} -> [verdict], in requirement order */
    json_t *g = json_object_get(p, "gate"), *list = json_array();
    const char *key;
    json_t *e;
    json_object_foreach(g, key, e)
    {
        json_array_append(list, e);
    }
    json_object_set_new(p, "gate", list);
}

static const char *direction(const json_t *s, double change)
{
    const char *better = sv(s, "better");
    if (strcmp(better, "lower") == 0)
        return change > 0 ? "regression" : "improvement";
    if (strcmp(better, "higher") == 0)
        return change < 0 ? "regression" : "improvement";
    return "change";
}

/* Change points of one lane (idx: positions of its points in pts). */
static int lane_change_points(json_t *s, json_t *pts, const size_t *idx,
                              size_t n, json_t *out)
{
    double *x = mb__calloc(n ? n : 1, sizeof *x);
    mb__changepoint cp[64];
    if (!x)
        return 0;
    for (size_t i = 0; i < n; i++)
        x[i] = json_number_value(
            json_object_get(json_array_get(pts, idx[i]), "value"));
    size_t found = mb__changepoints(x, n, MB_CP_MIN_SEGMENT, MB_CP_THRESHOLD,
                                    MB_CP_MIN_REL, cp, 64);
    if (found > 64)
        found = 64;
    for (size_t k = 0; k < found; k++) {
        size_t from = k ? cp[k - 1].index : 0, at = cp[k].index;
        size_t to = k + 1 < found ? cp[k + 1].index : n;
        mb__ratio r = {0};
        int ci =
            mb__ratio_welch(x + from, at - from, x + at, to - at, 0.95, &r) &&
            r.ok;
        double change = cp[k].before != 0 ? cp[k].after / cp[k].before - 1 : 0;
        json_t *p = json_array_get(pts, idx[at]);
        const json_t *prev = json_array_get(pts, idx[at - 1]);
        const char *dir = direction(s, change);
        json_object_set_new(p, "change_point", json_string(dir));
        json_t *e = json_pack(
            "{s:s,s:s,s:I,s:O?,s:O?,s:O?,s:f,s:f,s:f,s:o,s:f,s:s}", "type",
            "change_point", "series", sv(s, "id"), "index", (json_int_t)idx[at],
            "branch", json_object_get(p, "branch"), "commit",
            json_object_get(p, "commit"), "prev_commit",
            json_object_get(prev, "commit"), "before", cp[k].before, "after",
            cp[k].after, "change", change, "ci",
            ci ? json_pack("{s:f,s:f}", "lo", r.lo - 1, "hi", r.hi - 1)
               : json_null(),
            "score", cp[k].score, "direction", dir);
        if (!e || json_array_append_new(out, e)) {
            free(x);
            return 0;
        }
        json_object_set(e, "date", json_object_get(p, "date"));
        json_object_set(e, "depth", json_object_get(p, "depth"));
    }
    free(x);
    return 1;
}

/* Points in order, lanes and their change points. */
static int finish_series(acc *a, json_t *s)
{
    json_t *pts = json_object_get(s, "pts");
    size_t n = json_object_size(pts), k = 0;
    opt_pt *o = mb__calloc(n ? n : 1, sizeof *o);
    size_t *idx = mb__calloc(n ? n : 1, sizeof *idx);
    json_t *arr = json_array(), *cps = json_array(), *lanes = json_array();
    int ok = o && idx && arr && cps && lanes;
    const char *key;
    json_t *p;
    json_object_foreach(pts, key, p)
    {
        if (!ok)
            break;
        finish_point(p);
        const json_t *c = json_object_get(a->commits, sv(p, "ckey"));
        json_object_set(p, "depth", json_object_get(c, "depth"));
        o[k++] = (opt_pt){p, json_integer_value(json_object_get(c, "depth")),
                          sv(p, "date"), sv(p, "commit"), sv(p, "branch")};
    }
    if (ok)
        qsort(o, n, sizeof *o, by_order);
    for (size_t i = 0; ok && i < n; i++) {
        json_object_del(o[i].p, "ckey");
        ok = !json_array_append(arr, o[i].p);
        add_unique(lanes, o[i].branch);
    }
    size_t li;
    json_t *lane;
    json_array_foreach(lanes, li, lane)
    {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (strcmp(o[i].branch, json_string_value(lane)) == 0)
                idx[m++] = i;
        if (ok)
            ok = lane_change_points(s, arr, idx, m, cps);
    }
    free(o);
    free(idx);
    json_object_set_new(s, "points", arr);
    json_object_set_new(s, "change_points", cps);
    json_object_set_new(s, "branches", lanes);
    json_object_del(s, "pts");
    return ok;
}

/* ---- the summary of each series and the site's lists ------------------- */

/* The last point of lane br in s's points (-1: none). */
static long last_of(const json_t *s, const char *br)
{
    const json_t *pts = json_object_get(s, "points");
    for (size_t i = json_array_size(pts); i-- > 0;)
        if (strcmp(sv(json_array_get(pts, i), "branch"), br) == 0)
            return (long)i;
    return -1;
}

/* The lane the index shows: the default branch's, else the lane of the
 * newest point. */
static const char *shown_lane(const json_t *s, const char *def)
{
    const json_t *pts = json_object_get(s, "points");
    if (last_of(s, def) >= 0)
        return def;
    return sv(json_array_get(pts, json_array_size(pts) - 1), "branch");
}

/* The baseline point of s for lane (-1: none). */
static long baseline_of(const json_t *s, const char *lane, const char *base)
{
    const json_t *pts = json_object_get(s, "points");
    if (!base) {
        for (size_t i = 0; i < json_array_size(pts); i++)
            if (strcmp(sv(json_array_get(pts, i), "branch"), lane) == 0)
                return (long)i;
        return -1;
    }
    long b = last_of(s, base);
    if (b >= 0)
        return b;
    for (size_t i = json_array_size(pts); i-- > 0;)
        if (strncmp(sv(json_array_get(pts, i), "commit"), base, strlen(base)) ==
            0)
            return (long)i;
    return -1;
}

static json_t *ratio_change(const json_t *pts, long now, long then)
{
    double a =
        json_number_value(json_object_get(json_array_get(pts, then), "value"));
    double b =
        json_number_value(json_object_get(json_array_get(pts, now), "value"));
    return now >= 0 && then >= 0 && now != then && a != 0 ? json_real(b / a - 1)
                                                          : json_null();
}

#define SPARK_POINTS 40

static int summarize(json_t *s, const char *def, const char *base)
{
    const json_t *pts = json_object_get(s, "points");
    const char *lane = shown_lane(s, def);
    long last = last_of(s, lane), prev = -1, b = baseline_of(s, lane, base);
    json_t *spark = json_array(), *by = json_object();
    size_t n = 0;
    for (long i = last; i >= 0; i--) {
        const json_t *p = json_array_get(pts, (size_t)i);
        if (strcmp(sv(p, "branch"), lane) != 0)
            continue;
        if (i < last && prev < 0)
            prev = i;
        if (n++ < SPARK_POINTS)
            json_array_insert(spark, 0, json_object_get(p, "value"));
    }
    const json_t *lp = json_array_get(pts, (size_t)last);
    size_t i;
    const json_t *br;
    json_array_foreach(json_object_get(s, "branches"), i, br)
    {
        long at = last_of(s, json_string_value(br));
        const json_t *p = json_array_get(pts, (size_t)at);
        json_object_set_new(
            by, json_string_value(br),
            json_pack("{s:I,s:O,s:O,s:O,s:O?,s:O?}", "index", (json_int_t)at,
                      "value", json_object_get(p, "value"), "lo",
                      json_object_get(p, "lo"), "hi", json_object_get(p, "hi"),
                      "commit", json_object_get(p, "commit"), "date",
                      json_object_get(p, "date")));
    }
    json_t *sum = json_pack(
        "{s:s,s:I,s:O,s:O,s:O,s:O?,s:o,s:O?,s:o,s:o,s:I}", "lane", lane,
        "index", (json_int_t)last, "value", json_object_get(lp, "value"), "lo",
        json_object_get(lp, "lo"), "hi", json_object_get(lp, "hi"), "commit",
        json_object_get(lp, "commit"), "change_previous",
        ratio_change(pts, last, prev), "baseline_commit",
        b >= 0 ? json_object_get(json_array_get(pts, (size_t)b), "commit")
               : NULL,
        "change_baseline", ratio_change(pts, last, b), "spark", spark,
        "n_points", (json_int_t)json_array_size(pts));
    if (!sum || !by)
        return 0;
    json_object_set_new(s, "summary", sum);
    json_object_set_new(s, "latest_by_branch", by);
    return 1;
}

typedef struct bcount {
    const char *name, *newest;
    size_t points;
} bcount;

/* Every branch with its points and newest date: a new array by name. */
static json_t *branch_list(const json_t *series)
{
    json_t *counts = json_object(), *out = json_array();
    size_t i, j;
    const json_t *s, *p;
    json_array_foreach(series, i, s)
    {
        json_array_foreach(json_object_get(s, "points"), j, p)
        {
            const char *br = sv(p, "branch"), *d = sv(p, "date");
            json_t *c = json_object_get(counts, br);
            if (!c) {
                c = json_pack("{s:s,s:I,s:s}", "name", br, "points",
                              (json_int_t)0, "newest", d);
                json_object_set_new(counts, br, c);
            }
            json_object_set_new(
                c, "points",
                json_integer(json_integer_value(json_object_get(c, "points")) +
                             1));
            if (strcmp(d, sv(c, "newest")) > 0)
                json_object_set_new(c, "newest", json_string(d));
        }
    }
    const char **names =
        mb__calloc(json_object_size(counts) + 1, sizeof *names);
    const char *key;
    json_t *v;
    size_t n = 0;
    json_object_foreach(counts, key, v)
    {
        if (names)
            names[n++] = key;
    }
    for (i = 1; names && i < n; i++) /* insertion sort by name */
        for (j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            const char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    for (i = 0; names && out && i < n; i++)
        json_array_append(out, json_object_get(counts, names[i]));
    free(names);
    json_decref(counts);
    return names ? out : (json_decref(out), NULL);
}

static const json_t *find_branch(const json_t *branches, const char *name)
{
    size_t i;
    const json_t *b;
    json_array_foreach(branches, i, b)
    {
        if (strcmp(sv(b, "name"), name) == 0)
            return b;
    }
    return NULL;
}

/* The default and compare branches: named ones must exist. */
static mb_status pick_branches(const json_t *branches, const mb__site_opts *o,
                               const char **def, const char **cmp, mb_err *err)
{
    const char *named[2] = {o->default_branch, o->compare_branch};
    for (int k = 0; k < 2; k++)
        if (named[k] && !find_branch(branches, named[k]))
            return mb__fail(err, MB_EINVAL,
                            "branch '%s' has no results in the store; name a "
                            "branch that has (see 'mbench history')",
                            named[k]);
    *def = o->default_branch;
    const char *pref[] = {"main", "master"};
    for (int k = 0; !*def && k < 2; k++)
        if (find_branch(branches, pref[k]))
            *def = pref[k];
    size_t i, most = 0;
    const json_t *b;
    json_array_foreach(branches, i, b)
    {
        size_t pts = (size_t)json_integer_value(json_object_get(b, "points"));
        if (!o->default_branch && *def == NULL && pts > most)
            most = pts;
    }
    json_array_foreach(branches, i, b)
    {
        if (!*def &&
            (size_t)json_integer_value(json_object_get(b, "points")) == most)
            *def = sv(b, "name");
    }
    *cmp = o->compare_branch;
    const char *newest = "";
    json_array_foreach(branches, i, b)
    {
        if (!o->compare_branch &&
            strcmp(sv(b, "name"), *def ? *def : "") != 0 &&
            strcmp(sv(b, "newest"), newest) >= 0) {
            newest = sv(b, "newest");
            *cmp = sv(b, "name");
        }
    }
    if (!*def)
        *def = "";
    if (!*cmp)
        *cmp = *def;
    return MB_OK;
}

static int by_news(const void *x, const void *y)
{
    const json_t *a = *(const json_t *const *)x, *b = *(const json_t *const *)y;
    int d = strcmp(sv(b, "date"), sv(a, "date"));
    if (d)
        return d;
    json_int_t da = json_integer_value(json_object_get(a, "depth"));
    json_int_t db = json_integer_value(json_object_get(b, "depth"));
    if (da != db)
        return da > db ? -1 : 1;
    if ((d = strcmp(sv(a, "series"), sv(b, "series"))))
        return d;
    if ((d = strcmp(sv(a, "branch"), sv(b, "branch"))))
        return d;
    return strcmp(sv(a, "type"), sv(b, "type"));
}

/* Every change point and failed gate, newest first: a new array. */
static json_t *regression_list(const json_t *series)
{
    json_t *all = json_array();
    size_t i, j, k;
    const json_t *s, *e, *p, *g;
    json_array_foreach(series, i, s)
    {
        json_array_foreach(json_object_get(s, "change_points"), j, e)
        {
            json_array_append(all, (json_t *)e);
        }
        /* a failed requirement marks every series of its runs; it is
         * listed once, with the run's p50 series */
        if (strcmp(sv(s, "metric"), "p50") != 0)
            continue;
        json_array_foreach(json_object_get(s, "points"), j, p)
        {
            json_array_foreach(json_object_get(p, "gate"), k, g)
            {
                if (json_is_true(json_object_get(g, "passed")))
                    continue;
                json_array_append_new(
                    all, json_pack("{s:s,s:s,s:I,s:O?,s:O?,s:O?,s:O?,s:O,s:O?}",
                                   "type", "gate", "series", sv(s, "id"),
                                   "index", (json_int_t)j, "branch",
                                   json_object_get(p, "branch"), "commit",
                                   json_object_get(p, "commit"), "date",
                                   json_object_get(p, "date"), "depth",
                                   json_object_get(p, "depth"), "requirement",
                                   json_object_get(g, "requirement"), "value",
                                   json_object_get(g, "value")));
            }
        }
    }
    size_t n = json_array_size(all);
    json_t **v = mb__calloc(n ? n : 1, sizeof *v);
    json_t *out = json_array();
    if (!v || !out) {
        free(v);
        json_decref(all);
        json_decref(out);
        return NULL;
    }
    for (i = 0; i < n; i++)
        v[i] = json_array_get(all, i);
    qsort(v, n, sizeof *v, by_news);
    for (i = 0; i < n; i++)
        json_array_append(out, v[i]);
    free(v);
    json_decref(all);
    return out;
}

/* ---- the document ------------------------------------------------------ */

json_t *mb__site_branch_tips(const json_t *rows)
{
    json_t *tips = json_object(), *dates = json_object();
    size_t i;
    const json_t *row;
    json_array_foreach(rows, i, row)
    {
        const char *br = cellv(row, MB_SR_BRANCH),
                   *c = cellv(row, MB_SR_COMMIT);
        const char *d = cellv(row, MB_SR_COMMIT_DATE);
        if (!br || !c)
            continue;
        const char *old = json_string_value(json_object_get(dates, br));
        if (!old || strcmp(d ? d : "", old) >= 0) {
            json_object_set_new(dates, br, json_string(d ? d : ""));
            json_object_set_new(tips, br, json_string(c));
        }
    }
    json_decref(dates);
    return tips;
}

static int by_key(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* The series in key order, finished; NULL when memory runs out. */
static json_t *sorted_series(acc *a)
{
    size_t n = json_object_size(a->series), k = 0;
    const char **keys = mb__calloc(n ? n : 1, sizeof *keys);
    json_t *out = json_array();
    const char *key;
    json_t *s;
    int ok = keys && out;
    json_object_foreach(a->series, key, s)
    {
        if (keys)
            keys[k++] = key;
    }
    if (ok)
        qsort(keys, n, sizeof *keys, by_key);
    for (size_t i = 0; ok && i < n; i++) {
        s = json_object_get(a->series, keys[i]);
        ok = finish_series(a, s) && !json_array_append(out, s);
    }
    free(keys);
    if (!ok) {
        json_decref(out);
        return NULL;
    }
    return out;
}

static json_t *machine_list(const json_t *machines)
{
    size_t n = json_object_size(machines), k = 0;
    const char **keys = mb__calloc(n ? n : 1, sizeof *keys);
    json_t *out = json_array();
    const char *key;
    json_t *m;
    json_object_foreach((json_t *)machines, key, m)
    {
        if (keys)
            keys[k++] = key;
    }
    if (keys)
        qsort(keys, n, sizeof *keys, by_key);
    for (size_t i = 0; keys && out && i < n; i++)
        json_array_append(out, json_object_get(machines, keys[i]));
    free(keys);
    return out;
}

static mb_status check_baseline(const json_t *series, const char *base,
                                mb_err *err)
{
    size_t i;
    const json_t *s;
    json_array_foreach(series, i, s)
    {
        const char *lane = json_string_value(
            json_array_get(json_object_get(s, "branches"), 0));
        if (baseline_of(s, lane ? lane : "", base) >= 0)
            return MB_OK;
    }
    return mb__fail(err, MB_EINVAL,
                    "baseline '%s' is neither a branch nor a commit (prefix) "
                    "with results in the store; name one that has",
                    base);
}

/* The lists and counts around the finished series. */
static mb_status site_doc(acc *a, json_t *series, const mb__site_opts *o,
                          json_t **site, mb_err *err)
{
    json_t *branches = branch_list(series);
    const char *def = NULL, *cmp = NULL;
    mb_status st = branches ? pick_branches(branches, o, &def, &cmp, err)
                            : mb__fail(err, MB_ENOMEM, "out of memory");
    if (!st && o->baseline && json_array_size(series))
        st = check_baseline(series, o->baseline, err);
    size_t i, cps = 0;
    json_t *s;
    json_array_foreach(series, i, s)
    {
        if (!st && !summarize(s, def, o->baseline))
            st = mb__fail(err, MB_ENOMEM, "out of memory");
        cps += json_array_size(json_object_get(s, "change_points"));
    }
    json_t *reg = st ? NULL : regression_list(series);
    if (!st && !reg)
        st = mb__fail(err, MB_ENOMEM, "out of memory");
    if (!st) {
        *site = json_pack(
            "{s:s,s:s,s:s,s:s?,s:s,s:{s:I,s:I,s:I,s:I},s:o,s:O,s:O,s:O}",
            "schema", "mbench.site/1", "default_branch", def, "compare_branch",
            cmp, "baseline", o->baseline, "ordered_by",
            json_object_size(o->order ? o->order : NULL) ? "first-parent"
                                                         : "commit date",
            "counts", "runs", (json_int_t)a->runs, "series",
            (json_int_t)json_array_size(series), "change_points",
            (json_int_t)cps, "regressions", (json_int_t)json_array_size(reg),
            "machines", machine_list(a->machines), "branches", branches,
            "series", series, "regressions", reg);
        if (!*site)
            st = mb__fail(err, MB_ENOMEM, "out of memory");
    }
    json_decref(branches);
    json_decref(reg);
    return st;
}

mb_status mb__site_build(const json_t *rows, const json_t *docs,
                         const mb__site_opts *o, json_t **site, mb_err *err)
{
    *site = NULL;
    acc a = {json_object(),
             json_object(),
             json_object(),
             json_object(),
             json_object(),
             docs,
             0,
             0};
    a.oom = !a.series || !a.machines || !a.commits || !a.runpts || !a.docruns;
    size_t i;
    const json_t *row;
    json_array_foreach(rows, i, row)
    {
        if (!a.oom)
            add_row(&a, row);
    }
    if (!a.oom)
        add_gates(&a);
    json_t *series = NULL;
    if (!a.oom && resolve_depths(&a, o->order))
        series = sorted_series(&a);
    mb_status st = series ? site_doc(&a, series, o, site, err)
                          : mb__fail(err, MB_ENOMEM, "out of memory");
    json_decref(series);
    json_decref(a.series);
    json_decref(a.machines);
    json_decref(a.commits);
    json_decref(a.runpts);
    json_decref(a.docruns);
    return st;
}
