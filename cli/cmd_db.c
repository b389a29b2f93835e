/* cmd_db.c - mbench db: move results between stores and JSON
 * (store/transfer.h).
 *
 *   mbench db export --db SRC --json FILE     every document, with git facts
 *   mbench db export --db SRC --to DST        store-to-store copy
 *   mbench db import --db DST FILE.json...    exports or result documents
 *   mbench db info   --db DB                  schema version and row counts */
#include "cli.h"
#include "opt.h"
#include "outputs.h"

#include "core/clock.h"
#include "core/redact.h"
#include "store/transfer.h"

#include <stdio.h>
#include <string.h>

MBENCH_COMMAND(db, cmd_db, "export, import and copy the results store")
MBENCH_OPTIONS(db, mb_cmd_db)

enum { O_DB, O_JSON, O_TO, O_GITDIR };

static const mb_opt db_opts[] = {
    {"db", 0, MB_OPT_STRING, "FILE|URL",
     "the store: a SQLite file or a postgresql:// URL", NULL, NULL, 0, 0, 0,
     O_DB},
    {"json", 0, MB_OPT_OUTFILE, "FILE",
     "export: write every document (schema " MB_STORE_EXPORT_SCHEMA
     "; '-' for stdout)",
     NULL, NULL, 0, 0, MB_OPT_STDOUT, O_JSON},
    {"to", 0, MB_OPT_STRING, "FILE|URL",
     "export: copy every document into another store", NULL, NULL, 0, 0, 0,
     O_TO},
    {"git-dir", 0, MB_OPT_DIR, "DIR",
     "import: git facts for plain result documents that carry none "
     "(default: none recorded)",
     NULL, NULL, 0, 0, 0, O_GITDIR},
};

const mb_cmd mb_cmd_db = {
    "db",
    "export|import|info [FILE.json...]",
    "export, import and copy the results store",
    "mbench db export --db SRC (--json FILE | --to DST); mbench db import "
    "--db DST [--git-dir DIR] FILE.json...; mbench db info --db DB.  Import "
    "reads export files and plain result documents.  Documents already in "
    "the target are skipped, so re-running is safe.",
    db_opts,
    sizeof db_opts / sizeof db_opts[0],
    0,
    0,
    -1,
    NULL};

/* Every option's value by its id (strings point into argv, or at the
 * stdout path for '-'). */
static int on_opt(void *user, const mb_opt *o, const mb_optval *v)
{
    ((mb_optval *)user)[o->id] = *v;
    return 0;
}

/* The store as printed: no password. */
static const char *shown(const char *db, char *buf, size_t len)
{
    mb__redact_to(buf, len, db);
    return buf;
}

/* A failure of the store or the data: exit 3 whatever the cause. */
static int failed(const mb_err *err)
{
    return mb_cli_error(MB_EXIT_RUNTIME, "%s", err->msg);
}

static int do_export(const mb_optval *v)
{
    mb_err err = {0};
    mb__store *src = NULL, *dst = NULL;
    mb__transfer_count c = {0, 0};
    json_t *doc = NULL;
    char now[32], s1[512], s2[512];
    mb__utc_iso8601(now, sizeof now);
    if (mb__store_open_existing(v[O_DB].str, &src, &err) ||
        (v[O_TO].str && mb__store_open(v[O_TO].str, &dst, &err))) {
        mb__store_close(src);
        return mb_cli_fail(&err);
    }
    int rc = MB_EXIT_OK;
    if (v[O_TO].str ? mb__store_copy(src, dst, &c, &err)
                    : mb__store_export(src, now, &doc, &c, &err))
        rc = mb_cli_fail(&err);
    else if (v[O_TO].str)
        printf("copied %zu documents from %s to %s (%zu new, %zu already "
               "there)\n",
               c.seen, shown(v[O_DB].str, s1, sizeof s1),
               shown(v[O_TO].str, s2, sizeof s2), c.added, c.seen - c.added);
    else if (!(rc = mb_cli_write_json(v[O_JSON].str, doc, JSON_COMPACT)))
        printf("exported %zu documents from %s to %s\n", c.seen,
               shown(v[O_DB].str, s1, sizeof s1), v[O_JSON].text);
    json_decref(doc);
    mb__store_close(dst);
    mb__store_close(src);
    return rc;
}

static int do_import(const mb_optval *v, char **files, int n, int quiet)
{
    mb_err err = {0};
    mb__store *dst = NULL;
    if (mb__store_open(v[O_DB].str, &dst, &err))
        return mb_cli_fail(&err);
    json_t *git = v[O_GITDIR].str ? mb__git_info(v[O_GITDIR].str) : NULL;
    mb__transfer_count c = {0, 0};
    int rc = MB_EXIT_OK;
    for (int i = 0; i < n && !rc; i++)
        if (mb__store_import_file(dst, files[i], git, &c, &err))
            rc = failed(&err);
    char sdb[512];
    if (!rc && !quiet)
        printf("imported %zu documents into %s (%zu new, %zu already there)\n",
               c.seen, shown(v[O_DB].str, sdb, sizeof sdb), c.added,
               c.seen - c.added);
    json_decref(git);
    mb__store_close(dst);
    return rc;
}

static int do_info(const char *db)
{
    mb_err err = {0};
    mb__store *s = NULL;
    int64_t n[3];
    char sdb[512];
    if (mb__store_open_existing(db, &s, &err))
        return mb_cli_fail(&err);
    if (mb__store_counts(s, n, &err)) {
        mb__store_close(s);
        return mb_cli_fail(&err);
    }
    printf("store: %s (%s)\nschema_version: %d\ndocuments: %lld\nruns: "
           "%lld\nrun_samples: %lld\n",
           shown(db, sdb, sizeof sdb), mb__store_kind(s),
           MB_STORE_SCHEMA_VERSION, (long long)n[0], (long long)n[1],
           (long long)n[2]);
    mb__store_close(s);
    return MB_EXIT_OK;
}

int cmd_db(int argc, char **argv)
{
    mb_optval v[O_GITDIR + 1] = {{0}};
    mb_opt_ctx ctx = {NULL, NULL, on_opt, v, 0, NULL, 0};
    int prc = mb_opt_parse(&mb_cmd_db, argc, argv, &ctx);
    if (prc)
        return prc == MB_OPT_HELP ? MB_EXIT_OK : prc;
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
    char **rest = ctx.args + 1;
    int n_rest = ctx.n_args - 1;
    if (!v[O_DB].str)
        return mb_cli_error(MB_EXIT_USAGE, "db %s needs --db FILE or --db URL",
                            sub);
    if (strcmp(sub, "info") == 0) {
        if (n_rest > 0)
            return mb_cli_error(MB_EXIT_USAGE, "unexpected argument '%s'",
                                rest[0]);
        return do_info(v[O_DB].str);
    }
    if (strcmp(sub, "export") == 0) {
        if (n_rest > 0)
            return mb_cli_error(
                MB_EXIT_USAGE,
                "unexpected argument '%s': export writes to --json "
                "FILE or --to DST",
                rest[0]);
        if (!v[O_JSON].str == !v[O_TO].str)
            return mb_cli_error(
                MB_EXIT_USAGE,
                "db export needs exactly one of --json FILE or --to DST");
        return do_export(v);
    }
    if (v[O_JSON].str || v[O_TO].str)
        return mb_cli_error(
            MB_EXIT_USAGE,
            "db import takes files as arguments, not --json/--to");
    if (n_rest == 0)
        return mb_cli_error(MB_EXIT_USAGE,
                            "db import needs at least one FILE.json");
    return do_import(v, rest, n_rest, ctx.quiet);
}
