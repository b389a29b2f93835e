/* cmd_db.c - mbench db: move results between stores and JSON.  Parses
 * the subcommand and its options, calls store/dbops.h and prints the line
 * it returns.
 *
 *   mbench db export --db SRC --json FILE     every document, with git facts
 *   mbench db export --db SRC --to DST        store-to-store copy
 *   mbench db import --db DST FILE.json...    exports or result documents
 *   mbench db info   --db DB                  schema version and row counts */
#include "cli.h"
#include "opt.h"
#include "outputs.h"

#include "core/buf.h"
#include "store/dbops.h"
#include "store/transfer.h"

#include <stdio.h>
#include <string.h>

MBENCH_COMMAND(db, cmd_db, "export, import and copy the results store")
MBENCH_OPTIONS(db, mb_cmd_db)

enum { O_DB, O_JSON, O_TO, O_GITDIR };

/* clang-format off */
static const mb__opt db_opts[] = {
    {.name = "db", .type = MB_OPT_STRING, .metavar = "FILE|URL", .help = "the store: a SQLite file, a postgresql:// URL or a libpq 'host=... dbname=...' string", .id = O_DB},
    {.name = "json", .type = MB_OPT_OUTFILE, .metavar = "FILE", .help = "export: write every document (schema " MB_STORE_EXPORT_SCHEMA "; '-' for stdout)", .flags = MB_OPT_STDOUT, .id = O_JSON},
    {.name = "to", .type = MB_OPT_STRING, .metavar = "FILE|URL", .help = "export: copy every document into another store", .id = O_TO},
    {.name = "git-dir", .type = MB_OPT_DIR, .metavar = "DIR", .help = "import: git facts for plain result documents that carry none (default: none recorded)", .id = O_GITDIR},
};

const mb__cmd mb_cmd_db = {"db", "export|import|info [FILE.json...]", "export, import and copy the results store",
    "mbench db export --db SRC (--json FILE | --to DST); mbench db import --db DST [--git-dir DIR] "
    "FILE.json...; mbench db info --db DB.  Import reads export files and plain result documents.  "
    "Documents already in the target are skipped, so re-running is safe.",
    db_opts, 4, 0, 0, -1, NULL};
/* clang-format on */

/* Every option's value by its id (strings point into argv, or at the
 * stdout path for '-'). */
static int on_opt(void *user, const mb__opt *o, const mb__optval *v)
{
    ((mb__optval *)user)[o->id] = *v;
    return 0;
}

/* The usage error of a subcommand's arguments, or NULL when they fit. */
static const char *misuse(const char *sub, const mb__optval *v, int n_rest)
{
    if (!strcmp(sub, "info"))
        return n_rest ? "unexpected argument '%s'" : NULL;
    if (!strcmp(sub, "export") && n_rest)
        return "unexpected argument '%s': export writes to --json FILE or "
               "--to DST";
    if (!strcmp(sub, "export"))
        return !v[O_JSON].str == !v[O_TO].str
                   ? "db export needs exactly one of --json FILE or --to DST"
                   : NULL;
    if (v[O_JSON].str || v[O_TO].str)
        return "db import takes files as arguments, not --json/--to";
    return n_rest ? NULL : "db import needs at least one FILE.json";
}

int cmd_db(int argc, char **argv)
{
    mb__optval v[O_GITDIR + 1] = {{0}};
    mb__opt_ctx ctx = {NULL, NULL, on_opt, v, 0, NULL, 0};
    int rc = mb_opt_parse(&mb_cmd_db, argc, argv, &ctx);
    if (rc)
        return rc == MB_OPT_HELP ? MB_EXIT_OK : rc;
    if (ctx.n_args == 0)
        return mb_cli_error(MB_EXIT_USAGE,
                            "db needs a subcommand: export, import or info "
                            "(see mbench db --help)");
    const char *sub = ctx.args[0];
    if (strcmp(sub, "export") && strcmp(sub, "import") && strcmp(sub, "info"))
        return mb_cli_error(MB_EXIT_USAGE,
                            "unknown db subcommand '%s': use export, import "
                            "or info",
                            sub);
    if (!v[O_DB].str)
        return mb_cli_error(MB_EXIT_USAGE, "db %s needs --db FILE or --db URL",
                            sub);
    const char *bad = misuse(sub, v, ctx.n_args - 1);
    if (bad)
        return mb_cli_error(MB_EXIT_USAGE, bad, ctx.args[1]);
    mb__db_req rq = {v[O_DB].str,           v[O_JSON].str,   v[O_JSON].text,
                     v[O_TO].str,           v[O_GITDIR].str, ctx.args + 1,
                     (size_t)ctx.n_args - 1};
    mb__buf msg = MB_BUF_INIT;
    mb_err err = {0};
    mb_status st = !strcmp(sub, "info")     ? mb__db_info(rq.db, &msg, &err)
                   : !strcmp(sub, "export") ? mb__db_export(&rq, &msg, &err)
                                            : mb__db_import(&rq, &msg, &err);
    if (st)
        rc = mb_cli_fail(&err);
    else if (!ctx.quiet || strcmp(sub, "import"))
        fwrite(msg.data ? msg.data : "", 1, msg.len, stdout);
    mb__buf_free(&msg);
    return rc;
}
