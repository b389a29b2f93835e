/* transfer.c - export, copy and import of stored results (transfer.h). */
#include "store/transfer.h"

#include "core/err.h"
#include "core/fileio.h"

#include <stdlib.h>
#include <string.h>

typedef struct walk {
    json_t *docs;   /* export: the array being built */
    mb__store *dst; /* copy: the target */
    mb__transfer_count *c;
} walk;

static mb_status collect(void *user, const json_t *doc, const json_t *git,
                         mb_err *err)
{
    walk *w = user;
    w->c->seen++;
    if (w->dst) {
        int added = 0;
        mb_status st = mb__store_put2(w->dst, doc, git, &added, err);
        w->c->added += (size_t)added;
        return st;
    }
    json_t *e = json_pack("{s:O,s:O}", "git", git, "document", doc);
    if (!e || json_array_append_new(w->docs, e))
        return mb__fail(err, MB_ENOMEM, "out of memory");
    return MB_OK;
}

mb_status mb__store_copy(mb__store *src, mb__store *dst, mb__transfer_count *c,
                         mb_err *err)
{
    walk w = {NULL, dst, c};
    return mb__store_each(src, collect, &w, err);
}

mb_status mb__store_export(mb__store *src, const char *now, json_t **out,
                           mb__transfer_count *c, mb_err *err)
{
    walk w = {json_array(), NULL, c};
    *out = NULL;
    if (!w.docs)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    mb_status st = mb__store_each(src, collect, &w, err);
    if (!st && !(*out = json_pack("{s:s,s:s,s:s,s:O}", "schema",
                                  MB_STORE_EXPORT_SCHEMA, "exported_utc", now,
                                  "source_kind", mb__store_kind(src),
                                  "documents", w.docs)))
        st = mb__fail(err, MB_ENOMEM, "out of memory");
    json_decref(w.docs);
    return st;
}

static mb_status put(mb__store *dst, const json_t *doc, const json_t *git,
                     mb__transfer_count *c, mb_err *err)
{
    int added = 0;
    mb_status st = mb__store_put2(dst, doc, git, &added, err);
    if (!st) {
        c->seen++;
        c->added += (size_t)added;
    }
    return st;
}

mb_status mb__json_file_load(const char *path, const char *what, json_t **out,
                             mb_err *err)
{
    char *data;
    size_t len;
    *out = NULL;
    mb_status st = mb__read_file(path, &data, &len, err);
    if (st)
        return st;
    json_error_t je;
    *out = json_loadb(data, len, 0, &je);
    free(data);
    if (!*out)
        return mb__fail(
            err, MB_EFORMAT, "%s%s%s is not valid JSON (line %d: %s)",
            what ? what : "", what ? " " : "", path, je.line, je.text);
    return MB_OK;
}

mb_status mb__store_import_file(mb__store *dst, const char *path,
                                const json_t *git, mb__transfer_count *c,
                                mb_err *err)
{
    json_t *j;
    mb_status st = mb__json_file_load(path, NULL, &j, err);
    if (st)
        return st;
    st = mb__store_import_json(dst, j, path, git, c, err);
    json_decref(j);
    return st;
}

mb_status mb__store_import_json(mb__store *dst, const json_t *j,
                                const char *path, const json_t *git,
                                mb__transfer_count *c, mb_err *err)
{
    mb_status st = MB_OK;
    const char *schema = json_string_value(json_object_get(j, "schema"));
    if (schema && strcmp(schema, MB_STORE_EXPORT_SCHEMA) == 0) {
        size_t i;
        json_t *e;
        json_array_foreach(json_object_get(j, "documents"), i, e)
        {
            if ((st = put(dst, json_object_get(e, "document"),
                          json_object_get(e, "git"), c, err))) {
                mb__fail_prefix(err, "%s, document %zu", path, i + 1);
                break;
            }
        }
    } else if (schema && strncmp(schema, "mbench.store-export/", 20) == 0) {
        st = mb__fail(err, MB_EFORMAT,
                      "%s is an export of schema '%s'; this mbench reads "
                      "'%s'",
                      path, schema, MB_STORE_EXPORT_SCHEMA);
    } else {
        const json_t *g = json_object_get(j, "git");
        if ((st = put(dst, j, g ? g : git, c, err)))
            mb__fail_prefix(err, "%s", path);
    }
    return st;
}

mb_status mb__store_counts(mb__store *s, int64_t counts[3], mb_err *err)
{
    static const char *const tables[3] = {"documents", "runs", "run_samples"};
    mb_status st = MB_OK;
    for (int i = 0; i < 3 && !st; i++)
        st = mb__store_count(s, tables[i], &counts[i], err);
    return st;
}
