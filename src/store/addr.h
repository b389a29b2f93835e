/* addr.h - what a --db value names: a SQLite file or a PostgreSQL server.
 *
 * One rule for every command (docs/STORE.md, "Store addresses"):
 *  - "sqlite:PATH" is the SQLite file PATH, whatever PATH looks like;
 *  - "postgresql://..." and "postgres://..." are libpq URLs;
 *  - a libpq keyword/value string ("host=h dbname=d password=...", also
 *    with spaces around '=') is PostgreSQL: a value with a word followed
 *    by '=' at its start or after a space is never taken as a file name;
 *  - so is any other value holding a password setting ("a?password=x"),
 *    which libpq then refuses: it is never a file name;
 *  - any other "SCHEME://" is refused (no file named "mysql:" is made);
 *  - anything else is the path of a SQLite file.
 * A value that holds a password is thus never a file name. */
#ifndef MB_STORE_ADDR_H
#define MB_STORE_ADDR_H

#include "mbench.h"

typedef enum mb__store_engine {
    MB__STORE_SQLITE = 1,
    MB__STORE_POSTGRES = 2
} mb__store_engine;

typedef struct mb__store_addr {
    mb__store_engine engine;
    /* Borrowed from the parsed value: the SQLite path (without "sqlite:")
     * or the whole libpq connection string (URL or keyword/value). */
    const char *target;
} mb__store_addr;

/* Classifies the --db value s (borrowed; a->target points into it).
 * MB_EINVAL with a one-line message for an empty value, "sqlite:" without
 * a path, "sqlite://..." or an unknown SCHEME://. */
mb_status mb__store_addr_parse(const char *s, mb__store_addr *a, mb_err *err);

/* 1 when s would open PostgreSQL (a URL or keyword/value string), else 0. */
int mb__store_addr_is_postgres(const char *s);

/* The value as messages show it: passwords replaced by "***"
 * (core/redact.h); for a PostgreSQL URL also without its user name.
 * Caller frees; NULL when out of memory. */
char *mb__store_addr_shown(const char *s);

#endif
