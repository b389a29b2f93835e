/* runopts.c - the shared run options: the library's plan option table
 * (plan/planopt.h) on the command line. */
#include "runopts.h"

#include "cli.h"
#include "opt.h"
#include "outputs.h"
#include "plan/planopt.h"

#include <string.h>

/* The plan option table seen as CLI options (opt.h), built once, on first
 * use; an entry's id is its index in the library's table. */
#define MAX_RUNOPTS 64
static mb__opt runopts[MAX_RUNOPTS];
static const char *groups[MAX_RUNOPTS];
static size_t n_runopts;

size_t mb_cli_runopts_count(void)
{
    size_t n;
    const mb__planopt *t = mb__planopt_table(&n);
    for (size_t i = n_runopts; i < n && i < MAX_RUNOPTS; i++, n_runopts++) {
        runopts[i] =
            (mb__opt){t[i].name,
                      0,
                      (mb__opt_type)t[i].type,
                      t[i].metavar,
                      t[i].help,
                      t[i].expect,
                      t[i].choices,
                      t[i].lo,
                      t[i].hi,
                      (t[i].flags & MB__PO_REPEAT) ? MB_OPT_REPEAT : 0u,
                      (int)i};
        groups[i] = t[i].group;
    }
    return n_runopts;
}

const mb__opt *mb_cli_runopt(size_t i, const char **group)
{
    if (i >= mb_cli_runopts_count())
        return NULL;
    *group = groups[i];
    return &runopts[i];
}

int mb_cli_runopts_set(mb__plan *p, const mb__opt *o, const char *flag,
                       const char *arg)
{
    size_t n;
    const mb__planopt *t = mb__planopt_table(&n);
    const mb__planopt *po = &t[o->id];
    /* a file the runtime writes later: check it now, and stop at once
     * like the other outputs (exit 3, outputs.h) */
    int rc = po->type == MB__PO_OUTFILE && arg && *arg
                 ? mb_cli_output_check(flag, arg)
                 : 0;
    mb_err e = {0};
    if (!rc && mb__planopt_set(p, po, flag, arg, &e))
        rc = mb_cli_fail(&e);
    return rc;
}

int mb_cli_runopts_finish(mb__plan *p)
{
    mb_err e = {0};
    return mb__planopt_finish(p, "--", &e) ? mb_cli_fail(&e) : 0;
}
