/* cmd_report.c - mbench report: rebuilds every report (Markdown, HTML,
 * CSV, merged JSON) from saved result documents alone
 * (report/resultdoc.h); with no output flag the Markdown goes to stdout. */
#include "cli.h"
#include "opt.h"
#include "outputs.h"

#include "core/buf.h"
#include "report/csv.h"
#include "report/html.h"
#include "report/markdown.h"
#include "report/resultdoc.h"

#include <stdio.h>
#include <stdlib.h>

MBENCH_COMMAND(report, cmd_report,
               "rebuild Markdown/HTML/CSV/JSON reports from saved results")
MBENCH_OPTIONS(report, mb_cmd_report)

enum { O_HTML, O_MD, O_CSV, O_JSON };

/* outputs are checked while parsing, before any document is read */
static const mb_opt report_opts[] = {
    {"html", 0, MB_OPT_OUTFILE, "FILE",
     "one self-contained HTML page with charts", NULL, NULL, 0, 0, 0, O_HTML},
    {"md", 0, MB_OPT_OUTFILE, "FILE", "GitHub-flavoured Markdown", NULL, NULL,
     0, 0, 0, O_MD},
    {"csv", 0, MB_OPT_OUTFILE, "FILE",
     "one CSV row per run (the file is replaced)", NULL, NULL, 0, 0, 0, O_CSV},
    {"json", 0, MB_OPT_OUTFILE, "FILE", "the merged result document", NULL,
     NULL, 0, 0, 0, O_JSON},
};

const mb_cmd mb_cmd_report = {
    "report",
    "RESULT.json...",
    "rebuild Markdown/HTML/CSV/JSON reports from saved results",
    "Rebuilds reports from result documents saved by mbench run/compare "
    "(--json).  Several documents are merged: their runs side by side.  "
    "With no output flag the Markdown report is printed to stdout.",
    report_opts,
    sizeof report_opts / sizeof report_opts[0],
    0,
    0,
    -1,
    "Exit codes: 0 ok, 2 usage, 3 unreadable, corrupt or foreign document."};

static int on_opt(void *user, const mb_opt *o, const mb_optval *v)
{
    const char **paths = user;
    paths[o->id] = v->str;
    return 0;
}

/* The exit code of the first failure. */
static int first(int rc, int r)
{
    return rc ? rc : r;
}

/* Writes what a writer rendered into b (freed): to path, or stdout when
 * path is NULL. */
static int emit(const char *path, mb_status st, const mb_err *err, mb_buf *b)
{
    int rc = MB_EXIT_OK;
    if (st)
        rc = mb_cli_fail(err);
    else if (path)
        return mb_cli_write_buf(path, b);
    else if (fwrite(b->data ? b->data : "", 1, b->len, stdout) != b->len)
        rc = mb_cli_error(MB_EXIT_RUNTIME, "cannot write to stdout");
    mb__buf_free(b);
    return rc;
}

/* Every output is tried: one that fails does not cost the others. */
static int write_all(const char **paths, json_t **docs, char **names, size_t n,
                     int quiet)
{
    const char *html = paths[O_HTML], *md = paths[O_MD], *csv = paths[O_CSV],
               *jsonp = paths[O_JSON];
    const json_t *const *cdocs = (const json_t *const *)docs;
    mb_err err = {0};
    int rc = MB_EXIT_OK;
    if (md || !(html || csv || jsonp || quiet)) {
        mb_buf b = MB_BUF_INIT;
        mb_status st = mb__report_md(cdocs, n, &b, &err);
        rc = emit(md, st, &err, &b);
    }
    if (html) {
        mb_buf b = MB_BUF_INIT;
        mb_status st = mb__report_html(cdocs, n, &b, &err);
        rc = first(rc, emit(html, st, &err, &b));
    }
    if (csv) {
        mb_buf b = MB_BUF_INIT;
        for (size_t i = 0; i < n; i++)
            mb__report_csv(docs[i], i == 0, &b);
        rc = first(rc, mb_cli_write_buf(csv, &b));
    }
    if (jsonp) {
        json_t *notes = json_array(), *w;
        json_t *m =
            mb__result_merge(docs, (const char *const *)names, n, notes);
        size_t i;
        json_array_foreach(notes, i, w) mb_cli_warn("%s", json_string_value(w));
        json_decref(notes);
        rc = first(rc, mb_cli_write_json(jsonp, m,
                                         JSON_INDENT(1) | JSON_PRESERVE_ORDER));
        json_decref(m);
    }
    return rc;
}

int cmd_report(int argc, char **argv)
{
    const char *paths[4] = {NULL, NULL, NULL, NULL};
    mb_opt_ctx ctx = {NULL, NULL, on_opt, paths, 0, NULL, 0};
    int c = mb_opt_parse(&mb_cmd_report, argc, argv, &ctx);
    if (c)
        return c == MB_OPT_HELP ? MB_EXIT_OK : c;
    size_t n = (size_t)ctx.n_args;
    if (n == 0)
        return mb_cli_error(MB_EXIT_USAGE,
                            "report: give at least one RESULT.json (saved with "
                            "mbench run --json FILE)");
    json_t **docs = calloc(n, sizeof *docs);
    if (!docs)
        return mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
    mb_err err = {0};
    int rc = MB_EXIT_OK;
    for (size_t i = 0; i < n && rc == MB_EXIT_OK; i++)
        if (mb__result_load(ctx.args[i], &docs[i], &err))
            rc = mb_cli_fail(&err);
    if (rc == MB_EXIT_OK)
        rc = write_all(paths, docs, ctx.args, n, ctx.quiet);
    for (size_t i = 0; i < n; i++)
        json_decref(docs[i]);
    free(docs);
    return rc;
}
