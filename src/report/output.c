/* output.c - rendering a document in every format asked for and writing
 * each atomically (report/output.h). */
#include "report/output.h"

#include "core/err.h"
#include "core/fileio.h"
#include "report/csv.h"
#include "report/gaterep.h"
#include "report/html.h"
#include "report/markdown.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

mb_status mb__output_buf(const char *path, mb_buf *b, mb_err *err)
{
    mb_status st;
    if (b->oom)
        st = mb__fail(err, MB_ENOMEM, "out of memory writing %s", path);
    else
        st = mb__write_file_atomic(path, b->data ? b->data : "", b->len, err);
    mb__buf_free(b);
    return st;
}

mb_status mb__output_json_flags(const char *path, const json_t *doc,
                                size_t flags, mb_err *err)
{
    char *s = doc ? json_dumps(doc, flags) : NULL;
    if (!s)
        return mb__fail(err, MB_ENOMEM, "out of memory writing %s", path);
    mb_buf b = MB_BUF_INIT;
    mb__buf_puts(&b, s);
    mb__buf_putc(&b, '\n');
    free(s);
    return mb__output_buf(path, &b, err);
}

mb_status mb__output_json(const char *path, const json_t *doc, mb_err *err)
{
    /* a gate verdict's figures are summaries: 10 digits are plenty */
    int digits = mb__gate_doc_is(doc) ? 10 : 17;
    return mb__output_json_flags(
        path, doc, JSON_INDENT(2) | JSON_REAL_PRECISION(digits), err);
}

static mb_status write_csv(const char *path, const json_t *doc, mb_err *err)
{
    if (mb__gate_doc_is(doc))
        return mb__fail(err, MB_EINVAL,
                        "%s: a gate verdict has no CSV form; use --json, "
                        "--md or --html",
                        path);
    mb_buf b = MB_BUF_INIT;
    int fresh = access(path, F_OK) != 0 || mb__file_size(path) == 0;
    mb__report_csv(doc, fresh, &b);
    mb_status st;
    if (b.oom)
        st = mb__fail(err, MB_ENOMEM, "out of memory writing %s", path);
    else
        st = mb__append_file_atomic(path, b.data ? b.data : "", b.len, err);
    mb__buf_free(&b);
    return st;
}

static mb_status write_report(const char *path, const json_t *doc, int html,
                              mb_err *err)
{
    mb_buf b = MB_BUF_INIT;
    const json_t *docs[1] = {doc};
    mb_status st;
    if (mb__gate_doc_is(doc))
        st = html ? mb__report_gate_html(doc, &b, err)
                  : mb__report_gate_md(doc, &b, err);
    else
        st = html ? mb__report_html(docs, 1, &b, err)
                  : mb__report_md(docs, 1, &b, err);
    if (st) {
        mb__buf_free(&b);
        return st;
    }
    return mb__output_buf(path, &b, err);
}

/* Records the first failure and tells the caller of each. */
static void failed(mb_status st, mb_status *first, const mb_err *e,
                   mb__out_fail_fn fail, void *user)
{
    if (!st)
        return;
    if (!*first)
        *first = st;
    if (fail)
        fail(user, e);
}

mb_status mb__output_all(const mb__outset *o, const json_t *doc,
                         mb__out_fail_fn fail, void *user)
{
    mb_status first = MB_OK;
    mb_err e = {0};
    if (o->json)
        failed(mb__output_json(o->json, doc, &e), &first, &e, fail, user);
    if (o->csv)
        failed(write_csv(o->csv, doc, &e), &first, &e, fail, user);
    if (o->md)
        failed(write_report(o->md, doc, 0, &e), &first, &e, fail, user);
    if (o->html)
        failed(write_report(o->html, doc, 1, &e), &first, &e, fail, user);
    return first;
}
