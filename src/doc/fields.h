/* fields.h - the one list of per-run fields: name, unit, type and a getter
 * on the typed view (doc/view.h), and where each field goes: the CSV
 * columns (header and rows), the store's `runs` columns and the keys of
 * the history rows read back from it, the console and Markdown tables.
 * Adding a field here adds it to every output that lists it; a new store
 * column also needs a schema migration (src/store/store.c).  Pure. */
#ifndef MB_DOC_FIELDS_H
#define MB_DOC_FIELDS_H

#include "core/buf.h"
#include "doc/view.h"

#include <jansson.h>
#include <stddef.h>

typedef enum mb__ftype {
    MB_FT_TEXT, /* a string (NULL when missing) */
    MB_FT_INT,  /* a whole number (NAN when missing) */
    MB_FT_REAL, /* a real number (NAN when missing) */
    MB_FT_JSON  /* a JSON value, stored as compact text with sorted keys */
} mb__ftype;

/* Where a field goes. */
enum {
    MB_FO_CSV = 1,     /* a CSV column, in list order */
    MB_FO_STORE = 2,   /* a column of the store's `runs` table */
    MB_FO_HISTORY = 4, /* read back into history rows (under `key`) */
};

/* One value.  Text points into the documents or into the caller's
 * scratch buffer given to the getter. */
typedef struct mb__fval {
    const char *s;
    double x;
    const json_t *j;
} mb__fval;

typedef struct mb__field {
    const char *name; /* CSV column and the field's identity */
    const char *unit; /* of the getter's number: "ns", "B", "1/s", "n"
                         (a count), "" for text and JSON */
    mb__ftype type;
    unsigned where;     /* MB_FO_* */
    const char *column; /* store column, or NULL */
    const char *key;    /* history key, or NULL */
    const char *title;  /* short heading for tables ("p95", "peak RSS") */
    void (*get)(const mb__rrun *r, mb__fval *v, char *tmp, size_t tmp_len);
} mb__field;

/* The list; *n gets its length.  Static. */
const mb__field *mb__fields(size_t *n);
/* The field named name, or NULL. */
const mb__field *mb__field_find(const char *name);
/* The value of f for r.  tmp (at least 256 bytes) holds built text. */
void mb__field_get(const mb__field *f, const mb__rrun *r, mb__fval *v,
                   char *tmp, size_t tmp_len);

/* Appends the CSV header line (every field with MB_FO_CSV, in list
 * order, then a newline), and one run's row in the same order. */
void mb__fields_csv_header(mb__buf *out);
void mb__fields_csv_row(const mb__rrun *r, mb__buf *out);
/* The CSV text of one value: ns as milliseconds (6 decimals), bytes as
 * MiB (3), rates with 3 decimals, counts whole; text as an RFC 4180
 * field.  Appends nothing for a missing value. */
void mb__field_csv(const mb__field *f, const mb__fval *v, mb__buf *out);

/* One value as a table cell (md 0: console, 1: Markdown, which the
 * caller escapes): milliseconds (console: more digits the smaller;
 * Markdown: 4 significant), bytes in binary units, rates with one decimal
 * (Markdown: 4 significant digits), counts whole, "-" when missing
 * (console text: ""). Returns out. */
const char *mb__field_cell(const mb__field *f, const mb__rrun *r, int md,
                           char *out, size_t len);

/* The store's text of one value for a parameterised INSERT: counts as
 * whole numbers, reals with 17 significant digits, JSON as compact
 * sorted text.  Returns a malloc'd string (caller frees) or NULL for
 * SQL NULL; *oom is set when memory ran out. */
char *mb__field_sql(const mb__field *f, const mb__rrun *r, int *oom);

#endif
