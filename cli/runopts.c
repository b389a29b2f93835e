/* runopts.c - the shared run options: the library's plan option table
 * (runner/planopt.h) on the command line. */
#include "runopts.h"

#include "cli.h"
#include "opt.h"
#include "outputs.h"
#include "runner/planopt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The library's plan option table (runner/planopt.h) seen as CLI options
 * (opt.h) and, for the commands still on getopt_long, as a struct option
 * table with codes MB_RUNOPT_BASE + index.  Built once, on first use. */
#define MAX_RUNOPTS 64
static mb_opt runopts[MAX_RUNOPTS];
static const char *groups[MAX_RUNOPTS];
static struct option shared[MAX_RUNOPTS + 1];
static size_t n_runopts;

static void build(void)
{
    if (n_runopts)
        return;
    size_t n;
    const mb__planopt *t = mb__planopt_table(&n);
    for (size_t i = 0; i < n && i < MAX_RUNOPTS; i++) {
        runopts[i] = (mb_opt){t[i].name,
                              0,
                              (mb_opt_type)t[i].type,
                              t[i].metavar,
                              t[i].help,
                              t[i].expect,
                              t[i].choices,
                              t[i].lo,
                              t[i].hi,
                              (t[i].flags & MB__PO_REPEAT) ? MB_OPT_REPEAT : 0u,
                              (int)i};
        groups[i] = t[i].group;
        shared[i] = (struct option){
            t[i].name,
            t[i].type == MB__PO_SWITCH ? no_argument : required_argument, NULL,
            MB_RUNOPT_BASE + (int)i};
    }
    n_runopts = n < MAX_RUNOPTS ? n : MAX_RUNOPTS;
}

size_t mb_cli_runopts_count(void)
{
    build();
    return n_runopts;
}

const mb_opt *mb_cli_runopt(size_t i, const char **group)
{
    build();
    if (i >= n_runopts)
        return NULL;
    *group = groups[i];
    return &runopts[i];
}

int mb_cli_runopts_set(mb_plan *p, const mb_opt *o, const char *flag,
                       const char *arg)
{
    size_t n;
    const mb__planopt *t = mb__planopt_table(&n);
    if (o->id < 0 || (size_t)o->id >= n)
        return mb_cli_error(MB_EXIT_USAGE, "%s is not a run option", flag);
    const mb__planopt *po = &t[o->id];
    /* a file the runtime writes later: check it now, and stop at once
     * like the other outputs (exit 3, outputs.h) */
    if (po->type == MB__PO_OUTFILE && arg && *arg) {
        int rc = mb_cli_output_check(flag, arg);
        if (rc)
            return rc;
    }
    mb_err e = {0};
    if (mb__planopt_set(p, po, flag, arg, &e))
        return mb_cli_fail(&e);
    return 0;
}

#define N_SHARED (build(), n_runopts)

struct option *mb_cli_runopts_merge(const struct option *own, size_t n_own)
{
    struct option *t = calloc(n_own + N_SHARED + 1, sizeof *t);
    if (!t)
        return NULL;
    if (n_own)
        memcpy(t, own, n_own * sizeof *t);
    memcpy(t + n_own, shared, N_SHARED * sizeof *t);
    return t;
}

struct option *mb_cli_runopts_merge_outputs(const struct option *own,
                                            size_t n_own)
{
    struct option *t =
        calloc(n_own + N_SHARED + MB_CLI_N_OUTPUT_OPTIONS + 1, sizeof *t);
    if (!t)
        return NULL;
    if (n_own)
        memcpy(t, own, n_own * sizeof *t);
    memcpy(t + n_own, shared, N_SHARED * sizeof *t);
    memcpy(t + n_own + N_SHARED, mb_cli_output_options,
           (MB_CLI_N_OUTPUT_OPTIONS + 1) * sizeof *t);
    return t;
}

int mb_cli_runopts_handle(mb_plan *p, int c, const char *arg)
{
    if (c < MB_RUNOPT_BASE || (size_t)(c - MB_RUNOPT_BASE) >= N_SHARED)
        return 0;
    const mb_opt *o = &runopts[c - MB_RUNOPT_BASE];
    char flag[64];
    snprintf(flag, sizeof flag, "--%s", o->name);
    int rc = mb_cli_runopts_set(p, o, flag, arg);
    if (rc == MB_EXIT_RUNTIME) /* an output that cannot be written */
        exit(rc);
    return rc ? -1 : 1;
}

int mb_cli_runopts_apply_kv(mb_plan *p, const char *key, const char *value)
{
    build();
    for (size_t i = 0; i < n_runopts; i++) {
        if (strcmp(runopts[i].name, key) == 0) {
            int rc =
                mb_cli_runopts_set(p, &runopts[i], key, value ? value : "");
            if (rc == MB_EXIT_RUNTIME)
                exit(rc);
            return rc ? -1 : 0;
        }
    }
    return mb_cli_error(MB_EXIT_USAGE,
                        "unknown variant option '%s'; variant options are "
                        "the run options without dashes (threads=2, "
                        "opt-level=all, ...)",
                        key),
           -1;
}

int mb_cli_runopts_finish(mb_plan *p)
{
    mb_err e = {0};
    if (mb__planopt_finish(p, "--", &e))
        return mb_cli_fail(&e), -1;
    return 0;
}

void mb_cli_runopts_usage(FILE *f)
{
    static const mb_cmd only_run = {"run", NULL,          NULL, NULL, NULL,
                                    0,     MB_OPTSET_RUN, 0,    0,    NULL};
    const char *last = NULL, *group;
    const mb_opt *o;
    for (size_t i = 0; (o = mb_opt_each(&only_run, i, &group)); i++) {
        if (strcmp(group, "General") == 0)
            break;
        if (!last || strcmp(last, group) != 0)
            fprintf(f, "%s:\n", group);
        last = group;
        mb_opt_help_line(o, f);
    }
}
