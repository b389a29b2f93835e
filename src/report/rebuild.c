/* rebuild.c - every report from saved result documents (rebuild.h). */
#include "report/rebuild.h"

#include "core/err.h"
#include "report/csv.h"
#include "report/html.h"
#include "report/markdown.h"
#include "report/resultdoc.h"

#include <stdlib.h>

/* Reports st (with err) through cb once, and keeps the first failure. */
static void note(mb_status st, const mb_err *err, mb_status *first,
                 const mb__rebuild_cb *cb)
{
    if (!st)
        return;
    if (!*first)
        *first = st;
    if (cb->fail)
        cb->fail(cb->user, err);
}

/* Writes what a writer rendered into b (freed): to path, or appended to
 * out when path is NULL. */
static mb_status emit(const char *path, mb_status st, mb__buf *b, mb__buf *out,
                      mb_err *err)
{
    if (!st && path)
        return mb__output_buf(path, b, err);
    if (!st)
        mb__buf_append(out, b->data ? b->data : "", b->len);
    mb__buf_free(b);
    return st;
}

/* The merged document, its notes given to cb->warn. */
static mb_status write_merged(const char *path, json_t **docs,
                              char *const *names, size_t n,
                              const mb__rebuild_cb *cb, mb_err *err)
{
    json_t *notes = json_array(), *w;
    json_t *m = mb__result_merge(docs, (const char *const *)names, n, notes);
    size_t i;
    json_array_foreach(notes, i, w) if (cb->warn)
        cb->warn(cb->user, json_string_value(w));
    json_decref(notes);
    mb_status st =
        mb__output_json_as(path, m, JSON_INDENT(1) | JSON_PRESERVE_ORDER, err);
    json_decref(m);
    return st;
}

mb_status mb__report_rebuild(char *const *paths, size_t n, const mb__outset *o,
                             mb__buf *md_out, const mb__rebuild_cb *cb)
{
    json_t **docs = n ? calloc(n, sizeof *docs) : NULL;
    mb_err err = {0};
    mb_status first = MB_OK;
    if (n == 0)
        note(mb__fail(&err, MB_EINVAL,
                      "report: give at least one RESULT.json (saved with "
                      "mbench run --json FILE)"),
             &err, &first, cb);
    else if (!docs)
        note(mb__fail(&err, MB_ENOMEM, "out of memory"), &err, &first, cb);
    for (size_t i = 0; docs && i < n && !first; i++)
        note(mb__result_load(paths[i], &docs[i], &err), &err, &first, cb);
    int loaded = docs && !first; /* every document: reports are tried */
    const json_t *const *cdocs = (const json_t *const *)docs;
    mb__buf b = MB_BUF_INIT;
    if (loaded && (o->md || md_out)) {
        mb_status st = mb__report_md(cdocs, n, &b, &err);
        note(emit(o->md, st, &b, md_out, &err), &err, &first, cb);
    }
    if (loaded && o->html) {
        mb_status st = mb__report_html(cdocs, n, &b, &err);
        note(emit(o->html, st, &b, NULL, &err), &err, &first, cb);
    }
    if (loaded && o->csv) {
        for (size_t i = 0; i < n; i++)
            mb__report_csv(docs[i], i == 0, &b);
        note(mb__output_buf(o->csv, &b, &err), &err, &first, cb);
    }
    if (loaded && o->json)
        note(write_merged(o->json, docs, paths, n, cb, &err), &err, &first, cb);
    for (size_t i = 0; docs && i < n; i++)
        json_decref(docs[i]);
    free(docs);
    return first;
}
