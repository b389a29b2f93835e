/* merge.h - `mbench merge`: result documents read from files and merged
 * as the shards of one suite run (suite.h mb__suite_merge). */
#ifndef MB_EXEC_MERGE_H
#define MB_EXEC_MERGE_H

#include "mbench.h"

#include <jansson.h>
#include <stddef.h>

/* Reads the n result documents at paths and merges them into *out (new).
 * MB_EIO for a file that cannot be read or parsed, MB_EINVAL for one
 * that is not a result document (no "runs" array) and for documents that
 * are not shards of one suite; err names the file. */
mb_status mb__merge_files(const char *const *paths, size_t n, json_t **out,
                          mb_err *err);
/* The same for n documents already parsed (borrowed), names[i] naming
 * each in messages. */
mb_status mb__merge_docs(json_t *const *docs, const char *const *names,
                         size_t n, json_t **out, mb_err *err);

#endif
