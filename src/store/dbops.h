/* dbops.h - the operations of `mbench db`, one call each, with the line
 * that reports what was done: export (every document of a store into one
 * JSON file, or copied into another store), import (export files and
 * result documents into a store) and info (schema version and row
 * counts).  Store names in those lines have their password replaced
 * (core/redact.h). */
#ifndef MB_STORE_DBOPS_H
#define MB_STORE_DBOPS_H

#include "core/buf.h"
#include "mbench.h"

#include <stddef.h>

/* What `mbench db` was asked; every string is borrowed. */
typedef struct mb__db_req {
    const char *db;         /* the store: export's source, import's target */
    const char *json;       /* export: the file to write (may be /dev/fd/N) */
    const char *json_shown; /* export: that file as the user named it */
    const char *to;         /* export: copy into this store instead */
    const char *git_dir;    /* import: git facts for documents without */
    char *const *files;     /* import: the files, n_files of them */
    size_t n_files;
} mb__db_req;

/* Export or copy; appends "exported N documents from DB to FILE" or
 * "copied N documents from DB to DST (A new, B already there)" to msg. */
mb_status mb__db_export(const mb__db_req *rq, mb__buf *msg, mb_err *err);
/* Import every file (stopping at the first that fails: its content is
 * never a usage error, so MB_EINVAL becomes MB_EFORMAT); appends
 * "imported N documents into DB (A new, B already there)" to msg. */
mb_status mb__db_import(const mb__db_req *rq, mb__buf *msg, mb_err *err);
/* Appends the store's kind, schema version and row counts to msg. */
mb_status mb__db_info(const char *db, mb__buf *msg, mb_err *err);

#endif
