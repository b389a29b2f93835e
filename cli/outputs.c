/* outputs.c - writing a result document where the user asked. */
#include "outputs.h"

#include "cli.h"
#include "core/buf.h"
#include "core/fileio.h"
#include "report/csv.h"
#include "report/markdown.h"
#include "store/store.h"
#include "report/html.h"

#include <stdlib.h>
#include <unistd.h>

enum { O_JSON = MB_OUTOPT_BASE, O_CSV, O_MD, O_HTML, O_DB, O_GITDIR };

const struct option mb_cli_output_options[] = {
    {"json", required_argument, NULL, O_JSON},
    {"csv", required_argument, NULL, O_CSV},
    {"md", required_argument, NULL, O_MD},
    {"html", required_argument, NULL, O_HTML},
    {"db", required_argument, NULL, O_DB},
    {"git-dir", required_argument, NULL, O_GITDIR},
    {NULL, 0, NULL, 0},
};

const char mb_cli_outputs_help[] =
    "Outputs:\n"
    "  --json FILE             the result document (docs/FORMATS.md)\n"
    "  --csv FILE              append one row per run (header once)\n"
    "  --md FILE               Markdown report (tables, verdict, warnings)\n"
    "  --html FILE             self-contained HTML report with charts\n"
    "  --db FILE|postgresql://...  append the results to a store\n"
    "  --git-dir DIR           project whose commit is stored (default .)\n";

int mb_cli_outputs_handle(mb_cli_outputs *o, int c, const char *arg)
{
    switch (c) {
    case O_JSON: o->json = arg; return 1;
    case O_CSV: o->csv = arg; return 1;
    case O_MD: o->md = arg; return 1;
    case O_HTML: o->html = arg; return 1;
    case O_DB: o->db = arg; return 1;
    case O_GITDIR: o->git_dir = arg; return 1;
    }
    return 0;
}

static int write_buf(const char *path, mb_buf *b)
{
    mb_err e = {0};
    if (b->oom) {
        mb__buf_free(b);
        return mb_cli_error(MB_EXIT_RUNTIME, "out of memory writing %s", path);
    }
    mb_status s = mb__write_file_atomic(path, b->data ? b->data : "", b->len,
                                        &e);
    mb__buf_free(b);
    return s ? mb_cli_fail(&e) : 0;
}

int mb_cli_outputs_write(const mb_cli_outputs *o, json_t *doc)
{
    int rc = 0;
    mb_err e = {0};
    if (o->json) {
        char *s = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
        mb_buf b = MB_BUF_INIT;
        if (s)
            mb__buf_puts(&b, s);
        free(s);
        mb__buf_putc(&b, '\n');
        rc |= write_buf(o->json, &b);
    }
    if (o->csv) {
        mb_buf b = MB_BUF_INIT;
        int fresh = access(o->csv, F_OK) != 0 || mb__file_size(o->csv) == 0;
        mb__report_csv(doc, fresh, &b);
        if (b.oom) {
            rc |= mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
        } else if (mb__append_file_atomic(o->csv, b.data ? b.data : "", b.len,
                                          &e)) {
            rc |= mb_cli_fail(&e);
        }
        mb__buf_free(&b);
    }
    if (o->md) {
        mb_buf b = MB_BUF_INIT;
        const json_t *docs[1] = {doc};
        if (mb__report_md(docs, 1, &b, &e)) {
            mb__buf_free(&b);
            rc |= mb_cli_fail(&e);
        } else {
            rc |= write_buf(o->md, &b);
        }
    }
    if (o->html) {
        mb_buf b = MB_BUF_INIT;
        const json_t *docs[1] = {doc};
        if (mb__report_html(docs, 1, &b, &e)) {
            mb__buf_free(&b);
            rc |= mb_cli_fail(&e);
        } else {
            rc |= write_buf(o->html, &b);
        }
    }
    if (o->db) {
        mb__store *st = NULL;
        json_t *git = mb__git_info(o->git_dir ? o->git_dir : ".");
        if (mb__store_open(o->db, &st, &e) || mb__store_put(st, doc, git, &e))
            rc |= mb_cli_fail(&e);
        mb__store_close(st);
        json_decref(git);
    }
    return rc ? MB_EXIT_RUNTIME : 0;
}
