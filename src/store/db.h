/* db.h - the small SQL driver interface the store is written against, so
 * one set of statements serves SQLite (sqlite.c) and PostgreSQL
 * (postgres.c).  Statements use $1..$n placeholders; every parameter and
 * every result cell is text (NULL for SQL NULL), which both engines convert
 * by column type.  Internal to src/store/. */
#ifndef MB_STORE_DB_H
#define MB_STORE_DB_H

#include "mbench.h"

#include <jansson.h>
#include <stddef.h>

typedef struct mb__db_ops {
    const char *kind;             /* "sqlite", "postgresql" */
    const char *pk;               /* auto-increment primary key column type */
    const char *begin_write;      /* starts a write transaction */
    const char *table_exists_sql; /* $1 = table name -> one row, count */
    /* Runs one statement.  When rows is non-NULL it receives a new JSON
     * array of rows, each an array of strings or nulls.  Fails with a
     * one-line message naming the engine's complaint. */
    mb_status (*query)(void *h, const char *sql, size_t n,
                       const char *const *params, json_t **rows, mb_err *err);
    /* Serialises schema set-up between processes inside a transaction
     * (PostgreSQL: an advisory lock; SQLite: BEGIN IMMEDIATE already does). */
    mb_status (*lock_schema)(void *h, mb_err *err);
    /* Called once the file is known to be a store this build may write
     * (or an empty one), before the first write (SQLite: WAL mode). */
    mb_status (*ready)(void *h, mb_err *err);
    void (*close)(void *h);
} mb__db_ops;

/* Open a connection; *h is freed by ops->close.  read_only: a SQLite file
 * opened for reading only (nothing created, no WAL switch). */
mb_status mb__sqlite_open(const char *path, int read_only, void **h,
                          mb_err *err);
mb_status mb__pg_open(const char *url, void **h, mb_err *err);
extern const mb__db_ops mb__sqlite_ops;
extern const mb__db_ops mb__pg_ops;

#endif
