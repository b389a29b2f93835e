/* proffiles.c - a single profile's own files (proffiles.h). */
#include "report/proffiles.h"

#include "core/buf.h"
#include "core/err.h"
#include "core/fileio.h"
#include "report/profflame.h"
#include "report/profprint.h"

#include <jansson.h>

mb_status mb__report_profile_files(const mb__profile_result *r,
                                   const char *trace, const char *folded,
                                   const char *flame, mb_err *err)
{
    const json_t *run = json_array_get(json_object_get(r->doc, "runs"), 0);
    const json_t *p = json_object_get(run, "profile");
    const char *title = json_string_value(json_object_get(run, "variant"));
    const char *files[3] = {trace, folded, flame};
    mb_status first = MB_OK;
    mb_err e2 = {0};
    for (int i = 0; i < 3 && !json_object_get(r->doc, "profile_comparison");
         i++) {
        if (!files[i])
            continue;
        mb__buf b = MB_BUF_INIT;
        if (i == 0)
            mb__buf_append(&b, r->trace ? r->trace : "", r->trace_len);
        else if (i == 1)
            mb__profile_folded(p, title, &b);
        else
            mb__profile_svg(p, title, &b);
        mb_err *e = first ? &e2 : err;
        mb_status s =
            b.oom
                ? mb__fail(e, MB_ENOMEM, "out of memory rendering %s", files[i])
                : mb__write_file_atomic(files[i], b.data ? b.data : "", b.len,
                                        e);
        mb__buf_free(&b);
        if (s && !first)
            first = s;
    }
    return first;
}
