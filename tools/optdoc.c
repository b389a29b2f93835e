/* optdoc.c - build-time generator of the man page's OPTIONS section and
 * the bash and zsh completion scripts, from the JSON that the hidden
 * `mbench __dump-options json` prints (cli/opt_gen.c):
 *
 *   optdoc man|bash|zsh [FILE]      (FILE, or the standard input)
 *
 * Each output is one template (below) expanded over that document, so the
 * three cannot drift from each other or from the commands' option tables.
 * Template language, inside otherwise literal text:
 *   %X           field X of the current option, else of the current
 *                command, escaped for the output: n name, a args,
 *                s summary, d description, H help_text (a command
 *                without a table), x short, m metavar, h help,
 *                c choices (as words), v type (absent for a switch)
 *   %A           the option's completion action, by the kind of value
 *   %[C ... %]   once per command;  %[O ... %]  once per shown option
 *                (not hidden) of the current command
 *   %?X ... %]   only when field X is there;  %!X ... %]  only when not
 *   %_           a space, except in the first pass of the inner loop
 * Not installed; see the Makefile and docs/DESIGN.md. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Kinds of value, for %A: the index into format.action. */
enum { K_SWITCH, K_ENUM, K_DIR, K_FILE, K_OTHER, N_KINDS };

typedef struct format {
    const char *name;
    void (*put)(FILE *f, const char *s, char field); /* escapes a field */
    const char *action[N_KINDS];
    const char *text;
} format;

typedef struct ctx {
    const format *fmt;
    json_t *doc, *cmd, *opt; /* the document, the current command, option */
    size_t pass;             /* of the innermost loop, for %_ */
} ctx;

/* roff text: backslashes and dashes escaped, no line starting with . or '. */
static void put_roff(FILE *f, const char *s, char field)
{
    (void)field;
    for (int bol = 1; *s; bol = *s++ == '\n') {
        if (bol && (*s == '.' || *s == '\''))
            fputs("\\&", f);
        if (*s == '\\' || *s == '-')
            fputs(*s == '\\' ? "\\e" : "\\-", f);
        else
            fputc(*s, f);
    }
}

static void put_raw(FILE *f, const char *s, char field)
{
    (void)field;
    fputs(s, f);
}

/* Text inside a zsh _arguments spec: no brackets, colons or quotes, and
 * at most 200 (summary), 40 (metavar) or 120 characters. */
static void put_zsh(FILE *f, const char *s, char field)
{
    size_t max = field == 's' ? 200 : field == 'm' ? 40 : 120;
    for (size_t i = 0; s[i] && i < max; i++) {
        char c = s[i] == '[' ? '(' : s[i] == ']' ? ')' : s[i];
        if (strchr(":'\\`$", c))
            c = c == ':' ? ';' : ' ';
        fputc(c, f);
    }
}

static const char *const keys[128] = {
    ['n'] = "name",        ['a'] = "args",      ['s'] = "summary",
    ['d'] = "description", ['H'] = "help_text", ['x'] = "short",
    ['m'] = "metavar",     ['h'] = "help",      ['c'] = "choices",
    ['v'] = "type"};

static const char *field(const ctx *c, char k)
{
    const char *key = (unsigned char)k < 128 ? keys[(unsigned char)k] : NULL;
    if (!key) {
        fprintf(stderr, "optdoc: %s: unknown field %%%c\n", c->fmt->name, k);
        exit(2);
    }
    json_t *v = c->opt ? json_object_get(c->opt, key) : NULL;
    const char *s = json_string_value(v ? v : json_object_get(c->cmd, key));
    return k == 'v' && s && strcmp(s, "switch") == 0 ? NULL : s;
}

static int kind(const ctx *c)
{
    static const char *const types[] = {"switch", "enum", "dir", "file",
                                        "outfile"};
    static const int kinds[] = {K_SWITCH, K_ENUM, K_DIR, K_FILE, K_FILE};
    const char *t = field(c, 'v');
    for (size_t i = 0; t && i < sizeof types / sizeof *types; i++)
        if (strcmp(t, types[i]) == 0)
            return kinds[i] == K_ENUM && !field(c, 'c') ? K_OTHER : kinds[i];
    return t ? K_OTHER : K_SWITCH;
}

/* The "%]" that closes the block whose body starts at t. */
static const char *block_end(const char *t)
{
    for (int depth = 0; *t; t++) {
        if (*t != '%' || !t[1])
            continue;
        t++;
        if (strchr("[?!", *t))
            depth++;
        else if (*t == ']' && depth-- == 0)
            return t - 1;
    }
    fputs("optdoc: a template block has no %]\n", stderr);
    exit(2);
}

static void expand(FILE *f, const char *t, const char *stop, ctx *c);

/* %[C: each command; %[O: each shown option of the current command. */
static void loop(FILE *f, const char *t, const char *stop, ctx *c, char what)
{
    json_t *items = what == 'C' ? c->doc : json_object_get(c->cmd, "options");
    json_t *x, **cur = what == 'C' ? &c->cmd : &c->opt;
    size_t saved = c->pass, n = 0;
    for (size_t i = 0; (x = json_array_get(items, i)); i++) {
        json_t *flags = json_object_get(x, "flags");
        if (json_is_true(json_object_get(flags, "hidden")))
            continue;
        *cur = x;
        c->pass = n++;
        expand(f, t, stop, c);
    }
    *cur = NULL;
    c->pass = saved;
}

static void expand(FILE *f, const char *t, const char *stop, ctx *c)
{
    while (t < stop) {
        if (*t != '%') {
            fputc(*t++, f);
            continue;
        }
        char op = t[1];
        if (op == '[' || op == '?' || op == '!') {
            const char *body = t + 3, *end = block_end(body);
            if (op == '[')
                loop(f, body, end, c, t[2]);
            else if ((field(c, t[2]) != NULL) == (op == '?'))
                expand(f, body, end, c);
            t = end + 2;
            continue;
        }
        t += 2;
        if (op == '_' || op == 'A') {
            const char *a = op == 'A' ? c->fmt->action[kind(c)] : " ";
            if (op == 'A' || c->pass)
                expand(f, a, a + strlen(a), c);
            continue;
        }
        const char *s = field(c, op);
        char *words = op == 'c' && s ? strdup(s) : NULL;
        for (char *w = words; w && *w; w++)
            *w = *w == '|' ? ' ' : *w;
        if (s)
            c->fmt->put(f, words ? words : s, op);
        free(words);
    }
}

static const format formats[] = {
    {"man",
     put_roff,
     {"", "", "", "", ""},
     ".SH OPTIONS\n"
     "Every command takes\n.B \\-h, \\-\\-help\n"
     "(its options, as below) and\n.B \\-q, \\-\\-quiet\n"
     "(no report on the console); `mbench help COMMAND' is the same as "
     "`mbench COMMAND \\-\\-help'.\n"
     "%[C.SS \"mbench %n%?a %a%]\"\n%?d%d%]%!d%s%]\n"
     "%?H.PP\n.nf\n%H.fi\n%]"
     "%!H%[O.TP\n.B %?x\\-%x, %]\\-\\-%n%?m \" %m\"%]\n%h\n%]%]"
     "%]"},
    {"bash",
     put_raw,
     {"", " COMPREPLY=($(compgen -W \"%c\" -- \"$cur\")); return ;;",
      " COMPREPLY=($(compgen -d -- \"$cur\")); return ;;",
      " COMPREPLY=($(compgen -f -- \"$cur\")); return ;;", " return ;;"},
     "# bash completion for mbench (generated by tools/optdoc from "
     "mbench __dump-options json; do not edit)\n"
     "_mbench() {\n"
     "    local cur=\"${COMP_WORDS[COMP_CWORD]}\" "
     "prev=\"${COMP_WORDS[COMP_CWORD-1]}\" opts=\n"
     "    if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
     "        COMPREPLY=($(compgen -W \"help%[C %n%]\" -- \"$cur\"))\n"
     "        return\n"
     "    fi\n"
     "    case \"${COMP_WORDS[1]}\" in\n"
     "%[C    %n)\n"
     "        case \"$prev\" in\n"
     "%[O%?v        --%n)%A\n%]%]"
     "        esac\n"
     "        opts=\"%[O%_--%n%?x -%x%]%]\" ;;\n%]"
     "    help) COMPREPLY=($(compgen -W \"%[C%_%n%]\" -- \"$cur\")); "
     "return ;;\n"
     "    esac\n"
     "    if [[ \"$cur\" == -* ]]; then\n"
     "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
     "    else\n"
     "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
     "    fi\n"
     "}\n"
     "complete -o filenames -F _mbench mbench\n"},
    {"zsh",
     put_zsh,
     {"", "(%c)", "_files -/", "_files", ""},
     "#compdef mbench\n"
     "# zsh completion for mbench (generated by tools/optdoc from "
     "mbench __dump-options json; do not edit)\n"
     "_mbench() {\n"
     "    local -a commands\n"
     "    commands=(\n"
     "%[C        '%n:%s'\n%]"
     "    )\n"
     "    if (( CURRENT == 2 )); then\n"
     "        _describe 'command' commands\n"
     "        return\n"
     "    fi\n"
     "    case $words[2] in\n"
     "%[C    %n)\n"
     "        _arguments -s \\\n"
     "%[O            '--%n[%?h%h%]%!h%n%]]%?v:%?m%m%]%!mVALUE%]:%A%]' \\\n%]"
     "            '*:argument:_files' ;;\n%]"
     "    help) _describe 'command' commands ;;\n"
     "    esac\n"
     "}\n"
     "_mbench \"$@\"\n"},
};

int main(int argc, char **argv)
{
    const format *fmt = NULL;
    for (size_t i = 0; argc >= 2 && i < sizeof formats / sizeof *formats; i++)
        if (strcmp(argv[1], formats[i].name) == 0)
            fmt = &formats[i];
    if (!fmt || argc > 3) {
        fputs("usage: optdoc man|bash|zsh [OPTIONS.json]\n", stderr);
        return 2;
    }
    json_error_t err;
    json_t *doc = argc == 3 ? json_load_file(argv[2], 0, &err)
                            : json_loadf(stdin, 0, &err);
    if (!json_is_array(doc)) {
        fprintf(stderr,
                "optdoc: %s: %s (the output of mbench __dump-options json)\n",
                argc == 3 ? argv[2] : "<stdin>",
                doc ? "not an array of commands" : err.text);
        json_decref(doc);
        return 2;
    }
    ctx c = {fmt, doc, NULL, NULL, 0};
    expand(stdout, fmt->text, fmt->text + strlen(fmt->text), &c);
    json_decref(doc);
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 3;
}
