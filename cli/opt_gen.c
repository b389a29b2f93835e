/* opt_gen.c - the hidden `mbench __dump-options json|list`: the commands'
 * option tables (opt.h) as JSON, from which tools/optdoc.c writes the man
 * page and the bash and zsh completion (docs/DESIGN.md "Command-line
 * options").  A command still on getopt_long is described by its --help. */
#include "opt.h"

#include "cli.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Indexed by mb_opt_type. */
static const char *const type_names[] = {
    "switch", "int",     "double", "fraction", "duration", "string",
    "file",   "outfile", "enum",   "intlist",  "kv",       "dir"};

/* The options a --help text names, once each: "--name" (and "-x, --name"),
 * taking a value (completed as a file) when an upper-case word follows. */
static void scrape(json_t *opts, const char *help)
{
    json_t *seen = json_object();
    for (const char *p = help, *end; p && (p = strstr(p, "--")); p = end) {
        const char *s = p + 2;
        size_t len = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-");
        char sh[2] = {0};
        end = s + len;
        if (len < 2 || len > 59 || s[0] == '-' ||
            json_object_getn(seen, s, len) ||
            (p > help && !strchr(" \t\n[|(,'", p[-1])))
            continue;
        if (p >= help + 4 && p[-1] == ' ' && p[-2] == ',' && p[-4] == '-')
            sh[0] = p[-3];
        bool value =
            (*end == ' ' || *end == '=') && end[1] >= 'A' && end[1] <= 'Z';
        json_object_setn_new(seen, s, len, json_true());
        json_array_append_new(opts,
                              json_pack("{s:s%, s:s?, s:s}", "name", s, len,
                                        "short", sh[0] ? sh : NULL, "type",
                                        value ? "file" : "switch"));
    }
    json_decref(seen);
}

/* One command, from its table or (GNU: stdout may be set) its --help; with
 * list, also "COMMAND --option" a line for each option the man page and
 * completion show (tests/integration/options.sh reads it). */
static json_t *describe(const mb_cmd_entry *c, FILE *list)
{
    const mb_cmd *spec = mb_opt_find_command(c->name);
    json_t *opts = json_array(), *o;
    json_t *cmd = json_pack("{s:s, s:s, s:o}", "name", c->name, "summary",
                            c->summary, "options", opts);
    if (!spec) {
        char *text = NULL, *args[] = {(char *)c->name, "--help", NULL};
        size_t len = 0;
        FILE *saved = stdout;
        fflush(stdout);
        if ((stdout = open_memstream(&text, &len))) {
            c->fn(2, args);
            fclose(stdout);
        }
        stdout = saved;
        json_object_set_new(cmd, "help_text", json_string(text ? text : ""));
        scrape(opts, text);
        free(text);
    } else
        json_object_update_new(cmd, json_pack("{s:s?, s:s?, s:s?}", "args",
                                              spec->args, "description",
                                              spec->description, "footer",
                                              spec->footer));
    const mb_opt *t;
    const char *group;
    for (size_t i = 0; spec && (t = mb_opt_each(spec, i, &group)); i++) {
        char sh[2] = {t->short_name, 0};
        unsigned fl = t->flags;
        json_array_append_new(
            opts,
            json_pack("{s:s, s:s?, s:s, s:s?, s:s?, s:s?, s:[f,f], "
                      "s:{s:b, s:b, s:b, s:b}, s:s}",
                      "name", t->name, "short", sh[0] ? sh : NULL, "type",
                      type_names[t->type], "metavar", t->metavar, "help",
                      t->help, "choices", t->choices, "range", t->lo, t->hi,
                      "flags", "repeat", !!(fl & MB_OPT_REPEAT), "hidden",
                      !!(fl & MB_OPT_HIDDEN), "stdout", !!(fl & MB_OPT_STDOUT),
                      "dash", !!(fl & MB_OPT_DASH), "group", group));
    }
    for (size_t k = 0; list && (o = json_array_get(opts, k)); k++)
        if (!json_is_true(
                json_object_get(json_object_get(o, "flags"), "hidden")))
            fprintf(list, "%s --%s%s\n", c->name,
                    json_string_value(json_object_get(o, "name")),
                    spec ? "" : " (from --help)");
    return cmd;
}

int mb_opt_dump(const char *what, const mb_cmd_entry *cmds, size_t n, FILE *f)
{
    bool list = strcmp(what, "list") == 0;
    if (!list && strcmp(what, "json") != 0)
        return mb_cli_error(MB_EXIT_USAGE, "__dump-options takes json or list");
    json_t *doc = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(doc, describe(&cmds[i], list ? f : NULL));
    if (!list && json_dumpf(doc, f, JSON_INDENT(1)) == 0)
        fputc('\n', f);
    json_decref(doc);
    return MB_EXIT_OK;
}
