/* transfer.h - moving results between stores and JSON, for `mbench db`:
 * an export document ("mbench.store-export/1": every stored document with
 * its git facts), a store-to-store copy, and import of export files and
 * plain result documents.  Storing is idempotent (a document already in
 * the target is skipped), so an interrupted import or copy can simply be
 * run again. */
#ifndef MB_STORE_TRANSFER_H
#define MB_STORE_TRANSFER_H

#include "store/store.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define MB_STORE_EXPORT_SCHEMA "mbench.store-export/1"

/* Documents read and, of those, newly stored. */
typedef struct mb__transfer_count {
    size_t seen, added;
} mb__transfer_count;

/* Copies every document of src into dst (counted in *c). */
mb_status mb__store_copy(mb__store *src, mb__store *dst, mb__transfer_count *c,
                         mb_err *err);
/* The export document of src, stamped exported_utc = now: *out is new,
 * c->seen its document count. */
mb_status mb__store_export(mb__store *src, const char *now, json_t **out,
                           mb__transfer_count *c, mb_err *err);
/* Stores the documents of the JSON file at path into dst: an export file
 * (each with its own git facts) or one result document (its "git" member,
 * else git, which may be NULL).  Errors name path (and the document
 * number in an export); an export of another schema version is
 * MB_EFORMAT. */
mb_status mb__store_import_file(mb__store *dst, const char *path,
                                const json_t *git, mb__transfer_count *c,
                                mb_err *err);
/* The same for a document already parsed (borrowed); path names it in
 * messages. */
mb_status mb__store_import_json(mb__store *dst, const json_t *j,
                                const char *path, const json_t *git,
                                mb__transfer_count *c, mb_err *err);
/* Reads the JSON file at path into *out (new reference): what
 * mb__read_file fails with, or MB_EFORMAT "[what ]path is not valid JSON
 * (line N: why)"; what may be NULL. */
mb_status mb__json_file_load(const char *path, const char *what, json_t **out,
                             mb_err *err);
/* Row counts of the tables documents, runs and run_samples. */
mb_status mb__store_counts(mb__store *s, int64_t counts[3], mb_err *err);

#endif
