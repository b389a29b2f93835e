/* cmd_report.c - mbench report: rebuilds every report (Markdown, HTML,
 * CSV, merged JSON) from saved result documents alone, through one
 * library call (report/rebuild.h); with no output flag the Markdown goes
 * to stdout. */
#include "cli.h"
#include "opt.h"
#include "outputs.h"

#include "core/buf.h"
#include "report/rebuild.h"

#include <stdio.h>

MBENCH_COMMAND(report, cmd_report,
               "rebuild Markdown/HTML/CSV/JSON reports from saved results")
MBENCH_OPTIONS(report, mb_cmd_report)

/* outputs are checked while parsing, before any document is read */
/* clang-format off */
enum { O_HTML, O_MD, O_CSV, O_JSON };
static const mb__opt report_opts[] = {
    {.name = "html", .type = MB_OPT_OUTFILE, .metavar = "FILE", .help = "one self-contained HTML page with charts", .id = O_HTML},
    {.name = "md", .type = MB_OPT_OUTFILE, .metavar = "FILE", .help = "GitHub-flavoured Markdown", .id = O_MD},
    {.name = "csv", .type = MB_OPT_OUTFILE, .metavar = "FILE", .help = "one CSV row per run (the file is replaced)", .id = O_CSV},
    {.name = "json", .type = MB_OPT_OUTFILE, .metavar = "FILE", .help = "the merged result document", .id = O_JSON},
};

const mb__cmd mb_cmd_report = {"report", "RESULT.json...", "rebuild Markdown/HTML/CSV/JSON reports from saved results",
    "Rebuilds reports from result documents saved by mbench run/compare (--json).  Several documents "
    "are merged: their runs side by side.  With no output flag the Markdown report is printed to stdout.  "
    "RESULT.json '-' reads a document from standard input.",
    report_opts, 4, 0, 0, -1, "Exit codes: 0 ok, 2 usage, 3 unreadable, corrupt or foreign document."};
/* clang-format on */

static int on_opt(void *user, const mb__opt *o, const mb__optval *v)
{
    const char **paths = user;
    paths[o->id] = v->str;
    return 0;
}

/* Prints a failure; the exit code of the first is kept in *user. */
static void on_fail(void *user, const mb_err *e)
{
    int rc = mb_cli_fail(e);
    if (!*(int *)user)
        *(int *)user = rc;
}

static void on_warn(void *user, const char *msg)
{
    (void)user;
    mb_cli_warn("%s", msg);
}

int cmd_report(int argc, char **argv)
{
    const char *p[4] = {NULL, NULL, NULL, NULL};
    mb__opt_ctx ctx = {NULL, NULL, on_opt, p, 0, NULL, 0};
    int rc = mb_opt_parse(&mb_cmd_report, argc, argv, &ctx);
    if (rc)
        return rc == MB_OPT_HELP ? MB_EXIT_OK : rc;
    mb__outset o = {
        .json = p[O_JSON], .csv = p[O_CSV], .md = p[O_MD], .html = p[O_HTML]};
    mb__buf md = MB_BUF_INIT;
    int to_stdout = !(o.md || o.html || o.csv || o.json || ctx.quiet);
    mb__rebuild_cb cb = {on_fail, on_warn, &rc};
    mb__report_rebuild(ctx.args, (size_t)ctx.n_args, &o, to_stdout ? &md : NULL,
                       &cb);
    if (md.len && fwrite(md.data, 1, md.len, stdout) != md.len && !rc)
        rc = mb_cli_error(MB_EXIT_RUNTIME, "cannot write to stdout");
    mb__buf_free(&md);
    return rc;
}
