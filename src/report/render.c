/* render.c - any document as Markdown, HTML or CSV (render.h). */
#include "report/render.h"

#include "doc/view.h"
#include "report/writers.h"

mb_status mb__report_md(const json_t *const *docs, size_t n_docs, mb__buf *out,
                        mb_err *err)
{
    mb_status st = mb__rview_check_docs(docs, n_docs, err);
    if (st)
        return st;
    return mb__writers_for(docs, n_docs, MB__W_MD)->md(docs, n_docs, out, err);
}

mb_status mb__report_html(const json_t *const *docs, size_t n_docs,
                          mb__buf *out, mb_err *err)
{
    mb_status st = mb__rview_check_docs(docs, n_docs, err);
    if (st)
        return st;
    return mb__writers_for(docs, n_docs, MB__W_HTML)
        ->html(docs, n_docs, out, err);
}

void mb__report_csv(const json_t *doc, int with_header, mb__buf *out)
{
    mb_err err = {0}; /* a writer that fails has appended nothing useful */
    (void)mb__writers_for(&doc, 1, 0)->csv(doc, with_header, out, &err);
}
