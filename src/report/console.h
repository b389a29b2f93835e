/* console.h - the console table of `mbench run` (and of runs in any
 * result document): aligned columns that fit the terminal width, colour
 * only when asked.  Pure: document -> bytes. */
#ifndef MB_REPORT_CONSOLE_H
#define MB_REPORT_CONSOLE_H

#include "core/buf.h"

#include <jansson.h>

typedef struct mb_console_opts {
    int width; /* terminal width in columns */
    int color; /* ANSI colours */
} mb_console_opts;

void mb__report_console(const json_t *doc, const mb_console_opts *o,
                        mb_buf *out);
/* "12.3 ms", "850 us", "42 ns" with 3 significant digits. */
void mb__fmt_duration(double ns, char *buf, size_t len);
/* "1.23M", "456K" for counts. */
void mb__fmt_count(double n, char *buf, size_t len);

#endif
