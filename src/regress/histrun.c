/* histrun.c - the query of `mbench history` (histrun.h). */
#include "regress/histrun.h"

#include "core/err.h"
#include "regress/cpumix.h"
#include "regress/history.h"

mb_status mb__history_query(const char *db, const mb__store_filter *f,
                            const char *metric, int allow_mixed_cpus,
                            json_t **series, mb_err *err)
{
    mb__store *s = NULL;
    json_t *rows = NULL;
    *series = NULL;
    mb_status st = mb__store_open_ro(db, &s, err);
    if (!st)
        st = mb__store_history(s, f, &rows, err);
    mb__store_close(s);
    if (!st && !allow_mixed_cpus)
        st = mb__history_cpu_check(rows, err);
    if (!st && !(*series = mb__history_series(rows, metric)))
        st = mb__fail(err, MB_ENOMEM, "out of memory");
    json_decref(rows);
    return st;
}
