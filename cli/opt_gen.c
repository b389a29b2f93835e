/* opt_gen.c - the man page section and the bash and zsh completion
 * scripts, generated from the commands' option tables (opt.h) by the
 * hidden `mbench __dump-options man|bash|zsh|list`, which the Makefile runs
 * (build/mbench.1, build/completion/).  A command still on getopt_long has
 * no table: its options are read from its own --help (a bridge until it
 * is converted; docs/DESIGN.md says how). */
#include "opt.h"

#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One option as the generators see it. */
typedef struct gen_opt {
    char name[64];
    char short_name;
    int takes_value;
    mb_opt_type type;
    const char *choices;
    const char *metavar;
    const char *help;
} gen_opt;

typedef struct gen_cmd {
    const char *name, *summary;
    const mb_cmd *spec; /* NULL: a getopt_long command */
    char *help_text;    /* its --help, for getopt_long commands */
    gen_opt *opts;
    size_t n;
} gen_cmd;

/* The --help text of a command without a table; caller frees. */
static char *legacy_help(const mb_cmd_entry *c)
{
    FILE *tmp = tmpfile();
    if (!tmp)
        return NULL;
    fflush(stdout);
    int saved = dup(1);
    dup2(fileno(tmp), 1);
    char *args[] = {(char *)c->name, "--help", NULL};
    c->fn(2, args);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    long n = fseek(tmp, 0, SEEK_END) == 0 ? ftell(tmp) : 0;
    char *s = calloc((size_t)(n > 0 ? n : 0) + 1, 1);
    rewind(tmp);
    if (s && n > 0 && fread(s, 1, (size_t)n, tmp) != (size_t)n)
        s[0] = '\0';
    fclose(tmp);
    return s;
}

static int add(gen_cmd *g, const gen_opt *o)
{
    for (size_t i = 0; i < g->n; i++)
        if (strcmp(g->opts[i].name, o->name) == 0)
            return 0;
    gen_opt *n = realloc(g->opts, (g->n + 1) * sizeof *n);
    if (!n)
        return -1;
    g->opts = n;
    g->opts[g->n++] = *o;
    return 0;
}

/* Options named in a --help text: "--name" (and "-x, --name"), with a
 * value when an upper-case word follows. */
static void scrape(gen_cmd *g)
{
    const char *p = g->help_text;
    while (p && (p = strstr(p, "--"))) {
        const char *s = p + 2;
        size_t L = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-");
        int at_word = p == g->help_text || strchr(" \t\n[|(,'", p[-1]);
        if (L > 1 && at_word && s[0] != '-' && L < 60) {
            gen_opt o = {{0}, 0, 0, MB_OPT_STRING, NULL, NULL, NULL};
            memcpy(o.name, s, L);
            const char *after = s + L;
            o.takes_value = (*after == ' ' || *after == '=') &&
                            after[1] >= 'A' && after[1] <= 'Z';
            if (p >= g->help_text + 4 && p[-1] == ' ' && p[-2] == ',' &&
                p[-4] == '-')
                o.short_name = p[-3];
            o.type = o.takes_value ? MB_OPT_FILE : MB_OPT_SWITCH;
            add(g, &o);
        }
        p = s + L;
    }
}

static gen_cmd *collect(const mb_cmd_entry *cmds, size_t n)
{
    gen_cmd *g = calloc(n ? n : 1, sizeof *g);
    for (size_t i = 0; g && i < n; i++) {
        g[i].name = cmds[i].name;
        g[i].summary = cmds[i].summary;
        g[i].spec = mb_opt_find_command(cmds[i].name);
        if (!g[i].spec) {
            g[i].help_text = legacy_help(&cmds[i]);
            scrape(&g[i]);
            continue;
        }
        const mb_opt *o;
        const char *grp;
        for (size_t k = 0; (o = mb_opt_each(g[i].spec, k, &grp)); k++) {
            if (o->flags & MB_OPT_HIDDEN)
                continue;
            gen_opt x = {{0},     o->short_name, o->type != MB_OPT_SWITCH,
                         o->type, o->choices,    o->metavar,
                         o->help};
            snprintf(x.name, sizeof x.name, "%s", o->name);
            add(&g[i], &x);
        }
    }
    return g;
}

static void release(gen_cmd *g, size_t n)
{
    for (size_t i = 0; g && i < n; i++) {
        free(g[i].help_text);
        free(g[i].opts);
    }
    free(g);
}

/* ---- man ----------------------------------------------------------------*/

/* roff text: backslashes and dashes escaped, no line starting with . or '. */
static void roff(FILE *f, const char *s)
{
    int bol = 1;
    for (; s && *s; s++) {
        if (bol && (*s == '.' || *s == '\''))
            fputs("\\&", f);
        bol = *s == '\n';
        if (*s == '\\')
            fputs("\\e", f);
        else if (*s == '-')
            fputs("\\-", f);
        else
            fputc(*s, f);
    }
}

static void dump_man(FILE *f, gen_cmd *g, size_t n)
{
    fputs(".SH OPTIONS\n"
          "Every command takes\n.B \\-h, \\-\\-help\n"
          "(its options, as below) and\n.B \\-q, \\-\\-quiet\n"
          "(no report on the console); `mbench help COMMAND' is the same "
          "as `mbench COMMAND \\-\\-help'.\n",
          f);
    for (size_t i = 0; i < n; i++) {
        fputs(".SS \"mbench ", f);
        roff(f, g[i].name);
        if (g[i].spec && g[i].spec->args) {
            fputc(' ', f);
            roff(f, g[i].spec->args);
        }
        fputs("\"\n", f);
        roff(f, g[i].spec && g[i].spec->description ? g[i].spec->description
                                                    : g[i].summary);
        fputc('\n', f);
        if (!g[i].spec) { /* its own --help, verbatim */
            fputs(".PP\n.nf\n", f);
            roff(f, g[i].help_text);
            fputs(".fi\n", f);
            continue;
        }
        for (size_t k = 0; k < g[i].n; k++) {
            const gen_opt *o = &g[i].opts[k];
            fputs(".TP\n.B ", f);
            if (o->short_name)
                fprintf(f, "\\-%c, ", o->short_name);
            fputs("\\-\\-", f);
            roff(f, o->name);
            if (o->metavar) {
                fputs(" \" ", f);
                roff(f, o->metavar);
                fputc('"', f);
            }
            fputc('\n', f);
            roff(f, o->help ? o->help : "");
            fputc('\n', f);
        }
    }
}

/* ---- bash ---------------------------------------------------------------*/

static void words(FILE *f, const char *choices)
{
    for (const char *c = choices; c && *c; c++)
        fputc(*c == '|' ? ' ' : *c, f);
}

static void dump_bash(FILE *f, gen_cmd *g, size_t n)
{
    fputs("# bash completion for mbench (generated by mbench __dump-options "
          "bash; do not edit)\n"
          "_mbench() {\n"
          "    local cur=\"${COMP_WORDS[COMP_CWORD]}\" "
          "prev=\"${COMP_WORDS[COMP_CWORD-1]}\" opts=\n"
          "    if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
          "        COMPREPLY=($(compgen -W \"help",
          f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, " %s", g[i].name);
    fputs("\" -- \"$cur\"))\n        return\n    fi\n"
          "    case \"${COMP_WORDS[1]}\" in\n",
          f);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "    %s)\n        case \"$prev\" in\n", g[i].name);
        for (size_t k = 0; k < g[i].n; k++) {
            const gen_opt *o = &g[i].opts[k];
            if (!o->takes_value)
                continue;
            fprintf(f, "        --%s)", o->name);
            if (o->type == MB_OPT_ENUM && o->choices) {
                fputs(" COMPREPLY=($(compgen -W \"", f);
                words(f, o->choices);
                fputs("\" -- \"$cur\")); return ;;\n", f);
            } else if (o->type == MB_OPT_DIR) {
                fputs(" COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n", f);
            } else if (o->type == MB_OPT_FILE || o->type == MB_OPT_OUTFILE) {
                fputs(" COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n", f);
            } else {
                fputs(" return ;;\n", f);
            }
        }
        fputs("        esac\n        opts=\"", f);
        for (size_t k = 0; k < g[i].n; k++) {
            fprintf(f, "%s--%s", k ? " " : "", g[i].opts[k].name);
            if (g[i].opts[k].short_name)
                fprintf(f, " -%c", g[i].opts[k].short_name);
        }
        fputs("\" ;;\n", f);
    }
    fputs("    help) COMPREPLY=($(compgen -W \"", f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s%s", i ? " " : "", g[i].name);
    fputs("\" -- \"$cur\")); return ;;\n"
          "    esac\n"
          "    if [[ \"$cur\" == -* ]]; then\n"
          "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
          "    else\n"
          "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
          "    fi\n"
          "}\n"
          "complete -o filenames -F _mbench mbench\n",
          f);
}

/* ---- zsh ----------------------------------------------------------------*/

/* Text inside a zsh _arguments spec: no brackets, colons or quotes. */
static void zq(FILE *f, const char *s, size_t max)
{
    for (size_t i = 0; s && s[i] && i < max; i++) {
        char c = s[i];
        if (c == '[' || c == ']')
            c = c == '[' ? '(' : ')';
        if (c == ':' || c == '\'' || c == '\\' || c == '`' || c == '$')
            fputc(c == ':' ? ';' : ' ', f);
        else
            fputc(c, f);
    }
}

static void dump_zsh(FILE *f, gen_cmd *g, size_t n)
{
    fputs("#compdef mbench\n"
          "# zsh completion for mbench (generated by mbench __dump-options "
          "zsh; do not edit)\n"
          "_mbench() {\n"
          "    local -a commands\n"
          "    commands=(\n",
          f);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "        '%s:", g[i].name);
        zq(f, g[i].summary, 200);
        fputs("'\n", f);
    }
    fputs("    )\n"
          "    if (( CURRENT == 2 )); then\n"
          "        _describe 'command' commands\n"
          "        return\n"
          "    fi\n"
          "    case $words[2] in\n",
          f);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "    %s)\n        _arguments -s \\\n", g[i].name);
        for (size_t k = 0; k < g[i].n; k++) {
            const gen_opt *o = &g[i].opts[k];
            fprintf(f, "            '--%s[", o->name);
            zq(f, o->help ? o->help : o->name, 120);
            fputc(']', f);
            if (o->takes_value) {
                fputc(':', f);
                zq(f, o->metavar ? o->metavar : "VALUE", 40);
                fputc(':', f);
                if (o->type == MB_OPT_ENUM && o->choices) {
                    fputc('(', f);
                    words(f, o->choices);
                    fputc(')', f);
                } else if (o->type == MB_OPT_DIR) {
                    fputs("_files -/", f);
                } else if (o->type == MB_OPT_FILE ||
                           o->type == MB_OPT_OUTFILE) {
                    fputs("_files", f);
                }
            }
            fputs("' \\\n", f);
        }
        fputs("            '*:argument:_files' ;;\n", f);
    }
    fputs("    help) _describe 'command' commands ;;\n"
          "    esac\n"
          "}\n"
          "_mbench \"$@\"\n",
          f);
}

int mb_opt_dump(const char *what, const mb_cmd_entry *cmds, size_t n, FILE *f)
{
    gen_cmd *g = collect(cmds, n);
    if (!g)
        return mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
    int rc = MB_EXIT_OK;
    if (strcmp(what, "man") == 0)
        dump_man(f, g, n);
    else if (strcmp(what, "bash") == 0)
        dump_bash(f, g, n);
    else if (strcmp(what, "zsh") == 0)
        dump_zsh(f, g, n);
    else if (strcmp(what, "list") == 0) /* "COMMAND --option" per line */
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < g[i].n; k++)
                fprintf(f, "%s --%s%s\n", g[i].name, g[i].opts[k].name,
                        g[i].spec ? "" : " (from --help)");
    else
        rc = mb_cli_error(MB_EXIT_USAGE,
                          "__dump-options takes man, bash, zsh or list");
    release(g, n);
    return rc;
}
