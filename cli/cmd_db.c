/* cmd_db.c - mbench db: move results between stores and JSON.
 *
 *   mbench db export --db SRC --json FILE     every document, with git facts
 *   mbench db export --db SRC --to DST        store-to-store copy
 *   mbench db import --db DST FILE.json...    exports or result documents
 *   mbench db info   --db DB                  schema version and row counts
 *
 * Storing is idempotent (a document already in the target is skipped), so
 * an interrupted import or copy can simply be run again. */
#include "cli.h"
#include "opt.h"
#include "outputs.h"

#include "core/buf.h"
#include "core/clock.h"
#include "core/err.h"
#include "core/fileio.h"
#include "core/redact.h"
#include "store/store.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

MBENCH_COMMAND(db, cmd_db, "export, import and copy the results store")
MBENCH_OPTIONS(db, mb_cmd_db)

#define EXPORT_SCHEMA "mbench.store-export/1"

enum { O_DB, O_JSON, O_TO, O_GITDIR };

static const mb_opt db_opts[] = {
    {"db", 0, MB_OPT_STRING, "FILE|URL",
     "the store: a SQLite file or a postgresql:// URL", NULL, NULL, 0, 0, 0,
     O_DB},
    {"json", 0, MB_OPT_OUTFILE, "FILE",
     "export: write every document (schema " EXPORT_SCHEMA "; '-' for stdout)",
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

typedef struct {
    const char *db, *json_path, *json_shown, *to, *git_dir;
} db_args;

static int on_opt(void *user, const mb_opt *o, const mb_optval *v)
{
    db_args *a = user;
    switch (o->id) {
    case O_DB:
        a->db = v->str;
        break;
    case O_JSON: /* checked before the store is read */
        a->json_path = v->str;
        a->json_shown = v->text;
        break;
    case O_TO:
        a->to = v->str;
        break;
    case O_GITDIR:
        a->git_dir = v->str;
        break;
    }
    return 0;
}

typedef struct {
    json_t *docs;   /* export: array being built */
    mb__store *dst; /* copy: target */
    size_t seen, added;
} walk;

static mb_status collect(void *user, const json_t *doc, const json_t *git,
                         mb_err *err)
{
    walk *w = user;
    w->seen++;
    if (w->dst) {
        int added = 0;
        mb_status st = mb__store_put2(w->dst, doc, git, &added, err);
        w->added += (size_t)added;
        return st;
    }
    json_t *e = json_pack("{s:O,s:O}", "git", git, "document", doc);
    if (!e || json_array_append_new(w->docs, e))
        return mb__fail(err, MB_ENOMEM, "out of memory");
    return MB_OK;
}

static int do_export(const char *db, const char *json_path,
                     const char *json_shown, const char *to)
{
    mb_err err = {0};
    mb__store *src = NULL;
    walk w = {0};
    int rc = MB_EXIT_OK;
    if (mb__store_open_existing(db, &src, &err))
        return mb_cli_fail(&err);
    if (to && mb__store_open(to, &w.dst, &err)) {
        mb__store_close(src);
        return mb_cli_fail(&err);
    }
    w.docs = json_array();
    if (mb__store_each(src, collect, &w, &err)) {
        rc = mb_cli_fail(&err);
        goto out;
    }
    if (to) {
        char sdb[512], sto[512]; /* no password in what is printed */
        mb__redact_to(sdb, sizeof sdb, db);
        mb__redact_to(sto, sizeof sto, to);
        printf("copied %zu documents from %s to %s (%zu new, %zu already "
               "there)\n",
               w.seen, sdb, sto, w.added, w.seen - w.added);
    } else {
        char now[32];
        mb__utc_iso8601(now, sizeof now);
        json_t *out = json_pack("{s:s,s:s,s:s,s:O}", "schema", EXPORT_SCHEMA,
                                "exported_utc", now, "source_kind",
                                mb__store_kind(src), "documents", w.docs);
        char *text = out ? json_dumps(out, JSON_COMPACT) : NULL;
        json_decref(out);
        if (!text) {
            rc = mb_cli_error(MB_EXIT_RUNTIME, "out of memory");
            goto out;
        }
        if (mb__write_file_atomic(json_path, text, strlen(text), &err))
            rc = mb_cli_fail(&err);
        else {
            char sdb[512];
            mb__redact_to(sdb, sizeof sdb, db);
            printf("exported %zu documents from %s to %s\n", w.seen, sdb,
                   json_shown);
        }
        free(text);
    }
out:
    json_decref(w.docs);
    mb__store_close(w.dst);
    mb__store_close(src);
    return rc;
}

static int import_file(mb__store *dst, const char *path, const json_t *git,
                       size_t *seen, size_t *added)
{
    mb_err err = {0};
    char *data;
    size_t len;
    if (mb__read_file(path, &data, &len, &err))
        return mb_cli_fail(&err);
    json_error_t je;
    json_t *j = json_loadb(data, len, 0, &je);
    free(data);
    if (!j)
        return mb_cli_error(MB_EXIT_RUNTIME,
                            "%s is not valid JSON (line %d: %s)", path, je.line,
                            je.text);
    const char *schema = json_string_value(json_object_get(j, "schema"));
    int rc = MB_EXIT_OK;
    if (schema && strcmp(schema, EXPORT_SCHEMA) == 0) {
        size_t i;
        json_t *e;
        json_array_foreach(json_object_get(j, "documents"), i, e)
        {
            int a = 0;
            if (mb__store_put2(dst, json_object_get(e, "document"),
                               json_object_get(e, "git"), &a, &err)) {
                rc = mb_cli_error(MB_EXIT_RUNTIME, "%s, document %zu: %s", path,
                                  i + 1, err.msg);
                break;
            }
            (*seen)++;
            *added += (size_t)a;
        }
    } else if (schema && strncmp(schema, "mbench.store-export/", 20) == 0) {
        rc = mb_cli_error(MB_EXIT_RUNTIME,
                          "%s is an export of schema '%s'; this mbench reads "
                          "'%s'",
                          path, schema, EXPORT_SCHEMA);
    } else {
        int a = 0;
        const json_t *g =
            json_object_get(j, "git") ? json_object_get(j, "git") : git;
        if (mb__store_put2(dst, j, g, &a, &err))
            rc = mb_cli_error(MB_EXIT_RUNTIME, "%s: %s", path, err.msg);
        else {
            (*seen)++;
            *added += (size_t)a;
        }
    }
    json_decref(j);
    return rc;
}

static int do_info(const char *db)
{
    mb_err err = {0};
    mb__store *s = NULL;
    if (mb__store_open_existing(db, &s, &err))
        return mb_cli_fail(&err);
    int64_t nd = 0, nr = 0, ns = 0;
    if (mb__store_count(s, "documents", &nd, &err) ||
        mb__store_count(s, "runs", &nr, &err) ||
        mb__store_count(s, "run_samples", &ns, &err)) {
        mb__store_close(s);
        return mb_cli_fail(&err);
    }
    char sdb[512];
    mb__redact_to(sdb, sizeof sdb, db);
    printf("store: %s (%s)\nschema_version: %d\ndocuments: %lld\nruns: "
           "%lld\nrun_samples: %lld\n",
           sdb, mb__store_kind(s), MB_STORE_SCHEMA_VERSION, (long long)nd,
           (long long)nr, (long long)ns);
    mb__store_close(s);
    return MB_EXIT_OK;
}

int cmd_db(int argc, char **argv)
{
    db_args a = {0};
    mb_opt_ctx ctx = {NULL, NULL, on_opt, &a, 0, NULL, 0};
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
    const char *db = a.db, *json_path = a.json_path, *to = a.to,
               *git_dir = a.git_dir;
    char **rest = ctx.args + 1;
    int n_rest = ctx.n_args - 1;
    if (!db)
        return mb_cli_error(MB_EXIT_USAGE, "db %s needs --db FILE or --db URL",
                            sub);
    if (strcmp(sub, "info") == 0) {
        if (n_rest > 0)
            return mb_cli_error(MB_EXIT_USAGE, "unexpected argument '%s'",
                                rest[0]);
        return do_info(db);
    }
    if (strcmp(sub, "export") == 0) {
        if (n_rest > 0)
            return mb_cli_error(
                MB_EXIT_USAGE,
                "unexpected argument '%s': export writes to --json "
                "FILE or --to DST",
                rest[0]);
        if (!json_path == !to)
            return mb_cli_error(
                MB_EXIT_USAGE,
                "db export needs exactly one of --json FILE or --to DST");
        return do_export(db, json_path, a.json_shown, to);
    }
    if (json_path || to)
        return mb_cli_error(
            MB_EXIT_USAGE,
            "db import takes files as arguments, not --json/--to");
    if (n_rest == 0)
        return mb_cli_error(MB_EXIT_USAGE,
                            "db import needs at least one FILE.json");
    mb_err err = {0};
    mb__store *dst = NULL;
    if (mb__store_open(db, &dst, &err))
        return mb_cli_fail(&err);
    json_t *git = git_dir ? mb__git_info(git_dir) : NULL;
    size_t seen = 0, added = 0;
    int rc = MB_EXIT_OK;
    for (int i = 0; i < n_rest && !rc; i++)
        rc = import_file(dst, rest[i], git, &seen, &added);
    char sdb[512];
    mb__redact_to(sdb, sizeof sdb, db);
    if (!rc && !ctx.quiet)
        printf("imported %zu documents into %s (%zu new, %zu already there)\n",
               seen, sdb, added, seen - added);
    json_decref(git);
    mb__store_close(dst);
    return rc;
}
