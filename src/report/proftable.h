/* proftable.h - the per-operator tables of a profile (operator types,
 * nodes, the rows of a comparison and its replaced operators), each kept
 * as one list of columns that both the Markdown of proftab.c and the HTML
 * page of profflame.c write, so the two formats cannot drift apart.  The
 * cells are written by the same functions the other parts of those pages
 * use.  Pure: bytes into an mb__buf. */
#ifndef MB_REPORT_PROFTABLE_H
#define MB_REPORT_PROFTABLE_H

#include "core/buf.h"

#include <jansson.h>
#include <stddef.h>

typedef enum mb__pformat { MB_PF_MD, MB_PF_HTML } mb__pformat;

typedef enum mb__ptable {
    MB_PT_OP_TYPES,  /* profile "op_types" */
    MB_PT_NODES,     /* profile "nodes" */
    MB_PT_CMP_ROWS,  /* comparison "rows": where the change comes from */
    MB_PT_CMP_PAIRS, /* comparison "pairs" (HTML only) */
} mb__ptable;

/* The table t of the array rows in format f: the header, at most max
 * rows (0: all), then the end of the table ("\n" in Markdown, "</table>\n"
 * in HTML).  Absent figures are written "-". */
void mb__profile_table(mb__buf *b, mb__pformat f, mb__ptable t,
                       const json_t *rows, size_t max);

/* The table of the whole profile's work: FLOPs and MACs per inference,
 * achieved and peak GFLOP/s, share of peak, memory bandwidth (Markdown
 * also the share of kernel time without an estimate). */
void mb__profile_work_table(mb__buf *b, mb__pformat f, const json_t *profile);

/* The sentence of a comparison (mb__profile_compare): "A = a: model_run
 * 1.234 ms; B = b: model_run 0.617 ms; B is 2.00x faster than A" (the
 * last part in bold, when there is a speedup). */
void mb__profile_cmp_sentence(mb__buf *b, mb__pformat f, const json_t *cmp);

/* The sentence, the table of rows and the Quantize/DequantizeLinear
 * line of a comparison (the HTML sentence is a <p> the caller opens). */
void mb__profile_cmp_body(mb__buf *b, mb__pformat f, const json_t *cmp);

/* One number cell with printf format fmt ("-" when x is not finite): the
 * bare text in Markdown, a right-aligned <td> in HTML. */
void mb__profile_cell_num(mb__buf *b, mb__pformat f, const char *fmt, double x);
/* One share cell (0.25 is 25%): "25.0%" in Markdown, a bar and the
 * percentage in HTML; "-" when not finite. */
void mb__profile_cell_share(mb__buf *b, mb__pformat f, double share);

#endif
