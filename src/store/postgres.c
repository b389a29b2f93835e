/* postgres.c - the PostgreSQL driver of the results store (libpq), for a
 * team whose CI runs on many machines and shares one history.  Parameters
 * go as text through PQexecParams; schema set-up is serialised between
 * clients with a transaction-scoped advisory lock. */
#include "store/db.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/redact.h"

#include <libpq-fe.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An arbitrary constant naming mbench's schema lock ("mbench" in ASCII). */
#define SCHEMA_LOCK_KEY "109098101110099104"

/* libpq messages span lines ("connection to server ... failed: ...\n\tIs
 * the server running ..."); the store reports one line. */
static void one_line(char *dst, size_t len, const char *src)
{
    size_t k = 0;
    int space = 0;
    for (const char *p = src ? src : ""; *p && k + 1 < len; p++) {
        if (*p == '\n' || *p == '\t' || *p == '\r') {
            space = 1;
            continue;
        }
        if (space && k > 0)
            dst[k++] = ' ';
        space = 0;
        if (k + 1 < len)
            dst[k++] = *p;
    }
    while (k > 0 && dst[k - 1] == ' ')
        k--;
    dst[k] = '\0';
}

static mb_status pg_query(void *h, const char *sql, size_t n,
                          const char *const *params, json_t **rows, mb_err *err)
{
    PGconn *c = h;
    if (rows)
        *rows = NULL;
    PGresult *r = PQexecParams(c, sql, (int)n, NULL, params, NULL, NULL, 0);
    ExecStatusType es = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    if (es != PGRES_COMMAND_OK && es != PGRES_TUPLES_OK) {
        char msg[600];
        one_line(msg, sizeof msg,
                 r ? PQresultErrorMessage(r) : PQerrorMessage(c));
        PQclear(r);
        if (PQstatus(c) == CONNECTION_BAD)
            return mb__fail(err, MB_EIO,
                            "lost the connection to PostgreSQL: %s", msg);
        return mb__fail(err, MB_EIO, "PostgreSQL: %s", msg);
    }
    if (rows) {
        json_t *out = json_array();
        int nr = PQntuples(r), nf = PQnfields(r);
        for (int i = 0; out && i < nr; i++) {
            json_t *row = json_array();
            for (int f = 0; f < nf; f++)
                json_array_append_new(row,
                                      PQgetisnull(r, i, f)
                                          ? json_null()
                                          : json_string(PQgetvalue(r, i, f)));
            json_array_append_new(out, row);
        }
        if (!out) {
            PQclear(r);
            return mb__fail(err, MB_ENOMEM, "out of memory");
        }
        *rows = out;
    }
    PQclear(r);
    return MB_OK;
}

static mb_status pg_lock_schema(void *h, mb_err *err)
{
    return pg_query(h, "SELECT pg_advisory_xact_lock(" SCHEMA_LOCK_KEY ")", 0,
                    NULL, NULL, err);
}

static mb_status pg_ready(void *h, mb_err *err)
{
    (void)h;
    (void)err;
    return MB_OK;
}

static void quiet(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

static void pg_close(void *h)
{
    if (h)
        PQfinish(h);
}

/* Connects to url (its password already encoded). */
static mb_status pg_open(const char *url, void **h, mb_err *err)
{
    *h = NULL;
    char shown[512]; /* postgresql://u:***@host/db, ?password=*** */
    mb__redact_to(shown, sizeof shown, url);
    /* libpq's syntax errors quote the text around the defect, which may
     * be the password: only its verdict is reported. */
    char *perr = NULL;
    PQconninfoOption *opts = PQconninfoParse(url, &perr);
    if (!opts) {
        int oom = !perr;
        PQfreemem(perr);
        if (oom)
            return mb__fail(err, MB_ENOMEM, "out of memory");
        return mb__fail(err, MB_EINVAL,
                        "--db %s is not a valid PostgreSQL connection "
                        "string: write postgresql://USER@HOST:PORT/DB or "
                        "'host=H port=P dbname=D user=U' (quote values "
                        "holding spaces as 'a b'), or sqlite:PATH for a "
                        "SQLite file",
                        shown);
    }
    PQconninfoFree(opts);
    /* No environment fallbacks hiding a typo: the URL says everything. */
    PGconn *c = PQconnectdb(url);
    if (!c)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    if (PQstatus(c) != CONNECTION_OK) {
        char msg[600];
        one_line(msg, sizeof msg, PQerrorMessage(c));
        PQfinish(c);
        return mb__fail(err, MB_EIO, "cannot connect to PostgreSQL at %s: %s",
                        shown, msg);
    }
    /* The library never prints: NOTICEs ("relation already exists,
     * skipping") would otherwise go to stderr. */
    PQsetNoticeProcessor(c, quiet, NULL);
    *h = c;
    return MB_OK;
}

/* url with its password percent-encoded where it holds characters a URL
 * cannot hold there ('/', '?', '#', '@', ...): libpq would otherwise read
 * a piece of it as the host or port and quote it in its error (caller
 * frees; NULL when out of memory). */
static char *encoded_password(const char *url)
{
    size_t b = 0, e = 0, n = strlen(url);
    char *out = malloc(3 * n + 1);
    if (!out)
        return NULL;
    if (!mb__url_password(url, &b, &e)) {
        memcpy(out, url, n + 1);
        return out;
    }
    memcpy(out, url, b);
    size_t o = b;
    for (size_t i = b; i < e; i++) {
        unsigned char c = (unsigned char)url[i];
        int hex = c == '%' && isxdigit((unsigned char)url[i + 1]) &&
                  isxdigit((unsigned char)url[i + 2]);
        if (isalnum(c) || strchr("-._~!$&'()*+,;=", c) || hex)
            out[o++] = (char)c;
        else
            o += (size_t)snprintf(out + o, 4, "%%%02X", c);
    }
    memcpy(out + o, url + e, n - e + 1);
    return out;
}

mb_status mb__pg_open(const char *raw, void **h, mb_err *err)
{
    char *url = encoded_password(raw);
    if (!url)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    mb_status st = pg_open(url, h, err);
    free(url);
    return st;
}

const mb__db_ops mb__pg_ops = {
    .kind = "postgresql",
    .pk = "BIGSERIAL PRIMARY KEY",
    .begin_write = "BEGIN",
    .table_exists_sql =
        "SELECT count(*) FROM information_schema.tables WHERE table_schema = "
        "current_schema() AND table_name = $1",
    .query = pg_query,
    .lock_schema = pg_lock_schema,
    .ready = pg_ready,
    .close = pg_close,
};
