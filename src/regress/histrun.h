/* histrun.h - `mbench history` as two library calls: the series of one
 * metric read from a store (history.h over store.h's rows), and the
 * history's files (report/histrep.h: an HTML page with SVG charts,
 * Markdown, CSV; the "mbench.history/1" JSON document) written by the output
 * manager's atomic writer (report/output.h). */
#ifndef MB_REGRESS_HISTRUN_H
#define MB_REGRESS_HISTRUN_H

#include "mbench.h"
#include "report/output.h"
#include "store/store.h"

#include <jansson.h>

/* The series of metric (history.h) over the results of the existing store
 * db that pass f: *series is new (caller json_decref).  Unless
 * allow_mixed_cpus, a series that holds results of different CPU models
 * is MB_EDATA (cpumix.h). */
mb_status mb__history_query(const char *db, const mb__store_filter *f,
                            const char *metric, int allow_mixed_cpus,
                            json_t **series, mb_err *err);

/* Writes o->html, o->md, o->csv and o->json (the document stamped with
 * the time now; NULL paths are skipped; the CSV file is replaced, not
 * appended to).  Every output is
 * tried: fail (may be NULL) is called for each that fails; returns MB_OK
 * or the first failure. */
mb_status mb__history_write(json_t *series, const char *metric,
                            const mb__outset *o, mb__out_fail_fn fail,
                            void *user);

#endif
