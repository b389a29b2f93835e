/* outpair.c - pairing baseline and candidate outputs (outpair.h). */
#include "accuracy/outpair.h"

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *nm(const mb__outname *o)
{
    return o->name && *o->name ? o->name : "(unnamed)";
}

static int same(const char *x, const char *y)
{
    return x && y && *x && strcmp(x, y) == 0;
}

/* The index of the output named name on one side (its name, else its
 * alternate name), or n. */
static size_t find(const mb__outname *o, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (same(o[i].name, name))
            return i;
    for (size_t i = 0; i < n; i++)
        if (same(o[i].alt, name))
            return i;
    return n;
}

/* "a, b, c" of one side's names into b. */
static void list_names(mb__buf *b, const mb__outname *o, size_t n)
{
    for (size_t i = 0; i < n; i++)
        mb__buf_printf(b, "%s%s", i ? ", " : "", nm(&o[i]));
    if (!n)
        mb__buf_printf(b, "none");
}

/* Working state of one pairing. */
typedef struct pstate {
    const mb__pair_req *rq;
    mb__outpairs *p;
    char *used_b;
    size_t made;
} pstate;

static void link_pair(pstate *s, size_t i, size_t j, mb__pair_by by)
{
    s->p->cand[i] = j;
    s->p->by[i] = by;
    s->used_b[j] = 1;
    s->made++;
}

/* Rule 1: the --map entries. */
static mb_status pair_maps(pstate *s, mb_err *err)
{
    const mb__pair_req *rq = s->rq;
    for (size_t k = 0; k < rq->n_map; k++) {
        const mb__outmap *m = &rq->map[k];
        size_t i = find(rq->a, rq->na, m->base);
        size_t j = find(rq->b, rq->nb, m->cand);
        mb__buf names = MB_BUF_INIT;
        if (i == rq->na || (j == rq->nb && !rq->map_lenient))
            list_names(&names, i == rq->na ? rq->a : rq->b,
                       i == rq->na ? rq->na : rq->nb);
        mb_status st = MB_OK;
        if (i == rq->na)
            st = mb__fail(err, MB_EINVAL,
                          "--map %s=%s: %s has no output named '%s'; its "
                          "outputs are: %s",
                          m->base, m->cand, rq->what_a, m->base,
                          names.data ? names.data : "");
        else if (j == rq->nb && !rq->map_lenient)
            st = mb__fail(err, MB_EINVAL,
                          "--map %s=%s: %s has no output named '%s'; its "
                          "outputs are: %s",
                          m->base, m->cand, rq->what_b, m->cand,
                          names.data ? names.data : "");
        else if (j < rq->nb && (s->p->cand[i] != rq->nb || s->used_b[j]))
            st = mb__fail(err, MB_EINVAL,
                          "--map %s=%s: an output is mapped twice; give "
                          "each output one --map",
                          m->base, m->cand);
        mb__buf_free(&names);
        if (st)
            return st;
        if (j < rq->nb)
            link_pair(s, i, j, MB_PAIR_MAP);
    }
    return MB_OK;
}

/* Rule 2: the same name, then a name against an alternate name. */
static void pair_names(pstate *s)
{
    const mb__pair_req *rq = s->rq;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < rq->na; i++) {
            if (s->p->cand[i] != rq->nb)
                continue;
            const mb__outname *x = &rq->a[i];
            for (size_t j = 0; j < rq->nb; j++) {
                const mb__outname *y = &rq->b[j];
                int hit = pass == 0 ? same(x->name, y->name)
                                    : same(x->alt, y->name) ||
                                          same(x->name, y->alt) ||
                                          same(x->alt, y->alt);
                if (!s->used_b[j] && hit) {
                    link_pair(s, i, j, MB_PAIR_NAME);
                    break;
                }
            }
        }
}

/* Whether every unpaired output of one side is unnamed (rule 4). */
static int leftovers_unnamed(const mb__outname *o, size_t n, const size_t *cand,
                             size_t none, const char *used)
{
    size_t left = 0;
    for (size_t i = 0; i < n; i++) {
        int unpaired = cand ? cand[i] == none : !used[i];
        if (unpaired && !o[i].unnamed)
            return 0;
        left += (size_t)unpaired;
    }
    return left > 0;
}

/* Rules 3 and 4: the leftovers in order, when one side's leftovers are
 * all unnamed, or no name matched at all; the counts must agree. */
static void pair_positions(pstate *s)
{
    const mb__pair_req *rq = s->rq;
    size_t left_a = rq->na - s->made, left_b = rq->nb - s->made;
    if (!left_a || left_a != left_b)
        return;
    int ua = leftovers_unnamed(rq->a, rq->na, s->p->cand, rq->nb, NULL),
        ub = leftovers_unnamed(rq->b, rq->nb, NULL, 0, s->used_b);
    if (!ua && !ub && s->made)
        return;
    mb__buf b = MB_BUF_INIT;
    mb__buf_printf(&b, "paired by position:");
    size_t j = 0, k = 0;
    for (size_t i = 0; i < rq->na; i++) {
        if (s->p->cand[i] != rq->nb)
            continue;
        while (s->used_b[j])
            j++;
        mb__buf_printf(&b, "%s %s=%s", k++ ? "," : "", nm(&rq->a[i]),
                       nm(&rq->b[j]));
        link_pair(s, i, j, MB_PAIR_POSITION);
    }
    if (ua || ub) {
        mb__buf_printf(&b,
                       " (%s stores no tensor names: old ONNX test "
                       "data)",
                       ua ? rq->what_a : rq->what_b);
    } else {
        mb__buf_printf(&b, " (no output name matches; %s: ", rq->what_a);
        list_names(&b, rq->a, rq->na);
        mb__buf_printf(&b, "; %s: ", rq->what_b);
        list_names(&b, rq->b, rq->nb);
        mb__buf_printf(&b, "); name them alike or pair them with --map "
                           "BASE=CAND");
    }
    snprintf(s->p->note, sizeof s->p->note, "%s", b.data ? b.data : "");
    s->p->by_position = 1;
    mb__buf_free(&b);
}

/* Rule 5: the one line for outputs without a counterpart. */
static mb_status unpaired(pstate *s, mb_err *err)
{
    const mb__pair_req *rq = s->rq;
    mb__buf b = MB_BUF_INIT;
    size_t ma = 0, mbn = 0, first_a = rq->na, first_b = rq->nb;
    for (size_t i = 0; i < rq->na; i++)
        if (s->p->cand[i] == rq->nb) {
            mb__buf_printf(&b, "%s'%s'", ma++ ? ", " : "", nm(&rq->a[i]));
            first_a = first_a == rq->na ? i : first_a;
        }
    if (ma)
        mb__buf_printf(&b, " of %s %s no counterpart in %s", rq->what_a,
                       ma > 1 ? "have" : "has", rq->what_b);
    for (size_t j = 0; j < rq->nb; j++)
        if (!s->used_b[j]) {
            mb__buf_printf(&b, "%s'%s'",
                           mbn  ? ", "
                           : ma ? "; "
                                : "",
                           nm(&rq->b[j]));
            mbn++;
            first_b = first_b == rq->nb ? j : first_b;
        }
    if (mbn)
        mb__buf_printf(&b, " of %s %s no counterpart in %s", rq->what_b,
                       mbn > 1 ? "have" : "has", rq->what_a);
    mb__buf_printf(&b, " (outputs of %s: ", rq->what_a);
    list_names(&b, rq->a, rq->na);
    mb__buf_printf(&b, "; of %s: ", rq->what_b);
    list_names(&b, rq->b, rq->nb);
    if (ma && mbn)
        mb__buf_printf(&b, "); if %s was renamed, pair it with --map %s=%s",
                       nm(&rq->a[first_a]), nm(&rq->a[first_a]),
                       nm(&rq->b[first_b]));
    else
        mb__buf_printf(&b, "); every output is judged, so both need the "
                           "same outputs (--map BASE=CAND pairs renamed "
                           "ones)");
    mb_status st = mb__fail(err, MB_EDATA, "outputs do not pair: %s",
                            b.oom    ? "out of memory"
                            : b.data ? b.data
                                     : "");
    mb__buf_free(&b);
    return st;
}

mb_status mb__outputs_pair(const mb__pair_req *rq, mb__outpairs *p, mb_err *err)
{
    memset(p, 0, sizeof *p);
    p->n = rq->na;
    p->cand = mb__calloc(rq->na ? rq->na : 1, sizeof *p->cand);
    p->by = mb__calloc(rq->na ? rq->na : 1, sizeof *p->by);
    pstate s = {rq, p, mb__calloc(rq->nb ? rq->nb : 1, 1), 0};
    mb_status st = MB_OK;
    if (!p->cand || !p->by || !s.used_b)
        st = mb__fail(err, MB_ENOMEM, "out of memory pairing outputs");
    for (size_t i = 0; !st && i < rq->na; i++)
        p->cand[i] = rq->nb; /* unpaired */
    if (!st)
        st = pair_maps(&s, err);
    if (!st) {
        pair_names(&s);
        pair_positions(&s);
        if (s.made != rq->na || s.made != rq->nb)
            st = unpaired(&s, err);
    }
    free(s.used_b);
    if (st)
        mb__outpairs_free(p);
    return st;
}

void mb__outpairs_free(mb__outpairs *p)
{
    free(p->cand);
    free(p->by);
    memset(p, 0, sizeof *p);
}

json_t *mb__outpairs_json(const mb__pair_req *rq, const mb__outpairs *p)
{
    static const char *const by[] = {"name", "map", "position"};
    json_t *pairs = json_array();
    unsigned seen = 0;
    for (size_t i = 0; i < p->n; i++) {
        seen |= 1u << p->by[i];
        json_array_append_new(pairs, json_pack("{s:s, s:s, s:s}", "baseline",
                                               nm(&rq->a[i]), "candidate",
                                               nm(&rq->b[p->cand[i]]), "by",
                                               by[p->by[i]]));
    }
    const char *method = seen == 2u   ? "map"
                         : seen == 4u ? "position"
                         : seen <= 1u ? "name"
                                      : "mixed";
    return json_pack("{s:s, s:o, s:o}", "method", method, "note",
                     p->note[0] ? json_string(p->note) : json_null(), "pairs",
                     pairs);
}

mb_status mb__outmap_parse(const char *text, mb__outmap *m, mb_err *err)
{
    const char *eq = text ? strchr(text, '=') : NULL;
    size_t lb = eq ? (size_t)(eq - text) : 0, lc = eq ? strlen(eq + 1) : 0;
    if (!eq || !lb || !lc || lb >= sizeof m->base || lc >= sizeof m->cand)
        return mb__fail(err, MB_EINVAL,
                        "invalid value '%s' for --map: expected "
                        "BASE=CAND, a baseline output and the candidate's "
                        "name for it (e.g. logits=scores)",
                        text ? text : "");
    memcpy(m->base, text, lb);
    m->base[lb] = '\0';
    memcpy(m->cand, eq + 1, lc + 1);
    return MB_OK;
}
