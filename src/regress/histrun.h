/* histrun.h - the query of `mbench history`: the series of one metric
 * read from a store (history.h over store.h's rows).  Its files are
 * written by the report layer above (report/histrep.h,
 * mb__history_write). */
#ifndef MB_REGRESS_HISTRUN_H
#define MB_REGRESS_HISTRUN_H

#include "mbench.h"
#include "store/store.h"

#include <jansson.h>

/* The series of metric (history.h) over the results of the existing store
 * db that pass f: *series is new (caller json_decref).  Unless
 * allow_mixed_cpus, a series that holds results of different CPU models
 * is MB_EDATA (cpumix.h). */
mb_status mb__history_query(const char *db, const mb__store_filter *f,
                            const char *metric, int allow_mixed_cpus,
                            json_t **series, mb_err *err);

#endif
