/* plan.c - defaults, copies and option lists of mb__plan. */
#include "plan/plan.h"

#include "core/alloc.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The defaults plan.h documents; every other member is zero or NULL. */
static const mb__plan plan_defaults = {
    .seed = 42,
    .warmup_iters = 10,
    .warmup_default = 1,
    .min_iters = 100,
    .min_time_ns = 1000000000LL,
    .max_iters = 100000,
    .max_time_ns = 30000000000LL,
    .target_ci = 0.01,
};

void mb__plan_defaults(mb__plan *p)
{
    *p = plan_defaults;
}

/* The plan's own strings, one list for copying and freeing them. */
static const size_t plan_strings[] = {
    offsetof(mb__plan, backend), offsetof(mb__plan, model_path),
    offsetof(mb__plan, variant), offsetof(mb__plan, ort_lib),
    offsetof(mb__plan, data_path)};
static const size_t n_plan_strings =
    sizeof plan_strings / sizeof plan_strings[0];

static char **plan_string(mb__plan *p, size_t i)
{
    return (char **)((char *)p + plan_strings[i]);
}

static void free_kvs(mb_kv *kv, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free((char *)kv[i].key);
        free((char *)kv[i].value);
    }
    free(kv);
}

void mb__plan_free(mb__plan *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < n_plan_strings; i++)
        free(*plan_string(p, i));
    free_kvs(p->opts, p->n_opts);
    free(p->batches);
    for (size_t i = 0; i < p->n_dims; i++)
        free(p->dims[i].name);
    free(p->dims);
    for (size_t i = 0; i < p->n_ranges; i++)
        free(p->ranges[i].name);
    free(p->ranges);
    for (size_t i = 0; i < p->n_shapes; i++)
        free(p->shapes[i].name);
    free(p->shapes);
    free_kvs(p->renames, p->n_renames);
    free(p->percentiles);
    memset(p, 0, sizeof *p);
}

bool mb__plan_set_opt(mb__plan *p, const char *key, const char *value)
{
    char *v = mb__strdup(value);
    if (!v)
        return false;
    for (size_t i = 0; i < p->n_opts; i++) {
        if (strcmp(p->opts[i].key, key) == 0) {
            free((char *)p->opts[i].value);
            p->opts[i].value = v;
            return true;
        }
    }
    char *k = mb__strdup(key);
    mb_kv *n = mb__realloc_array(p->opts, p->n_opts + 1, sizeof *n);
    if (!k || !n) {
        free(k);
        free(v);
        if (n)
            p->opts = n;
        return false;
    }
    p->opts = n;
    p->opts[p->n_opts++] = (mb_kv){k, v};
    return true;
}

const char *mb__plan_get_opt(const mb__plan *p, const char *key)
{
    for (size_t i = 0; i < p->n_opts; i++)
        if (strcmp(p->opts[i].key, key) == 0)
            return p->opts[i].value;
    return NULL;
}

bool mb__plan_set_rename(mb__plan *p, const char *name, const char *model_name)
{
    char *k = mb__strdup(name), *v = mb__strdup(model_name);
    mb_kv *n = k && v
                   ? mb__realloc_array(p->renames, p->n_renames + 1, sizeof *n)
                   : NULL;
    if (!n) {
        free(k);
        free(v);
        return false;
    }
    p->renames = n;
    p->renames[p->n_renames++] = (mb_kv){k, v};
    return true;
}

bool mb__plan_set_shape(mb__plan *p, const char *name, const int64_t *dims,
                        int rank)
{
    mb__shape_override o = {NULL, rank, {0}};
    for (int i = 0; i < rank && i < MB_MAX_RANK; i++)
        o.dims[i] = dims[i];
    for (size_t i = 0; i < p->n_shapes; i++) {
        if (strcmp(p->shapes[i].name, name) == 0) {
            o.name = p->shapes[i].name;
            p->shapes[i] = o;
            return true;
        }
    }
    o.name = mb__strdup(name);
    mb__shape_override *n =
        mb__realloc_array(p->shapes, p->n_shapes + 1, sizeof *n);
    if (!o.name || !n) {
        free(o.name);
        if (n)
            p->shapes = n;
        return false;
    }
    p->shapes = n;
    p->shapes[p->n_shapes++] = o;
    return true;
}

bool mb__plan_backend_opts(const mb__plan *p, uint32_t caps, mb_kv **kv,
                           size_t *n)
{
    size_t nd = (caps & MB_BACKEND_CAP_DIM_OVERRIDE) ? p->n_dims : 0;
    size_t bytes = 0;
    for (size_t i = 0; i < nd; i++)
        bytes += strlen(p->dims[i].name) + 5 + 24;
    size_t head = (p->n_opts + nd + 1) * sizeof(mb_kv);
    mb_kv *a = mb__malloc(head + bytes + 1);
    *kv = NULL;
    *n = 0;
    if (!a)
        return false;
    char *str = (char *)a + head;
    for (size_t i = 0; i < p->n_opts; i++)
        a[i] = p->opts[i];
    for (size_t i = 0; i < nd; i++) {
        size_t kl = strlen(p->dims[i].name) + 5;
        char *k = str, *v = str + kl;
        snprintf(k, kl, "dim:%s", p->dims[i].name);
        snprintf(v, 24, "%lld", (long long)p->dims[i].value);
        str += kl + 24;
        a[p->n_opts + i] = (mb_kv){k, v};
    }
    *kv = a;
    *n = p->n_opts + nd;
    return true;
}

static char *dup_or_null(const char *s, int *fail)
{
    if (!s)
        return NULL;
    char *d = mb__strdup(s);
    if (!d)
        *fail = 1;
    return d;
}

bool mb__plan_copy(mb__plan *d, const mb__plan *s)
{
    int fail = 0;
    *d = *s;
    /* *d = *s left s's strings in d: replace each with a copy */
    for (size_t i = 0; i < n_plan_strings; i++)
        *plan_string(d, i) = dup_or_null(*plan_string(d, i), &fail);
    d->opts = NULL;
    d->n_opts = 0;
    for (size_t i = 0; i < s->n_opts; i++)
        fail |= !mb__plan_set_opt(d, s->opts[i].key, s->opts[i].value);
    d->batches = mb__calloc(s->n_batches ? s->n_batches : 1, sizeof(int64_t));
    d->dims = mb__calloc(s->n_dims ? s->n_dims : 1, sizeof *d->dims);
    d->ranges = mb__calloc(s->n_ranges ? s->n_ranges : 1, sizeof *d->ranges);
    d->percentiles =
        mb__calloc(s->n_percentiles ? s->n_percentiles : 1, sizeof(double));
    d->shapes = NULL;
    d->n_shapes = 0;
    d->renames = NULL;
    d->n_renames = 0;
    for (size_t i = 0; i < s->n_renames; i++)
        fail |= !mb__plan_set_rename(d, s->renames[i].key, s->renames[i].value);
    for (size_t i = 0; i < s->n_shapes; i++)
        fail |= !mb__plan_set_shape(d, s->shapes[i].name, s->shapes[i].dims,
                                    s->shapes[i].rank);
    if (!d->batches || !d->dims || !d->ranges || !d->percentiles) {
        fail = 1;
    } else {
        if (s->n_batches)
            memcpy(d->batches, s->batches, s->n_batches * sizeof(int64_t));
        if (s->n_percentiles)
            memcpy(d->percentiles, s->percentiles,
                   s->n_percentiles * sizeof(double));
        for (size_t i = 0; i < s->n_dims; i++) {
            d->dims[i].value = s->dims[i].value;
            d->dims[i].name = dup_or_null(s->dims[i].name, &fail);
        }
        for (size_t i = 0; i < s->n_ranges; i++) {
            d->ranges[i] = s->ranges[i];
            d->ranges[i].name = dup_or_null(s->ranges[i].name, &fail);
        }
    }
    if (fail) {
        mb__plan_free(d);
        return false;
    }
    return true;
}
