/* siteq.h - what `mbench site` reads from the store: every run with the
 * columns a series needs, and the documents whose per-run details (exec
 * phases and counters, requirement verdicts) live only in the stored
 * JSON.  Read-only queries over store.h's mb__store_select. */
#ifndef MB_STORE_SITEQ_H
#define MB_STORE_SITEQ_H

#include "mbench.h"
#include "store/store.h"

#include <jansson.h>

/* Cells of a site run row, in order (every cell a string or null, as the
 * engine returned it). */
enum {
    MB_SR_RUN_ID,
    MB_SR_DOC_ID,
    MB_SR_RUN_INDEX,
    MB_SR_COMMIT,
    MB_SR_BRANCH,
    MB_SR_COMMIT_DATE,
    MB_SR_CREATED,
    MB_SR_STATUS,
    MB_SR_KIND,
    MB_SR_MODEL,
    MB_SR_VARIANT,
    MB_SR_BACKEND,
    MB_SR_BATCH,
    MB_SR_P50,
    MB_SR_P99,
    MB_SR_CI_LO,
    MB_SR_CI_HI,
    MB_SR_THROUGHPUT,
    MB_SR_MEMORY,
    MB_SR_CPU_MODEL,
    MB_SR_ARCH,
    MB_SR_CORES,
    MB_SR_MEM_BYTES,
    MB_SR_HOSTNAME,
    MB_SR_COUNT
};

/* Every run of the store, in storing order (run id): a new array of rows,
 * each an array of MB_SR_COUNT strings or nulls. */
mb_status mb__store_site_runs(mb__store *s, json_t **rows, mb_err *err);

/* The documents a site needs whole: those holding an exec run (phases,
 * counters) or requirements.  A new object {document id: document}
 * (without raw samples).  A stored document that is not JSON is
 * MB_EFORMAT (the store is damaged). */
mb_status mb__store_site_docs(mb__store *s, json_t **docs, mb_err *err);

#endif
