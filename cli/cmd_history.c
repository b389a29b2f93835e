/* cmd_history.c - mbench history: stored results over commits and time,
 * one series per (model, variant, batch size), with change points.
 * Parses the options, calls regress/histrun.h (the series from the
 * store), writes the files and prints the console table
 * (report/histrep.h). */
#include "cli.h"
#include "opt.h"
#include "outputs.h"

#include "core/buf.h"
#include "regress/changepoint.h"
#include "regress/histrun.h"
#include "report/histrep.h"

#include <stdio.h>

MBENCH_COMMAND(history, cmd_history,
               "results over commits and time, with change points")
MBENCH_OPTIONS(history, mb_cmd_history)

enum {
    O_DB,
    O_MODEL,
    O_VARIANT,
    O_BATCH,
    O_BRANCH,
    O_METRIC,
    O_LIMIT,
    O_HTML,
    O_MD,
    O_CSV,
    O_JSON,
    O_MIXCPU
};

#define STR_(x) #x
#define STR(x) STR_(x)

/* clang-format off */
static const mb__opt history_opts[] = {
    {.name = "db", .type = MB_OPT_STRING, .metavar = "FILE|URL", .help = "the results store (SQLite file, postgresql:// URL or libpq 'host=... dbname=...')", .id = O_DB},
    {.name = "model", .type = MB_OPT_STRING, .metavar = "M", .help = "model name, path or sha256 prefix", .id = O_MODEL},
    {.name = "variant", .type = MB_OPT_STRING, .metavar = "V", .help = "variant name", .id = O_VARIANT},
    {.name = "batch", .type = MB_OPT_INT, .metavar = "N", .help = "batch size", .expect = "a positive integer", .lo = 1, .hi = 9.3e18, .id = O_BATCH},
    {.name = "branch", .type = MB_OPT_STRING, .metavar = "REF", .help = "only results of this branch (or commit prefix)", .id = O_BRANCH},
    {.name = "metric", .type = MB_OPT_ENUM, .metavar = "NAME", .help = "the figure to follow (default p50)", .expect = "p50, p90, p95, p99, mean, throughput or memory", .choices = "p50|p90|p95|p99|mean|throughput|memory", .id = O_METRIC},
    {.name = "limit", .type = MB_OPT_INT, .metavar = "N", .help = "the newest N results of each filter (default all)", .expect = "a positive integer", .lo = 1, .hi = 9.3e18, .id = O_LIMIT},
    {.name = "html", .type = MB_OPT_OUTFILE, .metavar = "FILE", .help = "a self-contained page with one SVG chart per series ('-' for stdout)", .flags = MB_OPT_STDOUT, .id = O_HTML},
    {.name = "md", .type = MB_OPT_OUTFILE, .metavar = "FILE", .help = "GitHub-flavoured Markdown: one table per series ('-' for stdout)", .flags = MB_OPT_STDOUT, .id = O_MD},
    {.name = "csv", .type = MB_OPT_OUTFILE, .metavar = "FILE", .help = "one line per stored result, values unformatted ('-' for stdout)", .flags = MB_OPT_STDOUT, .id = O_CSV},
    {.name = "json", .type = MB_OPT_OUTFILE, .metavar = "FILE", .help = "series and change points (schema mbench.history/1; '-' for stdout)", .flags = MB_OPT_STDOUT, .id = O_JSON},
    {.name = "allow-mixed-cpus", .type = MB_OPT_SWITCH, .help = "show series that hold results of different CPU models (refused by default: exit 3)", .id = O_MIXCPU},
};

/* The constants of regress/changepoint.h, spelled out at compile time. */
const mb__cmd mb_cmd_history = {"history", NULL, "results over commits and time, with change points",
    "Follows stored results over commits and time, one series per (model, variant, batch size), and "
    "finds change points.",
    history_opts, 12, 0, 0, 0,
    "Change points: binary segmentation on medians, at least " STR(MB_CP_MIN_SEGMENT) " results per "
    "segment, a step of more than " STR(MB_CP_THRESHOLD) " robust standard errors and a relative "
    "change of more than " STR(MB_CP_MIN_REL) "."};
/* clang-format on */

/* The query, the metric and the files, filled from the options (strings
 * point into argv, or at the stdout path for '-'). */
typedef struct {
    const char *db, *metric;
    int allow_mixed_cpus;
    mb__store_filter f;
    mb__outset out;
} hargs;

static int on_opt(void *user, const mb__opt *o, const mb__optval *v)
{
    hargs *a = user;
    const char **const strs[O_JSON + 1] = {[O_DB] = &a->db,
                                           [O_MODEL] = &a->f.model,
                                           [O_VARIANT] = &a->f.variant,
                                           [O_BRANCH] = &a->f.ref,
                                           [O_METRIC] = &a->metric,
                                           [O_HTML] = &a->out.html,
                                           [O_MD] = &a->out.md,
                                           [O_CSV] = &a->out.csv,
                                           [O_JSON] = &a->out.json};
    if (o->id == O_MIXCPU)
        a->allow_mixed_cpus = 1;
    else if (o->id == O_BATCH)
        a->f.batch_size = v->i;
    else if (o->id == O_LIMIT)
        a->f.limit = v->i;
    else
        *strs[o->id] = v->str;
    return 0;
}

static void print_failure(void *user, const mb_err *e)
{
    (void)user;
    mb_cli_fail(e);
}

int cmd_history(int argc, char **argv)
{
    hargs a = {NULL, "p50", 0, {0}, {0}};
    mb__opt_ctx ctx = {NULL, NULL, on_opt, &a, 0, NULL, 0};
    json_t *series = NULL;
    mb_err err = {0};
    int rc = mb_opt_parse(&mb_cmd_history, argc, argv, &ctx);
    if (!rc && !a.db)
        rc = mb_cli_error(MB_EXIT_USAGE, "history needs --db FILE or --db URL");
    else if (!rc && mb__history_query(a.db, &a.f, a.metric, a.allow_mixed_cpus,
                                      &series, &err))
        rc = mb_cli_fail(&err);
    if (rc)
        return rc == MB_OPT_HELP ? MB_EXIT_OK : rc;
    mb__buf b = MB_BUF_INIT;
    if (!ctx.quiet)
        mb__history_console(&b, series, a.metric);
    fwrite(b.data ? b.data : "", 1, b.len, stdout);
    mb__buf_free(&b);
    if (mb__history_write(series, a.metric, &a.out, print_failure, NULL))
        rc = MB_EXIT_RUNTIME;
    json_decref(series);
    return rc;
}
