/* events.c - parsing the phase-events stream of one run (see events.h). */
#include "exec/events.h"

#include "core/alloc.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mb__events_init(mb__events *ev)
{
    memset(ev, 0, sizeof *ev);
}

static void bad(mb__events *ev, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void bad(mb__events *ev, const char *fmt, ...)
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

/* The records below (phases, loops, counters, metrics) all begin with
 * their char *name; these helpers serve every such array of size-byte
 * records, found through an mb__name_index. */
static char **name_of(void *rec)
{
    return (char **)rec;
}

/* FNV-1a. */
static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* The record called name among those of arr that ix indexes, or NULL. */
static void *named_find(const mb__name_index *ix, const void *arr, size_t size,
                        const char *name)
{
    if (!ix->cap)
        return NULL;
    size_t mask = ix->cap - 1;
    for (size_t i = (size_t)name_hash(name) & mask; ix->slot[i];
         i = (i + 1) & mask) {
        void *e = (char *)arr + (ix->slot[i] - 1) * size;
        if (strcmp(*name_of(e), name) == 0)
            return e;
    }
    return NULL;
}

static void index_put(mb__name_index *ix, const char *name, size_t idx)
{
    size_t mask = ix->cap - 1, i = (size_t)name_hash(name) & mask;
    while (ix->slot[i])
        i = (i + 1) & mask;
    ix->slot[i] = (uint32_t)(idx + 1);
}

/* Makes room in ix for an n+1-th record (load at most 1/2); 0 when memory
 * runs out. */
static int index_room(mb__name_index *ix, const void *arr, size_t n,
                      size_t size)
{
    if ((n + 1) * 2 <= ix->cap)
        return 1;
    size_t cap = ix->cap ? ix->cap * 2 : 64;
    uint32_t *slot = mb__calloc(cap, sizeof *slot);
    if (!slot)
        return 0;
    free(ix->slot);
    ix->slot = slot;
    ix->cap = cap;
    for (size_t i = 0; i < n; i++)
        index_put(ix, *name_of((char *)arr + i * size), i);
    return 1;
}

/* The record called name, else a new zeroed one with a copy of name
 * appended; NULL when memory runs out or when the run already has
 * MB_EVENTS_MAX_NAMES names (*full then set). */
static void *named_get(mb__events *ev, mb__name_index *ix, void **arr,
                       size_t *n, size_t *cap, size_t size, const char *name,
                       int *full)
{
    void *e = named_find(ix, *arr, size, name);
    if (e)
        return e;
    if (ev->names >= MB_EVENTS_MAX_NAMES) {
        *full = 1;
        return NULL;
    }
    char *copy = mb__strdup(name);
    if (!copy || !mb__grow(arr, cap, *n + 1, size) ||
        !index_room(ix, *arr, *n, size)) {
        free(copy);
        return NULL;
    }
    e = (char *)*arr + *n * size;
    memset(e, 0, size);
    *name_of(e) = copy;
    index_put(ix, copy, *n);
    (*n)++;
    ev->names++;
    return e;
}

/* Frees the names of the n records of arr, then arr. */
static void named_free(void *arr, size_t n, size_t size)
{
    for (size_t i = 0; i < n; i++)
        free(*name_of((char *)arr + i * size));
    free(arr);
}

/* Counts an event dropped for the name cap when *full says so. */
static void *kept_or_dropped(mb__events *ev, void *rec, int full)
{
    if (!rec && full)
        ev->dropped_events++;
    return rec;
}

/* The phase called name, created with its enclosing phase when new. */
static mb__phase_rec *phase_get(mb__events *ev, const char *name,
                                const char *parent)
{
    size_t before = ev->n_phases;
    int full = 0;
    mb__phase_rec *p =
        named_get(ev, &ev->ix_phases, (void **)&ev->phases, &ev->n_phases,
                  &ev->cap_phases, sizeof *ev->phases, name, &full);
    if (p && ev->n_phases > before && parent)
        p->parent = mb__strdup(parent);
    return kept_or_dropped(ev, p, full);
}

static mb__named_value *value_get(mb__events *ev, int counter, const char *name)
{
    int full = 0;
    mb__named_value *v =
        counter ? named_get(ev, &ev->ix_counters, (void **)&ev->counters,
                            &ev->n_counters, &ev->cap_counters,
                            sizeof *ev->counters, name, &full)
                : named_get(ev, &ev->ix_metrics, (void **)&ev->metrics,
                            &ev->n_metrics, &ev->cap_metrics,
                            sizeof *ev->metrics, name, &full);
    return kept_or_dropped(ev, v, full);
}

static mb__loop_rec *loop_get(mb__events *ev, const char *name)
{
    int full = 0;
    mb__loop_rec *l =
        named_get(ev, &ev->ix_loops, (void **)&ev->loops, &ev->n_loops,
                  &ev->cap_loops, sizeof *ev->loops, name, &full);
    return kept_or_dropped(ev, l, full);
}

/* The fields of one event line, from the fast reader or from jansson. */
enum { F_ABSENT, F_STR, F_INT, F_REAL, F_OTHER };
typedef struct ev_val {
    int kind;
    const char *s; /* F_STR */
    long long i;   /* F_INT */
    double d;      /* F_REAL */
} ev_val;
enum { K_EVENT, K_PHASE, K_NAME, K_VALUE, K_T_NS, K_NS, K_ITEMS, K_COUNT };
static const char *const ev_keys[K_COUNT] = {"event", "phase", "name", "value",
                                             "t_ns",  "ns",    "items"};
typedef struct ev_fields {
    ev_val v[K_COUNT];
} ev_fields;

/* The string of field k when it is a non-empty string, else NULL. */
static const char *field_str(const ev_fields *f, int k)
{
    return f->v[k].kind == F_STR && f->v[k].s[0] ? f->v[k].s : NULL;
}

static void on_iter(mb__events *ev, const ev_fields *f)
{
    const char *name = field_str(f, K_NAME);
    const ev_val *nj = &f->v[K_NS], *ij = &f->v[K_ITEMS];
    if (!name || nj->kind != F_INT || nj->i <= 0) {
        bad(ev, "\"iter\" event needs a \"name\" string and an integer "
                "\"ns\" > 0");
        return;
    }
    if (ij->kind != F_ABSENT && (ij->kind != F_INT || ij->i < 0)) {
        bad(ev, "\"iter\" event: \"items\" is not an integer >= 0");
        return;
    }
    if (ev->iters >= MB_EVENTS_MAX_ITERS) {
        ev->dropped_iters++;
        return;
    }
    mb__loop_rec *l = loop_get(ev, name);
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
    l->ns[l->n] = (int64_t)nj->i;
    l->items[l->n] = ij->kind == F_INT ? (int64_t)ij->i : 1;
    l->n++;
    ev->iters++;
}

static void on_start(mb__events *ev, const char *phase, int64_t t, int64_t own)
{
    if (ev->depth >= MB_EVENTS_MAX_DEPTH) {
        bad(ev, "phase '%.60s' starts more than %u phases deep", phase,
            MB_EVENTS_MAX_DEPTH);
        return;
    }
    const char *parent =
        ev->depth ? ev->phases[ev->stack[ev->depth - 1].phase].name : NULL;
    mb__phase_rec *p = phase_get(ev, phase, parent);
    if (!p)
        return;
    if (!mb__grow((void **)&ev->stack, &ev->cap_stack, ev->depth + 1,
                  sizeof *ev->stack))
        return;
    mb__open_phase *o = &ev->stack[ev->depth];
    o->phase = (size_t)(p - ev->phases);
    o->t_recv = t;
    o->t_own = own;
    p->open++;
    ev->depth++;
}

/* Closes the innermost open phase of that name; phases opened inside it
 * and still open are counted unfinished.  The stack is searched only when
 * the phase is open, and everything above it is closed: linear overall. */
static void on_end(mb__events *ev, const char *phase, int64_t t, int64_t own)
{
    mb__phase_rec *p = (mb__phase_rec *)named_find(&ev->ix_phases, ev->phases,
                                                   sizeof *ev->phases, phase);
    if (!p && ev->names >= MB_EVENTS_MAX_NAMES) {
        ev->dropped_events++; /* its start was dropped too */
        return;
    }
    if (!p || !p->open) {
        bad(ev, "end of phase '%.60s' that was not started", phase);
        return;
    }
    size_t idx = (size_t)(p - ev->phases), k = ev->depth;
    while (k > 0 && ev->stack[k - 1].phase != idx)
        k--;
    mb__open_phase *o = &ev->stack[k - 1];
    int64_t d = (own >= 0 && o->t_own >= 0) ? own - o->t_own : t - o->t_recv;
    if (d < 0)
        d = 0;
    if (p->count == 0)
        p->first_ns = d;
    p->total_ns += d;
    p->count++;
    for (size_t i = ev->depth; i > k; i--) {
        mb__phase_rec *inner = &ev->phases[ev->stack[i - 1].phase];
        inner->unfinished++;
        inner->open--;
    }
    p->open--;
    ev->depth = k - 1;
}

static const char *skip_ws(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
        p++;
    return p;
}

/* A string of printable ASCII without escapes at *pp (its bytes
 * [*start, *pp - 1) once read); 0 for anything else. */
static int fast_string(const char **pp, const char *e, const char **start)
{
    const char *p = *pp;
    if (p >= e || *p != '"')
        return 0;
    *start = ++p;
    while (p < e && *p != '"') {
        unsigned char c = (unsigned char)*p++;
        if (c < 0x20 || c > 0x7e || c == '\\')
            return 0;
    }
    if (p >= e)
        return 0;
    *pp = p + 1;
    return 1;
}

/* A JSON number at *pp: an integer of at most 18 digits, or a finite
 * real; 0 for anything else. */
static int fast_number(const char **pp, const char *e, ev_val *v)
{
    const char *p = *pp, *b = p;
    if (p < e && *p == '-')
        p++;
    const char *d = p;
    while (p < e && *p >= '0' && *p <= '9')
        p++;
    size_t nd = (size_t)(p - d);
    if (nd == 0 || (nd > 1 && *d == '0'))
        return 0;
    int real = 0;
    if (p < e && *p == '.') {
        const char *f = ++p;
        while (p < e && *p >= '0' && *p <= '9')
            p++;
        if (p == f)
            return 0;
        real = 1;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < e && (*p == '+' || *p == '-'))
            p++;
        const char *x = p;
        while (p < e && *p >= '0' && *p <= '9')
            p++;
        if (p == x)
            return 0;
        real = 1;
    }
    char tmp[64];
    if ((size_t)(p - b) >= sizeof tmp || (!real && nd > 18))
        return 0;
    memcpy(tmp, b, (size_t)(p - b));
    tmp[p - b] = '\0';
    if (real) {
        v->kind = F_REAL;
        v->d = strtod(tmp, NULL);
        if (!isfinite(v->d))
            return 0;
    } else {
        v->kind = F_INT;
        v->i = strtoll(tmp, NULL, 10);
    }
    *pp = p;
    return 1;
}

/* Reads the usual line, a flat object of known keys with plain strings
 * and numbers, without jansson (several times faster: the reader must
 * keep up with the program).  The line's bytes are changed (strings end
 * in NUL) only when it succeeds; 0 sends the line to jansson, which
 * decides and explains. */
static int fast_fields(char *s, size_t n, ev_fields *f)
{
    const char *p = s, *e = s + n, *str[K_COUNT];
    size_t slen[K_COUNT];
    memset(f, 0, sizeof *f);
    p = skip_ws(p, e);
    if (p >= e || *p++ != '{')
        return 0;
    for (int first = 1;; first = 0) {
        p = skip_ws(p, e);
        if (first && p < e && *p == '}')
            break;
        const char *key;
        if (!fast_string(&p, e, &key))
            return 0;
        int k = 0;
        size_t kl = (size_t)(p - 1 - key);
        while (k < K_COUNT &&
               (strlen(ev_keys[k]) != kl || memcmp(ev_keys[k], key, kl)))
            k++;
        if (k == K_COUNT || f->v[k].kind != F_ABSENT)
            return 0; /* unknown or repeated: jansson's turn */
        p = skip_ws(p, e);
        if (p >= e || *p++ != ':')
            return 0;
        p = skip_ws(p, e);
        if (p < e && *p == '"') {
            if (!fast_string(&p, e, &str[k]))
                return 0;
            f->v[k].kind = F_STR;
            slen[k] = (size_t)(p - 1 - str[k]);
        } else if (!fast_number(&p, e, &f->v[k])) {
            return 0;
        }
        p = skip_ws(p, e);
        if (p < e && *p == ',') {
            p++;
            continue;
        }
        if (p < e && *p == '}')
            break;
        return 0;
    }
    if (skip_ws(p + 1, e) != e)
        return 0;
    for (int k = 0; k < K_COUNT; k++)
        if (f->v[k].kind == F_STR) {
            s[str[k] - s + slen[k]] = '\0';
            f->v[k].s = str[k];
        }
    return 1;
}

/* The fields of jansson's object o. */
static void json_fields(const json_t *o, ev_fields *f)
{
    memset(f, 0, sizeof *f);
    for (int k = 0; k < K_COUNT; k++) {
        const json_t *v = json_object_get(o, ev_keys[k]);
        ev_val *x = &f->v[k];
        if (!v)
            x->kind = F_ABSENT;
        else if (json_is_string(v))
            *x = (ev_val){F_STR, json_string_value(v), 0, 0};
        else if (json_is_integer(v))
            *x = (ev_val){F_INT, NULL, (long long)json_integer_value(v), 0};
        else if (json_is_real(v))
            *x = (ev_val){F_REAL, NULL, 0, json_real_value(v)};
        else
            x->kind = F_OTHER;
    }
}

static void on_value(mb__events *ev, const char *kind, const ev_fields *f)
{
    const char *name = field_str(f, K_NAME);
    const ev_val *vj = &f->v[K_VALUE];
    if (!name || (vj->kind != F_INT && vj->kind != F_REAL)) {
        bad(ev,
            "\"%s\" event needs a \"name\" string and a numeric "
            "\"value\"",
            kind);
        return;
    }
    int counter = kind[0] == 'c';
    mb__named_value *v = value_get(ev, counter, name);
    if (v) {
        double x = vj->kind == F_INT ? (double)vj->i : vj->d;
        v->value = counter ? v->value + x : x;
        v->updates++;
    }
}

static void on_fields(mb__events *ev, const ev_fields *f, int64_t t)
{
    const char *kind = f->v[K_EVENT].kind == F_STR ? f->v[K_EVENT].s : NULL;
    const ev_val *tj = &f->v[K_T_NS];
    int64_t own = tj->kind == F_INT ? (int64_t)tj->i : -1;
    if (tj->kind != F_ABSENT && tj->kind != F_INT)
        bad(ev, "\"t_ns\" is not an integer");
    if (!kind) {
        bad(ev, "no \"event\" string");
    } else if (!strcmp(kind, "start") || !strcmp(kind, "end")) {
        const char *ph = field_str(f, K_PHASE);
        if (!ph)
            bad(ev, "\"%s\" event without a \"phase\" string", kind);
        else if (kind[0] == 's')
            on_start(ev, ph, t, own);
        else
            on_end(ev, ph, t, own);
    } else if (!strcmp(kind, "counter") || !strcmp(kind, "metric")) {
        on_value(ev, kind, f);
    } else if (!strcmp(kind, "iter")) {
        on_iter(ev, f);
    } else {
        bad(ev,
            "unknown event \"%.40s\" (expected start, end, counter, "
            "metric or iter)",
            kind);
    }
}

static void parse_line(mb__events *ev, char *s, size_t n, int64_t t)
{
    while (n && (s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    if (n == 0)
        return; /* blank lines are allowed */
    ev_fields f;
    if (fast_fields(s, n, &f)) {
        on_fields(ev, &f, t);
        return;
    }
    json_error_t jerr;
    json_t *o = json_loadb(s, n, JSON_REJECT_DUPLICATES, &jerr);
    if (!o || !json_is_object(o)) {
        bad(ev, "not a JSON object (%s)", o ? "other JSON value" : jerr.text);
        json_decref(o);
        return;
    }
    json_fields(o, &f);
    on_fields(ev, &f, t);
    json_decref(o);
}

void mb__events_feed(mb__events *ev, const char *data, size_t n, int64_t t_ns)
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

int mb__events_push(mb__events *ev, const char *data, size_t n, int64_t t_ns)
{
    if (!n)
        return 1;
    size_t before = ev->backlog.len;
    if (mb__grow((void **)&ev->marks, &ev->cap_marks, ev->n_marks + 1,
                 sizeof *ev->marks))
        mb__buf_append(&ev->backlog, data, n);
    if (ev->backlog.len != before + n) {
        ev->backlog.oom = 0;
        bad(ev, "out of memory: %zu bytes of events lost", n);
        return 0;
    }
    ev->marks[ev->n_marks++] = (mb__events_mark){ev->backlog.len, t_ns};
    return 1;
}

size_t mb__events_pending(const mb__events *ev)
{
    return ev->backlog.len - ev->backlog_off;
}

/* Empties the backlog (its memory is kept for the next bytes). */
static void backlog_reset(mb__events *ev)
{
    ev->backlog.len = 0;
    ev->backlog_off = 0;
    ev->n_marks = 0;
    ev->mark0 = 0;
}

void mb__events_work(mb__events *ev, size_t max_bytes)
{
    while (max_bytes && ev->mark0 < ev->n_marks) {
        mb__events_mark *m = &ev->marks[ev->mark0];
        size_t n = m->end - ev->backlog_off;
        if (n > max_bytes)
            n = max_bytes;
        mb__events_feed(ev, ev->backlog.data + ev->backlog_off, n, m->t);
        ev->backlog_off += n;
        max_bytes -= n;
        if (ev->backlog_off == m->end)
            ev->mark0++;
    }
    if (ev->mark0 == ev->n_marks)
        backlog_reset(ev);
}

void mb__events_discard(mb__events *ev)
{
    backlog_reset(ev);
}

void mb__events_finish(mb__events *ev, int64_t t_ns)
{
    mb__events_work(ev, SIZE_MAX);
    if (ev->line.len || ev->overlong)
        mb__events_feed(ev, "\n", 1, t_ns);
    for (size_t i = ev->depth; i > 0; i--) {
        mb__phase_rec *p = &ev->phases[ev->stack[i - 1].phase];
        p->unfinished++;
        p->open = 0;
    }
    ev->depth = 0;
    mb__buf_free(&ev->line);
    mb__buf_free(&ev->backlog);
    free(ev->marks);
    ev->marks = NULL;
    ev->cap_marks = 0;
    backlog_reset(ev);
}

const mb__phase_rec *mb__events_phase(const mb__events *ev, const char *name)
{
    return named_find(&ev->ix_phases, ev->phases, sizeof *ev->phases, name);
}

const mb__named_value *mb__events_counter(const mb__events *ev,
                                          const char *name)
{
    return named_find(&ev->ix_counters, ev->counters, sizeof *ev->counters,
                      name);
}

const mb__named_value *mb__events_metric(const mb__events *ev, const char *name)
{
    return named_find(&ev->ix_metrics, ev->metrics, sizeof *ev->metrics, name);
}

const mb__loop_rec *mb__events_loop(const mb__events *ev, const char *name)
{
    return named_find(&ev->ix_loops, ev->loops, sizeof *ev->loops, name);
}

void mb__events_free(mb__events *ev)
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
    free(ev->stack);
    free(ev->ix_phases.slot);
    free(ev->ix_counters.slot);
    free(ev->ix_metrics.slot);
    free(ev->ix_loops.slot);
    free(ev->marks);
    mb__buf_free(&ev->line);
    mb__buf_free(&ev->backlog);
    memset(ev, 0, sizeof *ev);
}
