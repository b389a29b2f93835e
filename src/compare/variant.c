/* variant.c - variant specifications into plans (compare/variant.h). */
#include "compare/variant.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/fileio.h"
#include "backend/registry.h"
#include "plan/planopt.h"
#include "runner/runner.h"

#include <stdlib.h>
#include <string.h>

void mb__variant_free(mb__variant *v)
{
    free(v->name);
    mb__plan_free(&v->plan);
}

/* Sets option key of a variant to value through the plan option table;
 * a path the runtime writes later is checked now. */
static mb_status set(mb__plan *p, const char *key, const char *value,
                     mb_err *err)
{
    const mb__planopt *o = mb__planopt_find(key);
    mb_err e = {0};
    if (!o) {
        /* A key the variant's backend declares (a Python model's factory
         * options: weights=, seed=, ...) goes to the backend. */
        const mb_backend *be = mb_backend_find(mb__plan_backend(p), &e);
        if (be && mb__backend_accepts(be, key))
            return mb__plan_set_opt(p, key, value)
                       ? MB_OK
                       : mb__fail(err, MB_ENOMEM, "out of memory");
    }
    if (!o)
        return mb__fail(err, MB_EINVAL,
                        "unknown variant option '%s'; variant options are "
                        "the run options without dashes (threads=2, "
                        "opt-level=all, ...)",
                        key);
    if (o->type == MB__PO_OUTFILE && *value && mb__output_check(value, &e))
        return mb__fail(err, MB_EIO, "%s: %s", key, e.msg);
    return mb__planopt_set(p, o, key, value, err);
}

/* Does tok continue the list value of the option before it?  A token of
 * digits alone ("3" in shape=x=1,3,224,224) is never an option name. */
static int continues_list_at(const char *tok)
{
    size_t n = strcspn(tok, ",");
    return n > 0 && strspn(tok, "0123456789") == n;
}

/* Sets the options of "k=v,k=v,..." (rest, modified) on p.  A list value
 * may hold commas: the digit-only items after an option belong to its
 * value (shape=x=1,3,224,224). */
static mb_status set_all(mb__plan *p, char *rest, mb_err *err)
{
    mb_status s = MB_OK;
    char *tok = rest;
    while (!s && tok && *tok) {
        char *end = tok + strcspn(tok, ",");
        while (*end == ',' && strchr(tok, '=') && continues_list_at(end + 1))
            end += 1 + strcspn(end + 1, ",");
        char *next = *end ? end + 1 : NULL;
        *end = '\0';
        if (*tok) {
            char *val = strchr(tok, '=');
            if (val)
                *val++ = '\0';
            s = set(p, tok, val ? val : "1", err);
        }
        tok = next;
    }
    return s;
}

/* NAME=MODEL[,k=v...] into v, its plan copied from base. */
static mb_status parse(const char *spec, const mb__plan *base, mb__variant *v,
                       mb_err *err)
{
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || !eq[1 + strspn(eq + 1, ",")])
        return mb__fail(err, MB_EINVAL,
                        "invalid variant '%s': expected NAME=MODEL[,"
                        "option=value...]",
                        spec);
    char *rest = mb__strdup(eq + 1 + strspn(eq + 1, ","));
    v->name = mb__strndup(spec, (size_t)(eq - spec));
    if (!mb__plan_copy(&v->plan, base) || !rest || !v->name) {
        free(rest);
        return mb__fail(err, MB_ENOMEM, "out of memory");
    }
    size_t mlen = strcspn(rest, ",");
    free(v->plan.model_path);
    free(v->plan.variant);
    v->plan.model_path = mb__strndup(rest, mlen);
    v->plan.variant = mb__strdup(v->name);
    mb_status s = v->plan.model_path && v->plan.variant
                      ? MB_OK
                      : mb__fail(err, MB_ENOMEM, "out of memory");
    if (!s && rest[mlen])
        s = set_all(&v->plan, rest + mlen + 1, err);
    free(rest);
    /* The cross-option checks of the command line (min-time <= max-time),
     * on the variant's own plan, named by the variant. */
    if (!s && mb__planopt_finish(&v->plan, "", err))
        s = mb__fail_prefix(err, "variant '%s'", v->name);
    return s;
}

mb_status mb__variants_parse(char *const *specs, size_t n, const mb__plan *base,
                             mb__variant *vs, size_t *nv, mb_err *err)
{
    for (size_t i = 0; i < n; i++) {
        mb_status s = parse(specs[i], base, &vs[(*nv)++], err);
        if (s)
            return s;
        for (size_t k = 0; k < i; k++)
            if (strcmp(vs[k].name, vs[i].name) == 0)
                return mb__fail(err, MB_EINVAL,
                                "two variants are named '%s'; give each a "
                                "distinct NAME",
                                vs[i].name);
    }
    return MB_OK;
}

mb_status mb__variants_baseline(const mb__variant *vs, size_t n,
                                const char *name, const char *shown,
                                size_t *index, mb_err *err)
{
    *index = 0;
    if (!name)
        return MB_OK;
    for (size_t i = 0; i < n; i++)
        if (strcmp(vs[i].name, name) == 0) {
            *index = i;
            return MB_OK;
        }
    char names[512] = "";
    for (size_t i = 0, len = 0; i < n && len < sizeof names; i++)
        len += (size_t)snprintf(names + len, sizeof names - len, "%s%s",
                                i ? ", " : "", vs[i].name);
    return mb__fail(err, MB_EINVAL, "%s %s names no variant; name one of: %s",
                    shown, name, names);
}
