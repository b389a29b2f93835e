/* resultdoc.c - loading and merging result documents (resultdoc.h). */
#include "report/resultdoc.h"

#include "core/err.h"
#include "core/redact.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static mb_status check(const char *path, const json_t *doc, mb_err *err)
{
    const char *schema = json_string_value(json_object_get(doc, "schema"));
    if (!json_is_object(doc) || !schema)
        return mb__fail(err, MB_EFORMAT,
                        "%s: no \"schema\" field: not an mbench result "
                        "document (expected \"%s\")",
                        path, MB_RESULT_SCHEMA);
    if (strcmp(schema, MB_RESULT_SCHEMA) != 0)
        return mb__fail(err, MB_EFORMAT,
                        "%s: schema \"%s\" is not supported: this mbench "
                        "reads \"%s\" (use the mbench version that wrote it)",
                        path, schema, MB_RESULT_SCHEMA);
    if (!json_is_array(json_object_get(doc, "runs")))
        return mb__fail(err, MB_EFORMAT,
                        "%s: \"runs\" is missing or not an array", path);
    return MB_OK;
}

mb_status mb__result_load(const char *path, json_t **out, mb_err *err)
{
    json_error_t je;
    /* "-" is standard input (read once: a second "-" finds it empty) */
    int is_stdin = strcmp(path, "-") == 0;
    json_t *doc =
        is_stdin ? json_loadf(stdin, 0, &je) : json_load_file(path, 0, &je);
    if (is_stdin)
        path = "standard input";
    *out = NULL;
    if (!doc && je.line > 0)
        return mb__fail(err, MB_EFORMAT,
                        "%s:%d:%d: not valid JSON: %s (is it a result saved "
                        "with --json?)",
                        path, je.line, je.column, je.text);
    if (!doc)
        return mb__fail(err, MB_EIO, "cannot read %s: %s", path, je.text);
    mb_status st = check(path, doc, err);
    if (st) {
        json_decref(doc);
        return st;
    }
    /* a document saved by an older mbench may carry a password */
    const char *cl = json_string_value(json_object_get(doc, "command_line"));
    if (cl) {
        char *r = mb__redact(cl);
        json_object_set_new(doc, "command_line", json_string(r ? r : ""));
        free(r);
    }
    *out = doc;
    return MB_OK;
}

/* Appends the warnings of doc not yet in warns. */
static int add_warnings(json_t *warns, const json_t *doc)
{
    int ok = 1;
    size_t i, j;
    json_t *x, *y;
    json_array_foreach(json_object_get(doc, "warnings"), i, x)
    {
        int dup = 0;
        json_array_foreach(warns, j, y) dup |= json_equal(x, y);
        if (!dup)
            ok &= json_array_append(warns, x) == 0;
    }
    return ok;
}

json_t *mb__result_merge(json_t *const *docs, const char *const *paths,
                         size_t n, json_t *notes)
{
    json_t *m = json_deep_copy(docs[0]);
    if (!m || n == 1)
        return m;
    json_t *runs = json_array(), *warns = json_array(), *from = json_array();
    int ok = runs && warns && from;
    for (size_t d = 0; ok && d < n; d++) {
        size_t i;
        json_t *x;
        json_array_foreach(json_object_get(docs[d], "runs"), i, x) ok &=
            json_array_append_new(runs, json_deep_copy(x)) == 0;
        ok &= add_warnings(warns, docs[d]);
        ok &= json_array_append_new(from, json_string(paths[d])) == 0;
        if (d > 0 && json_object_get(docs[d], "comparison") && notes) {
            char line[1024];
            snprintf(line, sizeof line,
                     "%s: its \"comparison\" section is not merged into "
                     "--json (only the first document's is kept); its runs "
                     "are",
                     paths[d]);
            ok &= json_array_append_new(notes, json_string(line)) == 0;
        }
    }
    if (ok) {
        ok &= json_object_set(m, "runs", runs) == 0;
        ok &= json_object_set(m, "warnings", warns) == 0;
        ok &= json_object_set(m, "merged_from", from) == 0;
    }
    json_decref(runs);
    json_decref(warns);
    json_decref(from);
    if (!ok) {
        json_decref(m);
        return NULL;
    }
    return m;
}
