/* console.h - the console table of `mbench run` (and of runs in any
 * result document): aligned columns that fit the terminal width, colour
 * only when asked.  Pure: document -> bytes. */
#ifndef MB_REPORT_CONSOLE_H
#define MB_REPORT_CONSOLE_H

#include "core/buf.h"
#include "report/rutil.h" /* mb__fmt_duration, mb__fmt_count */

#include <jansson.h>

typedef struct mb__console_opts {
    int width; /* terminal width in columns */
    int color; /* ANSI colours */
} mb__console_opts;

void mb__report_console(const json_t *doc, const mb__console_opts *o,
                        mb__buf *out);
/* The table of a compare document (one row per variant, columns dropped
 * by priority to fit o->width), its recommendations and warnings
 * (console_cmp.c). */
void mb__report_compare_console(const json_t *doc, const mb__console_opts *o,
                                mb__buf *out);

#endif
