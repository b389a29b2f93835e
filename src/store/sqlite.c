/* sqlite.c - the SQLite driver of the results store: WAL mode, a busy
 * timeout so concurrent writers wait instead of failing, and corrupt files
 * reported rather than overwritten. */
#include "store/db.h"

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"

#include <ctype.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* How long a writer waits for another writer's lock before giving up. */
#define BUSY_TIMEOUT_MS 60000

typedef struct {
    sqlite3 *db;
    char *path;
    int last_rc;  /* SQLite's code of the last failure */
    char *copied; /* a private copy read instead (lite_read_copy), or NULL */
} lite;

/* The operating system's reason for the last failure, or SQLite's. */
static const char *os_reason(lite *l, int rc)
{
    int e = l->db ? sqlite3_system_errno(l->db) : 0;
    return e ? strerror(e) : sqlite3_errstr(rc);
}

/* Why this user cannot write the store at path, or NULL: the file or
 * its directory (where SQLite makes its -wal, -shm and -journal files)
 * not writable.  buf holds the sentence. */
static const char *write_obstacle(const char *path, char *buf, size_t len)
{
    struct stat st;
    if (stat(path, &st) == 0 && access(path, W_OK) != 0) {
        snprintf(buf, len,
                 "the file is not writable by this user (mode %04o, owner "
                 "uid %ld)",
                 (unsigned)(st.st_mode & 07777), (long)st.st_uid);
        return buf;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *(slash == dir ? slash + 1 : slash) = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    if (access(dir, W_OK) != 0) {
        snprintf(buf, len,
                 "its directory %s is not writable by this user (%s), and "
                 "SQLite must create its -wal, -shm and -journal files there",
                 dir, strerror(errno));
        return buf;
    }
    return NULL;
}

static mb_status lite_fail(lite *l, int rc, const char *what, mb_err *err)
{
    int prim = rc & 0xff;
    l->last_rc = rc;
    if (prim == SQLITE_NOTADB || prim == SQLITE_CORRUPT)
        return mb__fail(err, MB_EFORMAT,
                        "%s is not a usable SQLite database (%s); it was "
                        "left untouched: move it aside or point --db at "
                        "another file",
                        l->path, sqlite3_errstr(rc));
    if (prim == SQLITE_BUSY || prim == SQLITE_LOCKED)
        return mb__fail(err, MB_EIO,
                        "%s stayed locked by another process for %d s while "
                        "%s; retry when the other writer is done",
                        l->path, BUSY_TIMEOUT_MS / 1000, what);
    int os = l->db ? sqlite3_system_errno(l->db) : 0;
    if (prim == SQLITE_FULL ||
        (prim == SQLITE_IOERR && (os == ENOSPC || os == EDQUOT)))
        return mb__fail(err, MB_EIO,
                        "disk full: SQLite could not write %s while %s; free "
                        "space on its file system and retry (the store keeps "
                        "what it held before)",
                        l->path, what);
    if (prim == SQLITE_IOERR)
        return mb__fail(err, MB_EIO,
                        "I/O error on %s while %s: %s (%s); check the disk "
                        "and its file system, then retry",
                        l->path, what, os_reason(l, rc), sqlite3_errstr(rc));
    char why[600];
    const char *obstacle = (prim == SQLITE_READONLY || prim == SQLITE_CANTOPEN)
                               ? write_obstacle(l->path, why, sizeof why)
                               : NULL;
    if (prim == SQLITE_READONLY || (prim == SQLITE_CANTOPEN && obstacle))
        return mb__fail(err, MB_EIO,
                        "%s is read-only for this user and could not be "
                        "written while %s: %s; store into a writable copy or "
                        "ask its owner",
                        l->path, what,
                        obstacle ? obstacle : "file mode, directory or mount");
    if (prim == SQLITE_CANTOPEN)
        return mb__fail(err, MB_EIO, "cannot open SQLite database %s: %s",
                        l->path, os_reason(l, rc));
    return mb__fail(err, MB_EIO, "SQLite %s while %s: %s", l->path, what,
                    sqlite3_errmsg(l->db));
}

/* Rewrites $N placeholders as ?N (SQLite's numbered form). */
static char *rewrite(const char *sql)
{
    char *s = mb__strdup(sql);
    if (!s)
        return NULL;
    for (char *p = s; *p; p++)
        if (*p == '$' && isdigit((unsigned char)p[1]))
            *p = '?';
    return s;
}

static mb_status lite_query(void *h, const char *sql, size_t n,
                            const char *const *params, json_t **rows,
                            mb_err *err)
{
    lite *l = h;
    if (rows)
        *rows = NULL;
    char *q = rewrite(sql);
    if (!q)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(l->db, q, -1, &st, NULL);
    free(q);
    if (rc != SQLITE_OK)
        return lite_fail(l, rc, "preparing a statement", err);
    for (size_t i = 0; i < n; i++) {
        rc = params[i] ? sqlite3_bind_text(st, (int)i + 1, params[i], -1,
                                           SQLITE_TRANSIENT)
                       : sqlite3_bind_null(st, (int)i + 1);
        if (rc != SQLITE_OK) {
            sqlite3_finalize(st);
            return lite_fail(l, rc, "binding a value", err);
        }
    }
    json_t *out = rows ? json_array() : NULL;
    if (rows && !out) {
        sqlite3_finalize(st);
        return mb__fail(err, MB_ENOMEM, "out of memory");
    }
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!out)
            continue;
        int nc = sqlite3_column_count(st);
        json_t *row = json_array();
        for (int c = 0; c < nc; c++) {
            const unsigned char *t = sqlite3_column_text(st, c);
            json_array_append_new(row, t ? json_string((const char *)t)
                                         : json_null());
        }
        json_array_append_new(out, row);
    }
    if (rc != SQLITE_DONE) {
        mb_status s = lite_fail(l, rc, "running a statement", err);
        sqlite3_finalize(st);
        json_decref(out);
        return s;
    }
    sqlite3_finalize(st);
    if (rows)
        *rows = out;
    return MB_OK;
}

static mb_status lite_lock_schema(void *h, mb_err *err)
{
    (void)h;
    (void)err;
    return MB_OK;
}

static void lite_close(void *h)
{
    lite *l = h;
    if (!l)
        return;
    sqlite3_close_v2(l->db);
    if (l->copied) { /* the copy's directory: db, -wal, -shm */
        static const char *const suffix[] = {"/s.db", "/s.db-wal", "/s.db-shm",
                                             "/s.db-journal"};
        char f[4200];
        for (size_t i = 0; i < sizeof suffix / sizeof *suffix; i++) {
            snprintf(f, sizeof f, "%s%s", l->copied, suffix[i]);
            unlink(f);
        }
        rmdir(l->copied);
        free(l->copied);
    }
    free(l->path);
    free(l);
}

/* Switches to WAL; the change itself needs a moment alone with the file,
 * so it is retried while another process holds it. */
static mb_status lite_ready(void *h, mb_err *err)
{
    lite *l = h;
    struct timespec pause = {0, 20 * 1000 * 1000};
    for (int attempt = 0;; attempt++) {
        json_t *rows = NULL;
        mb_err e;
        mb_status st =
            lite_query(l, "PRAGMA journal_mode=WAL", 0, NULL, &rows, &e);
        json_decref(rows);
        if (st == MB_OK)
            return lite_query(l, "PRAGMA synchronous=NORMAL", 0, NULL, NULL,
                              err);
        if (e.code != MB_EIO || attempt > 1000) {
            if (err)
                *err = e;
            return st;
        }
        nanosleep(&pause, NULL);
    }
}

/* A "file:" URI naming path read-only and immutable (no locks, no -shm):
 * the last resort for a WAL store in a directory this user cannot write.
 * Caller frees. */
static char *immutable_uri(const char *path)
{
    mb__buf b = MB_BUF_INIT;
    mb__buf_puts(&b, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if (isalnum(*p) || strchr("/-._~", *p))
            mb__buf_putc(&b, (char)*p);
        else
            mb__buf_printf(&b, "%%%02X", *p);
    }
    mb__buf_puts(&b, "?mode=ro&immutable=1");
    mb__buf_putc(&b, '\0');
    if (b.oom) {
        mb__buf_free(&b);
        return NULL;
    }
    return mb__buf_take(&b, NULL);
}

/* Opens l->db with flags (uri: path given as a URI); MB_EIO naming the
 * reason, else checks that the schema is readable. */
static mb_status lite_connect(lite *l, const char *name, int flags, mb_err *err)
{
    int rc = sqlite3_open_v2(name, &l->db, flags | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        l->last_rc = rc;
        if (!l->db)
            return mb__fail(err, MB_ENOMEM, "out of memory");
        char why[600];
        if ((flags & SQLITE_OPEN_READWRITE) &&
            write_obstacle(l->path, why, sizeof why))
            return mb__fail(err, MB_EIO,
                            "SQLite database %s is read-only for this user: "
                            "%s; store into a writable copy or ask its owner",
                            l->path, why);
        return mb__fail(err, MB_EIO, "cannot open SQLite database %s: %s%s",
                        l->path, os_reason(l, rc),
                        flags & SQLITE_OPEN_CREATE
                            ? " (does its directory exist and is it "
                              "writable?)"
                            : "");
    }
    sqlite3_extended_result_codes(l->db, 1);
    sqlite3_busy_timeout(l->db, BUSY_TIMEOUT_MS);
    /* Reading the schema first tells a foreign or corrupt file apart
     * before anything is written to it. */
    mb_status st =
        lite_query(l, "SELECT count(*) FROM sqlite_master", 0, NULL, NULL, err);
    if (!st)
        st = lite_query(l, "PRAGMA foreign_keys=ON", 0, NULL, NULL, err);
    return st;
}

/* Copies the file src to dst; 0 or an errno value. */
static int copy_file(const char *src, const char *dst)
{
    FILE *in = fopen(src, "rb");
    if (!in)
        return errno;
    FILE *out = fopen(dst, "wb");
    if (!out) {
        int e = errno;
        fclose(in);
        return e;
    }
    char buf[65536];
    size_t n;
    int e = 0;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, out) != n) {
            e = errno ? errno : EIO;
            break;
        }
    if (!e && ferror(in))
        e = errno ? errno : EIO;
    fclose(in);
    if (fclose(out) != 0 && !e)
        e = errno;
    return e;
}

/* A WAL store whose -shm this user can neither open nor make (a
 * read-only directory, a writer killed): SQLite cannot read its WAL in
 * place, and immutable reading would silently drop what the WAL holds.
 * The file and its WAL are copied into a private directory under $TMPDIR
 * and the copy is read (removed at close).  MB_EIO saying why when the
 * copy cannot be made. */
static mb_status lite_read_copy(lite *l, const char *wal, mb_err *err)
{
    const char *tmp = getenv("TMPDIR");
    char dir[4096], db[4200], w[4200];
    snprintf(dir, sizeof dir, "%s/mbench-store.XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return mb__fail(err, MB_EIO,
                        "%s is a WAL store that this user cannot read in "
                        "place (no %s-shm and its directory is not "
                        "writable), and no private copy could be made "
                        "under %s: %s; set TMPDIR to a writable directory, "
                        "or have its owner open it once",
                        l->path, l->path, tmp && *tmp ? tmp : "/tmp",
                        strerror(errno));
    l->copied = mb__strdup(dir);
    snprintf(db, sizeof db, "%s/s.db", dir);
    snprintf(w, sizeof w, "%s/s.db-wal", dir);
    int e = copy_file(l->path, db);
    if (!e)
        e = copy_file(wal, w);
    if (e)
        return mb__fail(err, MB_EIO,
                        "%s is a WAL store that this user cannot read in "
                        "place (no -shm file and its directory is not "
                        "writable); copying it to %s failed: %s",
                        l->path, dir, strerror(e));
    return lite_connect(l, db, SQLITE_OPEN_READONLY, err);
}

/* Read-only: a WAL store needs its -shm file; where this user cannot make
 * one (a read-only directory), a store with a WAL is read from a private
 * copy, one without as immutable (nothing is lost then). */
static mb_status lite_connect_ro(lite *l, mb_err *err)
{
    mb_err first;
    mb_status st = lite_connect(l, l->path, SQLITE_OPEN_READONLY, &first);
    int prim = l->last_rc & 0xff;
    if (st != MB_EIO || (prim != SQLITE_CANTOPEN && prim != SQLITE_READONLY)) {
        if (st && err)
            *err = first;
        return st;
    }
    sqlite3_close_v2(l->db);
    l->db = NULL;
    char wal[4200];
    struct stat ws;
    snprintf(wal, sizeof wal, "%s-wal", l->path);
    if (stat(wal, &ws) == 0 && ws.st_size > 0)
        return lite_read_copy(l, wal, err);
    char *uri = immutable_uri(l->path);
    if (!uri)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    st = lite_connect(l, uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, err);
    free(uri);
    if (st && err)
        *err = first; /* the first reason is the one that explains */
    return st;
}

mb_status mb__sqlite_open(const char *path, int read_only, void **h,
                          mb_err *err)
{
    *h = NULL;
    if (!path || !*path)
        return mb__fail(err, MB_EINVAL,
                        "no database given: pass --db FILE or --db "
                        "postgresql://...");
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
        return mb__fail(err, MB_EINVAL,
                        "--db %s is not a regular file: give the path of a "
                        "SQLite database file",
                        path);
    lite *l = mb__calloc(1, sizeof *l);
    if (!l || !(l->path = mb__strdup(path))) {
        free(l);
        return mb__fail(err, MB_ENOMEM, "out of memory");
    }
    mb_status st =
        read_only
            ? lite_connect_ro(l, err)
            : lite_connect(l, path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                           err);
    if (st) {
        lite_close(l);
        return st;
    }
    *h = l;
    return MB_OK;
}

const mb__db_ops mb__sqlite_ops = {
    .kind = "sqlite",
    .pk = "INTEGER PRIMARY KEY",
    .begin_write = "BEGIN IMMEDIATE",
    .table_exists_sql =
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = $1",
    .query = lite_query,
    .lock_schema = lite_lock_schema,
    .ready = lite_ready,
    .close = lite_close,
};
