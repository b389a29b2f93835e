/* csvread.h - reading CSV tables per RFC 4180: fields separated by commas,
 * records by LF or CRLF, fields in double quotes may hold commas, newlines
 * and doubled quotes ("").  A UTF-8 byte order mark is skipped, blank lines
 * are ignored, header names are trimmed.  Every error names the file and
 * the line: an unterminated quote (and the line that opened it), a quote
 * inside an unquoted field, text after a closing quote, a record with more
 * or fewer fields than the header. */
#ifndef MB_EXEC_CSVREAD_H
#define MB_EXEC_CSVREAD_H

#include "mbench.h"

#include <stddef.h>

typedef struct mb__csv {
    char **header; /* ncols names */
    size_t ncols;
    char **cells; /* nrows * ncols, row-major */
    size_t nrows;
    size_t *line;    /* the line each row starts on (1-based) */
    size_t *by_name; /* column indices sorted by name: lookups and the
                      * duplicate check in O(n log n), not O(n^2) */
} mb__csv;

/* Parses text (len bytes; `name` is used in messages).  On failure *out is
 * empty and err names the line.  Caller frees with mb__csv_free. */
mb_status mb__csv_parse(const char *text, size_t len, const char *name,
                        mb__csv *out, mb_err *err);
void mb__csv_free(mb__csv *c);
/* Index of column `name`, or -1. */
int mb__csv_col(const mb__csv *c, const char *name);
/* Cell (row, col) (borrowed). */
const char *mb__csv_cell(const mb__csv *c, size_t row, size_t col);

#endif
