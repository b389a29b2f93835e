/* csv.c - CSV rows for result documents (RFC 4180 quoting): the columns
 * are the fields of doc/fields.h marked MB_FO_CSV. */
#include "report/loadrep.h"
#include "report/csv.h"

#include "doc/fields.h"
#include "report/proftab.h"
#include "doc/view.h"

#include <math.h>
#include <string.h>

void mb__report_csv(const json_t *doc, int with_header, mb_buf *out)
{
    if (mb__profile_doc_is(doc)) { /* one row per operator type */
        mb__report_profile_csv(doc, with_header, out);
        return;
    }
    if (mb__is_load_doc(doc)) { /* one row per load step */
        mb__report_load_csv(doc, with_header, out);
        return;
    }
    if (with_header)
        mb__fields_csv_header(out);
    size_t i;
    const json_t *run;
    json_array_foreach(json_object_get(doc, "runs"), i, run)
    {
        mb_rrun r;
        mb__rrun_fill(&r, doc, 0, run);
        mb__fields_csv_row(&r, out);
    }
}
