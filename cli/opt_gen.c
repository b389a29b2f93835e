/* opt_gen.c - the hidden `mbench __dump-options json|list`: the commands'
 * option tables (opt.h) as JSON, from which tools/optdoc.c writes the man
 * page and the bash and zsh completion (docs/DESIGN.md "Command-line
 * options"). */
#include "opt.h"

#include "cli.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Indexed by mb__opt_type. */
static const char *const type_names[] = {
    "switch", "int",     "double", "fraction", "duration", "string",
    "file",   "outfile", "enum",   "intlist",  "kv",       "dir"};

/* One command, from its table; with list, also "COMMAND --option" a line
 * for each option the man page and completion show
 * (tests/integration/options.sh reads it). */
static json_t *describe(const mb__cmd_entry *c, FILE *list)
{
    const mb__cmd *spec = mb_opt_find_command(c->name);
    json_t *opts = json_array(), *o;
    json_t *cmd = json_pack("{s:s, s:s, s:o}", "name", c->name, "summary",
                            c->summary, "options", opts);
    if (!spec) /* every command declares a table (help.sh checks) */
        return cmd;
    json_object_update_new(
        cmd, json_pack("{s:s?, s:s?, s:s?}", "args", spec->args, "description",
                       spec->description, "footer", spec->footer));
    const mb__opt *t;
    const char *group;
    for (size_t i = 0; (t = mb_opt_each(spec, i, &group)); i++) {
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
            fprintf(list, "%s --%s\n", c->name,
                    json_string_value(json_object_get(o, "name")));
    return cmd;
}

int mb_opt_dump(const char *what, const mb__cmd_entry *cmds, size_t n, FILE *f)
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
