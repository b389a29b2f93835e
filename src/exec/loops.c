/* loops.c - the per-iteration loops a program reports ("iter" events) and
 * the throughput derived from its counters, as parts of the "exec" object
 * of a RUN (docs/EXEC.md).  The unit of replication is the run: each run
 * is a fresh process, as `mbench run` measures a model in K processes. */
#include "exec/exec.h"

#include "core/alloc.h"
#include "core/repstats.h"
#include "runner/replicate.h"
#include "runner/runner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_t *gm_json(const double *x, size_t k, const char *what)
{
    mb__gm g;
    if (!mb__gm_ci(x, k, 0.95, &g) || !g.ok)
        return json_null();
    char m[200];
    snprintf(m, sizeof m,
             "geometric mean of per-run %s; Student-t 95%% CI "
             "over %zu runs (df %zu)",
             what, k, k - 1);
    return json_pack("{s:f,s:f,s:f,s:s,s:I,s:s}", "lo", g.lo, "hi", g.hi,
                     "estimate", g.est, "unit", "run", "replicates",
                     (json_int_t)k, "method", m);
}

static json_t *loop_json(const mb__exec_series *s, const char *name)
{
    size_t total = 0, k = 0;
    for (size_t i = 0; i < s->n; i++) {
        const mb__loop_rec *l = mb__events_loop(&s->samples[i].events, name);
        if (l && l->n) {
            total += l->n;
            k++;
        }
    }
    int64_t *pooled = mb__calloc(total ? total : 1, sizeof *pooled);
    size_t *proc_n = mb__calloc(k ? k : 1, sizeof *proc_n);
    double *rate = mb__calloc(k ? k : 1, sizeof *rate);
    if (!pooled || !proc_n || !rate) {
        free(pooled);
        free(proc_n);
        free(rate);
        return json_null();
    }
    size_t off = 0, r = 0;
    double ns_sum = 0, items_sum = 0;
    json_t *per_run = json_array();
    for (size_t i = 0; i < s->n; i++) {
        const mb__loop_rec *l = mb__events_loop(&s->samples[i].events, name);
        if (!l || !l->n)
            continue;
        double ns = 0, items = 0;
        for (size_t j = 0; j < l->n; j++) {
            pooled[off++] = l->ns[j];
            ns += (double)l->ns[j];
            items += (double)l->items[j];
        }
        proc_n[r] = l->n;
        rate[r++] = ns > 0 ? items / ns * 1e9 : NAN;
        ns_sum += ns;
        items_sum += items;
        json_array_append_new(per_run, json_integer((json_int_t)l->n));
    }
    json_t *lat = mb__latency_json(pooled, total, NULL, 0);
    json_t *rep = mb__replication_json(pooled, proc_n, k);
    mb__latency_apply_replication(lat, rep);
    json_t *o = json_object();
    json_object_set_new(o, "iterations", json_integer((json_int_t)total));
    json_object_set_new(o, "runs", json_integer((json_int_t)k));
    json_object_set_new(o, "iterations_per_run", per_run);
    json_object_set_new(o, "items", json_real(items_sum));
    json_object_set_new(o, "latency", lat);
    json_object_set_new(o, "replication", rep);
    json_object_set_new(o, "items_per_s",
                        ns_sum > 0 && items_sum > 0
                            ? json_real(items_sum / ns_sum * 1e9)
                            : json_null());
    json_object_set_new(o, "items_per_s_ci95",
                        items_sum > 0 ? gm_json(rate, k, "items / loop time")
                                      : json_null());
    json_object_set_new(o, "time_per_item_ns",
                        items_sum > 0 ? json_real(ns_sum / items_sum)
                                      : json_null());
    if (total <= 100000) { /* raw iterations, run after run, to recompute */
        json_t *raw = json_array();
        for (size_t i = 0; i < total; i++)
            json_array_append_new(raw, json_integer((json_int_t)pooled[i]));
        json_object_set_new(o, "samples_ns", raw);
    }
    json_object_set_new(o, "throughput_method",
                        json_string("items / sum of the iterations' ns "
                                    "(the program's own clock), pooled over "
                                    "runs"));
    free(pooled);
    free(proc_n);
    free(rate);
    return o;
}

json_t *mb__exec_loops_json(const mb__exec_series *s)
{
    json_t *o = json_object();
    for (size_t i = 0; i < s->n; i++) {
        const mb__events *ev = &s->samples[i].events;
        for (size_t j = 0; j < ev->n_loops; j++)
            if (!json_object_get(o, ev->loops[j].name))
                json_object_set_new(o, ev->loops[j].name,
                                    loop_json(s, ev->loops[j].name));
    }
    return o;
}

/* The counter `name` of run i, or NAN. */
static double counter_of(const mb__events *ev, const char *name)
{
    const mb__named_value *v = mb__events_counter(ev, name);
    return v ? v->value : NAN;
}

json_t *mb__exec_derived_json(const mb__exec_series *s)
{
    static const struct {
        const char *counter, *per_s, *time_per, *ci, *how;
    } rates[2] = {
        {"samples", "samples_per_s", "time_per_sample_ns", "samples_per_s_ci95",
         "samples / wall time"},
        {"batches", "batches_per_s", "time_per_batch_ns", "batches_per_s_ci95",
         "batches / wall time"},
    };
    double *r[2] = {mb__calloc(s->n ? s->n : 1, sizeof *r[0]),
                    mb__calloc(s->n ? s->n : 1, sizeof *r[1])};
    size_t k[2] = {0, 0};
    for (size_t i = 0; r[0] && r[1] && i < s->n; i++) {
        double w = (double)s->samples[i].wall_ns;
        for (int j = 0; j < 2; j++) {
            double c = counter_of(&s->samples[i].events, rates[j].counter);
            if (w > 0 && c > 0)
                r[j][k[j]++] = c / w * 1e9;
        }
    }
    json_t *o = NULL;
    if (k[0] || k[1]) {
        o = json_object();
        for (int j = 0; j < 2; j++) {
            if (!k[j])
                continue;
            mb__gm g;
            mb__gm_ci(r[j], k[j], 0.95, &g);
            json_object_set_new(o, rates[j].per_s, json_real(g.est));
            json_object_set_new(o, rates[j].time_per, json_real(1e9 / g.est));
            json_object_set_new(o, rates[j].ci,
                                gm_json(r[j], k[j], rates[j].how));
        }
        json_object_set_new(o, "method",
                            json_string("counters \"samples\" and \"batches\" "
                                        "of each run / its wall time; "
                                        "geometric mean over runs"));
    }
    free(r[0]);
    free(r[1]);
    return o ? o : json_null();
}
