/* compare.c - the request layer of compare (compare.h). */
#include "request/compare.h"

#include "core/alloc.h"
#include "core/err.h"

#include <stdlib.h>

void mb__compare_call_init(mb__compare_call *c)
{
    *c = (mb__compare_call){0};
    mb__compare_req_defaults(&c->rq);
}

/* Room for n variants and their engine specifications. */
static mb_status alloc_variants(mb__compare_call *c, size_t n, mb_err *err)
{
    c->vs = mb__calloc(n ? n : 1, sizeof *c->vs);
    c->cs = mb__calloc(n ? n : 1, sizeof *c->cs);
    return c->vs && c->cs ? MB_OK : mb__fail(err, MB_ENOMEM, "out of memory");
}

mb_status mb__compare_prepare(mb__compare_call *c, const char *const *specs,
                              size_t n, const mb__plan *plan,
                              const char *baseline, const char *shown,
                              mb_err *err)
{
    if (n < 2)
        return mb__fail(err, MB_EINVAL,
                        "compare needs at least two variants "
                        "(NAME=MODEL ...), got %zu",
                        n);
    for (size_t i = 0; i < n; i++)
        if (!specs[i])
            return mb__fail(err, MB_EINVAL, "variant %zu is NULL", i + 1);
    mb_status s = alloc_variants(c, n, err);
    if (!s)
        s = mb__variants_parse((char *const *)specs, n, plan, c->vs, &c->nv,
                               err);
    if (!s)
        s = mb__variants_baseline(c->vs, n, baseline, shown, &c->rq.baseline,
                                  err);
    if (s)
        return s;
    for (size_t i = 0; i < n; i++)
        c->cs[i] = (mb__cmp_spec){c->vs[i].name, &c->vs[i].plan};
    c->rq.variants = c->cs;
    c->rq.n = n;
    return MB_OK;
}

void mb__compare_call_free(mb__compare_call *c)
{
    for (size_t i = 0; i < c->nv; i++)
        mb__variant_free(&c->vs[i]);
    free(c->vs);
    free(c->cs);
    c->vs = NULL;
    c->cs = NULL;
    c->nv = 0;
}
