/* cmd_report.c - mbench report: rebuilds every report (Markdown, HTML,
 * CSV, merged JSON) from saved result documents alone.  Several documents
 * are shown side by side; with no output flag the Markdown goes to
 * stdout. */
#include "cli.h"
#include "opt.h"
#include "outputs.h"

#include "core/buf.h"
#include "core/fileio.h"
#include "core/redact.h"
#include "report/html.h"
#include "report/markdown.h"

#if defined(__has_include)
#if __has_include("report/csv.h")
#include "report/csv.h"
#define MB_HAVE_CSV 1
#endif
#endif

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

MBENCH_COMMAND(report, cmd_report,
               "rebuild Markdown/HTML/CSV/JSON reports from saved results")
MBENCH_OPTIONS(report, mb_cmd_report)

#define RESULT_SCHEMA "mbench.result/1"

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

/* Loads and checks one document; prints why not and returns NULL. */
static json_t *load_doc(const char *path)
{
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    if (!doc) {
        if (je.line > 0)
            mb_cli_error(MB_EXIT_RUNTIME,
                         "%s:%d:%d: not valid JSON: %s (is it a result saved "
                         "with --json?)",
                         path, je.line, je.column, je.text);
        else
            mb_cli_error(MB_EXIT_RUNTIME, "cannot read %s: %s", path, je.text);
        return NULL;
    }
    const char *schema = json_string_value(json_object_get(doc, "schema"));
    if (!json_is_object(doc) || !schema) {
        mb_cli_error(MB_EXIT_RUNTIME,
                     "%s: no \"schema\" field: not an mbench result document "
                     "(expected \"%s\")",
                     path, RESULT_SCHEMA);
        json_decref(doc);
        return NULL;
    }
    if (strcmp(schema, RESULT_SCHEMA) != 0) {
        mb_cli_error(MB_EXIT_RUNTIME,
                     "%s: schema \"%s\" is not supported: this mbench reads "
                     "\"%s\" (use the mbench version that wrote it)",
                     path, schema, RESULT_SCHEMA);
        json_decref(doc);
        return NULL;
    }
    if (!json_is_array(json_object_get(doc, "runs"))) {
        mb_cli_error(MB_EXIT_RUNTIME, "%s: \"runs\" is missing or not an array",
                     path);
        json_decref(doc);
        return NULL;
    }
    /* a document saved by an older mbench may carry a password */
    const char *cl = json_string_value(json_object_get(doc, "command_line"));
    if (cl) {
        char *r = mb__redact(cl);
        json_object_set_new(doc, "command_line", json_string(r ? r : ""));
        free(r);
    }
    return doc;
}

/* The merged document: a copy of the first with every document's runs and
 * warnings, and "merged_from".  NULL when memory runs out. */
static json_t *merge_docs(json_t **docs, char **paths, size_t n)
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
        json_array_foreach(json_object_get(docs[d], "warnings"), i, x)
        {
            int dup = 0;
            size_t j;
            json_t *y;
            json_array_foreach(warns, j, y) dup |= json_equal(x, y);
            if (!dup)
                ok &= json_array_append(warns, x) == 0;
        }
        ok &= json_array_append_new(from, json_string(paths[d])) == 0;
        if (d > 0 && json_object_get(docs[d], "comparison"))
            mb_cli_warn(
                "%s: its \"comparison\" section is not merged into "
                "--json (only the first document's is kept); its runs are",
                paths[d]);
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

/* The exit code of the first failure. */
static int first(int rc, int r)
{
    return rc ? rc : r;
}

static int write_buf(const char *path, mb_buf *b, const char *what)
{
    mb_err err = {0};
    if (b->oom)
        return mb_cli_error(MB_EXIT_RUNTIME, "out of memory rendering %s",
                            what);
    if (mb__write_file_atomic(path, b->data ? b->data : "", b->len, &err) !=
        MB_OK)
        return mb_cli_fail(&err);
    return MB_EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
    const char *paths[4] = {NULL, NULL, NULL, NULL};
    mb_opt_ctx ctx = {NULL, NULL, on_opt, paths, 0, NULL, 0};
    int c = mb_opt_parse(&mb_cmd_report, argc, argv, &ctx);
    if (c)
        return c == MB_OPT_HELP ? MB_EXIT_OK : c;
    const char *html = paths[O_HTML], *md = paths[O_MD], *csv = paths[O_CSV],
               *jsonp = paths[O_JSON];
    size_t n = (size_t)ctx.n_args;
    if (n == 0)
        return mb_cli_error(MB_EXIT_USAGE,
                            "report: give at least one RESULT.json (saved with "
                            "mbench run --json FILE)");
#ifndef MB_HAVE_CSV
    if (csv)
        return mb_cli_error(MB_EXIT_USAGE,
                            "report: --csv is not available in this build yet");
#endif
    json_t **docs = calloc(n, sizeof *docs);
    if (!docs)
        return mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
    int rc = MB_EXIT_OK;
    for (size_t i = 0; i < n && rc == MB_EXIT_OK; i++)
        if (!(docs[i] = load_doc(ctx.args[i])))
            rc = MB_EXIT_RUNTIME;
    const json_t *const *cdocs = (const json_t *const *)docs;
    mb_err err = {0};
    /* every output is tried: one that fails does not cost the others */
    int loaded = rc == MB_EXIT_OK;
    if (loaded && (md || !(html || csv || jsonp || ctx.quiet))) {
        mb_buf b = MB_BUF_INIT;
        if (mb__report_md(cdocs, n, &b, &err) != MB_OK)
            rc = mb_cli_fail(&err);
        else if (md)
            rc = write_buf(md, &b, "Markdown");
        else if (fwrite(b.data ? b.data : "", 1, b.len, stdout) != b.len)
            rc = mb_cli_error(MB_EXIT_RUNTIME, "cannot write to stdout");
        mb__buf_free(&b);
    }
    if (loaded && html) {
        mb_buf b = MB_BUF_INIT;
        if (mb__report_html(cdocs, n, &b, &err) != MB_OK)
            rc = first(rc, mb_cli_fail(&err));
        else
            rc = first(rc, write_buf(html, &b, "HTML"));
        mb__buf_free(&b);
    }
#ifdef MB_HAVE_CSV
    if (loaded && csv) {
        mb_buf b = MB_BUF_INIT;
        for (size_t i = 0; i < n; i++)
            mb__report_csv(docs[i], i == 0, &b);
        rc = first(rc, write_buf(csv, &b, "CSV"));
        mb__buf_free(&b);
    }
#endif
    if (loaded && jsonp) {
        json_t *m = merge_docs(docs, ctx.args, n);
        char *text =
            m ? json_dumps(m, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : NULL;
        if (!text) {
            rc = first(rc, mb_cli_error(MB_EXIT_RUNTIME,
                                        "out of memory merging documents"));
        } else {
            mb_buf b = MB_BUF_INIT;
            mb__buf_puts(&b, text);
            mb__buf_putc(&b, '\n');
            rc = first(rc, write_buf(jsonp, &b, "JSON"));
            mb__buf_free(&b);
        }
        free(text);
        json_decref(m);
    }
    for (size_t i = 0; i < n; i++)
        json_decref(docs[i]);
    free(docs);
    return rc;
}
