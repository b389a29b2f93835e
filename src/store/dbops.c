/* dbops.c - export, import and info of `mbench db` (dbops.h). */
#include "store/dbops.h"

#include "core/clock.h"
#include "core/fileio.h"
#include "core/redact.h"
#include "store/transfer.h"

/* The store as printed: no password. */
static const char *shown(const char *db, char *buf, size_t len)
{
    mb__redact_to(buf, len, db);
    return buf;
}

mb_status mb__db_export(const mb__db_req *rq, mb__buf *msg, mb_err *err)
{
    mb__store *src = NULL, *dst = NULL;
    mb__transfer_count c = {0, 0};
    json_t *doc = NULL;
    char now[32], s1[512], s2[512];
    mb__utc_iso8601(now, sizeof now);
    mb_status st = mb__store_open_ro(rq->db, &src, err);
    if (!st && rq->to)
        st = mb__store_open(rq->to, &dst, err);
    if (!st)
        st = rq->to ? mb__store_copy(src, dst, &c, err)
                    : mb__store_export(src, now, &doc, &c, err);
    if (!st && rq->to)
        mb__buf_printf(msg,
                       "copied %zu documents from %s to %s (%zu new, %zu "
                       "already there)\n",
                       c.seen, shown(rq->db, s1, sizeof s1),
                       shown(rq->to, s2, sizeof s2), c.added, c.seen - c.added);
    else if (!st &&
             !(st = mb__write_json_atomic(rq->json, doc, JSON_COMPACT, err)))
        mb__buf_printf(msg, "exported %zu documents from %s to %s\n", c.seen,
                       shown(rq->db, s1, sizeof s1), rq->json_shown);
    json_decref(doc);
    mb__store_close(dst);
    mb__store_close(src);
    return st;
}

mb_status mb__db_import(const mb__db_req *rq, mb__buf *msg, mb_err *err)
{
    mb__store *dst = NULL;
    mb_status st = mb__store_open(rq->db, &dst, err);
    if (st)
        return st;
    json_t *git = rq->git_dir ? mb__git_info(rq->git_dir) : NULL;
    mb__transfer_count c = {0, 0};
    for (size_t i = 0; i < rq->n_files && !st; i++)
        st = mb__store_import_file(dst, rq->files[i], git, &c, err);
    if (st == MB_EINVAL)
        st = err->code = MB_EFORMAT;
    char sdb[512];
    if (!st)
        mb__buf_printf(msg,
                       "imported %zu documents into %s (%zu new, %zu already "
                       "there)\n",
                       c.seen, shown(rq->db, sdb, sizeof sdb), c.added,
                       c.seen - c.added);
    json_decref(git);
    mb__store_close(dst);
    return st;
}

mb_status mb__db_info(const char *db, mb__buf *msg, mb_err *err)
{
    mb__store *s = NULL;
    int64_t n[3], sup = 0;
    char sdb[512];
    mb_status st = mb__store_open_ro(db, &s, err);
    if (!st)
        st = mb__store_counts(s, n, err);
    if (!st)
        st = mb__store_count(s, "superseded", &sup, err);
    if (!st)
        mb__buf_printf(msg,
                       "store: %s (%s)\nschema_version: %d\ndocuments: "
                       "%lld\nruns: %lld\nrun_samples: %lld\nsuperseded: %lld "
                       "(documents a later attempt replaced)\n",
                       shown(db, sdb, sizeof sdb), mb__store_kind(s),
                       MB_STORE_SCHEMA_VERSION, (long long)n[0],
                       (long long)n[1], (long long)n[2], (long long)sup);
    mb__store_close(s);
    return st;
}
