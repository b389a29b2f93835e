/* csv.c - CSV rows for result documents (RFC 4180 quoting): the columns
 * are the fields of doc/fields.h marked MB_FO_CSV. */
#include "report/csv.h"

#include "doc/fields.h"
#include "doc/view.h"
#include "report/writers.h"

#include <math.h>
#include <string.h>

mb_status mb__result_csv(const json_t *doc, int with_header, mb__buf *out,
                         mb_err *err)
{
    (void)err;
    if (with_header)
        mb__fields_csv_header(out);
    size_t i;
    const json_t *run;
    json_array_foreach(json_object_get(doc, "runs"), i, run)
    {
        mb__rrun r;
        mb__rrun_fill(&r, doc, 0, run);
        mb__fields_csv_row(&r, out);
    }
    return MB_OK;
}
