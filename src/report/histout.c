/* histout.c - the files of `mbench history` (mb__history_write in
 * histrep.h): the writers of histrep.c through the output manager's
 * atomic writer (output.h). */
#include "report/histrep.h"

#include "core/clock.h"
#include "core/err.h"
#include "regress/history.h"

/* Renders series with writer w into path (NULL: nothing). */
static mb_status write_with(const char *path,
                            void (*w)(mb__buf *, const json_t *, const char *),
                            const json_t *series, const char *metric,
                            mb_err *err)
{
    if (!path)
        return MB_OK;
    mb__buf b = MB_BUF_INIT;
    w(&b, series, metric);
    return mb__output_buf(path, &b, err);
}

mb_status mb__history_write(json_t *series, const char *metric,
                            const mb__outset *o, mb__out_fail_fn fail,
                            void *user)
{
    mb_err e = {0};
    mb_status st[4] = {MB_OK, MB_OK, MB_OK, MB_OK};
    if ((st[0] = write_with(o->html, mb__history_html, series, metric, &e)) &&
        fail)
        fail(user, &e);
    if ((st[1] = write_with(o->md, mb__history_md, series, metric, &e)) && fail)
        fail(user, &e);
    if ((st[3] = write_with(o->csv, mb__history_csv, series, metric, &e)) &&
        fail)
        fail(user, &e);
    if (o->json) {
        char now[32];
        mb__utc_iso8601(now, sizeof now);
        json_t *doc = mb__history_doc(series, metric, now);
        st[2] =
            doc ? mb__output_json(o->json, doc, &e)
                : mb__fail(&e, MB_ENOMEM, "out of memory writing %s", o->json);
        if (st[2] && fail)
            fail(user, &e);
        json_decref(doc);
    }
    for (int i = 0; i < 4; i++)
        if (st[i])
            return st[i];
    return MB_OK;
}
