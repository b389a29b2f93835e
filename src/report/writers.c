/* writers.c - the table of writers by document kind (writers.h). */
#include "report/writers.h"

#include "core/err.h"
#include "report/gaterep.h"
#include "report/loadrep.h"
#include "report/proftab.h"
#include "report/vreport.h"

/* ---- the writers of one document, in the table's signatures ---------- */

static int is_load(const json_t *doc)
{
    return mb__is_load_doc(doc);
}

static int is_validation(const json_t *doc)
{
    return json_is_object(json_object_get(doc, "validation"));
}

static mb_status oom_of(const mb__buf *out, mb_err *err)
{
    return out->oom ? mb__fail(err, MB_ENOMEM, "out of memory") : MB_OK;
}

static mb_status gate_md(const json_t *const *d, size_t n, mb__buf *out,
                         mb_err *err)
{
    (void)n;
    return mb__report_gate_md(d[0], out, err);
}

static mb_status gate_html(const json_t *const *d, size_t n, mb__buf *out,
                           mb_err *err)
{
    (void)n;
    return mb__report_gate_html(d[0], out, err);
}

static mb_status gate_csv(const json_t *doc, int with_header, mb__buf *out,
                          mb_err *err)
{
    (void)with_header;
    return mb__report_gate_csv(doc, out, err);
}

static mb_status diff_md(const json_t *const *d, size_t n, mb__buf *out,
                         mb_err *err)
{
    (void)n;
    return mb__diff_md(d[0], out, err);
}

static mb_status diff_html(const json_t *const *d, size_t n, mb__buf *out,
                           mb_err *err)
{
    (void)n;
    return mb__diff_html(d[0], out, err);
}

static mb_status diff_csv(const json_t *doc, int with_header, mb__buf *out,
                          mb_err *err)
{
    (void)with_header;
    (void)err;
    mb__diff_csv(doc, out);
    return MB_OK;
}

static mb_status profile_html(const json_t *const *d, size_t n, mb__buf *out,
                              mb_err *err)
{
    (void)n;
    return mb__report_profile_html(d[0], out, err);
}

static mb_status profile_csv(const json_t *doc, int with_header, mb__buf *out,
                             mb_err *err)
{
    (void)err;
    mb__report_profile_csv(doc, with_header, out);
    return MB_OK;
}

static mb_status load_md(const json_t *const *d, size_t n, mb__buf *out,
                         mb_err *err)
{
    (void)n;
    mb__report_load_md(d[0], out);
    return oom_of(out, err);
}

static mb_status load_html(const json_t *const *d, size_t n, mb__buf *out,
                           mb_err *err)
{
    (void)n;
    return mb__report_load_html(d[0], out, err);
}

static mb_status load_csv(const json_t *doc, int with_header, mb__buf *out,
                          mb_err *err)
{
    (void)err;
    mb__report_load_csv(doc, with_header, out);
    return MB_OK;
}

static mb_status validation_md(const json_t *const *d, size_t n, mb__buf *out,
                               mb_err *err)
{
    (void)n;
    return mb__validation_md(d[0], out, err);
}

static mb_status validation_html(const json_t *const *d, size_t n, mb__buf *out,
                                 mb_err *err)
{
    (void)n;
    return mb__validation_html(d[0], out, err);
}

/* ---- the table ---------------------------------------------------------- */

/* Schemas first (a gate verdict, a diff), then kinds (profile, load),
 * then a validation verdict inside a result; the last entry takes the
 * rest.  A validation's CSV is its runs, as any result's. */
static const mb__writers table[] = {
    {"gate verdict", mb__gate_doc_is, gate_md, gate_html, gate_csv, 0, false,
     10},
    {"tensor-set diff", mb__diff_doc_is, diff_md, diff_html, diff_csv, 0, false,
     17},
    {"profile", mb__profile_doc_is, mb__report_profile_md, profile_html,
     profile_csv, MB__W_MD, true, 17},
    {"load", is_load, load_md, load_html, load_csv, 0, true, 17},
    {"validation", is_validation, validation_md, validation_html,
     mb__result_csv, 0, true, 17},
    {"result", NULL, mb__result_md, mb__result_html, mb__result_csv,
     MB__W_MD | MB__W_HTML, true, 17},
};

/* Whether every document is of w's kind. */
static int all_are(const mb__writers *w, const json_t *const *docs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!w->is(docs[i]))
            return 0;
    return 1;
}

const mb__writers *mb__writers_for(const json_t *const *docs, size_t n,
                                   unsigned fmt)
{
    const mb__writers *w = table;
    for (; w->is; w++) {
        if (!w->is(docs[0]))
            continue;
        if (n == 1 || ((w->many & fmt) && all_are(w, docs, n)))
            return w;
        break; /* several documents: merged as results */
    }
    return &table[sizeof table / sizeof table[0] - 1];
}
