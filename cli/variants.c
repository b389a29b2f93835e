/* variants.c - variant specifications NAME=MODEL[,option=value...] (run
 * options without dashes) into plans, for compare. */
#include "variants.h"

#include "cli.h"
#include "runopts.h"

#include <stdlib.h>
#include <string.h>

void mb_cli_variant_free(mb_cli_variant *v)
{
    free(v->name);
    mb__plan_free(&v->plan);
}

/* NAME=MODEL[,k=v...] into v (plan copied from base). */
static int parse_variant(const char *spec, const mb_plan *base,
                         mb_cli_variant *v)
{
    memset(v, 0, sizeof *v);
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || !eq[1])
        return mb_cli_error(MB_EXIT_USAGE,
                            "invalid variant '%s': expected NAME=MODEL[,"
                            "option=value...]",
                            spec),
               -1;
    if (mb__plan_copy(&v->plan, base))
        return mb_cli_error(MB_EXIT_RUNTIME, "out of memory"), -1;
    v->name = strndup(spec, (size_t)(eq - spec));
    char *rest = strdup(eq + 1), *save = NULL;
    int first = 1, rc = 0;
    for (char *tok = strtok_r(rest, ",", &save); tok && !rc;
         tok = strtok_r(NULL, ",", &save), first = 0) {
        if (first) {
            free(v->plan.model_path);
            v->plan.model_path = strdup(tok);
            continue;
        }
        char *e2 = strchr(tok, '=');
        if (e2)
            *e2 = '\0';
        rc = mb_cli_runopts_apply_kv(&v->plan, tok, e2 ? e2 + 1 : "1");
    }
    free(rest);
    free(v->plan.variant);
    v->plan.variant = strdup(v->name);
    return rc;
}

/* Parses every NAME=MODEL[,...] of specs into vs (*nv of them, freed by
 * the caller even on failure): distinct names; 0 or an exit code. */
int mb_cli_variants_parse(char *const *specs, size_t n, const mb_plan *plan,
                          mb_cli_variant *vs, size_t *nv)
{
    for (size_t i = 0; i < n; i++) {
        (*nv)++;
        if (parse_variant(specs[i], plan, &vs[i]))
            return MB_EXIT_USAGE;
        for (size_t k = 0; k < i; k++)
            if (strcmp(vs[k].name, vs[i].name) == 0)
                return mb_cli_error(MB_EXIT_USAGE, "two variants are named "
                                    "'%s'; give each a distinct NAME",
                                    vs[i].name);
    }
    return 0;
}

