/* gaterep.h - the writers of a gate verdict (schema "mbench.gate/1",
 * made by src/regress/regress.c): the console table, Markdown for a
 * pull-request comment and a self-contained HTML page.  Each reads the
 * verdict once into a typed view (mb__gate_view) and renders that.
 * Pure: document -> bytes, no I/O. */
#ifndef MB_REPORT_GATEREP_H
#define MB_REPORT_GATEREP_H

#include "core/buf.h"
#include "mbench.h"

#include <jansson.h>
#include <stddef.h>

/* One judged metric of one (model, variant, batch size). */
typedef struct mb__gate_row {
    const char *model, *variant, *metric, *verdict, *reason; /* never NULL */
    long long batch;
    double baseline, current, ratio, ci_lo, ci_hi, p; /* NAN when absent */
} mb__gate_row;

/* A line under the table: what ("regression", "accuracy fail",
 * "unmatched", "warning") and the words. */
typedef struct mb__gate_note {
    char *kind; /* owned: one allocation holding kind, then text */
    char *text; /* points into kind's allocation */
} mb__gate_note;

typedef struct mb__gate_view {
    const json_t *doc;   /* the verdict itself, borrowed */
    const char *verdict; /* "pass", "regression", ... */
    const char *baseline_src, *current_src;
    int paired; /* a compare document's rounds */
    double alpha;
    long long n_pass, n_regression, n_improvement, n_inconclusive;
    mb__gate_row *rows; /* owned */
    size_t n_rows;
    const json_t *accuracy, *unmatched, *warnings; /* arrays, borrowed */
    mb__gate_note *notes; /* owned: every row that is not a pass, then the
                             accuracy gates, unmatched runs and warnings */
    size_t n_notes, n_row_notes; /* the first n_row_notes are rows' */
    /* The method as the verdict states it: heading and text (borrowed). */
    const char *method[5][2];
    size_t n_method;
} mb__gate_view;

/* 1 when doc is a gate verdict. */
int mb__gate_doc_is(const json_t *doc);
/* Fills v from a verdict (borrowed strings); MB_ENOMEM or MB_EFORMAT
 * (not a verdict).  Free with mb__gate_view_free. */
mb_status mb__gate_view_build(const json_t *g, mb__gate_view *v, mb_err *err);
void mb__gate_view_free(mb__gate_view *v);
/* The verdict in capitals: "PASS", "REGRESSION", "ACCURACY FAILURE",
 * "INCONCLUSIVE".  Static. */
const char *mb__gate_verdict_title(const char *verdict);

/* The console table with its notes. */
mb_status mb__report_gate_console(const json_t *g, mb__buf *out, mb_err *err);
/* Markdown: a heading with the verdict, counts, the table, notes and the
 * method (escaped for GitHub). */
mb_status mb__report_gate_md(const json_t *g, mb__buf *out, mb_err *err);
/* One self-contained HTML page (no script runs; the verdict is embedded
 * as JSON for tools). */
mb_status mb__report_gate_html(const json_t *g, mb__buf *out, mb_err *err);
/* CSV (RFC 4180): a header, then one line per row of the table with the
 * figures unformatted: baseline and current in the metric's unit (ns,
 * bytes, inferences/s), the ratio current/baseline and its 95% CI, p. */
mb_status mb__report_gate_csv(const json_t *g, mb__buf *out, mb_err *err);

#endif
