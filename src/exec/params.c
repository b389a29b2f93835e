/* params.c - commands from exec's command line (params.h). */
#include "exec/params.h"

#include "core/alloc.h"
#include "core/redact.h"
#include "core/buf.h"
#include "core/err.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *mb__exec_join_argv(int argc, char **argv, int shell)
{
    mb__buf b = MB_BUF_INIT;
    for (int i = 0; i < argc; i++) {
        if (i)
            mb__buf_putc(&b, ' ');
        const char *a = argv[i];
        if (shell || (*a && !strpbrk(a, " \t\n'\"\\"))) {
            mb__buf_puts(&b, a);
            continue;
        }
        mb__buf_putc(&b, '\'');
        for (; *a; a++)
            if (*a == '\'')
                mb__buf_puts(&b, "'\\''");
            else
                mb__buf_putc(&b, *a);
        mb__buf_putc(&b, '\'');
    }
    return mb__buf_take(&b, NULL);
}

static char *subst(const char *tmpl, const char *name, const char *value)
{
    mb__buf b = MB_BUF_INIT;
    size_t nl = strlen(name);
    for (const char *p = tmpl; *p;) {
        if (*p == '{' && !strncmp(p + 1, name, nl) && p[1 + nl] == '}') {
            mb__buf_puts(&b, value);
            p += nl + 2;
        } else {
            mb__buf_putc(&b, *p++);
        }
    }
    return mb__buf_take(&b, NULL);
}

/* Frees what one parameter holds. */
static void param_clear(mb__exec_param *p)
{
    free(p->name);
    for (size_t k = 0; k < p->n; k++)
        free(p->values[k]);
    free(p->values);
}

/* The parameter is built aside and appended only when whole, so a
 * malformed one leaves ps as it was. */
mb_status mb__exec_params_add(mb__exec_params *ps, const char *arg, mb_err *err)
{
    const char *eq = strchr(arg, '=');
    mb__exec_param p = {0};
    char *copy = eq && eq != arg ? mb__strdup(eq + 1) : NULL, *save = NULL;
    bool oom = eq && eq != arg && !copy;
    for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t && !oom;
         t = strtok_r(NULL, ",", &save)) {
        char **nv = mb__realloc_array(p.values, p.n + 1, sizeof *p.values);
        if (nv)
            p.values = nv;
        if (!nv || !(p.values[p.n++] = mb__strdup(t)))
            oom = true;
    }
    free(copy);
    if (!oom && !p.n) {
        param_clear(&p);
        return mb__fail(err, MB_EINVAL,
                        "--param '%s': expected NAME=value1,value2,...", arg);
    }
    mb__exec_param *np =
        oom ? NULL : mb__realloc_array(ps->p, ps->n + 1, sizeof *ps->p);
    if (np)
        ps->p = np;
    if (np && (p.name = mb__strndup(arg, (size_t)(eq - arg)))) {
        ps->p[ps->n++] = p;
        return MB_OK;
    }
    param_clear(&p);
    return mb__fail(err, MB_ENOMEM, "out of memory");
}

void mb__exec_params_free(mb__exec_params *ps)
{
    if (!ps)
        return;
    for (size_t i = 0; i < ps->n; i++)
        param_clear(&ps->p[i]);
    free(ps->p);
    ps->p = NULL;
    ps->n = 0;
}

void mb__exec_cmds_free(mb__exec_cmd *c, size_t n)
{
    for (size_t k = 0; c && k < n; k++) {
        free(c[k].name);
        free(c[k].command);
        json_decref(c[k].params);
    }
    free(c);
}

mb_status mb__exec_expand(char *const *tmpl, size_t ntmpl, char *const *names,
                          size_t nnames, const mb__exec_params *ps, int shell,
                          mb__exec_cmd **out, size_t *n, mb_err *err)
{
    *out = NULL;
    *n = 0;
    if (nnames > ntmpl)
        return mb__fail(err, MB_EINVAL,
                        "%zu --name values for %zu commands: "
                        "give at most one name per command",
                        nnames, ntmpl);
    size_t combos = 1;
    for (size_t p = 0; p < ps->n; p++) {
        int used = 0;
        char pat[300];
        snprintf(pat, sizeof pat, "{%s}", ps->p[p].name);
        for (size_t t = 0; t < ntmpl; t++)
            used |= strstr(tmpl[t], pat) != NULL;
        if (!used)
            return mb__fail(err, MB_EINVAL,
                            "--param %s: no command contains "
                            "{%s}; put {%s} where the value goes",
                            ps->p[p].name, ps->p[p].name, ps->p[p].name);
        if (!mb__mul_ok(combos, ps->p[p].n, &combos) || combos > 100000)
            return mb__fail(err, MB_EINVAL,
                            "--param: more than 100000 "
                            "combinations; scan fewer values");
    }
    size_t total = ntmpl * combos;
    mb__exec_cmd *cmds = mb__calloc(total ? total : 1, sizeof *cmds);
    if (!cmds)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    for (size_t t = 0, k = 0; t < ntmpl; t++)
        for (size_t combo = 0; combo < combos; combo++, k++) {
            char *cmd = mb__strdup(tmpl[t]);
            char *name = mb__strdup(t < nnames ? names[t] : tmpl[t]);
            json_t *pj = ps->n ? json_object() : NULL;
            size_t rest = combo;
            for (size_t p = ps->n; p-- > 0;) {
                const char *val = ps->p[p].values[rest % ps->p[p].n];
                rest /= ps->p[p].n;
                char *c2 = subst(cmd, ps->p[p].name, val);
                char *n2 = subst(name, ps->p[p].name, val);
                free(cmd);
                free(name);
                cmd = c2;
                name = n2;
                json_object_set_new(pj, ps->p[p].name, json_string(val));
            }
            if (t < nnames && ps->n && name && !strcmp(name, names[t])) {
                /* A fixed name for a scan: tell the values apart. */
                mb__buf b = MB_BUF_INIT;
                mb__buf_puts(&b, name);
                const char *key;
                json_t *val;
                json_object_foreach(pj, key, val)
                    mb__buf_printf(&b, " %s=%s", key, json_string_value(val));
                free(name);
                name = mb__buf_take(&b, NULL);
            }
            /* the display name never shows a password (core/redact.h);
             * the command runs as given */
            char *shown = name ? mb__redact(name) : NULL;
            free(name);
            cmds[k].command = cmd;
            cmds[k].name = shown;
            cmds[k].params = pj;
        }
    for (size_t k = 0; k < total; k++) {
        if (!cmds[k].command || !cmds[k].name) {
            mb__exec_cmds_free(cmds, total);
            return mb__fail(err, MB_ENOMEM, "out of memory");
        }
        char **words = NULL;
        if (!shell && mb__exec_split(cmds[k].command, &words, err) != MB_OK) {
            mb__exec_cmds_free(cmds, total);
            return MB_EINVAL;
        }
        mb__exec_argv_free(words);
    }
    *out = cmds;
    *n = total;
    return MB_OK;
}

mb_status mb__exec_commands(char **tmpl, size_t ntmpl, int argc, char **argv,
                            char *const *names, size_t nnames,
                            const mb__exec_params *ps, int shell,
                            mb__exec_cmd **out, size_t *n, mb_err *err)
{
    char *joined = NULL;
    *out = NULL;
    *n = 0;
    if (argc > 0 &&
        !(tmpl[ntmpl++] = joined = mb__exec_join_argv(argc, argv, shell)))
        return mb__fail(err, MB_ENOMEM, "out of memory");
    if (ntmpl == 0)
        return mb__fail(err, MB_EINVAL,
                        "no command: give one after '--' or with -c 'CMD' "
                        "(see mbench exec --help)");
    mb_status st =
        mb__exec_expand(tmpl, ntmpl, names, nnames, ps, shell, out, n, err);
    free(joined);
    return st;
}
