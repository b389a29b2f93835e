/* writers.h - the one table of writers by document kind.  For each kind
 * of document -- a gate verdict, a tensor-set diff, a profile, a load
 * run, a validation, and last every other result document -- its
 * Markdown, HTML and CSV writers, whether its CSV rows are appended under
 * a file's header or the CSV replaces the file, and the significant
 * digits of its JSON.  The output manager (output.c) and mb__report_md,
 * mb__report_html and mb__report_csv (render.c) all pick
 * their writers here, so a document is recognised in one order
 * everywhere.  Pure. */
#ifndef MB_REPORT_WRITERS_H
#define MB_REPORT_WRITERS_H

#include "core/buf.h"
#include "mbench.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Renders n documents (borrowed; n is 1 unless the kind's `many` says
 * otherwise) into out. */
typedef mb_status (*mb__doc_writer)(const json_t *const *docs, size_t n,
                                    mb__buf *out, mb_err *err);
/* The CSV of one document, after a header line when with_header (a kind
 * whose CSV replaces the file always writes its header). */
typedef mb_status (*mb__csv_writer)(const json_t *doc, int with_header,
                                    mb__buf *out, mb_err *err);

/* The formats whose writer can merge several documents (`many`). */
enum { MB__W_MD = 1, MB__W_HTML = 2 };

typedef struct mb__writers {
    const char *kind;             /* "gate verdict", ..., "result" */
    int (*is)(const json_t *doc); /* NULL on the last entry: the rest */
    mb__doc_writer md, html;
    mb__csv_writer csv;
    unsigned many;    /* MB__W_* formats that take several such documents */
    bool csv_appends; /* rows go under the file's header; else replaced */
    int json_digits;  /* significant digits of reals in its JSON file */
} mb__writers;

/* The writers of docs (n >= 1, objects) in format fmt (MB__W_MD,
 * MB__W_HTML, or 0 for CSV and JSON, which take one document): the first
 * entry whose `is` holds for docs[0] when n is 1, or for all of them when
 * the entry merges several in fmt; else the result writers, which merge
 * any documents side by side.  Never NULL. */
const mb__writers *mb__writers_for(const json_t *const *docs, size_t n,
                                   unsigned fmt);

/* The writers of result documents (the table's last entry), for the
 * entry points that dispatch through the table first. */
mb_status mb__result_md(const json_t *const *docs, size_t n, mb__buf *out,
                        mb_err *err);
mb_status mb__result_html(const json_t *const *docs, size_t n, mb__buf *out,
                          mb_err *err);
mb_status mb__result_csv(const json_t *doc, int with_header, mb__buf *out,
                         mb_err *err);

#endif
