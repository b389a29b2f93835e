/* csv.c - CSV rows for result documents (RFC 4180 quoting): the columns
 * are the fields of report/fields.h marked MB_FO_CSV. */
#include "report/loadrep.h"
#include "report/csv.h"

#include "report/fields.h"
#include "report/proftab.h"
#include "report/view.h"

#include <math.h>
#include <string.h>

void mb__csv_num(mb_buf *out, const char *fmt, double x)
{
    mb__buf_putc(out, ',');
    if (isfinite(x))
        mb__buf_printf(out, fmt, x);
}

void mb__csv_field(mb_buf *out, const char *s)
{
    if (!s)
        s = "";
    if (!strpbrk(s, ",\"\r\n")) {
        mb__buf_puts(out, s);
        return;
    }
    mb__buf_putc(out, '"');
    for (; *s; s++) {
        if (*s == '"')
            mb__buf_putc(out, '"');
        mb__buf_putc(out, *s);
    }
    mb__buf_putc(out, '"');
}

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
