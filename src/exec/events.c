/* events.c - parsing the phase-events stream of one run (see events.h). */
#include "exec/events.h"

#include "core/alloc.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mb__events_init(mb_events *ev)
{
    memset(ev, 0, sizeof *ev);
}

static void bad(mb_events *ev, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void bad(mb_events *ev, const char *fmt, ...)
{
    if (ev->malformed++ == 0) {
        char why[160];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, sizeof why, fmt, ap);
        va_end(ap);
        snprintf(ev->first_malformed, sizeof ev->first_malformed,
                 "event line %zu: %s", ev->lines, why);
    }
}

/* The records below (phases, loops, counters, metrics, open phases) all
 * begin with their char *name; these helpers serve every such array of
 * size-byte records. */
static char **name_of(void *rec)
{
    return (char **)rec;
}

/* The record called name among the n of arr, or NULL. */
static void *named_find(const void *arr, size_t n, size_t size,
                        const char *name)
{
    for (size_t i = 0; i < n; i++) {
        void *e = (char *)arr + i * size;
        if (strcmp(*name_of(e), name) == 0)
            return e;
    }
    return NULL;
}

/* The record called name, else a new zeroed one with a copy of name
 * appended; NULL when memory runs out. */
static void *named_get(void **arr, size_t *n, size_t *cap, size_t size,
                       const char *name)
{
    void *e = named_find(*arr, *n, size, name);
    if (e)
        return e;
    if (!mb__grow(arr, cap, *n + 1, size))
        return NULL;
    e = (char *)*arr + *n * size;
    memset(e, 0, size);
    if (!(*name_of(e) = mb__strdup(name)))
        return NULL;
    (*n)++;
    return e;
}

/* Frees the names of the n records of arr, then arr. */
static void named_free(void *arr, size_t n, size_t size)
{
    for (size_t i = 0; i < n; i++)
        free(*name_of((char *)arr + i * size));
    free(arr);
}

/* The phase called name, created with its enclosing phase when new. */
static mb_phase_rec *phase_get(mb_events *ev, const char *name,
                               const char *parent)
{
    size_t before = ev->n_phases;
    mb_phase_rec *p = named_get((void **)&ev->phases, &ev->n_phases,
                                &ev->cap_phases, sizeof *ev->phases, name);
    if (p && ev->n_phases > before && parent)
        p->parent = mb__strdup(parent);
    return p;
}

static mb_named_value *value_get(mb_named_value **arr, size_t *n, size_t *cap,
                                 const char *name)
{
    return named_get((void **)arr, n, cap, sizeof **arr, name);
}

static mb_loop_rec *loop_get(mb_events *ev, const char *name)
{
    return named_get((void **)&ev->loops, &ev->n_loops, &ev->cap_loops,
                     sizeof *ev->loops, name);
}

static void on_iter(mb_events *ev, const json_t *o)
{
    const char *name = json_string_value(json_object_get(o, "name"));
    const json_t *nj = json_object_get(o, "ns"),
                 *ij = json_object_get(o, "items");
    if (!name || !*name || !json_is_integer(nj) ||
        json_integer_value(nj) <= 0) {
        bad(ev, "\"iter\" event needs a \"name\" string and an integer "
                "\"ns\" > 0");
        return;
    }
    if (ij && (!json_is_integer(ij) || json_integer_value(ij) < 0)) {
        bad(ev, "\"iter\" event: \"items\" is not an integer >= 0");
        return;
    }
    if (ev->iters >= MB_EVENTS_MAX_ITERS) {
        ev->dropped_iters++;
        return;
    }
    mb_loop_rec *l = loop_get(ev, name);
    if (!l)
        return;
    size_t cap = l->cap;
    if (l->n == cap) {
        size_t nc = cap ? cap * 2 : 64;
        int64_t *a = mb__realloc_array(l->ns, nc, sizeof *a);
        if (!a)
            return;
        l->ns = a;
        int64_t *b = mb__realloc_array(l->items, nc, sizeof *b);
        if (!b)
            return;
        l->items = b;
        l->cap = nc;
    }
    l->ns[l->n] = (int64_t)json_integer_value(nj);
    l->items[l->n] = ij ? (int64_t)json_integer_value(ij) : 1;
    l->n++;
    ev->iters++;
}

static void on_start(mb_events *ev, const char *phase, int64_t t, int64_t own)
{
    const char *parent = ev->depth ? ev->stack[ev->depth - 1].name : NULL;
    if (!phase_get(ev, phase, parent))
        return;
    if (!mb__grow((void **)&ev->stack, &ev->cap_stack, ev->depth + 1,
                  sizeof *ev->stack))
        return;
    mb_open_phase *o = &ev->stack[ev->depth];
    o->name = mb__strdup(phase);
    if (!o->name)
        return;
    o->t_recv = t;
    o->t_own = own;
    ev->depth++;
}

/* Closes the innermost open phase of that name; phases opened inside it
 * and still open are counted unfinished. */
static void on_end(mb_events *ev, const char *phase, int64_t t, int64_t own)
{
    size_t k = ev->depth;
    while (k > 0 && strcmp(ev->stack[k - 1].name, phase) != 0)
        k--;
    if (k == 0) {
        bad(ev, "end of phase '%s' that was not started", phase);
        return;
    }
    mb_open_phase *o = &ev->stack[k - 1];
    int64_t d = (own >= 0 && o->t_own >= 0) ? own - o->t_own : t - o->t_recv;
    if (d < 0)
        d = 0;
    mb_phase_rec *p = phase_get(ev, phase, NULL);
    if (p) {
        if (p->count == 0)
            p->first_ns = d;
        p->total_ns += d;
        p->count++;
    }
    for (size_t i = ev->depth; i > k; i--) {
        mb_phase_rec *inner = phase_get(ev, ev->stack[i - 1].name, NULL);
        if (inner)
            inner->unfinished++;
        free(ev->stack[i - 1].name);
    }
    free(o->name);
    ev->depth = k - 1;
}

static void parse_line(mb_events *ev, const char *s, size_t n, int64_t t)
{
    while (n && (s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    if (n == 0)
        return; /* blank lines are allowed */
    json_error_t jerr;
    json_t *o = json_loadb(s, n, JSON_REJECT_DUPLICATES, &jerr);
    if (!o || !json_is_object(o)) {
        bad(ev, "not a JSON object (%s)", o ? "other JSON value" : jerr.text);
        json_decref(o);
        return;
    }
    const char *kind = json_string_value(json_object_get(o, "event"));
    json_t *tj = json_object_get(o, "t_ns");
    int64_t own = json_is_integer(tj) ? (int64_t)json_integer_value(tj) : -1;
    if (tj && !json_is_integer(tj))
        bad(ev, "\"t_ns\" is not an integer");
    if (!kind) {
        bad(ev, "no \"event\" string");
    } else if (!strcmp(kind, "start") || !strcmp(kind, "end")) {
        const char *ph = json_string_value(json_object_get(o, "phase"));
        if (!ph || !*ph)
            bad(ev, "\"%s\" event without a \"phase\" string", kind);
        else if (kind[0] == 's')
            on_start(ev, ph, t, own);
        else
            on_end(ev, ph, t, own);
    } else if (!strcmp(kind, "counter") || !strcmp(kind, "metric")) {
        const char *name = json_string_value(json_object_get(o, "name"));
        json_t *vj = json_object_get(o, "value");
        if (!name || !*name || !json_is_number(vj)) {
            bad(ev,
                "\"%s\" event needs a \"name\" string and a numeric "
                "\"value\"",
                kind);
        } else {
            int counter = kind[0] == 'c';
            mb_named_value *v = counter
                                    ? value_get(&ev->counters, &ev->n_counters,
                                                &ev->cap_counters, name)
                                    : value_get(&ev->metrics, &ev->n_metrics,
                                                &ev->cap_metrics, name);
            if (v) {
                double x = json_number_value(vj);
                v->value = counter ? v->value + x : x;
                v->updates++;
            }
        }
    } else if (!strcmp(kind, "iter")) {
        on_iter(ev, o);
    } else {
        bad(ev,
            "unknown event \"%.40s\" (expected start, end, counter, "
            "metric or iter)",
            kind);
    }
    json_decref(o);
}

void mb__events_feed(mb_events *ev, const char *data, size_t n, int64_t t_ns)
{
    while (n) {
        const char *nl = memchr(data, '\n', n);
        size_t chunk = nl ? (size_t)(nl - data) : n;
        if (!ev->overlong) {
            if (ev->line.len + chunk > MB_EVENTS_MAX_LINE) {
                ev->overlong = 1;
                ev->line.len = 0;
            } else {
                mb__buf_append(&ev->line, data, chunk);
            }
        }
        if (!nl)
            return;
        ev->lines++;
        if (ev->overlong)
            bad(ev, "longer than %d bytes", MB_EVENTS_MAX_LINE);
        else if (ev->line.data)
            parse_line(ev, ev->line.data, ev->line.len, t_ns);
        ev->overlong = 0;
        ev->line.len = 0;
        data = nl + 1;
        n -= chunk + 1;
    }
}

void mb__events_finish(mb_events *ev, int64_t t_ns)
{
    if (ev->line.len || ev->overlong)
        mb__events_feed(ev, "\n", 1, t_ns);
    for (size_t i = ev->depth; i > 0; i--) {
        mb_phase_rec *p = phase_get(ev, ev->stack[i - 1].name, NULL);
        if (p)
            p->unfinished++;
        free(ev->stack[i - 1].name);
    }
    ev->depth = 0;
    mb__buf_free(&ev->line);
}

const mb_phase_rec *mb__events_phase(const mb_events *ev, const char *name)
{
    return named_find(ev->phases, ev->n_phases, sizeof *ev->phases, name);
}

const mb_loop_rec *mb__events_loop(const mb_events *ev, const char *name)
{
    return named_find(ev->loops, ev->n_loops, sizeof *ev->loops, name);
}

void mb__events_free(mb_events *ev)
{
    if (!ev)
        return;
    for (size_t i = 0; i < ev->n_loops; i++) {
        free(ev->loops[i].ns);
        free(ev->loops[i].items);
    }
    for (size_t i = 0; i < ev->n_phases; i++)
        free(ev->phases[i].parent);
    named_free(ev->loops, ev->n_loops, sizeof *ev->loops);
    named_free(ev->phases, ev->n_phases, sizeof *ev->phases);
    named_free(ev->counters, ev->n_counters, sizeof *ev->counters);
    named_free(ev->metrics, ev->n_metrics, sizeof *ev->metrics);
    named_free(ev->stack, ev->depth, sizeof *ev->stack);
    mb__buf_free(&ev->line);
    memset(ev, 0, sizeof *ev);
}
