/* opt.c - the one command-line parser and help printer (opt.h). */
#include "opt.h"

#include "cli.h"
#include "outputs.h"
#include "runopts.h"

#include "core/parse.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* -h, -q and --color: part of every command. */
enum { ID_HELP = -100, ID_QUIET = -101, ID_COLOR = -102 };
static const mb__opt builtin[] = {
    {.name = "help",
     .short_name = 'h',
     .type = MB_OPT_SWITCH,
     .help = "this help",
     .id = ID_HELP},
    {.name = "quiet",
     .short_name = 'q',
     .type = MB_OPT_SWITCH,
     .help = "no report on the console: errors, warnings and files only",
     .id = ID_QUIET},
    {.name = "color",
     .type = MB_OPT_ENUM,
     .metavar = "WHEN",
     .help = "colour on the console: auto (a terminal, unless NO_COLOR is set; "
             "FORCE_COLOR forces it), always or never",
     .choices = "auto|always|never",
     .id = ID_COLOR},
};
#define N_BUILTIN (sizeof builtin / sizeof builtin[0])

/* Where an option comes from: the sections of a command's options, in
 * order. */
enum { SRC_OWN, SRC_RUN, SRC_OUT, SRC_BUILTIN, N_SRC };

/* Option i of cmd, its section title in *group and its source in *src. */
static const mb__opt *entry(const mb__cmd *cmd, size_t i, const char **group,
                            int *src)
{
    static const char *const titles[N_SRC] = {"Options", NULL, "Outputs",
                                              "General"};
    size_t n[N_SRC] = {
        cmd->n_opts, (cmd->sets & MB_OPTSET_RUN) ? mb_cli_runopts_count() : 0,
        (cmd->sets & MB_OPTSET_OUTPUT) ? MB_CLI_N_OUTPUT_OPTIONS : 0,
        N_BUILTIN};
    for (int s = 0; s < N_SRC; i -= n[s++]) {
        if (i >= n[s])
            continue;
        *src = s;
        *group = titles[s];
        return s == SRC_OWN   ? &cmd->opts[i]
               : s == SRC_RUN ? mb_cli_runopt(i, group)
               : s == SRC_OUT ? &mb_cli_output_opt_table[i]
                              : &builtin[i];
    }
    return NULL;
}

const mb__opt *mb_opt_each(const mb__cmd *cmd, size_t i, const char **group)
{
    int src;
    return entry(cmd, i, group, &src);
}

/* ---- help ---------------------------------------------------------------*/

/* Prints text from column `col`, wrapped before column 79. */
static void wrap(FILE *f, const char *text, int col, int at)
{
    const int width = 79;
    while (*text) {
        size_t room = (size_t)(width - at);
        size_t len = strlen(text);
        size_t cut = len;
        if (len > room) {
            cut = room;
            while (cut > 0 && text[cut] != ' ')
                cut--;
            if (cut == 0)
                cut = strcspn(text, " ");
        }
        fprintf(f, "%.*s\n", (int)cut, text);
        text += cut;
        while (*text == ' ')
            text++;
        if (*text)
            fprintf(f, "%*s", col, "");
        at = col;
    }
}

/* One option's help: "  -s, --name METAVAR   help", wrapped. */
static void help_line(const mb__opt *o, FILE *f)
{
    int w =
        o->short_name ? fprintf(f, "  -%c, ", o->short_name) : fprintf(f, "  ");
    w += fprintf(f, "--%s%s%s", o->name, o->metavar ? " " : "",
                 o->metavar ? o->metavar : "");
    if (w >= 25) {
        fputc('\n', f);
        w = 0;
    }
    fprintf(f, "%*s", 26 - w, "");
    wrap(f, o->help ? o->help : "", 26, 26);
}

void mb_opt_help(const mb__cmd *cmd, FILE *f)
{
    fprintf(f, "usage: mbench %s%s%s [options]\n\n", cmd->name,
            cmd->args ? " " : "", cmd->args ? cmd->args : "");
    if (cmd->description) {
        wrap(f, cmd->description, 0, 0);
        fputc('\n', f);
    }
    const char *last = NULL, *group;
    const mb__opt *o;
    for (size_t i = 0; (o = mb_opt_each(cmd, i, &group)); i++) {
        if (o->flags & MB_OPT_HIDDEN)
            continue;
        if (!last || strcmp(last, group) != 0)
            fprintf(f, "%s:\n", group);
        last = group;
        help_line(o, f);
    }
    if (cmd->footer) {
        fputc('\n', f);
        wrap(f, cmd->footer, 0, 0);
    }
}

/* ---- lookup -------------------------------------------------------------*/

static int unknown(const mb__cmd *cmd, const char *shown, const char *name)
{
    const mb__opt *o, *best = NULL;
    const char *g;
    size_t bd = 99;
    for (size_t i = 0; name && (o = mb_opt_each(cmd, i, &g)); i++) {
        size_t d = mb__edit_distance(name, o->name);
        if (d < bd && !(o->flags & MB_OPT_HIDDEN)) {
            bd = d;
            best = o;
        }
    }
    size_t L = name ? strlen(name) : 0;
    if (best && bd <= (L > 6 ? 3 : 2) && bd < L)
        return mb_cli_error(MB_EXIT_USAGE,
                            "unknown option '%s'; did you mean '--%s'? see "
                            "'mbench %s --help'",
                            shown, best->name, cmd->name);
    return mb_cli_error(MB_EXIT_USAGE,
                        "unknown option '%s'; see 'mbench %s --help'", shown,
                        cmd->name);
}

/* The option called name (len characters): exact, else the first whose
 * name starts with it; *n_hits counts those (1 for an exact match), and
 * *idx is its index for mb_opt_each.  Prints nothing. */
static const mb__opt *lookup_long(const mb__cmd *cmd, const char *name,
                                  size_t len, size_t *idx, size_t *n_hits)
{
    const mb__opt *o, *hit = NULL;
    const char *g;
    *n_hits = 0;
    for (size_t i = 0; len && (o = mb_opt_each(cmd, i, &g)); i++) {
        if (strncmp(o->name, name, len) != 0)
            continue;
        if (o->name[len] == '\0') {
            *idx = i;
            *n_hits = 1;
            return o;
        }
        if (!(*n_hits)++) {
            *idx = i;
            hit = o;
        }
    }
    return hit;
}

/* The option called name (len characters): exact, else an unambiguous
 * prefix.  *idx is its index for mb_opt_each.  NULL after printing. */
static const mb__opt *find_long(const mb__cmd *cmd, const char *name,
                                size_t len, size_t *idx, int *rc)
{
    size_t n_hits, used = 0;
    const mb__opt *o = lookup_long(cmd, name, len, idx, &n_hits), *e;
    if (n_hits == 1)
        return o;
    char shown[128], list[256] = "";
    const char *g;
    snprintf(shown, sizeof shown, "--%.*s", (int)(len < 100 ? len : 100), name);
    for (size_t i = 0; n_hits && (e = mb_opt_each(cmd, i, &g)); i++)
        if (!strncmp(e->name, name, len) && used + 40 < sizeof list)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s--%s",
                                     used ? ", " : "", e->name);
    *rc = n_hits ? mb_cli_error(MB_EXIT_USAGE,
                                "ambiguous option '%s': %s; see 'mbench %s "
                                "--help'",
                                shown, list, cmd->name)
                 : unknown(cmd, shown, shown + 2);
    return NULL;
}

static const mb__opt *find_short(const mb__cmd *cmd, char c, size_t *idx)
{
    const mb__opt *o;
    const char *g;
    for (size_t i = 0; (o = mb_opt_each(cmd, i, &g)); i++)
        if (o->short_name == c) {
            *idx = i;
            return o;
        }
    return NULL;
}

/* ---- values -------------------------------------------------------------*/

static const char *expect_of(const mb__opt *o, char *buf, size_t n)
{
    if (o->expect)
        return o->expect;
    switch (o->type) {
    case MB_OPT_INT:
        snprintf(buf, n, "an integer from %.0f to %.0f", o->lo, o->hi);
        return buf;
    case MB_OPT_DOUBLE:
        snprintf(buf, n, "a number from %g to %g", o->lo, o->hi);
        return buf;
    case MB_OPT_FRACTION:
        return "a fraction such as 0.05 or 5%";
    case MB_OPT_DURATION:
        return "a duration such as 2s, 500ms or 1m";
    case MB_OPT_ENUM: {
        size_t used = 0;
        const char *c = o->choices ? o->choices : "";
        buf[0] = '\0';
        while (*c && used + 8 < n) {
            size_t cl = strcspn(c, "|");
            int lastone = c[cl] == '\0';
            used += (size_t)snprintf(buf + used, n - used, "%s%.*s",
                                     used == 0 ? ""
                                     : lastone ? " or "
                                               : ", ",
                                     (int)cl, c);
            c += cl + (c[cl] == '|');
        }
        return buf;
    }
    case MB_OPT_INTLIST:
        return "comma-separated integers";
    case MB_OPT_KV:
        return "NAME=VALUE";
    case MB_OPT_FILE:
    case MB_OPT_OUTFILE:
    case MB_OPT_DIR:
        return "a path";
    default:
        return "a non-empty value";
    }
}

/* Checks a value of one of the command's own options against its type;
 * 0, or an exit code after printing. */
static int check_value(const mb__opt *o, const char *flag, const char *arg,
                       mb__optval *v)
{
    char ebuf[160];
    v->str = arg;
    v->text = arg;
    switch (o->type) {
    case MB_OPT_SWITCH:
        return 0;
    case MB_OPT_INT:
        if (!mb__parse_i64(arg, (int64_t)o->lo,
                           o->hi >= 9e18 ? INT64_MAX : (int64_t)o->hi, &v->i))
            break;
        return 0;
    case MB_OPT_DOUBLE:
        if (!mb__parse_double(arg, o->lo, o->hi, &v->d))
            break;
        return 0;
    case MB_OPT_FRACTION:
        if (!mb__parse_fraction(arg, o->hi, &v->d) || v->d <= o->lo)
            break;
        return 0;
    case MB_OPT_DURATION:
        if (!mb__parse_duration_ns(arg, &v->i))
            break;
        return 0;
    case MB_OPT_ENUM: {
        const char *c = o->choices ? o->choices : "";
        size_t L = strlen(arg);
        while (L && *c) {
            size_t cl = strcspn(c, "|");
            if (cl == L && strncmp(c, arg, L) == 0)
                return 0;
            c += cl + (c[cl] == '|');
        }
        break;
    }
    case MB_OPT_INTLIST: {
        int64_t *list = NULL;
        size_t n = 0;
        bool good =
            mb__parse_i64_list(arg, (int64_t)o->lo, (int64_t)o->hi, &list, &n);
        free(list);
        if (!good)
            break;
        return 0;
    }
    case MB_OPT_KV: {
        const char *eq = strchr(arg, '=');
        if (!eq || eq == arg)
            break;
        return 0;
    }
    case MB_OPT_OUTFILE:
        if (!*arg)
            break;
        if ((o->flags & MB_OPT_DASH) && strcmp(arg, "-") == 0)
            return 0;
        if (o->flags & MB_OPT_STDOUT)
            return mb_cli_output_arg(flag, arg, &v->str);
        return mb_cli_output_check(flag, arg);
    case MB_OPT_DIR:
    case MB_OPT_FILE:
    case MB_OPT_STRING:
        if (!*arg)
            break;
        return 0;
    }
    return mb_cli_bad_value(flag, arg, expect_of(o, ebuf, sizeof ebuf));
}

/* Applies one option; 0, MB_OPT_HELP or an exit code after printing. */
static int apply(const mb__cmd *cmd, mb__opt_ctx *ctx, const mb__opt *o,
                 size_t idx, const char *arg)
{
    char flag[80];
    const char *group;
    int src = SRC_BUILTIN;
    entry(cmd, idx, &group, &src);
    snprintf(flag, sizeof flag, "--%s", o->name);
    switch (src) {
    case SRC_BUILTIN:
        if (o->id == ID_HELP) {
            mb_opt_help(cmd, stdout);
            return MB_OPT_HELP;
        }
        if (o->id == ID_COLOR) {
            mb__optval v = {0};
            int rc = check_value(o, flag, arg, &v);
            if (!rc)
                mb_cli_set_color(v.str);
            return rc;
        }
        ctx->quiet = 1;
        return 0;
    case SRC_RUN:
        return mb_cli_runopts_set(ctx->plan, o, flag, arg);
    case SRC_OUT: {
        mb__optval v = {0};
        int rc = check_value(o, flag, arg, &v);
        return rc ? rc : mb_cli_outputs_set(ctx->out, o, v.str);
    }
    default: {
        mb__optval v = {0};
        int rc = check_value(o, flag, arg, &v);
        if (rc)
            return rc;
        return ctx->on_opt ? ctx->on_opt(ctx->user, o, &v) : 0;
    }
    }
}

static int needs_value(const mb__cmd *cmd, const char *shown)
{
    return mb_cli_error(MB_EXIT_USAGE,
                        "%s needs a value; see 'mbench %s "
                        "--help'",
                        shown, cmd->name);
}

/* The name of positional argument k in cmd->args ("MODEL"). */
static void arg_name(const mb__cmd *cmd, int k, char *buf, size_t n)
{
    const char *a = cmd->args ? cmd->args : "ARGUMENT";
    for (int i = 0; i < k && strchr(a, ' '); i++)
        a = strchr(a, ' ') + 1;
    a += strspn(a, "[<");
    size_t L = strcspn(a, " ");
    while (L && strchr("].>", a[L - 1]))
        L--;
    snprintf(buf, n, "%.*s", (int)L, a);
}

int mb_opt_parse(const mb__cmd *cmd, int argc, char **argv, mb__opt_ctx *ctx)
{
    int n_pos = 0, only_args = 0, rc = 0;
    ctx->quiet = 0;
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        if (only_args || a[0] != '-' || a[1] == '\0') {
            argv[1 + n_pos++] = a; /* never ahead of i: a safe move */
            continue;
        }
        if (strcmp(a, "--") == 0) {
            only_args = 1;
            continue;
        }
        size_t idx = 0;
        if (a[1] == '-') { /* --name, --name=value */
            const char *name = a + 2, *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            const mb__opt *o = find_long(cmd, name, len, &idx, &rc);
            if (!o)
                return rc;
            char shown[80];
            snprintf(shown, sizeof shown, "--%s", o->name);
            const char *val = NULL;
            if (o->type == MB_OPT_SWITCH) {
                if (eq)
                    return mb_cli_error(MB_EXIT_USAGE,
                                        "%s takes no value; see 'mbench %s "
                                        "--help'",
                                        shown, cmd->name);
            } else if (eq) {
                val = eq + 1;
            } else if (i + 1 < argc) {
                val = argv[++i];
            } else {
                return needs_value(cmd, shown);
            }
            if ((rc = apply(cmd, ctx, o, idx, val)))
                return rc;
            continue;
        }
        for (const char *s = a + 1; *s; s++) { /* -q, -qh, -o FILE, -oFILE */
            const mb__opt *o = find_short(cmd, *s, &idx);
            if (!o) {
                char shown[3] = {'-', *s, '\0'};
                return unknown(cmd, shown, NULL);
            }
            if (o->type == MB_OPT_SWITCH) {
                if ((rc = apply(cmd, ctx, o, idx, NULL)))
                    return rc;
                continue;
            }
            const char *val = s[1] ? s + 1 : i + 1 < argc ? argv[++i] : NULL;
            if (!val) {
                char shown[3] = {'-', *s, '\0'};
                return needs_value(cmd, shown);
            }
            if ((rc = apply(cmd, ctx, o, idx, val)))
                return rc;
            break;
        }
    }
    ctx->args = argv + 1;
    ctx->n_args = n_pos;
    char name[64];
    if (n_pos < cmd->min_args) {
        arg_name(cmd, n_pos, name, sizeof name);
        return mb_cli_error(MB_EXIT_USAGE,
                            "missing %s; usage: mbench %s %s [options]", name,
                            cmd->name, cmd->args ? cmd->args : "");
    }
    if (cmd->max_args >= 0 && n_pos > cmd->max_args) {
        if (cmd->max_args == 0)
            return mb_cli_error(MB_EXIT_USAGE,
                                "mbench %s takes no arguments, got '%s'",
                                cmd->name, ctx->args[0]);
        return mb_cli_error(MB_EXIT_USAGE,
                            "expected %s, got extra argument '%s'; usage: "
                            "mbench %s %s [options]",
                            cmd->args, ctx->args[cmd->max_args], cmd->name,
                            cmd->args);
    }
    if ((cmd->sets & MB_OPTSET_RUN) && ctx->plan &&
        mb_cli_runopts_finish(ctx->plan))
        return MB_EXIT_USAGE;
    return 0;
}

/* ---- rewriting a command line ----------------------------------------*/

/* Appends a copy of the word w (n bytes) to v (room for it is there). */
static void put_word(char **v, int *n, const char *w, size_t len)
{
    char *c = malloc(len + 1);
    if (c) {
        memcpy(c, w, len);
        c[len] = '\0';
    }
    v[(*n)++] = c;
}

/* One word of short options ("-q", "-r3", "-qr 3"), each option as its
 * own word ("-q", "-r" "3"); returns the words of argv used. */
static int rewrite_short(const mb__cmd *cmd, char **argv, int i, int argc,
                         const mb__opt_keep *keep, char **v, int *n)
{
    size_t idx;
    for (const char *p = argv[i] + 1; *p; p++) {
        const mb__opt *o = find_short(cmd, *p, &idx);
        char w[3] = {'-', *p, 0};
        int kept = !o || keep->fn(keep->user, o);
        if (kept)
            put_word(v, n, w, 2);
        if (!o || o->type == MB_OPT_SWITCH)
            continue;
        const char *val = p[1] ? p + 1 : i + 1 < argc ? argv[i + 1] : NULL;
        if (kept && val)
            put_word(v, n, val, strlen(val));
        return p[1] || !val ? 1 : 2;
    }
    return 1;
}

char **mb_opt_rewrite(const mb__cmd *cmd, int argc, char **argv,
                      const mb__opt_keep *keep, int *n_out)
{
    /* at most two words per word of argv (-qr3: -q -r 3 is three of two) */
    char **v = calloc((size_t)argc * 2 + 2, sizeof *v);
    int n = 0;
    for (int i = 0; v && i < argc;) {
        const char *a = argv[i];
        size_t idx, hits;
        if (i == 0 || a[0] != '-' || !a[1] || !strcmp(a, "--")) {
            int rest = i > 0 && !strcmp(a, "--");
            for (int e = rest ? argc : i + 1; i < e; i++)
                put_word(v, &n, argv[i], strlen(argv[i]));
            continue;
        }
        if (a[1] != '-') {
            i += rewrite_short(cmd, argv, i, argc, keep, v, &n);
            continue;
        }
        size_t len = strcspn(a + 2, "=");
        const mb__opt *o = lookup_long(cmd, a + 2, len, &idx, &hits);
        o = hits == 1 ? o : NULL;
        int takes = o && o->type != MB_OPT_SWITCH && !a[2 + len];
        if (!o || keep->fn(keep->user, o)) {
            put_word(v, &n, a, strlen(a));
            if (takes && i + 1 < argc)
                put_word(v, &n, argv[i + 1], strlen(argv[i + 1]));
        }
        i += takes ? 2 : 1;
    }
    for (int k = 0; v && k < n; k++)
        if (!v[k]) {
            mb_opt_argv_free(v);
            v = NULL;
        }
    *n_out = v ? n : 0;
    return v;
}

void mb_opt_argv_free(char **v)
{
    for (size_t k = 0; v && v[k]; k++)
        free(v[k]);
    free(v);
}

/* ---- the registry -------------------------------------------------------*/

#undef MBENCH_OPTIONS
#define MBENCH_OPTIONS(name, var) extern const mb__cmd var;
#include "options.inc"
#undef MBENCH_OPTIONS
#define MBENCH_OPTIONS(name, var) &var,
static const mb__cmd *const registered[] = {
#include "options.inc"
    NULL};
#undef MBENCH_OPTIONS

const mb__cmd *mb_opt_find_command(const char *name)
{
    for (size_t i = 0; registered[i]; i++)
        if (strcmp(registered[i]->name, name) == 0)
            return registered[i];
    return NULL;
}
