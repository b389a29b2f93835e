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

struct mb__slurm_job;

/* The documents of a suite's Slurm job (slurm.h) merged as mb__suite_merge
 * merges shards, with the document's "slurm": {dir, jobs}; *ran gets how
 * many tasks wrote one.  MB_EIO when none did. */
mb_status mb__slurm_merge_suite(const struct mb__slurm_job *j, json_t **out,
                                size_t *ran, mb_err *err);
/* The documents of a compare or run job (one task per batch size) as one
 * document of the command's kind: runs and comparisons in task order, the
 * warnings of some batch sizes only saying which.  MB_EIO when no task
 * wrote one. */
mb_status mb__slurm_merge_batches(const struct mb__slurm_job *j, json_t **out,
                                  mb_err *err);

#endif
